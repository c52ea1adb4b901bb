"""The check every tmux test ends with catches each way a terminal can be left broken."""
from __future__ import annotations

import pytest
import tmux_terminal as live
from tmux_terminal import assert_sane, wrapped

pytestmark = live.TMUX
terminal = live.terminal


@pytest.mark.parametrize("broken", [
    "printf '\\033[?1049h'",  # the alternate screen
    "printf '\\033[?25l'",  # a hidden cursor
    "printf '\\033[?1000h'",  # mouse reporting
    "printf '\\033[?1h'",  # cursor keys in application mode
    "stty -echo",  # the line discipline
])
def test_a_terminal_left_broken_is_caught(terminal, broken):
    terminal.start(wrapped(broken))
    terminal.closed = True  # broken on purpose: the fixture's own check would fail too
    with pytest.raises(AssertionError):
        assert_sane(terminal)


def test_a_terminal_left_whole_passes(terminal):
    terminal.start(wrapped("printf '\\033[?1049h\\033[?1049l'"))
    assert_sane(terminal)
