"""One bash process on a pty: started with default signals, signalled for the command it runs,
its lost prompt repaired, and ended with everything it started."""
from __future__ import annotations

import fcntl
import os
import select
import signal
import termios
import time
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import pexpect
import ptyprocess

from ..errors import SessionError
from . import processes
from .feed import Input, SocketInput
from .pty_io import READ_EVENTS, set_nonblocking, wait_ready
from .tty_attrs import TtyAttrs

# bash forks a foreground job and the child takes the terminal a moment later; a SIGINT to
# bash in between can leave the child holding the terminal and bash reading EOF. So while
# bash itself is in the foreground, wait this long for a job to appear before signalling bash.
FORK_PATIENCE = 0.02
_TIOCGPTPEER = getattr(termios, "TIOCGPTPEER", 0x5441)  # Linux: the terminal side of a pty master


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


class _Spawn(pexpect.spawn):
    """pexpect's spawn, keeping bash's input socket open in the child (ptyprocess closes the rest)."""

    def __init__(self, *args: object, keep: tuple[int, ...], **kwargs: object):
        self._keep = keep
        super().__init__(*args, **kwargs)

    def _spawnpty(self, args: list, **kwargs: object) -> ptyprocess.PtyProcess:
        return ptyprocess.PtyProcess.spawn(args, pass_fds=self._keep, **kwargs)


