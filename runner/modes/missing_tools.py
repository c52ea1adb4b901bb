"""A command that failed with 127: which program bash could not find, and the cure.

bash says `NAME: command not found` (or `No such file or directory` for a path)
and exits 127. Where that is a tool the machine lacks, the workshop could have
declared it with `@requires`, which skips the file with a preflight message
instead of failing it halfway; the verdict says which line to add and, where
the preflight knows one, how to install the tool. When an `@import` of the
workshop could not be read, a name bash could not find is most likely one that
the import would have defined: the verdict names that import instead.
"""
from __future__ import annotations

import dataclasses
import os
import re

from ..model import Plan, Step
from ..results import Status, StepResult

NOT_FOUND = 127
# bash's own words, after its prefix (`README.md: `, `bash: line 3: `); `env` and `xargs` say the same.
_SAID = re.compile(r"^(?:.*?: )?(?:line \d+: )?'?([^\s':]+)'?: (command not found|No such file or directory)\s*$",
                   re.M)
_SHOWN = 3  # tools named in one verdict
_FAILED_IMPORTS = frozenset({"missing-import", "unreadable-import"})  # lint codes of an @import not read


def missing_programs(output: str) -> list[tuple[str, bool]]:
    """(program, is a path) for each program bash said it could not find, in order, once each."""
    found: dict[str, bool] = {}
    for m in _SAID.finditer(output[-65536:]):  # the complaint is at the end; a huge output costs nothing
        name, said = m.group(1), m.group(2)
        if said == "command not found" or "/" in name:
            found.setdefault(name, "/" in name)
    return list(found.items())[:_SHOWN]


def _directive(plan: Plan | None, step: Step, tool: str) -> str:
    """The @requires line in the workshop's own syntax: a comment in Markdown, `#@` in a script."""
    from ..parse.source import is_markdown

    file = plan.file if plan is not None else step.loc.file
    return f"<!-- @requires {tool} -->" if is_markdown(file) else f"#@requires {tool}"


def _failed_import(plan: Plan | None) -> str | None:
    """The first @import of `plan` that could not be read, as lint said it (file:line: why)."""
    if plan is None:
        return None
    failed = sorted((f for f in plan.errors if f.code in _FAILED_IMPORTS), key=lambda f: f.loc)
    return f"{failed[0].loc}: {failed[0].message}" if failed else None


def advice(plan: Plan | None, step: Step, output: str) -> tuple[str, ...]:
    """What to say under a command that failed with 127: each missing program and the cure."""
    from ..cluster.preflight import HINTS

    lines = []
    unread = _failed_import(plan)
    for name, is_path in missing_programs(output):
        if is_path and not os.path.isabs(name):
            lines.append(f"{name} does not exist (relative to the workshop's folder, where commands run)")
            continue
        hint = HINTS.get(os.path.basename(name))
        if unread is not None and not is_path and hint is None:
            # Which name the unread file defines cannot be known: the import first, a program second.
            lines.append(f"{name} is defined nowhere the session knows; an @import failed, which may be what "
                         f"defines it: {unread}; if {name} is a program, add {_directive(plan, step, name)}")
            continue
        lines.append(f"{name} is not installed here" + (f" ({hint})" if hint else "") +
                     f"; to skip this workshop where it is missing, with a preflight message, add "
                     f"{_directive(plan, step, name)}")
    return tuple(lines)


def explained(result: StepResult, plan: Plan | None) -> StepResult:
    """The result with the cure for a missing program added to its verdict, when it failed with 127."""
    outcome = result.outcome
    if result.verdict.status is not Status.FAIL or outcome is None or outcome.status != NOT_FOUND \
            or outcome.timed_out:
        return result
    lines = advice(plan, result.step, outcome.output)
    if not lines:
        return result
    verdict = result.verdict
    return dataclasses.replace(result, verdict=dataclasses.replace(verdict, details=(*verdict.details, *lines)))
