"""How every command ends: its exit code, and a user's mistake as one line on stderr, never a traceback."""
from __future__ import annotations

import sys
from collections.abc import Callable

from .errors import Aborted, DemorunError
from .streams import echo, tolerate_closed_readers


def call(fn: Callable[..., int], *args: object, **kwargs: object) -> None:
    """Run a command body and exit with its code; errors become one line and their own code.

    Never returns. (Annotated None, not NoReturn: importing typing would slow `lint` and `present`.)"""
    tolerate_closed_readers()
    try:
        code = fn(*args, **kwargs)
    except (DemorunError, Aborted) as exc:
        say(str(exc))
        finish(exc.exit_code)
    except KeyboardInterrupt:  # Ctrl-C outside a run (parsing, say), or hurrying a cleanup
        say("interrupted")
        finish(130)
    finish(code)


def say(message: str) -> None:
    try:
        echo(f"demorun: {message}", err=True)
    except OSError:
        pass


def finish(code: int) -> None:
    """Exit with `code` once stdout is flushed; never returns."""
    try:
        sys.stdout.flush()
    except OSError:
        pass  # the terminal hung up; the exit code still tells
    raise SystemExit(code)
