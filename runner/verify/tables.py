"""Tables (kubectl, docker, helm...): split into cells by column, match rows as an unordered set."""
from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass

from .values import Mismatch
from .volatile import VOLATILE_COLUMNS, Canon, shape, star_names

_WORD = r"[A-Z0-9_%/.()-]+(?:\([a-z]+\))?"
_TITLE = rf"(?=[^ ]*[A-Z]){_WORD}(?: {_WORD})*"
_HEADER = re.compile(rf" *{_TITLE}(?: {{2,}}{_TITLE})+")
_CHUNK = re.compile(r"\S+(?: \S+)*")
ELLIPSIS = "..."
MAX_DETAILS = 50


@dataclass(frozen=True)
class Table:
    """A header line and the rows under it, up to the next blank line."""

    titles: tuple[str, ...]
    starts: tuple[int, ...]  # column of each title in the header line
    rows: tuple[str, ...]


@dataclass(frozen=True)
class Text:
    lines: tuple[str, ...]


Segment = Table | Text


def is_header(line: str) -> bool:
    return _HEADER.fullmatch(line) is not None


def segments(lines: Sequence[str]) -> list[Segment]:
    """Cut normalised lines into tables and the text around them."""
    found: list[Segment] = []
    text: list[str] = []
    i = 0
    while i < len(lines):
        if is_header(lines[i]):
            if text:
                found.append(Text(tuple(text)))
                text = []
            chunks = list(_CHUNK.finditer(lines[i]))
            end = i + 1
            while end < len(lines) and lines[end].strip():
                end += 1
            found.append(Table(tuple(m.group() for m in chunks), tuple(m.start() for m in chunks),
                               tuple(lines[i + 1 : end])))
            i = end
        else:
            text.append(lines[i])
            i += 1
    if text:
        found.append(Text(tuple(text)))
    return found


def same_shape(a: Sequence[Segment], b: Sequence[Segment]) -> bool:
    """Both outputs hold the same tables (by columns) in the same order between text."""
    return len(a) == len(b) and all(
        type(x) is type(y) and (not isinstance(x, Table) or x.titles == y.titles) for x, y in zip(a, b)
    )


def cells(row: str, starts: Sequence[int]) -> tuple[str, ...]:
    """A row's cells: split on two or more spaces, placed by the header's columns when some are empty."""
    chunks = list(_CHUNK.finditer(row))
    if len(chunks) == len(starts):
        return tuple(m.group() for m in chunks)
    columns = [max(0, bisect_right(starts, m.start()) - 1) for m in chunks]
    if any(b < a for a, b in zip(columns, columns[1:])):
        return tuple(m.group() for m in chunks)
    placed = [""] * len(starts)
    for column, m in zip(columns, chunks):
        placed[column] = f"{placed[column]}  {m.group()}" if placed[column] else m.group()
    return tuple(placed)


def compare_table(expected: Table, actual: Table, canon: Canon,
                  volatile_columns: frozenset[str] = VOLATILE_COLUMNS) -> Mismatch | None:
    """Match rows as an unordered set; name each differing row and column."""
    volatile = tuple(title in volatile_columns for title in expected.titles)
    exp_raw = [r for r in expected.rows if r.strip() != ELLIPSIS]
    exp_rows = [cells(r, expected.starts) for r in exp_raw]
    act_rows = [cells(r, actual.starts) for r in actual.rows]
    extra_allowed = len(exp_rows) < len(expected.rows)
    keys = _keys(exp_rows + act_rows, canon, volatile)
    exp_keys, act_keys = keys[: len(exp_rows)], keys[len(exp_rows) :]

    by_key: dict[tuple[str, ...], deque[int]] = defaultdict(deque)
    for j, key in enumerate(act_keys):
        by_key[key].append(j)
    left_exp: list[int] = []
    wild: list[int] = []
    for i, key in enumerate(exp_keys):
        if ELLIPSIS in exp_raw[i]:
            wild.append(i)
        elif by_key.get(key):
            by_key[key].popleft()
        else:
            left_exp.append(i)
    left_act = sorted(j for js in by_key.values() for j in js)
    for i in wild:
        pattern = _row_pattern(exp_rows[i], canon, volatile)
        hit = next((j for j in left_act if pattern(act_keys[j])), None)
        if hit is None:
            left_exp.append(i)
        else:
            left_act.remove(hit)
    if extra_allowed:
        left_act = []
    if not left_exp and not left_act:
        return None
    return _report(expected.titles, exp_rows, act_rows, sorted(left_exp), left_act, exp_keys, act_keys)


