"""Workshop prose as terminal text: the syntax tree of the shared Markdown reader, one method per token type.

The tree comes from `runner.parse.commonmark`, the reader the HTML report uses too, so both
show the same Markdown. Styles are attributes (bold, dim, italic, underline, reverse) and
magenta, which read on light and dark terminals alike; no white or black is ever set.
Without colour, headings keep their `#` marks so they still read as headings.

Everything shown comes from the workshop, so every character a terminal would act on
(escape sequences, other control characters) is shown as text (`^[`), never sent raw.
"""
from __future__ import annotations

from functools import cache
from html import unescape
from typing import TYPE_CHECKING, Any, cast

from ..parse.commonmark import reader
from ..printable import visible
from .html_text import BLOCKS, html_parts
from .layout import BREAK, PLAIN, Painter, Piece, Style, cells, combine, row_cells, wrap, wrap_code
from .tables import table_lines

if TYPE_CHECKING:
    from mistune import Markdown

Token = dict[str, Any]

MIN_WIDTH = 8  # narrower than this, text overflows rather than folding into a column of letters

HEADING: dict[int, Style] = {1: ("1", "4"), 2: ("4", "35"), 3: ("1", "35"), 4: ("3", "35"), 5: ("3",), 6: ("2",)}
CODE: Style = ("7",)  # reversed: a ground behind code in the terminal's own two colours, whatever its theme
KBD: Style = ("1", "4")
LINK: Style = ("4",)
URL: Style = ("2",)
QUOTE: Style = ("35",)
MARKER: Style = ("1",)  # bullets and numbers of lists
GUTTER: Style = ("2",)  # the bar left of a code block
RULE: Style = ("2",)
TABLE_HEAD: Style = ("1",)
EMPHASIS: dict[str, Style] = {"emphasis": ("3",), "strong": ("1",), "strikethrough": ("9",)}
IMAGE = "\N{CITYSCAPE AT DUSK} "
BULLET = "•"


@cache
def _tree_reader() -> Markdown:
    return reader(None)


def tokens(markdown: str) -> list[Token]:
    """The syntax tree of `markdown`, as the shared reader sees it."""
    return cast("list[Token]", _tree_reader()(markdown))


def render(markdown: str, *, width: int, color: bool) -> str:
    """The terminal text for `markdown`: lines of at most `width` cells, each ending in a newline."""
    lines = _Renderer(color).blocks(tokens(markdown), max(width, MIN_WIDTH), PLAIN, gap=True)
    return "".join(line + "\n" for line in lines)


