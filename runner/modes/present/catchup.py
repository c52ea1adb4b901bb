"""Catching up (`--from`, `g`): which commands never end by themselves, each one's limit, and what was cut.

Commands skipped over run hidden so that the shell is in the state the new section expects;
none of them may hang the show. A command that waits for keys or streams until stopped (a
`watch`, a follow, a port-forward, a dashboard) is skipped when that is all it does, and
stopped at the limit when it comes after something else (`kubectl apply ... && kubectl get
-w`); every other command gets the limit unless its author bounded it (`@timeout`,
`@retry`, `@stop-after`).
"""
from __future__ import annotations

from ...model import SourceLoc, Step
from ...parse.endless import Endless, never_ends

__all__ = ["DEFAULT_LIMIT", "Endless", "bounded", "never_ends", "summary"]

DEFAULT_LIMIT = 60.0  # seconds each command may take while catching up, unless configured


def bounded(step: Step, limit: float, endless: Endless | None) -> Step:
    """The command as catching up runs it: stopped at `limit` when it never ends (its status is then
    no failure), interrupted at `limit` otherwise, unless its author said how long it may take."""
    modifiers = step.modifiers
    if modifiers.timeout is not None or modifiers.retry or modifiers.stop_after is not None:
        return step
    if endless is not None:
        modifiers = modifiers._replace(stop_after=limit, exit=None)
    else:
        modifiers = modifiers._replace(timeout=limit)
    return step._replace(modifiers=modifiers)


def summary(todo: int, failed: int, skipped: list[tuple[SourceLoc, str]], cut: list[SourceLoc],
            limit: float) -> list[str]:
    """What the presenter learns once catching up is over: one message for each kind of cut."""
    said = []
    if skipped:
        places = ", ".join(f"{loc} ({reason})" for loc, reason in skipped)
        said.append(f"catching up skipped {_count(len(skipped))} that never end: {places}")
    if cut:
        said.append(f"catching up stopped {_count(len(cut))} at the {limit:g}s limit: "
                    + ", ".join(str(loc) for loc in cut))
    if failed:
        said.append(f"{failed} of {todo} earlier commands failed while catching up (d: the last)")
    return said


def _count(number: int) -> str:
    return f"{number} command{'' if number == 1 else 's'}"
