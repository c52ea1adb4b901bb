"""A real terminal for tests: a tmux server of its own that types keys, reads the screen, and
checks at the end of every test that the terminal was given back whole.

The sanity check is one function, `assert_sane`, and the `terminal` fixture runs it when a
test ends: the line discipline as it was before the show (`stty -g` compared), and, from
tmux's own view of the pane, the cursor visible, the normal screen, no mouse reporting and
cursor keys in normal mode. A test that kills the terminal on purpose says so (`closed`).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "present"
FAST = ["--speed", "2000"]  # typing out of the way where a test is not about typing
DONE = "PRESENT-EXITED"
SAME, CHANGED = "TTY-AS-BEFORE", "TTY-CHANGED"

TMUX = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

# What tmux says of the pane, and the value each must have once the show is over.
_PANE_MODES = {"alternate_on": "0", "cursor_flag": "1", "mouse_any_flag": "0",
               "keypad_cursor_flag": "0", "mouse_sgr_flag": "0"}


def wrapped(command: str) -> str:
    """`command` between a snapshot of the terminal's modes and the comparison with it, then
    its exit status and `stty -a`, and a pause that keeps the pane for reading."""
    return (f"__before=$(stty -g); {command}; echo {DONE}=$?; "
            f"if [ \"$(stty -g)\" = \"$__before\" ]; then echo {SAME}; else echo {CHANGED}; fi; "
            f"stty -a; sleep 600")


class Terminal:
    """One tmux server of its own, 100x30, running one command; polled, never slept on blindly."""

    def __init__(self, socket: str):
        self.socket = socket
        self.closed = False  # a test that kills the terminal on purpose: nothing to check after
        self.wrapped = False  # started through `wrapped`: the end can be checked

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args],
                              check=True, capture_output=True, text=True).stdout

    def start(self, shell_command: str) -> None:
        self.wrapped = DONE in shell_command
        self.tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "30",
                  "bash", "--norc", "--noprofile", "-c", shell_command)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "t", *keys)

    def text(self, literal: str) -> None:
        self.tmux("send-keys", "-t", "t", "-l", literal)

    def paste(self, text: str) -> None:
        """`text` arriving at once, as a paste does (one write to the terminal)."""
        self.tmux("set-buffer", "-b", "p", text)
        self.tmux("paste-buffer", "-b", "p", "-d", "-t", "t")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-t", "t")

    def modes(self) -> dict[str, str]:
        """tmux's view of the pane's modes (see _PANE_MODES)."""
        names = list(_PANE_MODES)
        said = self.tmux("display-message", "-p", "-t", "t", " ".join(f"#{{{n}}}" for n in names)).split()
        return dict(zip(names, said))

    def wait_for(self, predicate, what: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if predicate(shown):
                return shown
            if time.monotonic() > deadline:
                pytest.fail(f"timed out waiting for {what}; the screen shows:\n{shown}")
            time.sleep(0.05)

    def wait_text(self, text: str, timeout: float = 10.0) -> str:
        return self.wait_for(lambda s: text in s, repr(text), timeout)

    def stays_without(self, text: str, seconds: float = 0.6) -> str:
        """The screen does not show `text` for a while: for things that must wait for a key."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            shown = self.screen()
            assert text not in shown, f"{text!r} appeared too early:\n{shown}"
            time.sleep(0.05)
        return shown

    def finished(self, timeout: float = 10.0) -> tuple[int, str]:
        """Exit status of the show and the `stty -a` taken right after it; the terminal is sane."""
        shown = self.wait_for(lambda s: f"{DONE}=" in s and "icanon" in s, "the show to end", timeout)
        assert_sane(self)
        return int(re.search(rf"{DONE}=(\d+)", shown).group(1)), shown[shown.index(f"{DONE}="):]


def assert_sane(term: Terminal) -> None:
    """The one check every tmux test ends with: the terminal is as it was before the show."""
    shown = term.wait_for(lambda s: SAME in s or CHANGED in s, "the terminal's modes after the show")
    assert SAME in shown, f"the show changed the terminal's modes (stty):\n{shown}"
    flags = shown[shown.index(SAME):].split()
    assert "-echo" not in flags and "-icanon" not in flags and "-isig" not in flags, shown
    modes = term.modes()
    wrong = {name: value for name, value in modes.items() if value != _PANE_MODES[name]}
    assert not wrong, f"the terminal was not given back whole: {wrong}\n{shown}"


def _socket_path(name: str) -> Path:
    return Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / name


def end(term: Terminal) -> None:
    """Kill the test's own tmux server and remove its socket, which tmux leaves behind."""
    subprocess.run(["tmux", "-L", term.socket, "kill-server"], capture_output=True)
    _socket_path(term.socket).unlink(missing_ok=True)


def _ended_whole(term: Terminal) -> None:
    """After a test: a show still on (the test stopped looking) is quit with Q, then checked."""
    if term.closed or not term.wrapped:
        return
    try:
        if f"{DONE}=" not in term.screen():
            term.keys("Q")
            term.wait_for(lambda s: f"{DONE}=" in s, "the show to end on Q after the test", timeout=15)
    except subprocess.CalledProcessError:
        return  # the test's terminal is gone already
    assert_sane(term)


@pytest.fixture
def terminal(request):
    term = Terminal(f"demorun-test-{uuid.uuid4().hex[:12]}")
    yield term
    try:
        called = getattr(request.node, "rep_call", None)
        if called is not None and called.passed:  # a failed (or expected to fail) test keeps its own account
            _ended_whole(term)
    finally:
        end(term)


@pytest.fixture
def present(terminal, tmp_path):
    """Start `demorun present FIXTURE ARGS...`; afterwards the pane shows the exit status and `stty -a`."""

    def start(fixture: str, *args: str, env: str = "", cwd: Path = REPO) -> Terminal:
        path = fixture if os.path.isabs(fixture) else str(FIXTURES / fixture)
        command = shlex.join([sys.executable, "-m", "runner", "present", "--no-init", path, *args])
        terminal.start(wrapped(f"cd {shlex.quote(str(cwd))} && PYTHONPATH={shlex.quote(str(REPO))} "
                               f"HOME={shlex.quote(str(tmp_path))} {env} {command}"))
        return terminal

    return start


@pytest.fixture
def notes_pane(terminal, tmp_path):
    """A terminal of its own (a second tmux server) for the presenter's notes, and its tty."""
    pane = Terminal(f"{terminal.socket}-notes")
    tty_file = tmp_path / "notes-tty"
    pane.start(f"tty > {tty_file}; exec sleep 600")
    try:
        deadline = time.monotonic() + 5
        while not tty_file.exists() or not tty_file.read_text().strip():
            assert time.monotonic() < deadline, "the notes terminal did not start"
            time.sleep(0.05)
        yield pane, tty_file.read_text().strip()
    finally:
        end(pane)


def running(*argv: str) -> bool:
    """Whether a process with exactly this command line runs (a workshop's `sleep 30.1`)."""
    wanted = ("\0".join(argv) + "\0").encode()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes() == wanted:
                return True
        except OSError:
            continue
    return False


def wait_running(*argv: str) -> None:
    """Until that process runs: a key meant for it is sent only once it is there."""
    deadline = time.monotonic() + 5
    while not running(*argv):
        assert time.monotonic() < deadline, f"{argv} never started"
        time.sleep(0.05)


def prompt_line(shown: str, command: str) -> bool:
    return any(line.startswith("$ ") and line.rstrip().endswith(command) for line in shown.splitlines())
