"""Reading workshop files: their lines, or one clear error saying why not."""
from __future__ import annotations

import os
import stat

from ..errors import ParseError
from ..model import SourceLoc

MAX_BYTES = 8 * 1024 * 1024  # a workshop is prose and commands; more is a mistake or an attack
_DEVICE_TREES = ("/dev/", "/proc/", "/sys/")


def decode(data: bytes, path: str) -> str:
    """UTF-8 text of a workshop; ParseError for binary or other encodings."""
    if b"\0" in data:
        raise ParseError(f"{path!r} is a binary file, not a workshop")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ParseError(f"{path!r} is not UTF-8 text (byte 0x{data[exc.start]:02x})",
                         SourceLoc(path, line)) from None
    return text[1:] if text.startswith("\ufeff") else text


def read_source(path: str, *, regular: bool = False) -> str:
    """The text of the workshop at `path`; ParseError when it is not a readable text file.

    At most MAX_BYTES are read, so `/dev/zero` ends. `regular` (imported and init files)
    also refuses anything but a regular file outside /dev and /proc: a FIFO or `/dev/stdin`
    would block or swallow the terminal's input.
    """
    if regular and os.path.realpath(path).startswith(_DEVICE_TREES):
        raise ParseError(f"{path!r} is a device, not a workshop file")
    try:
        # Non-blocking, so opening a FIFO nobody writes to returns at once.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise ParseError(f"no such file: {path!r}") from None
    except IsADirectoryError:
        raise ParseError(f"{path!r} is a directory, not a workshop file") from None
    except PermissionError:
        raise ParseError(f"cannot read {path!r}: permission denied") from None
    except OSError as exc:
        raise ParseError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if stat.S_ISDIR(mode) or (regular and not stat.S_ISREG(mode)):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise ParseError(f"{path!r} is a directory, not a workshop file")
        raise ParseError(f"{path!r} is not a regular file (a FIFO, socket or device)")
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(MAX_BYTES + 1)
        except OSError as exc:
            raise ParseError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise ParseError(f"{path!r} is larger than {MAX_BYTES // (1024 * 1024)} MiB")
    return decode(data, path)


def split_lines(text: str) -> list[str]:
    """Lines as editors number them: split on newlines only, a CR before one dropped."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def is_markdown(path: str) -> bool:
    """Markdown by its `.md` name; any other file is a shell script (docs/format.md)."""
    return path.lower().endswith(".md")
