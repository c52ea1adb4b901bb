"""Workshop text made safe to print: control characters shown as `cat -v` shows them, never obeyed."""
from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # tab and newline lay text out
# What demorun itself writes to a terminal: colours (SGR) and erasing the status line.
_OWN_ON_TERMINAL = re.compile(r"(\x1b\[[0-9;]*m|\r\x1b\[2?K|\x1b\[2?K)|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What a command's streamed output may keep: colours and its line endings.
_OUTPUT_KEPT = re.compile(r"(\x1b\[[0-9;]*m|\r\n)|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """Control characters (but tab and newline) as `cat -v` shows them: whatever of the workshop's
    text is shown, the terminal acts on none of its bytes."""
    if text.isprintable() or not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_caret, text)


def guarded(text: str, *, terminal: bool) -> str:
    """Text on its way to stdout or stderr: on a terminal demorun's own colours and line erases
    pass, every other control character is made visible; in a pipe or file, all of them are."""
    if not _CONTROL.search(text):
        return text
    if not terminal:
        return _CONTROL.sub(_caret, text)
    return _OWN_ON_TERMINAL.sub(_kept_or_caret, text)


def output_shown(text: str) -> str:
    """A command's output as a log shows it (`check -v`): its colours and line endings kept,
    every other control (titles, links, cursor moves, clearing the screen) made visible."""
    if not _CONTROL.search(text):
        return text
    return _OUTPUT_KEPT.sub(_kept_or_caret, text)


def _kept_or_caret(m: re.Match[str]) -> str:
    return m.group(1) or _caret(m)


def _caret(m: re.Match[str]) -> str:
    code = ord(m.group()[0])
    if code == 0x7f:
        return "^?"
    if code >= 0x80:
        return "M-^" + chr(code - 0x40)
    return "^" + chr(code + 0x40)
