"""Tables compared: rows matched as an unordered set, each column read in the role its title gives it.

Rows are keyed by one canonical string each, built row by row (or column by
column for big tables), so a table of 100,000 rows costs one pass and no
per-cell objects are kept; cells are split again only for the few rows a
message names and the rows whose forgiven values are reported.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import repeat

from .forgiven import Forgiveness
from .kinds import star_names
from .ordered import fallen
from .roles import Pins, Role, column_roles
from .tables import EVENT_COLUMNS, Table, cells, is_events
from .values import Mismatch
from .volatile import Canon
from .wildcards import ELLIPSIS, Glob, split, unescape
from .wildcards import wild as has_wildcard

MAX_DETAILS = 50
SEP = "\x1f"  # between the cells of a row key; normalised output holds no control characters
_GAP = re.compile(r"  +")
_LEADING = re.compile(r"^ +", re.MULTILINE)
# How a column's cells compare: the roles of its parts (one, or two for `measured/setting` pairs), or () not at all.
Reading = tuple[Role, ...]
_PLAIN: Reading = (Role.PLAIN,)


def compare_table(expected: Table, actual: Table, canon: Canon, volatile_columns: frozenset[str] = frozenset(),
                  exp_canon: Canon | None = None, forgiven: Forgiveness | None = None,
                  where: Sequence[int] = ()) -> Mismatch | None:
    """Match rows as an unordered set; name each differing row and column.

    `exp_canon` reads the expected side (it also takes names an author typed
    by hand); `forgiven` collects what matched rows hold that only the rules
    let pass, at the output lines `where` gives for the lines the table was read from.
    """
    exp_canon = exp_canon or canon
    kinds = _readings(expected.titles, volatile_columns, canon.pins)
    dotted = ELLIPSIS in "\n".join(expected.rows)
    exp_raw = [r for r in expected.rows if r.strip() != ELLIPSIS] if dotted else expected.rows
    extra_allowed = len(exp_raw) < len(expected.rows)
    exp_keys = row_keys([unescape(r) for r in exp_raw] if dotted else exp_raw, expected.starts, exp_canon, kinds)
    act_keys = row_keys(actual.rows, actual.starts, canon, kinds)
    if forgiven is not None:
        _forgive(expected, actual, exp_raw, exp_keys, act_keys, kinds, canon, exp_canon, forgiven, where)

    fell = fallen(expected, actual, exp_raw, exp_keys, act_keys)
    # Counts, not lists of rows: which actual rows are left over is found again only when some are.
    by_key = Counter(act_keys)
    if not dotted and dict.__eq__(by_key, Counter(exp_keys)):  # Counter's own == is a loop in Python
        return _fell(fell)
    left_exp: list[int] = []
    wild: list[int] = []
    for i, key in enumerate(exp_keys):
        if dotted and ELLIPSIS in exp_raw[i] and has_wildcard(exp_raw[i]):
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
        return _fell(fell)
    # With `...` rows the rows left over are allowed, but still name what a missing row became.
    left_act = [j for j in _left_over(act_keys, exp_keys, left_exp, wild) if j not in taken]
    if not left_exp and (extra_allowed or not left_act):
        return _fell(fell)
    return _report(expected, actual, exp_raw, sorted(left_exp), left_act, exp_keys, act_keys, kinds,
                   extra_allowed)


def _fell(details: list[str]) -> Mismatch | None:
    """The rows that matched but whose success rate fell (ordered.py), or None when none did."""
    if not details:
        return None
    return Mismatch(f"{len(details)} success rate{'s' if len(details) > 1 else ''} fell", tuple(details))


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


@lru_cache(maxsize=256)
def _readings(titles: tuple[str, ...], volatile_columns: frozenset[str], pins: Pins) -> tuple[Reading, ...]:
    """How each column compares (roles.py); in an event table, only what happened is compared."""
    events = is_events(titles)
    return tuple(() if events and title.upper() not in EVENT_COLUMNS and title.casefold() not in pins.literal
                 else column_roles(title, pins, volatile_columns) for title in titles)


def row_keys(rows: Sequence[str], starts: Sequence[int], canon: Canon, kinds: Sequence[Reading]) -> list[str]:
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


def _chunk_keys(rows: Sequence[str], starts: Sequence[int], canon: Canon, kinds: Sequence[Reading]) -> list[str]:
    columns = _columns(rows, len(kinds)) if len(rows) >= SMALL else None
    if columns is None:
        return [_key(cells(row, starts), canon, kinds) for row in rows]
    for c, reading in enumerate(kinds):
        columns[c] = _read_column(columns[c], reading, canon)
    return list(map(SEP.join, zip(*columns)))


def _read_column(column: list[str], reading: Reading, canon: Canon) -> list[str]:
    if reading == _PLAIN:
        return canon.column(column)
    if reading == (Role.MEASURED,):
        return canon.shapes(column)
    return [_read_cell(cell, reading, canon) for cell in column]


def _read_cell(cell: str, reading: Reading, canon: Canon) -> str:
    """A cell's canonical form in its column's reading."""
    if not reading:
        return ""
    if len(reading) > 1:
        return canon.paired(cell, reading)
    role = reading[0]
    if role is Role.PLAIN:
        return canon.one(cell)
    return canon.shaped(cell) if role is Role.MEASURED else canon.read(cell, role)


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
    return [[pieces[0], *split[1::2]], *[pieces[c : n * step : step] for c in range(1, step)],
            [*split[::2], pieces[-1]]]


def _key(row: Sequence[str], canon: Canon, kinds: Sequence[Reading]) -> str:
    out = [_read_cell(cell, reading, canon) for cell, reading in zip(row, kinds)]
    if len(row) > len(kinds):
        out += map(canon.one, row[len(kinds) :])
    return SEP.join(out)


def _row_pattern(row: tuple[str, ...], canon: Canon, kinds: Sequence[Reading]) -> Callable[[str], bool]:
    """A predicate on row keys for an expected row with `...` inside cells: a glob per cell."""
    parts: list[str | Glob] = []
    for i, cell in enumerate(row):
        reading = kinds[i] if i < len(kinds) else _PLAIN
        pieces = [_read_cell(piece, reading, canon) for piece in split(cell)] if reading else [""]
        parts.append(pieces[0] if len(pieces) == 1 else Glob(tuple(pieces), _read_cell(unescape(cell), reading, canon)))

    def matches(key: str) -> bool:
        got = key.split(SEP)
        return len(got) == len(parts) and all(
            want == have if isinstance(want, str) else want.fullmatch(have) for want, have in zip(parts, got))

    return matches


def _label_columns(table: Table, kinds: Sequence[Reading]) -> tuple[int, ...]:
    """The columns that name a row for a reader: NAMESPACE and NAME, or what happened in an event."""
    upper = [t.upper() for t in table.titles]
    name = next((upper.index(t) for t in ("NAME", "NAMES") if t in upper), None)
    if name is not None:
        namespace = upper.index("NAMESPACE") if "NAMESPACE" in upper else name
        return (namespace, name) if namespace != name else (name,)
    if table.events:
        return tuple(upper.index(t) for t in ("REASON", "OBJECT") if t in upper)
    # Never a volatile column: `5s` names nothing.
    forgiven = (Role.MEASURED, Role.IDENTIFIER)
    return tuple(c for c, reading in enumerate(kinds) if reading and not set(forgiven) & set(reading))[:1] or (0,)


def _report(expected: Table, actual: Table, exp_raw, left_exp, left_act, exp_keys, act_keys, kinds,
            extra_allowed: bool = False) -> Mismatch:
    """Each missing expected row, paired by its name with a row left over when one has it; then the rows left
    over, unless `...` allows them."""
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
    unexpected = [] if extra_allowed else [j for js in unpaired.values() for j in js]
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
        return (f" (-{tail} is a word, not a generated suffix: generated ones hold a digit or a letter from "
                "bcdfghjklmnpqrstvwxz)")
    return ""


def _cell_differences(titles, label, exp_row, act_row, exp_key, act_key) -> list[str]:
    out = []
    if len(exp_row) != len(act_row):
        return [(f"{label}: expected {len(exp_row)} cells ({' | '.join(exp_row)}), "
                 f"got {len(act_row)} ({' | '.join(act_row)}), split at tabs or two or more spaces")]
    for c in range(len(exp_key)):
        if exp_key[c] != act_key[c]:
            want, got = exp_row[c], act_row[c]
            if has_wildcard(want):
                continue
            title = titles[c] if c < len(titles) else f"column {c + 1}"
            out.append(f"{label}: {title} expected {want or '(empty)'}, got {got or '(empty)'}")
    if not out:
        out.append(f"{label}: expected {' | '.join(exp_row)}, got {' | '.join(act_row)}")
    return out


def _forgive(expected: Table, actual: Table, exp_raw: Sequence[str], exp_keys: Sequence[str],
             act_keys: Sequence[str], kinds: Sequence[Reading], canon: Canon, exp_canon: Canon,
             forgiven: Forgiveness, where: Sequence[int]) -> None:
    """The forgiven cells of rows paired by key, the first expected rows first (a bounded number)."""
    wanted: dict[str, deque[int]] = {}
    for i, key in enumerate(exp_keys[: forgiven.limit]):
        wanted.setdefault(key, deque()).append(i)
    for j, key in enumerate(act_keys):
        if forgiven.full or not wanted:
            return
        queue = wanted.get(key)
        if not queue:
            continue
        i = queue.popleft()
        if not queue:
            del wanted[key]
        if exp_raw[i] != actual.rows[j]:
            at = actual.first_row + j
            _forgive_row(expected, actual, exp_raw[i], actual.rows[j], where[at] if where else at, kinds, canon,
                         exp_canon, forgiven)


def _forgive_row(expected: Table, actual: Table, exp_row: str, act_row: str, line: int, kinds: Sequence[Reading],
                 canon: Canon, exp_canon: Canon, forgiven: Forgiveness) -> None:
    exp_cells, act_cells = cells(exp_row, expected.starts), cells(act_row, actual.starts)
    if len(exp_cells) != len(act_cells):
        return
    shown = act_row.expandtabs(8)  # output lines are reported with their tabs expanded
    at = 0
    for c, (want, got) in enumerate(zip(exp_cells, act_cells)):
        found = shown.find(got, at) if got else -1
        offset = found if found >= 0 else at
        at = offset + len(got)
        if want == got:
            continue
        reading = kinds[c] if c < len(kinds) else _PLAIN
        rule = canon.key_rule(expected.titles[c], "column") if c < len(expected.titles) else ""
        if len(reading) != 1:  # not compared (an event's age), or a measured/setting pair
            forgiven.add(line, offset, at, rule, want)
        else:
            forgiven.line(want, got, line, canon, exp_canon, role=reading[0], offset=offset, rule=rule)
