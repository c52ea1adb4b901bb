"""How a command is written for bash: one group, on one line or line by line, guarded when output
may follow it; what in its text bars it from waiting in bash's input is read here too, and
decided in runner/session/read_ahead.py."""
from __future__ import annotations

import re

# A one-line command ending in one of these takes `; }` after it unchanged in meaning.
_PLAIN_END = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\"')]}/.-_=*%+,:@^~?")
_DEFINES_BUILTIN = re.compile(r"(?:^|[\s;&|(){}])(?:function\s+builtin\b|builtin\s*\(\s*\))")
# bash's own builtins reading a descriptor by number (`read -u 10`): they could read bash's input.
_READS_DESCRIPTOR = re.compile(r"\b(?:read|mapfile|readarray)\b[^;&|\n]*\s-[A-Za-z]*u")


def frame(text: str, interactive: bool, guard: bool = False) -> tuple[bytes, ...]:
    """The command as one group, so bash takes it as one unit; unattended, its stdin is at EOF.

    A one-line command without comments that ends in a word, quote or closing bracket goes as
    one line, `{ cmd; }`: bash prints two markers instead of three and reads one line. Any
    other command goes line by line as bash asks for it, so after a syntax error no later
    line runs on its own; the last line travels with the closing brace, which alone is harmless.
    Guarded, `__dr_g` follows the group: it marks where the command's output ends (bash's job
    notices and PROMPT_COMMAND print after it) and puts back demorun's prompts; $? and $_
    pass through it, PIPESTATUS does not.
    """
    tail = ("" if interactive else " </dev/null") + ('; __dr_g "$?" "$_"' if guard else "")
    if "\n" not in text and "#" not in text and "\r" not in text and text.rstrip()[-1:] in _PLAIN_END:
        return (f"{{ {text}; }}{tail}\n".encode("utf-8", "surrogateescape"),)
    lines = text.split("\n")
    lines[0] = "{ " + lines[0]
    lines.append("}" + tail)
    encoded = [(line + "\n").encode("utf-8", "surrogateescape") for line in lines]
    return (*encoded[:-2], encoded[-2] + encoded[-1])


def needs_guard(text: str) -> bool:
    """The command may start jobs or set prompts, so output can follow it before its prompt."""
    return "&" in text or "PS" in text or "PROMPT_COMMAND" in text


def is_blank(text: str) -> bool:
    """Nothing but comments and blank lines: bash would run nothing, and `{ }` would not parse."""
    # One line starting with a word settles it: every command is asked (docs/performance.md).
    if text and text[0] not in "# \t\n" and "\n" not in text:
        return False
    return all(not line.strip() or line.lstrip().startswith("#") for line in text.split("\n"))


def defines_builtin(text: str) -> bool:
    """The command defines a function named builtin, which the session's own lines rely on."""
    # The substring first: every command queued is asked (docs/performance.md).
    return "builtin" in text and _DEFINES_BUILTIN.search(text) is not None


def reads_descriptor(text: str) -> bool:
    """The command reads a descriptor by number with a builtin of bash's: maybe bash's own input."""
    # The substrings first: every command queued is asked (docs/performance.md).
    return ("read" in text or "mapfile" in text) and _READS_DESCRIPTOR.search(text) is not None
