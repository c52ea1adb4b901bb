"""Files we write (reports, recordings, updated workshops): whole or not at all, with a clear message.

Every write takes an exclusive lock on the target's folder, so two demorun
processes writing the same file take turns: the second sees what the first
wrote. The new content goes to one fixed temporary name beside the target
and is renamed over it; a temporary file left by a killed process is
removed by the next write under the lock, so none piles up.

A character device (`--junit /dev/null`, `/dev/stdout` on a terminal, or a
link to one) is written in place: renaming over it would replace the device
itself with a file, which as root breaks the machine for every later
program. Any other special file (a FIFO, a socket, a block device) is
refused with a message before anything runs.
"""
from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from .errors import DemorunError

LOCK_PATIENCE = 30.0  # seconds to wait for another writer of the same folder before giving up


def _cannot_write(path: str, exc: OSError) -> DemorunError:
    return DemorunError(f"cannot write {path!r}: {exc.strerror or exc}")


def _read_only(bits: int) -> bool:
    return not bits & 0o222


_KINDS = ((stat.S_ISCHR, "character device"), (stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "FIFO"),
          (stat.S_ISSOCK, "socket"), (stat.S_ISBLK, "block device"))


def special_kind(path: str) -> str | None:
    """What `path` is (links followed) if not a regular file: "character device", "folder", "FIFO",
    "socket" or "block device"; None for a regular file or nothing at all."""
    try:
        bits = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return next((kind for test, kind in _KINDS if test(bits)), None)


def _refuse_special(path: str, kind: str | None) -> None:
    if kind == "folder":
        raise DemorunError(f"cannot write {path!r}: it is a folder")
    if kind is not None and kind != "character device":
        raise DemorunError(f"cannot write {path!r}: it is a {kind}, not a file "
                           "(write to a file, or a character device such as /dev/null)")


def check_writable(path: str) -> None:
    """Fail before a long run rather than after it when a report could not be written."""
    folder = os.path.dirname(os.path.abspath(path))
    kind = special_kind(path)
    _refuse_special(path, kind)
    if kind == "character device":
        if not os.access(path, os.W_OK):
            raise DemorunError(f"cannot write {path!r}: permission denied")
        return
    if not os.path.isdir(folder):
        raise DemorunError(f"cannot write {path!r}: folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise DemorunError(f"cannot write {path!r}: folder {folder!r} is not writable")
    _refuse_read_only(path)


def _refuse_read_only(path: str) -> None:
    """A read-only file says "do not change me"; renaming over it would ignore that (root included)."""
    try:
        bits = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if _read_only(bits) or not os.access(path, os.W_OK):
        raise DemorunError(f"cannot write {path!r}: the file is read-only")


def temporary_name(target: str) -> str:
    """The one temporary file a write of `target` uses, beside it (hidden, and short enough for any name)."""
    folder, name = os.path.split(target)
    return os.path.join(folder, f".{name[:100]}.demorun-tmp")


@contextmanager
def _folder_locked(path: str, folder: str) -> Iterator[None]:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError as exc:
        raise _cannot_write(path, exc) from None
    except OSError:
        yield  # a folder we cannot open can still be written in; the rename is atomic on its own
        return
    try:
        deadline = time.monotonic() + LOCK_PATIENCE
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise DemorunError(f"cannot write {path!r}: another process has been writing "
                                       f"in {folder!r} for {LOCK_PATIENCE:g}s") from None
                time.sleep(0.02)
            except OSError as exc:
                if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
                    break  # a file system without locks: the rename still keeps the file whole
                raise
        yield
    finally:
        os.close(fd)  # releases the lock


def rewrite(path: str, change: Callable[[bytes | None], bytes | None]) -> bool:
    """Replace the file at `path` with `change(its current bytes)`, holding the folder lock throughout.

    `change` gets None when the file does not exist, and returns None (or the same
    bytes) to leave it alone; what it raises propagates and nothing is written.
    Returns whether the file was written.
    """
    def produce(target: str) -> bytes | None:
        try:
            with open(target, "rb") as f:
                current: bytes | None = f.read()
        except FileNotFoundError:
            current = None
        except OSError as exc:
            raise DemorunError(f"cannot read {path!r}: {exc.strerror or exc}") from None
        data = change(current)
        return None if data == current else data

    return _write_locked(path, produce)


def write_atomic(path: str, data: str | bytes) -> None:
    """Write a new file beside `path` and rename it over, so a crash leaves the original whole;
    a character device is written in place."""
    # A name that is not UTF-8 (a file called b"w\xff.md") reaches reports as a lone surrogate:
    # shown as "?", rather than costing the whole report.
    encoded = data.encode("utf-8", "replace") if isinstance(data, str) else data
    kind = special_kind(path)
    _refuse_special(path, kind)
    if kind == "character device":
        _write_device(path, encoded)
    else:
        _write_locked(path, lambda target: encoded)


def _write_device(path: str, data: bytes) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOCTTY)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    try:
        if not stat.S_ISCHR(os.fstat(fd).st_mode):  # replaced since it was looked at: not ours to write
            raise DemorunError(f"cannot write {path!r}: it changed while being opened")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    finally:
        os.close(fd)


def _write_locked(path: str, produce: Callable[[str], bytes | None]) -> bool:
    target = os.path.realpath(path)
    kind = special_kind(target)
    if kind is not None:  # rewrite() of a device, or one put in place of a file: never renamed over
        raise DemorunError(f"cannot write {path!r}: it is a {kind}, not a regular file")
    with _folder_locked(path, os.path.dirname(target) or "."):
        temp = temporary_name(target)
        _remove(temp)  # left by a process killed mid-write: we hold the lock, so it is nobody's now
        data = produce(target)
        if data is None:
            return False
        try:
            st = os.stat(target)
            _refuse_read_only(target)
        except FileNotFoundError:
            st = None
        except OSError as exc:  # its folder became a file, a loop of links: one line, never a traceback
            raise _cannot_write(path, exc) from None
        _replace(path, target, temp, data, st)
        return True


def _replace(path: str, target: str, temp: str, data: bytes, old: os.stat_result | None) -> None:
    """The new file takes the old one's permissions and, where we may, its owner; a new one the umask's."""
    if old is None:
        umask = os.umask(0)
        os.umask(umask)
        bits = 0o666 & ~umask
    else:
        bits = old.st_mode & 0o7777
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if old is not None and (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
            with suppress(PermissionError):
                os.chown(temp, old.st_uid, old.st_gid)  # root updating someone's workshop
        os.chmod(temp, bits)
        os.replace(temp, target)
    except BaseException as exc:
        _remove(temp)
        if isinstance(exc, OSError):
            raise _cannot_write(path, exc) from None
        raise


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        pass  # not ours to clean (another user's); O_EXCL below then says why we cannot write
