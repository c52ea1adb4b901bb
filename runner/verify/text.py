"""Text output: lines in order with `...` standing for lines or for text within a line; the other comparisons."""
from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from .diff import Matcher as LineMatcher
from .diff import changed_pairs, unified
from .forgiven import Forgiveness
from .kinds import describe
from .structure import declared_lines
from .values import Mismatch
from .volatile import Canon
from .wildcards import ANY_LINES, ELLIPSIS, Glob, Matcher, match_lines, split, unescape

_PADDING = re.compile(r"(?<=\S) {2,}(?=\S)")
MAX_NOTES = 10
MAX_TOKENS = 300
_MAPPED = 1_000_000  # patterned lines times output lines past which a failure's diff does not map them


def keys(lines: Sequence[str], canon: Canon, *, padding: bool = True) -> list[str]:
    """Canonical lines; runs of spaces between words count as one gap, indentation stays."""
    out = canon.all(lines)
    declared = declared_lines(lines)
    if declared:
        strict = canon.declared()
        for i in declared:
            out[i] = strict.one(lines[i])
    return [_PADDING.sub("  ", k) for k in out] if padding else out


def matchers(lines: Sequence[str], canon: Canon) -> list[Matcher]:
    """How each expected line matches: a key to equal, a glob for `...` inside, or any lines."""
    literal = keys([unescape(line) for line in lines], canon)
    out: list[Matcher] = list(literal)
    for i, line in enumerate(lines):
        if line.strip() == ELLIPSIS:
            out[i] = ANY_LINES
        elif ELLIPSIS in line and len(pieces := split(line)) > 1:
            out[i] = Glob(tuple(keys(pieces, canon)), literal[i])
    return out


def _indent(lines: Sequence[str], skip_dots: bool) -> int:
    found = [len(line) - len(line.lstrip(" ")) for line in lines
             if line.strip() and not (skip_dots and line.strip() == ELLIPSIS)]
    return min(found, default=0)


def shifted(expected: Sequence[str], actual: Sequence[str]) -> tuple[list[str], list[str]] | None:
    """Both sides without the indentation every line of each shares, when that differs.

    Files written for demosh often paste `##` plus the output's own
    indentation; a shift shared by a whole block is not a difference, a
    change in how lines indent against each other is.
    """
    e, a = _indent(expected, True), _indent(actual, False)
    if e == a:
        return None
    return [line[e:] if line.strip() != ELLIPSIS else line for line in expected], [line[a:] for line in actual]


@dataclass(frozen=True)
class Alignment:
    """Keys under which an expected line and an actual line are equal exactly when they match by the rules.

    The verifier diffs these to show a failure, and `--update` diffs the same
    keys to decide which of the author's lines to keep, so what a reader sees is what decided.
    """

    expected: list[str]
    actual: list[str]
    matches: bool  # the verdict of matching in order under these keys
    pairs: tuple[tuple[int, int], ...] = ()  # when it matches: (expected, actual) index of each line matched


def align(expected: Sequence[str], actual: Sequence[str], canon: Canon, exp_canon: Canon | None = None,
          *, exact: bool = False) -> Alignment:
    """The keys that decide whether `actual` matches `expected` in order, and that diff them."""
    if exact:
        ek, ak = keys(expected, canon, padding=False), keys(actual, canon, padding=False)
        return Alignment(ek, ak, ek == ak, tuple(enumerate(range(len(ak)))) if ek == ak else ())
    exp_canon = exp_canon or canon
    ms, ks = matchers(expected, exp_canon), keys(actual, canon)
    pairs = match_lines(ms, ks)
    if pairs is None and (moved := shifted(expected, actual)) is not None:
        ms, ks = matchers(moved[0], exp_canon), keys(moved[1], canon)
        pairs = match_lines(ms, ks)
    globs = [(i, m) for i, m in enumerate(ms) if isinstance(m, Glob)]
    exp_keys = [m if isinstance(m, str) else f"\x00{i}" for i, m in enumerate(ms)]
    act_keys = ks
    if globs and pairs is not None:
        act_keys = list(ks)
        for i, j in pairs:
            if isinstance(ms[i], Glob):
                act_keys[j] = exp_keys[i]
    elif globs and len(globs) * len(ks) <= _MAPPED:
        act_keys = [next((f"\x00{i}" for i, g in globs if g.fullmatch(k)), k) for k in ks]
    return Alignment(exp_keys, act_keys, pairs is not None, tuple(pairs or ()))


def text_mismatch(expected: Sequence[str], actual: Sequence[str], aligned: Alignment, canon: Canon,
                  exp_canon: Canon) -> Mismatch:
    """A unified diff in which lines that match under the rules show as unchanged, then the words that differ."""
    matcher = LineMatcher(aligned.expected, aligned.actual)
    diff, removed, added = unified(expected, actual, aligned.expected, aligned.actual, matcher=matcher)
    notes = [note for i, j in changed_pairs(matcher, MAX_NOTES)
             if (note := word_change(i, expected[i], actual[j], canon, exp_canon))]
    summary = _join(_count(removed, "expected line", "not seen"), _count(added, "unexpected line"))
    return Mismatch(summary or "text differs", (*diff, *notes))


