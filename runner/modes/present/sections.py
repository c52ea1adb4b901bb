"""The sections of a workshop, as `--from` and `g` name them: headings in walk order."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import DemorunError
from ...model import Plan, Visibility


@dataclass(frozen=True)
class Section:
    """A heading of the workshop and the step that starts it."""

    index: int
    title: str
    shown: bool  # in a SHOW part of the file


def sections(plan: Plan) -> list[Section]:
    """Every heading in order: where the section of a step changes is where its heading is."""
    found: list[Section] = []
    previous = None
    for index, step in enumerate(plan.steps):
        if step.section is not None and step.section != previous and step.visibility is not Visibility.SKIP:
            found.append(Section(index, step.section, step.visibility is Visibility.SHOW))
        previous = step.section
    return found


def same_title(plan: Plan, start: int, heading: str) -> list[str]:
    """What to tell the presenter when --from's section is not the only one of its title: where
    the others are, and that the show starts at this one."""
    chosen = next(s for s in sections(plan) if s.index == start)
    others = [s for s in sections(plan) if s.title == chosen.title and s.index != start]
    if not others:
        return []
    where = ", ".join(str(plan.steps[s.index].loc) for s in others)
    return [f"{plan.steps[start].loc}: --from {heading!r}: {len(others) + 1} sections are called "
            f"{chosen.title!r} (also {where}); the show starts at this one"]


def _normalised(title: str) -> str:
    return " ".join(re.sub(r"[`*_]", "", title).casefold().split())


def find_section(plan: Plan, heading: str) -> Section:
    """The section a presenter named: exactly (ignoring case and emphasis), else the only one containing it."""
    wanted = _normalised(heading)
    candidates = sections(plan)
    for matches in ([s for s in candidates if _normalised(s.title) == wanted],
                    [s for s in candidates if wanted and wanted in _normalised(s.title)]):
        shown = [s for s in matches if s.shown] or matches
        if len({s.title for s in shown}) == 1:
            return shown[0]
        if shown:
            names = ", ".join(repr(s.title) for s in shown[:6])
            raise DemorunError(f"{plan.file}: --from {heading!r} matches several sections: {names}")
    titles = [s.title for s in candidates if s.shown] or [s.title for s in candidates]
    listing = ", ".join(repr(t) for t in titles[:8]) + (", ..." if len(titles) > 8 else "")
    raise DemorunError(f"{plan.file}: --from {heading!r}: no such section"
                       + (f"; sections: {listing}" if listing else "; the file has no headings"))
