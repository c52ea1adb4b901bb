"""Commands queued in bash's input behind the running one (run and check): each runs once, in
order, never after a failure that stops the run, never read by a program of the command before,
and what bash reports of each is that command's own."""
from __future__ import annotations

import os
import signal
import socket
import sys
import time
from pathlib import Path

import pexpect
import pytest
from conftest import REPO

from runner.engine.core import Engine, Policy
from runner.parse.workshop import parse_workshop
from runner.session.session import Session


def _appends(*names: str) -> str:
    """Commands that each append their name to log.txt: what ran, how often and in which order."""
    return "".join(f"echo {name} >> log.txt\n" for name in names)


def _log(folder: Path) -> list[str]:
    path = folder / "log.txt"
    return path.read_text().split() if path.exists() else []


def _cli(folder: Path, *args: str, timeout: float = 60) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "runner", *args], cwd=str(folder), encoding="utf-8",
                         env={**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(REPO)}, timeout=timeout)


def _finish(child: pexpect.spawn) -> tuple[int, str]:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, child.before


def test_queued_commands_run_once_each_in_order_with_their_own_output():
    with Session(read_ahead=True) as session:
        first = session.run("echo one", ahead=["echo two", "x=3", "echo $x"])
        assert session.queued  # the others wait in bash's input, or have run already
        assert (first.status, first.output) == (0, "one\n")
        assert session.run("echo two").output == "two\n"
        assert session.run("x=3").status == 0
        assert session.run("echo $x").output == "3\n"
        assert not session.queued
        assert session.run("echo four").output == "four\n"


def test_a_failure_drains_the_queue_and_the_shell_keeps_its_state():
    with Session(read_ahead=True) as session:
        session.run("cd /tmp")
        assert session.run("false", ahead=["echo never >> /dev/null", "echo nor"]).status == 1
        assert not session.queued  # bash read the rest away, unrun
        outcome = session.run("echo $? $PWD")  # not queued any more: sent now
        assert outcome.output == "1 /tmp\n"  # $? of the failure, as in a terminal


def test_commands_queued_behind_a_slow_one_are_taken_back_and_run_once_after_it(tmp_path):
    """A command that runs past AHEAD_PATIENCE gets the queue taken back (no later command may
    wait behind a command that could reach its time limit); the taken-back ones are sent again."""
    (tmp_path / "w.md").write_text("```bash\n" + _appends("a") + "sleep 0.4\n" + _appends("b", "c")
                                   + "sleep 0.3; echo d >> log.txt\n" + _appends("e") + "```\n")
    code, said = _finish(_cli(tmp_path, "run", "w.md"))
    assert code == 0, said
    assert _log(tmp_path) == ["a", "b", "c", "d", "e"]


def test_a_failure_stops_the_run_and_nothing_queued_behind_it_runs(tmp_path):
    (tmp_path / "w.md").write_text("```bash\n" + _appends("a", "b") + "false\n" + _appends("c", "d") + "```\n")
    code, said = _finish(_cli(tmp_path, "run", "w.md"))
    assert code == 1, said
    assert _log(tmp_path) == ["a", "b"]
    code, said = _finish(_cli(tmp_path, "run", "--keep-going", "w.md"))
    assert code == 1, said
    assert _log(tmp_path) == ["a", "b", "a", "b", "c", "d"]  # each once: drained, then sent again


def test_check_fail_fast_runs_nothing_after_an_output_mismatch(tmp_path):
    """The mismatch ends the run though the command exited 0: nothing may be queued behind it."""
    (tmp_path / "w.md").write_text("```bash\n" + _appends("a") + "echo actual\n## expected\n"
                                   + _appends("b", "c") + "```\n")
    code, said = _finish(_cli(tmp_path, "check", "--fail-fast", "w.md"))
    assert code == 1, said
    assert _log(tmp_path) == ["a"]
    code, said = _finish(_cli(tmp_path, "check", "w.md"))
    assert code == 1, said
    assert _log(tmp_path) == ["a", "a", "b", "c"]


