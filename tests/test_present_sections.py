"""Finding sections by heading, for --from and the `g` key, on made-up plans and on real workshops."""
from __future__ import annotations

from pathlib import Path

import pytest

from runner.errors import DemorunError
from runner.model import Kind, Plan, SourceLoc, Step, Visibility
from runner.modes.present.sections import find_section, sections
from runner.parse.workshop import parse_workshop

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def _prose(line: int, section: str | None, visibility=Visibility.SHOW) -> Step:
    return Step(Kind.PROSE, SourceLoc("w.md", line), f"text {line}", visibility, section=section)


def _command(line: int, section: str | None, visibility=Visibility.SHOW) -> Step:
    return Step(Kind.COMMAND, SourceLoc("w.md", line), "true", visibility, section=section)


PLAN = Plan("w.md", (
    _prose(1, "Setup", Visibility.HIDE),
    _command(3, "Setup", Visibility.HIDE),
    _prose(5, "Using the `CNI` plugin"),
    _command(7, "Using the `CNI` plugin"),
    _prose(9, "Cleaning up"),
    _prose(11, "Cleaning up more"),
    _prose(13, "Hidden away", Visibility.SKIP),
))


def test_sections_start_where_the_heading_changes_and_skip_skipped_ones():
    found = sections(PLAN)
    assert [(s.index, s.title, s.shown) for s in found] == [
        (0, "Setup", False), (2, "Using the `CNI` plugin", True),
        (4, "Cleaning up", True), (5, "Cleaning up more", True)]


@pytest.mark.parametrize("heading, index", [
    ("Using the CNI plugin", 2),  # emphasis and backticks do not matter
    ("using the cni PLUGIN", 2),
    ("CNI", 2),  # a part of exactly one title
    ("Cleaning up", 4),  # an exact title wins over a longer one containing it
    ("setup", 0),  # a hidden section is still a place to start
])
def test_find_section(heading, index):
    assert find_section(PLAN, heading).index == index


def test_unknown_section_names_the_ones_there_are():
    with pytest.raises(DemorunError) as caught:
        find_section(PLAN, "Nowhere")
    message = str(caught.value)
    assert "'Nowhere'" in message and "'Cleaning up'" in message and "\n" not in message


def test_ambiguous_part_of_a_title_is_an_error():
    with pytest.raises(DemorunError, match="several sections"):
        find_section(PLAN, "clean")


def _corpus_workshops() -> list[Path]:
    return sorted(CORPUS.rglob("*.md")) if CORPUS.is_dir() else []


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found at {CORPUS}")
@pytest.mark.parametrize("path", _corpus_workshops(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_shown_heading_of_a_real_workshop_can_be_started_from(path):
    plan = parse_workshop(str(path), no_init=True)
    shown = [s for s in sections(plan) if s.shown]
    for section in shown:
        found = find_section(plan, section.title)
        assert found.title == section.title
        assert found.index <= section.index  # a repeated title starts at its first occurrence
        assert plan.steps[found.index].kind is Kind.PROSE
