"""Workshop text made safe to print: control characters shown as `cat -v` shows them, never obeyed."""
from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # tab and newline lay text out


def visible(text: str) -> str:
    """Control characters (but tab and newline) as `cat -v` shows them: whatever of the workshop's
    text is shown, the terminal acts on none of its bytes."""
    if text.isprintable() or not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_caret, text)


def _caret(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code == 0x7f:
        return "^?"
    if code >= 0x80:
        return "M-^" + chr(code - 0x40)
    return "^" + chr(code + 0x40)