@pytest.mark.parametrize("handler", [None, "exit 0", ""])
def test_a_command_past_its_time_limit_never_lets_a_queued_one_run_early_or_twice(tmp_path, handler):
    """Interrupted, ending well on Ctrl-C, or ignoring it and needing a kill: the commands queued
    behind it were taken back, so they run once each afterwards, or not at all in a stopped run,
    never in its place. (The script keeps the command itself plain, so others queue behind it.)"""
    trap = "" if handler is None else f"trap '{handler}' INT\n"
    (tmp_path / "slow.sh").write_text(trap + "sleep 5\n")
    (tmp_path / "w.md").write_text("```bash\n" + _appends("a") + "bash slow.sh\n" + _appends("b", "c") + "```\n")
    code, said = _finish(_cli(tmp_path, "run", "--timeout", "1s", "w.md"))
    assert code == 1 and "timed out after" in said, said
    assert _log(tmp_path) == ["a"]
    code, said = _finish(_cli(tmp_path, "run", "--keep-going", "--timeout", "1s", "w.md"))
    assert code == 1, said
    assert _log(tmp_path) == ["a", "a", "b", "c"]


def test_a_program_reading_the_terminal_never_reads_the_queued_commands(tmp_path):
    (tmp_path / "w.md").write_text("```bash\n" + _appends("a")
                                   + 'read -r got </dev/tty; echo "read:$got" >> log.txt\n'
                                   + _appends("b", "c") + "```\n")
    code, said = _finish(_cli(tmp_path, "run", "--keep-going", "--timeout", "1s", "w.md"))
    assert code == 1 and "timed out" in said, said
    assert _log(tmp_path) == ["a", "b", "c"]  # `read` got nothing, and every command ran once


def test_queued_commands_read_away_by_a_program_are_sent_again(tmp_path):
    """A program that reads bash's own input (hostile, but possible) takes the queued lines: bash
    then waits for input, and demorun sends them again, each once, within a second."""
    (tmp_path / "w.md").write_text("```bash\n" + _appends("a")
                                   + "timeout 1 cat /proc/$$/fd/0 > stolen.txt || true\n"
                                   + _appends("b", "c") + "```\n")
    code, said = _finish(_cli(tmp_path, "run", "--timeout", "8s", "w.md"))
    assert code == 0, said
    assert _log(tmp_path) == ["a", "b", "c"]


def test_ctrl_c_interrupts_the_running_command_and_each_later_one_still_runs_once(tmp_path):
    (tmp_path / "w.md").write_text("```bash\n" + _appends("a") + "touch started; sleep 30\n"
                                   + _appends("b", "c") + "```\n")
    child = _cli(tmp_path, "run", "--keep-going", "w.md")
    deadline = time.monotonic() + 20
    while not (tmp_path / "started").exists():
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.02)
    child.sendintr()
    code, said = _finish(child)
    assert code == 1, said
    assert _log(tmp_path) == ["a", "b", "c"]


@pytest.mark.flaky(reruns=2)  # races the scheduler of a loaded machine (docs/performance.md, known races)
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_run_runs_nothing_that_was_queued(tmp_path, how):
    """Stopped from outside while commands wait behind the running one (which shrugs off the
    first Ctrl-C): they never run, and the workshop's EXIT trap still does."""
    (tmp_path / "w.md").write_text("```bash\ntrap 'echo trap >> log.txt' EXIT\n" + _appends("a")
                                   + "touch started; bash -c 'trap \"\" INT; sleep 30'\n"
                                   + _appends("b", "c") + "```\n")
    child = _cli(tmp_path, "run", "w.md")
    deadline = time.monotonic() + 20
    while not (tmp_path / "started").exists():
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.02)
    if how == signal.SIGINT:
        child.sendintr()
        child.expect("Ctrl-C again to stop")
        child.sendintr()
    else:
        child.kill(how)
    code, said = _finish(child)
    assert code == 128 + how, said
    assert _log(tmp_path) == ["a", "trap"], said


