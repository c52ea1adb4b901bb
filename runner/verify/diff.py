"""Unified diffs of normalised lines, aligned on canonical keys so forgiven differences read as equal.

difflib's matcher is quadratic when every other line changed (each longest
match is one line long), so long inputs are first cut at lines that occur
once on each side and agree (patience diffing, as git does); only the short
gaps between those anchors go to difflib.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher

MAX_LINES = 200
_SMALL = 400_000  # a gap whose two sides multiply to more than this is shown as replaced, not searched

Opcode = tuple[str, int, int, int, int]


class Matcher(SequenceMatcher):
    """difflib's SequenceMatcher with opcodes found in near-linear time on long inputs."""

    def __init__(self, a: Sequence[str], b: Sequence[str]):
        super().__init__(None, a, b, autojunk=False)
        self._sides = a, b
        self._found: list[Opcode] | None = None

    def get_opcodes(self) -> list[Opcode]:  # type: ignore[override]  # difflib's tags, as plain strings
        if self._found is None:
            a, b = self._sides
            self._found = _merge(_opcodes(a, b, 0, len(a), 0, len(b)))
        return self._found


def _opcodes(a: Sequence[str], b: Sequence[str], a0: int, a1: int, b0: int, b1: int) -> list[Opcode]:
    out: list[Opcode] = []
    while a0 < a1 and b0 < b1 and a[a0] == b[b0]:
        out.append(("equal", a0, a0 + 1, b0, b0 + 1))
        a0, b0 = a0 + 1, b0 + 1
    tail: list[Opcode] = []
    while a0 < a1 and b0 < b1 and a[a1 - 1] == b[b1 - 1]:
        tail.append(("equal", a1 - 1, a1, b1 - 1, b1))
        a1, b1 = a1 - 1, b1 - 1
    if (a1 - a0) * (b1 - b0) <= _SMALL:
        out.extend((tag, i1 + a0, i2 + a0, j1 + b0, j2 + b0) for tag, i1, i2, j1, j2 in
                   SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False).get_opcodes() if i1 < i2 or j1 < j2)
    elif anchors := _anchors(a, b, a0, a1, b0, b1):
        for i, j in anchors:
            out.extend(_opcodes(a, b, a0, i, b0, j))
            out.append(("equal", i, i + 1, j, j + 1))
            a0, b0 = i + 1, j + 1
        out.extend(_opcodes(a, b, a0, a1, b0, b1))
    else:
        out.append(("replace" if a0 < a1 and b0 < b1 else "delete" if a0 < a1 else "insert", a0, a1, b0, b1))
    out.extend(reversed(tail))
    return out


def _anchors(a: Sequence[str], b: Sequence[str], a0: int, a1: int, b0: int, b1: int) -> list[tuple[int, int]]:
    """Lines unique on both sides, paired in an order both sides agree on (longest increasing run)."""
    once_a = Counter(a[a0:a1])
    once_b = Counter(b[b0:b1])
    where_b = {b[j]: j for j in range(b0, b1) if once_b[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(a0, a1) if once_a[a[i]] == 1 and a[i] in where_b]
    tails: list[int] = []  # smallest b index ending an increasing run of each length
    ends: list[int] = []
    back: list[int] = []
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(tails, j)
        back.append(ends[k - 1] if k else -1)
        if k == len(tails):
            tails.append(j)
            ends.append(n)
        else:
            tails[k], ends[k] = j, n
    chain, n = [], ends[-1] if ends else -1
    while n >= 0:
        chain.append(pairs[n])
        n = back[n]
    return chain[::-1]


def _merge(ops: list[Opcode]) -> list[Opcode]:
    """Adjacent opcodes of one kind as one, as difflib returns them."""
    out: list[Opcode] = []
    for tag, i1, i2, j1, j2 in ops:
        if out and out[-1][0] == tag and out[-1][2] == i1 and out[-1][4] == j1:
            out[-1] = (tag, out[-1][1], i2, out[-1][3], j2)
        elif out and tag != "equal" and out[-1][0] != "equal" and out[-1][2] == i1 and out[-1][4] == j1:
            out[-1] = ("replace", out[-1][1], i2, out[-1][3], j2)
        else:
            out.append((tag, i1, i2, j1, j2))
    return out


def unified(expected: Sequence[str], actual: Sequence[str], exp_keys: Sequence[str], act_keys: Sequence[str],
            *, context: int = 3, matcher: Matcher | None = None) -> tuple[tuple[str, ...], int, int]:
    """Diff lines showing the original text, plus how many expected lines went and actual lines came."""
    matcher = matcher or Matcher(exp_keys, act_keys)
    out = ["--- expected", "+++ actual"]
    removed = added = 0
    for group in matcher.get_grouped_opcodes(context):
        a0, a1, b0, b1 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(a0, a1)} +{_range(b0, b1)} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in expected[i1:i2])
                continue
            out.extend("-" + line for line in expected[i1:i2])
            out.extend("+" + line for line in actual[j1:j2])
            removed += i2 - i1
            added += j2 - j1
    if len(out) > MAX_LINES:
        out[MAX_LINES:] = [f"... and {len(out) - MAX_LINES} more diff lines"]
    return tuple(out), removed, added


def changed_pairs(matcher: Matcher, limit: int) -> list[tuple[int, int]]:
    """Expected and actual lines the diff shows replacing each other, paired in order, the first `limit`."""
    pairs = ((i1 + k, j1 + k) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag == "replace"
             for k in range(min(i2 - i1, j2 - j1)))
    return [pair for _, pair in zip(range(limit), pairs)]


def diff_line_kind(line: str) -> str:
    """What a line of a unified diff is, for whoever colours it: header, hunk, added, removed or ''."""
    if line.startswith(("+++", "---")):
        return "header"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "added"
    if line.startswith("-"):
        return "removed"
    return ""


def _range(start: int, stop: int) -> str:
    """A hunk range as `diff -u` writes it: 1-based start, and the length unless it is 1."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"
