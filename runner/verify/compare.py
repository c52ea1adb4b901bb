"""compare_output: one `##` block against real output, in the mode `@expect` chose (MATCHING.md)."""
from __future__ import annotations

from collections.abc import Sequence

from ..errors import ParseError
from .normalise import normalise
from .tables import Table, compare_table, same_shape, segments
from .text import (
    compare_contains,
    compare_exact,
    compare_text,
    compare_unordered,
    text_matches,
)
from .values import Mismatch, VerifyOptions
from .volatile import VOLATILE_COLUMNS, Canon, canon_for

MODES = ("auto", "exact", "contains", "unordered", "ignore")


def compare_output(expected: Sequence[str], actual: str, *, mode: str = "auto", masks: Sequence[str] = (),
                   options: VerifyOptions = VerifyOptions()) -> Mismatch | None:
    """None when `actual` matches the expected lines; else what differs."""
    if mode not in MODES:
        raise ParseError(f"unknown @expect mode {mode!r} (use one of {', '.join(MODES)})")
    if mode == "ignore":
        return None
    exp = normalise("\n".join(expected))
    act = normalise(actual)
    if exp == act:
        return None
    all_masks = tuple(regex for _, regex in options.masks) + tuple(masks)
    if mode == "exact":
        return compare_exact(exp, act, canon_for(all_masks, builtin=False))
    canon = canon_for(all_masks)
    if mode == "contains":
        return compare_contains(exp, act, canon)
    if mode == "unordered":
        return compare_unordered(exp, act, canon)
    return _compare_auto(exp, act, canon, VOLATILE_COLUMNS | frozenset(options.volatile_columns))


def _compare_auto(exp: list[str], act: list[str], canon: Canon,
                  volatile_columns: frozenset[str]) -> Mismatch | None:
    """Tables against tables and text against text; plain text matching as the fallback.

    Text matching in order is stricter than table matching, so when it passes
    (say a `...` line stands for a whole table) the output matches too.
    """
    exp_parts, act_parts = segments(exp), segments(act)
    if not any(isinstance(p, Table) for p in exp_parts + act_parts):
        return compare_text(exp, act, canon)
    if same_shape(exp_parts, act_parts):
        found = []
        for e, a in zip(exp_parts, act_parts):
            if isinstance(e, Table):
                found.append(compare_table(e, a, canon, volatile_columns))
            else:
                found.append(compare_text(e.lines, a.lines, canon))
        found = [m for m in found if m is not None]
        if not found:
            return None
        if text_matches(exp, act, canon):
            return None
        return Mismatch("; ".join(m.summary for m in found), tuple(d for m in found for d in m.details))
    text = compare_text(exp, act, canon)
    if text is None:
        return None
    exp_tables = [p.titles for p in exp_parts if isinstance(p, Table)]
    act_tables = [p.titles for p in act_parts if isinstance(p, Table)]
    if exp_tables and act_tables and exp_tables[0] != act_tables[0]:
        heading = f"table columns differ: expected {' '.join(exp_tables[0])}, got {' '.join(act_tables[0])}"
        return Mismatch(heading, text.details)
    return text
