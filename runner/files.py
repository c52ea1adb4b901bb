"""Files we write (reports, recordings, updated workshops): whole or not at all, with a clear message."""
from __future__ import annotations

import os
import tempfile

from .errors import DemorunError


def _cannot_write(path: str, exc: OSError) -> DemorunError:
    return DemorunError(f"cannot write {path!r}: {exc.strerror or exc}")


def check_writable(path: str) -> None:
    """Fail before a long run rather than after it when a report could not be written."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise DemorunError(f"cannot write {path!r}: it is a folder")
    if not os.path.isdir(folder):
        raise DemorunError(f"cannot write {path!r}: folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise DemorunError(f"cannot write {path!r}: folder {folder!r} is not writable")


def write_atomic(path: str, data: str | bytes) -> None:
    """Write a new file beside `path` and rename it over, so a crash leaves the original whole."""
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    try:
        mode = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException as exc:
        os.unlink(temp)
        if isinstance(exc, OSError):
            raise _cannot_write(path, exc) from None
        raise
