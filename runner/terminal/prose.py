"""Workshop prose as terminal text: the Markdown that workshops use, at the terminal's width.

`present` shows prose first, so this renderer is its own: a general Markdown library and
its console renderer cost more to load than the rest of the start-up. It covers headings,
paragraphs (inline code, emphasis, links, images, `<kbd>`), bullet and numbered lists,
block quotes, fenced and indented code, rules and tables (as aligned text); other HTML is
dropped, as a terminal cannot show it. The look is the one the presenter always had.

Everything shown comes from the workshop, so every character a terminal would act on
(escape sequences, other control characters) is shown as text (`^[`), never sent raw.
Time is linear in the text: nesting deeper than MAX_DEPTH is shown as plain text, and no
scan (link targets, HTML tags) looks further ahead than a bounded distance.
"""
from __future__ import annotations

import re

from ..printable import visible

MAX_DEPTH = 8  # lists and quotes nested deeper are shown as text: each level is a slice of the lines
_MIN_WIDTH = 8  # narrower than this, text overflows rather than folding into a column of letters

# Styles: (bold, dim, italic, underline, strike, foreground, background), as SGR numbers.
Style = tuple
PLAIN: Style = (False, False, False, False, False, None, None)


def _style(bold=False, dim=False, italic=False, underline=False, strike=False, fg=None, bg=None) -> Style:
    return (bold, dim, italic, underline, strike, fg, bg)


HEADING = {1: _style(bold=True, underline=True), 2: _style(underline=True, fg=35),
           3: _style(bold=True, fg=35), 4: _style(italic=True, fg=35), 5: _style(italic=True),
           6: _style(dim=True)}
CODE = _style(bold=True, fg=36, bg=40)
CODE_BLOCK = _style(fg=97, bg=40)
LINK, URL = _style(fg=94), _style(underline=True, fg=34)
KBD = _style(bold=True, fg=93)
QUOTE = _style(fg=35)
BULLET, NUMBER = _style(bold=True), _style(fg=36)
RULE = _style(dim=True)
TABLE = _style(fg=36)
BOLD, ITALIC, STRIKE = _style(bold=True), _style(italic=True), _style(strike=True)
IMAGE = "\N{CITYSCAPE AT DUSK} "

_BREAK = ("\n", None)  # a hard line break among the pieces of a paragraph
_BLOCK_STARTS = frozenset("`~#-*_>+<0123456789")  # the first characters of all blocks but paragraphs


class _Pattern:
    """A regular expression compiled when first used: most prose needs a few of them, and
    compiling them all would cost the first screen a few milliseconds."""

    def __init__(self, source: str, flags: int = 0):
        self._source = (source, flags)

    def __getattr__(self, name: str):
        compiled = re.compile(*self._source)
        for method in ("match", "search", "sub", "split", "finditer"):
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)


def render(markdown: str, *, width: int, color: bool) -> str:
    """The terminal text for `markdown`: lines of at most `width` cells, each ending in a newline.

    Without colour a heading would read like any other line, so it keeps its `#` marks.
    """
    refs: dict[str, str] = {}
    blocks = _blocks(markdown.splitlines(), 0, refs)
    out = _Renderer(color, refs)
    lines: list[str] = []
    for number, block in enumerate(blocks):
        if number:
            lines.append("")
        lines += out.block(block, max(width, _MIN_WIDTH))
    return "".join(line + "\n" for line in lines)


# Blocks: the lines of the text grouped, as CommonMark groups them (closely enough for prose).

