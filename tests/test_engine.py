"""The engine, specified on its own: a fake session answers from a queue, a listener records.

No bash is started here: the session and the syntax check are both stand-ins,
and time is a fake clock, so retry budgets are exact and instant.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from runner.engine import core
from runner.engine.core import Engine, Policy
from runner.engine.listener import Listener
from runner.engine.timeouts import MIN_ATTEMPT
from runner.engine.walk import Action
from runner.errors import CommandRejected, SessionError
from runner.model import SourceLoc, Step
from runner.parse.builder import build_plan
from runner.results import Outcome, Status, StepResult

FIXTURES = Path(__file__).parent / "fixtures" / "engine"


def plan(name: str):
    path = FIXTURES / name
    return build_plan(str(path), path.read_text(), no_init=True, home="/nonexistent")


class Clock:
    """monotonic() and sleep() for the engine: sleeping only moves the hands."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(core.time, "monotonic", fake.monotonic)
    monkeypatch.setattr(core.time, "sleep", fake.sleep)
    return fake


@dataclass
class Do:
    """One queued answer: what the command printed, its status, how long it took, what it changed."""

    output: str = ""
    status: int = 0
    takes: float = 0.0
    hangs: bool = False  # runs until its timeout
    exits: bool = False  # the shell exits with `status`
    sets: dict[str, str] = field(default_factory=dict)
    rejects: bool = False


@dataclass
class Call:
    text: str
    timeout: float | None
    stop_after: float | None


class FakeSession:
    """Stands in for runner.session.Session: answers commands from a queue, in order."""

    read_ahead = False  # runner.engine.shell.Shell: nothing waits in its input
    waiting = 0

    def __init__(self, *answers: Do, clock: Clock | None = None, variables: dict[str, str] | None = None):
        self.answers = deque(answers)
        self.clock = clock
        self.vars = dict(variables or {})
        self.calls: list[Call] = []
        self.alive = True
        self.restarts = False  # a hanging command costs the shell its state
        self.variable_reads = 0

    def run(self, command, *, timeout=None, stop_after=None, on_output=None, interactive=False, ahead=()):
        self.calls.append(Call(command, timeout, stop_after))
        if command.startswith("type -t"):
            return Outcome("", 1, 0.0)
        answer = self.answers.popleft()
        if answer.rejects:
            raise CommandRejected(f"bash rejects {command!r}: syntax error")
        took = timeout if answer.hangs else answer.takes
        if self.clock:
            self.clock.now += took
        self.vars.update(answer.sets)
        if answer.output and on_output:
            on_output(answer.output.encode())
        if answer.exits:
            self.alive = False
        lost = answer.hangs and self.restarts
        return Outcome(answer.output, 130 if answer.hangs else answer.status, took,
                       timed_out=answer.hangs, state_lost=lost,
                       recovery=("restarted" if lost else "interrupted") if answer.hangs else None)

    def getvar(self, name: str) -> str | None:
        return self.vars.get(name)

    def variables(self) -> dict[str, str]:
        if not self.alive:
            raise SessionError("the shell has exited")
        self.variable_reads += 1
        return dict(self.vars)

    def functions(self) -> list[str]:
        return []

    def expand(self, text: str) -> str:
        for name, value in self.vars.items():
            text = text.replace(f"${{{name}}}", value)
        return text


class Recorder(Listener):
    """Everything the engine said, in order, as short tuples."""

    def __init__(self) -> None:
        self.heard: list[tuple] = []

    def on_text(self, step: Step, text: str) -> None:
        self.heard.append(("text", text))

    def on_step_start(self, index: int, step: Step) -> None:
        self.heard.append(("start", step.text))

    def on_output(self, step: Step, chunk: bytes) -> None:
        self.heard.append(("output", chunk))

    def on_step_done(self, result: StepResult) -> None:
        self.heard.append(("done", result.step.text, result.verdict.status.value))

    def on_notice(self, loc: SourceLoc, message: str) -> None:
        self.heard.append(("notice", loc.line, message))

    def notices(self) -> list[str]:
        return [h[2] for h in self.heard if h[0] == "notice"]


def no_syntax_errors(commands):
    return [None] * len(commands)


def engine_for(name: str, session: FakeSession, listener: Listener | None = None, **policy) -> Engine:
    policy.setdefault("run_hooks", False)
    return Engine(plan(name), session, policy=Policy(**policy), listeners=[listener or Listener()],
                  syntax=no_syntax_errors)


def statuses(results: list[StepResult]) -> list[tuple[str, str]]:
    return [(r.step.text, r.verdict.status.value) for r in results]


# Retry: attempts, interval, budget.

def test_retry_runs_again_until_the_output_matches(clock):
    session = FakeSession(Do("pending\n"), Do("pending\n"), Do("ready\n"), clock=clock)
    listener = Recorder()
    (result,) = engine_for("retry.md", session, listener).run_all()
    assert result.verdict.passed
    assert len(session.calls) == 3
    assert clock.sleeps == [2.0, 2.0]
    assert sum("retrying in 2s" in n for n in listener.notices()) == 2


