"""The sections of a workshop, as `--from`, `--to`, `--section` and present's `g` name them.

A section starts at its heading and runs to the next heading of the same or a higher level
(`## Install` holds its `### Step 1`). `run` and `check` narrow a plan to a range of them:
the commands before run hidden, as setup, and those after are left out. Hidden setup follows
present's catch-up rule for commands that never end by themselves: one that only never ends
is skipped, one that ends in such a command is stopped at a short limit, as a success (when
it ends by itself first, its exit status is judged as usual).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import DemorunError
from ..model import Kind, Plan, SourceLoc, Step, Visibility
from ..parse.endless import never_ends
from ..parse.section_requires import heading_level
from ..results import Status, StepResult

SETUP_ENDLESS_LIMIT = 30.0  # seconds hidden setup lets a command run that ends in a never-ending one



@dataclass(frozen=True)
class Section:
    """A heading of the workshop and the step that starts it."""

    index: int
    title: str
    shown: bool  # in a SHOW part of the file
    level: int = 1  # 1 for `#` and `===`, 2 for `##` and `---`...


def sections(plan: Plan) -> list[Section]:
    """Every heading in order: where the section of a step changes is where its heading is."""
    found: list[Section] = []
    previous = None
    for index, step in enumerate(plan.steps):
        if step.section is not None and step.section != previous and step.visibility is not Visibility.SKIP:
            found.append(Section(index, step.section, step.visibility is Visibility.SHOW,
                                 heading_level(step.text) if step.kind is Kind.PROSE else 1))
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
    endless: tuple[tuple[SourceLoc, str], ...] = ()  # setup commands that only never end: not run
    first: int = 0  # the index of the first step asked for, in the narrowed plan


def _as_setup(step: Step, limit: float) -> tuple[Step | None, str | None]:
    """A command as hidden setup runs it: None (with why) when all it does is never end; stopped
    at `limit`, a success, when it ends in something that never ends and its author did not bound it
    (one that ends by itself first is judged by its exit status, as any setup command)."""
    if step.kind is not Kind.COMMAND or step.visibility is Visibility.SKIP:
        return step, None
    m = step.modifiers
    if m.stop_after is not None or m.wait_for or m.timeout is not None or m.retry:
        return step, None
    endless = never_ends(step.text)
    if endless is None:
        return step, None
    if endless.first:
        return None, endless.reason
    # Its @exit stays: only a command the limit stopped counts as a success (the session says so);
    # one that ended by itself, `ls /nowhere && tail -f log`, keeps its status.
    return step._replace(modifiers=m._replace(stop_after=limit)), None


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
    kept: list[Step] = []
    endless: list[tuple[SourceLoc, str]] = []
    for step in plan.steps[:first]:
        hidden, reason = _as_setup(step._replace(expected=None, visibility=Visibility.HIDE)
                                   if step.visibility is Visibility.SHOW else step._replace(expected=None),
                                   SETUP_ENDLESS_LIMIT)
        if hidden is None:
            endless.append((step.loc, reason or ""))
        else:
            kept.append(hidden)
    setup = sum(1 for s in kept if s.kind is Kind.COMMAND and s.visibility is not Visibility.SKIP)
    left_out = tuple(s.loc for s in plan.steps[end:] if s.kind is Kind.COMMAND and s.visibility is not Visibility.SKIP)
    steps = (*kept, *plan.steps[first:end])
    return Narrowed(plan._replace(steps=steps), setup, left_out, start, stop, tuple(endless), len(kept))


def _plural(count: int) -> str:
    return f"{count} command{'s' if count != 1 else ''}"


def left_out_line(narrowed: Narrowed, results: tuple[StepResult, ...] | list[StepResult] | None = None) -> str | None:
    """What the summary says of a narrowed run: the setup run hidden (of `results`, those that
    ran), the setup commands skipped as never ending, the commands left out."""
    parts = []
    if narrowed.start and narrowed.setup:
        ran = narrowed.setup if results is None else sum(
            1 for r in results if r.index < narrowed.first and r.step.kind is Kind.COMMAND
            and r.verdict.status is not Status.SKIP)
        said = _plural(ran) if ran == narrowed.setup else f"{ran} of the {_plural(narrowed.setup)}"
        parts.append(f"{said} before {narrowed.start!r} ran hidden as setup (output not compared)")
    if narrowed.endless:
        places = ", ".join(f"{loc} ({reason})" for loc, reason in narrowed.endless)
        one = len(narrowed.endless) == 1
        parts.append(f"setup skipped {_plural(len(narrowed.endless))} that never end{'s' if one else ''} "
                     f"by {'itself' if one else 'themselves'}: {places}")
    if narrowed.left_out:
        count = len(narrowed.left_out)
        first, last = narrowed.left_out[0], narrowed.left_out[-1]
        span = str(first) if count == 1 else \
            f"{first} to {last}" if last.file != first.file else f"{first} to :{last.line}"
        parts.append(f"{_plural(count)} after {narrowed.stop!r} left out ({span})")
    return "; ".join(parts) or None
