"""Asking bash itself whether commands parse, all of them in one bash process.

Each command is wrapped in a function definition inside `if false`, which
bash parses in full (heredocs included) and never runs. A command that could
close the wrapper early (an unmatched `}` or `fi`, something left open) is
instead parsed in a forked subshell under `set -n`, which executes nothing at
all. As a last guard the checking shell is restricted (`set -r`: no output
redirection, no `exec`, no PATH changes), has an empty PATH and no `kill`.
Both evals sit on one script line because bash numbers eval lines from there.
"""
from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, NamedTuple

from ..errors import DemorunError
from .shell import split_command

if TYPE_CHECKING:
    from typing import BinaryIO

_WRAP_OPEN = "if false; then __demorun_check() {"
_PROBE = ")"  # a known error: where bash reports it fixes the line numbering
_SCRIPT = r"""
shopt -s extglob
enable -n kill
PATH=/nonexistent-demorun-path
set -r
mapfile -d '' -t __demorun_items
for (( __demorun_i = 0; __demorun_i < ${#__demorun_items[@]}; __demorun_i += 2 )); do
  __demorun_text=${__demorun_items[__demorun_i + 1]}
  if [[ ${__demorun_items[__demorun_i]} == fast ]]; then eval "$__demorun_text"
  else ( eval "set -n; $__demorun_text" ); fi
  printf '\0%d\0' "$?"
done
"""
_LOCATED = re.compile(r"line (\d+): (.*)$")
_TIMEOUT = 30.0


class SyntaxProblem(NamedTuple):
    """What bash said about one command, and on which of its lines (1 = first)."""

    message: str
    line: int


class CheckUnavailable(DemorunError):
    """bash cannot be run, so commands cannot be checked."""


def on_path(name: str) -> str | None:
    """Where PATH finds the program `name`, as shutil.which says: shutil itself (with the
    compression modules it loads) would cost every `lint` a few milliseconds."""
    folders = [""] if os.path.dirname(name) else dict.fromkeys(os.get_exec_path())
    for folder in folders:
        path = os.path.join(folder, name)
        if os.path.exists(path) and os.access(path, os.X_OK) and not os.path.isdir(path):
            return path
    return None


def _bash() -> str:
    path = on_path("bash")
    if path is None:
        raise CheckUnavailable("bash is not on PATH")
    return path


def _seekable(data: bytes) -> BinaryIO:
    """A file holding `data`: bash reads a pipe one byte at a time, a file in blocks."""
    if hasattr(os, "memfd_create"):
        f = os.fdopen(os.memfd_create("demorun-syntax"), "w+b")
    else:
        import tempfile

        f = tempfile.TemporaryFile()
    f.write(data)
    f.seek(0)
    return f


def _wrap(command: str) -> str:
    # The blank line keeps a trailing backslash from swallowing the closing brace.
    return f"{_WRAP_OPEN}\n{command}\n\n}}\nfi"


def _problem(output: str, first_line: int, command: str) -> SyntaxProblem:
    """The most telling complaint: a located one inside the command, else what is left open."""
    lines = command.count("\n") + 1
    complete, _, why = split_command(command)
    for raw in output.splitlines():
        m = _LOCATED.search(raw)
        if not m or m.group(2).startswith("`") or "here-document" in m.group(2):
            continue
        line = int(m.group(1)) - first_line + 1
        message = m.group(2).removeprefix("syntax error: ")
        about_wrapper = not 1 <= line <= lines and message.endswith(("`}'", "`fi'"))
        if "unexpected end of file" in message or "unexpected EOF" in message or about_wrapper:
            break
        return SyntaxProblem(message, min(max(line, 1), lines))
    if not complete and why:
        return SyntaxProblem(f"incomplete command: {why}", 1)
    tail = output.strip().splitlines()
    return SyntaxProblem(_LOCATED.sub(r"\2", tail[-1]) if tail else "bash rejects this command", 1)


def _all_parse(commands: list[str]) -> bool:
    """One `bash -n` over every command, each in its wrapper: True when bash has nothing to say.

    `-n` runs nothing, so no guard is needed; a command that could close its wrapper early
    leaves the next wrapper unbalanced, which bash reports, and the slow path then judges.
    """
    import subprocess  # here: `present` asks on_path before its first screen, which need not wait for subprocess

    script = "\n".join(_wrap(text.replace("\0", "")) for text in commands) + "\n"
    with _seekable(script.encode("utf-8", "replace")) as stdin:
        try:
            done = subprocess.run([_bash(), "--norc", "--noprofile", "-O", "extglob", "-n"], stdin=stdin,
                                  capture_output=True, timeout=_TIMEOUT, cwd="/", env={"LC_ALL": "C.UTF-8"})
        except subprocess.TimeoutExpired:
            return False
    # A heredoc left open is only a warning to `bash -n`, so any word from bash means "look closer".
    return done.returncode == 0 and not done.stdout and not done.stderr


def check_syntax_located(commands: list[str]) -> list[SyntaxProblem | None]:
    """Per command, what bash says is wrong with it (None when it parses).

    Usually one `bash -n` over the whole plan settles it; only when bash objects is each
    command checked on its own, to say which and why.
    """
    if not commands:
        return []
    if _all_parse(commands):
        return [None] * len(commands)
    import subprocess

    batch = [_PROBE] + list(commands)
    feed = bytearray()
    for text in batch:
        complete, balanced, _ = split_command(text)
        how = "fast" if complete and balanced else "slow"
        feed += f"{how}\0{_wrap(text).replace(chr(0), '')}\0".encode("utf-8", "replace")
    with _seekable(bytes(feed)) as stdin:
        try:
            done = subprocess.run([_bash(), "--norc", "--noprofile", "-c", _SCRIPT], stdin=stdin,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=_TIMEOUT, cwd="/", env={"LC_ALL": "C.UTF-8"})
        except subprocess.TimeoutExpired:
            return [SyntaxProblem("bash did not finish checking the syntax", 1)] * len(commands)
    parts = done.stdout.decode("utf-8", "replace").split("\0")
    probe = _LOCATED.search(parts[0])
    first_line = int(probe.group(1)) if probe else 2
    results: list[SyntaxProblem | None] = []
    for index, command in enumerate(commands, 1):
        if 2 * index + 1 >= len(parts):
            results.append(SyntaxProblem("bash stopped before checking this command", 1))
        elif parts[2 * index + 1] == "0":
            results.append(None)
        else:
            results.append(_problem(parts[2 * index], first_line, command))
    return results


def check_syntax(commands: list[str]) -> list[str | None]:
    """bash's error message per command, None for those it accepts; one bash for all."""
    return [p.message if p else None for p in check_syntax_located(commands)]
