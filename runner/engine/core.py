"""Drives a plan through one bash session: the single runner behind present, run and check.

Modes differ only in what listens (a presenter, a reporter) and in a few
policy switches; the engine never imports a presenter or a reporter, and
never starts a bash of its own: the session and the syntax check are given.
"""
from __future__ import annotations

import dataclasses
import os
import shlex
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..errors import Aborted, CommandRejected, SessionError
from ..model import DEFAULT_TIMEOUT, NO_MODIFIERS, Kind, Plan, SourceLoc, Step, Visibility
from ..parse.directives import suggest
from ..results import Outcome, Status, StepResult, Verdict
from ..secrets import Redactor, SecretTracker
from ..session.read_ahead import may_wait, plan_may_queue
from ..verify.command import verify_command
from ..verify.values import VerifyOptions
from . import timeouts
from .authoring import EndlessGuard, EndlessLimit, SectionNeeds, WaitFor, write_file
from .listener import Broadcast, Listener
from .shell import Shell
from .walk import Action, action_for, may_run, skip_reason

# Per command, bash's complaint or None; one call for a whole plan.
SyntaxCheck = Callable[[Sequence[str]], Sequence[str | None]]
AHEAD_STEPS = 64  # how far the engine looks for commands the session may queue behind the running one
_NO_SESSION = frozenset({Kind.PROSE, Kind.COMMENT, Kind.WAIT, Kind.CLEAR, Kind.NOTE})


@dataclass(frozen=True)
class Policy:
    """The switches that make a mode: what is checked and when to stop."""

    check_output: bool = True  # compare `##` output (check, present's drift mark); else exit status only
    keep_going: bool = True  # go on after a failing command
    run_hooks: bool = True  # act on @hook calls (present, run); check leaves them alone
    default_timeout: float = DEFAULT_TIMEOUT
    verify: VerifyOptions = VerifyOptions()
    secret_names: tuple[str, ...] = ()  # more variables whose values count as secrets (configuration)
    # A command that never ends by itself (runner/parse/endless.py) with none of @stop-after,
    # @wait-for, @timeout or `&`: None lets it run to the default; a number is its own short limit;
    # with `endless_fail` it fails at once instead (check --strict).
    endless_limit: float | None = None
    endless_fail: bool = False


def bash_syntax(commands: Sequence[str]) -> list[str | None]:
    """The real syntax check: bash itself, once for all the commands."""
    from ..parse.bash_syntax import check_syntax

    return check_syntax(list(commands))


S = TypeVar("S", bound=Shell)


