"""Live progress for runs nobody watches command by command: `check` and `run --quiet`.

Cluster workshops spend minutes in `k3d cluster create` or `kubectl wait`;
without a sign of life such a run looks hung. On a terminal a status line
says which command runs and for how long; in a CI log (no terminal) a line
every 30 s says the same; with `-v` each command and its output stream as
they come instead: colours kept, other control characters made visible, and
the whole of a command that may set secrets held until the session has been
read after it (runner.secrets), so that none of its values shows.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import IO, BinaryIO, TextIO

from ..engine.listener import Listener, Run
from ..model import SourceLoc, Step
from ..printable import output_shown, visible
from ..results import StepResult
from ..secrets import UNREAD, SecretTracker
from .summary import format_duration

CI_INTERVAL = 30.0  # seconds between two "still running" lines in a log
SHOW_AFTER = 1.0  # a status line for quick commands would only flicker
TICK = 0.1  # how often the status line is redrawn
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ASCII_SPINNER = "|/-\\"  # for a terminal that cannot show the one above
CLEAR_LINE = "\r\x1b[2K"
HELD_IN_MEMORY = 1024 * 1024  # bytes of a held command's output kept in memory; more goes to a temporary file
LINE_HELD = 64 * 1024  # bytes of one line held for masking; a longer one is shown in parts
LINE_KEPT = 32 * 1024  # what such a part keeps back: longer than any secret worth masking


def one_line(text: str) -> str:
    """A command's text on one line: its lines joined, runs of blanks collapsed."""
    return " ".join(text.replace("\\\n", " ").split())


