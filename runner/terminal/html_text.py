"""The text of raw HTML in prose, for a terminal: HTML tags and comments left out, what they hold kept.

A tag that names no HTML element (`<<Explain this here>>`, `<cluster-name>`) is a note or a
placeholder the author meant to be read: it is text. Linear in the HTML, however it is
broken: an unclosed comment ends the scan, a `<` that opens no tag is text.
"""
from __future__ import annotations

import re
from html import unescape

# Elements that start a line of their own in a browser, then the others a workshop may use.
BLOCKS = frozenset((
    "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog", "div",
    "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "hr", "html", "legend", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table",
    "tbody", "td", "tfoot", "th", "thead", "tr", "ul"))
ELEMENTS = BLOCKS | frozenset((
    "a", "abbr", "audio", "b", "bdi", "bdo", "big", "br", "button", "cite", "code", "col", "colgroup", "data",
    "del", "dfn", "em", "font", "i", "iframe", "img", "input", "ins", "kbd", "label", "link", "mark", "meta",
    "option", "picture", "q", "rp", "rt", "ruby", "s", "samp", "script", "select", "small", "source", "span",
    "strike", "strong", "style", "sub", "sup", "svg", "textarea", "time", "tt", "u", "var", "video", "wbr"))
_HIDDEN = frozenset({"script", "style"})  # what these hold is not text

_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)(?:[\s/][^<>]*)?>")
_SPACE = re.compile(r"\s+")


def html_parts(raw: str) -> list[tuple[str, str]]:
    """("text", text) with entities decoded and white space as single spaces, or ("tag", name)
    for each HTML tag, `/name` when it closes; comments are dropped."""
    parts: list[tuple[str, str]] = []
    at, hidden = 0, ""
    while at < len(raw):
        start = raw.find("<", at)
        if start < 0:
            start = len(raw)
        if start > at and not hidden:
            parts.append(("text", _SPACE.sub(" ", unescape(raw[at:start]))))
        if start == len(raw):
            break
        if raw.startswith("<!--", start):
            end = raw.find("-->", start + 4)
            at = len(raw) if end < 0 else end + 3
            continue
        tag = _TAG.match(raw, start)
        name = tag.group(2).lower() if tag else ""
        if tag is None or name not in ELEMENTS:
            at = start + 1 if tag is None else tag.end()
            if not hidden:
                parts.append(("text", _SPACE.sub(" ", raw[start:at])))
        else:
            at = tag.end()
            if hidden:
                hidden = "" if tag.group(1) and name == hidden else hidden
            elif name in _HIDDEN and not tag.group(1):
                hidden = name
            else:
                parts.append(("tag", tag.group(1) + name))
    return parts
