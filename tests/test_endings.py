"""Every way a run ends: each exit code in the README's table, and signals that still clean up.

The signal tests drive the real command line on a real pty: the workshop's
own EXIT trap must have run and the `--junit`/`--html` reports must exist
afterwards, marked as interrupted.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

import pexpect
import pytest
from conftest import REPO

FIXTURES = Path(__file__).parent / "fixtures" / "endings"


@pytest.fixture
def here(tmp_path) -> Path:
    """The fixtures copied to a scratch folder: workshops write their files beside themselves."""
    shutil.copytree(FIXTURES, tmp_path, dirs_exist_ok=True)
    return tmp_path


def readme_codes() -> set[str]:
    """The codes in the README's exit-code table."""
    text = (REPO / "README.md").read_text()
    table = text.split("Exit codes, for every command:", 1)[1].split("\n\n", 2)[1]
    return {m.group(1) for m in re.finditer(r"^\| (\d+|N) \|", table, re.MULTILINE)}


# Codes a run reaches without signals, each through the real command line.
PLAIN = {
    "0": ("check", "passes.md"),
    "1": ("check", "fails.md"),
    "2": ("check", "no-such-file.md"),
    "3": ("check", "needs_tool.md"),
    "N": ("run", "exits_7.md"),
}
SIGNALLED = {"129": signal.SIGHUP, "130": signal.SIGINT, "143": signal.SIGTERM}


def test_the_readme_lists_every_code_and_each_has_a_test():
    assert readme_codes() == set(PLAIN) | set(SIGNALLED)


@pytest.mark.parametrize("code", sorted(PLAIN))
def test_each_plain_exit_code(demorun, here, monkeypatch, code):
    monkeypatch.chdir(here)
    command, file = PLAIN[code]
    result = demorun(command, file)
    assert result.exit_code == (7 if code == "N" else int(code)), result.output


# No false pass.

def test_a_shell_that_ends_midway_fails_the_check_saying_where(demorun, here, monkeypatch):
    monkeypatch.chdir(here)
    result = demorun("check", "exit_midway.md")
    assert result.exit_code == 1
    assert ("exit_midway.md:4: the shell exited here with status 0; 1 checked command after it never ran"
            in result.output)
    assert demorun("check", "--strict", "exit_midway.md").exit_code == 1


def test_strict_counts_skipped_commands_and_the_console_says_why(demorun, here, monkeypatch):
    monkeypatch.chdir(here)
    plain = demorun("check", "skip_section.md")
    assert plain.exit_code == 0, plain.output
    assert "skipped skip_section.md:3: in a @SKIP section" in plain.output
    strict = demorun("check", "--junit", "strict.xml", "--strict", "skip_section.md")
    assert strict.exit_code == 1
    assert "FAIL skip_section.md" in strict.output and "PASS" not in strict.output, strict.output
    assert "in a @SKIP section (skipped: --strict counts this as a failure)" in strict.output
    junit = (here / "strict.xml").read_text()
    assert 'failures="1"' in junit and 'skipped="0"' in junit, junit


# Signals: interrupt the command, let the EXIT trap run, write the reports, exit 128+N.

def _check(here: Path) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "runner", "check", "--junit", "report.xml",
                                          "--html", "report.html", "trap.md"],
                         cwd=str(here), env={**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(REPO)},
                         encoding="utf-8", timeout=30)


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 20
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


@pytest.mark.flaky(reruns=2)  # races the scheduler of a loaded machine (docs/performance.md, known races)
@pytest.mark.parametrize("how", ["ctrl-c twice", "SIGTERM", "SIGHUP"])
def test_a_stopped_check_cleans_up_and_writes_its_reports(here, how):
    child = _check(here)
    _wait_for(here / "started.txt")
    if how == "ctrl-c twice":
        child.sendintr()
        # demorun may still be reading line 5 when bash already runs line 10, queued behind it.
        child.expect(r"interrupted trap\.md:(10|5 \(or a command queued behind it\)); Ctrl-C again to stop")
        child.sendintr()
        code, said = 130, "interrupted (SIGINT)"
    else:
        sig = signal.SIGTERM if how == "SIGTERM" else signal.SIGHUP
        child.kill(sig)
        code, said = 128 + sig, {"SIGTERM": "terminated (SIGTERM)", "SIGHUP": "hung up (SIGHUP)"}[how]
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == code, child.before
    assert f"demorun: {said}; reports written: report.xml, report.html" in child.before
    assert (here / "cleaned.txt").read_text() == "cleaned\n"  # the workshop's EXIT trap ran
    suite = ET.parse(here / "report.xml").getroot().find("testsuite")
    cases = {c.get("line"): c for c in suite.iter("testcase")}
    five = cases["5"].find("failure")
    if five is None:  # demorun had read line 5 when the stop came: it names line 10
        assert said in cases["10"].find("failure").get("message")
        assert re.match(r"not (known to have )?run", cases["14"].find("skipped").get("message"))
        stopped = cases["10"]
    else:  # it came while bash ran ahead: the report says it cannot tell which command it met
        assert f"{said} while this command, or one queued behind it in bash's input, ran" in five.get("message")
        assert "not known to have run" in cases["10"].find("skipped").get("message")
        stopped = cases["5"]
    assert float(stopped.get("time")) > 0  # as long as it ran, not the 0 of a command that never did
    assert said in (here / "report.html").read_text()


