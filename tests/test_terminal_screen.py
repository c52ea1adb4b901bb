"""The screen's own mechanics: headings without colour, and a status line that leaves no trace."""
from __future__ import annotations

import io
import re

import pytest

from runner.terminal.screen import Screen, _last_row, render_markdown


def test_headings_keep_their_marks_without_colour():
    text = render_markdown("# Title\n\nBody text.\n\n## Part\n\n```\n# not a heading\n```\n",
                           width=60, color=False)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    assert lines[:3] == ["# Title", "Body text.", "## Part"]
    assert "\x1b[" not in text


@pytest.mark.parametrize("row, width, shown", [
    (b"$ echo hi", 20, b"$ echo hi"),
    (b"abcdefgh", 4, b"efgh"),
    (b"abcdefghi", 4, b"i"),
    (b"\x1b[1mabcdefghij\x1b[0m", 4, b"\x1b[1mij\x1b[0m"),
])
def test_last_row_is_what_the_terminal_shows_on_the_cursors_row(row, width, shown):
    assert _last_row(row, width) == shown


def test_status_line_is_not_recorded_and_puts_the_row_back():
    out, recorded = io.BytesIO(), bytearray()
    screen = Screen(out, color=False, width=40, record=recorded.extend)
    screen.write("prose\n$ ls")
    screen.show_status("a message for the presenter")
    assert screen.status_shown and b"a message" in out.getvalue()
    screen.clear_status()
    assert out.getvalue().endswith(b"\r\x1b[K$ ls")
    screen.write(" -l")
    assert bytes(recorded) == b"prose\n$ ls -l"
    assert not screen.status_shown


def test_any_write_of_the_show_erases_the_status_first():
    out = io.BytesIO()
    screen = Screen(out, color=False, width=40)
    screen.write("$ ")
    screen.show_status("catching up")
    screen.write("x")
    assert out.getvalue().endswith(b"catching up\r\x1b[K$ x")


def test_workshop_text_the_screen_shows_never_reaches_the_terminal_raw():
    out = io.BytesIO()
    screen = Screen(out, color=True, width=60)
    hostile = "x\x1b]2;owned\x07y \x1b[2J \x9b31m \x00"
    screen.comment(hostile)
    screen.printed(hostile)
    screen.line(hostile)
    screen.prompt()
    screen.command(hostile)
    screen.end_command()
    screen.command(hostile, speed=1e9)
    screen.show_status(hostile)
    screen.page_input(hostile)
    ours = re.compile(r"\x1b\[[0-9;]*m|\r\x1b\[K")  # colours, and a status line cleared in place
    shown = ours.sub("", out.getvalue().decode())
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", shown), repr(shown)
    assert shown.count("^[]2;owned^G") == 7


def test_a_commands_tabs_and_lines_are_kept():
    out = io.BytesIO()
    Screen(out, color=False, width=60).command("cat <<EOF\n\tindented\nEOF")
    assert out.getvalue() == b"cat <<EOF\n\tindented\nEOF"
