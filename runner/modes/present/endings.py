"""How a shell's end reads on stage: what the hidden commands printed before it, and demosh's quiet exits.

A hidden command that ends the workshop's shell ends the show; the presenter then needs what
led to it, which is often printed by the commands before the one that exits (`echo "Missing:
tool" >&2`, then `exit 1`), never bash's own `exit`. A nested workshop (`@$SHELL FILE`) whose
shell ends while `DEMOSH_QUIET_FAILURE` is true there ends quietly, as under demosh: it is no
failure to report.
"""
from __future__ import annotations

import os
import re

from ...model import Kind, Plan, Step
from ..output_tail import OutputTail

HIDDEN_TAIL = 20  # lines of the hidden commands' output shown when one ends the shell
_QUIET = re.compile(r"^[ \t]*(?:export[ \t]+)?DEMOSH_QUIET_FAILURE=(\S*)", re.MULTILINE)
_UNSET = re.compile(r"^[ \t]*unset[ \t]+(?:-v[ \t]+)?DEMOSH_QUIET_FAILURE\b", re.MULTILINE)


class HiddenTail(OutputTail):
    """The last lines printed by the hidden commands run since the last shown one."""

    def __init__(self) -> None:
        super().__init__(HIDDEN_TAIL)

    def lines(self) -> list[str]:
        """The tail, without the `exit` bash prints as it leaves (it names no cause)."""
        lines = super().lines()
        while lines and lines[-1].strip() in ("exit", "logout", ""):
            lines.pop()
        return lines


def hidden_ending(step: Step | None, status: int, tail: list[str]) -> tuple[str, list[tuple[str, bool]]]:
    """The failure line, and the lines under it (each with whether it is ours, to be dimmed),
    when a hidden step ended the workshop's shell."""
    where = f"{step.loc}: " if step is not None else ""
    if step is not None and step.kind is Kind.HOOK:
        return (f"{where}the hook @{step.text} ($DEMO_HOOK_{step.hook_var}) ended the workshop's shell "
                f"with exit status {status}", [])
    body = [(f"    {line}", False) for line in step.text.splitlines()] if step is not None else []
    said = f"{where}a hidden command ended the workshop's shell with exit status {status}:"
    if tail:
        body.append((f"the last {len(tail)} lines of output of the hidden commands before it:", True))
        body += [(line, False) for line in tail]
    return said, body


def quietly(value: str) -> bool:
    """demosh's reading of DEMOSH_QUIET_FAILURE: yes, true, t, y or 1, in any case."""
    return value.strip().strip("'\"").lower() in ("yes", "true", "t", "y", "1")


def quiet_exit(plan: Plan, index: int, scope: int) -> bool:
    """Whether DEMOSH_QUIET_FAILURE was true in the nested shell `scope` when step `index` ended it.

    The commands that count ran in that shell or in the shells that called it, before this one;
    the last that sets or unsets the variable decides, else the presenter's environment.
    """
    path = plan.steps[index].nested
    inside = path[:path.index(scope) + 1] if scope in path else (scope,)
    for step in reversed(plan.steps[:index + 1]):
        if step.kind is not Kind.COMMAND or step.nested != inside[:len(step.nested)]:
            continue
        said = _last_said(step.text)
        if said is not None:
            return said
    return quietly(os.environ.get("DEMOSH_QUIET_FAILURE", ""))


def _last_said(text: str) -> bool | None:
    """What a command's text last made of DEMOSH_QUIET_FAILURE: set (true or not), unset, or nothing."""
    if "DEMOSH_QUIET_FAILURE" not in text:
        return None
    found = [(m.start(), quietly(m.group(1))) for m in _QUIET.finditer(text)]
    found += [(m.start(), False) for m in _UNSET.finditer(text)]
    return max(found)[1] if found else None
