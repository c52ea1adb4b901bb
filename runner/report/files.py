"""Report files written whole or not at all, with a clear message when they cannot be."""
from __future__ import annotations

import os

from ..errors import DemorunError


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
    """Write a new file beside path and rename it over path, so readers never see half of it."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    folder = os.path.dirname(os.path.abspath(path))
    temp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        # os.open applies the umask, so the report gets the permissions any new file would.
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(payload)
        os.replace(temp, path)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
