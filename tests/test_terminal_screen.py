"""The screen's own mechanics: headings without colour, and a status line that leaves no trace."""
from __future__ import annotations

import io
import re

import pytest

from runner.terminal.screen import (
    HUMAN_PACE,
    TICK,
    TYPING_CAP,
    Screen,
    _last_row,
    keystrokes,
    render_markdown,
    rows,
)


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
    screen.write("prose\n")
    screen.show_status("a message for the presenter")
    assert screen.status_shown and out.getvalue().endswith(b"\r\x1b[Ka message for the presenter")
    screen.clear_status()
    assert out.getvalue().endswith(b"presenter\r\x1b[K")
    screen.write("$ ls")
    assert bytes(recorded) == b"prose\n$ ls"
    assert not screen.status_shown


def test_a_status_line_never_covers_a_row_that_shows_something():
    out, recorded = io.BytesIO(), bytearray()
    screen = Screen(out, color=False, width=40, record=recorded.extend)
    screen.write("prose\n$ ls")
    screen.show_status("a message")
    # Down a row (the terminal scrolls if it must), the cursor's place kept, the message under it.
    assert out.getvalue().endswith(b"$ ls\x1bD\x1b[A\x1b7\x1bD\r\x1b[Ka message")
    screen.show_status("another")
    assert out.getvalue().endswith(b"a message\r\x1b[Kanother")
    screen.write(" -l")
    assert out.getvalue().endswith(b"another\r\x1b[K\x1b8 -l")
    assert bytes(recorded) == b"prose\n$ ls -l"


def test_any_write_of_the_show_erases_the_status_first():
    out = io.BytesIO()
    screen = Screen(out, color=False, width=40)
    screen.write("$ \x1b[1m")
    screen.clear()
    screen.show_status("catching up")
    screen.write("x")
    assert out.getvalue().endswith(b"catching up\r\x1b[Kx")


def test_a_command_taken_back_leaves_no_trace(tmp_path):
    out, recorded = io.BytesIO(), bytearray()
    screen = Screen(out, color=False, width=10, record=recorded.extend)
    screen.write("text\n")
    screen.prompt()
    screen.command("echo 123456789\nnext")  # three rows: 10 columns, then a line of its own
    screen.take_back("echo 123456789\nnext")
    assert recorded.endswith(b"\r\x1b[K\x1b[A\x1b[K\x1b[A\x1b[K")
    assert screen.at_line_start and not screen.message_shown
    screen.blank_line()  # what was above the prompt counts again: one blank line, not two
    assert recorded.endswith(b"\x1b[K\n")


@pytest.mark.parametrize("text, count", [
    ("", 1), ("$ ls", 1), ("x" * 10, 1), ("x" * 11, 2), ("a\nb", 2), ("界" * 5, 1), ("界" * 6, 2),
    ("\tx", 1), ("e\u0301" * 10, 1),
])
def test_rows_a_text_takes(text, count):
    assert rows(text, 10) == count


@pytest.mark.parametrize("length, speed", [(1, None), (40, None), (5000, None), (200_000, None), (300, 40.0)])
def test_typing_takes_at_most_the_cap_however_long_the_command(length, speed):
    text = "x" * length
    pieces = keystrokes(text, speed)
    assert "".join(piece for piece, _ in pieces) == text
    assert sum(pause for _, pause in pieces) <= TYPING_CAP + 1e-9
    assert len(pieces) <= TYPING_CAP / TICK + 2  # writes are batched once the pace is faster than a tick


def test_short_commands_are_typed_a_key_at_a_time():
    pieces = keystrokes("kubectl get pods", None)
    assert [piece for piece, _ in pieces] == list("kubectl get pods")
    assert all(HUMAN_PACE[0] <= pause <= HUMAN_PACE[1] for _, pause in pieces)


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
    # Colours, and a status line cleared in place or put under the cursor's row.
    ours = re.compile(r"\x1b\[[0-9;]*m|\r\x1b\[K|\x1bD\x1b\[A\x1b7\x1bD")
    shown = ours.sub("", out.getvalue().decode())
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", shown), repr(shown)
    assert shown.count("^[]2;owned^G") == 7


def test_a_commands_tabs_and_lines_are_kept():
    out = io.BytesIO()
    Screen(out, color=False, width=60).command("cat <<EOF\n\tindented\nEOF")
    assert out.getvalue() == b"cat <<EOF\n\tindented\nEOF"
