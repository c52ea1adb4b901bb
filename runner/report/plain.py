"""Terminal text made fit for reports: as the screen showed it, on one line where a title needs it."""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from ..results import StepResult
from ..verify.normalise import normalise


def plain(text: str) -> str:
    """Text as a reader saw it on the terminal, with nothing a page or XML file cannot hold."""
    return "\n".join(normalise(text))


def first_line(command: str, width: int = 72) -> str:
    """A command shortened to one line, for names and titles."""
    # Backslash continuations are one line to bash and read better as one here.
    lines = re.sub(r"\s*\\\n\s*", " ", command.strip()).splitlines() or [""]
    head = lines[0]
    more = len(lines) > 1
    if len(head) > width:
        head, more = head[: width - 1].rstrip(), True
    return head + " …" if more else head


# A report is read in a browser or a CI page: megabytes of log (even one 50 MB line) make it
# unusable, and the failure text already names the difference.
OUTPUT_LINE_LIMIT = 2000
OUTPUT_BYTE_LIMIT = 256 * 1024
DETAIL_CHAR_LIMIT = 2000  # one line of a difference (a whole minified JSON document, say)
_MARK_ROOM = 100  # what a cut's own note may add: clipping what was clipped changes nothing
_CHUNK = 1 << 20  # characters encoded at a time to count a long text's bytes

Spans = Callable[[str], list[tuple[int, int]]]


def clip_output(text: str, keep: Spans | None = None) -> str:
    """A command's output cut to what a report can show: at most so many lines, and so many bytes.

    Cut before anything else is done with it: the work and the copies are the size of what is
    kept, not of the output (a gigabyte of it costs a count of its newlines). `keep` says where
    secrets are (Redactor.spans): a cut inside a line never leaves part of one.
    """
    return clip_bytes(clip_lines(text, OUTPUT_LINE_LIMIT), OUTPUT_BYTE_LIMIT, keep)


def kept_for_reports(result: StepResult, keep: Spans | None = None) -> StepResult:
    """A result as reports need it: its output clipped (clip_output), so that a run holds a few
    hundred kilobytes per command, not what each printed, once it has been judged."""
    outcome = result.outcome
    if outcome is None:
        return result
    clipped = clip_output(outcome.output, keep)
    return result if clipped is outcome.output else dataclasses.replace(
        result, outcome=dataclasses.replace(outcome, output=clipped))


def clip_lines(text: str, limit: int) -> str:
    """Very long output cut in the middle; the end, where errors usually are, is kept longer."""
    lines = text.count("\n") + 1
    if lines <= limit + 1:  # cutting one line would only replace it with the note
        return text
    head = limit // 10
    tail = limit - head
    head_end = -1
    for _ in range(head):
        head_end = text.index("\n", head_end + 1)
    tail_start = len(text)
    for _ in range(tail):
        tail_start = text.rindex("\n", 0, tail_start)
    kept = text[:head_end] + "\n" if head else ""
    return f"{kept}… {lines - head - tail} lines not shown …{text[tail_start:]}"


def clip_bytes(text: str, limit: int, keep: Spans | None = None) -> str:
    """Text over `limit` UTF-8 bytes cut in the middle like clip_lines, never inside a character
    (nor a secret, given `keep`)."""
    if len(text) * 4 <= limit:
        return text  # no character takes more than four bytes
    size = len(text) if text.isascii() else sum(
        len(text[i:i + _CHUNK].encode("utf-8", "surrogatepass")) for i in range(0, len(text), _CHUNK))
    if size <= limit + _MARK_ROOM:
        return text
    head_end = _bytes_from_start(text, limit // 10)
    tail_start = len(text) - _bytes_from_end(text, limit - limit // 10)
    if keep is not None:
        head_end, tail_start = _outside_secrets(text, head_end, tail_start, keep)
    head, tail = text[:head_end], text[tail_start:]
    cut = size - len(head.encode("utf-8", "surrogatepass")) - len(tail.encode("utf-8", "surrogatepass"))
    return f"{head}\n… {cut} bytes not shown …\n{tail}"


def _bytes_from_start(text: str, limit: int) -> int:
    """How many characters from the start of `text` fit in `limit` UTF-8 bytes."""
    return len(text[:limit].encode("utf-8", "surrogatepass")[:limit].decode("utf-8", "ignore"))


def _bytes_from_end(text: str, limit: int) -> int:
    """How many characters from the end of `text` fit in `limit` UTF-8 bytes."""
    return len(text[-limit:].encode("utf-8", "surrogatepass")[-limit:].decode("utf-8", "ignore"))


def _outside_secrets(text: str, head_end: int, tail_start: int, keep: Spans) -> tuple[int, int]:
    """The cuts moved so that neither falls inside a secret: the secret is dropped whole with the middle."""
    return _moved(text, head_end, keep, back=True), _moved(text, tail_start, keep, back=False)


def _moved(text: str, at: int, keep: Spans, *, back: bool) -> int:
    """`at`, or the start (`back`) or end of the secret it falls inside."""
    window = 4096  # longer than any secret worth masking; a longer one may be cut, and masked in part
    start = max(0, at - window)
    for s, e in keep(text[start:at + window]):
        if start + s < at < start + e:
            return start + s if back else start + e
    return at


def clip_line(text: str, limit: int = DETAIL_CHAR_LIMIT) -> str:
    """One long line cut in the middle, keeping both ends, where differences usually show."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]} … {len(text) - 2 * half} characters not shown … {text[-half:]}"
