"""Finding and ending the processes a session started: by terminal session, by an inherited mark,
and, where Linux allows it, as orphans handed to this process as their subreaper.
"""
from __future__ import annotations

import ctypes
import os
import platform
import select
import signal
import time

MARK_VARIABLE = "DEMORUN_SESSION"
_PR_SET_CHILD_SUBREAPER = 36
SHELLS: set[int] = set()  # the bash of every open session of this process: never an orphan


def become_subreaper() -> bool:
    """Orphans of the workshop's processes (`setsid -f`, double forks) become our children, not init's.

    So cleanup finds a daemon that left the terminal's session and dropped the mark with
    `env -i`. Linux only; elsewhere, or if refused, cleanup finds what it finds without.
    """
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _stat(pid: int) -> tuple[int, int]:
    """(process group, session) of pid."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        data = f.read()
    fields = data[data.rindex(b")") + 2:].split()
    return int(fields[2]), int(fields[3])


def _parent_and_start(pid: int) -> tuple[int, int]:
    """(parent, start time in clock ticks since boot) of pid."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        data = f.read()
    fields = data[data.rindex(b")") + 2:].split()
    return int(fields[1]), int(fields[19])


def orphans(shell: int) -> list[int]:
    """Processes handed to us as their subreaper since `shell` started: only a workshop's can be."""
    me = os.getpid()
    try:
        since = _parent_and_start(shell)[1]
    except (OSError, ValueError, IndexError):
        return []
    found = []
    for pid in _pids():
        if pid in SHELLS:
            continue
        try:
            parent, started = _parent_and_start(pid)
        except (OSError, ValueError, IndexError):
            continue
        if parent == me and started >= since:
            found.append(pid)
    return found


def reap(pids: list[int]) -> None:
    """Collect the exit status of orphans we ended, so they do not linger as zombies."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except (ChildProcessError, OSError):
            continue


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def owned(session: int, mark: str) -> list[int]:
    """Processes in terminal session `session`, carrying the mark (daemons that left it), or
    orphaned to us since (daemons that also dropped the mark)."""
    needle = f"{MARK_VARIABLE}={mark}\0".encode()
    me = os.getpid()
    found = orphans(session)
    for pid in _pids():
        if pid == me or pid in found:
            continue
        try:
            if _stat(pid)[1] == session:
                found.append(pid)
                continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                if needle in f.read():
                    found.append(pid)
        except (OSError, ValueError, IndexError):
            continue
    return found


def in_group(pgid: int, exclude: int) -> list[int]:
    found = []
    for pid in _pids():
        try:
            if pid != exclude and _stat(pid)[0] == pgid:
                found.append(pid)
        except (OSError, ValueError, IndexError):
            continue
    return found


def _signal(pid: int, sig: int) -> bool:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _state(pid: int) -> bytes | None:
    """The one-letter state of /proc/PID/stat (R, S, T, Z...), or None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
        return data[data.rindex(b")") + 2:][:1]
    except (OSError, ValueError):
        return None


def gone(pid: int) -> bool:
    """Exited: no such process, or a zombie waiting for its parent."""
    return _state(pid) in (None, b"Z", b"X")


def stopped(pid: int) -> bool:
    """pid is stopped by a signal (SIGSTOP, SIGTSTP), not gone."""
    return _state(pid) in (b"T", b"t")


