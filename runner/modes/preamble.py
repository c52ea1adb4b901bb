"""What every command says about a workshop before running it: lint's errors, and that it has nothing to run.

`check`, `run`, `present` and the pytest plugin show the same findings, each once, before
the first command; `lint` reports them too. Light on purpose: `present` says them before its
first screen.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from ..errors import ParseError
from ..model import Finding, Kind, Plan, Severity, SourceLoc, Step, Visibility
from ..parse.bash_syntax import check_syntax_located, on_path
from ..parse.directives import suggest
from ..parse.workshop import BLOCKING

UNKNOWN_DIRECTIVE = "unknown-directive"  # a typo of a directive: an error
UNDEFINED_MACRO = "undefined-macro"  # some other unknown `@name`: a warning, as demosh ran it as a command
SHOWN = 20  # findings said one by one before a run; the rest are counted (lint lists them all)
# What makes a name a command of the session's own: `name()`, `function name`, `alias name=`.
_DEFINES = re.compile(r"(?:^|[\s;&|(])([\w.:-]+)\s*\(\s*\)|\bfunction\s+([\w.:-]+)|\balias\s+([\w.:-]+)=", re.M)


def _defined(plans: Sequence[Plan]) -> set[str]:
    """The functions and aliases the commands of these plans define for the session, read once."""
    return {name for plan in plans for step in plan.commands for m in _DEFINES.finditer(step.text)
            for name in m.groups() if name}


def unknown_names(plans: Sequence[Plan]) -> list[Finding]:
    """Unknown `@name`s run as commands; say so once per name when no such command exists here.

    A typo of a directive (`@SHWO`, `@timout`) is an error naming the directive meant; any
    other name is a warning, since such names usually come from a presenter's init file."""
    findings = []
    seen: set[str] = set()
    defined: set[str] | None = None  # read when the first unknown name needs it
    for plan in plans:
        for step in plan.steps:
            if step.kind is not Kind.COMMAND or not step.modifiers.optional:
                continue
            name = step.text.split()[0]
            if name in seen:
                continue
            seen.add(name)
            if on_path(name):
                continue
            defined = _defined(plans) if defined is None else defined
            if name in defined:
                continue
            meant = suggest(name)
            gone = f"'@{name}' is no directive, macro or hook, and no command {name!r} is on PATH"
            if meant is None:
                findings.append(Finding(step.loc, Severity.WARNING, UNDEFINED_MACRO, f"{gone}; it is skipped"))
            else:
                findings.append(Finding(step.loc, Severity.ERROR, UNKNOWN_DIRECTIVE,
                                        f"{gone}; did you mean @{meant}? (it is skipped)"))
    return findings


def syntax_findings(plans: Sequence[Plan], only: Callable[[Step], bool] = lambda step: True) -> list[Finding]:
    """bash's syntax errors, one finding each at the line bash names, for the commands `only` takes."""
    commands: dict[SourceLoc, str] = {}
    for plan in plans:
        for step in plan.commands:
            if only(step):
                commands.setdefault(step.loc, step.text)
    if not commands:
        return []
    locs = list(commands)
    problems = check_syntax_located([commands[loc] for loc in locs])
    return [Finding(SourceLoc(loc.file, loc.line + problem.line - 1), Severity.ERROR,
                    "bash-syntax", f"bash rejects this command: {problem.message}")
            for loc, problem in zip(locs, problems) if problem is not None]


def check_findings(plan: Plan) -> tuple[Finding, ...]:
    """What fails a file in `check` (and the pytest plugin) before it runs: the lint errors every
    command shows, and bash's syntax errors in commands no run reaches (@SKIP sections); a
    command that runs fails where it stands instead, so each error is said once."""
    skipped = syntax_findings([plan], only=lambda step: step.visibility is Visibility.SKIP)
    return start_findings(plan) + tuple(skipped)


def start_findings(plan: Plan) -> tuple[Finding, ...]:
    """The lint errors every command shows before running `plan` (what blocks a run is raised instead).

    bash's syntax errors are left to the command they are in, which fails where it stands."""
    found = [f for f in plan.errors if f.code not in BLOCKING]
    found += [f for f in unknown_names([plan]) if f.severity is Severity.ERROR]
    return tuple(sorted(set(found), key=lambda f: (f.loc, f.code, f.message)))


def runnable(step: Step, plan: Plan) -> bool:
    """A command or a file fence (it writes its file) of the workshop itself or of what it
    imports: init files and unknown `@name`s do not make a workshop of a file."""
    return (step.kind is Kind.FILE or step.kind is Kind.COMMAND and not step.modifiers.optional) \
        and (step.loc.file == plan.file or bool(step.called_from))


def nothing_to_run(plan: Plan) -> str | None:
    """Why `plan` has no command to run, with the fences it has and their lines; None when it has one."""
    if any(runnable(step, plan) for step in plan.steps):
        return None
    from ..parse.empty import nothing_to_run as why
    from ..parse.source import is_markdown, read_source, split_lines

    try:
        lines = split_lines(read_source(plan.file, regular=True))
    except ParseError as exc:  # gone since it was parsed: say that instead
        return f"no runnable command ({exc.message})"
    return why(lines, is_markdown(plan.file))


def nothing_to_run_line(file: str, empty: str) -> str:
    """How run, present and the pytest plugin say a file has nothing to run (`empty`, from nothing_to_run)."""
    return f"{file}: nothing to run: {empty.removeprefix('no runnable command: ')}"


def said_before(file: str, findings: Iterable[Finding], empty: str | None, *, goes_on: str) -> list[str]:
    """The lines shown before a workshop runs: each lint error, what happens now, and an empty file's reason.

    `goes_on` ends the account of errors: what the command does about them."""
    errors = list(findings)
    lines = [str(f) for f in errors[:SHOWN]]
    if len(errors) > SHOWN:
        lines.append(f"… and {len(errors) - SHOWN} more: `demorun lint {file}` lists them all")
    if errors:
        lines.append(f"{len(errors)} lint error{'s' if len(errors) != 1 else ''} in {file}; {goes_on}")
    if empty:
        lines.append(nothing_to_run_line(file, empty))
    return lines
