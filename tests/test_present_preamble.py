"""`present` says lint's errors before its first screen: on a page of the presenter's own, or on --notes."""
from __future__ import annotations

import os
import pty
import select
import shlex
import shutil
import sys
import time

import pytest
from tmux_terminal import DONE, FAST, REPO, terminal, wrapped  # noqa: F401  (terminal is a fixture)

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

TYPO = "<!-- @SHOW -->\n# Opening title\n\nOPENING-WORDS\n<!-- @SHWO -->\n```bash\necho after-typo\n```\n"


def _present(terminal, tmp_path, *args: str):  # noqa: F811
    (tmp_path / "talk.md").write_text(TYPO)
    command = shlex.join([sys.executable, "-m", "runner", "present", "--no-init", *FAST, *args, "talk.md"])
    terminal.start(wrapped(f"cd {shlex.quote(str(tmp_path))} && PYTHONPATH={shlex.quote(str(REPO))} {command}"))
    return terminal


def test_the_errors_come_on_a_page_before_the_first_screen_and_never_reach_the_recording(terminal, tmp_path):  # noqa: F811
    term = _present(terminal, tmp_path, "--record", "talk.cast")
    shown = term.wait_text("did you mean @SHOW?")
    assert "talk.md:5: error: '@SHWO' is no directive" in shown and "start the show" in shown
    term.stays_without("OPENING-WORDS")  # the audience's first screen waits for the presenter
    term.keys("Enter")
    shown = term.wait_text("OPENING-WORDS")
    assert "SHWO" not in shown  # the page is gone, and the show does not say it again
    term.wait_text("$ echo after-typo")  # typed in full: only now does RETURN run it
    term.keys("Enter")
    term.wait_text("after-typo\n")
    status, _ = term.finished()
    assert status == 0
    assert "SHWO" not in (tmp_path / "talk.cast").read_text()


@pytest.mark.parametrize(("key", "code"), [("Q", 0), ("C-c", 130)])
def test_capital_q_or_ctrl_c_on_the_page_stops_before_the_show(terminal, tmp_path, key, code):  # noqa: F811
    term = _present(terminal, tmp_path)
    term.wait_text("did you mean @SHOW?")
    term.keys(key)
    status, _ = term.finished()
    assert status == code and "OPENING-WORDS" not in term.screen()


def test_with_notes_the_errors_go_to_the_notes_terminal_and_the_show_starts(terminal, tmp_path):  # noqa: F811
    leader, follower = pty.openpty()
    try:
        term = _present(terminal, tmp_path, "--notes", os.ttyname(follower))
        term.wait_text("OPENING-WORDS")
        seen = b""
        deadline = time.monotonic() + 10
        while b"talk.md:5: error: '@SHWO' is no directive" not in seen:  # cut to the panel's width
            assert time.monotonic() < deadline, seen.decode(errors="replace")
            if select.select([leader], [], [], 0.1)[0]:
                seen += os.read(leader, 65536)
        assert "SHWO" not in term.screen()
        term.keys("Q")
        assert term.finished()[0] == 0
    finally:
        os.close(leader)
        os.close(follower)
