"""Drives a plan through one bash session: the single runner behind present, run and check.

Modes differ only in what listens (a presenter, a reporter) and in a few
policy switches; the engine never imports a presenter or a reporter.
"""
from __future__ import annotations

import dataclasses
import re
import shlex
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from .errors import Aborted, CommandRejected
from .model import (
    Kind,
    Outcome,
    Plan,
    SourceLoc,
    Status,
    Step,
    StepResult,
    Verdict,
    Visibility,
)
from .secrets import SECRET_NAME_PARTS, Redactor, secret_values
from .session import Session
from .verify import VerifyOptions, verify_command


class Listener:
    """What happens during a run; presenters and reporters override what they need."""

    def on_text(self, step: Step, text: str) -> None:
        """Prose, commentary or an expanded @print of a SHOW section."""

    def on_step_start(self, index: int, step: Step) -> None:
        """A command is about to run."""

    def on_output(self, step: Step, chunk: bytes) -> None: ...

    def on_step_done(self, result: StepResult) -> None: ...

    def on_notice(self, loc: SourceLoc, message: str) -> None:
        """Something worth a warning that does not fail the run."""


@dataclass(frozen=True)
class Policy:
    """The switches that make a mode: what is checked and when to stop."""

    check_output: bool = True  # compare `##` output (check, present's drift mark); else exit status only
    keep_going: bool = True  # go on after a failing command
    run_hooks: bool = True  # act on @hook calls (present, run); check leaves them alone
    default_timeout: float = 600.0
    verify: VerifyOptions = VerifyOptions()
    secret_names: tuple[str, ...] = ()  # more variables whose values count as secrets (configuration)


