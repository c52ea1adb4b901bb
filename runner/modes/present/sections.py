"""The sections of a workshop, as `--from` and `g` name them: shared with run and check (runner/engine/sections.py)."""
from __future__ import annotations

from ...engine.sections import Section, find_section, sections

__all__ = ["Section", "find_section", "sections"]
