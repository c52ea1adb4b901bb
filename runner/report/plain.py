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


# A report is read in a browser or a CI page: megabytes of log (even one 50 MB line) make it
# unusable, and the failure text already names the difference.
OUTPUT_LINE_LIMIT = 2000
OUTPUT_BYTE_LIMIT = 256 * 1024
DETAIL_CHAR_LIMIT = 2000  # one line of a difference (a whole minified JSON document, say)


def clip_output(text: str) -> str:
    """A command's output cut to what a report can show: at most so many lines, and so many bytes."""
    return clip_bytes(clip_lines(text, OUTPUT_LINE_LIMIT), OUTPUT_BYTE_LIMIT)


def clip_lines(text: str, limit: int) -> str:
    """Very long output cut in the middle; the end, where errors usually are, is kept longer."""
    lines = text.split("\n")
    if len(lines) <= limit:
        return text
    head = limit // 10
    tail = limit - head
    cut = len(lines) - limit
    return "\n".join(lines[:head] + [f"… {cut} lines not shown …"] + lines[-tail:])


def clip_bytes(text: str, limit: int) -> str:
    """Text over `limit` UTF-8 bytes cut in the middle like clip_lines, never inside a character."""
    if len(text) * 4 <= limit:
        return text  # no character takes more than four bytes
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    head = limit // 10
    tail = limit - head
    cut = len(data) - head - tail
    return (data[:head].decode("utf-8", "ignore") + f"\n… {cut} bytes not shown …\n"
            + data[-tail:].decode("utf-8", "ignore"))


def clip_line(text: str, limit: int = DETAIL_CHAR_LIMIT) -> str:
    """One long line cut in the middle, keeping both ends, where differences usually show."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]} … {len(text) - 2 * half} characters not shown … {text[-half:]}"
