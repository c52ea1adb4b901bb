"""What the audience sees: prose, commentary, prompts, typed commands and live output.

One writer for `run` and `present`, so that a recording made by either
shows the same thing; every byte goes through `write`, which also feeds
the optional recorder. The presenter's own messages (a status line in
place, a page over the screen) bypass it: the audience's record never
holds them and the screen is put back as it was.
"""
from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable

from ..printable import visible
from . import prose

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every start would pay for it
if TYPE_CHECKING:
    from typing import BinaryIO

    from ..session.leftovers import TerminalLeftovers

PROMPT = "$ "
DIM, BOLD, RESET = "\x1b[2m", "\x1b[1m", "\x1b[0m"
RED, YELLOW, GREEN = "\x1b[31m", "\x1b[33m", "\x1b[32m"


def color_wanted(stream) -> bool:
    """Colours only for a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


class Screen:
    """Writes to the terminal (and a recorder) in the house look."""

    def __init__(self, out: BinaryIO | None = None, *, color: bool | None = None,
                 width: int | None = None, record: Callable[[bytes], None] | None = None):
        self.out = out if out is not None else sys.stdout.buffer
        self.color = color_wanted(sys.stdout) if color is None else color
        if not width:
            import shutil

            width = shutil.get_terminal_size((80, 24)).columns
        self.width = width
        self.record = record
        self.at_line_start = True
        self._tail = b"\n\n"  # the last two bytes shown, carriage returns aside: is a blank line above?
        # What commands' output switched on in the user's terminal: followed from the first byte
        # that may switch something on (imported then: the first screen should not pay for it).
        self._leftovers: TerminalLeftovers | None = None
        self.empty = True  # nothing shown since the start or the last clear
        self._row = bytearray()  # what the cursor's row shows, to put it back after a status line
        self._status: str | None = None
        self._paged = False  # a page of ours is up on the alternate screen

    def write(self, data: bytes | str) -> None:
        raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
        if not raw:
            return
        if self._status is not None:
            self.clear_status()
        self.out.write(raw)
        self.out.flush()
        if self.record:
            self.record(raw)
        self.at_line_start = raw.endswith(b"\n")
        self._tail = (self._tail + raw.replace(b"\r", b""))[-2:]
        if self._leftovers is not None or _MAY_SWITCH.search(raw):
            self.leftovers.feed(raw)
        self.empty = False
        newline = raw.rfind(b"\n")
        if newline >= 0:
            self._row = bytearray(raw[newline + 1:])
        else:
            self._row += raw
            del self._row[:-_ROW_KEPT]

    @property
    def leftovers(self) -> TerminalLeftovers:
        if self._leftovers is None:
            from ..session.leftovers import TerminalLeftovers

            self._leftovers = TerminalLeftovers()
        return self._leftovers

    # The presenter's own messages: never recorded, and the screen put back afterwards.

    def _private(self, text: str | bytes) -> None:
        self.out.write(text.encode("utf-8", "replace") if isinstance(text, str) else text)
        self.out.flush()

    @property
    def status_shown(self) -> bool:
        return self._status is not None

    def show_status(self, text: str) -> None:
        """One line for the presenter in place of the cursor's row, until clear_status or a key."""
        self._status = text
        self._private("\r\x1b[K" + self.style(_cut(visible(text), self.width - 1), DIM))

    def clear_status(self) -> None:
        """The row under a status line as it was; the audience's screen has not moved."""
        if self._status is None:
            return
        self._status = None
        self._private(b"\r\x1b[K" + _last_row(bytes(self._row), self.width))

    def open_page(self, lines: list[str]) -> None:
        """A page over the screen (the terminal's alternate screen), for lists and diffs.

        Lines come cut to the width already: they may carry colours, which must not count.
        """
        self.clear_status()
        self._paged = True
        body = "\r\n".join(lines)
        self._private("\x1b[?1049h\x1b[H\x1b[2J" + body + "\r\n")

    def page_input(self, text: str) -> None:
        """The line being typed at the bottom of a page."""
        self._private("\r\x1b[K" + _cut(visible(text), self.width - 1))

    def close_page(self) -> None:
        if self._paged:
            self._paged = False
            self._private("\x1b[?1049l")

    def reset_leftovers(self) -> None:
        """Back to the normal screen, a visible cursor and letters, if output switched them off."""
        self.close_page()
        reset = self._leftovers.restore() if self._leftovers is not None else b""
        if reset:
            self.out.write(reset)
            self.out.flush()

    def style(self, text: str, *codes: str) -> str:
        return "".join(codes) + text + RESET if self.color and codes else text

    def newline_if_needed(self) -> None:
        if not self.at_line_start:
            self.write("\n")

    def blank_line(self) -> None:
        """One empty line between blocks (prose, then commands and their output), never two."""
        self.newline_if_needed()
        if self._tail != b"\n\n":
            self.write("\n")

    def line(self, text: str = "", *codes: str) -> None:
        """A line of our own text, or of the workshop's (commentary, @print): its control
        characters are shown, never acted on (prose.visible)."""
        self.newline_if_needed()
        self.write(self.style(visible(text), *codes) + "\n")

    def prose(self, markdown: str) -> None:
        """Markdown rendered for the terminal at its width (headings, emphasis, code, lists, links)."""
        if not markdown.strip():
            return
        self.newline_if_needed()
        self.write(render_markdown(markdown, width=self.width, color=self.color))

    def comment(self, text: str) -> None:
        for line in text.splitlines() or [""]:
            self.line(f"# {line}" if line else "#", DIM)

    def printed(self, text: str) -> None:
        """@print output: coloured like commentary."""
        self.line(text, DIM)

    def prompt(self) -> None:
        self.newline_if_needed()
        self.write(self.style(PROMPT, BOLD, GREEN))

    def command(self, text: str, *, speed: float | None = None,
                interrupted: Callable[[], bool] = lambda: False) -> None:
        """Show a command after the prompt, typed at `speed` characters a second (None: at once).

        `interrupted` is polled between keystrokes so a presenter can finish the typing early.
        Control characters in it are shown, not acted on: bash gets them, the terminal does not.
        """
        text = visible(text)
        if not speed:
            self.write(self.style(text, BOLD))
            return
        import random

        for index, char in enumerate(text):
            if interrupted():
                self.write(self.style(text[index:], BOLD))
                return
            self.write(self.style(char, BOLD))
            time.sleep(random.uniform(0.5, 1.5) / speed)

    def end_command(self) -> None:
        self.write("\n")

    def notice(self, text: str) -> None:
        self.line(text, YELLOW)

    def failure(self, text: str) -> None:
        self.line(text, BOLD, RED)

    def clear(self) -> None:
        self.write("\x1b[H\x1b[2J\x1b[3J")
        self.at_line_start = True
        self._tail = b"\n\n"
        self.empty = True
        self._row.clear()


