"""`demorun run`: replay a workshop unattended, showing what the audience would see."""
from __future__ import annotations

import shutil
import time

import click

from ..cluster.guard import ClusterGuard, ClusterOptions
from ..config import load_config
from ..engine.core import Engine, Policy
from ..engine.listener import Listener
from ..engine.signals import interrupts
from ..errors import MissingRequirement
from ..model import Kind, SourceLoc, Step, Visibility
from ..report.progress import Progress
from ..results import Status, StepResult
from ..secrets import Redactor
from ..terminal.screen import DIM, GREEN, Screen
from ..timings import Timings, check_writable
from .setup import (
    effective_timeout,
    load_plan,
    missing_requirements,
    open_session,
)

HIDDEN_OUTPUT_LINES = 40  # how much of a quiet command's output a failure shows


class ReplayListener(Listener):
    """Shows SHOW sections as a presenter would, and any failure wherever it happens."""

    def __init__(self, screen: Screen, *, quiet: bool, speed: float | None):
        self.screen = screen
        self.quiet = quiet
        self.speed = speed
        self.hidden_output = bytearray()

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
        self.hidden_output.clear()
        if self._visible(step) and step.modifiers.show:
            self.screen.prompt()
            self.screen.command(step.text, speed=self.speed if step.modifiers.typeout else None)
            self.screen.end_command()

    def on_output(self, step: Step, chunk: bytes) -> None:
        if self._visible(step):
            self.screen.write(chunk)
        else:
            self.hidden_output += chunk
            del self.hidden_output[:-65536]

    def on_step_done(self, result: StepResult) -> None:
        if result.outcome is not None and result.outcome.recovery:
            self.screen.reset_leftovers()  # a killed full-screen program cannot switch off what it switched on
        if result.verdict.status is not Status.FAIL:
            return
        step = result.step
        if not self._visible(step) and result.outcome is not None:
            self.screen.failure(f"{step.loc}: this command failed:")
            self.screen.line(step.text)
            tail = bytes(self.hidden_output).decode("utf-8", "replace").splitlines()
            for line in tail[-HIDDEN_OUTPUT_LINES:]:
                self.screen.line(line)
        self.screen.failure(result.verdict.message)
        for detail in result.verdict.details:
            self.screen.line(detail)

    def on_notice(self, loc: SourceLoc, message: str) -> None:
        if not self.quiet:
            self.screen.notice(f"{loc}: {message}")


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
               cluster: ClusterOptions = ClusterOptions(), verbose: bool = False,
               timings: str | None = None) -> int:
    """Replay FILE; 0 when every command succeeded, 1 otherwise, N after `exit N`.

    `timings`: None for none, "" to print them at the end, a path to write them as JSON too.
    """
    plan = load_plan(file, no_init=no_init)
    config = load_config(file)
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
    listener = ReplayListener(screen, quiet=quiet, speed=speed)
    clock = Timings(file) if timings is not None else None
    started = time.monotonic()
    redact = Redactor()
    limit = effective_timeout(timeout, config)
    # Progress for what the replay does not show; the status line goes before anyone prints a failure.
    progress = Progress(verbose=verbose, follow=lambda step: quiet or step.visibility is not Visibility.SHOW)
    try:
        live: list[Engine] = []
        running = lambda: live[0].running() if live else None  # noqa: E731
        with interrupts(lambda: live[0].session if live else None, where=running), \
                ClusterGuard(plan, cluster, config_env=config.env, announce=_announce) as guard, progress, \
                open_session(file, args, config, timeout=limit, extra_env=guard.env,
                             read_ahead=not (speed or record or clock)) as session:
            guard.attach(session)
            listeners = [progress, listener, *guard.listeners] + ([] if clock is None else [TimingListener(clock)])
            engine = Engine(plan, session, listeners=listeners, policy=Policy(
                check_output=False, keep_going=keep_going, run_hooks=True,
                default_timeout=limit, secret_names=config.secrets))
            live.append(engine)
            try:
                results = engine.run_all()
            finally:
                redact = engine.redactor()
    finally:
        screen.reset_leftovers()
        if recorder:
            recorder.close(redact)

    if clock is not None:
        for line in clock.table(screen.width):
            screen.line(line, DIM)
        if timings:
            clock.write(timings)
    failed = [r for r in results if r.verdict.status is Status.FAIL]
    ran = sum(1 for r in results if r.outcome is not None)
    elapsed = time.monotonic() - started
    if engine.exit_step is not None:
        # bash's own exit status; a command bash rejected as it died has no outcome of its own
        status = next((r.outcome.status for r in results if r.step is engine.exit_step and r.outcome is not None),
                      session.exit_status or 1)
        screen.notice(f"{engine.exit_step.loc}: bash exited here with status {status} "
                      "(`exit`, or `set -e` after a failure); run ended")
        return status if status or not failed else 1
    if failed:
        screen.failure(f"{len(failed)} of {len(results)} commands failed ({elapsed:.1f}s); "
                       f"first at {failed[0].step.loc}")
        return 1
    if not quiet:
        screen.line(f"{ran} commands ran, all succeeded ({elapsed:.1f}s)", GREEN)
    return 0


def _announce(message: str) -> None:
    click.echo(f"demorun: {message}", err=True)
