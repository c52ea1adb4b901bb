"""Live progress for check and run --quiet (runner/report/progress.py), and -v streaming."""
from __future__ import annotations

import io
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
from conftest import REPO, command_step

from runner.report.progress import ASCII_SPINNER, SPINNER, Progress, one_line
from runner.results import Status, StepResult, Verdict

STEP = command_step("w.md", 7, "k3d cluster create demo \\\n    --wait")


def _run(progress: Progress, seconds: float) -> None:
    progress.on_step_start(0, STEP)
    time.sleep(seconds)
    progress.on_step_done(StepResult(STEP, Verdict(Status.PASS), None, 0))


def test_a_log_gets_a_still_running_line_per_interval_and_nothing_for_quick_commands():
    err = io.StringIO()
    with Progress(err=err, out=io.BytesIO(), terminal=False, interval=0.4) as progress:
        _run(progress, 0.0)
        assert err.getvalue() == ""
        _run(progress, 1.5)
    lines = err.getvalue().splitlines()
    assert 1 <= len(lines) <= 3, lines  # one a 0.4 s interval; how many depends on the machine's load
    assert re.fullmatch(r"still running w\.md:7 after [01]\.\ds: k3d cluster create demo --wait", lines[0])


def test_a_terminal_gets_a_status_line_that_is_gone_when_the_command_ends(monkeypatch):
    monkeypatch.setattr("runner.report.progress.SHOW_AFTER", 0.0)
    err = io.StringIO()
    with Progress(err=err, out=io.BytesIO(), terminal=True) as progress:
        _run(progress, 0.6)
    shown = err.getvalue()
    assert re.search(r"\d\.\ds  w\.md:7  k3d cluster create demo --wait", shown), shown
    assert shown.endswith("\r\x1b[2K")  # cleared: the next line starts clean
    assert "\n" not in shown


def test_an_abort_between_start_and_done_still_clears_the_line(monkeypatch):
    monkeypatch.setattr("runner.report.progress.SHOW_AFTER", 0.0)
    err = io.StringIO()
    with Progress(err=err, out=io.BytesIO(), terminal=True) as progress:
        progress.on_step_start(0, STEP)
        time.sleep(0.6)
    drawn = len(err.getvalue())
    time.sleep(0.25)
    assert len(err.getvalue()) == drawn and err.getvalue().endswith("\r\x1b[2K")


def test_steps_someone_already_sees_get_no_status():
    err = io.StringIO()
    with Progress(err=err, out=io.BytesIO(), terminal=False, interval=0.1,
                  follow=lambda step: False) as progress:
        _run(progress, 0.35)
    assert err.getvalue() == ""


def test_verbose_prints_each_command_and_streams_its_output():
    out = io.BytesIO()
    with Progress(err=io.StringIO(), out=out, verbose=True) as progress:
        progress.on_step_start(0, STEP)
        progress.on_output(STEP, b"INFO creating")
        progress.on_step_done(StepResult(STEP, Verdict(Status.PASS), None, 0))
    assert out.getvalue().decode() == "$ k3d cluster create demo \\\n    --wait\n  [w.md:7]\nINFO creating\n"


def test_one_line_joins_continuations_and_blanks():
    assert one_line("a \\\n   b\n\tc") == "a b c"


def test_check_v_streams_output_through_the_cli(demorun, workshop):
    file = workshop("```bash\necho streamed-output\n## streamed-output\n```\n")
    result = demorun("check", "-v", file)
    assert result.exit_code == 0
    assert "$ echo streamed-output\n" in result.output and "\nstreamed-output\n" in result.output
    assert "streamed-output" not in demorun("check", file).output


def test_check_v_masks_secrets_in_what_it_streams(demorun, workshop):
    file = workshop("```bash\nexport API_TOKEN=s3cret-value\necho \"token is $API_TOKEN\"\n## token is ***\n```\n")
    result = demorun("check", "-v", file)
    assert result.exit_code == 0, result.output
    assert "token is ***" in result.output
    assert "$ export API_TOKEN=***\n" in result.output  # known from the command's text before it runs
    assert "s3cret-value" not in result.output


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_check_shows_a_live_status_line_in_a_real_terminal(tmp_path):
    file = tmp_path / "slow.md"
    file.write_text("```bash\nsleep 2.5\n```\n")
    server = f"demorun-progress-{uuid.uuid4().hex[:12]}"

    def tmux(*args: str) -> str:
        return subprocess.run(["tmux", "-L", server, "-f", "/dev/null", *args], check=True,
                              capture_output=True, text=True).stdout

    command = shlex.join([sys.executable, "-m", "runner", "check", str(file)])
    tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "20", "bash", "--norc", "--noprofile", "-c",
         f"cd {shlex.quote(str(REPO))} && {command}; echo EXITED=$?; sleep 600")
    try:
        seen: list[str] = []
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not any("EXITED=" in s for s in seen):
            seen.append(tmux("capture-pane", "-p", "-t", "t"))
            time.sleep(0.1)
    finally:
        subprocess.run(["tmux", "-L", server, "kill-server"], capture_output=True)
        (Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / server).unlink(missing_ok=True)
    status = [s for s in seen if re.search(r"[1-2]\.\ds  \S*slow\.md:2  sleep 2\.5", s)]
    assert status, seen[-1]
    assert "EXITED=0" in seen[-1] and "sleep 2.5" not in seen[-1]  # the line is gone at the end


def test_the_spinner_fits_what_the_terminal_can_show():
    def progress(encoding: str) -> Progress:
        return Progress(err=io.TextIOWrapper(io.BytesIO(), encoding=encoding), out=io.BytesIO())

    assert progress("utf-8").spinner == SPINNER
    assert progress("ascii").spinner == ASCII_SPINNER
