"""Tables in output (kubectl, docker, helm, describe's Events, linkerd viz top...): headers, rows, cells.

A header is a line of column titles two or more spaces (or a TAB) apart:
capitals, or mixed case over a rule of dashes (`describe`), or mixed case
over rows whose cells all start under a title (`linkerd viz top`). rows.py
compares them.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

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
_TAB_GAP = re.compile(r" *\t[ \t]*")

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
    first: int = 0  # index of the header among the lines the table was read from

    @property
    def first_row(self) -> int:
        """Index of the first row among the lines the table was read from."""
        return self.first + (2 if self.rule is not None else 1)

    @property
    def events(self) -> bool:
        return is_events(self.titles)


@dataclass(frozen=True)
class Text:
    lines: tuple[str, ...]
    first: int = 0  # index of the first line among the lines it was read from


Segment = Table | Text


def is_events(titles: Sequence[str]) -> bool:
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


def _ruled(lines: Sequence[str], i: int) -> bool:
    """A `describe` header: mixed-case titles over a rule of dashes starting in the same columns."""
    if i + 1 >= len(lines) or _MIXED_HEADER.fullmatch(lines[i]) is None or _RULE.fullmatch(lines[i + 1]) is None:
        return False
    return [m.start() for m in _CHUNK.finditer(lines[i])] == [m.start() for m in _CHUNK.finditer(lines[i + 1])]


def _aligned(lines: Sequence[str], i: int) -> int:
    """How many rows stand under a mixed-case header at line i whose cells all start under a title (0: none).

    Tools that left-align cells with a tabwriter (`linkerd viz top`, describe's
    Conditions) print no rule; rows end at the first line that does not align.
    """
    line = lines[i]
    if _MIXED_HEADER.fullmatch(line) is None or not any(c.islower() for c in line):
        return 0
    starts = {m.start() for m in _CHUNK.finditer(line)}
    rows = 0
    for row in lines[i + 1 :]:
        chunks = [m.start() for m in _CHUNK.finditer(row)]
        # A row has two cells at least: one line under another is prose, and ends the table.
        if len(chunks) < 2 or not starts.issuperset(chunks) or "\t" in row:
            break
        rows += 1
    return rows


def segments(lines: Sequence[str]) -> list[Segment]:
    """Cut normalised lines (tabs kept) into tables and the text around them (tabs expanded)."""
    found: list[Segment] = []
    text: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        titled = _titles(line)
        rule = None
        end = None
        if titled is None:
            ruled = _ruled(lines, i)
            rows = 0 if ruled else _aligned(lines, i)
            if ruled or rows:
                chunks = list(_CHUNK.finditer(line))
                titled = tuple(m.group() for m in chunks), tuple(m.start() for m in chunks)
                rule = lines[i + 1] if ruled else None
                end = None if ruled else i + 1 + rows
        if titled is None:
            text.append(line.expandtabs(8) if "\t" in line else line)
            i += 1
            continue
        if text:
            found.append(Text(tuple(text), i - len(text)))
            text = []
        first = i + (2 if rule is not None else 1)
        if end is None:
            try:  # normalised lines: a blank one is empty
                end = lines.index("", first)
            except ValueError:
                end = len(lines)
        found.append(Table(titled[0], titled[1], tuple(lines[first:end]), line, rule, i))
        i = end
    if text:
        found.append(Text(tuple(text), len(lines) - len(text)))
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
                 table.rule, table.first)


def same_shape(a: Sequence[Segment], b: Sequence[Segment]) -> bool:
    """Both outputs hold the same tables (by columns) in the same order between text."""
    return len(a) == len(b) and all(
        isinstance(x, Text) and isinstance(y, Text) or isinstance(x, Table) and isinstance(y, Table)
        and x.titles == y.titles for x, y in zip(a, b))


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
