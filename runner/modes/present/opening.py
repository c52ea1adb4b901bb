"""The opening of a show: the text shown before the shell is up, and how a text step looks.

Kept apart from the live show (live.py) so that the first screen loads neither the session
nor the engine, and both start.py and live.py can use it.
"""
from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping

from ...model import Kind, Plan, Step, Visibility
from ...terminal.screen import Screen
from ...timings import Timings

# Steps the opening may show or pass over: none needs the shell (NOTE is the notes terminal's).
_TEXT = frozenset({Kind.PROSE, Kind.COMMENT, Kind.CLEAR, Kind.NOTE})
BRACED_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def braced(text: str, values: Mapping[str, str], file_follows: bool = False) -> str:
    """`${VAR}` as its value, as demosh displays commands, commentary and prose; `$VAR`, and a
    name with no value, stay as written. A fence written as a file is shown as the file gets
    it, nothing expanded: one whose info says `file=`, and the last one when `file_follows`
    (the step after the text writes it: `@file PATH` above the fence)."""
    if "${" not in text:
        return text
    if "file=" not in text and not file_follows:
        return _expanded(text, values)
    from ...parse.markdown import fences

    lines = text.split("\n")
    found = list(fences(lines))
    as_written: set[int] = set()  # the lines of fences written as files
    for k, (start, end, info) in enumerate(found):
        if "file=" in info[2] or file_follows and k == len(found) - 1:
            as_written.update(range(start, min(end, len(lines) - 1) + 1))
    return "\n".join(line if k in as_written else _expanded(line, values) for k, line in enumerate(lines))


def writes_file(plan: Plan, index: int) -> bool:
    """Whether the step at `index` writes a fence as a file (the fence is the text before it)."""
    return index < len(plan.steps) and plan.steps[index].kind is Kind.FILE


def _expanded(text: str, values: Mapping[str, str]) -> str:
    return BRACED_VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def _needs_the_shell(step: Step) -> bool:
    """Text naming a `${VAR}` the environment does not hold: its value may be the setup's."""
    return any(name not in os.environ for name in BRACED_VARIABLE.findall(step.text))


def opening(plan: Plan) -> int:
    """How many steps from the start can be shown before the shell is up.

    Text, and what passes over text, until the first step that needs the shell to be shown: a
    shown command, a hook, a wait, an @print, or text under an @ifhook (its variable is the
    shell's). Commands that are not shown (setup before the first @SHOW, @SKIP parts) show
    nothing, whatever they do: the show runs them once the shell is up, before anything that
    comes after the opening, so the audience reads the opening meanwhile. Decided as the engine
    decides (runner/engine/walk.py), which this must not import.
    """
    for index, step in enumerate(plan.steps):
        if step.kind is Kind.COMMAND and step.visibility is not Visibility.SHOW:
            continue
        if step.kind not in _TEXT or (step.if_hooks and step.visibility is not Visibility.SKIP):
            return index
        if step.visibility is Visibility.SHOW and step.kind in (Kind.PROSE, Kind.COMMENT) and _needs_the_shell(step):
            return index
    return len(plan.steps)


def show_opening(plan: Plan, screen: Screen, clock: Timings) -> int:
    """Show the opening's text (see `opening`); the index of the first step past the opening."""
    end = opening(plan)
    for index, step in enumerate(plan.steps[:end]):
        if step.visibility is Visibility.SKIP or step.kind in (Kind.NOTE, Kind.COMMAND):
            continue
        if step.kind is Kind.CLEAR:  # @clear acts in hidden parts too, as the engine has it
            clock.at(step)
            screen.clear()
        elif step.visibility is Visibility.SHOW:
            clock.at(step)
            show_text(screen, step, os.environ, writes_file(plan, index + 1))
    return end


def show_text(screen: Screen, step: Step, values: Mapping[str, str], file_follows: bool = False) -> None:
    """A prose or commentary step of a SHOW part, as the audience sees it: `values` are the
    variables its `${VAR}` show; `file_follows`: the next step writes this text's last fence."""
    text = braced(step.text, values, file_follows)
    if step.kind is Kind.PROSE:
        screen.width = columns()
        screen.blank_line()
        screen.prose(text)
        screen.blank_line()
    else:
        screen.comment(text)


def terminal_size() -> os.terminal_size:
    """The real terminal's size: a COLUMNS inherited from elsewhere must not shrink the show."""
    try:
        return os.get_terminal_size(sys.stdout.fileno())
    except (OSError, ValueError):
        import shutil  # here, not above: it brings bz2 and lzma, which the first screen need not wait for

        return shutil.get_terminal_size((80, 24))


def columns() -> int:
    return terminal_size().columns
