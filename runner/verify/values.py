"""What the verifier's parts hand each other and its callers: options, mismatches and judgements."""
from __future__ import annotations

from dataclasses import dataclass

from ..results import Forgiven


@dataclass(frozen=True)
class VerifyOptions:
    """Project-wide additions to the built-in volatile rules, from configuration."""

    masks: tuple[tuple[str, str], ...] = ()  # extra (name, regex) treated as volatile
    volatile_columns: tuple[str, ...] = ()  # extra column titles that accept any value of the same shape
    # Whether to collect the values forgiven (Verdict.forgiven): only `check -v`, --html and --json
    # show them, and collecting cost a check of volatile tables a tenth of its time.
    collect_forgiven: bool = True


@dataclass(frozen=True)
class Mismatch:
    """Why real output does not match a `##` block: a one-line summary and the lines that show it."""

    summary: str
    details: tuple[str, ...] = ()


@dataclass(frozen=True)
class Judgement:
    """What differs (None: nothing that matters), and what differed but was forgiven."""

    mismatch: Mismatch | None
    forgiven: tuple[Forgiven, ...] = ()
