"""`@$SHELL FILE`: the second workshop runs in a bash of its own, as `$SHELL FILE` ran a second demosh.

Its `exit` ends only it, its options and variables stay in it, and the caller goes on.
"""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import REPO

from runner.session.session import Session

GUARD = """
    ```bash
    echo "creating the cluster"
    if true; then echo "cluster demo already exists" >&2; exit 1; fi
    echo "never printed"
    ```
    """

CALLER = """
    ```bash
    echo "before the sub-workshop"
    ```

    <!-- @$SHELL create.md -->

    ```bash
    echo "the caller goes on" > caller-went-on
    cat caller-went-on
    ## the caller goes on
    ```
    """


def test_an_exit_in_the_nested_workshop_ends_only_it_and_run_goes_on(workshop, tmp_path):
    workshop(GUARD, "create.md")
    main = workshop(CALLER)
    done = subprocess.run([sys.executable, "-m", "runner", "run", main], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)})
    assert (tmp_path / "caller-went-on").read_text() == "the caller goes on\n", done.stdout + done.stderr
    assert "never printed" not in done.stdout
    assert done.returncode == 1  # the nested workshop's failure is reported, not hidden
    assert "create.md:3" in done.stdout and "exited here with status 1" in done.stdout


def test_check_reports_the_nested_failure_and_skips_the_rest_of_that_file(demorun, workshop):
    workshop(GUARD, "create.md")
    main = workshop(CALLER)
    result = demorun("check", main)
    assert result.exit_code == 1
    assert "4 passed, 1 failed, 1 skipped" in result.output, result.output
    assert "create.md:3: exit status 1, expected 0" in result.output
    assert "create.md:4: not run: the nested shell of create.md (@$SHELL at" in result.output
    assert "exit\n" not in result.output.split("create.md:3", 1)[1]  # bash's farewell is not output


def test_an_intended_exit_passes_with_ends_shell(demorun, workshop):
    workshop("""
        ```bash
        #@ends-shell
        exit 0
        echo "skipped on purpose"
        ```
        """, "early.md")
    main = workshop("""
        <!-- @$SHELL early.md -->

        ```bash
        echo after
        ## after
        ```
        """)
    result = demorun("check", main)
    assert result.exit_code == 0, result.output
    assert "2 passed, 0 failed, 1 skipped" in result.output


def test_set_e_and_other_options_stay_in_the_nested_shell(demorun, workshop):
    workshop("""
        ```bash
        set -e -o pipefail
        shopt -s nullglob
        echo strict
        ## strict
        ```
        """, "strict.md")
    main = workshop("""
        <!-- @$SHELL strict.md -->

        ```bash
        grep -q no-such-text /dev/null || echo "grep said $?"
        ## grep said 1
        false | true; echo "pipeline $?"
        ## pipeline 0
        echo no-match-*
        ## no-match-*
        echo "still here"
        ## still here
        ```
        """)
    result = demorun("check", main)
    assert result.exit_code == 0, result.output
    assert "7 passed" in result.output


def test_variables_and_functions_go_down_but_never_back_up(demorun, workshop, tmp_path):
    (tmp_path / "elsewhere").mkdir()
    sub = workshop("""
        ```bash
        echo "$CLUSTER_ $(greet)"
        ## demo hello
        CLUSTER_=changed-by-sub
        export FROM_SUB=yes
        cd elsewhere
        ```
        """, "sub.md")
    main = workshop("""
        ```bash
        IFS=_  # a name ending in an IFS character still reaches the nested shell whole
        CLUSTER_=demo
        greet() { echo hello; }
        ```

        <!-- @$SHELL sub.md -->

        ```bash
        echo "$CLUSTER_ ${FROM_SUB-unset} $(basename "$PWD")"
        ```
        """)
    result = demorun("check", "--update", main)
    assert result.exit_code == 0, result.output
    assert f"## demo unset {tmp_path.name}" in Path(main).read_text()
    assert "## demo hello" in Path(sub).read_text()  # as written: --update found nothing to change


def _caller_with_exit_trap(workshop, log: Path, calls: int) -> str:
    """A workshop whose EXIT trap writes `caller-trap` to log, then calls sub.md `calls` times."""
    return workshop(f"```bash\ntrap 'echo caller-trap >> {log}' EXIT\n```\n\n" + "<!-- @$SHELL sub.md -->\n" * calls)


def test_each_call_gets_a_fresh_shell_and_every_exit_trap_runs(demorun, workshop, tmp_path):
    log = tmp_path / "traps.log"
    workshop(f"""
        ```bash
        echo "sub saw ${{COUNT-none}}"
        COUNT=set-in-sub
        trap 'echo sub-trap >> {log}' EXIT
        ```
        """, "sub.md")
    main = _caller_with_exit_trap(workshop, log, calls=2)
    result = demorun("run", "-v", main)
    assert result.exit_code == 0, result.output
    assert result.output.count("sub saw none") == 2
    assert log.read_text() == "sub-trap\nsub-trap\ncaller-trap\n"


