"""run/check --pause-on-failure and check --interactive, driven through a real terminal (pexpect)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect
from conftest import REPO

FAILING = """
    <!-- @SHOW -->
    ```bash
    export SECRET_OF_THE_STEP=42
    cd /tmp
    false
    echo "after the failure"
    ```
    """


def _spawn(*args: str) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "runner", *args], cwd=str(REPO),
                         env={**os.environ, "NO_COLOR": "1"}, encoding="utf-8", timeout=30)


def test_pause_on_failure_hands_over_the_workshop_s_shell_and_exit_goes_on(workshop):
    child = _spawn("run", "--pause-on-failure", workshop(FAILING))
    child.expect("`exit` goes on, `demorun_stop` stops the run here")
    child.sendline('echo "value=$SECRET_OF_THE_STEP in $PWD"')
    child.expect("value=42 in /tmp")  # the state the failing command left
    child.sendline("exit")
    child.expect("after the failure")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1  # the failure still counts


def test_demorun_stop_in_the_shell_stops_the_run(workshop):
    child = _spawn("check", "--pause-on-failure", workshop(FAILING))
    child.expect("`exit` goes on")
    child.sendline("demorun_stop")
    child.expect(pexpect.EOF)
    child.close()
    assert "stopped in the shell at the failure" in child.before
    assert child.exitstatus == 1


def test_pause_on_failure_without_a_terminal_says_why_and_goes_on(demorun, workshop):
    result = demorun("run", "--pause-on-failure", "--keep-going", workshop(FAILING))
    assert "--pause-on-failure: standard input is not a terminal" in result.output
    assert "going on as without it" in result.output
    assert "after the failure" in result.output
    assert result.exit_code == 1


DRIFTED = """
    ```bash
    echo first-new
    ## first-old
    echo second-new
    ## second-old
    ```
    """


def test_interactive_asks_block_by_block_and_writes_only_what_is_accepted(workshop):
    path = workshop(DRIFTED)
    child = _spawn("check", "--interactive", path)
    child.expect(r"\[1/2\] .*echo first-new")
    child.expect(r"\+## first-new")
    child.expect_exact("accept, skip or quit? [a/s/q]")
    child.sendline("a")
    child.expect(r"\[2/2\] .*echo second-new")
    child.expect_exact("accept, skip or quit? [a/s/q]")
    child.sendline("s")
    child.expect("1 of 2 block")
    child.expect(pexpect.EOF)
    child.close()
    text = Path(path).read_text()
    assert "## first-new" in text and "## second-old" in text and "second-new\n## second-new" not in text


def test_interactive_quit_leaves_every_block_after(workshop):
    path = workshop(DRIFTED)
    before = Path(path).read_text()
    child = _spawn("check", "--interactive", path)
    child.expect_exact("accept, skip or quit? [a/s/q]")
    child.sendline("q")
    child.expect("2 block\\(s\\) left as they are")
    child.expect(pexpect.EOF)
    child.close()
    assert Path(path).read_text() == before


def test_interactive_without_a_terminal_is_refused_before_anything_runs(demorun, workshop):
    path = workshop(DRIFTED)
    result = demorun("check", "--interactive", path)
    assert result.exit_code == 2
    assert "check --interactive asks at a terminal, and standard input is not a terminal" in result.output


def _hang_up(child: pexpect.spawn) -> int:
    """Close the terminal's master side, as closing the window does; the exit code demorun gives."""
    os.close(child.child_fd)
    child.child_fd = -1
    _, status = os.waitpid(child.pid, 0)
    child.terminated = True  # pexpect must not wait for it again
    return os.waitstatus_to_exitcode(status)


def test_closing_the_terminal_while_run_waits_exits_129(workshop):
    child = _spawn("run", workshop("""
        <!-- @SHOW -->
        ```bash
        echo started
        sleep 30
        ```
        """))
    child.expect("started")
    assert _hang_up(child) == 129  # README: stopped by SIGHUP; not 120, a failed flush at exit


def test_closing_the_terminal_at_interactive_s_question_exits_129(workshop):
    child = _spawn("check", "--interactive", workshop(DRIFTED))
    child.expect_exact("accept, skip or quit? [a/s/q]")
    assert _hang_up(child) == 129


def test_demorun_stop_in_run_s_summary_says_how_many_never_ran(workshop):
    child = _spawn("run", "--pause-on-failure", workshop(FAILING))
    child.expect("`exit` goes on")
    child.sendline("demorun_stop")
    child.expect(pexpect.EOF)
    child.close()
    assert "1 of 4 commands failed" in child.before and "; 1 not run" in child.before
    assert child.exitstatus == 1
