"""Normalising output as a terminal would show it (MATCHING.md step 1)."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from runner.verify.normalise import normalise


def test_colours_and_titles_are_stripped():
    assert normalise("\x1b[1;32mRunning\x1b[0m\x1b]0;my title\x07 ok\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n") == [
        "Running ok" + "link"
    ]


def test_crlf_becomes_lf_and_trailing_space_and_blank_lines_go():
    assert normalise("a  \r\nb\t\r\n\r\n\n") == ["a", "b"]


def test_leading_blank_lines_stay():
    assert normalise("\n\nx\n") == ["", "", "x"]


def test_carriage_return_keeps_what_the_terminal_shows():
    assert normalise("downloading 10%\rdownloading 100%\n") == ["downloading 100%"]
    assert normalise("long progress line\rdone\n") == ["done progress line"]


def test_erase_line_after_carriage_return_clears_the_rest():
    assert normalise("long progress line\r\x1b[Kdone\n") == ["done"]
    assert normalise("abc\x1b[2K\rxy\n") == ["xy"]


def test_backspace_moves_back():
    assert normalise("ab\x08c\n") == ["ac"]


def test_tabs_expand_to_terminal_stops():
    assert normalise("a\tb\n") == ["a       b"]


def test_broken_escapes_leave_no_escape_behind():
    assert normalise("\x08\x1b\x1b0[x\n") == ["[x"]


def test_other_control_characters_vanish():
    assert normalise("a\x07b\x00c\n") == ["abc"]


def test_empty_output_has_no_lines():
    assert normalise("") == [] and normalise("\n \n\x1b[0m\n") == []


@given(st.text(alphabet=st.sampled_from(list("ab \t\r\n\x08\x1b[]0123;Km?\x07\\")), max_size=60))
def test_normalising_twice_changes_nothing(text):
    once = normalise(text)
    assert normalise("\n".join(once)) == once
    assert all(line == line.rstrip() and "\x1b" not in line and "\r" not in line for line in once)


def test_stray_c1_controls_vanish():
    assert normalise("\x9b\x1f@ok\n") == ["@ok"]