def test_an_exit_two_levels_down_ends_only_the_innermost(demorun, workshop):
    workshop("""
        ```bash
        exit 3
        ```
        """, "inner.md")
    workshop("""
        <!-- @$SHELL inner.md -->

        ```bash
        echo "middle goes on"
        ## middle goes on
        ```
        """, "middle.md")
    main = workshop("""
        <!-- @$SHELL middle.md -->

        ```bash
        echo "top goes on"
        ## top goes on
        ```
        """)
    result = demorun("check", main)
    assert "2 passed, 1 failed, 0 skipped" in result.output, result.output
    assert "inner.md:2: exit status 3, expected 0" in result.output


def test_a_hook_that_ends_the_nested_shell_ends_that_workshop(demorun, workshop):
    workshop("""
        <!-- @hook leave LEAVE -->

        ```bash
        echo first
        ```

        <!-- @leave -->

        ```bash
        echo "never in the caller's shell"
        ```
        """, "sub.md")
    main = workshop("""
        <!-- @$SHELL sub.md -->

        ```bash
        echo "caller after"
        ```
        """)
    result = demorun("run", "-v", main, env={"DEMO_HOOK_LEAVE": "exit 5"})
    assert result.exit_code == 0, result.output
    assert "caller after" in result.output
    assert "never in the caller's shell" not in result.output


def test_a_timeout_in_or_after_the_nested_shell_interrupts_the_command_not_the_shell(demorun, workshop):
    workshop("""
        ```bash
        KEPT=yes
        #@timeout 1s
        while :; do :; done
        echo "nested shell kept $KEPT"
        ## nested shell kept yes
        ```
        """, "sub.md")
    main = workshop("""
        <!-- @$SHELL sub.md -->

        ```bash
        CALLER_KEPT=yes
        #@timeout 1s
        while :; do :; done
        echo "caller kept $CALLER_KEPT"
        ## caller kept yes
        ```
        """)
    result = demorun("check", main)  # back in the caller, its own bash is the one interrupted
    assert "4 passed, 2 failed" in result.output, result.output
    assert result.output.count("timed out after the 1 s limit") == 2
    assert "restarted" not in result.output


def test_the_session_enters_and_leaves_nested_shells(tmp_path):
    with Session(cwd=str(tmp_path)) as session:
        outer = session.run("echo $$").output
        session.run("NAME=outer")
        session.enter_shell(0, "sub.md")
        assert session.nested == (0,)
        assert session.run("echo $$ $0 $NAME").output.split()[1:] == ["sub.md", "outer"]
        assert session.run("echo $$").output != outer
        session.run("exit 4")
        assert session.shells_ended() == (0,)
        assert session.nested == ()
        assert session.run("echo $$").output == outer
        session.enter_shell(1, "again.md")
        session.leave_shell()
        assert session.nested == () and session.shells_ended() == ()
        assert session.run("echo $$").output == outer


def test_the_plan_names_the_nested_shell_of_each_step(demorun, workshop):
    workshop(GUARD, "create.md")
    main = workshop(CALLER)
    plan = json.loads(demorun("list", "--json", main).output)
    assert [shell["call"]["line"] for shell in plan["shells"]] == [5]
    assert plan["shells"][0]["file"].endswith("create.md")
    assert [step["nested"] for step in plan["steps"] if step["kind"] == "command"] == [[], [0], [0], [0], [], []]


def test_sigterm_in_a_nested_command_runs_both_exit_traps(workshop, tmp_path):
    log = tmp_path / "traps.log"
    workshop(f"""
        ```bash
        trap 'echo sub-trap >> {log}' EXIT
        echo started > {tmp_path}/started; sleep 60
        ```
        """, "sub.md")
    main = _caller_with_exit_trap(workshop, log, calls=1)
    run = subprocess.Popen([sys.executable, "-m", "runner", "check", main], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)})
    deadline = time.monotonic() + 30
    while not (tmp_path / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    run.send_signal(signal.SIGTERM)
    output, _ = run.communicate(timeout=60)
    assert run.returncode == 143, output
    assert log.read_text() == "sub-trap\ncaller-trap\n"


def test_nothing_waits_in_the_input_of_a_nested_bash(tmp_path):
    """A nested bash is a job of its caller: the session never queues commands behind one of its
    commands (queuing holds the shell stopped a moment), and its EXIT trap still runs on leaving."""
    with Session(cwd=str(tmp_path), read_ahead=True) as session:
        session.enter_shell(1, "sub.md")
        session.run("trap 'echo left > left.txt' EXIT")
        assert session.run("echo one", ahead=["echo two", "echo three"]).output == "one\n"
        assert not session.queued
        assert session.run("echo two").output == "two\n"
        session.leave_shell()
        assert (tmp_path / "left.txt").read_text() == "left\n"
