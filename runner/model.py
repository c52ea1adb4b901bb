"""Values that cross module boundaries while reading workshops: the plan, its steps and findings.

What running them produces (outcomes, verdicts, reports) is in runner.results."""
from __future__ import annotations

from enum import Enum
from typing import NamedTuple

DEFAULT_TIMEOUT = 600.0  # seconds a command may take when nothing else is said (docs/format.md)


class SourceLoc(NamedTuple):
    """Where something came from; every step, finding and error carries one."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


class Visibility(str, Enum):
    """What @SHOW / @HIDE / @SKIP made of a step."""

    SHOW = "show"
    HIDE = "hide"
    SKIP = "skip"


class Kind(str, Enum):
    """What a step is. Commands run in the session; the rest only present."""

    PROSE = "prose"  # Markdown outside runnable fences (text = Markdown source)
    COMMENT = "comment"  # shell commentary lines (text without the leading '# ')
    COMMAND = "command"  # one complete shell command as bash reads it
    WAIT = "wait"  # wait for RETURN (presenting only)
    CLEAR = "clear"  # clear the screen (presenting only)
    PRINT = "print"  # text = arguments, ${VAR} expanded by the session
    HOOK = "hook"  # run $DEMO_HOOK_<var> if set (presenting only)
    NOTE = "note"  # text = an author's @note, for the presenter's notes terminal only
    FILE = "file"  # text = a fence's text, written to Step.target when the walk reaches it


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


class Finding(NamedTuple):
    """A problem the parser or linter noticed, pointing at file:line."""

    loc: SourceLoc
    severity: Severity
    code: str  # short stable id, e.g. "unterminated-fence"
    message: str

    def __str__(self) -> str:
        return f"{self.loc}: {self.severity.value}: {self.message} [{self.code}]"


class Expectation(NamedTuple):
    """The `##` lines under a command: what the author saw when they ran it."""

    lines: tuple[str, ...]
    loc: SourceLoc  # first `##` line
    end_line: int  # last `##` line


class Expect(str, Enum):
    """How `##` output is compared (@expect); equal to its name as a string."""

    AUTO = "auto"
    EXACT = "exact"
    CONTAINS = "contains"
    UNORDERED = "unordered"
    IGNORE = "ignore"


class Modifiers(NamedTuple):
    """Per-command directives (docs/format.md), defaults meaning 'none given'."""

    wait_before: bool = True  # @nowaitbefore / @immed clear it
    wait_after: bool = False  # @waitafter
    show: bool = True  # @noshow / @immed clear it
    typeout: bool = True  # @notypeout clears it
    immediate: bool = False  # @immed / @immediate
    expect: Expect = Expect.AUTO  # @expect
    exit: int | None = 0  # @exit N; None for @exit any
    timeout: float | None = None  # @timeout, seconds
    stop_after: float | None = None  # @stop-after, seconds
    retry: float | None = None  # @retry D, seconds
    retry_every: float = 2.0  # @retry D every D2
    masks: tuple[str, ...] = ()  # @mask REGEX, in order
    literal: tuple[str, ...] = ()  # @literal NAME...: columns, keys or rules compared as written
    volatile: tuple[str, ...] = ()  # @volatile NAME...: columns or keys whose values are measurements
    optional: bool = False  # from an unknown `@name`: warn and go on if not found
    ends_shell: bool = False  # @ends-shell: this command ends the shell on purpose
    wait_for: str | None = None  # @wait-for REGEX: interrupt the command once its output matches


NO_MODIFIERS = Modifiers()  # shared by every step no directive touched


class Requirement(NamedTuple):
    """A tool named by @requires that must be on PATH (or, `called`, one a command calls: --requires-auto)."""

    tool: str
    loc: SourceLoc
    called: bool = False


class Step(NamedTuple):
    """One unit shown, typed, run or checked, with where it came from."""

    kind: Kind
    loc: SourceLoc
    text: str
    visibility: Visibility
    end_line: int = 0  # last source line of the step (commands span lines)
    section: str | None = None  # nearest Markdown heading above, for --from
    expected: Expectation | None = None  # commands only
    modifiers: Modifiers = NO_MODIFIERS
    hook_var: str | None = None  # HOOK steps: the X of $DEMO_HOOK_X
    if_hooks: tuple[str, ...] = ()  # run only if every $DEMO_HOOK_<var> is set
    called_from: tuple[SourceLoc, ...] = ()  # macro, import and @$SHELL call sites
    nested: tuple[int, ...] = ()  # the @$SHELL calls it runs inside, outermost first (Plan.shells)
    target: str | None = None  # FILE steps: the path written, as the author gave it
    requires: tuple[Requirement, ...] = ()  # @requires of its section alone: missing, the section is skipped


class NestedShell(NamedTuple):
    """One `@$SHELL FILE` call: FILE runs in a bash of its own, started inside the caller's."""

    file: str
    loc: SourceLoc  # the call site


class Need(NamedTuple):
    """A setup workshop named by @needs: it runs first, once, and what it creates is shared."""

    file: str  # as written, relative to the folder of the file that says it
    loc: SourceLoc

    @property
    def path(self) -> str:
        import os.path

        return os.path.normpath(os.path.join(os.path.dirname(self.loc.file), self.file))


class Plan(NamedTuple):
    """A parsed workshop: its steps in order, requirements and findings."""

    file: str
    steps: tuple[Step, ...]
    requires: tuple[Requirement, ...] = ()
    findings: tuple[Finding, ...] = ()
    shells: tuple[NestedShell, ...] = ()  # the @$SHELL calls, by the numbers in Step.nested
    needs: tuple[Need, ...] = ()  # @needs: the setup workshop this one runs after

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity is Severity.ERROR)

    @property
    def commands(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.kind is Kind.COMMAND)
