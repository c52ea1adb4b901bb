"""A workshop file into its Plan, and the findings that stop a run before it starts."""
from __future__ import annotations

from ..model import Finding, Plan
from .builder import build_plan
from .source import read_source

# What leaves no plan worth running: a runaway or hostile file, cut short. Every other
# error is lint's to report; run, present and check warn and go on, as demosh would.
BLOCKING = frozenset({"too-many-steps", "too-much-work", "too-much-text", "too-deep", "directive-too-long",
                      "file-outside-workshop"})


def blocking_findings(plan: Plan) -> tuple[Finding, ...]:
    """The findings that stop run, present and check before anything runs."""
    return tuple(f for f in plan.errors if f.code in BLOCKING)


def parse_workshop(path: str, *, no_init: bool = False, home: str | None = None) -> Plan:
    """The plan of the workshop at `path`; ParseError only when that file cannot be read.

    `home` stands for `~` when looking for the init files `.demoshrc` and `.demoshrc.md`.
    """
    return build_plan(path, read_source(path), no_init=no_init, home=home)


def parse_text(text: str, file: str, *, no_init: bool = True, home: str | None = None) -> Plan:
    """The plan of workshop text as if read from `file` (imports resolve next to it)."""
    return build_plan(file, text, no_init=no_init, home=home)
