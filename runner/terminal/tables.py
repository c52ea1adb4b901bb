"""A Markdown table as terminal text: aligned columns, the widest wrapped until the table fits.

Too many columns for the width, each row is a paragraph with its cells between bars.
"""
from __future__ import annotations

from .layout import BREAK, PLAIN, Painter, Piece, Row, Style, row_cells, wrap

GAP = 2  # cells between two columns


def table_lines(rows: list[list[list[Piece]]], aligns: list[str | None], width: int, painter: Painter,
                rule: Style) -> list[str]:
    """Lines for a table whose first row is its header; `aligns` are "left", "right", "center" or None."""
    columns = len(aligns)
    rows = [[[p for p in cell if p is not BREAK] for cell in (row + [[]] * columns)[:columns]] for row in rows]
    room = width - 1 - GAP * (columns - 1)
    if room < 2 * columns:
        return _between_bars(rows, width, painter, rule)
    widths = [max(row_cells(row[col]) for row in rows) for col in range(columns)]
    while sum(widths) > room:  # narrow the widest column, at most to the next widest
        widest = max(range(columns), key=widths.__getitem__)
        others = max((w for col, w in enumerate(widths) if col != widest), default=0)
        widths[widest] -= max(1, min(sum(widths) - room, widths[widest] - others))
    lines = []
    for number, row in enumerate(rows):
        wrapped = [wrap(cell, max(widths[col], 1)) or [[]] for col, cell in enumerate(row)]
        for at in range(max(len(w) for w in wrapped)):
            pieces: Row = [(" ", PLAIN)]
            for col, cell_rows in enumerate(wrapped):
                part = cell_rows[at] if at < len(cell_rows) else []
                left, right = _padding(widths[col] - row_cells(part), aligns[col])
                pieces += [(" " * left, PLAIN), *part, (" " * (right + (GAP if col < columns - 1 else 0)), PLAIN)]
            lines.append(painter.line(pieces).rstrip(" "))
        if number == 0:
            lines.append(" " + painter.paint("─" * (sum(widths) + GAP * (columns - 1)), rule))
    return lines


def _padding(spare: int, align: str | None) -> tuple[int, int]:
    if align == "right":
        return spare, 0
    if align == "center":
        return spare // 2, spare - spare // 2
    return 0, spare


def _between_bars(rows: list[list[list[Piece]]], width: int, painter: Painter, rule: Style) -> list[str]:
    lines = []
    for row in rows:
        pieces: Row = []
        for col, cell in enumerate(row):
            pieces += ([(" │ ", rule)] if col else []) + cell
        lines += [painter.line(line) for line in wrap(pieces, width)]
    return lines
