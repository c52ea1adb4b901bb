"""Which files under the paths a user gave are workshops."""
from __future__ import annotations

import heapq
import os
from collections.abc import Sequence

from .errors import ParseError
from .parse.markdown import has_runnable_fence

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
                others = len(not_workshops([path]))
                besides = f"; {others} Markdown file(s) without one: `check -v` says why" if others else ""
                raise ParseError(f"no workshops in {path!r} (no {kinds}{besides})")
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
                  if is_workshop(os.path.join(root, name), scripts)]
    return found


def is_workshop(path: str, scripts: bool) -> bool:
    """Markdown with a runnable fence, or (with `scripts`) any `.sh` file."""
    if path.endswith(".sh"):
        return scripts
    if not path.lower().endswith(".md"):
        return False
    try:
        with open(path, "rb") as f:
            return has_runnable_fence(f.read())
    except OSError:
        return True  # unreadable: let the parser say why


def not_workshops(paths: list[str]) -> list[str]:
    """The Markdown files below the folders in `paths` with no runnable fence: not workshops."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
                found += [os.path.join(root, name) for name in sorted(files) if name.lower().endswith(".md")
                          and not is_workshop(os.path.join(root, name), False)]
    return found


def scripts_below(paths: list[str]) -> list[str]:
    """The `.sh` files below the folders in `paths`, which check leaves out unless named."""
    return [file for path in paths if os.path.isdir(path) for file in _walk(path, True)
            if file.endswith(".sh")]


def shard(files: list[str], k: int, n: int, together: Sequence[Sequence[str]] = ()) -> list[str]:
    """The files of shard K of N, in their given order.

    Files are dealt in the order of their absolute paths, each to the shard with the fewest
    files so far (the first on a tie: round-robin), so every machine of a CI matrix that sees
    the same checkout makes the same split, whatever order the paths were given in, and each
    file lands in exactly one shard. The files of one group in `together` are dealt as one,
    larger groups first, so they land in the same shard.
    """
    ranked = sorted(dict.fromkeys(os.path.abspath(f) for f in files))
    group_of = {os.path.abspath(f): i for i, group in enumerate(together) for f in group}
    dealt: dict[object, list[str]] = {}
    for path in ranked:
        dealt.setdefault(group_of.get(path, path), []).append(path)
    loads: list[tuple[int, int]] = []  # (files, shard) of the shards dealt to so far: a heap
    mine: set[str] = set()
    for group in sorted(dealt.values(), key=lambda paths: (-len(paths), paths[0])):
        # An empty shard has the fewest; N may be huge, so the empty ones are only counted.
        load, target = (0, len(loads)) if len(loads) < n else heapq.heappop(loads)
        heapq.heappush(loads, (load + len(group), target))
        if target == k - 1:
            mine.update(group)
    return [f for f in files if os.path.abspath(f) in mine]
