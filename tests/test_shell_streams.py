"""Odd standard streams never give a traceback: a closed stdout or stdin, a deleted current folder."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

DEMORUN = [sys.executable, "-m", "runner"]


def _run(args: list[str], cwd: str, close: int | None = None) -> subprocess.CompletedProcess:
    def preexec() -> None:
        if close is not None:
            os.close(close)
    streams = {"stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    if close == 1:
        streams.pop("stdout")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return subprocess.run(DEMORUN + args, cwd=cwd, preexec_fn=preexec, env=env, text=True, timeout=60, **streams)


@pytest.mark.parametrize("command", ["check", "run", "list", "lint"])
def test_a_closed_stdout_is_one_line_and_the_commands_code(command, workshop, tmp_path):
    path = workshop("```bash\necho hi\n```\n")
    done = _run([command, path], str(tmp_path), close=1)
    assert "Traceback" not in done.stderr
    assert done.stderr == "demorun: stdout closed: demorun writes to /dev/null instead\n"
    assert done.returncode == 0


def test_present_with_stdin_closed_says_it_needs_a_terminal(workshop, tmp_path):
    path = workshop("```bash\necho hi\n```\n")
    done = _run(["present", path], str(tmp_path), close=0)
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "present needs a terminal" in done.stderr
    assert done.returncode == 2


def test_a_deleted_current_folder_is_one_line_and_exit_2(workshop, tmp_path):
    path = workshop("```bash\necho hi\n```\n")
    gone = tmp_path / "gone"
    gone.mkdir()
    script = f"import os, sys; os.chdir({str(gone)!r}); os.rmdir({str(gone)!r}); sys.argv[0] = 'demorun'; " \
             "from runner.launch import main; main()"
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run([sys.executable, "-c", script, "check", "--junit", "report.xml", path], env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert "Traceback" not in done.stderr
    assert done.stderr == "demorun: the current folder no longer exists (deleted?): change to one that does\n"
    assert done.returncode == 2
