"""Standard output and error: never a terminal's instructions, and a reader may close them early.

Python ignores SIGPIPE, so a write to a pipe nobody reads raises BrokenPipeError
(and one to a terminal that hung up, EIO);
raised in the middle of a run it would turn a pass into a traceback and exit 1,
and lose the reports still to be written. Behind these writers the first such
write points the descriptor at /dev/null instead: what the reader no longer
wants is dropped, and the run finishes and exits as if it had been read.

Workshop text (headings, commands, paths, directive names) reaches these
streams in messages of every kind. The printers show it with `visible`, and the
text streams themselves make every control character visible but demorun's own
colours and status-line erases on a terminal (printable.guarded): a printer that
forgets cannot let a title, a link, a cursor move or a cleared screen through.
What is written to their binary buffers (a command's live output in `run`, the
audience's screen) is passed as it is: those writers decide what is shown.
"""
from __future__ import annotations

import errno
import io
import os
import sys

from .printable import guarded, visible

# A reader that left: a pipe's (EPIPE), or a terminal that hung up (EIO, ENXIO once the pty
# master is closed). Raised at exit, Python's own last flush would make any exit code 120.
_GONE = frozenset({errno.EPIPE, errno.EIO, errno.ENXIO})


class _DropWhenClosed(io.RawIOBase):
    """A file descriptor whose writes succeed, into /dev/null, once its reader has gone."""

    def __init__(self, fd: int):
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data) -> int:
        try:
            return os.write(self._fd, data)
        except OSError as exc:
            if exc.errno not in _GONE:
                raise
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._fd)
            os.close(devnull)
            return len(data)


class _Guarded(io.TextIOWrapper):
    """A text stream whose every write is passed through printable.guarded."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._terminal = self.isatty()

    def write(self, text: str) -> int:
        return super().write(guarded(text, terminal=self._terminal))


def tolerate_closed_readers() -> None:
    """Put the process's own stdout and stderr behind writers that drop output once unread, and
    that show control characters instead of passing them to the terminal."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or stream is not getattr(sys, f"__{name}__"):
            continue  # replaced already (a test harness, or done before)
        try:
            fd = stream.fileno()
            stream.flush()
        except (OSError, ValueError):
            continue
        setattr(sys, name, _Guarded(
            io.BufferedWriter(_DropWhenClosed(fd)), encoding=stream.encoding, errors=stream.errors,
            line_buffering=stream.line_buffering, write_through=stream.write_through))


def open_standard_streams() -> str:
    """Standard streams the caller closed (`>&-`, `<&-`) opened on /dev/null, as a reader that
    left; sys.stdin/stdout/stderr made anew for them. Otherwise Python holds None there, every
    print is a traceback, and bash and the workshop's programs would start with a descriptor
    missing (their first open file would become their stdout). Returns what to tell: which
    of stdout and stderr were closed, or "" (stdin alone is not worth a word)."""
    closed = []
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        devnull = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
        if devnull != fd:
            os.dup2(devnull, fd)
            os.close(devnull)
        stream = os.fdopen(fd, "r" if fd == 0 else "w")
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)  # so tolerate_closed_readers puts it behind its writers
        if fd:
            closed.append(name)
    return " and ".join(closed) + " closed: demorun writes to /dev/null instead" if closed else ""


def echo(line: str, *, err: bool = False) -> None:
    """A line of text on stdout (or stderr), flushed at once, for commands that answer before
    click loads: its control characters shown, never obeyed (it may quote any workshop text)."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    stream.write(visible(line) + "\n")
    stream.flush()
