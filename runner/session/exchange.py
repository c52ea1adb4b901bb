"""One exchange with bash: a command's lines sent as bash asks for them, its markers read to
its prompt, and past its deadline an escalation, one step at a time (interrupt, kill, replace)."""
from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable
from typing import NamedTuple

from ..errors import SessionError
from ..results import Escalation
from . import processes
from .bash_process import BashProcess
from .pty_io import CONTINUE, DONE, ENDED, OUTPUT, STARTED, Output, Scanner, prompt_status, wait_ready
from .read_ahead import AHEAD_PATIENCE, ReadAhead
from .tty_attrs import TtyAttrs

INTERRUPT_GRACE = 2.0  # after Ctrl-C, time for the command to give the prompt back
KILL_GRACE = 2.0  # after SIGKILL of the command, time for bash to notice
# A job can end on its own just as SIGINT is sent (a fast command in a loop); while the prompt
# has not come back, a job that took the terminal since the last SIGINT gets one too.
REINTERRUPT_EVERY = 0.05
# Unattended, bash with no prompt seen for this long and reading its input lost its prompt.
IDLE_AFTER = 1.0
_NEVER = float("inf")

Events = list[tuple[bytes, bytes]]
KeysFilter = Callable[[bytes, Callable[[], bool]], bytes]


class Reply(NamedTuple):
    """What bash made of one command: whether it ran, its status and output, and how it ended.

    A named tuple: one is made for every command, and a frozen dataclass costs more to build
    (docs/performance.md, measured choices).
    """

    started: bool  # bash printed PS0: it parsed the whole command and ran it
    status: int | None
    output: str
    said: str = ""  # what bash printed before starting: its complaint about a rejected command
    stage: Escalation = Escalation.NONE  # how far ending the command had to go
    stuck: bool = False  # bash wanted more input than the command has
    died: bool = False  # bash exited; status is its exit status
    note: str | None = None  # who was reading the terminal when the time ran out
    began: float = 0.0  # when the command started, as far as demorun saw (queued: the end of the one before)
    early: bool = False  # queued, it ended before it was asked for


class Request(NamedTuple):
    """What one exchange is asked: the command's lines, its deadline, and who watches it.

    Fed (unattended), `ahead` are one-line commands (command, line) written behind this one,
    whose replies later exchanges read with `sent`. A named tuple, as Reply is: one is made
    for every command.
    """

    chunks: tuple[bytes, ...]  # the command's lines, each sent when bash asks for it
    deadline: float
    on_output: Callable[[bytes], None] | None = None
    interactive: bool = False  # a person's keys go to the command (from `keys`, through `keys_filter`)
    keys: int | None = None
    keys_filter: KeysFilter | None = None
    ahead: tuple[tuple[str, bytes], ...] = ()
    ahead_limit: float = 0.0  # the time limit of the commands in `ahead`
    watch_idle: bool = False  # notice bash waiting at its input with no prompt seen, and repair that
    sent: bool = False  # the line was queued earlier: only read its reply
    escalate: bool = True  # past the deadline, interrupt and kill; otherwise fail (the session's own lines)


def gone(process: BashProcess, scanner: Scanner, output: Output) -> int:
    """bash has exited: keep what it still printed, take its exit status, end what it left behind."""
    for kind, payload in scanner.feed(process.leftover_output()):
        if kind == OUTPUT:
            output.append(payload)
    output.append(scanner.flush())
    status = process.reap()
    process.end()
    return status


def kill_step(process: BashProcess) -> float | None:
    """The ladder's step after Ctrl-C, for every wait on bash (a command's exchange, the session's
    own sync): SIGKILL of the command's processes, and the time bash then has to come back; None
    when there is nothing to kill, and the shell must be replaced."""
    return KILL_GRACE if process.kill_foreground() else None


