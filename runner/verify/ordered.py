"""Values compared by order, not only by shape: a success rate may rise between runs, never fall.

A `linkerd viz stat` SUCCESS cell is a measurement (its digits change
from run to run), but a rate that fell is a route that now fails more
often. The rows that matched are paired again by their keys, and each
actual rate must be at least the expected one.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from .tables import Table, cells

# Column titles whose percentages may rise but never fall.
AT_LEAST = frozenset({"SUCCESS"})
# At the start of the cell: where the TYPE column is empty the cells are split at the header, and the
# rate can share its cell with the RPS after it.
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)%(?!\S)")


def fallen(expected: Table, actual: Table, exp_rows: Sequence[str], exp_keys: Sequence[str],
           act_keys: Sequence[str]) -> list[str]:
    """`webapp [default]:7000: SUCCESS fell from 75.66% to 51.20%` for each matched row whose rate fell.

    Rows with the same key may pair either way: they pass when some pairing
    gives each a rate at least its expected one, which is when the rates
    sorted from the highest pair up so.
    """
    column = next((c for c, t in enumerate(expected.titles) if t.upper() in AT_LEAST), None)
    if column is None or column >= len(actual.titles) or actual.titles[column] != expected.titles[column]:
        return []
    title = expected.titles[column]
    want: dict[str, list[tuple[float, str, str]]] = defaultdict(list)
    for row, key in zip(exp_rows, exp_keys):
        found = _rate(row, expected.starts, column)
        if found is not None:
            want[key].append(found)
    if not want:
        return []
    have: dict[str, list[tuple[float, str, str]]] = defaultdict(list)
    for row, key in zip(actual.rows, act_keys):
        if key in want and (found := _rate(row, actual.starts, column)) is not None:
            have[key].append(found)
    out = []
    for key, rates in want.items():
        for (e, e_cell, name), (a, a_cell, _) in zip(sorted(rates, reverse=True), sorted(have[key], reverse=True)):
            if a < e:
                out.append(f"{name}: {title} fell from {e_cell} to {a_cell}")
    return out


def _rate(row: str, starts: Sequence[int], column: int) -> tuple[float, str, str] | None:
    """The row's percentage in `column`, the cell as written, and the cells before it that name the row."""
    split = cells(row, starts)
    if column >= len(split) or (m := _PERCENT.match(split[column])) is None:
        return None
    return float(m[1]), m[0], " ".join(c for c in split[:column] if c) or "(row)"
