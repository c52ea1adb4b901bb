"""What command-line values mean, without click: durations, speeds, job counts, shards, tools.

click's parameter types (runner/cli.py) and the fast path that starts `present` and `lint`
before click loads (runner/launch.py) both convert with these, so a value reads the same
either way. Each raises ValueError with the reason.
"""
from __future__ import annotations

import math
import os
import re

from .parse.durations import parse_duration


def duration(text: str) -> float:
    """Seconds: `90s`, `5m`, `1h30m`, `500ms` or bare seconds."""
    return parse_duration(text)


def speed(text: str) -> float:
    """Characters a second for typing commands out: a positive, finite number."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number of characters a second") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{text!r}: must be a positive number of characters a second")
    return value


def jobs(text: str) -> int:
    """How many files to check at once: 1 or more, or `auto` for one per core."""
    if text == "auto":
        return cpu_count()
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"expected a number of processes (1 or more) or 'auto', got {text!r}")
    return int(text)


def shard(text: str) -> tuple[int, int]:
    """K/N as (K, N) with 1 <= K <= N."""
    match = re.fullmatch(r"\s*(\d{1,9})\s*/\s*(\d{1,9})\s*", text)
    if not match:
        raise ValueError(f"expected K/N like 2/3, got {text!r}")
    k, n = int(match.group(1)), int(match.group(2))
    if n < 1 or not 1 <= k <= n:
        raise ValueError(f"{text!r}: K must be between 1 and N, and N at least 1")
    return k, n


def tools(values: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Tool names from repeated, comma- or space-separated `--requires` values, each once."""
    return tuple(dict.fromkeys(t for value in values for t in value.replace(",", " ").split()))


def cpu_count() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)
