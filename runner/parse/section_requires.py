"""@requires of one section: which commands it covers.

A section runs from its heading to the next heading of its level or higher, as `--section`
takes it (runner/engine/sections.py), so a `## Deploy`'s @requires covers its `### Step 1`
too; and it covers the whole section wherever in it the @requires stands, commands above it
included, so a skipped section is skipped whole.
"""
from __future__ import annotations

import re

from ..model import Requirement, SourceLoc, Step

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")


def heading_level(text: str) -> int:
    """1 for `#` and `===`, 2 for `##` and `---`, ... of a heading's prose."""
    first, _, rest = text.partition("\n")
    m = _ATX.match(first)
    if m:
        return len(m.group(1))
    return 1 if rest.lstrip().startswith("=") else 2


class SectionRequires:
    """The open sections, innermost last: each one's level, first step and own @requires."""

    def __init__(self) -> None:
        self.open: list[tuple[int, int, tuple[Requirement, ...]]] = []

    def heading(self, level: int, at: int) -> None:
        """A heading of `level` opens a section at step `at`, closing those of its level or deeper."""
        while self.open and self.open[-1][0] >= level:
            self.open.pop()
        self.open.append((level, at, ()))

    def current(self) -> tuple[Requirement, ...]:
        """What the steps emitted now require: every open section's @requires, each tool once."""
        seen: dict[str, Requirement] = {}
        for _, _, own in self.open:
            for requirement in own:
                seen.setdefault(requirement.tool, requirement)
        return tuple(seen.values())

    def add(self, tools: list[str] | tuple[str, ...], loc: SourceLoc, steps: list[Step]) -> None:
        """@requires TOOLS in the innermost section: for it whole, the steps already emitted included."""
        if not self.open:
            return
        level, at, own = self.open[-1]
        known = {r.tool for r in own}
        added = tuple(Requirement(tool, loc) for tool in dict.fromkeys(tools) if tool not in known)
        self.open[-1] = (level, at, own + added)
        for index in range(at, len(steps)):
            have = {r.tool for r in steps[index].requires}
            more = tuple(r for r in added if r.tool not in have)
            if more:
                steps[index] = steps[index]._replace(requires=steps[index].requires + more)