def test_retry_gives_up_when_the_budget_is_spent(clock):
    session = FakeSession(*[Do("pending\n", takes=1.0)] * 20, clock=clock)
    (result,) = engine_for("retry.md", session).run_all()
    assert result.verdict.status is Status.FAIL
    # 10 s budget, 1 s an attempt and 2 s between: attempts start at 0, 3, 6 and 9 s.
    assert len(session.calls) == 4
    assert clock.now - 1000.0 == pytest.approx(10.0)


def test_without_retry_a_failure_is_final(clock):
    session = FakeSession(Do(), Do(status=1), Do(), clock=clock)
    results = engine_for("three.md", session).run_all()
    assert statuses(results)[1] == ("false", "fail")
    assert len(session.calls) == 3 and clock.sleeps == []


def test_each_attempt_is_capped_by_what_is_left_of_the_retry_budget(clock):
    session = FakeSession(*[Do(hangs=True)] * 10, clock=clock)
    (result,) = engine_for("retry_hang.md", session, default_timeout=600.0).run_all()
    assert result.verdict.status is Status.FAIL
    assert session.calls[0].timeout == 30.0  # not the 10-minute default
    assert all(c.timeout <= 30.0 for c in session.calls)
    assert clock.now - 1000.0 <= 30.0 + MIN_ATTEMPT


def test_a_commands_own_timeout_still_bounds_each_retried_attempt(clock):
    session = FakeSession(*[Do(hangs=True)] * 30, clock=clock)
    engine_for("retry_timeout.md", session, default_timeout=600.0).run_all()
    assert {c.timeout for c in session.calls[:-1]} == {4.0}
    assert clock.now - 1000.0 <= 60.0 + MIN_ATTEMPT


def test_the_run_default_timeout_applies_without_a_directive(clock):
    session = FakeSession(Do(), Do(), Do(), clock=clock)
    engine_for("three.md", session, default_timeout=42.0).run_all()
    assert [c.timeout for c in session.calls] == [42.0] * 3


# Keep going or stop.

def test_stops_at_the_first_failure_unless_keeping_going():
    session = FakeSession(Do(), Do(status=1), Do())
    results = engine_for("three.md", session, keep_going=False).run_all()
    assert statuses(results) == [("echo one", "pass"), ("false", "fail"), ("echo three", "skip")]
    assert results[2].verdict.message == f"not run: stopped after the failure at {FIXTURES / 'three.md'}:7"
    assert [c.text for c in session.calls] == ["echo one", "false"]


def test_keeps_going_after_a_failure():
    session = FakeSession(Do(), Do(status=1), Do())
    results = engine_for("three.md", session, keep_going=True).run_all()
    assert statuses(results) == [("echo one", "pass"), ("false", "fail"), ("echo three", "pass")]


# Skips and their reasons.

def test_skipped_commands_are_never_sent_and_say_why():
    session = FakeSession(Do("shown\n"), Do("after\n"))
    listener = Recorder()
    results = engine_for("skips.md", session, listener).run_all()
    assert statuses(results) == [("echo shown", "pass"), ("echo only with a cast", "skip"),
                                 ("echo never", "skip"), ("echo after", "pass")]
    assert results[1].verdict.message.endswith("@ifhook CAST not set")
    assert results[2].verdict.message.endswith(":18: in a @SKIP section")
    assert [c.text for c in session.calls] == ["echo shown", "echo after"]
    assert ("done", "echo never", "skip") in listener.heard


def test_an_ifhook_body_runs_when_its_hook_is_set():
    session = FakeSession(Do(), Do(), Do(), variables={"DEMO_HOOK_CAST": "true"})
    results = engine_for("skips.md", session).run_all()
    assert statuses(results)[1] == ("echo only with a cast", "pass")


# The shell exiting.

def test_commands_after_the_shell_exits_are_not_run_and_that_fails():
    session = FakeSession(Do(), Do(exits=True))
    engine = engine_for("exits.md", session)
    results = engine.run_all()
    assert statuses(results) == [("export API_TOKEN=tok-123456", "pass"), ("exit 0", "fail"),
                                 ("echo never", "skip")]
    assert results[1].verdict.message == (f"{FIXTURES / 'exits.md'}:3: the shell exited here with status 0; "
                                           "1 checked command after it never ran (say @ends-shell if that is meant)")
    assert "not run: the shell exited at" in results[2].verdict.message
    assert engine.exit_step is not None and engine.exit_step.text == "exit 0"
    assert len(session.calls) == 2


def test_a_shell_ending_at_the_last_command_is_fine():
    session = FakeSession(Do(), Do(), Do(exits=True))
    results = engine_for("three.md", session).run_all()
    assert [r.verdict.status for r in results] == [Status.PASS] * 3


