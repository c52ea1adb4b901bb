"""The commands queued in bash's input behind the running one: which may wait there (the one
place that decides, for the engine and the session alike), which bash may have begun, which
were taken back (withdraw) and which its prompt read away unrun after a failure (drain)."""
from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager

from . import framing
from .feed import MESSAGE_MAX, Input
from .pty_io import drained

# Commands queued ahead in one batch: at most as many as the engine looks ahead (64), in at most
# this many bytes, well within what bash's input socket holds (about 270 short lines), so a batch
# is written whole while bash is held (bash_process.held); a batch costs two signals and a round
# of polls (docs/performance.md, measured choices).
AHEAD_COUNT = 64
AHEAD_BYTES = 3600
# What makes queuing commands unsafe for a whole plan: aliases (one could turn a queued line into
# the start of a longer command) and DEBUG traps, which functrace would also run in the subshell
# that reads queued lines away after a failure (its output is the prompt's); CONT traps, which
# would run when the session holds bash stopped while it writes a batch.
_UNQUEUEABLE = re.compile(r"\balias\b|\bDEBUG\b|functrace|extdebug|\bset\s+-[a-zA-Z]*T|\b(?:SIG)?CONT\b")


def plan_may_queue(commands: Iterable[str]) -> bool:
    """Whether any command of a plan may wait in bash's input: none of them sets what would make
    a queued line run otherwise than alone (see _UNQUEUEABLE)."""
    return not any(_UNQUEUEABLE.search(text) for text in commands)


def may_wait(text: str) -> bool:
    """Whether a command, by its text, may wait in bash's input behind another: it runs something,
    needs no guard (no jobs or prompts set), reads no descriptor by number (bash's input could be
    it), defines no `builtin`, and sets no terminal modes (stty: the session checks them per command)."""
    return not (framing.is_blank(text) or framing.needs_guard(text) or framing.defines_builtin(text)
                or framing.reads_descriptor(text) or "stty" in text)


def queueable(text: str, chunks: Sequence[bytes], ahead: Sequence[str]) -> tuple[tuple[str, bytes], ...]:
    """The commands of `ahead` that can wait in bash's input behind `text` (sent as `chunks`), with
    their lines: none unless `text` is one line that reads no descriptor; then, in order, those
    that may wait, each one line and one message of bash's input (the drain after a failure counts
    them), while the batch fits AHEAD_BYTES, so that it reaches bash whole."""
    if len(chunks) != 1 or framing.reads_descriptor(text):
        return ()
    used = len(chunks[0])
    queued: list[tuple[str, bytes]] = []
    for command in ahead[:AHEAD_COUNT]:
        command = command.rstrip("\n")
        if not may_wait(command):
            break
        framed = framing.frame(command, False)
        line = framed[0]
        used += len(line)
        if len(framed) != 1 or line.count(b"\n") != 1 or used > AHEAD_BYTES or len(line) > MESSAGE_MAX:
            break
        queued.append((command, line))
    return tuple(queued)

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
