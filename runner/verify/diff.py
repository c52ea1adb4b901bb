"""Unified diffs of normalised lines, aligned on canonical keys so forgiven differences read as equal."""
from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

MAX_LINES = 200


def unified(expected: Sequence[str], actual: Sequence[str], exp_keys: Sequence[str], act_keys: Sequence[str],
            *, context: int = 3) -> tuple[tuple[str, ...], int, int]:
    """Diff lines showing the original text, plus how many expected lines went and actual lines came."""
    matcher = SequenceMatcher(None, exp_keys, act_keys, autojunk=len(exp_keys) + len(act_keys) > 20000)
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


def changed_pairs(exp_keys: Sequence[str], act_keys: Sequence[str]) -> list[tuple[int, int]]:
    """Expected and actual lines the diff shows replacing each other, paired in order."""
    matcher = SequenceMatcher(None, exp_keys, act_keys, autojunk=len(exp_keys) + len(act_keys) > 20000)
    return [(i1 + k, j1 + k) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag == "replace"
            for k in range(min(i2 - i1, j2 - j1))]


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