_FENCE = _Pattern(r" {0,3}(`{3,}|~{3,})(.*)")
_ATX = _Pattern(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_ATX_CLOSE = _Pattern(r"(?:^|[ \t]+)#+$")
_SETEXT = _Pattern(r" {0,3}(=+|-+)[ \t]*$")
_RULE = _Pattern(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_QUOTE = _Pattern(r" {0,3}> ?")
_ITEM = _Pattern(r"( {0,3})([-+*]|\d{1,9}[.)])([ \t]+|$)")
_HTML = _Pattern(r" {0,3}<(!--|\?|![A-Za-z]|/?([A-Za-z][A-Za-z0-9-]*)(?=[\s/>]|$))")
_HTML_END = {"!--": "-->", "?": "?>"}
_HTML_RAW = frozenset({"script", "pre", "style", "textarea"})
# Tags that end a paragraph when a line starts with them (CommonMark's block-level names).
_HTML_BLOCK = frozenset((
    "address", "article", "aside", "base", "basefont", "blockquote", "body", "caption", "center", "col",
    "colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
    "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr", "html",
    "iframe", "legend", "li", "link", "main", "menu", "menuitem", "nav", "noframes", "ol", "optgroup",
    "option", "p", "param", "search", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead",
    "title", "tr", "track", "ul"))
_TABLE_RULE = _Pattern(r" {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_CELL = _Pattern(r"(?<!\\)\|")
_REFERENCE = _Pattern(
    r" {0,3}\[((?:[^\]\\\n]|\\.){1,999})\]:[ \t]*(?:<([^<>\n]{0,2000})>|(\S{1,2000}))"
    r"""(?:[ \t]+(?:"[^"\n]{0,1000}"|'[^'\n]{0,1000}'|\([^()\n]{0,1000}\)))?[ \t]*$""")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _detab(line: str) -> str:
    """Tabs in the indentation as CommonMark counts them (stops every 4 columns)."""
    if "\t" not in line:
        return line
    body = line.lstrip(" \t")
    return line[:len(line) - len(body)].expandtabs(4) + body


def _starts_block(line: str) -> bool:
    """Does this line begin something else than the paragraph before it (so it is no lazy continuation)?"""
    indent = _indent(line)
    if indent >= 4 or indent == len(line) or line[indent] not in _BLOCK_STARTS:
        return False
    item = _ITEM.match(line)
    return bool(_FENCE.match(line) or _ATX.match(line) or _RULE.match(line) or _QUOTE.match(line)
                or (item and item.group(3) and (not item.group(2)[0].isdigit() or item.group(2)[:-1] == "1"))
                or _html_start(line, in_paragraph=True))


def _html_start(line: str, *, in_paragraph: bool) -> str | None:
    """The end marker of an HTML block starting on this line ("" for a blank line), or None."""
    m = _HTML.match(line)
    if not m:
        return None
    opener, tag = m.group(1), (m.group(2) or "").lower()
    if opener in _HTML_END:
        return _HTML_END[opener]
    if opener.startswith("!"):
        return ">"
    if tag in _HTML_RAW and not opener.startswith("/"):
        return f"</{tag}>"
    if tag in _HTML_BLOCK:
        return ""
    if in_paragraph or not re.match(r" {0,3}</?[A-Za-z][^<>]{0,1000}>[ \t]*$", line):
        return None
    return ""


def _blocks(lines: list[str], depth: int, refs: dict[str, str]) -> list[tuple]:
    """The blocks of `lines`, nested ones parsed from their own lines at depth + 1."""
    blocks: list[tuple] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            blocks.append(("para", para[:]))
            para.clear()

    i, n = 0, len(lines)
    while i < n:
        line = _detab(lines[i])
        indent = _indent(line)
        if indent == len(line):
            flush()
            i += 1
            continue
        if indent >= 4 or depth >= MAX_DEPTH:
            if para or depth >= MAX_DEPTH:  # a lazy continuation, or text too deep to take apart
                para.append(line.lstrip())
                i += 1
                continue
            code, i = _indented_code(lines, i)
            blocks.append(("code", code))
            continue
        first = line[indent]  # each kind of block starts with its own characters: try only those
        fence = _FENCE.match(line) if first in "`~" else None
        if fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            flush()
            code, i = _fenced_code(lines, i, indent, fence.group(1))
            blocks.append(("code", code))
            continue
        atx = _ATX.match(line) if first == "#" else None
        if atx:
            flush()
            blocks.append(("heading", len(atx.group(1)), _ATX_CLOSE.sub("", atx.group(2) or "")))
            i += 1
            continue
        setext = _SETEXT.match(line) if para and first in "=-" else None
        if setext:
            blocks.append(("heading", 1 if setext.group(1)[0] == "=" else 2, "\n".join(para)))
            para.clear()
            i += 1
            continue
        if first in "-*_" and _RULE.match(line):
            flush()
            blocks.append(("rule",))
            i += 1
            continue
        if first == ">":
            flush()
            inner, i = _quoted(lines, i)
            blocks.append(("quote", _blocks(inner, depth + 1, refs)))
            continue
        item = _ITEM.match(line) if first in "-+*0123456789" else None
        if item and not (para and (not item.group(3) or line[item.end():].strip() == ""
                                   or (item.group(2)[0].isdigit() and item.group(2)[:-1] != "1"))):
            flush()
            block, i = _list(lines, i, depth, refs)
            blocks.append(block)
            continue
        end = _html_start(line, in_paragraph=bool(para)) if first == "<" else None
        if end is not None:
            flush()
            i = _skip_html(lines, i, end)
            continue
        if not para and i + 1 < n and "|" in line + lines[i + 1] and _TABLE_RULE.match(lines[i + 1]):
            table, j = _table(lines, i)
            if table:
                blocks.append(table)
                i = j
                continue
        if not para and first == "[":
            ref = _REFERENCE.match(line)
            if ref:
                refs.setdefault(_label(ref.group(1)), ref.group(2) if ref.group(2) is not None else ref.group(3))
                i += 1
                continue
        para.append(line.lstrip())
        i += 1
    flush()
    return blocks


def _indented_code(lines: list[str], i: int) -> tuple[list[str], int]:
    code = []
    while i < len(lines):
        line = _detab(lines[i])
        if line.strip() and _indent(line) < 4:
            break
        code.append(line[4:])
        i += 1
    while code and not code[-1].strip():
        code.pop()
    return code, i


def _fenced_code(lines: list[str], i: int, indent: int, fence: str) -> tuple[list[str], int]:
    closing = re.compile(r" {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
    code = []
    i += 1
    while i < len(lines):
        line = lines[i]
        i += 1
        if closing.match(line):
            break
        code.append(line[min(indent, _indent(line)):])
    return code, i


def _quoted(lines: list[str], i: int) -> tuple[list[str], int]:
    inner: list[str] = []
    while i < len(lines):
        line = _detab(lines[i])
        marker = _QUOTE.match(line)
        if marker:
            inner.append(line[marker.end():])
        elif line.strip() and inner and inner[-1].strip() and not _starts_block(line):
            inner.append(line)  # a lazy continuation of the quoted paragraph
        else:
            break
        i += 1
    return inner, i


def _list(lines: list[str], i: int, depth: int, refs: dict[str, str]) -> tuple[tuple, int]:
    """One list: items of the same kind of marker, each parsed from its own lines."""
    first = _ITEM.match(_detab(lines[i]))
    kind = first.group(2)[-1] if first.group(2)[0].isdigit() else first.group(2)
    start = int(first.group(2)[:-1]) if first.group(2)[0].isdigit() else None
    items: list[list[tuple]] = []
    n = len(lines)
    while i < n:
        line = _detab(lines[i])
        item = _ITEM.match(line)
        if not item or _RULE.match(line):
            break
        marker = item.group(2)
        if (marker[-1] if marker[0].isdigit() else marker) != kind:
            break
        rest = line[item.end():]
        gap = len(item.group(3).expandtabs(4))
        if not rest.strip():
            content_at, content = item.start(2) + len(marker) + 1, [""]
        elif gap > 4:  # the item starts with indented code
            content_at, content = item.start(2) + len(marker) + 1, [" " * (gap - 1) + rest]
        else:
            content_at, content = item.end(), [rest]
        i += 1
        while i < n:
            line = _detab(lines[i])
            if not line.strip():
                content.append("")
            elif _indent(line) >= content_at:
                content.append(line[content_at:])
            elif content[-1].strip() and not _starts_block(line) and not _ITEM.match(line):
                content.append(line.lstrip())  # a lazy continuation of the item's paragraph
            else:
                break
            i += 1
        while len(content) > 1 and not content[-1].strip():
            content.pop()
        items.append(_blocks(content, depth + 1, refs))
    return ("list", start, items), i


def _skip_html(lines: list[str], i: int, end: str) -> int:
    """Past an HTML block: to its end marker, or to a blank line."""
    if end:
        while i < len(lines):
            i += 1
            if end in lines[i - 1].lower():
                return i
        return i
    while i < len(lines) and lines[i].strip():
        i += 1
    return i


def _cells_of(line: str) -> list[str]:
    line = line.strip().removeprefix("|")
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    return [cell.strip().replace("\\|", "|") for cell in _CELL.split(line)]


def _table(lines: list[str], i: int) -> tuple[tuple | None, int]:
    header = _cells_of(lines[i])
    if len(header) != len(_cells_of(lines[i + 1])):
        return None, i
    rows = []
    i += 2
    while i < len(lines) and lines[i].strip() and not _starts_block(lines[i]):
        cells = _cells_of(lines[i])
        rows.append((cells + [""] * len(header))[:len(header)])
        i += 1
    return ("table", header, rows), i


def _label(text: str) -> str:
    return " ".join(text.split()).casefold()


# Inline: the pieces of a paragraph, each a (text, style), to be wrapped.

_INLINE = _Pattern(r"""
    (?P<code>`+)
  | (?P<esc>\\[!-/:-@\[-`{-~])
  | (?P<soft>\n)
  | (?P<hard>\r)
  | (?P<delim>\*+|_+|~+)
  | (?P<image>!\[)
  | (?P<open>\[)
  | (?P<close>\])
  | (?P<auto><[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]{0,2000}>
            |<[\w.!\#$%&'*+/=?^`{|}~-]{1,200}@[\w-]{1,200}(?:\.[\w-]{1,200}){0,20}>)
  | (?P<html><!--(?:[^-]|-(?!->)){0,2000}-->
            |</?[A-Za-z][A-Za-z0-9-]{0,60}
             (?:\s{1,100}[A-Za-z_:][\w.:-]{0,100}
                (?:\s*=\s*(?:"[^"]{0,1000}"|'[^']{0,1000}'|[^\s"'=<>`]{1,1000}))?){0,50}
             \s{0,100}/?>)
  | (?P<entity>&(?:\#[0-9]{1,7}|\#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)
""", re.VERBOSE)
_DESTINATION = _Pattern(
    r"""\([ \t\n]*(?:<([^<>\n]{0,2000})>"""
    r"""|((?:[^\s()\\]|\\.){0,2000}(?:\((?:[^\s()\\]|\\.){0,2000}\)(?:[^\s()\\]|\\.){0,2000}){0,10}))"""
    r"""(?:[ \t\n]+(?:"[^"]{0,1000}"|'[^']{0,1000}'|\([^()]{0,1000}\)))?[ \t\n]*\)""")
_REF_LINK = _Pattern(r"\[((?:[^\]\\\n]|\\.){0,999})\]")
_SPECIAL = _Pattern(r"[`\\\n\r*_~!\[\]<&]")  # where a token may start: found first, as most text is plain
_ESCAPED = _Pattern(r"\\([!-/:-@\[-`{-~])")

_SPACES = _Pattern(r"( +)")
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


class _Delimiter:
    """A run of `*`, `_` or `~~` that may open or close emphasis; what it matched, by style."""

    __slots__ = ("can_close", "can_open", "char", "closes", "left", "opens")

    def __init__(self, char: str, size: int, can_open: bool, can_close: bool):
        self.char, self.left = char, size
        self.can_open, self.can_close = can_open, can_close
        self.opens: list[Style] = []
        self.closes: list[Style] = []


def _kind_of(char: str) -> str:
    """" " for white space (and the ends of the text), "p" for punctuation, "" for the rest."""
    if char.isspace():
        return " "
    if char in _PUNCTUATION:
        return "p"
    if char.isascii():
        return ""
    import unicodedata

    return "p" if unicodedata.category(char)[0] in "PS" else ""


def _delimiter(text: str, start: int, end: int) -> _Delimiter | None:
    char = text[start]
    if char == "~" and end - start != 2:  # strikethrough is `~~` exactly
        return None
    before = _kind_of(text[start - 1]) if start else " "
    after = _kind_of(text[end]) if end < len(text) else " "
    left = after != " " and (after != "p" or before in " p")
    right = before != " " and (before != "p" or after in " p")
    if char == "_":
        return _Delimiter(char, end - start, left and (not right or before == "p"),
                          right and (not left or after == "p"))
    return _Delimiter(char, end - start, left, right)


def _match_emphasis(nodes: list) -> None:
    """Pairs openers with closers, innermost first, as CommonMark does (without its rule of three)."""
    openers: dict[str, list[_Delimiter]] = {"*": [], "_": [], "~": []}
    for node in nodes:
        if not isinstance(node, _Delimiter):
            continue
        stack = openers[node.char]
        while node.can_close and node.left and stack:
            opener = stack[-1]
            use = 2 if opener.left >= 2 and node.left >= 2 else 1
            style = STRIKE if node.char == "~" else BOLD if use == 2 else ITALIC
            opener.left -= use
            node.left -= use
            opener.opens.append(style)
            node.closes.append(style)
            if not opener.left:
                stack.pop()
        if node.can_open and node.left:
            stack.append(node)


class _Renderer:
    """Blocks to lines of terminal text, in colour or not."""

    def __init__(self, color: bool, refs: dict[str, str]):
        self.color = color
        self.refs = refs
        self._sgr: dict[Style, str] = {}

    # Lines of pieces to text.

    def paint(self, text: str, style: Style | None) -> str:
        if not self.color or not text or style is None or style == PLAIN:
            return text
        sgr = self._sgr.get(style)
        if sgr is None:
            codes = [code for code, on in zip(("1", "2", "3", "4", "9"), style[:5]) if on]
            codes += [str(c) for c in style[5:] if c is not None]
            sgr = self._sgr[style] = "\x1b[" + ";".join(codes) + "m"
        return sgr + text + "\x1b[0m"

    def line(self, pieces: list[tuple[str, Style]]) -> str:
        """Adjacent pieces of one style painted together, as the eye cannot tell them apart."""
        out, run, style = [], [], None
        for text, piece_style in pieces:
            if piece_style != style and run:
                out.append(self.paint("".join(run), style))
                run = []
            run.append(text)
            style = piece_style
        if run:
            out.append(self.paint("".join(run), style))
        return "".join(out)

    # Blocks.

    def block(self, block: tuple, width: int) -> list[str]:
        kind = block[0]
        if kind == "para":
            return [self.line(row) for row in _wrap(self.inline(_joined(block[1]), PLAIN), width)]
        if kind == "heading":
            return self.heading(block[1], block[2], width)
        if kind == "code":
            return self.code(block[1], width)
        if kind == "rule":
            return [self.paint("-" * width, RULE)]
        if kind == "quote":
            prefix = self.paint("▌ ", QUOTE)
            inner = self.nested(block[1], max(width - 4, _MIN_WIDTH), QUOTE)
            return [prefix + line for line in inner]
        if kind == "list":
            return self.listing(block[1], block[2], width)
        return self.table(block[1], block[2], width)

    def nested(self, blocks: list[tuple], width: int, base: Style = PLAIN) -> list[str]:
        """The blocks inside a list item or quote: one after another, with no blank line between."""
        lines: list[str] = []
        for block in blocks:
            if block[0] == "para" and base != PLAIN:
                lines += [self.line(row) for row in _wrap(self.inline(_joined(block[1]), base), width)]
            else:
                lines += self.block(block, width)
        return lines

    def heading(self, level: int, text: str, width: int) -> list[str]:
        style = HEADING[level]
        if not self.color:
            text = "#" * level + (" " + text if text else "")
        rows = _wrap(self.inline(text, style), width)
        lines = [self.line(row) for row in rows]
        if self.color and level == 1:  # the title stands centred
            lines = [" " * max(0, (width - _cells("".join(t for t, _ in row))) // 2) + line
                     for row, line in zip(rows, lines)]
        return lines or [""]

    def code(self, code: list[str], width: int) -> list[str]:
        """A block of code: a cell of margin around it, on a dark ground, long lines folded."""
        inner = max(width - 2, 1)
        lines = [""]
        for source in code or [""]:
            for row in _wrap_code(visible(source.expandtabs(4).rstrip()), inner):
                shown = "".join(t for t, _ in row)
                if self.color:
                    shown = " " + shown + " " * (inner - _cells(shown) + 1)
                    lines.append(self.paint(shown, CODE_BLOCK))
                else:
                    lines.append((" " + shown).rstrip())
        lines.append("")
        return lines

    def listing(self, start: int | None, items: list[list[tuple]], width: int) -> list[str]:
        lines: list[str] = []
        if start is None:
            first, rest = self.paint(" • ", BULLET), "   "
            for item in items:
                inner = self.nested(item, max(width - 3, _MIN_WIDTH))
                lines += [(rest if n else first) + line for n, line in enumerate(inner or [""])]
            return lines
        number_width = len(str(start + len(items))) + 2
        for number, item in enumerate(items, start):
            inner = self.nested(item, max(width - number_width, _MIN_WIDTH))
            numeral = self.paint(str(number).rjust(number_width - 1) + " ", NUMBER)
            lines += [(" " * number_width if n else numeral) + line for n, line in enumerate(inner or [""])]
        return lines

    def table(self, header: list[str], rows: list[list[str]], width: int) -> list[str]:
        """Columns side by side, the widest wrapped until they fit; too many for the width: cells between bars."""
        cells = [[[p for p in self.inline(cell, TABLE if n == 0 else PLAIN) if p is not _BREAK] for cell in row]
                 for n, row in enumerate([header, *rows])]
        columns = len(header)
        widths = [max(_cells("".join(t for t, _ in row[col])) for row in cells) for col in range(columns)]
        room = width - 1 - 2 * (columns - 1)
        if room < 2 * columns:
            lines = []
            for row in cells:
                pieces: list[tuple[str, Style]] = []
                for col, cell in enumerate(row):
                    pieces += ([(" │ ", TABLE)] if col else []) + cell
                lines += [self.line(line) for line in _wrap(pieces, width)]
            return lines
        while sum(widths) > room:  # narrow the widest column, at most to the next widest
            widest = max(range(columns), key=widths.__getitem__)
            others = max((w for col, w in enumerate(widths) if col != widest), default=0)
            widths[widest] -= max(1, min(sum(widths) - room, widths[widest] - others))
        lines = []
        for number, row in enumerate(cells):
            wrapped = [_wrap(cell, max(widths[col], 1)) or [[]] for col, cell in enumerate(row)]
            for at in range(max(len(w) for w in wrapped)):
                pieces = [(" ", PLAIN)]
                for col, rows_of_cell in enumerate(wrapped):
                    part = rows_of_cell[at] if at < len(rows_of_cell) else []
                    pieces += part
                    if col < columns - 1:
                        pieces.append((" " * (widths[col] - _cells("".join(t for t, _ in part)) + 2), PLAIN))
                lines.append(self.line(pieces).rstrip(" "))
            if number == 0:
                lines.append(self.paint(" " + "─" * (sum(widths) + 2 * columns - 2), TABLE))
        return lines

    # Inline.

    def inline(self, text: str, base: Style) -> list[tuple[str, Style]]:
        """The pieces of a paragraph's text, styled; hard breaks as _BREAK."""
        return self.styled(self.nodes(text), base)

    def nodes(self, text: str) -> list:
        """Text, code spans, delimiters, breaks and link marks, with links resolved.

        A node is a str (text), ("code", str), ("soft",)/("hard",), a _Delimiter, or
        ("link", href) / ("end", href) / ("kbd", bool) / ("image",) / ("end-image",).
        """
        nodes: list = []
        ticks = _tick_runs(text)
        brackets: list[list] = []  # [node index, is image, sequence number, position after the bracket]
        inactive_below = 0  # links cannot hold links: older `[` openers than this are text
        sequence = 0
        pos = scan = 0  # text before pos is in nodes; the next token is at scan or after
        while True:
            special = _SPECIAL.search(text, scan)
            if not special:
                if pos < len(text):
                    nodes.append(text[pos:])
                break
            m = _INLINE.match(text, special.start())
            if not m:
                scan = special.start() + 1
                continue
            if m.start() > pos:
                nodes.append(text[pos:m.start()])
            kind, token = m.lastgroup, m.group()
            pos = scan = m.end()
            if kind == "code":
                end = ticks.close(len(token), pos)
                if end is None:
                    nodes.append(token)
                else:
                    nodes.append(("code", _code_span(text[pos:end])))
                    pos = scan = end + len(token)
            elif kind == "esc":
                nodes.append(token[1])
            elif kind in ("soft", "hard"):
                nodes.append((kind,))
            elif kind == "delim":
                delimiter = _delimiter(text, m.start(), m.end())
                nodes.append(delimiter if delimiter else token)
            elif kind in ("image", "open"):
                sequence += 1
                brackets.append([len(nodes), kind == "image", sequence, pos])
                nodes.append(token)
            elif kind == "close":
                if not brackets:
                    nodes.append("]")
                    continue
                index, image, number, inside = brackets.pop()
                href, after = self.link_target(text, pos, text[inside:m.start()])
                if href is None or (not image and number < inactive_below):
                    nodes.append("]")
                    continue
                pos = scan = after
                if image:
                    nodes[index] = ("image",)
                    nodes.append(("end-image",))
                else:
                    nodes[index] = ("link", href)
                    nodes.append(("end", href))
                    inactive_below = number
            elif kind == "auto":
                href = token[1:-1]
                nodes += [("link", href), href, ("end", href)]
            elif kind == "html":
                lowered = token.lower()
                if lowered in ("<kbd>", "</kbd>"):
                    nodes.append(("kbd", lowered == "<kbd>"))
            else:
                import html

                nodes.append(html.unescape(token))
        _match_emphasis(nodes)
        return nodes

    def link_target(self, text: str, pos: int, inside: str) -> tuple[str | None, int]:
        """Where a `[...]` ending at pos links to (inline or by reference), and where the link ends."""
        m = _DESTINATION.match(text, pos)
        if m:
            href = m.group(1) if m.group(1) is not None else m.group(2)
            return _ESCAPED.sub(r"\1", href), m.end()
        if not self.refs:
            return None, pos
        m = _REF_LINK.match(text, pos)
        label = m.group(1) if m and m.group(1) else inside
        href = self.refs.get(_label(label))
        return href, (m.end() if m else pos) if href is not None else pos

    def styled(self, nodes: list, base: Style) -> list[tuple[str, Style]]:
        pieces: list[tuple[str, Style]] = []
        active: dict[Style, int] = {}  # overlays in effect, in the order they first applied
        current = base

        def now(extra: Style) -> Style:
            return _combine(current, extra)

        def toggle(style: Style, by: int) -> None:
            nonlocal current
            active[style] = active.get(style, 0) + by
            current = base
            for overlay, count in active.items():
                if count > 0:
                    current = _combine(current, overlay)

        for node in nodes:
            if isinstance(node, str):
                pieces.append((visible(node.replace("\t", " ").replace("\n", " ")), current))  # `&#10;` too
            elif isinstance(node, _Delimiter):
                for style in node.closes:
                    toggle(style, -1)
                if node.left:
                    pieces.append((node.char * node.left, current))
                for style in reversed(node.opens):
                    toggle(style, 1)
            elif node[0] == "code":
                pieces.append((visible(node[1]), now(CODE)))
            elif node[0] == "soft":
                pieces.append((" ", current))
            elif node[0] == "hard":
                pieces.append(_BREAK)
            elif node[0] == "link":
                toggle(LINK, 1)
            elif node[0] == "end":
                toggle(LINK, -1)
                pieces += [(" (", current), (visible(node[1]), now(URL)), (")", current)]
            elif node[0] == "kbd":
                toggle(KBD, 1 if node[1] else -1)
            elif node[0] == "image":
                pieces.append((IMAGE, current))
            elif node[0] == "end-image":
                pieces.append((" ", current))
        return pieces


class _TickRuns:
    """Where each run of backticks is, by length: finds a code span's end without rescanning."""

    def __init__(self, runs: dict[int, list[int]]):
        self.runs = runs
        self.next = dict.fromkeys(runs, 0)

    def close(self, size: int, after: int) -> int | None:
        positions = self.runs.get(size)
        if not positions:
            return None
        k = self.next[size]
        while k < len(positions) and positions[k] < after:
            k += 1
        self.next[size] = k
        return positions[k] if k < len(positions) else None


def _tick_runs(text: str) -> _TickRuns:
    runs: dict[int, list[int]] = {}
    if "`" in text:
        for m in re.finditer(r"`+", text):
            runs.setdefault(len(m.group()), []).append(m.start())
    return _TickRuns(runs)


def _code_span(text: str) -> str:
    text = text.replace("\n", " ").replace("\r", " ")
    if len(text) > 2 and text[0] == " " and text[-1] == " " and text.strip(" "):
        return text[1:-1]
    return text


def _joined(lines: list[str]) -> str:
    """A paragraph's lines as one text: "\n" a soft break, "\r" a hard one (two spaces or a backslash)."""
    out = []
    last = len(lines) - 1
    for n, line in enumerate(lines):
        if n == last:
            out.append(line.rstrip(" "))
        elif line.endswith("\\") and not line.endswith("\\\\"):
            out.append(line[:-1] + "\r")
        elif line.endswith("  "):
            out.append(line.rstrip(" ") + "\r")
        else:
            out.append(line.rstrip(" ") + "\n")
    return "".join(out)


def _combine(under: Style, over: Style) -> Style:
    key = (under, over)
    style = _COMBINED.get(key)
    if style is None:
        style = _COMBINED[key] = _layered(under, over)
    return style


_COMBINED: dict[tuple[Style, Style], Style] = {}


def _layered(under: Style, over: Style) -> Style:
    return (*(a or b for a, b in zip(under[:5], over[:5])),
            over[5] if over[5] is not None else under[5], over[6] if over[6] is not None else under[6])


def _cells(text: str) -> int:
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


def _wrap(pieces: list[tuple[str, Style]], width: int) -> list[list[tuple[str, Style]]]:
    """Pieces as rows of at most `width` cells, broken at spaces; a longer word is folded."""
    rows: list[list[tuple[str, Style]]] = []
    row: list[tuple[str, Style]] = []
    used = 0
    spaces: list[tuple[str, Style]] = []
    word: list[tuple[str, Style]] = []
    word_cells = 0

    def place() -> None:
        nonlocal row, used, spaces, word, word_cells
        if not word:
            return
        gap = sum(len(t) for t, _ in spaces)
        if row and used + gap + word_cells <= width:
            row += spaces
            row += word
            used += gap + word_cells
        else:
            if row:
                rows.append(row)
            if word_cells > width:
                folded = _fold(word, width)
                rows.extend(folded[:-1])
                row = folded[-1]
                used = _cells("".join(t for t, _ in row))
            else:
                row, used = word, word_cells
        spaces, word, word_cells = [], [], 0

    for piece in pieces:
        if piece is _BREAK:
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
                word_cells += _cells(part)
    place()
    if row:
        rows.append(row)
    return rows


def _wrap_code(text: str, width: int) -> list[list[tuple[str, Style]]]:
    """A line of code broken at spaces when too long; its indentation stays on its first row."""
    body = text.lstrip(" ")
    indent = len(text) - len(body)
    if _cells(text) <= width or indent >= width:
        return _fold([(text, CODE_BLOCK)], width) or [[("", CODE_BLOCK)]]
    rows = _wrap([(body, CODE_BLOCK)], width - indent)
    rows[0].insert(0, (" " * indent, CODE_BLOCK))
    return rows


def _fold(pieces: list[tuple[str, Style]], width: int) -> list[list[tuple[str, Style]]]:
    """Pieces cut into rows of exactly `width` cells (the last one shorter)."""
    rows: list[list[tuple[str, Style]]] = []
    row: list[tuple[str, Style]] = []
    used = 0
    for text, style in pieces:
        at, ascii = 0, text.isascii()
        while at < len(text):
            room = width - used
            if ascii:
                end = min(len(text), at + room)
                cells = end - at
            else:
                end, cells = _fitting(text, at, room)
                if end == at and not row:  # a wide character in a one-cell column: it overflows
                    end, cells = at + 1, _cells(text[at])
            if end > at:
                row.append((text[at:end], style))
                used += cells
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
        cells = _cells(text[index])
        if used + cells > room:
            return index, used
        used += cells
    return len(text), used
