"""Standard output and error that a reader may close early (`demorun check --junit j.xml . | head -1`).

Python ignores SIGPIPE, so a write to a pipe nobody reads raises BrokenPipeError;
raised in the middle of a run it would turn a pass into a traceback and exit 1,
and lose the reports still to be written. Behind these writers the first such
write points the descriptor at /dev/null instead: what the reader no longer
wants is dropped, and the run finishes and exits as if it had been read.
"""
from __future__ import annotations

import io
import os
import re
import sys

# What click strips from text written to a stream that is not a terminal.
_ANSI = re.compile(r"\033\[[0-?]*[ -/]*[@-~]")


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
        except BrokenPipeError:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._fd)
            os.close(devnull)
            return len(data)


def tolerate_closed_readers() -> None:
    """Put the process's own stdout and stderr behind writers that drop output once unread."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or stream is not getattr(sys, f"__{name}__"):
            continue  # replaced already (a test harness, or done before)
        try:
            fd = stream.fileno()
            stream.flush()
        except (OSError, ValueError):
            continue
        setattr(sys, name, io.TextIOWrapper(
            io.BufferedWriter(_DropWhenClosed(fd)), encoding=stream.encoding, errors=stream.errors,
            line_buffering=stream.line_buffering, write_through=stream.write_through))


def echo(line: str, *, err: bool = False) -> None:
    """A line on stdout (or stderr) as click.echo writes it, for commands that answer before click
    loads: escape sequences stripped unless the stream is a terminal, flushed at once."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    if not stream.isatty():
        line = _ANSI.sub("", line)
    stream.write(line + "\n")
    stream.flush()
