"""What the verifier's parts hand each other and its callers: options and mismatches."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VerifyOptions:
    """Project-wide additions to the built-in volatile rules, from configuration."""

    masks: tuple[tuple[str, str], ...] = ()  # extra (name, regex) treated as volatile
    volatile_columns: tuple[str, ...] = ()  # extra column titles that accept any value of the same shape


@dataclass(frozen=True)
class Mismatch:
    """Why real output does not match a `##` block: a one-line summary and the lines that show it."""

    summary: str
    details: tuple[str, ...] = ()
