"""Which files under the paths a user gave are workshops."""
from __future__ import annotations

import heapq
import os
import re
import stat
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from .errors import ParseError
from .parse.markdown import has_runnable_fence
from .parse.source import MAX_BYTES

_SKIPPED_DIRS = {"node_modules", "__pycache__", "venv"}  # and every hidden folder


class Choice(NamedTuple):
    """Why a file below a folder was taken as a workshop, or left out: what `check -v` says."""

    file: str
    taken: bool
    why: str


def find_workshops(paths: list[str], *, scripts: bool, exclude: Sequence[str] = (),
                   said: list[Choice] | None = None) -> list[tuple[str, bool]]:
    """(file, named on the command line) for files named directly and, below each folder, its
    workshops by the rule of docs/ci.md#which-files: Markdown with a runnable fence (plus shell
    scripts when `scripts`), or only what the configuration's `include` globs name, less what its
    `exclude` globs and `exclude` (globs from the current folder: `check --exclude`) name. Lint reads
    them all; check runs a folder's Markdown only, since the scripts beside workshops are mostly
    helpers they import or setup scripts that must not run on their own. `said` collects a
    Choice for each file of a folder taken or left out by a glob."""
    if exclude:
        from .config import ConfigError, glob_problem

        problem = next(filter(None, (glob_problem(glob, "the current folder") for glob in exclude)), None)
        if problem:
            raise ConfigError(f"--exclude {problem}")
    found: list[tuple[str, bool]] = []
    for path in paths:
        if os.path.isdir(path):
            choices: list[Choice] = []
            below = _chosen(path, scripts, exclude, choices)
            if said is not None:
                said += choices
            if not below and choices:
                raise ParseError(f"no workshops in {path!r}: {_left_out(choices)}")
            if not below:
                kinds = "*.md with a command in a bash fence" + (", no *.sh" if scripts else "")
                others = len(not_workshops([path]))
                besides = f"; {others} Markdown file(s) without one: `check -v` says why" if others else ""
                raise ParseError(f"no workshops in {path!r} (no {kinds}{besides})")
            found += [(file, False) for file in below]
        elif os.path.lexists(path):
            found.append((path, True))
        else:
            raise ParseError(f"no such file or folder: {path!r}")
    return list(dict.fromkeys(found))


def _left_out(choices: list[Choice]) -> str:
    """How many workshops the globs left out, and which settings did it (every file was)."""
    by: dict[str, int] = {}
    for choice in choices:
        setting = choice.why.removeprefix("matches ")
        by[setting] = by.get(setting, 0) + 1
    settings = ", ".join(f"{setting}: {n}" for setting, n in by.items())
    return f"the globs left out all {len(choices)} file(s) with a bash fence ({settings}; `check -v` lists them)"


def _chosen(folder: str, scripts: bool, exclude: Sequence[str], said: list[Choice] | None) -> list[str]:
    """The workshops below `folder`: the rule's, narrowed by the configuration's globs and `exclude`."""
    from .config import load_config  # only for folders: a file named is taken as it is

    config = load_config(folder)
    base = os.path.dirname(config.source) if config.source else folder
    where = os.path.basename(config.source) if config.source else ""
    taken = []
    for path in _files_below(folder):
        own = os.path.relpath(path, base)
        include = next((g for g in config.include if matches(g, own)), None)
        if config.include and include is None:
            continue  # not named by include: not considered at all
        if include is not None and (path.endswith(".sh") and _regular(path) or is_workshop(path, False)):
            why = f"matches include {include!r} ({where})"
        elif include is None and is_workshop(path, scripts):
            why = "Markdown with a runnable fence" if not path.endswith(".sh") else "a shell script (lint reads them)"
        else:
            continue
        dropped = next((f"matches exclude {g!r} ({where})" for g in config.exclude if matches(g, own)), None) \
            or next((f"matches --exclude {g!r}" for g in exclude if matches(g, os.path.relpath(path))), None)
        if said is not None:
            said.append(Choice(path, dropped is None, dropped or why))
        if dropped is None:
            taken.append(path)
    return taken


def matches(glob: str, path: str) -> bool:
    """Whether `path` (relative, `/`-separated) matches `glob`: `*` and `?` within one folder's
    names, `**` across folders, `[...]` as in fnmatch. As in .gitignore, a glob with no `/` but a
    trailing one matches a file's or a folder's name at any depth (`INSTALL.md`, `*.draft.md`,
    `drafts`), one with an inner `/` is read from the top (`docs/drafts`), and a glob naming a
    folder matches everything below it; a trailing `/` (`drafts/`) names folders only."""
    parts = path.replace(os.sep, "/").split("/")
    while parts and parts[0] in (".", ".."):
        parts.pop(0)  # `--exclude` is read from here: the way up to a folder given is no name of it
    path = "/".join(parts)
    folders_only = glob.endswith("/")
    glob = glob.removeprefix("./").strip("/")
    anywhere = "" if "/" in glob else "(?:.*/)?"
    return bool(re.fullmatch(anywhere + _regex(glob) + ("/.*" if folders_only else "(?:/.*)?"), path))


def _regex(glob: str) -> str:
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[" and "]" in glob[i + 2:]:
            end = glob.index("]", i + 2)
            inner = glob[i + 1:end]
            out.append("[" + ("^" + re.escape(inner[1:]) if inner[0] == "!" else re.escape(inner)) + "]")
            i = end + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


def _files_below(folder: str) -> Iterator[str]:
    """Every file below `folder` but in hidden and skipped folders: each folder's files, then its
    folders, sorted. Links to folders are not followed; the walk keeps its own stack, so a tree
    thousands of folders deep is walked, not a recursion error."""
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
            if not _is_folder(entry):
                yield entry.path
            elif not entry.name.startswith(".") and entry.name not in _SKIPPED_DIRS:
                folders.append(entry.path)
        stack += reversed(folders)


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
    return data is None or has_runnable_fence(data) and _has_command(data, path)


def _has_command(data: bytes, path: str) -> bool:
    """Whether the runnable fences hold a command (or it imports some), as the parser reads them: a
    fence holding only comments, or one inside an HTML comment, makes no workshop. check's later
    verdict uses the same reading, so `check -v` gives each file one line."""
    from .parse.directives import SHELL_NAMES
    from .parse.items import BlockItem, CommandItem, DirectiveItem
    from .parse.markdown import scan_markdown
    from .parse.source import decode, split_lines

    try:
        items = scan_markdown(split_lines(decode(data, path)), path)[0]
    except ParseError:
        return True  # not text: the parser will say why, once the file is taken
    while items:
        item = items.pop()
        if isinstance(item, CommandItem) or isinstance(item, DirectiveItem) and \
                (item.name == "import" or item.name in SHELL_NAMES):
            return True
        if isinstance(item, BlockItem):
            items += item.body
    return False


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


def not_workshops(paths: list[str]) -> list[str]:
    """The Markdown files below the folders in `paths` with no runnable fence: not workshops."""
    return [file for path in paths if os.path.isdir(path) for file in _files_below(path)
            if file.lower().endswith(".md") and not is_workshop(file, False)]


def scripts_below(paths: list[str]) -> list[str]:
    """The `.sh` files below the folders in `paths`, which check leaves out unless named or included."""
    return [file for path in paths if os.path.isdir(path) for file in _files_below(path)
            if file.endswith(".sh") and _regular(file)]


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
