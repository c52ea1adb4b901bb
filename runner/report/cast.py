"""asciinema v2 recordings of what the audience saw, with the real timing, secrets masked."""
from __future__ import annotations

import codecs
import json
import os
import re
import time
from collections.abc import Callable

from ..files import check_writable, write_atomic
from ..secrets import MASK

Redact = Callable[[str], str]
# A bare \n the runner prints reaches the screen as \r\n (the terminal's ONLCR); a player
# writes event data raw, so the recording must hold what the screen got.
_BARE_NEWLINE = re.compile(r"(?<!\r)\n")


def _unchanged(text: str) -> str:
    return text


def _mask_events(events: list[tuple[float, str]], redact: Redact) -> list[tuple[float, str]]:
    """Events with secrets masked, even a secret that arrived split across two events.

    A redactor that can say where secrets are (``spans``) is applied to the whole
    stream and each mask lands in the event where its secret began, keeping the
    timing; any other callable is applied event by event.
    """
    spans = getattr(redact, "spans", None)
    if spans is None:
        return [(t, redact(data)) for t, data in events]
    stream = "".join(data for _, data in events)
    found = spans(stream)
    if not found:
        return events
    masked: list[tuple[float, str]] = []
    i = start = 0
    for t, data in events:
        end = start + len(data)
        pieces, pos = [], start
        while i < len(found) and found[i][0] < end:
            s, e = found[i]
            if s >= pos:
                pieces += [stream[pos:s], MASK]
            pos = min(e, end)
            if e > end:
                break
            i += 1
        pieces.append(stream[pos:end])
        text = "".join(pieces)
        if text:
            masked.append((t, text))
        start = end
    return masked


class CastRecorder:
    """Collects terminal output with timestamps; writes the cast once, at close, whole.

    Output is buffered so that secrets can be masked across chunk boundaries
    and so that a crash never leaves a cast a player would reject.
    """

    def __init__(self, path: str, *, width: int, height: int, title: str | None = None,
                 redact: Redact | None = None, onlcr: bool = True):
        check_writable(path)
        self.path = path
        self.header: dict[str, object] = {
            "version": 2,
            "width": width,
            "height": height,
            "timestamp": int(time.time()),
            "env": {"SHELL": "/bin/bash", "TERM": os.environ.get("TERM") or "xterm-256color"},
        }
        if title:
            self.header["title"] = title
        self._redact = redact or _unchanged
        self._onlcr = onlcr
        self._start = time.monotonic()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._events: list[tuple[float, str]] = []
        self._after_cr = False
        self.closed = False

    def _append(self, text: str) -> None:
        if not text:
            return
        if self._onlcr:
            converted = _BARE_NEWLINE.sub("\r\n", text)
            if self._after_cr and text.startswith("\n"):
                converted = converted[1:]
            self._after_cr = text.endswith("\r")
            text = converted
        self._events.append((time.monotonic() - self._start, text))

    def output(self, data: bytes | str) -> None:
        """Record output as it reaches the screen now; a character split across chunks is kept whole."""
        if self.closed:
            # Late output (a shell shutting down) happens after the audience has gone.
            return
        if isinstance(data, str):
            self._append(self._decoder.decode(b"", final=True))
            self._append(data)
        else:
            self._append(self._decoder.decode(data))

    def close(self, redact: Redact | None = None) -> None:
        """Write the cast atomically with secrets masked; later calls do nothing."""
        if self.closed:
            return
        self._append(self._decoder.decode(b"", final=True))
        self.closed = True
        events = _mask_events(self._events, redact or self._redact)
        lines = [json.dumps(self.header, ensure_ascii=False)]
        lines += [json.dumps([round(t, 6), "o", data], ensure_ascii=False) for t, data in events]
        # "replace": a str with lone surrogates must not cost the whole recording.
        write_atomic(self.path, ("\n".join(lines) + "\n").encode("utf-8", "replace"))

    def __enter__(self) -> CastRecorder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
