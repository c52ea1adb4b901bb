"""Signals during a run, handled in one place for every unattended mode.

The first Ctrl-C interrupts the running command and the run goes on. A second
one (while that command still runs, or within a few seconds), SIGTERM or
SIGHUP raise Aborted, so the run ends through its own `finally` clauses: the
session interrupts what runs, lets the workshop's EXIT traps run (`exit`),
then ends what is left, and the reports are written. While that cleanup runs,
SIGTERM and SIGHUP are ignored and Ctrl-C only hurries it.
"""
from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..errors import Aborted
from ..session.session import Session

AGAIN_WITHIN = 5.0  # seconds in which a second Ctrl-C stops the run, even after the command ended
ENDING = (signal.SIGTERM, signal.SIGHUP)


def say(message: str) -> None:
    """One line on stderr, safe inside a signal handler (no buffered stream is touched)."""
    try:
        os.write(2, (message + "\n").encode("utf-8", "replace"))
    except OSError:
        pass  # the terminal is gone (SIGHUP): nobody is there to read it


@contextmanager
def interrupts(session_ref: Callable[[], Session | None],
               where: Callable[[], str | None] = lambda: None,
               tell: Callable[[str], None] = say) -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP as the module says; `where` names the running command; `tell`
    says what the first Ctrl-C did (it must be safe in a signal handler: keep, not draw)."""
    state = {"last": float("-inf"), "aborted": False}

    def on_int(signum, frame):
        if state["aborted"]:
            raise KeyboardInterrupt  # cleanup is running: end everything now
        session = session_ref()
        now = time.monotonic()
        if (session is None or not session.alive or session.interrupt_pending
                or now - state["last"] < AGAIN_WITHIN):
            state["aborted"] = True
            raise Aborted(signal.SIGINT)
        state["last"] = now
        session.interrupt()
        place = where()
        tell(f"interrupted {place}; Ctrl-C again to stop" if place else "interrupted; Ctrl-C again to stop")

    def on_end(signum, frame):
        if not state["aborted"]:
            state["aborted"] = True
            raise Aborted(signum)

    saved = {signal.SIGINT: signal.signal(signal.SIGINT, on_int)}
    saved.update((sig, signal.signal(sig, on_end)) for sig in ENDING)
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