class Progress(Listener):
    """Tells which command is running and for how long, or streams it with `verbose`."""

    def __init__(self, *, err: TextIO | None = None, out: BinaryIO | None = None, verbose: bool = False,
                 terminal: bool | None = None, follow: Callable[[Step], bool] = lambda step: True,
                 interval: float = CI_INTERVAL):
        self.err = err if err is not None else sys.stderr
        self.out = out if out is not None else sys.stdout.buffer
        self.verbose = verbose
        self.terminal = _is_terminal(self.err) if terminal is None else terminal
        self.spinner = SPINNER if _can_encode(self.err, SPINNER) else ASCII_SPINNER
        self.follow = follow  # steps someone already sees (run's SHOW sections) need no status
        self.interval = interval
        self.redact: Callable[[str], str] = lambda text: text  # streamed output may hold secrets
        self._secrets: SecretTracker | None = None
        self._held: IO[bytes] | None = None  # the output of a command that may set secrets, until it is done
        # Streamed output up to its next newline: secrets are masked whole lines at a time.
        self._pending = bytearray()
        # Guards the fields below and every write to `err`; commands take the lock itself (cheaper
        # than the condition's `with`), the ticker waits on the condition.
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._current: tuple[Step, float] | None = None
        self._drawn = False
        self._closed = False
        self._thread: threading.Thread | None = None  # one for the whole run, asleep between commands
        # The ticker waits without a timeout only while no command runs; a command starting then
        # wakes it. Otherwise it looks at the next tick: a thread switch per command would cost
        # more than the quick command itself.
        self._sleeping = False
        self._at_line_start = True

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()  # an abort skips on_step_done: the status line must not outlive the run

    def mask_with(self, secrets: SecretTracker) -> None:
        """Mask everything shown with the values `secrets` knows when it is shown."""
        self._secrets = secrets
        self.redact = lambda text: secrets.redactor(text)

    def on_start(self, run: Run) -> None:
        self.mask_with(run.secrets)  # seen so far; asks nobody mid-command

    def on_step_start(self, index: int, step: Step) -> None:
        if not self.follow(step):
            return
        if self.verbose:
            self._idle()
            if self._secrets is not None and self._secrets.learns(index):
                self._held = tempfile.SpooledTemporaryFile(max_size=HELD_IN_MEMORY)
            else:
                self._echo(step)
            return
        with self._lock:
            if self._drawn:
                self._clear()
            if self._closed:
                self._current = None
                return
            self._current = (step, time.monotonic())
            if self._thread is None:
                self._thread = threading.Thread(target=self._tick, name="demorun-progress", daemon=True)
                self._thread.start()
            elif self._sleeping:
                self._wake.notify()

    def on_output(self, step: Step, chunk: bytes) -> None:
        if self.verbose and self.follow(step):
            if self._held is not None:
                self._held.write(chunk)
                return
            end = chunk.rfind(b"\n")  # only the new piece is searched: a long line stays linear
            self._pending += chunk
            if end >= 0:
                cut = len(self._pending) - len(chunk) + end + 1
                self._stream(bytes(self._pending[:cut]))
                del self._pending[:cut]
            elif len(self._pending) > LINE_HELD:
                self._stream_part()

    def on_step_done(self, result: StepResult) -> None:
        self._idle()
        if self.verbose and self.follow(result.step):
            held, self._held = self._held, None
            if held is not None:
                with held:
                    self._release(result, held)
            pending, self._pending = bytes(self._pending), bytearray()
            self._stream(pending)
            if not self._at_line_start:
                self._write_out(b"\n")

    def _echo(self, step: Step) -> None:
        shown = visible(self.redact(step.text.rstrip()))
        self._write_out(f"$ {shown}\n  [{visible(str(step.loc))}]\n".encode("utf-8", "replace"))

    def _release(self, result: StepResult, held: IO[bytes]) -> None:
        """A held command, now that its values are known: its echo, then its output line by line."""
        self._echo(result.step)
        if held.tell() and self._secrets is not None and self._secrets.unread(result.index):
            self._write_out(f"  {UNREAD}\n".encode())
            return
        held.seek(0)
        for line in held:
            self._stream(line)

    def _stream_part(self) -> None:
        """Show the start of a line too long to hold whole, keeping back its last LINE_KEPT bytes
        (more if a secret the redactor knows would be cut), so that a mask still finds what spans them."""
        cut = len(self._pending) - LINE_KEPT
        for _ in range(3):  # not inside a character (of valid UTF-8: binary output is cut anywhere)
            if self._pending[cut] & 0xC0 == 0x80:
                cut -= 1
        head = bytes(self._pending[:cut]).decode("utf-8", "replace")
        shown = head + bytes(self._pending[cut:]).decode("utf-8", "ignore")
        if self._secrets is not None:
            for start, end in self._secrets.redactor.spans(shown):
                if start < len(head) < end:
                    cut -= len(head[start:].encode("utf-8", "replace"))
                    break
        self._stream(bytes(self._pending[:cut]))
        del self._pending[:cut]

    def _stream(self, data: bytes) -> None:
        if data:
            text = output_shown(self.redact(data.decode("utf-8", "replace")))
            self._write_out(text.encode("utf-8", "replace"))

    def on_notice(self, loc: SourceLoc, message: str) -> None:
        """Someone else is about to print: take the status line away first."""
        with self._wake:
            self._clear()

    def close(self) -> None:
        if self._held is not None:  # a run stopped mid-command: what it held is never shown
            self._held.close()
            self._held = None
        with self._wake:
            self._closed = True
            self._current = None
            self._clear()
            self._wake.notify()
            thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _idle(self) -> None:
        """No command is running: the status line goes, the ticker sleeps until the next one."""
        with self._lock:
            self._current = None
            if self._drawn:
                self._clear()

    def _tick(self) -> None:
        watched: tuple[Step, float] | None = None
        reported = frame = 0  # "still running" lines printed for the command watched; spinner position
        with self._wake:
            while not self._closed:
                if self._current is None:
                    self._sleeping = True
                    self._wake.wait()
                    self._sleeping = False
                    continue
                if self._current is not watched:
                    watched, reported = self._current, 0
                # Waits end at the watched command's own times (its next "still running" line), so
                # a ticker still asleep for an earlier command misses none of the next one's.
                self._wake.wait(TICK if self.terminal else
                                watched[1] + self.interval * (reported + 1) - time.monotonic())
                if self._current is not watched or self._closed:
                    continue
                step, started = watched
                elapsed = time.monotonic() - started
                if self.terminal:
                    if elapsed >= SHOW_AFTER:
                        self._draw(f"{self.spinner[frame % len(self.spinner)]} {format_duration(elapsed)}  "
                                   f"{visible(str(step.loc))}  {self._shown(step)}")
                        frame += 1
                elif elapsed >= self.interval * (reported + 1):
                    reported = int(elapsed // self.interval)
                    self._print(f"still running {visible(str(step.loc))} after {format_duration(elapsed)}: "
                                f"{_shorten(self._shown(step), 100)}")

    def _shown(self, step: Step) -> str:
        """A command as a status line shows it: on one line, secrets masked, controls visible."""
        return visible(self.redact(one_line(step.text)))

    def _draw(self, text: str) -> None:
        width = _width(self.err)
        self._emit(CLEAR_LINE + _shorten(text, width - 1))
        self._drawn = True

    def _clear(self) -> None:
        if self._drawn:
            self._emit(CLEAR_LINE)
            self._drawn = False

    def _print(self, line: str) -> None:
        self._emit(line + "\n")

    def _emit(self, text: str) -> None:
        try:
            self.err.write(text)
            self.err.flush()
        except (OSError, ValueError):
            pass  # a closed or broken stream must not end the run

    def _write_out(self, data: bytes) -> None:
        if not data:
            return
        try:
            self.out.write(data)
            self.out.flush()
        except (OSError, ValueError):
            return
        self._at_line_start = data.endswith(b"\n")


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(width - 3, 0)] + "..."


def _can_encode(stream: TextIO, text: str) -> bool:
    try:
        text.encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


def _width(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return shutil.get_terminal_size((80, 24)).columns
