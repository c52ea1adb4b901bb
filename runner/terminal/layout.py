"""Styled pieces of text laid out on a terminal: styles, widths in cells, wrapping and folding, colours.

A piece is (text, style); a style is the SGR codes it is shown with, attributes first and at
most one foreground colour. Every function here is linear in its input.
"""
from __future__ import annotations

import re

Style = tuple[str, ...]
Piece = tuple[str, Style]
Row = list[Piece]

PLAIN: Style = ()
BREAK: Piece = ("\n", PLAIN)  # a hard line break among the pieces of a paragraph, compared by identity

_SPACES = re.compile(r"( +)")
_COMBINED: dict[tuple[Style, Style], Style] = {}


def _is_colour(code: str) -> bool:
    return len(code) == 2 and code[0] in "39"


def combine(under: Style, over: Style) -> Style:
    """`over` laid on `under`: the attributes of both, and the colour of `over` if it has one."""
    key = (under, over)
    style = _COMBINED.get(key)
    if style is None:
        colour = [c for c in over if _is_colour(c)] or [c for c in under if _is_colour(c)]
        attributes = sorted({c for c in under + over if not _is_colour(c)}, key=int)
        style = _COMBINED[key] = (*attributes, *colour[:1])
    return style


class Painter:
    """Pieces to text, with the escape sequences of their styles when colour is on."""

    def __init__(self, color: bool):
        self.color = color
        self._sgr: dict[Style, str] = {}

    def paint(self, text: str, style: Style) -> str:
        if not self.color or not text or not style:
            return text
        sgr = self._sgr.get(style)
        if sgr is None:
            sgr = self._sgr[style] = "\x1b[" + ";".join(style) + "m"
        return sgr + text + "\x1b[0m"

    def line(self, pieces: Row) -> str:
        """Adjacent pieces of one style painted together, as the eye cannot tell them apart."""
        out: list[str] = []
        run: list[str] = []
        style: Style = PLAIN
        for text, piece_style in pieces:
            if piece_style != style and run:
                out.append(self.paint("".join(run), style))
                run = []
            run.append(text)
            style = piece_style
        if run:
            out.append(self.paint("".join(run), style))
        return "".join(out)


def cells(text: str) -> int:
    """Columns the text takes on a terminal: wide characters two, combining marks none."""
    if text.isascii():
        return len(text)
    import unicodedata

    width = 0
    for char in text:
        if char.isascii():
            width += 1
        elif unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        else:
            width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


def row_cells(row: Row) -> int:
    return cells("".join(text for text, _ in row))


def wrap(pieces: list[Piece], width: int, *, collapse: bool = True) -> list[Row]:
    """Pieces as rows of at most `width` cells, broken at spaces; a longer word is folded.

    Spaces between words are one, as a browser shows them, unless `collapse` is off (code).
    """
    rows: list[Row] = []
    row: Row = []
    used = 0
    spaces: Row = []
    word: Row = []
    word_cells = 0

    def place() -> None:
        nonlocal row, used, spaces, word, word_cells
        if not word:
            return
        if collapse and spaces:
            spaces = [(" ", spaces[0][1])]
        gap = sum(len(t) for t, _ in spaces)
        if row and used + gap + word_cells <= width:
            row += spaces
            row += word
            used += gap + word_cells
        else:
            if row:
                rows.append(row)
            if word_cells > width:
                folded = fold(word, width)
                rows.extend(folded[:-1])
                row = folded[-1]
                used = row_cells(row)
            else:
                row, used = word, word_cells
        spaces, word, word_cells = [], [], 0

    for piece in pieces:
        if piece is BREAK:
            place()
            rows.append(row)
            row, used, spaces = [], 0, []
            continue
        text, style = piece
        for part in _SPACES.split(text):
            if not part:
                continue
            if part[0] == " ":
                place()
                if row:
                    spaces.append((part, style))
            else:
                word.append((part, style))
                word_cells += cells(part)
    place()
    if row:
        rows.append(row)
    return rows


def wrap_code(text: str, width: int, style: Style) -> list[Row]:
    """A line of code broken at spaces when too long; its indentation stays on its first row."""
    body = text.lstrip(" ")
    indent = len(text) - len(body)
    if cells(text) <= width or indent >= width:
        return fold([(text, style)], width) or [[("", style)]]
    rows = wrap([(body, style)], width - indent, collapse=False)
    rows[0].insert(0, (" " * indent, style))
    return rows


def fold(pieces: Row, width: int) -> list[Row]:
    """Pieces cut into rows of exactly `width` cells (the last one shorter)."""
    rows: list[Row] = []
    row: Row = []
    used = 0
    for text, style in pieces:
        at, ascii = 0, text.isascii()
        while at < len(text):
            room = width - used
            if ascii:
                end = min(len(text), at + room)
                taken = end - at
            else:
                end, taken = _fitting(text, at, room)
                if end == at and not row:  # a wide character in a one-cell column: it overflows
                    end, taken = at + 1, cells(text[at])
            if end > at:
                row.append((text[at:end], style))
                used += taken
                at = end
            if at < len(text):
                rows.append(row)
                row, used = [], 0
    if row:
        rows.append(row)
    return rows


def _fitting(text: str, at: int, room: int) -> tuple[int, int]:
    """How far from `at` the text fits in `room` cells, and the cells it takes."""
    used = 0
    for index in range(at, len(text)):
        taken = cells(text[index])
        if used + taken > room:
            return index, used
        used += taken
    return len(text), used
