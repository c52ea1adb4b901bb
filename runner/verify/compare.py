"""compare_output: one `##` block against real output, in the comparison `@expect` chose (docs/matching.md)."""
from __future__ import annotations

import re
from collections.abc import Sequence

from ..errors import ParseError
from .data import compare_json, json_documents
from .forgiven import MAX_FORGIVEN, Forgiveness
from .normalise import normalise
from .roles import NO_PINS, Pins
from .rows import compare_table
from .tables import Segment, Table, Text, retitled, same_shape, segments
from .text import (
    compare_contains,
    compare_exact,
    compare_text,
    compare_unordered,
    text_matches,
)
from .values import Judgement, Mismatch, VerifyOptions
from .volatile import Canon, canon_for
from .wildcards import ELLIPSIS

EXPECT_KINDS = ("auto", "exact", "contains", "unordered", "ignore")  # what `@expect` may say
_DEFAULT = VerifyOptions()

# `kubectl rollout status` prints these while it waits, or not at all when the rollout was quick
# (kubectl before 1.10 said `Waiting for rollout to finish: ...` without naming the object).
_PROGRESS = re.compile(r" *Waiting for (?:(?:deployment|daemon set|statefulset|partitioned roll out"
                       r"|\d+ pods to be ready)\b|rollout to finish: )")


def compare_output(expected: Sequence[str], actual: str, *, expect: str = "auto", masks: Sequence[str] = (),
                   options: VerifyOptions = _DEFAULT, pins: Pins = NO_PINS) -> Mismatch | None:
    """None when `actual` matches the expected lines; else what differs."""
    return _judge(expected, actual, expect, masks, options, pins, None)


def judge_output(expected: Sequence[str], actual: str, *, expect: str = "auto", masks: Sequence[str] = (),
                 options: VerifyOptions = _DEFAULT, pins: Pins = NO_PINS, limit: int = MAX_FORGIVEN) -> Judgement:
    """What differs, as compare_output says, and the first `limit` values that differed but were forgiven
    (none when the options do not collect them)."""
    if not options.collect_forgiven:
        return Judgement(_judge(expected, actual, expect, masks, options, pins, None))
    forgiven = Forgiveness(limit)
    mismatch = _judge(expected, actual, expect, masks, options, pins, forgiven)
    return Judgement(mismatch, tuple(forgiven.found))


def _judge(expected: Sequence[str], actual: str, expect: str, masks: Sequence[str], options: VerifyOptions,
           pins: Pins, forgiven: Forgiveness | None) -> Mismatch | None:
    if expect not in EXPECT_KINDS:
        raise ParseError(f"unknown @expect {expect!r} (use one of {', '.join(EXPECT_KINDS)})")
    if expect == "ignore":
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
    names = tuple(name for name, _ in options.masks)
    all_masks = tuple(regex for _, regex in options.masks) + tuple(masks)
    if expect == "exact":
        return compare_exact(exp, act, canon_for(all_masks, builtin=False))
    canon = canon_for(all_masks, pins=pins, mask_names=names)
    exp_canon = canon_for(all_masks, loose=True, pins=pins, mask_names=names)
    tabbed = exp is not exp_tabs
    exp, _ = _without_progress(exp)
    act, where = _without_progress(act)
    if tabbed:
        exp_tabs, _ = _without_progress(exp_tabs)
        act_tabs, _ = _without_progress(act_tabs)
    else:
        exp_tabs, act_tabs = exp, act
    if expect == "contains":
        return compare_contains(exp, act, canon, exp_canon)
    if expect == "unordered":
        return compare_unordered(exp, act, canon, exp_canon)
    docs = json_documents(exp), json_documents(act)
    if docs[0] is not None and docs[1] is not None:
        try:
            found = compare_json(docs[0], docs[1], canon, exp_canon)
        except RecursionError:
            pass  # nested too deep to walk: compared as text below
        else:
            if found is not None:
                return found
            if forgiven is not None:  # the same data: where the lines also pair up, their values were forgiven
                compare_text(exp, act, canon, exp_canon, forgiven, where)
            return None
    columns = frozenset(options.volatile_columns)
    return _compare_auto(exp_tabs, act_tabs, exp, act, canon, exp_canon, columns, forgiven, where)


def _expanded(lines: list[str]) -> list[str]:
    return [line.expandtabs(8) if "\t" in line else line for line in lines]


def _without_progress(lines: list[str]) -> tuple[list[str], list[int]]:
    """The lines without rollout progress, and the index each kept line had."""
    if "Waiting for " not in "\n".join(lines):
        return lines, []
    kept = [i for i, line in enumerate(lines) if not _PROGRESS.match(line)]
    return [lines[i] for i in kept], kept


def _compare_auto(exp_tabs: list[str], act_tabs: list[str], exp: list[str], act: list[str], canon: Canon,
                  exp_canon: Canon, volatile_columns: frozenset[str], forgiven: Forgiveness | None,
                  where: Sequence[int]) -> Mismatch | None:
    """Tables against tables and text against text; plain text matching as the fallback.

    Where the expected lines have a `...` line, it may stand for a whole table:
    matching them as text in order is then enough.
    """
    exp_parts, act_parts = segments(exp_tabs), segments(act_tabs)
    if not any(isinstance(p, Table) for p in exp_parts + act_parts):
        return compare_text(exp, act, canon, exp_canon, forgiven, where)
    exp_parts = _read_alike(exp_parts, act_parts)
    if same_shape(exp_parts, act_parts):
        lines = where or range(len(act))
        found = []
        for e, a in zip(exp_parts, act_parts):
            if isinstance(e, Table) and isinstance(a, Table):
                found.append(compare_table(e, a, canon, volatile_columns, exp_canon, forgiven, lines))
            elif isinstance(e, Text) and isinstance(a, Text):
                found.append(compare_text(e.lines, a.lines, canon, exp_canon, forgiven,
                                          lines[a.first : a.first + len(a.lines)]))
        failed = [m for m in found if m is not None]
        if not failed:
            return None
        if any(line.strip() == ELLIPSIS for line in exp) and text_matches(exp, act, canon, exp_canon):
            return None
        return Mismatch("; ".join(m.summary for m in failed), tuple(d for m in failed for d in m.details))
    text = compare_text(exp, act, canon, exp_canon, forgiven, where)
    if text is None:
        return None
    exp_tables = [p.titles for p in exp_parts if isinstance(p, Table)]
    act_tables = [p.titles for p in act_parts if isinstance(p, Table)]
    if exp_tables and act_tables and exp_tables[0] != act_tables[0]:
        return Mismatch(f"table columns differ: {_columns(exp_tables[0], act_tables[0])}", text.details)
    return text


def _read_alike(exp_parts: list[Segment], act_parts: list[Segment]) -> list[Segment]:
    """Expected tables read with the real output's column titles where a TAB says where they part."""
    if len(exp_parts) != len(act_parts):
        return exp_parts
    out: list[Segment] = []
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
