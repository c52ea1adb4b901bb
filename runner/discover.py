"""Which files under the paths a user gave are workshops."""
from __future__ import annotations

import re
from pathlib import Path

from .errors import ParseError

_RUNNABLE_FENCE = re.compile(r"^(```|~~~)\s*(bash|sh|shell)\b", re.MULTILINE)
_SKIPPED_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox"}


def find_workshops(paths: list[str], *, scripts: bool) -> list[str]:
    """Files named directly, plus, below each folder, Markdown with a runnable fence
    (and shell scripts when `scripts`: lint wants them, check runs only Markdown,
    since scripts in a workshop folder are usually imported helpers)."""
    found: list[str] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            below = sorted(_walk(path, scripts))
            if not below:
                kinds = "Markdown workshops or shell scripts" if scripts else "Markdown workshops"
                raise ParseError(f"{given}: no {kinds} (files with a ```bash fence) below this folder")
            found.extend(str(p) for p in below)
        elif path.exists():
            found.append(given)
        else:
            raise ParseError(f"{given}: no such file or folder")
    return list(dict.fromkeys(found))


def _walk(folder: Path, scripts: bool):
    for path in folder.rglob("*"):
        if any(part in _SKIPPED_DIRS for part in path.relative_to(folder).parts[:-1]):
            continue
        if not path.is_file():
            continue
        if path.suffix == ".sh" and scripts:
            yield path
        elif path.suffix == ".md" and _has_runnable_fence(path):
            yield path


def _has_runnable_fence(path: Path) -> bool:
    try:
        return bool(_RUNNABLE_FENCE.search(path.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return False
