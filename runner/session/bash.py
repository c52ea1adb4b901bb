"""One bash process on a pty: started with salted prompts, fed a command as it asks, read to its prompt, ended."""
from __future__ import annotations

import fcntl
import os
import secrets
import select
import shlex
import signal
import termios
import time
import weakref
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import pexpect

from ..errors import Aborted, SessionError
from ..results import Escalation
from . import processes
from .pty_io import (
    CANONICAL_LINE_MAX,
    CONTINUE,
    DONE,
    ENDED,
    LEFT,
    OUTPUT,
    READ_EVENTS,
    STARTED,
    Markers,
    Output,
    Scanner,
    ansi_c,
    drained,
    prompt_status,
    raw_input_attrs,
    set_nonblocking,
    special_bytes,
    wait_ready,
)

INTERRUPT_GRACE = 2.0  # after Ctrl-C, time for the command to give the prompt back
# bash forks a foreground job and the child takes the terminal a moment later; a SIGINT to
# bash in between can leave the child holding the terminal and bash reading EOF. So while
# bash itself is in the foreground, wait this long for a job to appear before signalling bash.
FORK_PATIENCE = 0.02
# A job can end on its own just as SIGINT is sent (a fast command in a loop); while the prompt
# has not come back, a job that took the terminal since the last SIGINT gets one too.
REINTERRUPT_EVERY = 0.05
# Unattended, bash with no prompt seen for this long and reading its terminal lost its prompt.
IDLE_AFTER = 1.0
KILL_GRACE = 2.0  # after SIGKILL of the command, time for bash to notice
# Lines queued behind a command are taken back once it has run this long (or a quarter of its
# time limit, if shorter): a slow command gains nothing from them, and an interrupt at its
# deadline must never find a later command queued, or running in its place.
AHEAD_PATIENCE = 0.1
EXIT_GRACE = 60.0  # `exit` at close: time for EXIT traps, a workshop's cleanup (deleting its cluster, say)
START_TIMEOUT = 10.0
_NEVER = float("inf")
_TIOCGPTPEER = getattr(termios, "TIOCGPTPEER", 0x5441)  # Linux: the terminal side of a pty master


class Reply(NamedTuple):
    """What bash made of one command: whether it ran, its status and output, and how it ended.

    A named tuple: one is made for every command, and a tuple is the cheapest record to build.
    """

    started: bool  # bash printed PS0: it parsed the whole command and ran it
    status: int | None
    output: str
    said: str = ""  # what bash printed before starting: its complaint about a rejected command
    stage: Escalation = Escalation.NONE  # how far ending the command had to go
    stuck: bool = False  # bash wanted more input than the command has
    died: bool = False  # bash exited; status is its exit status
    note: str | None = None  # who was reading the terminal when the time ran out
    began: float = 0.0  # when the command started, as far as demorun saw (sent ahead: the end of the one before)
    withdrawn: bool = False  # queued ahead, taken back before bash read it: it did not run


_B = "\\builtin "  # a workshop's functions and aliases never stand in for the session's own words
# Variables a nested bash must not take from its caller: bash's own, and the prompts.
_OWN_VARIABLES = ("BASH*|EUID|PPID|UID|SHELLOPTS|SHLVL|RANDOM|SRANDOM|SECONDS|LINENO|HISTCMD|FUNCNAME|"
                  "GROUPS|DIRSTACK|PIPESTATUS|EPOCHREALTIME|EPOCHSECONDS|PWD|OLDPWD|_|COMP_*|HIST*|OPT*|"
                  "PS0|PS1|PS2|PROMPT_COMMAND|MAILCHECK|COLUMNS|LINES|__dr_q|__dr_n")


def _shell_settings(argv0: str, args: Sequence[str]) -> str:
    """What every bash of a session sets up after its definitions: quiet history, the marker
    prompts, the protected helpers, `$0` and the arguments."""
    b = _B
    return "; ".join([
        f"{b}unset PROMPT_COMMAND MAILCHECK HISTFILE", f"{b}set +o histexpand +o history", f"{b}history -c",
        "PS0=$__dr_p0 PS1=$__dr_p1 PS2=$__dr_p2", f"{b}export -n PS0 PS1 PS2",
        f"{b}readonly -f __dr_ret __dr_g __dr_drain",
        f"BASH_ARGV0={shlex.quote(argv0)}", f"{b}set -- " + " ".join(shlex.quote(a) for a in args),
    ])


def _token() -> tuple[str, str]:
    """A token to wait for, and the printf that prints it. The line never holds the token as
    written, so an echo of the line (`set -v`, a terminal echoing keys typed ahead) never
    passes for its output."""
    token = secrets.token_hex(8)
    return token, f"{_B}printf %s%s {token[:8]} {token[8:]}"


