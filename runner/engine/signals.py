"""Signals during a run: the first Ctrl-C interrupts the command, a second one or SIGTERM ends the run."""
from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..errors import Aborted
from ..session import Session


@contextmanager
def interrupts(session_ref: Callable[[], Session | None]) -> Iterator[None]:
    """The one place SIGINT and SIGTERM are handled during unattended runs.

    The first Ctrl-C interrupts the running command; a second one before it
    finishes, SIGTERM or SIGHUP, aborts the whole run (cleanup happens in `finally`).
    """
    state = {"pending": 0.0}

    def on_int(signum, frame):
        session = session_ref()
        now = time.monotonic()
        if session is None or not session.alive or now - state["pending"] < 5.0:
            raise Aborted("interrupted")
        state["pending"] = now
        session.interrupt()

    def on_term(signum, frame):
        raise Aborted("terminated")

    def on_hup(signum, frame):
        raise Aborted("hung up")  # the terminal went away: clean up as for SIGTERM

    old_int = signal.signal(signal.SIGINT, on_int)
    old_term = signal.signal(signal.SIGTERM, on_term)
    old_hup = signal.signal(signal.SIGHUP, on_hup)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)
        signal.signal(signal.SIGHUP, old_hup)
