"""What a command's output left switched on in the terminal, and the bytes that switch it off.

A command killed mid-way (a pager, a full-screen tool, a `tput smcup` demo) can leave the
user's terminal on the alternate screen, with the cursor hidden or drawing lines instead of
letters; demorun writes the reset after such a command and when it exits.
"""
from __future__ import annotations

import re

# DEC private settings (`ESC [ ? N h`) that outlive a program: their number, and the bytes that reset them.
_PRIVATE = {b"1049": b"\x1b[?1049l", b"1047": b"\x1b[?1047l", b"47": b"\x1b[?47l", b"25": b"\x1b[?25h",
            b"1": b"\x1b[?1l", b"1000": b"\x1b[?1000l", b"1002": b"\x1b[?1002l", b"1003": b"\x1b[?1003l",
            b"1006": b"\x1b[?1006l", b"2004": b"\x1b[?2004l"}
_OFF_IS_SET = frozenset({b"25"})  # the cursor is hidden by `l`, shown by `h`
_SEQUENCE = re.compile(rb"\x1b\[\?([\d;]+)([hl])|\x1b\(([0B])|([\x0e\x0f])")
_LONGEST = 24  # a sequence split across two reads is at most this long


class TerminalLeftovers:
    """Follows what a stream of output switches on and off; linear in its size."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._set: dict[bytes, bool] = {}
        self._line_drawing = self._shifted = False
        self._tail = b""

    def feed(self, data: bytes) -> None:
        if b"\x1b" not in data and b"\x0e" not in data and b"\x0f" not in data and not self._tail:
            return
        buf = self._tail + data
        end = 0
        for m in _SEQUENCE.finditer(buf):
            end = m.end()
            if m.group(1):
                on = m.group(2) == b"h"
                for number in m.group(1).split(b";"):
                    if number in _PRIVATE:
                        self._set[number] = on != (number in _OFF_IS_SET)
            elif m.group(3):
                self._line_drawing = m.group(3) == b"0"
            else:
                self._shifted = m.group(4) == b"\x0e"
        last = buf.rfind(b"\x1b", end)
        self._tail = buf[last:][:_LONGEST] if last >= 0 and len(buf) - last < _LONGEST else b""

    def restore(self) -> bytes:
        """The bytes that switch off everything seen switched on; b"" if nothing is on.
        Afterwards the terminal counts as normal again."""
        out = b"".join(_PRIVATE[number] for number, on in self._set.items() if on)
        if self._line_drawing:
            out += b"\x1b(B"
        if self._shifted:
            out += b"\x0f"
        self._reset()
        return out + b"\x1b[0m" if out else b""
