"""Which files under the paths a user gave are workshops."""
from __future__ import annotations

import os
import re
import stat

from .errors import ParseError
from .parse.source import MAX_BYTES

_RUNNABLE_FENCE = re.compile(rb"^(```|~~~)[`~]*[ \t]*(bash|sh|shell)([ \t].*)?\r?$", re.M | re.I)
_SKIPPED_DIRS = {"node_modules", "__pycache__", "venv"}  # and every hidden folder


def find_workshops(paths: list[str], *, scripts: bool) -> list[tuple[str, bool]]:
    """(file, named on the command line) for files named directly and, below each folder,
    Markdown with a runnable fence, plus shell scripts when `scripts`. Lint reads them all;
    check runs a folder's Markdown only, since the scripts beside workshops are mostly
    helpers they import or setup scripts that must not run on their own."""
    found: list[tuple[str, bool]] = []
    for path in paths:
        if os.path.isdir(path):
            below = _walk(path, scripts)
            if not below:
                kinds = "*.md with a bash fence, no *.sh" if scripts else "*.md with a bash fence"
                raise ParseError(f"no workshops in {path!r} (no {kinds})")
            found += [(file, False) for file in below]
        elif os.path.lexists(path):
            found.append((path, True))
        else:
            raise ParseError(f"no such file or folder: {path!r}")
    return list(dict.fromkeys(found))


def _walk(folder: str, scripts: bool) -> list[str]:
    """Workshops below `folder`, in a stable order: each folder's files, then its folders, sorted.

    Links to folders are not followed; the walk keeps its own stack, so a tree thousands of
    folders deep is walked, not a recursion error."""
    found = []
    stack = [folder]
    while stack:
        root = stack.pop()
        try:
            with os.scandir(root) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError:
            continue  # unreadable, or its path too long: as os.walk, nothing below it is found
        folders = []
        for entry in entries:
            if _is_folder(entry):
                if not entry.name.startswith(".") and entry.name not in _SKIPPED_DIRS:
                    folders.append(entry.path)
            elif is_workshop(entry.path, scripts):
                found.append(entry.path)
        stack += reversed(folders)
    return found


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def is_workshop(path: str, scripts: bool) -> bool:
    """A regular file (or a link to one) that is Markdown with a runnable fence, or (with `scripts`)
    any `.sh` file. FIFOs, sockets and devices are never opened: reading one could block or never end."""
    if path.endswith(".sh"):
        return scripts and _regular(path)
    if not path.lower().endswith(".md") or not _regular(path):
        return False
    data = _head(path)
    return data is None or bool(_RUNNABLE_FENCE.search(data))


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False  # gone, or a link to nowhere: nothing to run


def _head(path: str) -> bytes | None:
    """The first MAX_BYTES of a regular file (a workshop is no longer); b"" if it turned out not
    to be one, None if it cannot be read (the parser will say why)."""
    try:
        # Non-blocking: had a FIFO taken the file's place since it was looked at, opening returns.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(MAX_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)


def scripts_below(paths: list[str]) -> list[str]:
    """The `.sh` files below the folders in `paths`, which check leaves out unless named."""
    return [file for path in paths if os.path.isdir(path) for file in _walk(path, True)
            if file.endswith(".sh")]


def shard(files: list[str], k: int, n: int) -> list[str]:
    """The files of shard K of N, in their given order.

    Files are dealt round-robin in the order of their absolute paths, so every
    machine of a CI matrix that sees the same checkout makes the same split,
    whatever order the paths were given in, and each file lands in exactly one shard.
    """
    ranked = sorted(dict.fromkeys(os.path.abspath(f) for f in files))
    mine = {path for i, path in enumerate(ranked) if i % n == k - 1}
    return [f for f in files if os.path.abspath(f) in mine]
