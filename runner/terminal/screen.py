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
from typing import TYPE_CHECKING, BinaryIO

from ..printable import visible

if TYPE_CHECKING:
    from .leftovers import TerminalLeftovers

PROMPT = "$ "
DIM, BOLD, RESET = "\x1b[2m", "\x1b[1m", "\x1b[0m"
RED, YELLOW, GREEN = "\x1b[31m", "\x1b[33m", "\x1b[32m"
HUMAN_PACE = (0.010, 0.100)  # seconds between two keystrokes, as the old tool typed
TYPING_CAP = 2.0  # seconds: the longest any command takes to type, whatever its length
TICK = 0.005  # seconds: keystrokes due sooner than this after the last write go out with it
# A status line below the cursor's row: down a row (scrolling if the row is the last), back up,
# so the cursor's place is saved where the row now is, then down again to the empty row.
_BELOW, _BACK = "\x1bD\x1b[A\x1b7\x1bD\r\x1b[K", "\r\x1b[K\x1b8"


def color_wanted(stream) -> bool:
    """Colours only for a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def keystrokes(text: str, speed: float | None) -> list[tuple[str, float]]:
    """`text` typed out: pieces and the pause after each, at `speed` characters a second (None:
    a human pace). However long the text, the pauses add up to TYPING_CAP at most: pieces are
    single characters until the pace gets faster than one write each TICK."""
    import random  # here: the first screen does not wait for it

    pace = [random.uniform(0.5, 1.5) / speed if speed else random.uniform(*HUMAN_PACE) for _ in text]
    total = sum(pace)
    scale = TYPING_CAP / total if total > TYPING_CAP else 1.0
    pieces: list[tuple[str, float]] = []
    start, due = 0, 0.0
    for end, pause in enumerate(pace, 1):
        due += pause * scale
        if due >= TICK or end == len(text):
            pieces.append((text[start:end], due))
            start, due = end, 0.0
    return pieces


def cells(line: str) -> int:
    """How many columns a line of text takes on a terminal: wide characters two, marks none."""
    if line.isascii() and "\t" not in line:
        return len(line)
    import unicodedata

    column = 0
    for char in line:
        if char == "\t":
            column += 8 - column % 8
        elif unicodedata.combining(char) or unicodedata.category(char) == "Cf":
            continue
        else:
            column += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return column


def rows(text: str, width: int) -> int:
    """How many terminal rows `text` (without escape sequences) takes from the start of a row."""
    return sum(max(1, -(-cells(line) // max(1, width))) for line in text.split("\n"))


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
        self._below = False  # the status line is on the row under the cursor's, which holds text
        self._message = False  # the status line is a message, not an offer such as the start cue
        self._paged = False  # a page of ours is up on the alternate screen
        self._before_prompt = (self._tail, True)  # (tail, empty) where the last prompt began

    def write(self, data: bytes | str, *, record: bool = True) -> None:
        """Show `data`; `record=False` keeps it out of the recording (what is for the presenter)."""
        raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
        if not raw:
            return
        if self._status is not None:
            self.clear_status()
        self.out.write(raw)
        self.out.flush()
        if self.record and record:
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
            from .leftovers import TerminalLeftovers

            self._leftovers = TerminalLeftovers()
        return self._leftovers

    # The presenter's own messages: never recorded, and the screen put back afterwards.

    def _private(self, text: str | bytes) -> None:
        self.out.write(text.encode("utf-8", "replace") if isinstance(text, str) else text)
        self.out.flush()

    @property
    def status_shown(self) -> bool:
        return self._status is not None

    @property
    def message_shown(self) -> bool:
        """A message of the presenter's holds a row: the next key is only for putting it away."""
        return self._status is not None and self._message

    def show_status(self, text: str, *, message: bool = True) -> None:
        """One line for the presenter, until clear_status or a write of the show.

        It never covers anything: on the cursor's row when that row is empty, else on the row
        under it, the one the show writes next anyway (a command's output, the next prompt).
        `message=False` for an offer (the start cue), which the next key answers.
        """
        if self._status is None:
            self._below = bool(_CSI.sub(b"", bytes(self._row)).strip())
            lead = _BELOW if self._below else "\r\x1b[K"
        else:
            lead = "\r\x1b[K"
        self._status, self._message = text, message
        self._private(lead + self.style(_cut(visible(text), self.width - 1), DIM))

    def clear_status(self) -> None:
        """The rows under a status line as they were; the audience's screen has not moved."""
        if self._status is None:
            return
        self._status = None
        self._private(_BACK if self._below else b"\r\x1b[K" + _last_row(bytes(self._row), self.width))

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

    def newline_if_needed(self, *, record: bool = True) -> None:
        if not self.at_line_start:
            self.write("\n", record=record)

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

    def aside(self, text: str, *codes: str) -> None:
        """A line for the presenter's eyes on the audience's terminal, kept out of the recording."""
        self.newline_if_needed(record=False)
        self.write(self.style(visible(text), *codes) + "\n", record=False)

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
        self._before_prompt = (self._tail, self.empty)
        self.write(self.style(PROMPT, BOLD, GREEN))

    def command(self, text: str, *, speed: float | None = None) -> None:
        """Show a command after the prompt, typed at `speed` characters a second (None: at once).

        Control characters in it are shown, not acted on: bash gets them, the terminal does not.
        """
        text = visible(text)
        if not speed:
            self.write(self.style(text, BOLD))
            return
        for piece, pause in keystrokes(text, speed):
            self.write(self.style(piece, BOLD))
            time.sleep(pause)

    def take_back(self, command: str) -> None:
        """Erase the prompt and `command` shown after it, not run: the cursor is where the prompt began."""
        count = rows(PROMPT + visible(command), self.width)
        self.write("\r\x1b[K" + "\x1b[A\x1b[K" * (count - 1))
        self.at_line_start = True
        self._tail, self.empty = self._before_prompt
        self._row.clear()

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
    from .prose import render  # with its Markdown reader: `check` and quiet runs show no prose

    return render(markdown, width=width, color=color)
