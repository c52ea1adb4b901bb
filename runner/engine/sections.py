"""The sections of a workshop, as `--from`, `--to`, `--section` and present's `g` name them.

A section starts at its heading and runs to the next heading of the same or a higher level
(`## Install` holds its `### Step 1`). `run` and `check` narrow a plan to a range of them:
the commands before run hidden, as setup, and those after are left out.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import DemorunError
from ..model import Kind, Plan, SourceLoc, Step, Visibility

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")


@dataclass(frozen=True)
class Section:
    """A heading of the workshop and the step that starts it."""

    index: int
    title: str
    shown: bool  # in a SHOW part of the file
    level: int = 1  # 1 for `#` and `===`, 2 for `##` and `---`...


def _level(step: Step) -> int:
    first, _, rest = step.text.partition("\n")
    m = _ATX.match(first)
    if m:
        return len(m.group(1))
    return 1 if rest.lstrip().startswith("=") else 2


def sections(plan: Plan) -> list[Section]:
    """Every heading in order: where the section of a step changes is where its heading is."""
    found: list[Section] = []
    previous = None
    for index, step in enumerate(plan.steps):
        if step.section is not None and step.section != previous and step.visibility is not Visibility.SKIP:
            found.append(Section(index, step.section, step.visibility is Visibility.SHOW,
                                 _level(step) if step.kind is Kind.PROSE else 1))
        previous = step.section
    return found


def _normalised(title: str) -> str:
    return " ".join(re.sub(r"[`*_]", "", title).casefold().split())


def find_section(plan: Plan, heading: str, option: str = "--from") -> Section:
    """The section named: exactly (ignoring case and emphasis), else the only one containing it."""
    wanted = _normalised(heading)
    candidates = sections(plan)
    for matches in ([s for s in candidates if _normalised(s.title) == wanted],
                    [s for s in candidates if wanted and wanted in _normalised(s.title)]):
        shown = [s for s in matches if s.shown] or matches
        if len({s.title for s in shown}) == 1:
            return shown[0]
        if shown:
            names = ", ".join(repr(s.title) for s in shown[:6])
            raise DemorunError(f"{plan.file}: {option} {heading!r} matches several sections: {names}")
    titles = [s.title for s in candidates if s.shown] or [s.title for s in candidates]
    listing = ", ".join(repr(t) for t in titles[:8]) + (", ..." if len(titles) > 8 else "")
    raise DemorunError(f"{plan.file}: {option} {heading!r}: no such section"
                       + (f"; sections: {listing}" if listing else "; the file has no headings"))


def section_end(plan: Plan, section: Section) -> int:
    """The index past the last step of `section`: the next heading of its level or higher, else the end."""
    later = [s.index for s in sections(plan) if s.index > section.index and s.level <= section.level]
    return later[0] if later else len(plan.steps)


@dataclass(frozen=True)
class Narrowed:
    """A plan cut to the sections asked for: what runs as setup and what is left out."""

    plan: Plan
    setup: int  # commands run hidden before the first section asked for
    left_out: tuple[SourceLoc, ...]  # the commands after the last one, never run
    start: str | None
    stop: str | None


def narrow(plan: Plan, start: str | None = None, stop: str | None = None) -> Narrowed:
    """`plan` from section `start` to the end of section `stop` (either may be None: the file's edge).

    Steps before `start` stay, hidden and with their `##` blocks dropped (setup is run, not
    checked); steps after `stop` are cut from the plan."""
    alone = start is not None and start == stop  # --section
    first = find_section(plan, start, "--section" if alone else "--from").index if start else 0
    end = len(plan.steps)
    if stop:
        last = find_section(plan, stop, "--section" if alone else "--to")
        if last.index < first:
            raise DemorunError(f"{plan.file}: --to {stop!r} comes before --from {start!r}")
        end = section_end(plan, last)
    steps = list(plan.steps)
    setup = 0
    for index in range(first):
        step = steps[index]
        if step.kind is Kind.COMMAND and step.visibility is not Visibility.SKIP:
            setup += 1
        if step.visibility is Visibility.SHOW:
            steps[index] = step._replace(visibility=Visibility.HIDE, expected=None)
        elif step.expected is not None:
            steps[index] = step._replace(expected=None)
    left_out = tuple(s.loc for s in steps[end:] if s.kind is Kind.COMMAND and s.visibility is not Visibility.SKIP)
    return Narrowed(plan._replace(steps=tuple(steps[:end])), setup, left_out, start, stop)


def left_out_line(narrowed: Narrowed) -> str | None:
    """What the summary says of a narrowed run: the setup run hidden, the commands left out."""
    parts = []
    if narrowed.start:
        parts.append(f"{narrowed.setup} command{'s' if narrowed.setup != 1 else ''} before "
                     f"{narrowed.start!r} ran hidden as setup (output not compared)")
    if narrowed.left_out:
        count = len(narrowed.left_out)
        first, last = narrowed.left_out[0], narrowed.left_out[-1]
        span = str(first) if count == 1 else \
            f"{first} to {last}" if last.file != first.file else f"{first} to :{last.line}"
        parts.append(f"{count} command{'s' if count != 1 else ''} after {narrowed.stop!r} left out ({span})")
    return "; ".join(parts) or None