def internal_line(body: str) -> bytes:
    """A line of the session's own: silent under `set -x`, and $? survives it (even under `set -e`)."""
    return ('{ __dr_q=$?; ' + body + '; __dr_ret "$__dr_q" && \\builtin :; } 2>/dev/null </dev/null\n').encode()


def _drain_definition(markers: Markers) -> str:
    """`__dr_drain`, run by the fed shell's PS1 in a subshell: reads away the lines queued on its
    input, unrun, up to the fence; prints `D`, how many, and `f` if it met the fence."""
    b = _B
    return (f"__dr_drain() {{ {b}local __dr_n=0 __dr_l __dr_f=; "
            f"while {b}read -r -t 0 && IFS= {b}read -r __dr_l; do "
            f"if [[ $__dr_l == {shlex.quote(markers.fence.decode().rstrip())} ]]; then __dr_f=f; {b}break; fi; "
            f"__dr_n=$((__dr_n + 1)); done; {b}printf 'D%s%s' \"$__dr_n\" \"$__dr_f\"; }}")


def _feed_attrs(attrs: list) -> list:
    """The fed shell's input side: canonical lines, as on the terminal, but no echo, signals or flow control."""
    fed = [list(a) if isinstance(a, list) else a for a in attrs]
    fed[0] &= ~(termios.IXON | termios.IXOFF)
    fed[3] &= ~(termios.ECHO | termios.ECHOE | termios.ECHOK | termios.ECHONL | termios.ISIG)
    return fed


