"""The sections of a workshop, as `--from` and `g` name them: shared with run and check (runner/engine/sections.py)."""
from __future__ import annotations

from ...engine.sections import Section, find_section, sections
from ...model import Plan

__all__ = ["Section", "find_section", "same_title", "sections"]


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