def test_check_keeps_exit_status_pipestatus_and_last_argument_from_one_command_to_the_next(demorun, workshop):
    path = workshop("""
        ```bash
        false | true
        echo ${PIPESTATUS[@]}
        ## 1 0
        (exit 3) || echo failed with $?
        ## failed with 3
        echo a b c
        ## a b c
        echo "$_"
        ## c
        ```
        """)
    result = demorun("check", path)
    assert result.exit_code == 0, result.output


@pytest.mark.flaky(reruns=2)  # races the scheduler of a loaded machine (docs/performance.md, known races)
def test_set_e_in_a_queued_command_ends_the_shell_there(demorun, workshop):
    path = workshop("""
        ```bash
        echo one
        set -e
        false
        echo never
        ## never
        ```
        """)
    result = demorun("check", path)
    assert result.exit_code == 1
    assert f"{path}:4: the shell exited here with status 1; 1 checked command after it never ran" in result.output


def test_a_mismatch_that_asks_the_shell_for_secrets_keeps_every_later_result(demorun, workshop, tmp_path):
    """A failed comparison reads the secrets (to try the output masked): the commands queued behind
    it keep their own results, and none runs twice."""
    path = workshop("""
        ```bash
        export API_TOKEN=s3cret-value
        echo mismatch >> log.txt; echo the token is s3cret-value
        ## something else
        echo second >> log.txt; echo two
        ## two
        echo third >> log.txt; echo three
        ## three
        ```
        """)
    result = demorun("check", path)
    assert result.exit_code == 1, result.output
    assert "1 failed, 3 passed" in result.output, result.output
    assert "s3cret-value" not in result.output
    assert (tmp_path / "log.txt").read_text().split() == ["mismatch", "second", "third"]


def test_plans_with_aliases_or_debug_traps_queue_nothing(tmp_path):
    for risky in ("alias ll='ls -l'", "trap 'echo step' DEBUG", "set -T"):
        (tmp_path / "w.md").write_text(f"```bash\necho a\n{risky}\necho b\necho c\n```\n")
        plan = parse_workshop(str(tmp_path / "w.md"), no_init=True)
        with Session(read_ahead=True) as session:
            engine = Engine(plan, session, policy=Policy())
            assert not any(engine._plain), risky
    (tmp_path / "w.md").write_text("```bash\necho a\necho b\necho c\n```\n")
    plan = parse_workshop(str(tmp_path / "w.md"), no_init=True)
    with Session(read_ahead=True) as session:
        engine = Engine(plan, session, policy=Policy())
        assert all(engine._plain)
        engine.run_all()
        assert [r.outcome.output for r in engine.results] == ["a\n", "b\n", "c\n"]


class _StoppedWhileQueued:
    """A session whose bash ran ahead: the stop comes while demorun reads the second command,
    with `waiting` commands queued behind it that bash may have begun."""

    read_ahead, alive = True, True

    def __init__(self, waiting: int):
        self.waiting_then, self.waiting, self.queued, self.ran = waiting, 0, False, []

    def run(self, command, *, ahead=(), **_options):
        from runner.errors import Aborted
        from runner.results import Outcome

        self.ran.append(command)
        if len(self.ran) == 2:
            self.waiting = self.waiting_then
            raise Aborted(signal.SIGTERM)
        return Outcome("", 0, 0.0)

    def variables(self):
        return {}

    def functions(self):
        return []


