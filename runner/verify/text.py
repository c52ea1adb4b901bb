"""Text output: lines in order with `...` standing for lines or for text within a line; other modes."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from .diff import unified
from .values import Mismatch
from .volatile import Canon

ELLIPSIS = "..."
_PADDING = re.compile(r"(?<=\S) {2,}(?=\S)")
_ANY_LINES = None  # matcher for a whole-line `...`

Matcher = str | re.Pattern[str] | None


def keys(lines: Sequence[str], canon: Canon, *, padding: bool = True) -> list[str]:
    """Canonical lines; runs of spaces between words count as one gap, indentation stays."""
    out = canon.all(lines)
    return [_PADDING.sub("  ", k) for k in out] if padding else out


def matchers(lines: Sequence[str], canon: Canon) -> list[Matcher]:
    """How each expected line matches: a key to equal, a pattern for `...` inside, or any lines."""
    out: list[Matcher] = list(keys(lines, canon))
    for i, line in enumerate(lines):
        if line.strip() == ELLIPSIS:
            out[i] = _ANY_LINES
        elif ELLIPSIS in line:
            pieces = keys(line.split(ELLIPSIS), canon)
            out[i] = re.compile(".*".join(map(re.escape, pieces)))
    return out


def hits(m: Matcher, key: str) -> bool:
    return m == key if isinstance(m, str) else m is not None and m.fullmatch(key) is not None


def in_order(ms: Sequence[Matcher], ks: Sequence[str]) -> bool:
    """Whether the keys match the matchers line by line, `...` taking zero or more lines.

    Wildcard matching with backtracking to the last `...` only: each run between
    two `...` is matched at its earliest place, which leaves the most for the rest.
    """
    i = j = 0
    star = mark = -1
    while j < len(ks):
        if i < len(ms) and ms[i] is not _ANY_LINES and hits(ms[i], ks[j]):
            i += 1
            j += 1
        elif i < len(ms) and ms[i] is _ANY_LINES:
            star, mark = i, j
            i += 1
        elif star >= 0:
            mark += 1
            i, j = star + 1, mark
        else:
            return False
    # Trailing blank lines were dropped from the output, so blank lines before a final `...` may go too.
    while i < len(ms) and (ms[i] is _ANY_LINES or ms[i] == ""):
        i += 1
    return i == len(ms)


def text_mismatch(expected: Sequence[str], actual: Sequence[str], ms: Sequence[Matcher],
                  act_keys: Sequence[str]) -> Mismatch:
    """A unified diff in which lines that match under the rules show as unchanged."""
    patterns = [(i, m) for i, m in enumerate(ms) if isinstance(m, re.Pattern)]
    exp_keys = [m if isinstance(m, str) else f"\x00{i}" for i, m in enumerate(ms)]
    aligned = [next((f"\x00{i}" for i, p in patterns if p.fullmatch(k)), k) for k in act_keys]
    diff, removed, added = unified(expected, actual, exp_keys, aligned)
    summary = _join(_count(removed, "expected line", "not seen"), _count(added, "unexpected line"))
    return Mismatch(summary or "text differs", diff)


def text_matches(expected: Sequence[str], actual: Sequence[str], canon: Canon) -> bool:
    return in_order(matchers(expected, canon), keys(actual, canon))


def compare_text(expected: Sequence[str], actual: Sequence[str], canon: Canon) -> Mismatch | None:
    ms = matchers(expected, canon)
    ks = keys(actual, canon)
    return None if in_order(ms, ks) else text_mismatch(expected, actual, ms, ks)


def compare_exact(expected: Sequence[str], actual: Sequence[str], canon: Canon) -> Mismatch | None:
    """Equal line by line; only masks forgive anything."""
    ek, ak = keys(expected, canon, padding=False), keys(actual, canon, padding=False)
    if ek == ak:
        return None
    diff, removed, added = unified(expected, actual, ek, ak)
    return Mismatch(_join(_count(removed, "expected line", "not seen"), _count(added, "unexpected line")), diff)


def compare_contains(expected: Sequence[str], actual: Sequence[str], canon: Canon) -> Mismatch | None:
    """Every expected line appears, in order, among the actual ones."""
    ms = matchers(expected, canon)
    ks = keys(actual, canon)
    j = 0
    lost = []
    for line, m in zip(expected, ms):
        if m is _ANY_LINES:
            continue
        k = next((k for k in range(j, len(ks)) if hits(m, ks[k])), None)
        if k is None:
            lost.append(f"not found in order: {line}")
        else:
            j = k + 1
    return Mismatch(_count(len(lost), "expected line", "not found"), tuple(lost)) if lost else None


def compare_unordered(expected: Sequence[str], actual: Sequence[str], canon: Canon) -> Mismatch | None:
    """The same lines in any order; a `...` line allows more."""
    ms = matchers(expected, canon)
    ks = keys(actual, canon)
    left = Counter(ks)
    missing: list[str] = []
    patterned: list[tuple[str, re.Pattern[str]]] = []
    for line, m in zip(expected, ms):
        if isinstance(m, str):
            if left[m] > 0:
                left[m] -= 1
            else:
                missing.append(line)
        elif m is not _ANY_LINES:
            patterned.append((line, m))
    for line, pattern in patterned:
        hit = next((k for k, n in left.items() if n > 0 and pattern.fullmatch(k)), None)
        if hit is None:
            missing.append(line)
        else:
            left[hit] -= 1
    extra_allowed = any(m is _ANY_LINES for m in ms)
    unexpected = [] if extra_allowed else [a for a, k in zip(actual, ks) if _take(left, k)]
    if not missing and not unexpected:
        return None
    details = tuple([f"missing line {line}" for line in missing] + [f"unexpected line {line}" for line in unexpected])
    summary = _join(_count(len(missing), "missing line"), _count(len(unexpected), "unexpected line"))
    return Mismatch(summary, details)


def _take(left: Counter, key: str) -> bool:
    if left[key] > 0:
        left[key] -= 1
        return True
    return False


def _count(n: int, noun: str, verb: str = "") -> str:
    """`2 expected lines not seen`; empty for zero, so parts can be joined."""
    if not n:
        return ""
    word = noun + ("s" if n > 1 else "")
    return f"{n} {word}{' ' + verb if verb else ''}"


def _join(*parts: str) -> str:
    return ", ".join(p for p in parts if p)