class Engine(Generic[S]):
    """Runs the steps of one plan in one session and tells its listener."""

    def __init__(self, plan: Plan, session: S, *, policy: Policy,
                 listeners: Sequence[Listener] = (), syntax: SyntaxCheck = bash_syntax):
        self.plan = plan
        self.session = session
        self.policy = policy
        self.listener: Listener = listeners[0] if len(listeners) == 1 else Broadcast(listeners)
        self.syntax = syntax
        self.rejected = self._syntax_errors()
        # When to read secret values is decided once per plan, not per command.
        self.secrets = SecretTracker(plan.steps, policy.secret_names)
        self._judged: dict[int, Step] = {} if policy.check_output else {
            i: s._replace(expected=None) for i, s in enumerate(plan.steps)
            if s.kind is Kind.COMMAND and s.expected is not None}
        # Most commands have no directive: their limits are the run's, resolved once.
        self._default_limits = timeouts.resolve(NO_MODIFIERS, policy.default_timeout)
        # Which commands may wait in bash's input behind the one running (Session.run's `ahead`):
        # those with nothing to do between them but run, by what the engine knows of them (no
        # directive, no nested shell, no hook, nobody listening asks the shell) and by their text
        # (runner/session/read_ahead.py decides): known here per plan, and in _ahead as the run
        # goes, for what it learns (the functions that make a command need secret reads).
        self._plain: list[bool] = [False] * len(plan.steps)
        if session.read_ahead and plan_may_queue(s.text for s in plan.steps if s.kind is Kind.COMMAND):
            uses_shell = self.listener.uses_shell
            self._plain = [s.kind is Kind.COMMAND and s.modifiers is NO_MODIFIERS and not s.nested
                           and not s.if_hooks and s.visibility is not Visibility.SKIP and i not in self.rejected
                           and may_wait(s.text) and not uses_shell(s)
                           for i, s in enumerate(plan.steps)]
        self._horizon = len(plan.steps)  # the end of the walk under way: nothing past it is queued
        self._offered: tuple[int, ...] = ()  # the commands last offered for queuing (they may have run)
        self._current_index = -1
        self._missing_warned: set[str] = set()
        self.results: list[StepResult] = []  # every command's result, skipped ones included, in order
        self.stopped_by: str | None = None  # why the commands still to come will not run
        self.notices: list[tuple[SourceLoc, str]] = []  # what reports must say besides verdicts
        self.exit_step: Step | None = None  # the command after which bash exited
        self.current: Step | None = None  # the command running now
        self.shells_ended: dict[int, str] = {}  # @$SHELL scopes whose bash exited: why the rest is not run
        self.pause_on_failure: Callable[[Step], bool] | None = None  # True: stop the run (run/check)
        self.section_needs = SectionNeeds(self.listener)  # @requires of one section
        self.endless = EndlessGuard(policy.endless_limit, policy.endless_fail)
        self.listener.on_start(self)

    def _syntax_errors(self) -> dict[int, str]:
        """Ask once, for the whole plan, which commands bash would reject."""
        indexed = [(i, s.text) for i, s in enumerate(self.plan.steps) if s.kind is Kind.COMMAND]
        if not indexed:
            return {}
        messages = self.syntax([text for _, text in indexed])
        return {i: msg for (i, _), msg in zip(indexed, messages) if msg}

    # The walk: every mode asks here what a step is for.

    def decide(self, index: int, step: Step) -> Action:
        """What to do with a step; a command that will not run is recorded as skipped, with why.

        A step that uses the shell is first taken to the bash of its @$SHELL calls.
        """
        reason = self._in_ended_shell(step) or skip_reason(step, self.hooks_active, self.stopped_by)
        if reason is None and step.requires:
            reason = self.section_needs.missing(step)
        if reason is None and step.kind is Kind.FILE:
            failed = write_file(step)
            if failed is not None:
                self._stop_after_failure(step)
                self._record(StepResult(step, Verdict(Status.FAIL, failed), None, index))
            return Action.SKIP
        if reason is None:
            action = action_for(step)
            if self.plan.shells and (action in (Action.RUN, Action.HOOK) or step.kind is Kind.PRINT):
                self._enter_shells(step.nested)
            return action
        if step.kind is Kind.COMMAND:
            self._record(StepResult(step, Verdict(Status.SKIP, reason), None, index))
        return Action.SKIP

    def walk(self, start: int = 0, stop: int | None = None) -> Iterator[tuple[int, Step, Action]]:
        """The steps in [start, stop) a mode must act on, with what each asks for.

        Nothing past `stop` is queued in bash's input (see _ahead): a caller that walks part of a
        plan (the pytest plugin, one test at a time) runs no command it did not ask for."""
        steps = self.plan.steps
        self._horizon = len(steps) if stop is None else stop
        for index in range(start, self._horizon):
            step = steps[index]
            action = self.decide(index, step)
            if action is not Action.SKIP:
                yield index, step, action

    def skip_rest(self, why: str) -> list[StepResult]:
        """After the run was stopped from outside: every command not yet judged, skipped with why."""
        judged = {r.index for r in self.results}
        reason = self.stopped_by or f"not run: {why}"
        # bash may have begun a command queued in its input before demorun read the one before.
        waiting = self._waiting(judged)
        queued = f"not known to have run: it waited in bash's input when {why} came"
        for index, step in enumerate(self.plan.steps):
            if step.kind is Kind.COMMAND and index not in judged:
                said = queued if index in waiting else reason
                self._record(StepResult(step, Verdict(Status.SKIP, said), None, index))
        self.results.sort(key=lambda r: r.index)
        return self.results

    def run_all(self) -> list[StepResult]:
        """The unattended walk for run and check: every step in order, only text shown."""
        for index, step, action in self.walk():
            if action is Action.RUN:
                self.execute(index, step)
            elif action is Action.HOOK:
                self.run_hook(step)
            elif action is Action.SHOW:
                # Nobody is there to wait for, and clearing would hide history: @wait/@clear do nothing.
                self.listener.on_text(step, self.expand(step) if step.kind is Kind.PRINT else step.text)
        return self.results

    # Nested shells (@$SHELL): left again when the session closes (Session.close).

    def _in_ended_shell(self, step: Step) -> str | None:
        """Why a step of a nested workshop whose shell has exited is not run; None otherwise."""
        if not self.shells_ended or self.stopped_by is not None:
            return None
        return next((self.shells_ended[scope] for scope in step.nested if scope in self.shells_ended), None)

    def _enter_shells(self, wanted: tuple[int, ...]) -> None:
        """Leaves the nested shells `wanted` does not name and starts the ones it adds, in order."""
        session = self.session
        if not session.alive:
            return
        have = session.nested
        kept = 0
        while kept < min(len(have), len(wanted)) and have[kept] == wanted[kept]:
            kept += 1
        for _ in range(len(have) - kept):
            session.leave_shell()
        for scope in wanted[kept:]:
            session.enter_shell(scope, self.plan.shells[scope].file)

    def _nested_ended(self, step: Step) -> bool:
        """Whether the nested shell `step` ran in exited (`exit`, `set -e`); if so, the rest of its
        workshop will be skipped, and the caller goes on, as after `$SHELL FILE` under demosh."""
        ended = self.session.shells_ended()
        for scope in ended:
            shell = self.plan.shells[scope]
            self.shells_ended[scope] = (f"not run: the nested shell of {os.path.basename(shell.file)} "
                                        f"(@$SHELL at {shell.loc}) exited at {step.loc}")
        return bool(ended)

    def _nested_verdict(self, index: int, step: Step, verdict: Verdict, outcome: Outcome | None) -> Verdict:
        """The command that ended a nested shell fails when its status was not the expected one, or
        when commands of that workshop were still to come, unless @ends-shell says it is meant."""
        outer = min(scope for scope in step.nested if scope in self.shells_ended)
        name = os.path.basename(self.plan.shells[outer].file)
        status = "" if outcome is None else f" with status {outcome.status}"
        if step.modifiers.ends_shell:
            return verdict
        never = sum(1 for later in self.plan.steps[index + 1:] if may_run(later) and outer in later.nested)
        if not never:
            return verdict
        said = (f"{step.loc}: the nested shell of {name} exited here{status}; {never} checked "
                f"command{'s' if never > 1 else ''} of it never ran (say @ends-shell if that is meant); "
                "the caller goes on")
        if verdict.passed:
            return Verdict(Status.FAIL, said)
        return dataclasses.replace(verdict, details=(*verdict.details, said))

    # Building blocks, also used directly by the live presenter.

    def hooks_active(self, step: Step) -> bool:
        """True when every hook an enclosing @ifhook names is set."""
        return all(self.session.getvar(f"DEMO_HOOK_{var}") for var in step.if_hooks)

    def run_hook(self, step: Step, on_output: Callable[[bytes], None] | None = None) -> None:
        """Run the command in $DEMO_HOOK_<var>, if set; hooks drive livecast scene switches.
        `on_output`: where what it prints goes (present shows it, as demosh does)."""
        if not self.policy.run_hooks or not self.session.alive:
            return
        command = self.session.getvar(f"DEMO_HOOK_{step.hook_var}")
        if command:
            outcome = self.session.run(f'eval "$DEMO_HOOK_{step.hook_var}"',
                                       timeout=self.policy.default_timeout, on_output=on_output)
            if outcome.status != 0:
                self.listener.on_notice(step.loc,
                                        f"hook DEMO_HOOK_{step.hook_var} exited with status {outcome.status}")
            if not self.session.alive:  # `set -e` and a failing hook: the hook is where the shell ended
                self.exit_step = step
                self.stopped_by = f"not run: the shell exited at {step.loc} (hook @{step.text})"
            elif step.nested:  # a hook that ends its nested shell ends that workshop, as a command would
                self._nested_ended(step)

    def expand(self, step: Step) -> str:
        """The text of a @print step with ${VAR} expanded in the session."""
        return self.session.expand(step.text) if self.session.alive else step.text

    def _record(self, result: StepResult) -> StepResult:
        self.results.append(result)
        self.listener.on_step_done(result)
        return result

    def execute(self, index: int, step: Step, *, interactive: bool = False) -> StepResult:
        """Run one COMMAND step (with @timeout, @stop-after and @retry) and judge it."""
        if step.modifiers.optional and not self._exists(step):
            return StepResult(step, Verdict(Status.SKIP, f"{step.loc}: not a command here"), None, index)
        if index in self.rejected:
            self._stop_after_failure(step)
            return self._record(StepResult(step, self._rejected(step, self.rejected[index]), None, index))
        # Read first, so that what hears of the command (its echo, a status line) masks what the
        # environment or an `unset` makes secret.
        self.secrets.before(index, self.session)
        self.listener.on_step_start(index, step)
        self.current, self._current_index = step, index
        started = time.monotonic()
        try:
            verdict, outcome = self._attempts(index, step, interactive)
        except Aborted as exc:
            self.stopped_by = f"not run: {exc} at {step.loc}"
            # Commands queued behind this one may have run meanwhile: bash does not wait for demorun.
            ran = "while this command, or one queued behind it in bash's input, ran" \
                if self._queued_behind(index) else "while this command ran"
            self._record(StepResult(step, Verdict(Status.FAIL, f"{step.loc}: {exc} {ran}"), None, index,
                                    stopped_after=time.monotonic() - started))
            raise
        finally:
            self.current = None
        if outcome is not None and outcome.state_lost:
            lost = (f"the shell was restarted ({outcome.recovery}): variables, functions, "
                    "the working directory and background jobs set earlier are lost")
            self.notices.append((step.loc, lost))
            self.listener.on_notice(step.loc, lost)
            verdict = dataclasses.replace(verdict, details=(*verdict.details, lost))
        if not self.session.alive:
            verdict = self._shell_ended(index, step, verdict, outcome)
        else:
            nested_ended = bool(step.nested) and self._nested_ended(step)
            if nested_ended:
                verdict = self._nested_verdict(index, step, verdict, outcome)
            self.secrets.after(index, self.session)
            if step.modifiers.ends_shell and verdict.passed and not nested_ended:
                verdict = Verdict(Status.FAIL, f"{step.loc}: @ends-shell, but the shell did not end here")
            if verdict.status is Status.FAIL and not nested_ended:
                self._stop_after_failure(step)
        result = self._record(StepResult(step, verdict, outcome, index))
        if verdict.status is Status.FAIL and self.pause_on_failure is not None and self.session.alive:
            # run/check --pause-on-failure: the person looks around in this very shell, then says go on or stop
            self.stopped_by = f"not run: stopped in the shell at the failure at {step.loc}" \
                if self.pause_on_failure(step) else None
        return result

    def _stop_after_failure(self, step: Step) -> None:
        """Unless the policy goes on, the commands after a failed one are skipped, saying where it failed."""
        if not self.policy.keep_going:
            self.stopped_by = f"not run: stopped after the failure at {step.loc}"

    def _shell_ended(self, index: int, step: Step, verdict: Verdict, outcome: Outcome | None) -> Verdict:
        """The shell ended at `step`: the rest cannot run, which fails it unless it was meant (@ends-shell)."""
        self.exit_step = step
        status = "" if outcome is None else f" with status {outcome.status}"
        if step.modifiers.ends_shell:
            self.stopped_by = f"not run: the shell exited on purpose at {step.loc}"
            return verdict
        self.stopped_by = f"not run: the shell exited at {step.loc}"
        never = sum(1 for later in self.plan.steps[index + 1:] if may_run(later))
        if not never:
            return verdict
        ended = (f"{step.loc}: the shell exited here{status}; {never} checked "
                 f"command{'s' if never > 1 else ''} after it never ran (say @ends-shell if that is meant)")
        if verdict.passed:
            return Verdict(Status.FAIL, ended)
        return dataclasses.replace(verdict, details=(*verdict.details, ended))

    def _attempts(self, index: int, step: Step, interactive: bool) -> tuple[Verdict, Outcome | None]:
        """Run a command until it passes or its @retry budget is spent; the last verdict and outcome."""
        judged = self._judged.get(index, step)
        modifiers = step.modifiers
        limits = self._default_limits if modifiers is NO_MODIFIERS else \
            timeouts.resolve(modifiers, self.policy.default_timeout)
        retry_deadline = None if limits.retry is None else limits.retry_deadline(time.monotonic())
        ahead = self._ahead(index) if self._plain[index] and not interactive else ()
        endless = None if modifiers.wait_for or interactive else self.endless.judge(step, limits.timeout)
        if endless is not None and endless.fails:
            return Verdict(Status.FAIL, f"{step.loc}: {endless.advice}"), None
        while True:
            limit = limits.timeout if retry_deadline is None else \
                limits.attempt_timeout(retry_deadline, time.monotonic())
            if endless is not None:
                limit = min(limit, endless.limit)
            waiting = WaitFor(modifiers.wait_for, self.session) if modifiers.wait_for else None
            try:
                outcome = self._run_once(step, limit, limits.stop_after, waiting, interactive, ahead)
            except CommandRejected as exc:
                return self._rejected(step, self._reason(step, exc)), None
            verdict, outcome = self._judge(judged, outcome, waiting, endless)
            if (verdict.passed or retry_deadline is None or not self.session.alive
                    or not limits.may_retry(retry_deadline, time.monotonic())):
                return verdict, outcome
            self.listener.on_notice(step.loc, f"{verdict.message}; retrying in {limits.retry_every:g}s")
            time.sleep(limits.retry_every)

    def _run_once(self, step: Step, limit: float, stop_after: float | None, waiting: WaitFor | None,
                  interactive: bool, ahead: Sequence[str]) -> Outcome:
        """One attempt at a command; with @wait-for, its output is watched for the pattern as it comes."""
        def on_output(chunk: bytes) -> None:
            self.listener.on_output(step, chunk)
            if waiting is not None:
                waiting.feed(chunk)

        outcome = self.session.run(step.text, timeout=limit, stop_after=stop_after, on_output=on_output,
                                   interactive=interactive, ahead=ahead)
        return dataclasses.replace(outcome, limit=limit) if outcome.timed_out else outcome

    def _judge(self, judged: Step, outcome: Outcome, waiting: WaitFor | None,
               endless: EndlessLimit | None) -> tuple[Verdict, Outcome]:
        """The verdict on one attempt: @wait-for's first, then the status and `##` output."""
        if waiting is not None:
            outcome, failed = waiting.settle(judged, outcome)
            if failed is not None:
                return failed, outcome
        verdict = self.judge(judged, outcome)
        if endless is not None and outcome.timed_out:
            verdict = dataclasses.replace(verdict, details=(*verdict.details, endless.advice))
        return verdict, outcome

    def _ahead(self, index: int) -> list[str]:
        """The commands after `index` the walk will run next with nothing else asked of the session
        in between, unless one fails: only prose and pauses lie between them, none needs a secret
        read, and when a failure stops the run, none but the last can fail with status 0 (by its
        output, in check --fail-fast). Asked only when the session has nothing queued already."""
        if not self._plain[index] or self.session.queued or not self.secrets.quiet(index) \
                or self._fails_quietly(index):
            return []
        steps, plain, quiet = self.plan.steps, self._plain, self.secrets.quiet
        found: list[int] = []
        for later in range(index + 1, min(self._horizon, index + 1 + AHEAD_STEPS)):
            step = steps[later]
            if step.kind is Kind.COMMAND:
                if not (plain[later] and quiet(later)):
                    break
                found.append(later)
                if self._fails_quietly(later):
                    break
            elif step.kind not in _NO_SESSION:
                break
        self._offered = tuple(found)
        return [steps[later].text for later in found]

    def running(self) -> str | None:
        """Where the command bash runs now is, as far as demorun knows, for messages on a signal."""
        if self.current is None:
            return None
        if self._queued_behind(self._current_index):
            return f"{self.current.loc} (or a command queued behind it)"
        return str(self.current.loc)

    def _queued_behind(self, index: int) -> bool:
        """Whether bash may have gone on from command `index` to one queued behind it."""
        return bool(self._waiting({r.index for r in self.results} | {index}))

    def _waiting(self, judged: set[int]) -> tuple[int, ...]:
        """The commands not yet judged that wait in bash's input (or ended there unread): the
        first of those last offered, as many as the session still holds."""
        count = self.session.waiting
        return tuple(i for i in self._offered if i not in judged)[:count] if count else ()

    def _fails_quietly(self, index: int) -> bool:
        """A stopping run ends after this command even when it exits 0 (its output differs), where
        bash would already have gone on to what was queued behind it."""
        return not self.policy.keep_going and self._judged.get(index, self.plan.steps[index]).expected is not None

    @staticmethod
    def _rejected(step: Step, reason: str) -> Verdict:
        return Verdict(Status.FAIL, f"{step.loc}: bash rejects this command: {reason}",
                       tuple(step.text.splitlines()))

    def _reason(self, step: Step, exc: CommandRejected) -> str:
        """bash's own words for a command the session could not run: the syntax check's, if it has any."""
        (said,) = self.syntax([step.text])
        return said or exc.message

    def judge(self, step: Step, outcome: Outcome) -> Verdict:
        """A command's verdict under the policy's reading of `##` blocks, for every mode alike."""
        verdict = verify_command(step, outcome, options=self.policy.verify)
        if not verdict.passed and step.expected is not None:
            verdict = self._verify_masked(step, outcome) or verdict
        return verdict

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
        try:
            self.secrets.read(self.session)
        except SessionError:
            pass  # the shell died answering: what was seen before still counts
        return self.secrets.redactor

    def _exists(self, step: Step) -> bool:
        """Unknown `@name` directives usually come from a presenter's init file: warn once.

        A typo of a directive (`@SHWO`) is not warned about here: every mode said it before the
        run, with the directive meant (runner/modes/preamble.py)."""
        name = step.text.split()[0] if step.text.split() else step.text
        found = self.session.run(f"type -t -- {shlex.quote(name)} >/dev/null", timeout=10).status == 0
        if not found and name not in self._missing_warned:
            self._missing_warned.add(name)
            if suggest(name) is None:
                self.listener.on_notice(step.loc, f"@{name}: not a macro, hook or command here; ignored")
        return found
