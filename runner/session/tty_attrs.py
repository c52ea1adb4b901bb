"""Terminal attributes (termios) as one typed value, and the few variants of it demorun sets."""
from __future__ import annotations

import termios
from dataclasses import dataclass, replace
from functools import cached_property

# Characters a terminal reading canonical input acts on instead of passing them on.
_SPECIAL_CC = (termios.VINTR, termios.VQUIT, termios.VERASE, termios.VKILL, termios.VEOF,
               termios.VSTART, termios.VSTOP, termios.VSUSP, termios.VLNEXT, termios.VWERASE,
               termios.VREPRINT, termios.VDISCARD)
# Cleared so a terminal hands every byte on as written: no line editing, signals or translation.
_RAW_INPUT_IFLAG = termios.ICRNL | termios.INLCR | termios.IGNCR | termios.IXON | termios.ISTRIP
_RAW_INPUT_LFLAG = termios.ICANON | termios.ISIG | termios.IEXTEN
_ECHO_LFLAG = termios.ECHO | termios.ECHOE | termios.ECHOK | termios.ECHOCTL | termios.ECHOKE


@dataclass(frozen=True)
class TtyAttrs:
    """What tcgetattr returns, with names; each variant is a new value, the original stays as it was."""

    iflag: int
    oflag: int
    cflag: int
    lflag: int
    ispeed: int
    ospeed: int
    cc: tuple[bytes | int, ...]

    @classmethod
    def of(cls, fd: int) -> TtyAttrs:
        iflag, oflag, cflag, lflag, ispeed, ospeed, cc = termios.tcgetattr(fd)
        return cls(iflag, oflag, cflag, lflag, ispeed, ospeed, tuple(cc))

    @cached_property
    def as_list(self) -> list:
        """The form termios takes and gives, made once: compared with what a terminal has now."""
        return [self.iflag, self.oflag, self.cflag, self.lflag, self.ispeed, self.ospeed, list(self.cc)]

    def set_on(self, fd: int, when: int = termios.TCSANOW) -> None:
        termios.tcsetattr(fd, when, self.as_list)

    def is_on(self, fd: int) -> bool:
        return termios.tcgetattr(fd) == self.as_list

    def _one_byte_reads(self) -> tuple[bytes | int, ...]:
        """cc with a read returning as soon as one byte is there (VMIN 1, VTIME 0)."""
        cc = list(self.cc)
        cc[termios.VMIN], cc[termios.VTIME] = 1, 0
        return tuple(cc)

    def raw_input(self) -> TtyAttrs:
        """Input taken byte for byte: no line limit, no signals, no translation (output unchanged)."""
        return replace(self, iflag=self.iflag & ~_RAW_INPUT_IFLAG, lflag=self.lflag & ~_RAW_INPUT_LFLAG,
                       cc=self._one_byte_reads())

    def echoing(self) -> TtyAttrs:
        """For a person typing: keys echo, Enter ends a line."""
        return replace(self, iflag=self.iflag | termios.ICRNL, lflag=self.lflag | _ECHO_LFLAG)

    def single_keys(self, *, signals: bool) -> TtyAttrs:
        """One key at a time, unechoed, Enter as typed; Ctrl-C a signal, or a key like any other."""
        lflag = self.lflag & ~(termios.ICANON | termios.ECHO | termios.IEXTEN)
        lflag = lflag | termios.ISIG if signals else lflag & ~termios.ISIG
        return replace(self, iflag=self.iflag & ~(termios.ICRNL | termios.IXON), lflag=lflag,
                       cc=self._one_byte_reads())

    def special(self) -> bytes:
        """The bytes a canonical terminal with these attributes would act on rather than pass on."""
        chars = {c if isinstance(c, bytes) else bytes([c]) for c in (self.cc[i] for i in _SPECIAL_CC)}
        return b"".join(sorted(c for c in chars if c not in (b"\x00", b""))) + b"\r"
