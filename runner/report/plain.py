"""Terminal text made fit for reports: as the screen showed it, on one line where a title needs it."""
from __future__ import annotations

import re

from ..verify.normalise import normalise


def plain(text: str) -> str:
    """Text as a reader saw it on the terminal, with nothing a page or XML file cannot hold."""
    return "\n".join(normalise(text))


def first_line(command: str, width: int = 72) -> str:
    """A command shortened to one line, for names and titles."""
    # Backslash continuations are one line to bash and read better as one here.
    lines = re.sub(r"\s*\\\n\s*", " ", command.strip()).splitlines() or [""]
    head = lines[0]
    more = len(lines) > 1
    if len(head) > width:
        head, more = head[: width - 1].rstrip(), True
    return head + " …" if more else head


def clip_lines(text: str, limit: int) -> str:
    """Very long output cut in the middle; the end, where errors usually are, is kept longer."""
    lines = text.split("\n")
    if len(lines) <= limit:
        return text
    head = limit // 10
    tail = limit - head
    cut = len(lines) - limit
    return "\n".join(lines[:head] + [f"… {cut} lines not shown …"] + lines[-tail:])
