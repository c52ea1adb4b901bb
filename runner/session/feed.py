"""bash's input: its own terminal, or (unattended) a socket that no other process can open.

Unattended, the commands queued behind the running one wait in bash's input. A terminal there
could be opened again by any process (`/proc/<bash>/fd/N`, `/dev/pts/N`, even with the
terminal locked, by root) and read. A socket cannot be opened by path at all, by anyone; the
running command's own standard input is /dev/null, and bash's copies are closed when a program
starts. Messages of a SOCK_SEQPACKET socket keep their bounds: bash reads one at a time, so it
never holds a queued line in a buffer of its own, where the drain after a failure could not
reach it, and demorun takes unread ones back exactly.
"""
from __future__ import annotations

import os
import socket
from collections import deque

from .pty_io import set_nonblocking, wait_ready

# bash reads its input with one read(2) of 1,024 bytes (input.c, getc_with_restart, bash 4 to
# 5.3); a longer message would lose its tail, so no message is longer.
MESSAGE_MAX = 1024


class Input:
    """Where demorun writes bash's input: pending data goes as fast as the other side takes it."""

    def __init__(self, fd: int):
        self.fd = fd

    def pieces(self, data: bytes) -> list[bytes]:
        """data cut into what is written at once."""
        return [data] if data else []

    def write_some(self, pending: deque[bytes]) -> None:
        """Writes from the front of pending what can be written now; the rest stays."""
        while pending:
            try:
                written = os.write(self.fd, pending[0])
            except BlockingIOError:
                return
            if written < len(pending[0]):
                pending[0] = pending[0][written:]
                return
            pending.popleft()

    def send(self, data: bytes) -> None:
        """All of data, waiting for room as long as it takes."""
        pending = deque(self.pieces(data))
        while pending:
            self.write_some(pending)
            if pending:
                wait_ready([], [self.fd], 1.0)

    def take_back(self) -> int:
        """Takes back what bash has not read yet; how many pieces. A terminal's input stays."""
        return 0

    def close(self) -> None:
        """Nothing of its own: the terminal closes with the process."""


class SocketInput(Input):
    """bash's standard input as one end of a socket pair; demorun writes into the other end and
    holds a copy of bash's end, to take back what bash has not read."""

    def __init__(self) -> None:
        ours, self._theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        super().__init__(ours.detach())
        set_nonblocking(self.fd)
        # bash's end stays blocking: the flag would be bash's too, and bash clears it at once.
        self.bash_end = self._theirs.fileno()

    def pieces(self, data: bytes) -> list[bytes]:
        """One message per line at most, and no longer than bash reads at once."""
        messages = []
        start = 0
        while start < len(data):
            end = data.find(b"\n", start, start + MESSAGE_MAX)
            end = start + MESSAGE_MAX if end < 0 else end + 1
            messages.append(data[start:end])
            start = end
        return messages

    def take_back(self) -> int:
        taken = 0
        while True:
            try:
                self._theirs.recv(MESSAGE_MAX, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return taken
            taken += 1

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        self._theirs.close()
