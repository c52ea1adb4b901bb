"""Live use of the session: a presenter's terminal (a pty pair here) forwarded to commands and to bash."""
from __future__ import annotations

import os
import pty
import signal
import sys
import termios
import threading
import time

import pytest

from runner.session import exchange
from runner.session.session import Session


class FakeStdin:
    def __init__(self, fd: int):
        self._fd = fd

    def fileno(self) -> int:
        return self._fd


@pytest.fixture
def terminal(monkeypatch):
    """(keyboard, screen side): bytes written to `keyboard` are what the presenter types."""
    keyboard, presenter = pty.openpty()
    monkeypatch.setattr(sys, "stdin", FakeStdin(presenter))
    yield keyboard, presenter
    os.close(keyboard)
    os.close(presenter)


@pytest.fixture
def session(tmp_path):
    with Session(cwd=str(tmp_path), default_timeout=20) as s:
        yield s


def type_later(fd: int, *keystrokes: bytes, pause: float = 0.3) -> threading.Thread:
    def typing() -> None:
        for keys in keystrokes:
            time.sleep(pause)
            os.write(fd, keys)

    thread = threading.Thread(target=typing, daemon=True)
    thread.start()
    return thread


def watchdog(session: Session, seconds: float = 15) -> threading.Timer:
    """Ends the session if a test would otherwise wait forever."""
    timer = threading.Timer(seconds, session.close)
    timer.daemon = True
    timer.start()
    return timer


def test_interactive_command_reads_the_presenters_keys(terminal, session):
    keyboard, presenter = terminal
    before = termios.tcgetattr(presenter)
    type_later(keyboard, b"world\r")
    outcome = session.run('read -r name; echo "hello $name"', interactive=True, timeout=10)
    assert outcome.status == 0
    assert outcome.output.endswith("hello world\n")
    assert "world" in outcome.output.split("hello")[0]
    assert termios.tcgetattr(presenter) == before


def test_presenters_ctrl_c_reaches_the_command(terminal, session):
    keyboard, _ = terminal
    type_later(keyboard, b"\x03")
    outcome = session.run("sleep 100", interactive=True, timeout=10)
    assert outcome.status == 130 and not outcome.timed_out
    assert session.run("echo back").output == "back\n"


def test_interactive_command_sees_the_presenters_window_size(terminal, session):
    keyboard, presenter = terminal
    termios.tcsetwinsize(presenter, (40, 132))
    assert session.run("stty size", interactive=True, timeout=10).output == "40 132\n"
    assert session.run("stty size </dev/tty").output == "24 80\n"


def test_a_resize_during_a_command_reaches_it(terminal, session):
    _, presenter = terminal

    def resize() -> None:
        time.sleep(0.4)
        termios.tcsetwinsize(presenter, (50, 120))
        os.kill(os.getpid(), signal.SIGWINCH)  # what the terminal sends its foreground process

    termios.tcsetwinsize(presenter, (30, 100))
    threading.Thread(target=resize, daemon=True).start()
    outcome = session.run("stty size; sleep 1.2; stty size", interactive=True, timeout=10)
    assert outcome.output.splitlines() == ["30 100", "50 120"]


def test_programs_see_the_new_size_after_a_resize(terminal, session):
    """What a program reads of the terminal's size follows the presenter's window (less, watch,
    k9s): no frozen COLUMNS or LINES overrides the pty."""
    _, presenter = terminal
    termios.tcsetwinsize(presenter, (30, 100))
    size = f"{sys.executable} -c 'import shutil; print(*shutil.get_terminal_size())'"

    shown = bytearray()

    def resize_once_shown(chunk: bytes) -> None:
        shown.extend(chunk)
        if shown.startswith(b"100 30\r\n"):
            shown.clear()
            termios.tcsetwinsize(presenter, (50, 120))
            os.kill(os.getpid(), signal.SIGWINCH)  # what the terminal sends its foreground process

    command = f'{size}; while [ "$(stty size)" = "30 100" ]; do sleep 0.01; done; {size}'
    outcome = session.run(command, interactive=True, timeout=10, on_output=resize_once_shown)
    assert outcome.output.splitlines() == ["100 30", "120 50"]


@pytest.mark.parametrize("leave", [b"exit\r", b"\x04", b"exit 5\r"])
def test_shell_handed_to_the_presenter_keeps_state_and_returns(terminal, session, tmp_path, leave):
    keyboard, _ = terminal
    screen_read, screen = os.pipe()
    (tmp_path / "sub").mkdir()
    timer = watchdog(session)
    type_later(keyboard, b"inside=42; cd sub; f() { echo from-f; }\r", leave)
    session.interact_shell(stdout_fd=screen)
    timer.cancel()
    os.close(screen)
    shown = os.read(screen_read, 65536)
    os.close(screen_read)
    assert session.alive
    assert session.getvar("inside") == "42"
    assert session.run("pwd; f").output == f"{tmp_path / 'sub'}\nfrom-f\n"
    assert b"inside=42" in shown and (b"$ " in shown or b"# " in shown)
    assert b"\x1e" not in shown
    assert "__dr_" not in session.run("history").output
    assert session.run("exit 4").status == 4


def test_leaving_the_handed_over_shell_mid_line_leaves_nothing_behind(terminal, session):
    """`exit` with more of its line still to run: the shell comes back once that has run, as it
    was before, and no line of the session's own is taken for the next command's output."""
    keyboard, _ = terminal
    screen_read, screen = os.pipe()
    timer = watchdog(session, 30)
    for _ in range(3):
        os.write(keyboard, b"exit; sleep 0.3\r")  # typed ahead: read once the shell is handed over
        session.interact_shell(stdout_fd=screen)
        assert session.run("echo after").output == "after\n"
        assert session.run("type -t exit; [[ -o emacs ]] || echo no-line-editing").output == \
            "builtin\nno-line-editing\n"
    timer.cancel()
    os.close(screen)
    os.close(screen_read)


def test_a_line_that_goes_on_after_exit_is_interrupted(terminal, session, tmp_path, monkeypatch):
    """What follows `exit` on its line gets a grace to end, then Ctrl-C, as the shell is taken back."""
    monkeypatch.setattr(exchange, "INTERRUPT_GRACE", 0.3)
    keyboard, _ = terminal
    screen_read, screen = os.pipe()
    timer = watchdog(session, 30)
    os.write(keyboard, b"exit; sleep 100; echo never > never.txt\r")
    start = time.monotonic()
    session.interact_shell(stdout_fd=screen)
    assert time.monotonic() - start < 20  # not the 100 s the line would take
    timer.cancel()
    assert session.run("echo after").output == "after\n"
    assert not (tmp_path / "never.txt").exists()
    os.close(screen)
    os.close(screen_read)
