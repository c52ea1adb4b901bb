"""Keys as the terminal sends them, read one at a time from a real pty."""
from __future__ import annotations

import os
import pty
import select
import termios

import pytest

from runner.terminal.keys import (
    BACKSPACE,
    CTRL_C,
    ENTER,
    ESCAPE,
    SPACE,
    Keyboard,
    TypeAhead,
    parse_keys,
)


@pytest.mark.parametrize("sent, keys", [
    ("\r", [ENTER]),
    ("\n", [ENTER]),
    (" ", [SPACE]),
    ("\x03", [CTRL_C]),
    ("\x7f", [BACKSPACE]),
    ("\x1b", [ESCAPE]),
    ("-+!Q", ["-", "+", "!", "Q"]),
    ("\x1b[A\x1b[1;5Cg", ["\x1b[A", "\x1b[1;5C", "g"]),
    ("é2", ["é", "2"]),
])
def test_parse_keys(sent, keys):
    assert parse_keys(sent) == keys


def test_keyboard_reads_with_a_timeout_and_restores_the_terminal():
    leader, follower = pty.openpty()
    try:
        before = termios.tcgetattr(follower)
        with Keyboard(follower) as keys:
            assert not termios.tcgetattr(follower)[3] & termios.ECHO
            assert keys.read(timeout=0.05) is None
            os.write(leader, b"-\r\x03")
            assert [keys.read(1), keys.read(1), keys.read(1)] == ["-", ENTER, CTRL_C]
            with keys.signals():
                assert termios.tcgetattr(follower)[3] & termios.ISIG
            assert not termios.tcgetattr(follower)[3] & termios.ISIG
        assert termios.tcgetattr(follower) == before
    finally:
        os.close(leader)
        os.close(follower)


@pytest.mark.parametrize("typed, reading, sent, quit_after, signalled", [
    (b"touch LEAKED\r", False, b"", False, False),
    (b"touch LEAKED\r", True, b"touch LEAKED\r", False, False),
    (b"Q", False, b"", True, False),
    (b"\x1bOQ", False, b"", False, False),  # F2 ends in Q but is not Q
    (b"ab\x03c", False, b"\x03", False, True),
    (b"\x1a", False, b"\x1a", False, True),
    (b"\x03", True, b"\x03", False, True),
])
def test_typeahead_reaches_a_command_only_while_it_reads(typed, reading, sent, quit_after, signalled):
    filter_ = TypeAhead()
    assert filter_(typed, lambda: reading) == sent
    assert (filter_.quit_after, filter_.signalled) == (quit_after, signalled)
    filter_.start()
    assert filter_.quit_after == quit_after and not filter_.signalled


@pytest.mark.parametrize("pasted, sent, cut", [
    (b"yes\r", b"yes\r", False),
    (b"Ada\rtouch nobody-typed\r", b"Ada\r", True),
    (b"Ada\r\ntouch x\n", b"Ada\r\n", True),
    (b"one\n\n", b"one\n", False),  # an empty line more answers nothing bash would run
    (b"no line end", b"no line end", False),
])
def test_a_paste_reaches_a_reading_command_up_to_its_first_line_end(pasted, sent, cut):
    filter_ = TypeAhead()
    assert filter_(pasted, lambda: True) == sent
    assert filter_.cut == cut


@pytest.mark.parametrize("typed_ahead, quit_after", [(["Q"], True), (["x", "enter"], False), ([], False)])
def test_keys_read_with_the_return_that_starts_a_command_count_as_typed_during_it(typed_ahead, quit_after):
    filter_ = TypeAhead()
    filter_.start(typed_ahead)
    assert filter_.quit_after == quit_after


def test_keys_read_ahead_are_handed_over_once(tmp_path):
    read_end, write_end = os.pipe()
    os.write(write_end, b"\rQ")
    keyboard = Keyboard(read_end)
    assert keyboard.read(timeout=1) == "enter"
    assert keyboard.take_pending() == ["Q"]
    assert keyboard.take_pending() == []
    assert keyboard.read(timeout=0) is None


def test_discard_forgets_keys_read_ahead_and_those_still_in_the_terminal():
    leader, follower = pty.openpty()
    try:
        with Keyboard(follower) as keys:
            os.write(leader, b"\rQ")
            assert keys.read(timeout=1) == ENTER  # "Q" is read ahead with it
            os.write(leader, b"+-\xc3")  # and these wait in the terminal, the last a character cut short
            deadline = 50
            while not select.select([follower], [], [], 0.01)[0] and deadline:
                deadline -= 1
            keys.discard()
            assert keys.read(timeout=0.05) is None
            os.write(leader, b"\xa9g")  # the rest of that character is no key either
            assert keys.key() == "\ufffd" and keys.key() == "g"
    finally:
        os.close(leader)
        os.close(follower)
