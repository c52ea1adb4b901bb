"""`demorun lint`: problems in workshops, one line each with file:line, severity and a code."""
from __future__ import annotations

import os
import re
import shutil

import click

from .errors import ParseError
from .model import Finding, Kind, Plan, Severity, SourceLoc
from .parse import parse_workshop
from .parse.bash_syntax import check_syntax_located
from .parse.directives import KNOWN_NAMES

_RUNNABLE_FENCE = re.compile(rb"^(```|~~~)[`~]*[ \t]*(bash|sh|shell)([ \t].*)?\r?$", re.M | re.I)


def _is_workshop(path: str) -> bool:
    if path.endswith(".sh"):
        return True
    if not path.lower().endswith(".md"):
        return False
    try:
        with open(path, "rb") as f:
            return bool(_RUNNABLE_FENCE.search(f.read()))
    except OSError:
        return True


def find_workshops(folder: str) -> list[str]:
    """Every `*.md` with a runnable fence and every `*.sh` below `folder`, in a stable order."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
        found += [os.path.join(root, name) for name in sorted(files)
                  if _is_workshop(os.path.join(root, name))]
    return found


def _targets(paths: list[str]) -> list[tuple[str, bool]]:
    """(file, named on the command line) for every workshop to lint."""
    targets = []
    for path in paths:
        if os.path.isdir(path):
            found = find_workshops(path)
            if not found:
                raise ParseError(f"no workshops in {path!r} (no *.md with a bash fence, no *.sh)")
            targets += [(f, False) for f in found]
        elif os.path.lexists(path):
            targets.append((path, True))
        else:
            raise ParseError(f"no such file or folder: {path!r}")
    return targets


def _syntax_findings(plans: list[Plan]) -> list[Finding]:
    commands = {}
    for plan in plans:
        for step in plan.commands:
            commands.setdefault(step.loc, step.text)
    locs = list(commands)
    problems = check_syntax_located([commands[loc] for loc in locs])
    return [Finding(SourceLoc(loc.file, loc.line + problem.line - 1), Severity.ERROR,
                    "bash-syntax", f"bash rejects this command: {problem.message}")
            for loc, problem in zip(locs, problems) if problem is not None]


def _unknown_name_findings(plans: list[Plan]) -> list[Finding]:
    """Unknown `@name`s run as commands; say so when no such command exists here."""
    findings = []
    for plan in plans:
        for step in plan.steps:
            if step.kind is not Kind.COMMAND or not step.modifiers.optional:
                continue
            name = step.text.split()[0]
            if shutil.which(name):
                continue
            hint = next((f" (did you mean '@{known}'?)" for known in sorted(KNOWN_NAMES)
                         if known.lower() == name.lower()), "")
            findings.append(Finding(step.loc, Severity.WARNING, "undefined-macro",
                                    f"'@{name}' is no directive, macro or hook, and no command "
                                    f"{name!r} is on PATH{hint}"))
    return findings


def lint_findings(paths: list[str], *, no_init: bool) -> tuple[list[Finding], int]:
    """Every finding for the workshops under `paths`, sorted, and how many files were read."""
    plans = []
    findings: set[Finding] = set()
    targets = _targets(paths)
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
    findings.update(_unknown_name_findings(plans))
    return sorted(findings, key=lambda f: (f.loc, f.code, f.message)), len(targets)


def run_lint(paths: list[str], *, no_init: bool) -> int:
    """Print the findings; 0 when there is no error (warnings allowed), else 1."""
    findings, files = lint_findings(paths, no_init=no_init)
    for finding in findings:
        click.echo(str(finding))
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    warnings = len(findings) - errors
    checked = f"{files} file{'s' if files != 1 else ''}"
    if findings:
        click.echo(f"{errors} error{'s' if errors != 1 else ''}, "
                   f"{warnings} warning{'s' if warnings != 1 else ''} in {checked}")
    else:
        click.echo(f"no problems in {checked}")
    return 1 if errors else 0
