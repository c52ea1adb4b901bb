"""How a command is written for bash: one group, on one line or line by line, guarded when output
may follow it, and which of the commands after it can wait in bash's input."""
from __future__ import annotations

import re
from collections.abc import Sequence

from .feed import MESSAGE_MAX
from .protocol import guard_tail

# Commands queued ahead in one batch: at most as many as the engine looks ahead (64), in at most
# this many bytes, well within what bash's input socket holds (about 270 short lines), so a batch
# is written whole while bash is held (bash_process.held). A batch costs two signals and a round
# of polls: 64 rather than 32 took `run --quiet` of `echo hi` from 42.2 to 40.9 us of CPU and
# 36.1 to 32.6 us of wall a command (medians of 11 alternating rounds, one run).
AHEAD_COUNT = 64
AHEAD_BYTES = 3600
# A one-line command ending in one of these takes `; }` after it unchanged in meaning.
_PLAIN_END = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\"')]}/.-_=*%+,:@^~?")
_DEFINES_BUILTIN = re.compile(r"(?:^|[\s;&|(){}])(?:function\s+builtin\b|builtin\s*\(\s*\))")
# bash's own builtins reading a descriptor by number (`read -u 10`): they could read bash's input.
_READS_DESCRIPTOR = re.compile(r"\b(?:read|mapfile|readarray)\b[^;&|\n]*\s-[A-Za-z]*u")


def frame(text: str, interactive: bool, guard: bool = False, before: str = "") -> tuple[bytes, ...]:
    """The command as one group, so bash takes it as one unit; unattended, its stdin is at EOF.

    A one-line command without comments that ends in a word, quote or closing bracket goes as
    one line, `{ cmd; }`: bash prints two markers instead of three and reads one line. Any
    other command goes line by line as bash asks for it, so after a syntax error no later
    line runs on its own; the last line travels with the closing brace, which alone is harmless.
    Guarded, the protocol's guard follows the group (protocol.guard_tail); `before` goes ahead
    of it (protocol.restore_pipestatus).
    """
    tail = ("" if interactive else " </dev/null") + guard_tail(guard)
    if "\n" not in text and "#" not in text and "\r" not in text and text.rstrip()[-1:] in _PLAIN_END:
        return (f"{before}{{ {text}; }}{tail}\n".encode("utf-8", "surrogateescape"),)
    lines = text.split("\n")
    lines[0] = before + "{ " + lines[0]
    lines.append("}" + tail)
    encoded = [(line + "\n").encode("utf-8", "surrogateescape") for line in lines]
    return (*encoded[:-2], encoded[-2] + encoded[-1])


def needs_guard(text: str) -> bool:
    """The command may start jobs or set prompts, so output can follow it before its prompt."""
    return "&" in text or "PS" in text or "PROMPT_COMMAND" in text


def is_blank(text: str) -> bool:
    """Nothing but comments and blank lines: bash would run nothing, and `{ }` would not parse."""
    # One line starting with a word settles it: 0.07 against 0.46 us, 1.7% of a queued command's
    # CPU (bench/session.py --tweaks), and every command is asked.
    if text and text[0] not in "# \t\n" and "\n" not in text:
        return False
    return all(not line.strip() or line.lstrip().startswith("#") for line in text.split("\n"))


def defines_builtin(text: str) -> bool:
    """The command defines a function named builtin, which the session's own lines rely on."""
    # The substring first: 0.04 against 0.56 us, 2.3% of a queued command's CPU (bench/session.py --tweaks).
    return "builtin" in text and _DEFINES_BUILTIN.search(text) is not None


def reads_descriptor(text: str) -> bool:
    """The command reads a descriptor by number with a builtin of bash's: maybe bash's own input."""
    # The substrings first: 0.05 against 0.48 us for `kubectl get pods -n shop -o wide`, and every
    # command queued is asked.
    return ("read" in text or "mapfile" in text) and _READS_DESCRIPTOR.search(text) is not None


def queueable(ahead: Sequence[str], used: int) -> tuple[tuple[str, bytes], ...]:
    """The commands of `ahead` that can wait in bash's input, with their lines: one-line commands
    needing no guard, taken in order while they fit AHEAD_BYTES with the `used` bytes of the one
    they wait behind, so each batch reaches bash whole."""
    queued: list[tuple[str, bytes]] = []
    for command in ahead[:AHEAD_COUNT]:
        text = command.rstrip("\n")
        if is_blank(text) or needs_guard(text) or defines_builtin(text) or reads_descriptor(text):
            break
        chunks = frame(text, False)
        line = chunks[0]
        used += len(line)
        # One line each, one message of bash's input: the drain after a failure counts them.
        if len(chunks) != 1 or line.count(b"\n") != 1 or used > AHEAD_BYTES or len(line) > MESSAGE_MAX:
            break
        queued.append((text, line))
    return tuple(queued)
