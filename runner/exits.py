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
    """Exit with `code` once stdout and stderr are flushed; never returns. A stream that cannot be
    flushed (the terminal hung up) is pointed at /dev/null, so Python's own flush at exit cannot
    turn `code` into 120."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            _drop(stream)
    raise SystemExit(code)


def _drop(stream: object) -> None:
    import os

    try:
        fd = stream.fileno()  # type: ignore[attr-defined]
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
        stream.flush()  # type: ignore[attr-defined]
    except (OSError, ValueError, AttributeError):
        pass