@pytest.mark.parametrize("waiting", [0, 1])
def test_a_stop_while_bash_may_be_ahead_is_reported_as_such_and_no_further(tmp_path, waiting):
    """Caught up with bash, the report names the command that ran; with a command queued behind
    it that bash may have begun, it says it cannot tell, and only of that one."""
    (tmp_path / "w.md").write_text("```bash\necho 1\necho 2\necho 3\necho 4\n```\n")
    session = _StoppedWhileQueued(waiting)
    engine = Engine(parse_workshop(str(tmp_path / "w.md"), no_init=True), session, policy=Policy(),
                    syntax=lambda commands: [None] * len(commands))
    with pytest.raises(Exception, match="SIGTERM"):
        engine.run_all()
    said = {r.step.loc.line: r.verdict.message for r in engine.skip_rest("terminated (SIGTERM)")}
    if waiting:
        assert said[3].endswith("terminated (SIGTERM) while this command, or one queued behind it in "
                                "bash's input, ran")
        assert said[4] == "not known to have run: it waited in bash's input when terminated (SIGTERM) came"
    else:
        assert said[3].endswith("terminated (SIGTERM) while this command ran")
        assert said[4].startswith("not run: terminated (SIGTERM) at")
    assert said[5].startswith("not run: terminated (SIGTERM) at")


def test_a_command_sent_on_two_lines_is_never_queued_and_ends_the_shell_plainly(tmp_path):
    """A line ending in `$` goes as `{ cmd` then `}` (see _frame): two lines for one command, which
    the drain would miscount, so it is sent alone, and a shell it kills ends the run as it should."""
    (tmp_path / "w.md").write_text("```bash\n" + _appends("a") + "echo >> log.txt cost: $\n" + _appends("b")
                                   + "kill -9 $$\n" + _appends("c") + "```\n")
    code, said = _finish(_cli(tmp_path, "run", "--keep-going", "w.md"))
    assert code == 137, said
    assert "w.md:5: bash exited here with status 137" in said, said
    assert "rejects" not in said and "Traceback" not in said
    assert (tmp_path / "log.txt").read_text() == "a\ncost: $\nb\n"


def test_the_fence_is_told_apart_when_bash_echoes_its_input(tmp_path):
    """Under `set -v` bash prints every line it reads, the fence included: that is no complaint."""
    (tmp_path / "w.md").write_text("```bash\nset -v\n" + _appends("a") + "sleep 0.3\n" + _appends("b", "c")
                                   + "```\n")
    code, said = _finish(_cli(tmp_path, "run", "w.md"))
    assert code == 0, said
    assert _log(tmp_path) == ["a", "b", "c"]


_STEAL = """\
import os, sys
pid, got = sys.argv[1], b""
for name in os.listdir(f"/proc/{pid}/fd"):
    try:
        fd = os.open(f"/proc/{pid}/fd/{name}", os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        continue
    try:
        got += os.read(fd, 65536)
    except OSError:
        pass
    finally:
        os.close(fd)
sys.stdout.buffer.write(got)
"""


@pytest.mark.parametrize("whose", ["$$", "$BASHPID"])
def test_no_program_can_open_bash_s_input_and_take_the_queued_commands(tmp_path, whose):
    """A program opening every descriptor of bash again (/proc/<bash>/fd/N, as root too) finds
    nothing to read: the commands queued behind it are not there for it, and each runs once."""
    (tmp_path / "steal.py").write_text(_STEAL)
    (tmp_path / "w.md").write_text("```bash\n" + _appends("a") + f"{sys.executable} steal.py {whose} > stolen.txt\n"
                                   + _appends("b", "c") + "```\n")
    code, said = _finish(_cli(tmp_path, "run", "w.md"))
    assert code == 0, said
    assert _log(tmp_path) == ["a", "b", "c"]
    assert (tmp_path / "stolen.txt").read_bytes() == b""


def test_a_child_of_a_child_finds_nothing_either(tmp_path):
    (tmp_path / "steal.py").write_text(_STEAL)
    (tmp_path / "w.md").write_text("```bash\n" + _appends("a")
                                   + f"bash -c '{sys.executable} steal.py $PPID' > stolen.txt\n"
                                   + _appends("b", "c") + "```\n")
    code, said = _finish(_cli(tmp_path, "run", "w.md"))
    assert code == 0, said
    assert _log(tmp_path) == ["a", "b", "c"]
    assert (tmp_path / "stolen.txt").read_bytes() == b""


