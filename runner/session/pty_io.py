"""Talking to bash over a pty: a linear scanner for the protocol's markers, output decoded, terminal attributes."""
from __future__ import annotations

import codecs
import contextlib
import fcntl
import os
import select
import struct
import termios
import tty
from collections.abc import Iterator

from .protocol import CLOSE, KIND_BYTES, MARKER_SPAN, OPEN, OUTPUT, Markers

_UTF8 = codecs.getincrementaldecoder("utf-8")
READ_EVENTS = _READ = select.POLLIN | select.POLLHUP | select.POLLERR

# Linux keeps at most 4095 bytes of one line of canonical input and drops the rest.
CANONICAL_LINE_MAX = 4000


class Scanner:
    """Splits a pty stream into output and markers; work stays linear in the stream's size."""

    def __init__(self, markers: Markers):
        self._prefix = markers.prefix
        self._held = b""

    def feed(self, data: bytes) -> list[tuple[bytes, bytes]]:
        """Events (kind, payload) in order; kind OUTPUT carries output bytes as payload.

        The stream is split at the markers' prefix, which cannot overlap itself: each piece after
        the first is a marker and the output after it. One split in C for a whole chunk, not a
        search per marker (bash's replies to queued commands are mostly markers): 12.7 against
        26.6 us for the replies of 30 `true` commands, 0.83 against 0.94 us for one.
        """
        if self._held:
            data = self._held + data
            self._held = b""
        pieces = data.split(self._prefix)
        output = pieces[0]
        events: list[tuple[bytes, bytes]] = []
        if len(pieces) > 1:
            last = pieces[-1]
            if CLOSE not in last and len(last) < MARKER_SPAN:
                self._held = self._prefix + pieces.pop()  # a marker still coming
            if output:
                events.append((OUTPUT, output))
            output = b""
            for piece in pieces[1:]:
                head, close, rest = piece.partition(CLOSE)
                kind = head[:1]
                if close and kind in KIND_BYTES and len(head) < MARKER_SPAN:
                    if output:
                        events.append((OUTPUT, output))
                    events.append((kind, head[1:]))
                    output = rest
                else:  # no marker after all: output, as the program printed it
                    events.append((OUTPUT, output + self._prefix))
                    output = piece
        if output:
            keep = 0 if self._held else self._partial(output)
            if keep:  # what could still grow into a marker waits for the next chunk
                self._held = output[len(output) - keep:]
                output = output[:len(output) - keep]
            if output:
                events.append((OUTPUT, output))
        return events

    def _partial(self, buf: bytes) -> int:
        """Length of the tail of buf that could still grow into a marker."""
        i = buf.find(OPEN, max(0, len(buf) - len(self._prefix) + 1))
        while i >= 0:
            if self._prefix.startswith(buf[i:]):
                return len(buf) - i
            i = buf.find(OPEN, i + 1)
        return 0

    def flush(self) -> bytes:
        """Whatever was held back as a possible marker start, once no more will come."""
        held, self._held = self._held, b""
        return held


class Output:
    """A command's output as it arrives, the pty's CR LF turned back into LF on the way in.

    Each chunk is decoded as it comes and appended to one string, which CPython grows in
    place while nothing else refers to it: a long output is held once, as its text, and
    never as bytes and text at the same time.
    """

    # Where every command's output starts, as class attributes: most commands print a line or
    # nothing, and an Output is made for each.
    _text = ""
    _decoder: codecs.IncrementalDecoder | None = None  # made at the first chunk that needs one
    _cr = False

    def append(self, data: bytes) -> None:
        if self._cr:
            data = b"\r" + data
        self._cr = data.endswith(b"\r")
        if self._cr:
            data = data[:-1]
        self._add(data.replace(b"\r\n", b"\n"))

    def _add(self, data: bytes, final: bool = False) -> None:
        if self._decoder is None:
            # A chunk of whole UTF-8 is decoded at once, with no incremental decoder to make and
            # finish: 0.43 against 1.13 us for a line of output (bench/session.py --tweaks). A chunk
            # that ends inside a character or holds a bad byte gets one from then on.
            try:
                decoded = data.decode("utf-8")
            except UnicodeDecodeError:
                self._decoder = _UTF8("replace")
                decoded = self._decoder.decode(data, final)
        else:
            decoded = self._decoder.decode(data, final)
        text, self._text = self._text, ""  # the only reference left, so += resizes in place
        text += decoded
        self._text = text

    def text(self) -> str:
        """Decoded UTF-8 (invalid bytes as U+FFFD); the buffer is empty afterwards."""
        if self._cr or self._decoder is not None:
            self._add(b"\r" if self._cr else b"", final=True)
            self._cr = False
        text, self._text, self._decoder = self._text, "", None
        return text


def wait_ready(readable: list[int], writable: list[int] | tuple[()] = (), timeout: float | None = None) -> list[int]:
    """The descriptors of `readable` and `writable` that are ready (poll: no limit at 1,024 like select)."""
    poller = select.poll()
    for fd in readable:
        poller.register(fd, _READ)
    for fd in writable:
        poller.register(fd, select.POLLOUT | (_READ if fd in readable else 0))
    return [fd for fd, _ in poller.poll(None if timeout is None else max(0.0, timeout) * 1000)]


def set_nonblocking(fd: int) -> None:
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


def window_size(fd: int) -> tuple[int, int] | None:
    """(rows, cols) of the terminal on fd, if it is one."""
    try:
        rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
    except OSError:
        return None
    return (rows, cols) if rows and cols else None


@contextlib.contextmanager
def raw_terminal(fd: int | None) -> Iterator[None]:
    """The presenter's terminal made raw (keys pass through, Ctrl-C included), restored after."""
    if fd is None or not os.isatty(fd):
        yield
        return
    saved = termios.tcgetattr(fd)
    try:
        tty.setraw(fd, termios.TCSANOW)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
