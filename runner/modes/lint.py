"""`demorun lint`: problems in workshops, one line each with file:line, severity and a code."""
from __future__ import annotations

from ..cluster.planned import undeclared_tools
from ..config import load_config
from ..discover import find_workshops
from ..errors import ConfigError, ParseError
from ..model import Finding, Plan, Severity, SourceLoc, Visibility
from ..parse.endless import fix_for, never_ends
from ..parse.migration import (
    migration_findings,
    no_show_finding,
    unchecked_modifier_findings,
)
from ..parse.source import is_markdown, read_source, split_lines
from ..parse.workshop import parse_workshop
from ..streams import echo
from .preamble import syntax_findings, unknown_names


def _pin_findings(plans: list[Plan]) -> list[Finding]:
    """`@literal` and `@volatile` names that no column or key of the command's `##` block carries (a typo, mostly)."""
    findings = []
    for plan in plans:
        for step in plan.commands:
            m = step.modifiers
            if not (m.literal or m.volatile):
                continue
            first = step.text.split("\n", 1)[0]
            if step.expected is None:
                findings.append(Finding(step.loc, Severity.WARNING, "modifier-without-output",
                                        f"@literal or @volatile applies to {first!r}, which has no '##' block to "
                                        "check: did it mean the next command?"))
                continue
            # The verifier's patterns compile when imported: only a workshop with pins pays for them.
            from ..verify.keys import pinnable_names
            from ..verify.kinds import RULES

            known = pinnable_names(step.expected.lines)
            kinds = RULES | {name.casefold() for name, _ in _config_masks(step.loc.file)}
            for pin, names in (("literal", m.literal), ("volatile", m.volatile)):
                for name in names:
                    if name.casefold() in known or pin == "literal" and name.casefold() in kinds:
                        continue
                    findings.append(Finding(step.loc, Severity.WARNING, "unknown-pin",
                                            f"'@{pin} {name}' names no column or key of the '##' block at "
                                            f"{step.expected.loc}" + _columns_hint(known)))
    return findings


def _columns_hint(known: set[str]) -> str:
    return f" (it has {', '.join(sorted(known)[:12])})" if known else ""


def _config_masks(file: str) -> tuple[tuple[str, str], ...]:
    """The project's named masks, which `@literal` may turn off; none when the configuration cannot be read."""
    try:
        return load_config(file).masks
    except ConfigError:
        return ()


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


def _undeclared_tool_findings(plans: list[Plan]) -> list[Finding]:
    """Cluster tools a workshop calls without @requires: a machine without them would fail each call."""
    included = {s.loc.file for plan in plans for s in plan.steps if s.called_from and s.loc.file != plan.file}
    findings = []
    for plan in plans:
        called = undeclared_tools(plan) if plan.file not in included else ()
        if called:
            tools = " ".join(r.tool for r in called)
            findings.append(Finding(called[0].loc, Severity.WARNING, "undeclared-tools",
                                    f"calls {', '.join(r.tool for r in called)} without @requires; add "
                                    f"'@requires {tools}' so a machine without them skips the file "
                                    f"(or check with --requires-auto)"))
    return findings


def _endless_findings(plans: list[Plan]) -> list[Finding]:
    """Commands that never end by themselves and say nothing of how they end: `check` would wait for them."""
    findings = []
    for plan in plans:
        for step in plan.commands:
            m = step.modifiers
            if step.visibility is Visibility.SKIP or m.stop_after is not None or m.wait_for:
                continue
            endless = never_ends(step.text)
            if endless is not None:
                findings.append(Finding(step.loc, Severity.WARNING, "never-ends",
                                        f"`{endless.reason}` never ends by itself: {fix_for(endless.reason)}"))
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
    findings.update(syntax_findings(plans))
    findings.update(unknown_names(plans))
    findings.update(_pin_findings(plans))
    findings.update(_migration_findings(plans))
    findings.update(_undeclared_tool_findings(plans))
    findings.update(_endless_findings(plans))
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