def test_nothing_is_queued_behind_a_builtin_reading_a_descriptor_by_number(tmp_path):
    """bash's own `read -u N` could read its input where bash keeps it during a command: the
    queue is withheld around such a command, so it reads nothing that was meant to run."""
    (tmp_path / "w.md").write_text("```bash\n" + _appends("a")
                                   + 'read -t 0.5 -r -u 10 got; echo "read:$got" >> log.txt\n'
                                   + _appends("b", "c") + "```\n")
    code, said = _finish(_cli(tmp_path, "run", "--keep-going", "w.md"))
    assert _log(tmp_path) == ["a", "read:", "b", "c"], said


def test_a_batch_is_whole_in_bash_s_input_before_bash_can_fail_and_drain_it(tmp_path, monkeypatch):
    """Written piece by piece with pauses (as a busy machine may), the queue still reaches bash
    whole before the failing command runs: its drain reads all of it, and none of it runs."""
    from runner.session import feed

    write_some = feed.Input.write_some

    def slowly(self, pending):
        while pending:
            write_some(self, type(pending)([pending.popleft()]))
            time.sleep(0.05)

    monkeypatch.setattr(feed.Input, "write_some", slowly)
    with Session(cwd=str(tmp_path), read_ahead=True) as session:
        assert session.run("false", ahead=_appends("b", "c", "d").splitlines()).status == 1
        assert not session.queued
        assert session.run("echo $?").output == "1\n"
    assert _log(tmp_path) == []


def test_plans_with_cont_traps_queue_nothing(tmp_path):
    """The session holds bash stopped while it writes a batch: a CONT trap would run then."""
    for risky in ("trap 'echo cont' CONT", "trap 'echo cont' SIGCONT"):
        (tmp_path / "w.md").write_text(f"```bash\necho a\n{risky}\necho b\necho c\n```\n")
        plan = parse_workshop(str(tmp_path / "w.md"), no_init=True)
        with Session(read_ahead=True) as session:
            assert not any(Engine(plan, session, policy=Policy())._plain), risky


def test_lines_taken_back_while_bash_runs_the_queue_leave_bash_a_first_part(tmp_path, monkeypatch):
    """Asking the shell something while bash races through queued lines takes the rest back, one
    by one (slowly here, as on a busy machine): bash must have run a first part of them, never
    one past a line taken back, and each runs once."""
    from runner.session import feed

    def slowly(self):
        taken = 0
        while True:
            try:
                self._theirs.recv(feed.MESSAGE_MAX, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return taken
            taken += 1
            time.sleep(0.002)

    monkeypatch.setattr(feed.SocketInput, "take_back", slowly)
    commands = [f"echo {n} >> log.txt" for n in range(40)]
    with Session(cwd=str(tmp_path), read_ahead=True) as session:
        for _ in range(3):
            (tmp_path / "log.txt").unlink(missing_ok=True)
            session.run("true", ahead=commands)
            session.getvar("HOME")  # settles the queue: replies read, the rest taken back
            ran = [int(n) for n in _log(tmp_path)]
            assert ran == list(range(len(ran)))
            for command in commands:  # as the engine goes on: each is replied to or sent now
                session.run(command)
            assert [int(n) for n in _log(tmp_path)] == list(range(40))


def test_a_stop_while_bash_runs_queued_lines_still_runs_the_exit_trap(tmp_path):
    """Stopped mid-queue, the session interrupts bash and sends a line of its own: that line is
    never cut by the interrupt, so bash comes back, and the EXIT trap runs."""
    for attempt in range(8):
        with Session(cwd=str(tmp_path), read_ahead=True) as session:
            session.run(f"trap 'echo trap{attempt} >> traps.txt' EXIT")

            def stop(chunk: bytes) -> None:
                raise RuntimeError("stopped")

            with pytest.raises(RuntimeError):
                session.run("echo go", ahead=[f"echo {n} >/dev/null" for n in range(60)], on_output=stop)
        assert (tmp_path / "traps.txt").read_text().split()[-1] == f"trap{attempt}"