def _keys(rows: Sequence[tuple[str, ...]], canon: Canon, volatile: Sequence[bool]) -> list[tuple[str, ...]]:
    """Each row as comparable cells: canonical, and only the shape in volatile columns."""
    flat = canon.all([cell for row in rows for cell in row])
    shapes: dict[str, str] = {}
    keys: list[tuple[str, ...]] = []
    k = 0
    for row in rows:
        n = len(row)
        cells_ = flat[k : k + n]
        for i, flag in enumerate(volatile[:n]):
            if flag:
                c = cells_[i]
                cells_[i] = shapes.get(c) or shapes.setdefault(c, shape(c))
        keys.append(tuple(cells_))
        k += n
    return keys


def _row_pattern(row: tuple[str, ...], canon: Canon, volatile: Sequence[bool]):
    """A predicate on canonical row keys for an expected row with `...` inside cells."""
    parts = []
    for i, cell in enumerate(row):
        pieces = canon.all(cell.split(ELLIPSIS))
        if i < len(volatile) and volatile[i]:
            pieces = [shape(p) for p in pieces]
        parts.append(re.compile(".*".join(map(re.escape, pieces)), re.DOTALL))
    return lambda key: len(key) == len(parts) and all(p.fullmatch(c) for p, c in zip(parts, key))


def _label_column(titles: Sequence[str]) -> tuple[int, int | None]:
    name = next((titles.index(t) for t in ("NAME", "NAMES") if t in titles), 0)
    namespace = titles.index("NAMESPACE") if "NAMESPACE" in titles else None
    return name, namespace


def _label(row: tuple[str, ...], titles: Sequence[str]) -> str:
    """How a reader names a row: its NAME or NAMES (with NAMESPACE/), generated suffixes as `*`."""
    name, namespace = _label_column(titles)
    label = star_names(row[name]) if name < len(row) else " ".join(row)
    if namespace is not None and namespace < len(row) and namespace != name:
        label = f"{row[namespace]}/{label}"
    return label or "(empty row)"


def _report(titles, exp_rows, act_rows, left_exp, left_act, exp_keys, act_keys) -> Mismatch:
    name, namespace = _label_column(titles)

    def identity(key: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(key[c] for c in (namespace, name) if c is not None and c < len(key))

    unpaired: dict[tuple[str, ...], deque[int]] = defaultdict(deque)
    for j in left_act:
        unpaired[identity(act_keys[j])].append(j)
    details: list[str] = []
    differ = missing = 0
    for i in left_exp:
        candidates = unpaired.get(identity(exp_keys[i]))
        if not candidates:
            missing += 1
            details.append(f"missing row {_label(exp_rows[i], titles)}")
            continue
        j = candidates.popleft()
        differ += 1
        details.extend(_cell_differences(titles, exp_rows[i], act_rows[j], exp_keys[i], act_keys[j]))
    unexpected = [j for js in unpaired.values() for j in js]
    details.extend(f"unexpected row {_label(act_rows[j], titles)}" for j in sorted(unexpected))
    parts = []
    if differ:
        parts.append(f"{differ} row{'s' if differ > 1 else ''} differ{'' if differ > 1 else 's'}")
    if missing:
        parts.append(f"{missing} missing row{'s' if missing > 1 else ''}")
    if unexpected:
        parts.append(f"{len(unexpected)} unexpected row{'s' if len(unexpected) > 1 else ''}")
    if len(details) > MAX_DETAILS:
        details[MAX_DETAILS:] = [f"... and {len(details) - MAX_DETAILS} more"]
    return Mismatch(", ".join(parts), tuple(details))


def _cell_differences(titles, exp_row, act_row, exp_key, act_key) -> list[str]:
    label = _label(exp_row, titles)
    out = []
    for c in range(max(len(exp_key), len(act_key))):
        want = exp_row[c] if c < len(exp_row) else ""
        got = act_row[c] if c < len(act_row) else ""
        if (exp_key[c] if c < len(exp_key) else "") != (act_key[c] if c < len(act_key) else ""):
            if ELLIPSIS in want:
                continue
            title = titles[c] if c < len(titles) else f"column {c + 1}"
            out.append(f"{label}: {title} expected {want or '(empty)'}, got {got or '(empty)'}")
    if not out:
        out.append(f"{label}: expected {'  '.join(exp_row)}, got {'  '.join(act_row)}")
    return out
