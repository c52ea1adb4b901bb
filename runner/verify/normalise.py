"""Output as a terminal would show it: escapes gone, carriage returns applied, lines trimmed."""
from __future__ import annotations

import re

# OSC (titles, hyperlinks), DCS, and every CSI except erase-in-line, which the
# carriage-return emulation below needs to see.
_ESCAPES = re.compile(
    r"\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"
    r"|\x1bP[^\x1b\n]*(?:\x1b\\)?"
    r"|\x1b\[(?![0-2]?K)[0-?]*[ -/]*[@-~]"
    r"|\x1b[ -/]*[0-Z\\-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
_ERASE = re.compile(r"\x1b\[([0-2]?)K")
_REWRITE = re.compile(r"(\r|\x08|\x1b\[[0-2]?K)")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # TAB (\x09) is not one of them


def normalise(text: str, *, tabs: bool = False) -> list[str]:
    """The lines of `text` as a terminal would leave them, for comparing two runs.

    With `tabs`, TABs stay: a tool that joins cells with them says where its columns part.
    """
    if not _has_controls(text):
        # Nothing for a terminal to redraw (most output): trimming and tabs are all there is to do.
        lines = [line.rstrip() for line in text.split("\n")]
        if not tabs and "\t" in text:
            lines = [line.expandtabs(8) if "\t" in line else line for line in lines]
    else:
        text = _ESCAPES.sub("", text.replace("\r\n", "\n"))
        lines = [_line(line, tabs) for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _has_controls(text: str) -> bool:
    if text.isascii():  # deleting the printable bytes in C beats a regex search over the text
        return bool(text.encode("ascii").translate(None, _ASCII_KEPT))
    return _CONTROLS.search(text) is not None


_ASCII_KEPT = bytes(range(0x20, 0x7F)) + b"\t\n"


def _line(line: str, tabs: bool = False) -> str:
    if "\r" in line or "\x08" in line:
        line = _overwrite(line)
    elif "\x1b" in line:
        line = _ERASE.sub("", line)
    if not line.isprintable():
        line = _CONTROLS.sub("", line)
    if "\t" in line and not tabs:
        line = line.expandtabs(8)
    return line.rstrip()


def _overwrite(line: str) -> str:
    """Replay carriage returns, backspaces and erases the way a terminal draws them."""
    cells: list[str] = []
    col = 0
    for token in _REWRITE.split(line):
        if token == "\r":
            col = 0
        elif token == "\x08":
            col = max(0, col - 1)
        elif erase := _ERASE.fullmatch(token):
            how = erase.group(1)
            if how in ("", "0"):
                del cells[col:]
            elif how == "1":
                cells[: col + 1] = [" "] * min(col + 1, len(cells))
            else:
                cells = [" "] * len(cells)
        elif token:
            if col > len(cells):
                cells.extend(" " * (col - len(cells)))
            cells[col : col + len(token)] = token
            col += len(token)
    return "".join(cells)
