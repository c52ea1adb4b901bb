"""`...` in expected output, matched without backtracking: within a line as a glob, as lines by segments.

`...` inside a line stands for any text: the pieces between the dots are
found left to right, each at its first place after the one before, which is
right for patterns whose only wildcard is `*` and takes time linear in the
line. A line that is only `...` stands for any lines: the lines between two
such `...` are found at their first place after the lines before them (by
KMP for plain lines, by bit-parallel Shift-And when some have `...` inside),
so matching is linear in the lines of the output.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

ELLIPSIS = "..."
# `...` inside a line stands for any text, except between two digits: `1839...0871` is an abbreviated serial.
WILDCARD = re.compile(r"(?<!\d)\.\.\.|\.\.\.(?!\d)")
# A backslash before a run of dots makes it text (`Checking config\... ok`); one backslash is removed when read.
_ESCAPED = r"\\+\.{3,}"
_TOKEN = re.compile(f"{_ESCAPED}|{WILDCARD.pattern}")
_RUN = re.compile(r"\\*\.{3,}")


def split(line: str) -> list[str]:
    """The text between the line's `...` wildcards, escaped dots read as text; one piece when it has none."""
    if ELLIPSIS not in line:
        return [line]
    pieces, at, text = [], 0, ""
    for m in _TOKEN.finditer(line):
        text += line[at : m.start()]
        if m.group().startswith("\\"):
            text += m.group()[1:]
        else:
            pieces.append(text)
            text = ""
        at = m.end()
    pieces.append(text + line[at:])
    return pieces


def wild(line: str) -> bool:
    """Whether `...` inside the line is a wildcard, not escaped dots or digits' abbreviation."""
    return len(split(line)) > 1


def unescape(line: str) -> str:
    """The line as text, escaped dots read as dots (its wildcards left as they are)."""
    return line if "\\." not in line else re.sub(_ESCAPED, lambda m: m.group()[1:], line)


def escape(line: str) -> str:
    """Output text written so it reads back as itself: dots that would be a wildcard, or follow a backslash, escaped."""
    if ELLIPSIS not in line:
        return line
    starts = {m.start() for m in WILDCARD.finditer(line)}

    def one(m: re.Match[str]) -> str:
        dots = m.group().lstrip("\\")
        first = m.end() - len(dots)
        if dots != m.group() or any(first <= s < m.end() for s in starts):
            return "\\" + m.group()
        return m.group()

    return _RUN.sub(one, line)


@dataclass(frozen=True)
class Glob:
    """A line with `...` inside: the canonical pieces around the dots, matched in order."""

    pieces: tuple[str, ...]  # two or more: before the first `...`, between, after the last
    literal: str | None = None  # the whole line read with its dots as text (a hex dump's `......`)

    def fullmatch(self, text: str) -> bool:
        if text == self.literal:
            return True
        first, *middle, last = self.pieces
        if len(text) < len(first) + len(last) or not text.startswith(first) or not text.endswith(last):
            return False
        at, stop = len(first), len(text) - len(last)
        for piece in middle:
            found = text.find(piece, at, stop)
            if found < 0:
                return False
            at = found + len(piece)
        return True


Matcher = str | Glob | None  # a line to equal, a glob, or None for a whole-line `...`
ANY_LINES = None


def hits(m: Matcher, key: str) -> bool:
    return m == key if isinstance(m, str) else m is not None and m.fullmatch(key)


def match_lines(ms: Sequence[Matcher], ks: Sequence[str]) -> list[tuple[int, int]] | None:
    """Which actual line each expected line matched, as (expected, actual) index pairs; None when they do not match.

    Trailing blank lines were dropped from the output, so blank lines before
    a final `...` may go too: they match blank lines past the end.
    """
    tail = len(ms)
    while tail and (ms[tail - 1] is ANY_LINES or ms[tail - 1] == ""):
        tail -= 1
    trailing = ms[tail:]
    blanks = trailing.count("")
    n = len(ks)
    if ANY_LINES not in trailing:  # the blanks the output kept must be matched by the last of those expected
        kept = 0
        while kept < n and ks[n - 1 - kept] == "":
            kept += 1
        blanks = max(0, blanks - kept)
    if blanks:
        ks = [*ks, *[""] * blanks]
    runs = _runs(ms)
    if len(runs) == 1:  # no `...` line: line by line
        first = runs[0]
        if len(first) != len(ks) or not all(hits(ms[i], k) for i, k in zip(first, ks)):
            return None
        return [(i, j) for j, i in enumerate(first) if j < n]
    pairs: list[tuple[int, int]] = []
    first, *middle, last = runs
    if len(first) + len(last) > len(ks) or not all(hits(ms[i], ks[j]) for j, i in enumerate(first)):
        return None
    stop = len(ks) - len(last)
    if not all(hits(ms[i], ks[stop + j]) for j, i in enumerate(last)):
        return None
    pairs += [(i, j) for j, i in enumerate(first)]
    at = len(first)
    for run in middle:
        found = _find([ms[i] for i in run], ks, at, stop)
        if found < 0:
            return None
        pairs += [(i, found + j) for j, i in enumerate(run)]
        at = found + len(run)
    pairs += [(i, stop + j) for j, i in enumerate(last)]
    return [(i, j) for i, j in pairs if j < n]


def _runs(ms: Sequence[Matcher]) -> list[list[int]]:
    """Indices of the matchers between whole-line `...`, one run per gap (runs may be empty)."""
    runs: list[list[int]] = [[]]
    for i, m in enumerate(ms):
        if m is ANY_LINES:
            runs.append([])
        else:
            runs[-1].append(i)
    return runs


def _find(run: Sequence[Matcher], ks: Sequence[str], start: int, stop: int) -> int:
    """The first index from `start` at which `run` matches ks, ending by `stop`; -1 if none."""
    if not run:
        return start
    if all(isinstance(m, str) for m in run):
        return _kmp(run, ks, start, stop)  # type: ignore[arg-type]
    return _shift_and(run, ks, start, stop)


def _kmp(run: Sequence[str], ks: Sequence[str], start: int, stop: int) -> int:
    size = len(run)
    fail = [0] * size
    k = 0
    for i in range(1, size):
        while k and run[i] != run[k]:
            k = fail[k - 1]
        if run[i] == run[k]:
            k += 1
        fail[i] = k
    q = 0
    for j in range(start, stop):
        key = ks[j]
        while q and run[q] != key:
            q = fail[q - 1]
        if run[q] == key:
            q += 1
            if q == size:
                return j - size + 1
    return -1


def _shift_and(run: Sequence[Matcher], ks: Sequence[str], start: int, stop: int) -> int:
    """Bit i of the state says the run's first i+1 matchers match the lines ending here."""
    by_key: dict[str, int] = {}
    globs: list[tuple[int, Glob]] = []
    for i, m in enumerate(run):
        if isinstance(m, Glob):
            globs.append((1 << i, m))
        else:
            by_key[str(m)] = by_key.get(str(m), 0) | 1 << i
    done = 1 << (len(run) - 1)
    state = 0
    for j in range(start, stop):
        key = ks[j]
        bits = by_key.get(key, 0)
        for bit, glob in globs:
            if glob.fullmatch(key):
                bits |= bit
        state = ((state << 1) | 1) & bits
        if state & done:
            return j - len(run) + 1
    return -1
