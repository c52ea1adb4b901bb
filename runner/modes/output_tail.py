"""The last lines a command printed, for the account of a failure that nobody saw happen.

`run` shows them under a hidden command that failed, `present` under a hidden command that
ended the shell: both read a bounded tail of each output, from its first whole line, so a line
cut in two (perhaps through a secret, which no mask would then find) is never shown.
"""
from __future__ import annotations

from collections import deque

KEPT = 65536  # characters of a command's output read for its tail, however much it printed


def tail_text(output: str) -> str:
    """The end of `output` a tail is read from: at most KEPT characters, whole lines only."""
    if len(output) <= KEPT:
        return output
    return output[-KEPT:].partition("\n")[2]


class OutputTail:
    """The last `count` lines printed by the commands added since it was last cleared."""

    def __init__(self, count: int) -> None:
        self._lines: deque[str] = deque(maxlen=count)

    def clear(self) -> None:
        self._lines.clear()

    def add(self, output: str) -> None:
        self._lines.extend(tail_text(output).splitlines())

    def lines(self) -> list[str]:
        return list(self._lines)