def _default_signals() -> None:
    """In the child before exec: ignored or blocked signals would pass to bash and every command.

    Python ignores SIGPIPE (`yes | head` would complain of a broken pipe); a demorun started in
    the background by a non-interactive shell has SIGINT and SIGQUIT ignored, and then Ctrl-C
    at a timeout or @stop-after could not interrupt anything.
    """
    for name in ("SIGPIPE", "SIGXFZ", "SIGXFSZ", "SIGINT", "SIGQUIT"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def _reap(child: pexpect.spawn, pid: int, mark: str) -> None:
    """Last-resort cleanup when a shell is dropped or the interpreter exits with it still open."""
    processes.end([p for p in processes.owned(pid, mark) if p != pid], 0.2)
    processes.SHELLS.discard(pid)
    processes.kill_all([pid])
    child.close(force=True)


class Bash:
    """An interactive bash (no rc files, no line editing, echo off) whose prompts are markers.

    Fed (`feed=True`, for unattended runs), bash reads its commands from a second pty of its
    own while the first stays its terminal, for output, job control and /dev/tty: then the
    commands after the running one can wait in bash's input (`ahead`), where nothing the
    command runs can read them, and bash goes from one to the next without a round trip.
    """

    def __init__(self, *, env: Mapping[str, str], cwd: str, rows: int, cols: int, argv0: str,
                 args: Sequence[str], mark: str, feed: bool = False):
        self.markers = Markers()
        self._scanner = Scanner(self.markers)
        self._mark = mark
        self.feed = feed
        self._feed = self._feed_end = -1
        preexec = _default_signals
        if feed:
            self._feed, self._feed_end = os.openpty()  # bash's input: written here, read there
            termios.tcsetattr(self._feed_end, termios.TCSANOW, _feed_attrs(termios.tcgetattr(self._feed_end)))
            feed_path = os.ttyname(self._feed_end)

            def preexec() -> None:
                _default_signals()
                line = os.open(feed_path, os.O_RDWR | os.O_NOCTTY)
                os.dup2(line, 0)
                os.close(line)
        try:
            child = pexpect.spawn("bash", ["--norc", "--noprofile", "--noediting", "-i"], env=dict(env),
                                  cwd=cwd, echo=False, dimensions=(rows, cols), encoding=None,
                                  preexec_fn=preexec)
        except (pexpect.ExceptionPexpect, OSError) as exc:
            self._close_feed()
            raise SessionError(f"cannot start bash: {exc}") from None
        child.delaybeforesend = None
        child.ptyproc.delayafterclose = 0
        child.ptyproc.delayafterterminate = 0.05
        self.child, self.fd, self.pid = child, child.child_fd, child.pid
        self.shell_pid = self.pid  # the bash at the prompt: this one, or a nested one (@$SHELL)
        processes.SHELLS.add(self.pid)
        self._finalizer = weakref.finalize(self, _reap, child, child.pid, mark)
        set_nonblocking(self.fd)
        try:
            self._pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            self._pidfd = -1
        self._woken = False  # set before the pipe is written, so an empty pipe is never read
        self._wake, self._waker = os.pipe()  # interrupt() from a signal handler wakes exchange()
        set_nonblocking(self._wake)
        set_nonblocking(self._waker)
        self._watched = [self.fd] + ([self._pidfd] if self._pidfd >= 0 else [])
        # exchange()'s usual wait (nothing to write, no keys to forward), registered once for the
        # shell's life rather than built anew for every read of every command.
        self._poller = select.poll()
        for watched in self._watched + [self._wake]:
            self._poller.register(watched, READ_EVENTS)
        self.baseline = termios.tcgetattr(self.fd)
        self.input_fd = self._feed if feed else self.fd
        self.input_baseline = termios.tcgetattr(self._feed_end) if feed else self.baseline
        self.special = special_bytes(self.input_baseline)
        if feed:
            set_nonblocking(self._feed)
        self._ahead: deque[tuple[str, bytes]] = deque()  # (command, line) queued in bash's input, unbegun
        self._fence = False  # the fence is queued: which of _ahead bash had read is still to be seen
        self._fence_echo = self.markers.fence.strip()  # what bash prints of it under `set -v`
        self._stash: list[tuple[bytes, bytes]] = []  # events read past the end of the last command
        self.early: deque[tuple[str, Reply]] = deque()  # queued commands that ended before being asked for
        self.ahead_limit = 300.0  # time limit of the commands queued ahead (the session's default)
        self.last_end = 0.0  # when demorun saw the last command end
        self.caught_up = False  # demorun waits for bash to print more (so bash is not ahead of it)
        try:
            self.terminals: tuple[str, ...] = ("/dev/tty", os.readlink(f"/proc/{self.pid}/fd/1"))
        except OSError:
            self.terminals = ("/dev/tty",)
        self.alive = True
        self.clean = True  # at a prompt with nothing of ours pending
        self.guard = False  # output can follow the next command (jobs, PROMPT_COMMAND): frame it guarded
        self.exit_status: int | None = None
        m = self.markers
        b = _B
        init = "; ".join([
            "__dr_i=", f"__dr_p0={ansi_c(m.ps0)}", f"__dr_p2={ansi_c(m.ps2)}",
            f"__dr_p1={ansi_c(m.ps1_draining if feed else m.ps1)}",
            f'__dr_ret() {{ {b}return "$1"; }}',
            # After a guarded command: the DONE marker, and demorun's prompts back if it set its own.
            f'__dr_g() {{ [[ $PS0 == "$__dr_p0" && $PS1 == "$__dr_p1" && $PS2 == "$__dr_p2" ]] || '
            f'{{ PS0=$__dr_p0 PS1=$__dr_p1 PS2=$__dr_p2; {b}export -n PS0 PS1 PS2; }}; '
            f'{m.printf_done()} >&2; {b}return "$1"; }}',
            # What the fed shell's PS1 runs after a failure (ps1_draining); defined in every shell alike.
            _drain_definition(m), "__dr_d=([1]=) __dr_dc='$({ __dr_drain; } 2>/dev/null)'",
            f"{b}readonly __dr_p0 __dr_p1 __dr_p2 __dr_d __dr_dc", _shell_settings(argv0, args),
        ])
        token, printf_token = _token()
        line = (init + f"; {printf_token}\n").encode("utf-8", "surrogateescape")
        try:
            if len(line) > CANONICAL_LINE_MAX or len(line.translate(None, self.special)) != len(line):
                self.set_input(raw_input_attrs(self.input_baseline))  # long or odd arguments: byte for byte
            self.send(line)
            self._await(token, START_TIMEOUT, "bash did not start")
            self.set_input(self.input_baseline)
        except (SessionError, OSError) as exc:
            self.close(graceful=False)
            raise SessionError(str(exc)) from None

    # Plain traffic.

    def send(self, data: bytes) -> None:
        """Input for bash, on whichever pty it reads commands from."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.input_fd, view):]
            except BlockingIOError:
                wait_ready([], [self.input_fd], 1.0)

    def request_interrupt(self) -> None:
        """Asks exchange() to interrupt the command: one write, so safe in a signal handler."""
        self._woken = True
        try:
            os.write(self._waker, b"\x03")
        except OSError:
            pass

    def _foreground(self) -> int:
        try:
            return os.tcgetpgrp(self.fd)
        except OSError:
            return 0

    def interrupt(self) -> int:
        """SIGINT for the foreground job, as Ctrl-C would send it, but never to bash mid-fork.

        Returns the process group that got it.
        """
        deadline = time.monotonic() + FORK_PATIENCE
        while True:
            group = self._foreground()
            if group > 0 and group != self.shell_pid and processes.signal_group(group, signal.SIGINT):
                return group
            if time.monotonic() >= deadline:
                break
            time.sleep(0.002)
        self._ctrl_c()  # bash itself is busy (a loop of builtins, say)
        return self.shell_pid

    def _ctrl_c(self) -> None:
        try:
            os.write(self.fd, b"\x03")
        except OSError:
            pass

    def _drain_wake(self) -> bool:
        """Takes a pending interrupt request; reads the pipe only when one was made."""
        if not self._woken:
            return False
        self._woken = False
        try:
            return bool(os.read(self._wake, 64))
        except BlockingIOError:
            return False

    def _sound_after_interrupt(self) -> bool:
        """After an interrupted command: bash still owns its terminal and reads from it.

        With lines queued behind it, bash printed this prompt and went on to them: that is proof
        enough, and the next exchange sees what the interrupt did to them."""
        if self._ahead or self._fence:
            return True
        try:
            if os.tcgetpgrp(self.fd) != self.shell_pid:
                return False
            self.sync(interrupt=False)
        except (OSError, SessionError):
            return False
        return True

    def set_input(self, attrs: list) -> None:
        """The modes bash's commands are read in: canonical lines, or byte for byte for a long line."""
        if not self.feed:
            self.set_tty(attrs)
            return
        try:
            termios.tcsetattr(self._feed_end, termios.TCSANOW, attrs)
        except termios.error:
            pass

    def set_tty(self, attrs: list) -> None:
        """The pty's modes as given; a command may have changed them (stty), so each use checks."""
        try:
            if termios.tcgetattr(self.fd) != attrs:
                termios.tcsetattr(self.fd, termios.TCSANOW, attrs)
        except termios.error:
            pass

    def setwinsize(self, rows: int, cols: int) -> None:
        self.child.setwinsize(rows, cols)

    def reads_terminal(self, settled: list) -> bool:
        """Whether the running command wants keys: it changed the terminal's modes (less, vi, top,
        a container's shell) or is blocked reading it (`read`, `cat`, a password prompt)."""
        try:
            if termios.tcgetattr(self.fd)[3] != settled[3]:
                return True
        except termios.error:
            return False
        group = self._foreground()
        return group > 0 and processes.blocked_reading(group, self.terminals)

    def flush_input(self) -> None:
        """Drop keys the pty holds that nobody read, so bash never takes them for the next command.

        Flushing the master would not do: only the terminal side holds bash's pending input.
        """
        try:
            peer = fcntl.ioctl(self.fd, _TIOCGPTPEER, os.O_RDWR | os.O_NOCTTY)
        except OSError:
            return
        try:
            termios.tcflush(peer, termios.TCIFLUSH)
        except termios.error:
            pass
        finally:
            os.close(peer)

    def cwd(self) -> str | None:
        return processes.cwd_of(self.shell_pid)

    def _read(self) -> bytes | None:
        """Whatever the pty has; b"" once nobody holds it open any more, None if nothing yet."""
        try:
            return os.read(self.fd, 65536)
        except BlockingIOError:
            return None
        except OSError:
            return b""

    def _await(self, token: str, timeout: float, what: str, line: bytes | None = None) -> None:
        """Reads until the prompt that follows `token`, dropping everything before it.

        `line`, queued behind a command that then failed, may be read away by the fed shell's
        drain (ps1_draining): it is sent again.
        """
        needle = token.encode()
        text = bytearray()
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            ready = wait_ready(self._watched, [], left)
            data = self._read() if self.fd in ready else None
            if data == b"" or self._pidfd in ready:
                self._died(Output())
                raise SessionError(f"{what}: the shell exited (status {self.exit_status})")
            for kind, payload in self._scanner.feed(data) if data else ():
                if kind == OUTPUT:
                    text += payload
                elif kind == ENDED and needle in text:
                    return
                elif kind in (STARTED, ENDED):
                    if kind == ENDED and line is not None and (drained(payload) or (0, False))[0]:
                        self.send(line)
                    text.clear()
        self.clean = False
        raise SessionError(f"{what} within {timeout:g}s")

    def sync(self, interrupt: bool, body: str = ":") -> None:
        """Back to a known prompt after anything unexpected (a stale prompt, an error, an exception),
        running `body` on the way."""
        token, printf_token = _token()
        if interrupt:  # nothing queued may run after it; a line bash already began is interrupted too
            self._flush_feed()
            self._ahead.clear()
            self._fence = False
            self.interrupt()
        else:
            self.settle_ahead()
        self._stash = []
        line = internal_line(f"{body}; {printf_token}")
        self.send(line)
        try:
            self._await(token, INTERRUPT_GRACE, "bash did not come back to its prompt", line)
        except SessionError:
            if not (interrupt and self.alive and self._kill_foreground()):
                raise
            self._await(token, KILL_GRACE, "bash did not come back to its prompt", line)
        self.clean = True

    def query(self, body: str, timeout: float) -> str:
        """Output of one of the session's own lines; nothing of the workshop's runs."""
        reply = self.exchange(deque([internal_line(body)]), time.monotonic() + timeout, escalate=False)
        if reply.died:
            raise SessionError(f"the shell exited (status {reply.status})")
        if not reply.started:
            raise SessionError(f"bash did not run the line {body!r}")
        return reply.output

    # Commands.

    def exchange(self, chunks: deque[bytes], deadline: float, *,
                 on_output: Callable[[bytes], None] | None = None, stdin_fd: int | None = None,
                 settled: list | None = None, escalate: bool = True,
                 keys_filter: Callable[[bytes], bytes] | None = None, watch_idle: bool = False,
                 ahead: Sequence[tuple[str, bytes]] = (), sent: bool = False, resend: bool = True) -> Reply:
        """Feeds a command to bash line by line as it asks for more, and reads until its prompt.

        Only the unread tail is searched for markers, so long output stays linear. `settled`
        are the pty modes to restore once bash has read the command (it was sent byte for byte).
        Past the deadline: Ctrl-C, then SIGKILL of the command, then the shell must be replaced.
        Keys from `stdin_fd` pass through `keys_filter`; what it let through and nobody read is
        dropped when the command ends. With `watch_idle`, bash sitting at its input with no
        prompt seen (its stderr sent elsewhere, its prompt replaced) is noticed and repaired.

        Fed, `ahead` are one-line commands (command, line) queued with this one, for later
        exchanges with `sent`: those only read, unless bash never got to the line (taken back,
        see _withdraw), and then they send it (or, without `resend`, say so: `withdrawn`).
        """
        if not sent and (self._ahead or self._fence):
            self.settle_ahead()  # whatever was queued is settled before anything new is sent
        self.clean = False
        if self._woken:
            self._drain_wake()
        # Locals: this loop runs once or twice for every command of a workshop.
        fd, wake, feed, monotonic = self.fd, self._wake, self._scanner.feed, time.monotonic
        began = self.last_end if sent else monotonic()
        line = chunks.popleft()
        if sent:
            pending, lines_sent = bytearray(), 1
        else:
            pending, lines_sent = bytearray(line), line.count(b"\n")
            if ahead:
                self._ahead.extend(ahead)
                for _, queued in ahead:
                    pending += queued
        continuations = 0
        output, before = Output(), bytearray()
        started = stuck = False
        stage, note = Escalation.NONE, None
        interrupted = False
        target, recheck = 0, _NEVER  # the group last sent SIGINT, and when to look again
        idle_check = monotonic() + IDLE_AFTER if watch_idle else _NEVER
        withdraw_at = monotonic() + min(AHEAD_PATIENCE, max(0.0, deadline - monotonic()) / 4)
        done: int | None = None  # $? from the DONE marker; output after it is bash's, not the command's
        forward: int | None = None
        forwarded = False
        events, self._stash = self._stash, []
        while True:
            now = monotonic()
            if now >= deadline and not events:
                if not escalate:
                    raise SessionError("bash did not answer the session's own query in time")
                pending.clear()
                chunks.clear()
                self._withdraw()
                if settled is not None:  # Ctrl-C must be a signal again, not a byte of the command
                    self._settle_input(settled)
                    settled = None
                stage = Escalation(stage + 1)
                if stage is Escalation.INTERRUPTED:
                    note = self._terminal_note()
                    target, recheck = self.interrupt(), now + REINTERRUPT_EVERY
                    deadline = now + INTERRUPT_GRACE
                    continue
                if stage is Escalation.KILLED and self._kill_foreground():
                    deadline = now + KILL_GRACE
                    continue
                return Reply(started, None, output.text(), before.decode("utf-8", "replace"),
                             stage=Escalation.REPLACED, stuck=stuck, note=note, began=began)
            if pending:  # write at once; wait for room only when the pty's buffer is full
                try:
                    del pending[:os.write(self.input_fd, pending)]
                except BlockingIOError:
                    pass
            if now >= withdraw_at:
                self._withdraw()
                withdraw_at = _NEVER
            if now >= recheck:
                if self._foreground() != target or processes.sigint_lost(target):
                    target = self.interrupt()
                recheck = monotonic() + REINTERRUPT_EVERY
            if now >= idle_check and sent and not started and not events and self._waiting_for_input():
                # Queued, never begun, and bash waits for input: a program of the command before read
                # the line (and the rest, and the fence) from bash's input itself. Send it again.
                self._fence = False
                self._ahead.clear()
                sent, began = False, now
                pending += line
                idle_check = now + IDLE_AFTER
            elif now >= idle_check:
                repaired = self._repair_prompt()
                note = repaired or note
                idle_check = _NEVER if repaired else now + IDLE_AFTER  # repaired once at most
            if events:
                ready: dict | list = {}
            else:
                timeout = min(deadline, recheck, idle_check, withdraw_at if self._ahead else _NEVER) - now
                self.caught_up = True  # a signal raised in here finds demorun caught up with bash
                if forward is None and not pending:
                    ready = dict(self._poller.poll(max(0.0, timeout) * 1000))
                else:
                    watched = self._watched + [wake] + ([] if forward is None else [forward])
                    ready = wait_ready(watched, [self.input_fd] if pending else [], timeout)
                self.caught_up = False
            if wake in ready and self._drain_wake():
                interrupted = True
                self._withdraw()
                target, recheck = self.interrupt(), monotonic() + REINTERRUPT_EVERY
            if forward is not None and forward in ready:
                try:
                    keys = os.read(forward, 4096)
                except OSError:
                    keys = b""
                if not keys:
                    forward = None
                elif keys_filter is not None:
                    keys = keys_filter(keys)
                pending += keys
                forwarded = forwarded or bool(keys)
            data = None
            if fd in ready:
                try:
                    data = os.read(fd, 65536)
                except BlockingIOError:
                    pass
                except OSError:
                    data = b""  # nobody holds the pty open any more
            if data and idle_check != _NEVER:
                idle_check = monotonic() + IDLE_AFTER
            if data:
                events = events + feed(data) if events else feed(data)
            for position, (kind, payload) in enumerate(events):
                if kind == OUTPUT:
                    if started and done is None:
                        output.append(payload)
                        if on_output is not None:
                            on_output(payload)
                    else:
                        before += payload
                elif kind == STARTED and not started:
                    started, forward = True, stdin_fd
                    if settled is not None:
                        self._settle_input(settled)
                        settled = None
                elif kind == CONTINUE and not started and not stuck:
                    continuations += 1
                    if continuations < lines_sent:
                        continue
                    if chunks:
                        chunk = chunks.popleft()
                        pending += chunk
                        lines_sent += chunk.count(b"\n")
                        continue
                    self._withdraw()  # bash took a queued line as more of this one: take back the rest
                    stuck, stage = True, Escalation.INTERRUPTED
                    if settled is not None:
                        self._settle_input(settled)
                        settled = None
                    self._ctrl_c()  # bash is reading, not running anything
                    deadline = min(deadline, now + INTERRUPT_GRACE)
                elif kind == DONE and started and done is None:
                    done = int(payload) if payload.isdigit() else None
                elif kind == ENDED:
                    if sent and self._fence and not started and before.strip() in (b"", self._fence_echo):
                        # The fence's prompt: bash never read this line, taken back with the rest. Send it now.
                        self._fence = False
                        self._ahead.clear()
                        if not resend:
                            self._stash = events[position + 1:]
                            self.clean = True
                            return Reply(False, None, "", withdrawn=True)
                        sent, began = False, monotonic()
                        pending += line
                        continue
                    self.clean = True
                    self.last_end = monotonic()
                    status, self.guard = prompt_status(payload)
                    self._drained(payload)
                    self._stash = events[position + 1:]
                    if forwarded:
                        self.flush_input()
                    if (stage or interrupted) and not stuck and not self._sound_after_interrupt():
                        stage = Escalation.REPLACED
                    return Reply(started, status if done is None else done, output.text(),
                                 before.decode("utf-8", "replace"), stage=stage, stuck=stuck, note=note,
                                 began=began)
            events = []
            if data == b"" or self._pidfd in ready:
                status = self._died(output if started else Output())
                return Reply(started, status, output.text(), before.decode("utf-8", "replace"),
                             stage=stage, stuck=stuck, died=True, note=note, began=began)

    # Lines queued ahead (Bash.feed).

    @property
    def ahead(self) -> tuple[str, ...]:
        """The commands queued in bash's input that it has not begun, oldest first."""
        return tuple(command for command, _ in self._ahead)

    @property
    def next_ahead(self) -> str | None:
        """The oldest command queued in bash's input, if any."""
        return self._ahead[0][0] if self._ahead else None

    @property
    def queued(self) -> bool:
        """Commands wait in bash's input, or ended before they were asked for."""
        return bool(self._ahead or self.early)

    def take_ahead(self) -> bytes:
        """The oldest queued line, for the exchange that reads its reply (`sent`)."""
        return self._ahead.popleft()[1]

    def settle_ahead(self) -> None:
        """Nothing queued any more: the lines bash had begun end and go to `early`, the rest are
        taken back unrun, and the fence is seen. Before anything else is sent to bash."""
        if not (self._ahead or self._fence) or not self.alive:
            return
        self._withdraw()
        while self._ahead:
            command, line = self._ahead.popleft()
            reply = self.exchange(deque([line]), time.monotonic() + self.ahead_limit, sent=True,
                                  resend=False, watch_idle=True)
            if reply.withdrawn or not self.alive:
                break
            self.early.append((command, reply))
            if reply.stage is Escalation.REPLACED:  # past every escalation: this shell must go
                self._ahead.clear()
                self._fence = False
                self.clean = False
                return
        if self._fence and self.alive:  # every queued line began: the fence's prompt is still to come
            self._await_fence()
        self._ahead.clear()

    def _await_fence(self) -> None:
        """Reads to the fence's prompt, the next one once every line before it has ended."""
        events, self._stash = self._stash, []
        deadline = time.monotonic() + INTERRUPT_GRACE
        while True:
            for position, (kind, payload) in enumerate(events):
                if kind == ENDED:
                    self._fence = False
                    self._stash = events[position + 1:]
                    return
            left = deadline - time.monotonic()
            ready = wait_ready(self._watched, [], left) if left > 0 else []
            data = self._read() if self.fd in ready else None
            if data == b"" or self._pidfd in ready:
                self._died(Output())
                return
            if not ready:
                self.clean = False  # the next use syncs, or replaces the shell
                self._fence = False
                return
            events = self._scanner.feed(data) if data else []

    def _withdraw(self) -> None:
        """Takes the queued lines back out of bash's input, and queues the fence after them.

        bash may have read the first of them just before: its markers, or the fence's prompt
        coming first, tell which (exchange with `sent`).
        """
        if not self._ahead or self._fence:
            return
        self._flush_feed()
        self._fence = True
        self.send(self.markers.fence)

    def _flush_feed(self) -> None:
        if self.feed:
            try:
                termios.tcflush(self._feed_end, termios.TCIFLUSH)
            except termios.error:
                pass

    def _drained(self, payload: bytes) -> None:
        """After a prompt whose PS1 read queued lines away: they will not run."""
        found = drained(payload)
        if found is None:
            return
        count, fence = found
        for _ in range(min(count, len(self._ahead))):
            self._ahead.popleft()
        if fence:
            self._fence = False
            self._ahead.clear()

    def _settle_input(self, settled: list) -> None:
        """bash has read the command sent byte for byte: lines again (fed), or the command's modes."""
        if self.feed:
            self.set_input(self.input_baseline)
        else:
            self.set_tty(settled)

    def _waiting_for_input(self) -> bool:
        """bash is at its input with nothing of its own left to print: it has run all it was given."""
        return (self._foreground() == self.shell_pid and processes.reading_terminal(self.shell_pid)
                and not wait_ready([self.fd], [], 0))

    def _repair_prompt(self) -> str | None:
        """bash waits for input but printed no prompt: the last command sent its stderr (where
        prompts go) away or replaced PS1. Puts both back and says so; None if bash is busy.

        Unattended commands read /dev/null, so bash itself reading the terminal is at its prompt.
        """
        if not self._waiting_for_input():  # busy, or its prompt may be in what it wrote last
            return None
        lost = not processes.is_terminal(self.shell_pid, 2, self.terminals[1:])
        self.send(b'__dr_q=$?; [[ -t 2 ]] || \\exec 2>/dev/tty; __dr_g "$__dr_q" "$_"\n')
        if lost:
            return ("the command sent the shell's stderr away (exec 2>...), where bash prints its prompts; "
                    "demorun sent it back to the terminal")
        return "bash printed no prompt after the command (PS1 replaced?); demorun restored its own"

    def _collect(self, data: bytes, output: Output, started: bool) -> None:
        for kind, payload in self._scanner.feed(data):
            if kind == OUTPUT and started:
                output.append(payload)

    def _terminal_note(self) -> str | None:
        names = processes.terminal_readers(self._foreground(), self.terminals, self.shell_pid)
        return f"{names[0]!r} was waiting for input from the terminal" if names else None

    def _kill_foreground(self) -> bool:
        """SIGKILL for the command's processes: its job's group, or bash's children in bash's group."""
        group = self._foreground()
        if not group:
            return False
        if group != self.shell_pid:
            return processes.signal_group(group, signal.SIGKILL)
        return processes.kill_all(processes.in_group(self.shell_pid, exclude=self.shell_pid))

    # Nested shells (`@$SHELL FILE`).

    def start_nested(self, argv0: str, timeout: float) -> int:
        """A bash of its own, run by this one at its prompt, as `$SHELL FILE` ran a second demosh.

        It gets the caller's variables and functions (demosh passed every assignment on) and
        starts with bash's default options; what it sets, its `cd`, `set -e` and `exit` stay in
        it. Returns its pid; from now on it is the shell at the prompt.
        """
        b = _B
        token, printf_token = _token()
        definitions = (f"{b}compgen -v | while IFS= {b}read -r __dr_n; do case $__dr_n in {_OWN_VARIABLES}) ;; "
                       f'*) {b}declare -p -- "$__dr_n" ;; esac; done 2>/dev/null; {b}declare -f')
        settings = _shell_settings(argv0, ()) + f"; {printf_token}"
        try:
            program = os.readlink(f"/proc/{self.pid}/exe")
        except OSError:
            program = "bash"
        line = (f"{b}command {shlex.quote(program)} --noprofile --noediting --rcfile "
                f"<({definitions}; {b}printf '%s\\n' {shlex.quote(settings)}) -i\n")
        self.settle_ahead()
        self.clean = False
        self.send(line.encode("utf-8", "surrogateescape"))
        self._await(token, timeout, "the nested bash did not start")
        self.clean, self.guard = True, False
        pid = int(self.query(f"{b}printf %s $$", timeout) or 0)
        if pid in (0, self.shell_pid):
            raise SessionError("the nested bash did not start")
        self.shell_pid = pid
        return pid

    # Handing the terminal to a person.

    def hand_over(self, stdin_fd: int, show: Callable[[bytes], None]) -> bool:
        """Copies keys to bash and its output to `show` until the person has left: `exit` (its
        LEFT marker, then the prompt after the rest of its line), or Ctrl-D at a prompt where
        nothing was typed (bash would only say "Use exit"). Whether bash is back at its prompt:
        the rest of the line `exit` was in gets a grace, then is interrupted.
        """
        self.clean = False
        fd = self.fd
        at_prompt, last_key, typed = True, b"", False
        left: float | None = None  # when `exit` ran
        source: int | None = stdin_fd
        while True:
            wait = None if left is None else left + INTERRUPT_GRACE - time.monotonic()
            if wait is not None and wait <= 0:
                return False
            watched = self._watched if source is None or left is not None else self._watched + [source]
            ready = wait_ready(watched, [], wait)
            if source is not None and source in ready:
                keys = os.read(source, 4096)
                if not keys:  # no more keys will come: leave as Ctrl-D would
                    source, keys = None, b"\x04"
                if keys == b"\x04" and at_prompt and not typed:
                    return True
                self.send(keys)
                last_key, typed = keys[-1:], True
            data = self._read() if fd in ready else None
            if data == b"" or self._pidfd in ready:
                self._died(Output())
                return False
            for kind, payload in self._scanner.feed(data) if data else ():
                if kind == OUTPUT and left is None:
                    show(payload)
                elif kind == STARTED:
                    at_prompt = False
                elif kind == LEFT:
                    left = time.monotonic()
                elif kind == ENDED and (left is not None or (at_prompt and last_key == b"\x04")):
                    return True
                elif kind == ENDED:
                    at_prompt, last_key, typed = True, b"", False

    # The end.

    def _died(self, output: Output) -> int:
        """bash has gone: keep what it still printed, take its exit status, end what it left behind."""
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and (data := self._read()):
            self._collect(data, output, True)
        output.append(self._scanner.flush())
        if self._pidfd >= 0:
            processes.wait_gone([self.pid], 5.0)
        self.child.isalive()
        if self.child.exitstatus is not None:
            status = self.child.exitstatus
        elif self.child.signalstatus is not None:
            status = 128 + self.child.signalstatus
        else:
            status = 1
        self.exit_status = status
        self.close(graceful=False)
        return status

    def close(self, graceful: bool) -> None:
        """Ends every process the workshop started, then bash. Idempotent."""
        if self.fd < 0:
            return
        os.close(self._wake)
        os.close(self._waker)
        stop: BaseException | None = None
        if graceful and self.alive:
            try:
                if not self.clean or self._ahead or self._fence:  # a run aborted mid-command: interrupt
                    self.sync(interrupt=True)                     # it, as Ctrl-C would
                self._exit_gracefully()
            except SessionError:
                pass  # bash would not come back to its prompt: no traps, end everything
            except (KeyboardInterrupt, Aborted) as exc:
                stop = exc  # asked to stop while the traps ran: end everything now, then stop
        ended: list[int] = []
        for _ in range(3):  # a process forking while it is being ended is caught on the next pass
            others = [pid for pid in processes.owned(self.pid, self._mark) if pid != self.pid]
            if not others:
                break
            processes.end(others)
            ended += others
        processes.reap(ended)
        processes.SHELLS.discard(self.pid)
        processes.kill_all([self.pid])
        processes.wait_gone([self.pid], 1.0)
        self.child.close(force=True)
        if self._pidfd >= 0:
            os.close(self._pidfd)
        self._close_feed()
        self._finalizer.detach()
        self.fd = self._pidfd = -1
        self.alive = False
        if stop is not None:
            raise stop

    def _close_feed(self) -> None:
        for end in (self._feed, self._feed_end):
            if end >= 0:
                os.close(end)
        self._feed = self._feed_end = -1

    def _exit_gracefully(self) -> None:
        """`exit`, so EXIT traps run; bash refuses while jobs are stopped, and is then killed."""
        self._flush_feed()
        try:
            os.write(self.input_fd, b"exit\n")
        except OSError:
            return
        deadline = time.monotonic() + EXIT_GRACE
        while (left := deadline - time.monotonic()) > 0:
            ready = wait_ready(self._watched, [], left)
            data = self._read() if self.fd in ready else None
            if data == b"" or self._pidfd in ready:
                return
            if data and any(kind == ENDED for kind, _ in self._scanner.feed(data)):
                return
