"""compare_output: one `##` block against real output, in the mode `@expect` chose (docs/matching.md)."""
from __future__ import annotations

import re
from collections.abc import Sequence

from ..errors import ParseError
from .data import compare_json, json_documents
from .normalise import normalise
from .tables import Table, compare_table, retitled, same_shape, segments
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
_DEFAULT = VerifyOptions()

# `kubectl rollout status` prints these while it waits, or not at all when the rollout was quick.
_PROGRESS = re.compile(r" *Waiting for (?:deployment|daemon set|statefulset|partitioned roll out|\d+ pods to be ready)\b")


def compare_output(expected: Sequence[str], actual: str, *, mode: str = "auto", masks: Sequence[str] = (),
                   options: VerifyOptions = _DEFAULT) -> Mismatch | None:
    """None when `actual` matches the expected lines; else what differs."""
    if mode not in MODES:
        raise ParseError(f"unknown @expect mode {mode!r} (use one of {', '.join(MODES)})")
    if mode == "ignore":
        return None
    joined = "\n".join(expected)
    exp_tabs = normalise(joined, tabs=True)
    act_tabs = normalise(actual, tabs=True)
    if exp_tabs == act_tabs:
        return None
    if "\t" in joined or "\t" in actual:  # normalising never makes a TAB
        exp, act = _expanded(exp_tabs), _expanded(act_tabs)
        if exp == act:
            return None
    else:
        exp, act = exp_tabs, act_tabs
    all_masks = tuple(regex for _, regex in options.masks) + tuple(masks)
    if mode == "exact":
        return compare_exact(exp, act, canon_for(all_masks, builtin=False))
    canon = canon_for(all_masks)
    exp_canon = canon_for(all_masks, loose=True)
    tabbed = exp is not exp_tabs
    exp, act = _without_progress(exp), _without_progress(act)
    if tabbed:
        exp_tabs, act_tabs = _without_progress(exp_tabs), _without_progress(act_tabs)
    else:
        exp_tabs, act_tabs = exp, act
    if mode == "contains":
        return compare_contains(exp, act, canon, exp_canon)
    if mode == "unordered":
        return compare_unordered(exp, act, canon, exp_canon)
    docs = json_documents(exp), json_documents(act)
    if docs[0] is not None and docs[1] is not None:
        try:
            found = compare_json(docs[0], docs[1], canon, exp_canon)
        except RecursionError:
            pass  # nested too deep to walk: compared as text below
        else:
            return None if found is None or text_matches(exp, act, canon, exp_canon) else found
    return _compare_auto(exp_tabs, act_tabs, exp, act, canon, exp_canon,
                         VOLATILE_COLUMNS | frozenset(options.volatile_columns))


def _expanded(lines: list[str]) -> list[str]:
    return [line.expandtabs(8) if "\t" in line else line for line in lines]


def _without_progress(lines: list[str]) -> list[str]:
    if "Waiting for " not in "\n".join(lines):
        return lines
    return [line for line in lines if not _PROGRESS.match(line)]


def _compare_auto(exp_tabs: list[str], act_tabs: list[str], exp: list[str], act: list[str], canon: Canon,
                  exp_canon: Canon, volatile_columns: frozenset[str]) -> Mismatch | None:
    """Tables against tables and text against text; plain text matching as the fallback.

    Text matching in order is stricter than table matching, so when it passes
    (say a `...` line stands for a whole table) the output matches too.
    """
    exp_parts, act_parts = segments(exp_tabs), segments(act_tabs)
    if not any(isinstance(p, Table) for p in exp_parts + act_parts):
        return compare_text(exp, act, canon, exp_canon)
    exp_parts = _read_alike(exp_parts, act_parts)
    if same_shape(exp_parts, act_parts):
        found = []
        for e, a in zip(exp_parts, act_parts):
            if isinstance(e, Table):
                found.append(compare_table(e, a, canon, volatile_columns, exp_canon))
            else:
                found.append(compare_text(e.lines, a.lines, canon, exp_canon))
        found = [m for m in found if m is not None]
        if not found:
            return None
        if text_matches(exp, act, canon, exp_canon):
            return None
        return Mismatch("; ".join(m.summary for m in found), tuple(d for m in found for d in m.details))
    text = compare_text(exp, act, canon, exp_canon)
    if text is None:
        return None
    exp_tables = [p.titles for p in exp_parts if isinstance(p, Table)]
    act_tables = [p.titles for p in act_parts if isinstance(p, Table)]
    if exp_tables and act_tables and exp_tables[0] != act_tables[0]:
        return Mismatch(f"table columns differ: {_columns(exp_tables[0], act_tables[0])}", text.details)
    return text


def _read_alike(exp_parts: list, act_parts: list) -> list:
    """Expected tables read with the real output's column titles where a TAB says where they part."""
    if len(exp_parts) != len(act_parts):
        return exp_parts
    out = []
    for e, a in zip(exp_parts, act_parts):
        if isinstance(e, Table) and isinstance(a, Table) and e.titles != a.titles and "\t" in a.header + e.header:
            e = retitled(e, a.titles) or e
        out.append(e)
    return out


def _columns(expected: Sequence[str], actual: Sequence[str]) -> str:
    """The two headers as a reader can tell them apart, even when they read the same joined by spaces."""
    want, got = " ".join(expected), " ".join(actual)
    if want != got:
        return f"expected {want}, got {got}"
    return (f"expected {len(expected)} columns ({' | '.join(expected)}), got {len(actual)} ({' | '.join(actual)}),"
            " titles split at tabs or two or more spaces")
