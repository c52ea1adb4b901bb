"""Nothing runs unseen, in a real terminal: a RETURN runs a command only once it was shown whole, and
keys pressed before the show is ready for them (hidden setup, a clear, catching up, a message) do nothing."""
from __future__ import annotations

import time

import pytest
import tmux_terminal as live
from tmux_terminal import DONE, FAST, prompt_line

pytestmark = live.TMUX
terminal, present = live.terminal, live.present  # the same real-terminal fixtures


def _file_appears(path, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{what} never happened"
        time.sleep(0.02)


def test_the_return_that_puts_away_a_warning_runs_nothing(present):
    term = present("unknown_hook.md", *FAST)
    shown = term.wait_text("@show_5: not a macro")
    assert prompt_line(shown, "echo first-command-output")  # the warning is under the command, not over it
    term.keys("Enter")
    shown = term.wait_for(lambda s: "@show_5" not in s, "the warning put away")
    assert prompt_line(shown, "echo first-command-output")
    term.stays_without("\nfirst-command-output")
    term.keys("Enter")
    term.wait_text("\nfirst-command-output")
    term.keys("Q")
    assert term.finished()[0] == 0


def test_return_while_a_command_is_typed_finishes_the_typing_only(present):
    term = present("basics.md", "--speed", "15")
    term.wait_text("$ e")
    term.keys("Enter", "Enter")  # the first finishes the typing; the second was pressed before it was whole
    term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the whole command at once", timeout=3)
    term.stays_without("first-output for mars\n")
    term.keys("Enter")
    term.wait_text("\nfirst-output for mars")
    term.keys("Q")
    term.finished()


def test_keys_pressed_during_hidden_setup_do_nothing(present, tmp_path):
    mark = tmp_path / "setup-running"
    term = present("setup_keys.md", *FAST, env=f"MARK={mark}")
    _file_appears(mark, "the hidden setup")
    term.keys("Q", "Enter", "+", "-", "Enter")
    shown = term.wait_for(lambda s: prompt_line(s, "echo first-shown-output"), "the first command")
    shown = term.stays_without(f"{DONE}=")  # Q did not quit
    assert "\nfirst-shown-output" not in shown and "nothing before" not in shown
    assert "second-shown-output" not in shown  # + did not skip
    term.keys("Enter")
    term.wait_text("\nfirst-shown-output")
    term.keys("Q")
    status, _ = term.finished()
    assert status == 0


@pytest.mark.parametrize("keys", [("Enter", "Enter"), ("Enter", "+")])
def test_a_double_key_at_a_wait_clear_does_nothing_after_the_clear(present, keys):
    term = present("wait_clear.md", *FAST)
    term.wait_text("RETURN to start")  # the first wait says it is ready for keys
    term.keys(*keys)
    shown = term.wait_for(lambda s: prompt_line(s, "echo after-the-clear"), "the command after the clear")
    assert "Before the wait." not in shown
    shown = term.stays_without("\nafter-the-clear")
    assert "(skipped)" not in shown
    term.keys("Enter")
    term.wait_text("\nafter-the-clear")
    term.keys("Q")
    assert term.finished()[0] == 0


def test_keys_pressed_while_catching_up_do_nothing(present):
    term = present("catchup.md", *FAST, "--from", "using them")
    term.wait_text("catching up: 1/3")
    term.keys("Q", "Enter", "+")
    shown = term.wait_for(lambda s: prompt_line(s, 'echo "installed $STEP"'), "the section's command")
    term.stays_without(f"{DONE}=")
    assert "installed 3\n" not in shown
    term.keys("Enter")
    term.wait_text("\ninstalled 3")
    term.keys("Q")
    assert term.finished()[0] == 0
