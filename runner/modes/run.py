"""`demorun run`: replay a workshop unattended, showing what the audience would see."""
from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence

import click

from ..cluster.guard import ClusterGuard, ClusterOptions
from ..config import Config, load_config
from ..engine.authoring import no_terminal_reason, shell_at_failure
from ..engine.core import Engine
from ..engine.listener import Listener, Run
from ..engine.sections import left_out_line, narrow
from ..engine.signals import interrupts
from ..errors import MissingRequirement
from ..model import Expect, Kind, Plan, SourceLoc, Step, Visibility
from ..report.progress import Progress
from ..results import Outcome, Status, StepResult, Verdict
from ..secrets import UNREAD, Redactor, SecretTracker
from ..terminal.screen import DIM, GREEN, YELLOW, Screen
from ..timings import Timings, check_writable
from ..verify.command import TAIL
from ..verify.normalise import normalise
from .engine_setup import RUN, announce, policy_for
from .missing_tools import explained
from .output_tail import tail_text
from .preamble import nothing_to_run, nothing_to_run_line, said_before, start_findings
from .setup import (
    load_plan,
    missing_requirements,
    open_session,
)

HIDDEN_OUTPUT_LINES = 40  # how much of a quiet command's output a failure shows


class ReplayListener(Listener):
    """Shows SHOW sections as a presenter would, and any failure wherever it happens.

    What SHOW sections print is the audience's terminal, shown as it comes; a failure's
    account (the command, the tail of a hidden command's output, the verdict) and notices
    are masked with the secrets the session is known to hold by then.
    """

    def __init__(self, screen: Screen, *, quiet: bool, speed: float | None, plan: Plan | None = None):
        self.screen = screen
        self.quiet = quiet
        self.speed = speed
        self.plan = plan  # for the cure of a missing tool, in the workshop's own syntax
        self.secrets: SecretTracker | None = None

    def on_start(self, run: Run) -> None:
        self.secrets = run.secrets

    def _redact(self, text: str) -> str:
        return self.secrets.redactor(text) if self.secrets is not None else text

    def _visible(self, step: Step) -> bool:
        """Output of SHOW sections is seen, even of @noshow and @immed commands, as when presenting."""
        return not self.quiet and step.visibility is Visibility.SHOW

    def on_text(self, step: Step, text: str) -> None:
        if self.quiet:
            return
        if step.kind is Kind.PROSE:
            self.screen.blank_line()
            self.screen.prose(text)
            self.screen.blank_line()
        elif step.kind is Kind.COMMENT:
            self.screen.comment(text)
        else:
            self.screen.printed(text)

    def on_step_start(self, index: int, step: Step) -> None:
        if self._visible(step) and step.modifiers.show:
            self.screen.prompt()
            self.screen.command(step.text, speed=self.speed if step.modifiers.typeout else None)
            self.screen.end_command()

    def on_output(self, step: Step, chunk: bytes) -> None:
        if self._visible(step):
            self.screen.write(chunk)

    def on_step_done(self, result: StepResult) -> None:
        if result.outcome is not None and result.outcome.recovery:
            self.screen.reset_leftovers()  # a killed full-screen program cannot switch off what it switched on
        if result.verdict.status is not Status.FAIL:
            return
        result = explained(result, self.plan)
        step, outcome = result.step, result.outcome
        # What it printed may hold values nobody could read: then neither its output nor the
        # details that quote it are shown.
        unread = self.secrets is not None and outcome is not None and self.secrets.unread(result.index)
        if not self._visible(step) and outcome is not None:
            self.screen.failure(f"{step.loc}: this command failed:")
            self.screen.line(self._redact(step.text))
            for line in [UNREAD] if unread else self._hidden_tail(outcome.output):
                self.screen.line(line)
        self.screen.failure(self._redact(result.verdict.message))
        details = () if unread else result.verdict.details
        if outcome is not None:  # its output was just shown: the verdict's copy of its last lines is not
            last = tuple(normalise(outcome.output)[-TAIL:])
            if last and details[:len(last)] == last:
                details = details[len(last):]
        for detail in details:
            self.screen.line(self._redact(detail))

    def _hidden_tail(self, output: str) -> list[str]:
        """The last lines a hidden command printed, secrets masked (a secret over several lines too)."""
        return self._redact(tail_text(output)).splitlines()[-HIDDEN_OUTPUT_LINES:]

    def on_notice(self, loc: SourceLoc, message: str) -> None:
        if not self.quiet:
            self.screen.notice(f"{loc}: {self._redact(message)}")


