"""Reading workshop files: their lines, or one clear error saying why not."""
from __future__ import annotations

from ..errors import ParseError
from ..model import SourceLoc


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


def read_source(path: str) -> str:
    """The text of the workshop at `path`; ParseError when it is not a readable text file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise ParseError(f"no such file: {path!r}") from None
    except IsADirectoryError:
        raise ParseError(f"{path!r} is a directory, not a workshop file") from None
    except PermissionError:
        raise ParseError(f"cannot read {path!r}: permission denied") from None
    except OSError as exc:
        raise ParseError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    return decode(data, path)


def split_lines(text: str) -> list[str]:
    """Lines as editors number them: split on newlines only, a CR before one dropped."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def is_markdown(path: str) -> bool:
    """Markdown by its `.md` name; any other file is a shell script (FORMAT.md)."""
    return path.lower().endswith(".md")