class Exchange:
    """One command's round trip, as state: each event read from bash has its handler, and each
    pass of `run` handles what was read already, writes what is pending, looks at the clocks,
    waits, and handles what came.

    Only the unread tail is searched for markers, so long output stays linear. `tty_after` are the
    pty's attributes to restore once bash has read a command sent byte for byte.
    """

    # Where every exchange starts, as class attributes: an instance stores only what its request
    # gives it, and what changes. A queued command's exchange, whose events are often read
    # already, sets 12 fields instead of 33.
    _next_chunk = 1  # the index of the line to send when bash asks for more
    _lines_sent = 1
    _continuations = 0
    _tty_after: TtyAttrs | None = None
    _started = _stuck = interrupted = False
    _stage = Escalation.NONE
    _note: str | None = None  # who was reading the terminal, or what was repaired
    _target, _recheck = 0, _NEVER  # the group last sent SIGINT, and when to look again
    _done: int | None = None  # $? from the DONE marker; output after it is bash's, not the command's
    _forward: int | None = None  # the person's keys, once the command has started
    _forwarded = False
    at_prompt = False  # it ended at bash's prompt (not by a replaced or exited shell)
    guard = False  # the prompt says output can follow the next command (jobs, PROMPT_COMMAND)
    rest: Events  # events read past the prompt, the next exchange's: set as it ends there

    def __init__(self, process: BashProcess, queue: ReadAhead, scanner: Scanner, events: Events,
                 request: Request, tty_after: TtyAttrs | None = None):
        self._process, self._queue, self._scanner, self._request = process, queue, scanner, request
        process.take_wake()  # an interrupt asked for before this command is not for it
        self._line = request.chunks[0]
        self._pending: deque[bytes] = deque()
        self._sent = request.sent
        if self._sent:
            self.began = queue.last_end
        else:
            self.began = time.monotonic()
            self._send(request)
        self._deadline = request.deadline
        if tty_after is not None:
            self._tty_after = tty_after
        self._output, self._before = Output(), bytearray()
        self._events = events

    def _send(self, request: Request) -> None:
        """The command's first line to write, and the commands queued behind it written now."""
        self._pending.extend(self._process.input.pieces(self._line))
        self._lines_sent = self._line.count(b"\n")
        if request.ahead:  # each line one message already: read_ahead.queueable takes no longer ones
            self._queue.offer(request.ahead, request.ahead_limit)
            self._pending.extend([line for _, line in request.ahead])
            # A batch is several messages: were bash to run this command, fail and drain its
            # input between two of them, it would run the rest. So it waits until all are there.
            with self._process.held():
                self._process.input.write_some(self._pending)

    def run(self) -> Reply:
        if self._events and not self._pending:
            # Read with an earlier reply (bash runs queued commands back to back): with nothing
            # to write, no clock can be due yet, and these may end the exchange at once.
            reply = self._on_events()
            if reply is not None:
                return reply
        now = time.monotonic()
        self._idle_check = now + IDLE_AFTER if self._request.watch_idle else _NEVER
        self._withdraw_at = now + min(AHEAD_PATIENCE, max(0.0, self._deadline - now) / 4)
        if self._sent:
            reply = self._catch_up()
            if reply is not None:
                return reply
        while True:
            now = time.monotonic()
            if now >= self._deadline and not self._events:
                reply = self._escalate(now)
                if reply is not None:
                    return reply
                continue
            self._on_clocks(now)
            data, ended = self._on_ready(self._wait(now)) if not self._events else (None, False)
            if data:
                self._events += self._scanner.feed(data)
            reply = self._on_events()
            if reply is not None:
                return reply
            if ended:
                return self._on_gone()

    def _catch_up(self) -> Reply | None:
        """A queued command's reply, read without a wait as long as bash has printed more: it runs
        the queue back to back, so the reply is usually there already, and a poll that says so
        costs as much as the read. Up to the first clock, or an interrupt asked for; None if the
        reply is not all there yet."""
        process, feed = self._process, self._scanner.feed
        while not process.interrupt_requested and time.monotonic() < self._withdraw_at:
            data = process.read()
            if not data:  # nothing yet, or bash has gone: the wait says which
                return None
            self._events = feed(data)
            reply = self._on_events()
            if reply is not None:
                return reply
        return None

    # The clocks.

    def _escalate(self, now: float) -> Reply | None:
        """Past the deadline: the next step (Ctrl-C, then SIGKILL of the command), each with a
        grace of its own; past those, a Reply that says the shell must be replaced."""
        if not self._request.escalate:
            raise SessionError("bash did not answer the session's own query in time")
        self._pending.clear()
        self._next_chunk = len(self._request.chunks)
        self._withdraw()
        self._restore_tty()  # Ctrl-C must be a signal again, not a byte of the command
        self._stage = Escalation(self._stage + 1)
        if self._stage is Escalation.INTERRUPTED:
            self._note = self._process.terminal_note()
            self._interrupt(now)
            self._deadline = now + INTERRUPT_GRACE
            return None
        grace = kill_step(self._process) if self._stage is Escalation.KILLED else None
        if grace is not None:
            self._deadline = now + grace
            return None
        return self._reply(None, stage=Escalation.REPLACED)

    def _on_clocks(self, now: float) -> None:
        """What is due: input to write, the queue to take back, a lost SIGINT, an idle shell."""
        if self._pending:  # write at once; wait for room only when the pty's buffer is full
            self._process.input.write_some(self._pending)
        if now >= self._withdraw_at:
            self._withdraw(resend_own=True)
            self._withdraw_at = _NEVER
        if now >= self._recheck:
            if self._process.foreground() != self._target or processes.sigint_lost(self._target):
                self._target = self._process.interrupt()
            self._recheck = time.monotonic() + REINTERRUPT_EVERY
        if now >= self._idle_check:
            self._on_idle(now)

    def _on_idle(self, now: float) -> None:
        if self._sent and not self._started and not self._events and self._process.waiting_for_input():
            # Queued, never begun, and bash waits for input: the command before read the line from
            # bash's input itself (only bash's own `read -u` can), and the rest. Send it again.
            self._queue.forget()
            self._sent, self.began = False, now
            self._pending.extend(self._process.input.pieces(self._line))
            self._idle_check = now + IDLE_AFTER
            return
        repaired = self._process.repair_prompt()
        self._note = repaired or self._note
        self._idle_check = _NEVER if repaired else now + IDLE_AFTER  # repaired once at most

    def _wait(self, now: float) -> list[int]:
        timeout = min(self._deadline, self._recheck, self._idle_check,
                      self._withdraw_at if self._queue else _NEVER) - now
        self._queue.caught_up = True  # a signal raised in here finds demorun caught up with bash
        if self._forward is None and not self._pending:
            ready = self._process.wait(timeout)
        else:
            watched = self._process.watched + [self._process.wake] + (
                [] if self._forward is None else [self._forward])
            ready = wait_ready(watched, [self._process.input.fd] if self._pending else [], timeout)
        self._queue.caught_up = False
        return ready

    # What woke the wait.

    def _on_ready(self, ready: list[int]) -> tuple[bytes | None, bool]:
        """An interrupt request, keys, output; returns the output and whether bash has gone."""
        process = self._process
        if process.wake in ready and process.take_wake():
            self.interrupted = True
            self._withdraw()
            self._interrupt(time.monotonic())
        if self._forward is not None and self._forward in ready:
            self._on_keys(self._forward)
        data = process.read() if process.fd in ready else None
        if data and self._idle_check != _NEVER:
            self._idle_check = time.monotonic() + IDLE_AFTER
        return data, data == b"" or process.pidfd in ready

    def _on_keys(self, source: int) -> None:
        try:
            keys = os.read(source, 4096)
        except OSError:
            keys = b""
        if not keys:
            self._forward = None
            return
        chosen = self._request.keys_filter
        if chosen is not None:
            keys = chosen(keys, lambda: self._process.reads_terminal(self._process.baseline.echoing()))
        if keys:
            self._pending.append(keys)
            self._forwarded = True

    # The events.

    def _on_events(self) -> Reply | None:
        events, self._events = self._events, []
        for position, (kind, payload) in enumerate(events):
            if kind == OUTPUT:
                self._on_output(payload)
            elif kind == STARTED:
                self._on_started()
            elif kind == ENDED:
                self.rest = events[position + 1:]
                return self._on_ended(payload)
            elif kind == CONTINUE:
                self._on_continue()
            elif kind == DONE:
                self._on_done(payload)
        return None

    def _on_output(self, payload: bytes) -> None:
        if self._started and self._done is None:
            self._output.append(payload)
            if self._request.on_output is not None:
                self._request.on_output(payload)
        else:
            self._before += payload

    def _on_started(self) -> None:
        if not self._started:
            self._started = True
            self._forward = self._request.keys
            if self._tty_after is not None:
                self._restore_tty()

    def _on_continue(self) -> None:
        """bash asks for another line: the command's next, or (none left) it is stuck."""
        if self._started or self._stuck:
            return
        self._continuations += 1
        if self._continuations < self._lines_sent:
            return
        if self._next_chunk < len(self._request.chunks):
            chunk = self._request.chunks[self._next_chunk]
            self._next_chunk += 1
            self._pending.extend(self._process.input.pieces(chunk))
            self._lines_sent += chunk.count(b"\n")
            return
        self._withdraw()  # bash took a queued line as more of this one: take back the rest
        self._stuck, self._stage = True, Escalation.INTERRUPTED
        self._restore_tty()
        self._process.ctrl_c()  # bash is reading, not running anything
        self._deadline = min(self._deadline, time.monotonic() + INTERRUPT_GRACE)

    def _on_done(self, payload: bytes) -> None:
        if self._started and self._done is None:
            self._done = int(payload) if payload.isdigit() else None

    def _on_ended(self, payload: bytes) -> Reply:
        self.at_prompt = True
        self._queue.last_end = time.monotonic()
        status, self.guard, drained = prompt_status(payload)
        if drained:
            self._queue.drained(payload)
        if self._forwarded:
            self._process.flush_keys()
        return self._reply(status if self._done is None else self._done)

    def _on_gone(self) -> Reply:
        status = gone(self._process, self._scanner, self._output if self._started else Output())
        return self._reply(status, died=True)

    # Shared steps.

    def _reply(self, status: int | None, *, stage: Escalation | None = None, died: bool = False) -> Reply:
        said = self._before.decode("utf-8", "replace") if self._before else ""
        return Reply(self._started, status, self._output.text(), said, self._stage if stage is None else stage,
                     self._stuck, died, self._note, self.began)

    def _interrupt(self, now: float) -> None:
        self._target, self._recheck = self._process.interrupt(), now + REINTERRUPT_EVERY

    def _withdraw(self, resend_own: bool = False) -> None:
        """Takes the queued lines back; what came back of this command's own is sent again, or dropped."""
        if not self._queue:
            return
        own = self._queue.withdraw()
        if own and resend_own:
            self._pending.extendleft(reversed(self._process.input.pieces(self._line)[-own:]))

    def _restore_tty(self) -> None:
        """bash has read the command sent byte for byte: the pty's attributes for the command again."""
        if self._tty_after is not None:
            self._process.set_tty(self._tty_after)
            self._tty_after = None
