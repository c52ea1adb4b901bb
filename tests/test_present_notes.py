"""The presenter's `@note`s and notes panel: parsed from the file, placed by step, ignored elsewhere."""
from __future__ import annotations

import os
import pty

import pytest
from conftest import REPO

from runner.errors import DemorunError
from runner.model import Kind
from runner.modes.present.notes import Channel, Outline, open_notes
from runner.parse.workshop import parse_workshop

NOTES = REPO / "tests" / "fixtures" / "present" / "notes.md"


def _index(plan, kind, text):
    return next(i for i, s in enumerate(plan.steps) if s.kind is kind and text in s.text)


def test_notes_are_steps_of_their_own_kind():
    plan = parse_workshop(str(NOTES), no_init=True)
    notes = [s for s in plan.steps if s.kind is Kind.NOTE]
    assert [n.text for n in notes] == ["Ask who has used a service mesh before.",
                                       "The next table is wide: press o if its header scrolls away."]
    assert [n.loc.line for n in notes] == [11, 19]


def test_a_position_names_section_step_next_command_and_the_notes_in_force():
    plan = parse_workshop(str(NOTES), no_init=True)
    outline = Outline(plan)
    first = outline.at(_index(plan, Kind.COMMAND, "one-done"))
    assert (first.section, first.section_number, first.sections) == ("Part one", 1, 2)
    assert (first.step, first.steps, first.next_command) == (1, 2, "echo one-done")
    assert first.notes == ("Ask who has used a service mesh before.",)
    second = outline.at(_index(plan, Kind.PROSE, "Part two"))
    assert (second.step, second.next_command) == (2, "echo two-done")
    assert second.notes == ("The next table is wide: press o if its header scrolls away.",)
    setup = outline.at(0)
    assert setup.section_number == 0 and setup.notes == ()  # the hidden setup's command comes first
    past = outline.at(len(plan.steps))
    assert past.next_command is None and past.step == 0


def test_run_and_check_ignore_notes(demorun):
    run = demorun("run", "--no-init", str(NOTES))
    assert run.exit_code == 0, run.output
    assert "service mesh" not in run.output and "one-done" in run.output
    check = demorun("check", "--no-init", str(NOTES))
    assert check.exit_code == 0, check.output
    assert "service mesh" not in check.output


def test_an_empty_note_is_a_format_error(demorun, workshop):
    path = workshop("""
        <!-- @SHOW -->
        <!-- @note -->
        ```bash
        echo x
        ```
    """)
    result = demorun("lint", path)
    assert result.exit_code == 1
    assert f"{path}:2" in result.output and "@note" in result.output


def test_notes_need_a_terminal(tmp_path):
    plain = tmp_path / "notes.txt"
    plain.write_text("")
    with pytest.raises(DemorunError, match="not a terminal"):
        open_notes(str(plain))
    with pytest.raises(DemorunError, match="cannot open"):
        open_notes(str(tmp_path / "missing" / "tty"))
    leader, follower = pty.openpty()
    try:
        fd = open_notes(os.ttyname(follower))
        os.close(fd)
    finally:
        os.close(leader)
        os.close(follower)


def test_notes_refuse_the_shows_own_terminal():
    leader, follower = pty.openpty()
    saved = os.dup(1)
    try:
        os.dup2(follower, 1)
        with pytest.raises(DemorunError, match="the terminal the show is on"):
            open_notes(os.ttyname(follower))
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(leader)
        os.close(follower)


@pytest.mark.parametrize(("given", "said", "shown"), [
    ("/home/me/a-long-talks-folder/k8s/README.md",
     "/home/me/a-long-talks-folder/k8s/README.md:17: @SHWO: no directive; /home/me/a-long-talks-folder/k8s/lib/t.sh:3",
     "README.md:17: @SHWO: no directive; lib/t.sh:3"),
    ("talks/README.md", "talks/README.md:4: drift; see ./talks/x and other-talks/README.md",
     "README.md:4: drift; see ./talks/x and other-talks/README.md"),  # only where a path starts
    ("./README.md", "./README.md:4: then ../README.md and ./run.sh", "./README.md:4: then ../README.md and ./run.sh"),
    ("README.md", "README.md:4: x", "README.md:4: x"),
])
def test_the_presenter_reads_places_from_the_workshops_folder(given, said, shown):
    class Quiet:
        width = 80

    channel = Channel(Quiet(), given)
    assert channel.local(said) == shown