def test_a_failing_command_that_ends_the_shell_keeps_its_own_message():
    session = FakeSession(Do(), Do(status=1, exits=True))
    results = engine_for("three.md", session).run_all()
    assert "exit status 1, expected 0" in results[1].verdict.message
    assert "1 checked command after it never ran" in results[1].verdict.details[-1]


def test_ends_shell_says_the_end_is_meant():
    session = FakeSession(Do(), Do(exits=True))
    results = engine_for("ends_shell.md", session).run_all()
    assert statuses(results) == [("echo one", "pass"), ("exit 0", "pass"), ("echo for readers only", "skip")]
    assert "the shell exited on purpose at" in results[2].verdict.message


def test_ends_shell_fails_when_the_shell_goes_on():
    session = FakeSession(Do(), Do(), Do())
    results = engine_for("ends_shell.md", session).run_all()
    assert results[1].verdict.message.endswith("@ends-shell, but the shell did not end here")


def test_a_restart_is_said_in_the_verdict_and_as_a_notice(clock):
    session = FakeSession(Do(hangs=True), Do(), Do(), clock=clock)
    session.restarts = True
    listener = Recorder()
    engine = engine_for("three.md", session, listener)
    results = engine.run_all()
    assert "are lost" in results[0].verdict.details[-1]
    assert any("the shell was restarted" in n for n in listener.notices())
    assert engine.notices and engine.notices[0][0] == results[0].step.loc


def test_secrets_are_read_before_the_shell_exits():
    session = FakeSession(Do(sets={"API_TOKEN": "tok-123456"}), Do(exits=True))
    engine = engine_for("exits.md", session)
    engine.run_all()
    assert not session.alive
    assert engine.redactor()("the token is tok-123456") == "the token is ***"


def test_variables_are_read_only_after_commands_that_may_set_secrets():
    session = FakeSession(Do(), Do(status=1), Do())
    engine_for("three.md", session).run_all()
    assert session.variable_reads == 1  # before the first command: what the environment brought


# What listeners hear, and what each mode checks.

def test_listener_hears_text_output_and_results_in_order():
    session = FakeSession(Do("hi\n"), variables={"NAME": "Ada"})
    listener = Recorder()
    engine_for("texts.md", session, listener).run_all()
    assert listener.heard == [("text", "Some prose."), ("text", "a comment"), ("text", "hello Ada"),
                              ("start", "echo hi"), ("output", b"hi\n"), ("done", "echo hi", "pass")]


@pytest.mark.parametrize("check_output, expected", [(True, Status.FAIL), (False, Status.PASS)])
def test_output_is_compared_only_when_the_mode_checks_it(check_output, expected):
    session = FakeSession(Do("something else\n"))
    (result,) = engine_for("texts.md", session, check_output=check_output).run_all()
    assert result.verdict.status is expected


def test_several_listeners_all_hear_everything():
    first, second = Recorder(), Recorder()
    engine = Engine(plan("three.md"), FakeSession(Do(), Do(), Do()), policy=Policy(),
                    listeners=[first, second], syntax=no_syntax_errors)
    engine.run_all()
    assert first.heard == second.heard and len(first.heard) == 7


# The syntax check is injected: one call for the whole plan.

def test_a_command_the_syntax_check_rejects_is_never_sent():
    asked = []

    def syntax(commands):
        asked.append(list(commands))
        return [None, "syntax error near `false'", None]

    session = FakeSession(Do(), Do())
    engine = Engine(plan("three.md"), session, policy=Policy(), syntax=syntax)
    results = engine.run_all()
    assert asked == [["echo one", "false", "echo three"]]
    assert statuses(results)[1] == ("false", "fail")
    assert "bash rejects this command: syntax error near `false'" in results[1].verdict.message
    assert [c.text for c in session.calls] == ["echo one", "echo three"]


def test_a_command_the_session_rejects_is_explained_by_the_syntax_check():
    calls = []

    def syntax(commands):
        calls.append(list(commands))
        return [None] * len(commands) if len(calls) == 1 else ["unclosed quote"]

    session = FakeSession(Do(), Do(rejects=True), Do())
    results = Engine(plan("three.md"), session, policy=Policy(), syntax=syntax).run_all()
    assert results[1].verdict.message.endswith("bash rejects this command: unclosed quote")
    assert statuses(results)[2] == ("echo three", "pass")


# The walk, as the live presenter asks it step by step.

def test_the_walk_says_what_each_step_is_for():
    engine = engine_for("texts.md", FakeSession())
    actions = [(step.kind.value, action) for _, step, action in engine.walk()]
    assert actions == [("prose", Action.SHOW), ("comment", Action.SHOW), ("print", Action.SHOW),
                       ("wait", Action.PACE), ("command", Action.RUN)]


def test_deciding_a_skipped_command_records_it_once():
    engine = engine_for("skips.md", FakeSession())
    steps = engine.plan.steps
    assert engine.decide(2, steps[2]) is Action.SKIP
    assert statuses(engine.results) == [("echo never", "skip")]