def test_a_single_ctrl_c_interrupts_the_command_and_the_check_goes_on(here):
    (here / "trap.md").write_text((here / "trap.md").read_text().replace('trap "" INT; ', ""))
    child = _check(here)
    _wait_for(here / "started.txt")
    child.sendintr()
    child.expect(r"interrupted trap\.md:10; Ctrl-C again to stop")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1  # the interrupted command failed; the one after it passed
    cases = {c.get("line"): c for c in ET.parse(here / "report.xml").getroot().iter("testcase")}
    assert cases["14"].find("failure") is None and cases["14"].find("skipped") is None


# Processes that escape: `env -i setsid -f` leaves the session and the mark behind.

def test_a_daemon_that_dropped_every_tie_is_still_ended(demorun, here, monkeypatch):
    name = f"demorun-escapee-{uuid.uuid4().hex[:8]}"
    monkeypatch.chdir(here)
    result = demorun("check", "escapes.md", env={"DAEMON_NAME": name})
    assert result.exit_code == 0, result.output
    deadline = time.monotonic() + 5
    while _running(name) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(name), "the daemon outlived its session"


def _running(name: str) -> bool:
    return subprocess.run(["pgrep", "-f", name], capture_output=True, check=False).stdout != b""


def test_a_session_closed_mid_command_still_runs_the_exit_trap(tmp_path):
    """The session's own part of a stop: interrupt the command, then `exit`, so traps run."""
    from runner.session.session import Session

    def stop(chunk: bytes) -> None:
        raise RuntimeError("stopped mid-command")  # as a signal handler's Aborted would be

    with pytest.raises(RuntimeError), Session(cwd=str(tmp_path)) as session:
        session.run("trap 'echo cleaned > cleaned.txt' EXIT")
        session.run("echo go; sleep 30", on_output=stop, timeout=60)
    assert (tmp_path / "cleaned.txt").read_text() == "cleaned\n"


# Restarts are never silent.

def test_a_restart_after_a_timeout_is_said_in_the_console_and_the_reports(demorun, workshop, tmp_path):
    path = workshop("""
        ```bash
        kept=yes
        ```

        <!-- @timeout 1s -->
        ```bash
        trap '' INT; while :; do :; done
        ```

        ```bash
        echo "[$kept]"
        ## []
        ```
        """)
    result = demorun("check", "--junit", str(tmp_path / "j.xml"), "--html", str(tmp_path / "r.html"), path)
    assert result.exit_code == 1
    said = "the shell was restarted"
    assert f"note {path}:7: {said}" in result.output, result.output
    assert said in (tmp_path / "j.xml").read_text()
    assert "shell restarted: state lost" in (tmp_path / "r.html").read_text()
    assert "2 passed" in result.output  # the command after the restart ran in the new shell


def test_a_timeout_names_the_limit_and_when_the_command_was_stopped(demorun, workshop, tmp_path):
    path = workshop("```bash\nsleep 30\n```\n")
    result = demorun("check", "--timeout", "1s", "--junit", str(tmp_path / "j.xml"), path)
    assert result.exit_code == 1
    said = re.search(r"timed out after the 1 s limit \(stopped at (\d+\.\d\d) s, interrupted\)", result.output)
    assert said, result.output
    ran = float(ET.parse(tmp_path / "j.xml").getroot().find("testsuite/testcase").get("time"))
    assert 1.0 <= float(said.group(1)) <= ran + 0.01 < 30
