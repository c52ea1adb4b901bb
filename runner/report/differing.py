"""Where a failed command's output differs from its `##` block, for the HTML report to mark.

The verifier says what differs in words (`alpha: STATUS expected Running, got Pending`); the
report marks the value itself in the output. Each output line is paired with the `##` line it
is most like (tables are compared as sets of rows, so order is no guide), and the words that
differ between the two are marked; a line like none of the block's is marked whole. Where the
verdict names the value it got (`got Pending`), only that value is marked on its line: the other
words that differ there (an age, a restart count) are ones the verifier forgives.
"""
from __future__ import annotations

import re
from difflib import SequenceMatcher

_WORDS = re.compile(r"\S+")
_LIMIT = 200  # lines on either side past which nothing is marked: pairing is quadratic
_ALIKE = 0.5  # below this, a line is like no line of the block: marked whole
_GOT = re.compile(r"\bgot (.+?)(?:, |$)")  # the value a verdict's detail says it found


def differing_spans(expected: list[str], output: list[str],
                    details: tuple[str, ...] = ()) -> dict[int, list[tuple[int, int]]]:
    """{1-based output line: [(start, end), ...]} of the words that differ from the `##` block;
    `details` are the verdict's lines, whose `got X` narrow a line's marks to X."""
    if not expected or len(expected) > _LIMIT or len(output) > _LIMIT:
        return {}
    got = {m.group(1).strip() for detail in details for m in _GOT.finditer(detail)}
    unmatched = list(expected)
    spans: dict[int, list[tuple[int, int]]] = {}
    later = []
    for number, line in enumerate(output, 1):
        if line in unmatched:
            unmatched.remove(line)
        else:
            later.append((number, line))
    for number, line in later:
        if not line.strip():
            continue
        best = max(unmatched, key=lambda e: SequenceMatcher(None, e, line).ratio(), default=None)
        if best is None or SequenceMatcher(None, best, line).ratio() < _ALIKE:
            words = [(m.start(), m.end()) for m in _WORDS.finditer(line)]
            spans[number] = [(words[0][0], words[-1][1])]
            continue
        unmatched.remove(best)
        changed = _changed_words(best, line)
        named = [span for span in changed if line[span[0]:span[1]] in got]
        spans[number] = named or changed
    return {n: s for n, s in spans.items() if s}


def _changed_words(expected: str, actual: str) -> list[tuple[int, int]]:
    """The spans of `actual`'s words that are not in `expected` at the same place, one per word."""
    want = [m.group() for m in _WORDS.finditer(expected)]
    got = list(_WORDS.finditer(actual))
    spans = []
    for tag, _, _, j1, j2 in SequenceMatcher(None, want, [m.group() for m in got], autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            spans += [(m.start(), m.end()) for m in got[j1:j2]]
    return spans
