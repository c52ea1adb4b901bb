"""What the engine asks of the shell it drives: runner.session.Session is one; the engine's tests
hand it a stand-in. Typed here, so a stand-in that lacks something fails the type check, not a
probe at run time."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from ..results import Outcome


class Shell(Protocol):
    """One bash for a whole plan, as the engine sees it."""

    @property
    def alive(self) -> bool: ...

    @property
    def exit_status(self) -> int | None: ...

    @property
    def read_ahead(self) -> bool:
        """Commands may wait in its input behind the running one (Session.run's `ahead`)."""
        ...

    @property
    def queued(self) -> bool:
        """Commands wait in its input now."""
        ...

    @property
    def waiting(self) -> int:
        """How many queued commands bash may have begun."""
        ...

    @property
    def nested(self) -> tuple[int, ...]:
        """The @$SHELL scopes entered, outermost first."""
        ...

    def run(self, command: str, *, timeout: float | None = None, stop_after: float | None = None,
            on_output: Callable[[bytes], None] | None = None, interactive: bool = False,
            ahead: Sequence[str] = ()) -> Outcome: ...

    def interrupt(self) -> None:
        """Ctrl-C to the running command, as a person would (@wait-for at its match)."""
        ...

    def getvar(self, name: str) -> str | None: ...

    def variables(self) -> dict[str, str]: ...

    def functions(self) -> list[str]: ...

    def expand(self, text: str) -> str: ...

    def enter_shell(self, scope: int, argv0: str) -> None: ...

    def leave_shell(self) -> None: ...

    def shells_ended(self) -> tuple[int, ...]: ...