_ROW_KEPT = 16384
# Any byte that may begin a switch (alternate screen, cursor, character set), or complete one
# begun before; whole colour sequences (all our own text has) switch nothing. Until one is seen
# there is nothing to follow.
_MAY_SWITCH = re.compile(rb"\x1b(?!\[[0-9;]*m)|[\x0e\x0f]")
_CSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(0, width - 1)] + "…"


def _last_row(row: bytes, width: int) -> bytes:
    """What the last terminal row of a logical line shows: all of it, or the part past its last wrap.

    Escape sequences are kept wherever they are, so the colours of the tail stay right.
    """
    visible = len(_CSI.sub(b"", row).decode("utf-8", "replace"))
    if visible <= width:
        return row
    skip = (visible - 1) // width * width
    kept, seen, pos = bytearray(), 0, 0
    for match in _CSI.finditer(row):
        plain = row[pos:match.start()].decode("utf-8", "replace")
        kept += plain[max(0, skip - seen):].encode()
        seen += len(plain)
        kept += match.group()
        pos = match.end()
    kept += row[pos:].decode("utf-8", "replace")[max(0, skip - seen):].encode()
    return bytes(kept)


def render_markdown(markdown: str, *, width: int, color: bool) -> str:
    """Markdown as terminal text (runner.terminal.prose): headings keep their `#` marks without colour."""
    return prose.render(markdown, width=width, color=color)