def wait_stopped(pid: int, timeout: float) -> bool:
    """Waits until pid is stopped (or gone); whether it is. A stop signal takes effect a moment
    after kill() returns: until then the process still runs."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                data = f.read()
            state = data[data.rindex(b")") + 2:][:1]
        except (OSError, ValueError):
            return True
        if state in (b"T", b"t", b"Z", b"X"):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.0001)


def wait_gone(pids: list[int], timeout: float) -> list[int]:
    """Waits until the processes have exited (zombies count) or timeout; returns the survivors.

    poll() takes descriptors of any number (select() stops at 1,024); processes past the
    open-file limit, which cannot get a pidfd, are looked at every few milliseconds instead.
    """
    handles: dict[int, int] = {}
    watched: list[int] = []
    try:
        for pid in pids:
            try:
                handles[os.pidfd_open(pid)] = pid
            except ProcessLookupError:
                continue
            except (AttributeError, OSError):
                watched.append(pid)
        poller = select.poll()
        for fd in handles:
            poller.register(fd, select.POLLIN)
        deadline = time.monotonic() + timeout
        while True:
            watched = [pid for pid in watched if not gone(pid)]
            if not handles and not watched:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                break
            wait = min(left, 0.01) if watched else left
            for fd, _ in poller.poll(wait * 1000):
                poller.unregister(fd)
                os.close(fd)
                del handles[fd]
        return sorted([*handles.values(), *watched])
    finally:
        for fd in handles:
            os.close(fd)


def end(pids: list[int], grace: float = 0.5) -> None:
    """SIGTERM (and SIGCONT, for stopped jobs), then SIGKILL whatever outlives the grace time."""
    alive = [pid for pid in pids if _signal(pid, signal.SIGTERM)]
    for pid in alive:
        _signal(pid, signal.SIGCONT)
    for pid in wait_gone(alive, grace):
        _signal(pid, signal.SIGKILL)


def signal_group(pgid: int, sig: int) -> bool:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def sigint_lost(pgid: int) -> bool:
    """True when a group's leader runs on with SIGINT neither pending, ignored nor caught.

    A SIGINT that lands between fork and exec is taken by the forking shell's
    handler in the child and lost; a process in that state would otherwise have died.
    """
    try:
        with open(f"/proc/{pgid}/status", encoding="ascii", errors="replace") as f:
            fields = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
        if fields.get("State", "Z").startswith(("Z", "X")):
            return False
        bit = 1 << (signal.SIGINT - 1)
        return not any(int(fields[key], 16) & bit for key in ("SigPnd", "ShdPnd", "SigIgn", "SigCgt"))
    except (OSError, KeyError, ValueError):
        return False


def sigint_pending(pid: int) -> bool:
    """A SIGINT sent to pid that it has not taken yet."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            fields = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
        bit = 1 << (signal.SIGINT - 1)
        return any(int(fields[key], 16) & bit for key in ("SigPnd", "ShdPnd"))
    except (OSError, KeyError, ValueError):
        return False


def kill_all(pids: list[int]) -> bool:
    return any([_signal(pid, signal.SIGKILL) for pid in pids])  # a list: every pid gets the signal


def terminal_readers(pgid: int, terminals: tuple[str, ...], exclude: int) -> list[str]:
    """Names of processes in pgid that opened the terminal themselves, as password prompts do.

    Unattended commands get /dev/null as stdin, so a terminal open for reading on any
    descriptor past stderr was opened by the program, not inherited.
    """
    names = []
    for pid in in_group(pgid, exclude):
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if int(fd) <= 2 or os.readlink(f"/proc/{pid}/fd/{fd}") not in terminals:
                    continue
                with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                    flags = next((int(line.split()[1], 8) for line in f if line.startswith("flags:")), 0)
                if flags & os.O_ACCMODE != os.O_WRONLY:
                    with open(f"/proc/{pid}/comm") as f:
                        names.append(f.read().strip())
                    break
        except (OSError, ValueError):
            continue
    return names


# The read(2) family by architecture: a process blocked in one on the terminal is waiting for keys.
_READ_CALLS = {"x86_64": {0, 17, 19}, "aarch64": {63, 65, 67}}.get(platform.machine(), set())
# select(2) and pselect6(2), whose first argument is one more than the highest descriptor watched:
# bash's `read -t` waits in pselect6 on its input alone (nfds 1), so that descriptor is the one asked.
_SELECT_CALLS = {"x86_64": {23, 270}, "aarch64": {72}}.get(platform.machine(), set())


def blocked_reading(pgid: int, terminals: tuple[str, ...]) -> bool:
    """Whether a thread of a process in pgid is blocked reading the terminal (`read`, `cat`, a prompt)."""
    for pid in in_group(pgid, exclude=0):
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/syscall") as f:
                    fields = f.read().split()
                if len(fields) < 2 or not fields[0].isdigit():
                    continue
                call, first = int(fields[0]), int(fields[1], 16)
                if call in _SELECT_CALLS:
                    first -= 1  # the highest descriptor watched
                elif call not in _READ_CALLS:
                    continue
                if first >= 0 and os.readlink(f"/proc/{pid}/fd/{first}") in terminals:
                    return True
        except (OSError, ValueError):
            continue
    return False


def cwd_of(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


def reading_terminal(pid: int) -> bool:
    """pid is blocked in read() on its standard input (Linux's /proc/PID/syscall: number 0, fd 0)."""
    try:
        with open(f"/proc/{pid}/syscall") as f:
            fields = f.read().split()
    except OSError:
        return False
    return len(fields) > 1 and fields[0] == "0" and int(fields[1], 16) == 0


def is_terminal(pid: int, fd: int, terminals: tuple[str, ...]) -> bool:
    """Whether pid's descriptor fd is one of `terminals` (device paths)."""
    try:
        return os.readlink(f"/proc/{pid}/fd/{fd}") in terminals
    except OSError:
        return True  # cannot tell: assume nothing changed