class DriftListener(Listener):
    """Compares the output of commands that succeeded with their `##` blocks, as `check` would
    (the run's own judge), to name those that drifted: a replay does not fail on them, but says
    so at the end."""

    def __init__(self) -> None:
        self.judge: Callable[[Step, Outcome], Verdict] | None = None
        self.drifted: list[SourceLoc] = []

    def on_start(self, run: Run) -> None:
        self.judge = run.judge

    def on_step_done(self, result: StepResult) -> None:
        step, outcome = result.step, result.outcome
        if outcome is None or step.expected is None or step.modifiers.expect is Expect.IGNORE \
                or result.verdict.status is not Status.PASS:
            return
        if self.judge is not None and not self.judge(step, outcome).passed:
            self.drifted.append(step.loc)


def drift_line(drifted: Sequence[SourceLoc]) -> str:
    """'2 outputs differ from the file: README.md:40, :55; `demorun check` shows how'."""
    named, last = [], None
    for loc in drifted:
        named.append(f":{loc.line}" if loc.file == last else str(loc))
        last = loc.file
    count = len(drifted)
    return (f"{count} output{'s' if count != 1 else ''} differ{'s' if count == 1 else ''} from the file: "
            f"{', '.join(named)}; `demorun check` shows how")


class TimingListener(Listener):
    """Feeds the walk to a Timings: where sections change and how long each command took."""

    def __init__(self, timings: Timings):
        self.timings = timings

    def on_text(self, step: Step, text: str) -> None:
        self.timings.at(step)

    def on_step_start(self, index: int, step: Step) -> None:
        self.timings.at(step)

    def on_step_done(self, result: StepResult) -> None:
        if result.outcome is not None:
            self.timings.command(result.outcome.duration)


def run_replay(file: str, args: list[str], *, keep_going: bool, speed: float | None, quiet: bool,
               record: str | None, timeout: float | None, no_init: bool,
               cluster: ClusterOptions | None = None, verbose: bool = False,
               timings: str | None = None, start_at: str | None = None, stop_at: str | None = None,
               pause_on_failure: bool = False) -> int:
    """Replay FILE; 0 when every command succeeded (or it has none), 1 otherwise, N after `exit N`.

    `timings`: None for none, "" to print them at the end, a path to write them as JSON too.
    `start_at`, `stop_at`: the sections to replay (--from, --to; --section is both); what comes
    before runs hidden, as setup, and what comes after is left out.
    `pause_on_failure`: the workshop's shell for the person at the terminal at each failure.
    """
    cluster = cluster or ClusterOptions()
    plan = load_plan(file, no_init=no_init)
    narrowed = narrow(plan, start_at, stop_at) if start_at or stop_at else None
    plan = narrowed.plan if narrowed else plan
    pause = pause_on_failure and _can_pause()
    config = load_config(file)
    findings = start_findings(plan)
    for line in said_before(file, findings, None, goes_on="the run goes on, as demosh's would"):
        click.echo(line, err=True)
    empty = nothing_to_run(plan)
    if empty is not None:
        Screen().line(nothing_to_run_line(file, empty), YELLOW)
        return 0
    missing = missing_requirements(plan, cluster.requires, config)
    if missing:
        raise MissingRequirement(f"{file}: not run: {missing.message()}")
    if timings:
        check_writable(timings)

    recorder = None
    if record:
        from ..report.cast import CastRecorder

        # Prose is set at the terminal's width; commands see a fixed 80x24 that fits inside it.
        size = shutil.get_terminal_size((80, 24))
        recorder = CastRecorder(record, width=max(size.columns, 80), height=max(size.lines, 24), title=file)
    screen = Screen(record=recorder.output if recorder else None)
    listener = ReplayListener(screen, quiet=quiet, speed=speed, plan=plan)
    drift = DriftListener()
    clock = Timings(file) if timings is not None else None
    started = time.monotonic()
    redact = Redactor()
    try:
        engine = _replay(plan, args, config, timeout=timeout, cluster=cluster,
                         listeners=[listener, drift] + ([] if clock is None else [TimingListener(clock)]),
                         verbose=verbose, follow=lambda step: quiet or step.visibility is not Visibility.SHOW,
                         read_ahead=not (speed or record or clock or pause), keep_going=keep_going,
                         pause=pause)
        redact = engine.secrets.redactor
    finally:
        screen.reset_leftovers()
        if recorder:
            recorder.close(redact)

    if clock is not None:
        for line in clock.table(screen.width):
            screen.line(line, DIM)
        if timings:
            clock.write(timings)
    if drift.drifted:
        screen.notice(drift_line(drift.drifted))
    narrowing = left_out_line(narrowed, engine.results) if narrowed else None
    if narrowing:
        screen.notice(narrowing)
    return _ending(engine, screen, time.monotonic() - started)


