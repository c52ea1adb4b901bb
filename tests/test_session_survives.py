"""The session survives what workshops do to it: each hostile command below is followed by
commands that must run and be judged correctly, through the real CLI on a real pty."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import textwrap
import time
from pathlib import Path

import pexpect
import pytest

from runner.errors import CommandRejected
from runner.session.session import Session
from runner.terminal.leftovers import TerminalLeftovers

DEMORUN = shutil.which("demorun") or "demorun"


def on_pty(argv: list[str], cwd: Path, timeout: float = 60) -> tuple[int, str, float]:
    """(exit status, everything the terminal showed, seconds) of a command on a real pty."""
    start = time.monotonic()
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(cwd), encoding="utf-8", codec_errors="replace",
                          dimensions=(24, 100), env={**os.environ, "NO_COLOR": "1"})
    child.expect(pexpect.EOF, timeout=timeout)
    child.close()
    status = child.exitstatus if child.exitstatus is not None else 128 + child.signalstatus
    return status, child.before, time.monotonic() - start


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "w.md"
    path.write_text(textwrap.dedent(body).lstrip("\n"))
    return path


def test_prompt_settings_are_accepted_and_prompt_command_output_is_not_blamed(tmp_path):
    write(tmp_path, """
        ```bash
        PS1='$ '
        PS2='> '
        PROMPT_COMMAND='echo from-prompt-command'
        echo one
        ## one
        for i in 1 2
        do echo $i
        done
        ## 1
        ## 2
        ```
        """)
    status, shown, _ = on_pty([DEMORUN, "check", "w.md"], tmp_path)
    assert status == 0, shown


def test_job_notices_are_not_a_later_commands_output(tmp_path):
    write(tmp_path, """
        ```bash
        sleep 0.1 &
        sleep 0.5; echo slept
        ## slept
        echo next
        ## next
        ```
        """)
    status, shown, _ = on_pty([DEMORUN, "check", "w.md"], tmp_path)
    assert status == 0, shown


def test_a_shell_without_stderr_is_noticed_in_seconds_and_repaired(tmp_path):
    write(tmp_path, """
        <!-- @SHOW -->

        ```bash
        exec 2>/dev/null
        x=kept; echo after
        ## after
        #@exit 2
        echo $x; ls /nonexistent-dir-for-demorun
        ## kept
        ## ls: cannot access '/nonexistent-dir-for-demorun': No such file or directory
        ```
        """)
    status, shown, seconds = on_pty([DEMORUN, "check", "w.md"], tmp_path)
    assert status == 0, shown
    assert seconds < 15
    status, shown, _ = on_pty([DEMORUN, "run", "w.md"], tmp_path)
    assert "stderr away" in shown and status == 0, shown


def test_the_sessions_own_lines_cannot_be_hijacked(tmp_path):
    write(tmp_path, """
        ```bash
        printf() { echo hijacked; }
        alias command=false builtin=false printf=false unset=false set=false
        x=$((6 * 7))
        echo "$x"
        ## 42
        ```

        ```bash
        builtin() { echo hijacked; }
        ```

        ```bash
        echo still here
        ## still here
        ```
        """)
    status, shown, _ = on_pty([DEMORUN, "check", "w.md"], tmp_path)
    assert status == 1, shown
    assert "FAIL w.md:10" in shown and "function named builtin" in shown
    assert "1 failed, 5 passed" in shown, shown


def test_queries_survive_hijacking_functions():
    with Session() as session:
        session.run("printf() { echo hijacked; }; alias builtin=false printf=false; x=value")
        assert session.getvar("x") == "value"
        assert session.expand("[$x]") == "[value]"
        with pytest.raises(CommandRejected, match="function named builtin"):
            session.run("function builtin { :; }")
        assert session.run("echo ok").output == "ok\n"


def test_output_imitating_markers_is_output(tmp_path):
    # Another session's salt, a marker cut short, and the prompts expanded (${PS0@P} is
    # a real start marker, harmless once the command has started).
    write(tmp_path, r"""
        ```bash
        printf '\x1e\x1f0123456789abcdefE0j0\x1e\x1e\x1fE\n'; printf '%s' "${PS0@P}" "${PS1@P}" "${PS2@P}" | wc -l
        ## 1
        echo after
        ## after
        ```
        """)
    status, shown, _ = on_pty([DEMORUN, "check", "w.md"], tmp_path)
    assert status == 1 and "w.md:2" in shown and "w.md:4" not in shown, shown
    with Session() as session:
        outcome = session.run(r"printf 'a\x1e\x1f0123456789abcdefE0j0\x1eb'")
        assert outcome.output == "a\x1e\x1f0123456789abcdefE0j0\x1eb" and outcome.status == 0


def test_started_with_sigint_ignored_a_timeout_interrupts_and_keeps_state(tmp_path):
    write(tmp_path, """
        ```bash
        x=kept
        #@timeout 1s
        sleep 30
        echo $x
        ## kept
        ```
        """)
    status, shown, seconds = on_pty(["sh", "-c", f"'{DEMORUN}' check w.md & wait $!"], tmp_path)
    assert status == 1, shown
    assert "s, interrupted)" in shown and "demorun:" not in shown, shown
    assert "FAIL w.md:4" in shown and "w.md:5" not in shown and seconds < 20, shown


@pytest.mark.slow
def test_cleanup_ends_more_than_1024_processes_and_what_ignores_sigterm(tmp_path):
    write(tmp_path, """
        ```bash
        ( for i in $(seq 1100); do sleep 600.4242 & done )
        ( trap '' TERM; for i in 1 2 3; do sleep 600.4243 & done )
        echo started
        ## started
        ```
        """)
    try:
        status, shown, _ = on_pty([DEMORUN, "check", "--junit", "r.xml", "w.md"], tmp_path, timeout=120)
        assert status == 0, shown
        assert (tmp_path / "r.xml").exists()
        left = subprocess.run(["pgrep", "-f", "sleep 600.424"], capture_output=True, text=True).stdout.split()
        assert left == []
    finally:
        subprocess.run(["pkill", "-KILL", "-f", "sleep 600.424"])


def test_run_restores_the_users_terminal_after_a_killed_command(tmp_path):
    write(tmp_path, r"""
        <!-- @SHOW -->

        ```bash
        #@timeout 1s
        printf '\e[?1049h\e[?25l\e(0lqqk'; sleep 30
        echo next-command
        ```
        """)
    status, shown, _ = on_pty([DEMORUN, "run", "--speed", "2000", "w.md"], tmp_path)
    assert status == 1
    between = shown[shown.index("lqqk"):shown.index("timed out")]
    assert "\x1b[?1049l" in between and "\x1b[?25h" in between and "\x1b(B" in between


def test_present_restores_the_users_terminal_at_exit(tmp_path):
    write(tmp_path, r"""
        <!-- @SHOW -->

        ```bash
        printf '\e[?1049h\e[?25l\e(0lqqk'
        ```
        """)
    child = pexpect.spawn(DEMORUN, ["present", "--speed", "2000", "w.md"], cwd=str(tmp_path), encoding="utf-8",
                          codec_errors="replace", dimensions=(24, 100), env={**os.environ, "NO_COLOR": "1"})
    try:
        for _ in range(3):
            child.send("\r")
            time.sleep(0.5)
        child.expect("lqqk", timeout=15)
        child.send("q")
        child.expect(pexpect.EOF, timeout=15)
    finally:
        child.close(force=True)
    tail = child.before
    assert "\x1b[?1049l" in tail and "\x1b[?25h" in tail and "\x1b(B" in tail


def test_terminal_modes_follow_sequences_split_across_reads():
    modes = TerminalLeftovers()
    for chunk in (b"x\x1b[?10", b"49h\x1b", b"(0 \x1b[?25l", b"\x0e"):
        modes.feed(chunk)
    assert modes.restore() == b"\x1b[?1049l\x1b[?25h\x1b(B\x0f\x1b[0m"
    assert modes.restore() == b""
    modes.feed(b"\x1b[?1049h\x1b[?25l then \x1b[?1049l\x1b[?25h\x1b(0\x1b(B")
    assert modes.restore() == b""


def test_a_killed_demorun_leaves_no_sigint_ignored_in_its_shell():
    """The shell's commands get default SIGINT and SIGQUIT even when demorun's are ignored."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with Session() as session:
            ignored = session.run("grep SigIgn /proc/self/status").output.split()[-1]
    finally:
        signal.signal(signal.SIGINT, previous)
    assert not int(ignored, 16) & (1 << (signal.SIGINT - 1) | 1 << (signal.SIGQUIT - 1))
