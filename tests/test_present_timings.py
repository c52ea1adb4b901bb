"""Rehearsal timings: time per section, commands against waiting, printed and written as JSON."""
from __future__ import annotations

import json

from conftest import REPO

from runner.model import Kind, SourceLoc, Step, Visibility
from runner.timings import BEFORE_HEADINGS, Timings, duration

THREE = REPO / "tests" / "fixtures" / "present" / "three_sections.md"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _step(line: int, section: str | None) -> Step:
    return Step(Kind.PROSE, SourceLoc("w.md", line), "", Visibility.SHOW, section=section)


def test_sections_split_commands_from_waiting_and_add_up_on_a_second_visit():
    clock = Clock()
    timings = Timings("w.md", clock)
    timings.at(_step(1, None))
    clock.now += 2
    timings.command(1.5)
    timings.at(_step(5, "Intro"))
    clock.now += 10
    timings.command(4)
    timings.at(_step(9, "Deploy"))
    clock.now += 3
    timings.at(_step(5, "Intro"))  # `g` back
    clock.now += 5
    rows = {s.title: s for s in timings.sections()}
    assert [s.title for s in timings.sections()] == [BEFORE_HEADINGS, "Intro", "Deploy"]
    assert (rows["Intro"].total, rows["Intro"].commands, rows["Intro"].waiting) == (15, 4, 11)
    assert (rows["Deploy"].total, rows["Deploy"].count) == (3, 0)
    assert rows[BEFORE_HEADINGS].waiting == 0.5
    data = timings.as_json()
    assert data["total"] == 20 and data["commands"] == 5.5
    assert [s["line"] for s in data["sections"]] == [1, 5, 9]


def test_table_fits_the_width_and_ends_with_the_total():
    timings = Timings("w.md", Clock())
    timings.at(_step(1, "A heading far too long to fit in any column of a narrow terminal at all"))
    lines = timings.table(width=60)
    assert all(len(line) <= 60 for line in lines)
    assert lines[0].split() == ["section", "total", "commands", "waiting"]
    assert lines[-1].startswith("total")


def test_durations_read_like_a_clock():
    assert [duration(s) for s in (4.24, 75, 3725)] == ["4.2s", "1m15s", "1h02m"]


def test_run_prints_and_writes_timings_of_three_sections(demorun, tmp_path):
    written = tmp_path / "rehearsal.json"
    result = demorun("run", "--no-init", str(THREE), "--timings", str(written))
    assert result.exit_code == 0, result.output
    table = result.output[result.output.index("section "):]
    for title in ("First", "Second", "Third", "total"):
        assert f"\n{title} " in table
    data = json.loads(written.read_text())
    by_title = {s["title"]: s for s in data["sections"]}
    assert by_title["Second"]["commands"] >= 0.8 and by_title["First"]["commands"] >= 0.2
    assert by_title["Second"]["count"] == 1


def test_timings_alone_print_without_writing(demorun, tmp_path):
    result = demorun("run", "--no-init", str(THREE), "--timings")
    assert result.exit_code == 0
    assert "commands" in result.output and "waiting" in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_workshop_given_as_the_timings_file_is_a_usage_error(demorun):
    result = demorun("run", "--timings", str(THREE))
    assert result.exit_code == 2
    assert "must end in .json" in result.output and "Traceback" not in result.output


def test_an_unwritable_timings_file_is_refused_before_anything_runs(demorun, tmp_path):
    result = demorun("run", "--no-init", str(THREE), "--timings", str(tmp_path / "no" / "t.json"))
    assert result.exit_code == 2
    assert "cannot write" in result.output and "first-done" not in result.output
