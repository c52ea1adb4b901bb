"""The one walk over a plan: what each step asks of a mode, and why a command does not run.

`run`, `check` and `present` all ask here, so a `@SKIP` section, an unset
`@ifhook` or a stopped run means the same in every mode.
"""
from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from ..model import Kind, Step, Visibility


class Action(Enum):
    """What a mode does with a step."""

    RUN = "run"  # a command: run it (shown or hidden, as its visibility says)
    HOOK = "hook"  # a @hook call: run $DEMO_HOOK_<var> if set
    SHOW = "show"  # prose, commentary or @print in a SHOW section
    PACE = "pace"  # @wait or @clear: a live show obeys them, in hidden parts too; unattended runs do not
    SKIP = "skip"  # nothing: skipped (commands get a SKIP result with the reason) or hidden text


def may_run(step: Step) -> bool:
    """A command outside @SKIP sections: it runs unless an @ifhook or a stop says otherwise."""
    return step.kind is Kind.COMMAND and step.visibility is not Visibility.SKIP


def skip_reason(step: Step, hooks_active: Callable[[Step], bool], stopped_by: str | None) -> str | None:
    """Why a step is not acted on: a stopped run, a @SKIP section, an unset @ifhook; None if it is."""
    if stopped_by is not None:
        return stopped_by
    if step.visibility is Visibility.SKIP:
        return f"{step.loc}: in a @SKIP section"
    if step.if_hooks and not hooks_active(step):
        return f"{step.loc}: @ifhook {', '.join(step.if_hooks)} not set"
    return None


def action_for(step: Step) -> Action:
    """What a step that is not skipped asks for."""
    if step.kind is Kind.COMMAND:
        return Action.RUN
    if step.kind is Kind.HOOK:
        return Action.HOOK
    if step.kind in (Kind.WAIT, Kind.CLEAR):
        return Action.PACE
    if step.kind is Kind.NOTE:  # read from the plan by the presenter's notes, never shown or run
        return Action.SKIP
    return Action.SHOW if step.visibility is Visibility.SHOW else Action.SKIP
