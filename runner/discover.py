"""Which files under the paths a user gave are workshops."""
from __future__ import annotations

import os
import re

from .errors import ParseError

_RUNNABLE_FENCE = re.compile(rb"^(```|~~~)[`~]*[ \t]*(bash|sh|shell)([ \t].*)?\r?$", re.M | re.I)
_SKIPPED_DIRS = {"node_modules", "__pycache__", "venv"}  # and every hidden folder


def find_workshops(paths: list[str], *, scripts: bool) -> list[tuple[str, bool]]:
    """(file, named on the command line) for files named directly and, below each folder,
    Markdown with a runnable fence, plus shell scripts when `scripts` (lint wants them;
    check runs only Markdown, since scripts in a workshop folder are usually imported)."""
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
    """Workshops below `folder`, in a stable order."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        found += [os.path.join(root, name) for name in sorted(files)
                  if _is_workshop(os.path.join(root, name), scripts)]
    return found


def _is_workshop(path: str, scripts: bool) -> bool:
    if path.endswith(".sh"):
        return scripts
    if not path.lower().endswith(".md"):
        return False
    try:
        with open(path, "rb") as f:
            return bool(_RUNNABLE_FENCE.search(f.read()))
    except OSError:
        return True  # unreadable: let the parser say why