class Engine:
    """Runs the steps of one plan in one session and tells its listeners."""

    def __init__(self, plan: Plan, session: Session, *, policy: Policy,
                 listeners: Sequence[Listener] = ()):
        self.plan = plan
        self.session = session
        self.policy = policy
        self.listeners = list(listeners)
        self.rejected = _syntax_errors(plan)
        self._missing_warned: set[str] = set()
        self._secrets: frozenset[str] = frozenset()  # seen so far: the shell may exit before the end
        self.exit_step: Step | None = None  # the command after which bash exited

    def _fire(self, name: str, *args) -> None:
        for listener in self.listeners:
            getattr(listener, name)(*args)

    # Building blocks, also used directly by the live presenter.

    def hooks_active(self, step: Step) -> bool:
        """True when every hook an enclosing @ifhook names is set."""
        return all(self.session.getvar(f"DEMO_HOOK_{var}") for var in step.if_hooks)

    def run_hook(self, step: Step) -> None:
        """Run the command in $DEMO_HOOK_<var>, if set; hooks drive livecast scene switches."""
        if not self.policy.run_hooks or not self.session.alive:
            return
        command = self.session.getvar(f"DEMO_HOOK_{step.hook_var}")
        if command:
            outcome = self.session.run(f'eval "$DEMO_HOOK_{step.hook_var}"',
                                       timeout=self.policy.default_timeout)
            if outcome.status != 0:
                self._fire("on_notice", step.loc,
                           f"hook DEMO_HOOK_{step.hook_var} exited with status {outcome.status}")

    def expand(self, step: Step) -> str:
        """The text of a @print step with ${VAR} expanded in the session."""
        return self.session.expand(step.text) if self.session.alive else step.text

    def execute(self, index: int, step: Step, *, interactive: bool = False) -> StepResult:
        """Run one COMMAND step (with @timeout, @stop-after and @retry) and judge it."""
        if step.modifiers.optional and not self._exists(step):
            return StepResult(step, Verdict(Status.SKIP, f"{step.loc}: not a command here"), None, index)
        if index in self.rejected:
            verdict = Verdict(Status.FAIL, f"{step.loc}: bash rejects this command: {self.rejected[index]}",
                              tuple(step.text.splitlines()))
            result = StepResult(step, verdict, None, index)
            self._fire("on_step_done", result)
            return result
        self._fire("on_step_start", index, step)
        judged = step if self.policy.check_output else dataclasses.replace(step, expected=None)
        retry_until = time.monotonic() + (step.modifiers.retry or 0)
        while True:
            try:
                outcome = self.session.run(
                    step.text,
                    timeout=step.modifiers.timeout or self.policy.default_timeout,
                    stop_after=step.modifiers.stop_after,
                    on_output=lambda chunk: self._fire("on_output", step, chunk),
                    interactive=interactive,
                )
            except CommandRejected as exc:
                verdict = Verdict(Status.FAIL, f"{step.loc}: bash rejects this command: {exc.message}")
                outcome = None
                break
            verdict = verify_command(judged, outcome, options=self.policy.verify)
            if not verdict.passed and judged.expected is not None:
                verdict = self._verify_masked(judged, outcome) or verdict
            if (verdict.passed or not step.modifiers.retry or not self.session.alive
                    or time.monotonic() + step.modifiers.retry_every > retry_until):
                break
            self._fire("on_notice", step.loc, f"{verdict.message}; retrying in {step.modifiers.retry_every:g}s")
            time.sleep(step.modifiers.retry_every)
        if outcome is not None and outcome.state_lost:
            self._fire("on_notice", step.loc,
                       f"the shell was restarted after a timeout ({outcome.recovery}): "
                       "variables, functions and the working directory set earlier are lost")
        if not self.session.alive:
            self.exit_step = step
        elif _may_set_secrets(step.text, self.policy.secret_names):
            self.redactor()
        result = StepResult(step, verdict, outcome, index)
        self._fire("on_step_done", result)
        return result

    def _verify_masked(self, step: Step, outcome: Outcome) -> Verdict | None:
        """A passing verdict when the output matches once secrets read as ***, as `--update` writes them."""
        redact = self.redactor()
        if not redact:
            return None
        masked = verify_command(step, dataclasses.replace(outcome, output=redact(outcome.output)),
                                options=self.policy.verify)
        return masked if masked.passed else None

    def redactor(self) -> Redactor:
        """Masks the values of the session's secret variables, now and as seen before."""
        if self.session.alive:
            self._secrets |= secret_values(self.session.variables(), self.policy.secret_names)
        return Redactor(self._secrets)

    def _exists(self, step: Step) -> bool:
        """Unknown `@name` directives usually come from a presenter's init file: warn once."""
        name = step.text.split()[0] if step.text.split() else step.text
        found = self.session.run(f"type -t -- {shlex.quote(name)} >/dev/null", timeout=10).status == 0
        if not found and name not in self._missing_warned:
            self._missing_warned.add(name)
            self._fire("on_notice", step.loc, f"@{name}: not a macro, hook or command here; ignored")
        return found

    # The unattended loop for run and check.

    def run_all(self) -> list[StepResult]:
        """Every step in order; stops at the first failure unless the policy keeps going."""
        results: list[StepResult] = []
        stopped_by: str | None = None
        for index, step in enumerate(self.plan.steps):
            if stopped_by:
                if step.kind is Kind.COMMAND:
                    results.append(StepResult(step, Verdict(Status.SKIP, stopped_by), None, index))
                continue
            if step.visibility is Visibility.SKIP:
                if step.kind is Kind.COMMAND:
                    results.append(StepResult(step, Verdict(Status.SKIP, f"{step.loc}: in a @SKIP section"),
                                              None, index))
                continue
            if step.if_hooks and not self.hooks_active(step):
                if step.kind is Kind.COMMAND:
                    results.append(StepResult(step, Verdict(
                        Status.SKIP, f"{step.loc}: @ifhook {', '.join(step.if_hooks)} not set"), None, index))
                continue
            if step.kind is Kind.COMMAND:
                result = self.execute(index, step)
                results.append(result)
                if not self.session.alive:
                    stopped_by = f"not run: the shell exited at {step.loc}"
                elif result.verdict.status is Status.FAIL and not self.policy.keep_going:
                    stopped_by = f"not run: stopped after the failure at {step.loc}"
            elif step.kind is Kind.HOOK:
                self.run_hook(step)
            elif step.visibility is Visibility.SHOW:
                self._present(step)
        return results

    def _present(self, step: Step) -> None:
        """Unattended, only text is shown: nobody is there to wait for, and clearing would hide history."""
        if step.kind in (Kind.PROSE, Kind.COMMENT):
            self._fire("on_text", step, step.text)
        elif step.kind is Kind.PRINT:
            self._fire("on_text", step, self.expand(step))


def _may_set_secrets(command: str, extra_names: Sequence[str]) -> bool:
    """Whether a command may have set a secret, so its value is read before the shell can exit."""
    upper = command.upper()
    return (any(part in upper for part in (*SECRET_NAME_PARTS, *extra_names))
            or bool(_SOURCING.search(command)))


_SOURCING = re.compile(r"(?:^|[;&|(\s])(?:source|\.|eval|read)\s")


def _syntax_errors(plan: Plan) -> dict[int, str]:
    """Ask bash once, for the whole plan, which commands it would reject."""
    from .parse.bash_syntax import check_syntax

    indexed = [(i, s.text) for i, s in enumerate(plan.steps) if s.kind is Kind.COMMAND]
    if not indexed:
        return {}
    messages = check_syntax([text for _, text in indexed])
    return {i: msg for (i, _), msg in zip(indexed, messages) if msg}


@contextmanager
def interrupts(session_ref: Callable[[], Session | None]) -> Iterator[None]:
    """The one place SIGINT and SIGTERM are handled during unattended runs.

    The first Ctrl-C interrupts the running command; a second one before it
    finishes, or SIGTERM, aborts the whole run (cleanup happens in `finally`).
    """
    state = {"pending": 0.0}

    def on_int(signum, frame):
        session = session_ref()
        now = time.monotonic()
        if session is None or not session.alive or now - state["pending"] < 5.0:
            raise Aborted("interrupted")
        state["pending"] = now
        session.interrupt()

    def on_term(signum, frame):
        raise Aborted("terminated")

    old_int = signal.signal(signal.SIGINT, on_int)
    old_term = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)
