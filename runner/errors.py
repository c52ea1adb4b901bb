"""The one error root; every user-facing error carries where it happened."""
from __future__ import annotations

import signal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import SourceLoc


class DemorunError(Exception):
    """Root of every error a user can cause; the CLI turns it into a message."""

    exit_code = 2

    def __init__(self, message: str, loc: SourceLoc | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc

    def __str__(self) -> str:
        return f"{self.loc}: {self.message}" if self.loc else self.message


class ParseError(DemorunError):
    """The workshop cannot be read or parsed (missing file, binary, cycle...)."""


class WorkshopChanged(DemorunError):
    """`--update` found the workshop no longer as it was parsed (edited, or updated by another run)."""


class ConfigError(DemorunError):
    """`[tool.demorun]` or `demorun.toml` is malformed."""


class SessionError(DemorunError):
    """The bash session could not be started or has died."""

    exit_code = 1


class CommandRejected(DemorunError):
    """bash would not accept a command (syntax error); it was never sent."""

    exit_code = 1


class MissingRequirement(DemorunError):
    """A tool the workshop needs is not on PATH."""

    exit_code = 3


class Aborted(Exception):
    """The person running demorun asked twice, or the system asked once, to stop.

    Not a DemorunError: it must pass through the places that report user
    errors and go on, up to the command line, which exits with 128 + the
    signal's number, as a shell reports a command a signal ended.
    """

    _SAID = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated", signal.SIGHUP: "hung up"}

    def __init__(self, signum: int = signal.SIGINT):
        self.signum = signal.Signals(signum)
        super().__init__(f"{self._SAID.get(self.signum, 'stopped')} ({self.signum.name})")

    @property
    def exit_code(self) -> int:
        return 128 + self.signum