def text_matches(expected: Sequence[str], actual: Sequence[str], canon: Canon, exp_canon: Canon | None = None) -> bool:
    return align(expected, actual, canon, exp_canon).matches


def compare_text(expected: Sequence[str], actual: Sequence[str], canon: Canon, exp_canon: Canon | None = None,
                 forgiven: Forgiveness | None = None, where: Sequence[int] = ()) -> Mismatch | None:
    """None when the lines match in order; else a diff. `forgiven` collects what matched only by the rules.

    `where` gives the output line number of each actual line (their indices when empty).
    """
    exp_canon = exp_canon or canon
    aligned = align(expected, actual, canon, exp_canon)
    if not aligned.matches:
        return text_mismatch(expected, actual, aligned, canon, exp_canon)
    if forgiven is not None:
        for i, j in aligned.pairs:
            if expected[i] != actual[j]:
                forgiven.line(expected[i], actual[j], where[j] if where else j, canon, exp_canon)
    return None


_TOKEN = re.compile(r"\S+")


def word_change(index: int, expected: str, actual: str, canon: Canon, exp_canon: Canon) -> str:
    """`line 2: expected ERROR, got INFO`: the words of a changed line that made it differ, forgiven parts left out."""
    ek, ak = exp_canon.one(expected), canon.one(actual)
    e_tokens, a_tokens = _TOKEN.findall(ek), _TOKEN.findall(ak)
    if len(e_tokens) * len(a_tokens) > MAX_TOKENS ** 2:
        return ""  # a line of thousands of words: the diff above says enough
    e_shown = _shown(expected, e_tokens)
    a_shown = _shown(actual, a_tokens)
    changed = [op for op in SequenceMatcher(None, e_tokens, a_tokens, autojunk=False).get_opcodes()
               if op[0] != "equal"]
    if changed:
        # One span from the first change to the last, so a reader sees the words in their place.
        i1, i2, j1, j2 = changed[0][1], changed[-1][2], changed[0][3], changed[-1][4]
        want = " ".join(e_shown[i1:i2]) or "(nothing)"
        got = " ".join(a_shown[j1:j2]) or "(nothing)"
        return f"line {index + 1}: expected {want}, got {got}"
    if (expected.strip() == actual.strip() or ek.strip() == ak.strip()) and \
            len(expected) - len(expected.lstrip()) != len(actual) - len(actual.lstrip()):
        return f"line {index + 1}: indentation differs"
    return ""


def _shown(line: str, canonical_tokens: Sequence[str]) -> list[str]:
    """The tokens as printed when they line up one to one with the canonical ones, else the canonical ones named."""
    tokens = _TOKEN.findall(line)
    if len(tokens) == len(canonical_tokens):
        return tokens
    return [describe(t) for t in canonical_tokens]


def compare_exact(expected: Sequence[str], actual: Sequence[str], canon: Canon) -> Mismatch | None:
    """Equal line by line; only masks forgive anything."""
    aligned = align(expected, actual, canon, exact=True)
    if aligned.matches:
        return None
    diff, removed, added = unified(expected, actual, aligned.expected, aligned.actual)
    return Mismatch(_join(_count(removed, "expected line", "not seen"), _count(added, "unexpected line")), diff)


def compare_contains(expected: Sequence[str], actual: Sequence[str], canon: Canon,
                     exp_canon: Canon | None = None) -> Mismatch | None:
    """Every expected line appears, in order, among the actual ones."""
    ms = matchers(expected, exp_canon or canon)
    ks = keys(actual, canon)
    where: dict[str, list[int]] = {}
    for at, key in enumerate(ks):
        where.setdefault(key, []).append(at)
    j = 0
    lost: list[str] = []
    for line, m in zip(expected, ms):
        found: int | None
        if m is ANY_LINES:
            continue
        if isinstance(m, str):  # the next place of an exact line is looked up, so lost lines cost no scan
            places = where.get(m, [])
            at = bisect_left(places, j)
            found = places[at] if at < len(places) else None
        else:
            found = next((k for k in range(j, len(ks)) if m.fullmatch(ks[k])), None)
        if found is None:
            lost.append(f"not found in order: {line}")
        else:
            j = found + 1
    return Mismatch(_count(len(lost), "expected line", "not found"), tuple(lost)) if lost else None


def compare_unordered(expected: Sequence[str], actual: Sequence[str], canon: Canon,
                      exp_canon: Canon | None = None) -> Mismatch | None:
    """The same lines in any order; a `...` line allows more."""
    ms = matchers(expected, exp_canon or canon)
    ks = keys(actual, canon)
    left = Counter(ks)
    missing: list[str] = []
    patterned: list[tuple[str, Glob]] = []
    for line, m in zip(expected, ms):
        if isinstance(m, str):
            if left[m] > 0:
                left[m] -= 1
            else:
                missing.append(line)
        elif m is not ANY_LINES:
            patterned.append((line, m))
    for line, pattern in patterned:
        hit = next((k for k, n in left.items() if n > 0 and pattern.fullmatch(k)), None)
        if hit is None:
            missing.append(line)
        else:
            left[hit] -= 1
    extra_allowed = any(m is ANY_LINES for m in ms)
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