def _replay(plan: Plan, args: list[str], config: Config, *, timeout: float | None, cluster: ClusterOptions,
            listeners: list[Listener], verbose: bool, follow: Callable[[Step], bool], read_ahead: bool,
            keep_going: bool, pause: bool = False) -> Engine:
    """The engine after walking the whole plan in a session of its own, which has ended."""
    policy = policy_for(RUN, config, timeout=timeout, keep_going=keep_going)
    # Progress for what the replay does not show; the status line goes before anyone prints a failure.
    progress = Progress(verbose=verbose, follow=follow)
    live: list[Engine] = []
    running = lambda: live[0].running() if live else None  # noqa: E731
    with interrupts(lambda: live[0].session if live else None, where=running), \
            ClusterGuard(plan, cluster, config_env=config.env, announce=announce) as guard, progress, \
            open_session(plan.file, args, config, timeout=policy.default_timeout, extra_env=guard.env,
                         read_ahead=read_ahead) as session:
        guard.attach(session)
        engine = Engine(plan, session, listeners=[progress, *listeners, *guard.listeners], policy=policy)
        live.append(engine)
        if pause:
            engine.pause_on_failure = shell_at_failure(session, Screen().notice)
        try:
            engine.run_all()
        finally:
            engine.redactor()  # the secrets' last values, for the recording
    return engine


def _ending(engine: Engine, screen: Screen, elapsed: float) -> int:
    """The last line of a replay, and its exit code."""
    results = engine.results
    failed = [r for r in results if r.verdict.status is Status.FAIL]
    ran = sum(1 for r in results if r.outcome is not None)
    if engine.exit_step is not None:
        # bash's own exit status; a command bash rejected as it died has no outcome of its own
        status = next((r.outcome.status for r in results if r.step is engine.exit_step and r.outcome is not None),
                      engine.session.exit_status or 1)
        screen.notice(f"{engine.exit_step.loc}: bash exited here with status {status} "
                      "(`exit`, or `set -e` after a failure); run ended")
        return status if status or not failed else 1
    if failed:
        # stopped after a failure, or by `demorun_stop` in --pause-on-failure's shell (runner/engine/core.py)
        unrun = sum(1 for r in results if r.verdict.message.startswith("not run: stopped "))
        screen.failure(f"{len(failed)} of {len(results)} commands failed ({elapsed:.1f}s); "
                       f"first at {failed[0].step.loc}" + (f"; {unrun} not run" if unrun else ""))
        return 1
    screen.line(f"{ran} command{'s' if ran != 1 else ''} ran, all succeeded ({elapsed:.1f}s)", GREEN)
    return 0


def _can_pause() -> bool:
    """Whether --pause-on-failure can hand the shell to someone; if not, says why, and the run goes on without."""
    reason = no_terminal_reason()
    if reason:
        click.echo(f"demorun: --pause-on-failure: {reason}, so there is nobody to hand the shell to; "
                   "going on as without it", err=True)
    return reason is None
