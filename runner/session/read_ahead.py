"""The commands queued in bash's input behind the running one: which bash may have begun, which
were taken back (withdraw) and which its prompt read away unrun after a failure (drain)."""
from __future__ import annotations

from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager

from .feed import Input
from .protocol import drained

# Lines queued behind a command are taken back once it has run this long (or a quarter of its
# time limit, if shorter): a slow command gains nothing from them, and an interrupt at its
# deadline must never find a later command queued, or running in its place.
AHEAD_PATIENCE = 0.1


class ReadAhead:
    """Queued lines, oldest first, that no exchange has read the reply of yet.

    bash reads its input in order, one line at a time (feed.SocketInput), and each line it
    reads is either run or read away by the drain; so the lines still here that were neither
    taken back nor drained are the ones bash has begun or will begin next.
    """

    def __init__(self, bash_input: Input, still: Callable[[], AbstractContextManager[None]]):
        self._input = bash_input
        # bash held still while lines are taken back (bash_process.held): a message goes to
        # whichever reader asks first, and bash must never get a line past one taken back.
        self._still = still
        self._lines: deque[tuple[str, bytes]] = deque()  # (command, line)
        self.limit = 300.0  # time limit of the commands queued (the session's default)
        self.last_end = 0.0  # when demorun saw the last command end: a queued one's start
        self.caught_up = False  # demorun waits for bash to print more (so bash is not ahead of it)

    def __bool__(self) -> bool:
        return bool(self._lines)

    def __len__(self) -> int:
        return len(self._lines)

    def offer(self, lines: tuple[tuple[str, bytes], ...], limit: float) -> None:
        """Lines written to bash's input behind the running command, with their time limit."""
        self._lines.extend(lines)
        self.limit = limit

    def take(self) -> tuple[str, bytes]:
        """The oldest queued command and line, for the exchange that reads its reply."""
        return self._lines.popleft()

    def take_if(self, command: str) -> bytes | None:
        """The line of the oldest queued command if that is `command` (take); None, and nothing
        taken, if it is another one or none."""
        if not self._lines or self._lines[0][0] != command:
            return None
        return self._lines.popleft()[1]

    def withdraw(self) -> int:
        """Takes back the lines bash has not read; how many pieces of the running command's own
        came back with them (bash had not read all of it yet)."""
        with self._still():
            taken = self._input.take_back()
        queued = min(taken, len(self._lines))
        for _ in range(queued):  # the last ones written are the ones still unread
            self._lines.pop()
        return taken - queued

    def drained(self, payload: bytes) -> None:
        """After a prompt whose drain read queued lines away: none of those left will run."""
        if drained(payload) is not None:
            self._lines.clear()

    def forget(self) -> None:
        """Nothing queued may run any more (the command is interrupted): take back and forget all."""
        with self._still():
            self._input.take_back()
        self._lines.clear()
