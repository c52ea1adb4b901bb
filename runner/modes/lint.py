"""`demorun lint`: problems in workshops, one line each with file:line, severity and a code."""
from __future__ import annotations

from ..discover import find_workshops
from ..errors import ParseError
from ..model import Finding, Plan, Severity, SourceLoc
from ..parse.bash_syntax import check_syntax_located
from ..parse.migration import (
    migration_findings,
    no_show_finding,
    unchecked_modifier_findings,
)
from ..parse.source import is_markdown, read_source, split_lines
from ..parse.workshop import parse_workshop
from ..streams import echo
from .preamble import unknown_names


def _syntax_findings(plans: list[Plan]) -> list[Finding]:
    commands: dict[SourceLoc, str] = {}
    for plan in plans:
        for step in plan.commands:
            commands.setdefault(step.loc, step.text)
    locs = list(commands)
    problems = check_syntax_located([commands[loc] for loc in locs])
    return [Finding(SourceLoc(loc.file, loc.line + problem.line - 1), Severity.ERROR,
                    "bash-syntax", f"bash rejects this command: {problem.message}")
            for loc, problem in zip(locs, problems) if problem is not None]


def _lines(file: str) -> list[str] | None:
    try:
        return split_lines(read_source(file, regular=True))
    except ParseError:
        return None  # the parser has said why


def _migration_findings(plans: list[Plan]) -> list[Finding]:
    """What demosh read differently, in each workshop and the files it imports or runs."""
    findings = []
    included = {s.loc.file for plan in plans for s in plan.steps if s.called_from}
    for file in dict.fromkeys([plan.file for plan in plans] + sorted(included)):
        lines = _lines(file)
        if lines is not None:
            findings += migration_findings(file, lines, is_markdown(file))
    for plan in plans:
        findings += unchecked_modifier_findings(plan)
        lines = _lines(plan.file) if plan.file not in included else None
        finding = no_show_finding(plan, lines) if lines is not None else None
        if finding is not None:
            findings.append(finding)
    return findings


def lint_findings(paths: list[str], *, no_init: bool) -> tuple[list[Finding], int]:
    """Every finding for the workshops under `paths`, sorted, and how many files were read."""
    plans = []
    findings: set[Finding] = set()
    targets = find_workshops(paths, scripts=True)
    for path, named in targets:
        try:
            plan = parse_workshop(path, no_init=no_init)
        except ParseError as exc:
            if named:
                raise
            findings.add(Finding(exc.loc or SourceLoc(path, 1), Severity.ERROR, "unreadable",
                                 exc.message))
            continue
        plans.append(plan)
        findings.update(plan.findings)
    findings.update(_syntax_findings(plans))
    findings.update(unknown_names(plans))
    findings.update(_migration_findings(plans))
    return sorted(findings, key=lambda f: (f.loc, f.code, f.message)), len(targets)


def run_lint(paths: list[str], *, no_init: bool) -> int:
    """Print the findings; 0 when there is no error (warnings allowed), else 1."""
    findings, files = lint_findings(paths, no_init=no_init)
    for finding in findings:
        echo(str(finding))
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    warnings = len(findings) - errors
    checked = f"{files} file{'s' if files != 1 else ''}"
    if findings:
        echo(f"{errors} error{'s' if errors != 1 else ''}, "
                   f"{warnings} warning{'s' if warnings != 1 else ''} in {checked}")
    else:
        echo(f"no problems in {checked}")
    return 1 if errors else 0
