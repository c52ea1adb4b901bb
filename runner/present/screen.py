"""What the audience sees: prose, commentary, prompts, typed commands and live output.

One writer for `run` and `present`, so that a recording made by either
shows the same thing; every byte goes through `write`, which also feeds
the optional recorder.
"""
from __future__ import annotations

import io
import os
import random
import re
import shutil
import sys
import time
from collections.abc import Callable
from typing import BinaryIO

from ..session.term_modes import TerminalModes

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
        self.width = width or shutil.get_terminal_size((80, 24)).columns
        self.record = record
        self.raw_mode = False  # the live presenter sets this while the terminal is raw
        self.at_line_start = True
        self._tail = b"\n\n"  # the last two bytes shown, carriage returns aside: is a blank line above?
        self.modes = TerminalModes()  # what commands' output switched on in the user's terminal

    def write(self, data: bytes | str) -> None:
        raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
        if not raw:
            return
        self.out.write(raw)
        self.out.flush()
        if self.record:
            self.record(raw)
        self.at_line_start = raw.endswith(b"\n")
        self._tail = (self._tail + raw.replace(b"\r", b""))[-2:]
        self.modes.feed(raw)

    def restore_modes(self) -> None:
        """Back to the normal screen, a visible cursor and letters, if output switched them off."""
        reset = self.modes.restore()
        if reset:
            self.out.write(reset)
            self.out.flush()

    def style(self, text: str, *codes: str) -> str:
        return "".join(codes) + text + RESET if self.color and codes else text

    def newline_if_needed(self) -> None:
        if not self.at_line_start:
            self.write("\r\n" if self.raw_mode else "\n")

    def blank_line(self) -> None:
        """One empty line between blocks (prose, then commands and their output), never two."""
        self.newline_if_needed()
        if self._tail != b"\n\n":
            self.write("\r\n" if self.raw_mode else "\n")

    def line(self, text: str = "", *codes: str) -> None:
        """A line of our own text; CRLF in raw mode so lines start at column 0."""
        self.newline_if_needed()
        end = "\r\n" if self.raw_mode else "\n"
        body = text.replace("\n", end)
        self.write(self.style(body, *codes) + end)

    def prose(self, markdown: str) -> None:
        """Markdown rendered for the terminal at its width (headings, emphasis, code, lists, links)."""
        if not markdown.strip():
            return
        self.newline_if_needed()
        self.write(render_markdown(markdown, width=self.width, color=self.color,
                                   crlf=self.raw_mode))

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
        """
        shown = text.replace("\n", "\r\n" if self.raw_mode else "\n")
        if not speed:
            self.write(self.style(shown, BOLD))
            return
        for index, char in enumerate(shown):
            if interrupted():
                self.write(self.style(shown[index:], BOLD))
                return
            self.write(self.style(char, BOLD))
            time.sleep(random.uniform(0.5, 1.5) / speed)

    def end_command(self) -> None:
        self.write("\r\n" if self.raw_mode else "\n")

    def notice(self, text: str) -> None:
        self.line(text, YELLOW)

    def failure(self, text: str) -> None:
        self.line(text, BOLD, RED)

    def clear(self) -> None:
        self.write("\x1b[H\x1b[2J\x1b[3J")
        self.at_line_start = True
        self._tail = b"\n\n"


def render_markdown(markdown: str, *, width: int, color: bool, crlf: bool = False) -> str:
    """Markdown as terminal text; rich is imported here so quick commands never pay for it."""
    from rich.console import Console
    from rich.markdown import Markdown

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=color, no_color=not color,
                      color_system="standard" if color else None, highlight=False,
                      emoji=False, legacy_windows=False)
    console.print(Markdown(markdown, hyperlinks=False))
    text = _PADDING.sub(r"\1", buffer.getvalue())
    return text.replace("\n", "\r\n") if crlf else text


# rich pads every line to the full width; trailing blanks only make copies and recordings noisy.
_PADDING = re.compile(r" +((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)
