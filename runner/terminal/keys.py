"""The presenter's keyboard: single keys with a timeout, and the terminal always put back."""
from __future__ import annotations

import codecs
import os
import select
import termios
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from ..session.tty_attrs import TtyAttrs

ENTER, SPACE, ESCAPE, BACKSPACE, CTRL_C, CTRL_D = "enter", "space", "escape", "backspace", "ctrl-c", "ctrl-d"
_NAMED = {"\r": ENTER, "\n": ENTER, " ": SPACE, "\x7f": BACKSPACE, "\b": BACKSPACE,
          "\x03": CTRL_C, "\x04": CTRL_D, "\x1b": ESCAPE}


def parse_keys(text: str) -> list[str]:
    """Split what the terminal sent into keys; escape sequences (arrows, F-keys) become one key each."""
    keys: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\x1b" and i + 1 < len(text) and text[i + 1] in "[O":
            end = i + 2
            while end < len(text) and not ("\x40" <= text[end] <= "\x7e"):
                end += 1
            keys.append(text[i:end + 1])
            i = end + 1
            continue
        keys.append(_NAMED.get(char, char))
        i += 1
    return keys


class Keyboard:
    """Keys one at a time from a terminal set to cbreak: no echo, no line editing, no signals.

    Ctrl-C arrives as a key so the presenter decides what it means; output
    processing stays on so that `\\n` still starts a new line.
    """

    def __init__(self, fd: int):
        self.fd = fd
        self.saved: TtyAttrs | None = None
        self._pending: list[str] = []
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def __enter__(self) -> Keyboard:
        self.saved = TtyAttrs.of(self.fd)
        self._set(isig=False)
        return self

    def __exit__(self, *exc) -> None:
        self.restore()

    def restore(self) -> None:
        """Put the terminal back as it was found; a terminal that has gone away needs nothing."""
        if self.saved is None:
            return
        try:
            self.saved.set_on(self.fd, termios.TCSADRAIN)
        except (termios.error, OSError):
            pass

    def _set(self, *, isig: bool) -> None:
        (self.saved or TtyAttrs.of(self.fd)).single_keys(signals=isig).set_on(self.fd, termios.TCSADRAIN)

    @contextmanager
    def signals(self) -> Iterator[None]:
        """Ctrl-C as SIGINT for a while: for commands that run hidden, which read no keys."""
        self._set(isig=True)
        try:
            yield
        finally:
            self._set(isig=False)

    @contextmanager
    def suspended(self) -> Iterator[None]:
        """The terminal as it was found, for a program that owns it for a while (the `!` shell)."""
        self.restore()
        try:
            yield
        finally:
            self._set(isig=False)

    def take_pending(self) -> list[str]:
        """Keys already read from the terminal but not yet asked for (typed right after RETURN)."""
        pending, self._pending = self._pending, []
        return pending

    def key(self) -> str:
        """The next key, however long it takes."""
        while (key := self.read()) is None:
            continue
        return key

    def read(self, timeout: float | None = None) -> str | None:
        """The next key, or None once `timeout` seconds pass without one (None: wait for ever)."""
        while not self._pending:
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                return None
            data = os.read(self.fd, 1024)
            if not data:
                raise EOFError("the terminal has closed")
            self._pending.extend(parse_keys(self._decoder.decode(data)))
        return self._pending.pop(0)

    def discard(self) -> None:
        """Forget every key pressed until now: those read ahead, and those still in the terminal.

        The live show calls it just before something new becomes what a key answers (a command
        shown whole, the row a message covered put back, the end of a hidden command), so a key
        pressed before that moment can never act on it.
        """
        self._pending.clear()
        self._decoder.reset()
        try:
            termios.tcflush(self.fd, termios.TCIFLUSH)
        except (termios.error, OSError):
            pass


# Keys that are signals in a terminal: they reach a running command whether it reads or not.
_SIGNAL_KEYS = frozenset("\x03\x1a\x1c")  # Ctrl-C, Ctrl-Z, Ctrl-\


class TypeAhead:
    """What the presenter's keys mean while a shown command runs.

    Keys reach the command only while it reads the terminal (less, vi, `read`); otherwise
    they would wait in the terminal and bash would run them as the next command. So then
    `Q` means "quit after this command" (`q` does not: it is the key that leaves a pager, often
    pressed once too often), signals still stop it, and every other key,
    RETURN included, is dropped: a RETURN must never run a command nobody has seen typed.
    What arrives at once (a paste) reaches it up to its first line's end: the lines after
    it would wait in the terminal too, for bash to run once the command is done.
    """

    def __init__(self) -> None:
        self.quit_after = False
        self.signalled = False  # the presenter stopped or suspended the command themselves
        self.cut = False  # lines of a paste were dropped after the first one

    def start(self, typed_ahead: Sequence[str] = ()) -> None:
        """A new command: forget what the presenter did during the last one, but not a quit.

        `typed_ahead`: keys that arrived with the RETURN that started it; nothing reads them yet,
        so they mean what they would mean during the command.
        """
        self.signalled = False
        self.cut = False
        if "Q" in typed_ahead:
            self.quit_after = True

    def __call__(self, data: bytes, reading: Callable[[], bool]) -> bytes:
        text = data.decode("utf-8", "replace")
        if any(char in _SIGNAL_KEYS for char in text):
            self.signalled = True
        if reading():
            return self._first_line(data)
        kept = []
        for key in parse_keys(text):
            if key == "Q":
                self.quit_after = True
            elif key == CTRL_C:
                kept.append("\x03")
            elif key in _SIGNAL_KEYS:
                kept.append(key)
        return "".join(kept).encode()

    def _first_line(self, data: bytes) -> bytes:
        """`data` up to and including its first line end; what follows is dropped (and said)."""
        ends = [i for i in (data.find(b"\r"), data.find(b"\n")) if i >= 0]
        if not ends:
            return data
        end = min(ends) + 1
        if data[end:end + 1] == b"\n" and data[end - 1:end] == b"\r":
            end += 1
        if data[end:].strip(b"\r\n"):
            self.cut = True
        return data[:end]