class _Renderer:
    """Tokens to lines of terminal text: block methods give lines, inline methods give pieces."""

    def __init__(self, color: bool):
        self.color = color
        self.painter = Painter(color)
        self.kbd = 0  # <kbd> tags open around the text being read

    # Blocks: (token, width, base style) -> lines.

    def blocks(self, children: list[Token], width: int, base: Style, *, gap: bool) -> list[str]:
        """Blocks one after another; at the top a blank line between them, inside lists and quotes none."""
        lines: list[str] = []
        for token in children:
            shown = self.block(token, width, base)
            if shown:
                if gap and lines:
                    lines.append("")
                lines += shown
        return lines

    def block(self, token: Token, width: int, base: Style) -> list[str]:
        self.kbd = 0  # a <kbd> left open styles no further than its block
        method = getattr(self, "block_" + token["type"], None)
        if method is not None:
            return method(token, width, base)
        if "children" in token:  # a token of a plugin this renderer does not know: its text
            return self.blocks(token["children"], width, base, gap=False)
        return self.text_lines([(self.shown(str(token.get("raw", ""))), base)], width)

    def text_lines(self, pieces: list[Piece], width: int) -> list[str]:
        return [self.painter.line(row) for row in wrap(pieces, width)]

    def block_paragraph(self, token: Token, width: int, base: Style) -> list[str]:
        return self.text_lines(self.inline(token["children"], base), width)

    block_block_text = block_paragraph  # the text of a tight list's item

    def block_blank_line(self, token: Token, width: int, base: Style) -> list[str]:
        return []

    def block_heading(self, token: Token, width: int, base: Style) -> list[str]:
        level = token["attrs"]["level"]
        pieces = self.inline(token["children"], combine(base, HEADING[level]))
        if not self.color:
            pieces.insert(0, ("#" * level + " ", PLAIN))
        rows = wrap(pieces, width)
        lines = [self.painter.line(row) for row in rows]
        if self.color and level == 1:  # the title stands centred
            lines = [" " * max(0, (width - row_cells(row)) // 2) + line for row, line in zip(rows, lines)]
        return lines or [""]

    def block_thematic_break(self, token: Token, width: int, base: Style) -> list[str]:
        return [self.painter.paint("─" * width, RULE)]

    def block_block_code(self, token: Token, width: int, base: Style) -> list[str]:
        """Code behind a bar, as written: long lines broken at spaces, their indentation kept."""
        gutter = self.painter.paint("│ ", GUTTER)
        lines = []
        for source in token["raw"].removesuffix("\n").split("\n"):
            for row in wrap_code(visible(source.expandtabs(4).rstrip()), max(width - 2, 1), PLAIN):
                lines.append((gutter + self.painter.line(row)).rstrip())
        return lines

    def block_block_quote(self, token: Token, width: int, base: Style) -> list[str]:
        return self.nested(token["children"], width, "▌ ", QUOTE, combine(base, QUOTE), every_line=True)

    def block_list(self, token: Token, width: int, base: Style) -> list[str]:
        attrs, items = token["attrs"], token["children"]
        if attrs.get("ordered"):
            start, mark = attrs.get("start", 1), token.get("bullet", ".")
            size = len(str(start + len(items) - 1) + mark) + 1
            markers = [(str(number) + mark).rjust(size) + " " for number in range(start, start + len(items))]
        else:
            markers = [" " + BULLET + " "] * len(items)
        return [line for item, marker in zip(items, markers)
                for line in self.nested(item["children"], width, marker, MARKER, base)]

    def nested(self, children: list[Token], width: int, marker: str, style: Style, base: Style, *,
               every_line: bool = False) -> list[str]:
        """Blocks behind a marker (a bullet, a number, a quote's bar): on the first line or on every one.

        Where the rest would be too narrow to read, the blocks are shown without it.
        """
        inner = width - cells(marker)
        if inner < MIN_WIDTH:
            return self.blocks(children, width, base, gap=False)
        lines = self.blocks(children, inner, base, gap=False) or [""]
        symbol = marker.strip(" ")
        lead = marker[:marker.index(symbol)]
        first = lead + self.painter.paint(symbol, style) + marker[len(lead) + len(symbol):]
        rest = first if every_line else " " * cells(marker)
        return [(rest if n else first) + line for n, line in enumerate(lines)]

    def block_block_html(self, token: Token, width: int, base: Style) -> list[str]:
        """Raw HTML shows its text: tags and comments are not for a terminal, what they hold is."""
        return self.text_lines(self.html(token["raw"], base, block=True), width)

    def block_table(self, token: Token, width: int, base: Style) -> list[str]:
        head, *body = token["children"]
        cells_of = [head["children"]] + [row["children"] for part in body for row in part["children"]]
        rows = [[self.inline(cell["children"], combine(base, TABLE_HEAD) if n == 0 else base) for cell in row]
                for n, row in enumerate(cells_of)]
        aligns = [cell["attrs"].get("align") for cell in head["children"]]
        return table_lines(rows, aligns, width, self.painter, RULE)

    # Inline: (token, style) -> pieces.

    def inline(self, children: list[Token], style: Style) -> list[Piece]:
        pieces: list[Piece] = []
        for token in children:
            method = getattr(self, "inline_" + token["type"], None)
            if method is not None:
                pieces += method(token, style)
            elif "children" in token:
                pieces += self.inline(token["children"], style)
            elif "raw" in token:
                pieces.append((self.shown(str(token["raw"])), self.styled(style)))
        return pieces

    def styled(self, style: Style) -> Style:
        return combine(style, KBD) if self.kbd > 0 else style

    def inline_text(self, token: Token, style: Style) -> list[Piece]:
        return [(self.shown(unescape(token["raw"])), self.styled(style))]

    @staticmethod
    def shown(text: str) -> str:
        """Text as one line of a paragraph: its tabs and line feeds (`&#10;` too) are spaces."""
        return visible(text.replace("\t", " ").replace("\n", " ").replace("\r", " "))

    def inline_emphasis(self, token: Token, style: Style) -> list[Piece]:
        return self.inline(token["children"], combine(style, EMPHASIS[token["type"]]))

    inline_strong = inline_strikethrough = inline_emphasis

    def inline_codespan(self, token: Token, style: Style) -> list[Piece]:
        return [(self.shown(token["raw"]), combine(self.styled(style), CODE))]

    def inline_softbreak(self, token: Token, style: Style) -> list[Piece]:
        return [(" ", self.styled(style))]

    def inline_linebreak(self, token: Token, style: Style) -> list[Piece]:
        return [BREAK]

    def inline_link(self, token: Token, style: Style) -> list[Piece]:
        """The link's text, and where it goes unless that is the text already (`<https://...>`, a bare URL)."""
        pieces = self.inline(token["children"], combine(style, LINK))
        url = token["attrs"]["url"]
        text = "".join(text for text, _ in pieces)
        if text in (url, url.removeprefix("mailto:")):
            return pieces
        return [*pieces, (" (", self.styled(style)), (self.shown(url), combine(style, URL)), (")", self.styled(style))]

    def inline_image(self, token: Token, style: Style) -> list[Piece]:
        return [(IMAGE, self.styled(style)), *self.inline(token["children"], style)]

    def inline_inline_html(self, token: Token, style: Style) -> list[Piece]:
        return self.html(token["raw"], style)

    def html(self, raw: str, style: Style, *, block: bool = False) -> list[Piece]:
        """The text of raw HTML; <br> breaks the line, <kbd> shows a key, and an element a browser
        puts on a line of its own starts one in an HTML block, a word elsewhere."""
        pieces: list[Piece] = []
        started = False  # text on the line since the last break
        for kind, value in html_parts(raw):
            name = value.lstrip("/")
            if kind == "text":
                pieces.append((visible(value), self.styled(style)))
                started = started or bool(value.strip())
            elif name == "br" or (block and started and name in BLOCKS):
                pieces.append(BREAK)
                started = False
            elif name in BLOCKS and not block:  # inside a paragraph, where a line of its own cannot start
                pieces.append((" ", self.styled(style)))
            elif name == "kbd":
                self.kbd = max(0, self.kbd + (-1 if value[0] == "/" else 1))
        return pieces
