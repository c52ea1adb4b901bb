"""Why a workshop has no command to run: the fences it has that are not run, each with its line.

Pure: the lines of a file in, one sentence out. Files copied from a rendered page or
written for GitHub keep their commands in ```` ```console ```` or bare fences, or
as `$ ` lines of prose; demorun runs only ```` ```bash ````, `sh` and `shell` fences
at column 0, so such a file has nothing to check, and the reader is told where.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from .items import CommandItem
from .markdown import fences, is_runnable_fence
from .shell import split_shell

SHOWN = 3  # fences named one by one; more are counted
# Info strings people use for terminal sessions: these fences were most likely meant to run.
_TERMINAL = frozenset({"", "console", "shell-session", "shellsession", "sh-session", "terminal", "text",
                       "zsh", "bash-session", "cmd", "command", "cli", "plain", "plaintext", "session"})
_PROMPT = re.compile(r" {0,3}\$ +\S")


def nothing_to_run(lines: Sequence[str], markdown: bool) -> str:
    """Why these lines hold no command demorun runs, e.g.
    "no runnable command: line 12: ```console fence is not run; use ```bash"."""
    if not markdown:
        return "no runnable command: the script holds only comments and blank lines"
    said = _fences(lines)
    if not said:
        prompt = next((k for k, line in enumerate(lines) if _PROMPT.match(line)), None)
        if prompt is not None:
            said = [f"line {prompt + 1}: {lines[prompt].strip()[:60]!r} is prose; "
                    "commands are run from ```bash fences"]
        else:
            said = ["no fence at all; commands are run from ```bash fences"]
    more = len(said) - SHOWN
    tail = f"; {more} more fence(s) like these" if more > 0 else ""
    return "no runnable command: " + "; ".join(said[:SHOWN]) + tail


def _fences(lines: Sequence[str]) -> list[str]:
    """One phrase per fence that runs nothing: not runnable, indented, or holding no command."""
    said = []
    for k, end, (indent, _, text) in fences(lines):
        words = text[1:].split()
        language = words[0].lower() if words else ""
        fence = f"{text[0] * 3}{words[0] if words else ''}"
        if is_runnable_fence(lines[k]):
            if not any(isinstance(item, CommandItem) for item in split_shell(lines[k + 1:end], "", k + 2)):
                said.append(f"line {k + 1}: {fence} fence holds no command")
        elif language in ("bash", "sh", "shell") and indent:
            said.append(f"line {k + 1}: indented {fence} fence is not run (a runnable fence starts at column 0)")
        elif language in _TERMINAL:
            shown = fence if words else f"bare {fence}"
            said.append(f"line {k + 1}: {shown} fence is not run; use {text[0] * 3}bash")
        else:
            said.append(f"line {k + 1}: {fence} fence is not run")
    return said
