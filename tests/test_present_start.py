"""`present` up to its first screen: the command line without click, the opening before the shell."""
from __future__ import annotations

import itertools
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tmux_terminal as live
from tmux_terminal import FAST

import runner.cli
import runner.commands
from runner.engine.walk import action_for, skip_reason
from runner.launch import fast_values
from runner.model import Kind, Plan, SourceLoc, Step, Visibility
from runner.modes.present.opening import opening

REPO = Path(__file__).resolve().parents[1]
terminal, present = live.terminal, live.present  # the real-terminal fixtures


def _clicks(argv: list[str], monkeypatch) -> dict:
    """What the click command hands the body of `present ARGV`."""
    seen: dict = {}
    monkeypatch.setattr(runner.commands, "present", lambda **values: seen.update(values))
    runner.cli.main(["present", *argv], standalone_mode=False)
    return seen


@pytest.mark.parametrize("argv", [
    ["talk.md"],
    ["--no-init", "talk.md"],
    ["talk.md", "one", "two words"],
    ["--speed", "40", "--from", "Part two", "--record", "out.cast", "talk.md"],
    ["--notes", "/dev/pts/9", "--timeout", "90s", "--no-init", "talk.md", "arg"],
    ["--requires", "kubectl,helm", "--requires", "jq kubectl", "--isolate", "talk.md"],
    ["--kubeconfig", "KUBECONFIG", "--speed", "1e3", "--speed", "7", "talk.md"],
    ["--from", "", "talk.md"],
    ["--from", "Part two", "--catch-up-timeout", "2m", "talk.md"],
])
def test_the_short_path_reads_present_as_click_does(argv, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "KUBECONFIG").write_text("apiVersion: v1\n")
    assert fast_values("present", argv) == _clicks(argv, monkeypatch)


@pytest.mark.parametrize("argv", [
    [], ["--help"], ["-h", "talk.md"], ["--timings", "talk.md"], ["talk.md", "--timings"],
    ["--speed=40", "talk.md"], ["--speed", "fast", "talk.md"], ["--timeout", "soon", "talk.md"],
    ["--speed"], ["--from", "-x", "talk.md"], ["talk.md", "--speed", "3"], ["--", "talk.md"],
    ["--unknown", "talk.md"], ["--kubeconfig", "missing", "talk.md"], ["--record", ".", "talk.md"],
    ["", "talk.md"],
])
def test_anything_unusual_is_left_to_click(argv, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert fast_values("present", argv) is None


# The opening: what is shown before bash starts is what the engine would show first.

def _step(kind: Kind, visibility: Visibility, hooks: tuple[str, ...]) -> Step:
    return Step(kind, SourceLoc("w.md", 1), "text", visibility, if_hooks=hooks)


@pytest.mark.parametrize("kind, visibility, hooks", list(itertools.product(
    Kind, Visibility, [(), ("X",)])))
def test_the_opening_holds_exactly_the_steps_decided_without_the_shell(kind, visibility, hooks):
    step = _step(kind, visibility, hooks)
    asked = []

    def hooks_active(_step) -> bool:  # the engine asks the shell for $DEMO_HOOK_X
        asked.append(True)
        return False

    reason = skip_reason(step, hooks_active, None)
    # Hooks, waits, @print and shown commands end the opening even where skipped: the walk goes on
    # from there. Commands not shown are passed over: they run once the shell is up, showing nothing.
    hidden_command = kind is Kind.COMMAND and visibility is not Visibility.SHOW
    # A fence written as a file ends it too: the walk writes it (runner/engine/authoring.py).
    ends = not hidden_command and (bool(asked) or kind in (Kind.COMMAND, Kind.HOOK, Kind.WAIT, Kind.PRINT, Kind.FILE))
    later = _step(Kind.COMMAND, Visibility.SHOW, ())
    assert opening(Plan("w.md", (step, later))) == (0 if ends else 1)
    if not ends and reason is None:
        assert action_for(step).name in (("RUN",) if hidden_command else ("SHOW", "PACE", "SKIP"))


DRIVER = """
import os, sys
import runner.terminal.screen as screen
report, workshop = sys.argv[1:]
shown = screen.Screen.prose
def prose(self, markdown):
    shown(self, markdown)
    children = open(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read().split()
    with open(report, "w") as out:
        out.write(" ".join(sorted(sys.modules)) + "\\n" + " ".join(children))
    os._exit(0)
screen.Screen.prose = prose
sys.argv = ["demorun", "present", "--no-init", workshop]
from runner.launch import main
main()
"""


def test_the_first_screen_comes_before_the_shell_the_engine_and_click(tmp_path):
    workshop = tmp_path / "talk.md"
    workshop.write_text("<!-- @SHOW -->\n\n# Title\n\nThe opening.\n\n```bash\necho hi\n```\n")
    report = tmp_path / "report.txt"
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(tmp_path)
        os.execve(sys.executable, [sys.executable, "-c", DRIVER, str(report), str(workshop)],
                  {**os.environ, "PYTHONPATH": str(REPO)})
    deadline = time.monotonic() + 20
    ended = False  # reaped: asking again would be an error
    try:
        while not (ended := os.waitpid(pid, os.WNOHANG) != (0, 0)):
            assert time.monotonic() < deadline, "the show never showed its opening"
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    os.read(fd, 65536)
                except OSError:
                    break
    finally:
        os.close(fd)
        if not ended and os.waitpid(pid, os.WNOHANG) == (0, 0):
            os.kill(pid, 9)
            os.waitpid(pid, 0)
    modules, children = report.read_text().split("\n")
    loaded = set(modules.split())
    assert {"runner.terminal.prose", "mistune"} <= loaded  # the prose is read as the HTML report reads it
    heavy = {"click", "pexpect", "rich", "markdown_it", "runner.engine", "runner.verify",
             "runner.modes.present.live", "runner.secrets", "runner.results", "runner.report", "jinja2"}
    assert not loaded & heavy
    # The keyboard's terminal attributes come from the session package; nothing else of it may load.
    assert {m for m in loaded if m.startswith("runner.session")} <= {"runner.session", "runner.session.tty_attrs"}
    assert children == "", "bash was started before the opening was shown"


def test_present_without_a_terminal_still_says_so_on_the_short_path(tmp_path):
    (tmp_path / "talk.md").write_text("Hello\n")
    done = subprocess.run([sys.executable, "-m", "runner", "present", "--no-init", "talk.md"], cwd=tmp_path,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, env={**os.environ,
                                                                                         "PYTHONPATH": str(REPO)})
    assert done.returncode == 2
    assert "present needs a terminal" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_opening_shows_what_the_walk_would_and_the_show_goes_on(present):
    term = present("opening.md", *FAST)
    shown = term.wait_text("after the opening: 42")
    assert "OPENING-TEXT" in shown and "HIDDEN-PROSE" not in shown and "CLEARED-TEXT" not in shown
    assert shown.index("Opening title") < shown.index("OPENING-TEXT") < shown.index("after the opening")
    status, _ = term.finished()
    assert status == 0 and "CLOSING-TEXT" in term.screen()
