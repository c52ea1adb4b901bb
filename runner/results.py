"""What running workshops produced: each command's outcome and verdict, the reports of files and runs.

Kept apart from runner.model so that what only reads workshops (`lint` on every save,
`present` up to its first screen) does not build these dataclasses.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum

from .model import Finding, Plan, Severity, SourceLoc, Step


@dataclass(frozen=True)
class Outcome:
    """What the session saw when it ran one command."""

    output: str  # as the terminal showed it (decoded; invalid bytes replaced)
    status: int  # exit status ($?); 130-ish after an interrupt
    duration: float  # seconds
    timed_out: bool = False
    stopped: bool = False  # @stop-after ended it, which counts as success
    recovery: str | None = None  # "interrupted" | "killed" | "restarted"
    state_lost: bool = False  # the shell was restarted: variables, cwd gone
    limit: float | None = None  # seconds it was allowed, when it timed out


class Escalation(IntEnum):
    """How far the session went to end a command that ran out of time, in order."""

    NONE = 0
    INTERRUPTED = 1  # Ctrl-C
    KILLED = 2  # SIGKILL of the command
    REPLACED = 3  # bash itself did not come back: a fresh one replaces it, state lost


class Status(str, Enum):
    """A verdict's word: for a command, and (file_status in runner.report.summary) for a file."""

    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"
    UPDATED = "updated"  # `check --update` wrote this command's real output as its `##` block
    EMPTY = "empty"  # files only: nothing in it can run, so nothing was checked


@dataclass(frozen=True)
class Forgiven:
    """A value of the real output that differed from the `##` block and was let pass, and the rule that let it."""

    line: int  # 1-based line of the command's output as reports show it (escapes gone, tabs expanded)
    start: int  # the value's columns in that line, end exclusive
    end: int
    rule: str  # `duration`, `generated-name`, `column AGE`, `key restartCount`, `@volatile RPS`, `mask build`...
    expected: str  # what the `##` block had in its place


@dataclass(frozen=True)
class Verdict:
    """Whether a command did what the workshop says, and if not, why."""

    status: Status
    message: str = ""  # one line a new user understands
    details: tuple[str, ...] = ()  # row/column differences or unified diff lines
    forgiven: tuple[Forgiven, ...] = ()  # what differed from the `##` block but passed (docs/matching.md)

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS


@dataclass(frozen=True)
class StepResult:
    step: Step
    verdict: Verdict
    outcome: Outcome | None = None  # None when the step did not run, or was stopped from outside
    index: int = -1  # the step's position in its plan
    stopped_after: float = 0.0  # seconds a command ran before a signal stopped the run (it has no outcome)

    @property
    def elapsed(self) -> float:
        """How long the command ran: its outcome's time, or until the run was stopped."""
        return self.outcome.duration if self.outcome is not None else self.stopped_after


@dataclass(frozen=True)
class FileReport:
    file: str
    results: tuple[StepResult, ...]
    duration: float
    skipped_reason: str | None = None  # e.g. a missing @requires tool
    plan: Plan | None = None  # the parsed workshop, for reports that show it as it reads
    error: str | None = None  # it could not be parsed or configured, so nothing in it ran
    notices: tuple[tuple[SourceLoc, str], ...] = ()  # warnings that did not fail a command (a restart)
    interrupted: str | None = None  # the signal that ended the run before this file finished
    empty: str | None = None  # why nothing in it can run (no runnable command), and the fences it has
    findings: tuple[Finding, ...] = ()  # lint's errors, said before it ran
    strict: bool = False  # checked with --strict: lint errors, an empty file and skips fail it
    hints: tuple[str, ...] = ()  # how to get what a skipped file lacks, one line per tool

    def count(self, status: Status) -> int:
        return sum(1 for r in self.results if r.verdict.status is status)

    @property
    def lint_errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity is Severity.ERROR)


@dataclass(frozen=True)
class RunReport:
    files: tuple[FileReport, ...]
    duration: float

    def count(self, status: Status) -> int:
        return sum(f.count(status) for f in self.files)