class BashProcess:
    """An interactive bash (no rc files, no line editing, echo off) on a pty of its own.

    Fed (unattended), it reads its commands from a socket (feed.SocketInput) and the pty stays
    its terminal, for output, job control and /dev/tty; otherwise it reads them from the pty.
    """

    def __init__(self, *, env: Mapping[str, str], cwd: str, rows: int, cols: int, mark: str, feed: bool):
        self.mark = mark
        socket_input = SocketInput() if feed else None
        preexec = _default_signals
        if socket_input is not None:
            def preexec() -> None:
                _default_signals()
                os.dup2(socket_input.bash_end, 0)
                os.close(socket_input.bash_end)
        try:
            child = _Spawn("bash", ["--norc", "--noprofile", "--noediting", "-i"], env=dict(env), cwd=cwd,
                           echo=False, dimensions=(rows, cols), encoding=None, preexec_fn=preexec,
                           keep=() if socket_input is None else (socket_input.bash_end,))
        except (pexpect.ExceptionPexpect, OSError) as exc:
            if socket_input is not None:
                socket_input.close()
            raise SessionError(f"cannot start bash: {exc}") from None
        child.delaybeforesend = None
        child.ptyproc.delayafterclose = 0
        child.ptyproc.delayafterterminate = 0.05
        self.child, self.fd, self.pid = child, child.child_fd, child.pid
        self.input: Input = socket_input or Input(self.fd)
        self.fed = socket_input is not None
        self.shell_pid = self.pid  # the bash at the prompt: this one, or a nested one (@$SHELL)
        processes.SHELLS.add(self.pid)
        self._finalizer = weakref.finalize(self, _reap, child, child.pid, mark)
        set_nonblocking(self.fd)
        try:
            self.pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            self.pidfd = -1
        # An interrupt asked for and not taken yet: set before the pipe is written, so an empty
        # pipe is never read, and a plain attribute, which an exchange reading without a wait
        # looks at before each read.
        self.interrupt_requested = False
        self.wake, self._waker = os.pipe()  # request_interrupt() from a signal handler wakes a wait
        set_nonblocking(self.wake)
        set_nonblocking(self._waker)
        self.watched = [self.fd] + ([self.pidfd] if self.pidfd >= 0 else [])
        # The usual wait of a command (nothing to write, no keys to forward), registered once for
        # the shell's life, not built anew at every wait (docs/performance.md, measured choices).
        self._poller = select.poll()
        for watched in self.watched + [self.wake]:
            self._poller.register(watched, READ_EVENTS)
        self.baseline = TtyAttrs.of(self.fd)
        # What a canonical pty would act on in bash's input; a socket passes every byte.
        self.special = b"" if self.fed else self.baseline.special()
        try:
            self.terminals: tuple[str, ...] = ("/dev/tty", os.readlink(f"/proc/{self.pid}/fd/1"))
        except OSError:
            self.terminals = ("/dev/tty",)
        self.alive = True
        self.exit_status: int | None = None

    # Bytes in and out.

    def read(self) -> bytes | None:
        """Whatever the pty has; b"" once nobody holds it open any more, None if nothing yet."""
        try:
            return os.read(self.fd, 65536)
        except BlockingIOError:
            return None
        except OSError:
            return b""

    def wait(self, timeout: float) -> list[int]:
        """The usual wait: output, bash's end, or an interrupt request; the ready descriptors."""
        return [fd for fd, _ in self._poller.poll(max(0.0, timeout) * 1000)]

    def wait_output(self, timeout: float | None, keys: int | None = None) -> list[int]:
        """A wait for output or bash's end only (and keys, if given): interrupt requests wait."""
        return wait_ready(self.watched if keys is None else self.watched + [keys], [], timeout)

    def request_interrupt(self) -> None:
        """Wakes the wait to interrupt the command: one write, so safe in a signal handler."""
        self.interrupt_requested = True
        try:
            os.write(self._waker, b"\x03")
        except OSError:
            pass

    def take_wake(self) -> bool:
        """Takes a pending interrupt request; reads the pipe only when one was made."""
        if not self.interrupt_requested:
            return False
        self.interrupt_requested = False
        try:
            return bool(os.read(self.wake, 64))
        except BlockingIOError:
            return False

    # Signals for what runs.

    def foreground(self) -> int:
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
            group = self.foreground()
            if group > 0 and group != self.shell_pid and processes.signal_group(group, signal.SIGINT):
                return group
            if time.monotonic() >= deadline:
                break
            time.sleep(0.002)
        self.ctrl_c()  # bash itself is busy (a loop of builtins, say)
        return self.shell_pid

    def ctrl_c(self) -> None:
        """Ctrl-C on bash's terminal: SIGINT for whatever is in the foreground, bash included.

        Typed, it takes effect when the terminal gets to it: after what was typed before, before
        what is typed after. Fed, what is written next goes to the socket, which bash reads at
        once, and a SIGINT arriving while bash reads a line throws the line away; so it is sent
        directly, before anything else is written."""
        if self.fed:
            group = self.foreground()
            if group > 0 and processes.signal_group(group, signal.SIGINT):
                return
        try:
            os.write(self.fd, b"\x03")
        except OSError:
            pass

    @contextmanager
    def held(self, *, still: bool = False) -> Iterator[None]:
        """bash stopped for a moment (SIGSTOP, then SIGCONT): what is written to its input meanwhile
        is all there before it runs any of it, though it may have read the first piece already.
        With `still`, the hold begins once bash has stopped indeed: what is taken from its input
        then is never read by bash at the same moment, so bash has read a first part, all of it.

        Only the session's own bash is held: a nested one (@$SHELL) is a job of its caller, which
        would take it for a stopped job and go back to its own prompt (nothing is queued for it)."""
        if self.shell_pid != self.pid:
            yield
            return
        try:
            os.kill(self.pid, signal.SIGSTOP)
        except ProcessLookupError:
            yield
            return
        try:
            if still:
                processes.wait_stopped(self.pid, 1.0)
            yield
        finally:
            os.kill(self.pid, signal.SIGCONT)

    def took_interrupt(self, timeout: float) -> bool:
        """Waits until bash has taken a SIGINT sent to it and reads its input again; whether it did.

        bash takes a signal at its next check, not at once: a line it began to read before that
        would be cut, its start thrown away and its end read as a line of its own."""
        deadline = time.monotonic() + timeout
        while processes.sigint_pending(self.shell_pid) or not (
                self.foreground() == self.shell_pid and processes.reading_terminal(self.shell_pid)):
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.001)
        return True

    def kill_foreground(self) -> bool:
        """SIGKILL for the command's processes: its job's group, or bash's children in bash's group."""
        group = self.foreground()
        if not group:
            return False
        if group != self.shell_pid:
            return processes.signal_group(group, signal.SIGKILL)
        return processes.kill_all(processes.in_group(self.shell_pid, exclude=self.shell_pid))

    def terminal_note(self) -> str | None:
        """Who was reading the terminal, for the message of a command that ran out of time."""
        names = processes.terminal_readers(self.foreground(), self.terminals, self.shell_pid)
        return f"{names[0]!r} was waiting for input from the terminal" if names else None

    # A lost prompt.

    def waiting_for_input(self) -> bool:
        """bash is at its input with nothing of its own left to print: it has run all it was given."""
        return (self.foreground() == self.shell_pid and processes.reading_terminal(self.shell_pid)
                and not wait_ready([self.fd], [], 0))

    def repair_prompt(self) -> str | None:
        """bash waits for input but printed no prompt: the last command sent its stderr (where
        prompts go) away or replaced PS1. Puts both back and says so; None if bash is busy.

        Unattended commands read /dev/null, so bash itself reading its input is at its prompt.
        """
        if not self.waiting_for_input():  # busy, or its prompt may be in what it wrote last
            return None
        lost = not processes.is_terminal(self.shell_pid, 2, self.terminals[1:])
        self.input.send(b'__dr_q=$?; [[ -t 2 ]] || \\exec 2>/dev/tty; __dr_g "$__dr_q" "$_"\n')
        if lost:
            return ("the command sent the shell's stderr away (exec 2>...), where bash prints its prompts; "
                    "demorun sent it back to the terminal")
        return "bash printed no prompt after the command (PS1 replaced?); demorun restored its own"

    # The terminal.

    def set_tty(self, attrs: TtyAttrs) -> None:
        """The pty's attributes as given; a command may have changed them (stty), so each use checks."""
        try:
            if not attrs.is_on(self.fd):
                attrs.set_on(self.fd)
        except termios.error:
            pass

    def setwinsize(self, rows: int, cols: int) -> None:
        self.child.setwinsize(rows, cols)

    def reads_terminal(self, settled: TtyAttrs) -> bool:
        """Whether the running command wants keys: it changed the terminal's attributes (less, vi,
        top, a container's shell) or is blocked reading it (`read`, `cat`, a password prompt)."""
        try:
            if TtyAttrs.of(self.fd).lflag != settled.lflag:
                return True
        except termios.error:
            return False
        group = self.foreground()
        return group > 0 and processes.blocked_reading(group, self.terminals)

    def flush_keys(self) -> None:
        """Drops keys the pty holds that nobody read, so bash never takes them for the next command.

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

    # The end.

    def leftover_output(self) -> bytes:
        """What bash still printed after it exited (read for up to a second)."""
        data = b""
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and (chunk := self.read()):
            data += chunk
        return data

    def reap(self) -> int:
        """bash's exit status, once it has gone (128 + N for a signal)."""
        if self.pidfd >= 0:
            processes.wait_gone([self.pid], 5.0)
        self.child.isalive()
        if self.child.exitstatus is not None:
            status = self.child.exitstatus
        elif self.child.signalstatus is not None:
            status = 128 + self.child.signalstatus
        else:
            status = 1
        self.exit_status = status
        return status

    def end(self) -> None:
        """Ends every process the workshop started, then bash, and closes what it held. Idempotent."""
        if self.fd < 0:
            return
        os.close(self.wake)
        os.close(self._waker)
        ended: list[int] = []
        for _ in range(3):  # a process forking while it is being ended is caught on the next pass
            others = [pid for pid in processes.owned(self.pid, self.mark) if pid != self.pid]
            if not others:
                break
            processes.end(others)
            ended += others
        processes.reap(ended)
        processes.SHELLS.discard(self.pid)
        processes.kill_all([self.pid])
        processes.wait_gone([self.pid], 1.0)
        self.child.close(force=True)
        if self.pidfd >= 0:
            os.close(self.pidfd)
        self.input.close()
        self._finalizer.detach()
        self.fd = self.pidfd = -1
        self.alive = False
