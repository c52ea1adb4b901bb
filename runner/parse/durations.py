"""Durations as workshops write them: `90s`, `5m`, `1h30m`, `500ms`, or bare seconds."""
from __future__ import annotations

import re

_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Seconds in `text`; ValueError with the text quoted when it is not a duration."""
    value = text.strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", value):
        seconds = float(value)
    else:
        parts = _PART.findall(value)
        if not parts or "".join(n + u for n, u in parts) != value:
            raise ValueError(f"not a duration: {text!r} (use e.g. 90s, 5m, 1h30m, 500ms)")
        seconds = sum(float(n) * _UNIT[u] for n, u in parts)
    if seconds <= 0:
        raise ValueError(f"duration must be positive: {text!r}")
    return seconds
