"""Tables (kubectl, docker, helm, describe's Events...): cells by column, rows matched as an unordered set.

Rows are keyed by one canonical string each, built row by row, so a table of
100,000 rows costs one pass and no per-cell objects are kept; cells are split
again only for the few rows a message names.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise, repeat

from .text import WILDCARD
from .values import Mismatch
from .volatile import VOLATILE_COLUMNS, Canon, shape, star_names

_WORD = r"[A-Z0-9_%/.()-]+(?:\([a-z]+\))?"
_TITLE = rf"(?=[^ ]*[A-Z]){_WORD}(?: {_WORD})*"
_HEADER = re.compile(rf" *{_TITLE}(?: {{2,}}{_TITLE})+")
_TAB_TITLE = re.compile(_TITLE)
# `describe` prints mixed-case titles with a rule of dashes under them (`Type  Reason  Age`).
_MIXED_TITLE = r"[A-Z][A-Za-z0-9_%/.()-]*(?: [A-Za-z0-9_%/.()-]+)*"
_MIXED_HEADER = re.compile(rf" *{_MIXED_TITLE}(?: {{2,}}{_MIXED_TITLE})+")
_RULE = re.compile(r" *-+(?: {2,}-+)+")
_CHUNK = re.compile(r"\S+(?: \S+)*")
_GAP = re.compile(r"  +")  # two or more spaces; a literal first space lets the regex engine skip to it
_LEADING = re.compile(r"^ +", re.MULTILINE)
_TAB_GAP = re.compile(r" *\t[ \t]*")
ELLIPSIS = "..."
MAX_DETAILS = 50
SEP = "\x1f"  # between the cells of a row key; normalised output holds no control characters

# Event tables: what happened names a row; when it last happened, and how often, does not.
EVENT_COLUMNS = frozenset({"TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "FROM", "MESSAGE"})


@dataclass(frozen=True)
class Table:
    """A header line and the rows under it, up to the next blank line."""

    titles: tuple[str, ...]
    starts: tuple[int, ...]  # column of each title in the header line, tabs expanded
    rows: tuple[str, ...]
    header: str = ""  # the header line as printed, to read it again with another table's titles
    rule: str | None = None  # describe's line of dashes under the titles

    @property
    def events(self) -> bool:
        return _events(self.titles)


@dataclass(frozen=True)
class Text:
    lines: tuple[str, ...]


Segment = Table | Text


def _events(titles: Sequence[str]) -> bool:
    return {"TYPE", "REASON", "MESSAGE"} <= {t.upper() for t in titles}


def _titles(line: str) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """The column titles of a header line and where they start, or None when it is not one."""
    # A workshop prints the same few headers again and again; long lines are read afresh, not kept.
    return _known_titles(line) if len(line) <= 1024 else _read_titles(line)


def _read_titles(line: str) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    if "\t" in line:
        pieces = [p.strip() for p in line.split("\t")]
        if len(pieces) < 2 or not all(_TAB_TITLE.fullmatch(p) for p in pieces):
            return None
        return _placed(line.expandtabs(8), pieces)
    if _HEADER.fullmatch(line) is None:
        return None
    chunks = list(_CHUNK.finditer(line))
    return tuple(m.group() for m in chunks), tuple(m.start() for m in chunks)


_known_titles = lru_cache(maxsize=1024)(_read_titles)


def _placed(line: str, titles: Sequence[str]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    starts, at = [], 0
    for title in titles:
        at = line.find(title, at)
        starts.append(at)
        at += len(title)
    return tuple(titles), tuple(starts)


def is_header(line: str) -> bool:
    return _titles(line) is not None


def _ruled(lines: Sequence[str], i: int) -> bool:
    """A `describe` header: mixed-case titles over a rule of dashes starting in the same columns."""
    if i + 1 >= len(lines) or _MIXED_HEADER.fullmatch(lines[i]) is None or _RULE.fullmatch(lines[i + 1]) is None:
        return False
    return [m.start() for m in _CHUNK.finditer(lines[i])] == [m.start() for m in _CHUNK.finditer(lines[i + 1])]


def segments(lines: Sequence[str]) -> list[Segment]:
    """Cut normalised lines (tabs kept) into tables and the text around them (tabs expanded)."""
    found: list[Segment] = []
    text: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        titled = _titles(line)
        rule = None
        if titled is None and _ruled(lines, i):
            chunks = list(_CHUNK.finditer(line))
            titled = tuple(m.group() for m in chunks), tuple(m.start() for m in chunks)
            rule = lines[i + 1]
        if titled is None:
            text.append(line.expandtabs(8) if "\t" in line else line)
            i += 1
            continue
        if text:
            found.append(Text(tuple(text)))
            text = []
        first = i + (2 if rule is not None else 1)
        try:  # normalised lines: a blank one is empty
            end = lines.index("", first)
        except ValueError:
            end = len(lines)
        found.append(Table(titled[0], titled[1], tuple(lines[first:end]), line, rule))
        i = end
    if text:
        found.append(Text(tuple(text)))
    return found


def retitled(table: Table, titles: Sequence[str]) -> Table | None:
    """The table read with another table's column titles, when its header line says the same.

    A pasted copy of a TAB-separated table can have one space where a tab
    was, which joins two titles; the real output's tabs say where they part.
    """
    if table.titles == tuple(titles):
        return table
    header = table.header.expandtabs(8)
    pattern = " *" + " +".join("(" + re.escape(t) + ")" for t in titles)
    m = re.fullmatch(pattern, header)
    if m is None:
        return None
    return Table(tuple(titles), tuple(m.start(k + 1) for k in range(len(titles))), table.rows, table.header,
                 table.rule)


def same_shape(a: Sequence[Segment], b: Sequence[Segment]) -> bool:
    """Both outputs hold the same tables (by columns) in the same order between text."""
    return len(a) == len(b) and all(
        type(x) is type(y) and (not isinstance(x, Table) or x.titles == y.titles) for x, y in zip(a, b)
    )


def cells(row: str, starts: Sequence[int]) -> tuple[str, ...]:
    """A row's cells: split on TABs or two or more spaces, placed by the header's columns when some are missing.

    A chunk that runs over the start of the next column where a single space
    stands (a pasted tab) is cut there.
    """
    if "\t" in row:
        pieces = _TAB_GAP.split(row.strip())
        # Trailing empty cells went with the trailing spaces.
        return (*pieces, *[""] * (len(starts) - len(pieces)))
    stripped = row.lstrip()
    pieces = _GAP.split(stripped)
    if len(pieces) == len(starts):
        return tuple(pieces)
    chunks = [(m.start(), m.group()) for m in _CHUNK.finditer(row)]
    chunks = [piece for start, chunk in chunks for piece in _cut(start, chunk, starts)]
    if len(chunks) == len(starts):
        return tuple(chunk for _, chunk in chunks)
    columns = [max(0, bisect_right(starts, start) - 1) for start, _ in chunks]
    if any(b < a for a, b in pairwise(columns)):
        return tuple(chunk for _, chunk in chunks)
    placed = [""] * len(starts)
    for column, (_, chunk) in zip(columns, chunks):
        placed[column] = f"{placed[column]}  {chunk}" if placed[column] else chunk
    return tuple(placed)


def _cut(start: int, chunk: str, starts: Sequence[int]) -> Iterator[tuple[int, str]]:
    end = start + len(chunk)
    for column in starts:
        if start < column < end and chunk[column - start - 1] == " " and chunk[column - start] != " ":
            yield start, chunk[: column - start - 1]
            chunk, start = chunk[column - start :], column
    yield start, chunk


def compare_table(expected: Table, actual: Table, canon: Canon,
                  volatile_columns: frozenset[str] = VOLATILE_COLUMNS, exp_canon: Canon | None = None) -> Mismatch | None:
    """Match rows as an unordered set; name each differing row and column.

    `exp_canon` reads the expected side (it also takes names an author typed by hand).
    """
    exp_canon = exp_canon or canon
    kinds = _column_kinds(expected.titles, volatile_columns)
    dotted = ELLIPSIS in "\n".join(expected.rows)
    exp_raw = [r for r in expected.rows if r.strip() != ELLIPSIS] if dotted else expected.rows
    extra_allowed = len(exp_raw) < len(expected.rows)
    exp_keys = row_keys(exp_raw, expected.starts, exp_canon, kinds)
    act_keys = row_keys(actual.rows, actual.starts, canon, kinds)

    # Counts, not lists of rows: which actual rows are left over is found again only when some are.
    by_key = Counter(act_keys)
    if not dotted and dict.__eq__(by_key, Counter(exp_keys)):  # Counter's own == is a loop in Python
        return None
    left_exp: list[int] = []
    wild: list[int] = []
    for i, key in enumerate(exp_keys):
        if dotted and ELLIPSIS in exp_raw[i] and WILDCARD.search(exp_raw[i]):
            wild.append(i)
        elif by_key.get(key):
            by_key[key] -= 1
        else:
            left_exp.append(i)
    del by_key
    taken = set()
    if wild:
        left = _left_over(act_keys, exp_keys, left_exp, wild)
        for i in wild:
            pattern = _row_pattern(cells(exp_raw[i], expected.starts), exp_canon, kinds)
            hit = next((j for j in left if j not in taken and pattern(act_keys[j])), None)
            if hit is None:
                left_exp.append(i)
            else:
                taken.add(hit)
    if not left_exp and (extra_allowed or len(exp_keys) - len(wild) + len(taken) == len(act_keys)):
        return None
    left_act = [] if extra_allowed else [j for j in _left_over(act_keys, exp_keys, left_exp, wild) if j not in taken]
    if not left_exp and not left_act:
        return None
    return _report(expected, actual, exp_raw, sorted(left_exp), left_act, exp_keys, act_keys, kinds)


def _left_over(act_keys: Sequence[str], exp_keys: Sequence[str], left_exp: Sequence[int],
               wild: Sequence[int]) -> list[int]:
    """Actual rows no expected row took by key, in output order."""
    wanted: dict[str, int] = defaultdict(int)
    skip = set(left_exp) | set(wild)
    for i, key in enumerate(exp_keys):
        if i not in skip:
            wanted[key] += 1
    left = []
    for j, key in enumerate(act_keys):
        if wanted.get(key):
            wanted[key] -= 1
        else:
            left.append(j)
    return left


# How each column compares: "" literally (under the volatile kinds), "shape" as a volatile column, "skip" not at all.
@lru_cache(maxsize=256)
def _column_kinds(titles: tuple[str, ...], volatile_columns: frozenset[str]) -> tuple[str, ...]:
    events = _events(titles)
    out = []
    for title in titles:
        upper = title.upper()
        if events and upper not in EVENT_COLUMNS:
            out.append("skip")
        elif upper in volatile_columns or title in volatile_columns:
            out.append("shape")
        else:
            out.append("")
    return tuple(out)


def row_keys(rows: Sequence[str], starts: Sequence[int], canon: Canon, kinds: Sequence[str]) -> list[str]:
    """Each row as one comparable string: canonical cells, only the shape in volatile columns.

    Built for big tables: a few thousand rows at a time, rows whose cells part
    at two or more spaces are split in one pass over their joined text, and
    each column is canonicalised as a whole (Canon.column: repeated cells from
    the cache, new names and addresses in passes over all of them), so no
    per-cell objects outlive their chunk. A short table goes row by row.
    """
    keys: list[str] = []
    for at in range(0, len(rows), CHUNK):
        keys.extend(_chunk_keys(rows[at : at + CHUNK], starts, canon, kinds))
    return keys


CHUNK = 4096


def _chunk_keys(rows: Sequence[str], starts: Sequence[int], canon: Canon, kinds: Sequence[str]) -> list[str]:
    columns = _columns(rows, len(kinds)) if len(rows) >= SMALL else None
    if columns is None:
        return [_key(cells(row, starts), canon, kinds) for row in rows]
    for c, kind in enumerate(kinds):
        column = columns[c]
        columns[c] = [""] * len(rows) if kind == "skip" else canon.shapes(column) if kind == "shape" else canon.column(column)
    return list(map(SEP.join, zip(*columns)))


SMALL = 64  # rows from which reading the table column by column pays


def _columns(rows: Sequence[str], width: int) -> list[list[str]] | None:
    """The rows' cells column by column, when every row parts into `width` cells at runs of spaces.

    One split of the joined rows at two or more spaces: the pieces holding a
    newline are exactly the row boundaries when every row has `width` cells.
    None when some row does not (empty cells, TABs): those are read row by row.
    """
    text = "\n".join(rows)
    if text.startswith(" ") or "\n " in text:
        text = _LEADING.sub("", text)
    n, step = len(rows), width - 1
    if not rows or width < 2 or "\t" in text or SEP in text or text.count("\n") != n - 1:
        return None
    pieces = _GAP.split(text)
    del text
    if len(pieces) != n * step + 1:
        return None
    bounds = pieces[step : n * step : step]
    if not all(map(str.__contains__, bounds, repeat("\n"))):
        return None
    # Each boundary piece holds one newline (the text holds n - 1): the last cell of a row, then the first of the next.
    split = "\n".join(bounds).split("\n") if bounds else []
    return [[pieces[0], *split[1::2]], *[pieces[c : n * step : step] for c in range(1, step)], [*split[::2], pieces[-1]]]


def _key(row: Sequence[str], canon: Canon, kinds: Sequence[str]) -> str:
    one, shaped = canon.one, canon.shaped
    out = [shaped(cell) if kind == "shape" else "" if kind == "skip" else one(cell) for cell, kind in zip(row, kinds)]
    if len(row) > len(kinds):
        out += map(one, row[len(kinds) :])
    return SEP.join(out)


def _row_pattern(row: tuple[str, ...], canon: Canon, kinds: Sequence[str]) -> Callable[[str], bool]:
    """A predicate on row keys for an expected row with `...` inside cells."""
    parts = []
    for i, cell in enumerate(row):
        kind = kinds[i] if i < len(kinds) else ""
        if kind == "skip":
            parts.append("")
            continue
        pieces = canon.all(WILDCARD.split(cell))
        if kind == "shape":
            pieces = [shape(p) for p in pieces]
        parts.append(".*".join(map(re.escape, pieces)))
    pattern = re.compile(re.escape(SEP).join(f"(?:{p})" for p in parts), re.DOTALL)
    return lambda key: pattern.fullmatch(key) is not None and key.count(SEP) == len(parts) - 1


def _label_columns(table: Table, kinds: Sequence[str]) -> tuple[int, ...]:
    """The columns that name a row for a reader: NAMESPACE and NAME, or what happened in an event."""
    upper = [t.upper() for t in table.titles]
    name = next((upper.index(t) for t in ("NAME", "NAMES") if t in upper), None)
    if name is not None:
        return (upper.index("NAMESPACE"), name) if "NAMESPACE" in upper and upper.index("NAMESPACE") != name else (name,)
    if table.events:
        return tuple(upper.index(t) for t in ("REASON", "OBJECT") if t in upper)
    # Never a volatile column: `5s` names nothing.
    return tuple(c for c, kind in enumerate(kinds) if not kind)[:1] or (0,)


def _report(expected: Table, actual: Table, exp_raw, left_exp, left_act, exp_keys, act_keys, kinds) -> Mismatch:
    columns = _label_columns(expected, kinds)
    slash = len(columns) == 2 and not expected.events

    def label(row: Sequence[str], loose: bool = False) -> str:
        picked = [star_names(row[c], loose=loose) for c in columns if c < len(row) and row[c]]
        return ("/" if slash else " ").join(picked) or "(empty row)"

    def identity(key: str) -> tuple[str, ...]:
        parts = key.split(SEP)
        return tuple(parts[c] for c in columns if c < len(parts))

    unpaired: dict[tuple[str, ...], deque[int]] = defaultdict(deque)
    for j in left_act:
        unpaired[identity(act_keys[j])].append(j)
    details: list[str] = []
    differ = missing = 0
    for i in left_exp:
        exp_row = cells(exp_raw[i], expected.starts)
        candidates = unpaired.get(identity(exp_keys[i]))
        if not candidates:
            missing += 1
            details.append(f"missing row {label(exp_row, True)}{_why_not_generated(exp_row, columns)}")
            continue
        j = candidates.popleft()
        differ += 1
        act_row = cells(actual.rows[j], actual.starts)
        details.extend(_cell_differences(expected.titles, label(exp_row, True), exp_row, act_row,
                                         exp_keys[i].split(SEP), act_keys[j].split(SEP)))
    unexpected = [j for js in unpaired.values() for j in js]
    details.extend(f"unexpected row {label(cells(actual.rows[j], actual.starts))}" for j in sorted(unexpected))
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


_TAIL = re.compile(r"-([a-z0-9]{1,10})$")


def _why_not_generated(row: Sequence[str], columns: Sequence[int]) -> str:
    """Why a name that ends like a generated one was read literally, for a reader who expected it to match."""
    name = row[columns[-1]] if columns and columns[-1] < len(row) else ""
    m = _TAIL.search(name)
    if m is None or star_names(name, loose=True) != name:
        return ""
    tail = m.group(1)
    if tail.isdigit() and len(tail) < 5:
        return f" (-{tail} is an ordinal, part of the name)"
    if len(tail) != 5 and not re.search(r"-[a-z0-9]{6,10}-[a-z0-9]{5}$", name):
        return ""
    if tail.isalpha() and len(set(tail)) > 1:
        return f" (-{tail} is a word, not a generated suffix: generated ones hold a digit or a letter from bcdfghjklmnpqrstvwxz)"
    return ""


def _cell_differences(titles, label, exp_row, act_row, exp_key, act_key) -> list[str]:
    out = []
    if len(exp_row) != len(act_row):
        return [(f"{label}: expected {len(exp_row)} cells ({' | '.join(exp_row)}), "
                 f"got {len(act_row)} ({' | '.join(act_row)}), split at tabs or two or more spaces")]
    for c in range(len(exp_key)):
        if exp_key[c] != act_key[c]:
            want, got = exp_row[c], act_row[c]
            if ELLIPSIS in want:
                continue
            title = titles[c] if c < len(titles) else f"column {c + 1}"
            out.append(f"{label}: {title} expected {want or '(empty)'}, got {got or '(empty)'}")
    if not out:
        out.append(f"{label}: expected {' | '.join(exp_row)}, got {' | '.join(act_row)}")
    return out
