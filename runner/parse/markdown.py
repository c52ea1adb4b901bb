"""Markdown into prose chunks, directives and runnable fences, each with its lines.

Line-based on purpose: only block structure matters here (fences, headings,
HTML comments), and every piece must keep its file:line, which Markdown
libraries do not report. Rendering prose is the presenters' business.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from ..model import Finding, Severity, SourceLoc
from .directives import KNOWN_NAMES
from .items import DirectiveItem, Item, ProseItem
from .shell import split_shell

_FENCE = re.compile(r"( *)(`{3,}|~{3,})(.*)$")
_RUNNABLE = {"bash", "sh", "shell"}
_DIRECTIVE = re.compile(r"\s*<!--\s*@(\S*)[ \t]*(.*?)\s*-->\s*$")
_HASH_IN_COMMENT = re.compile(r"\s*<!--\s*#@.*-->\s*$")
_OPEN_DIRECTIVE = re.compile(r"\s*<!--\s*@")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")
_NOT_PARAGRAPH = re.compile(r" {0,3}([#>*+|<-]|\d+[.)]|`{3}|~{3})|    ")
_BARE_DIRECTIVE = re.compile(r"\s*#?@(\$?[\w-]+)(?:\s+(.*?))?\s*(-->)?\s*$")


def fence_info(line: str) -> tuple[str, int, str] | None:
    """(indent, fence char and length, info string) if `line` opens or closes a fence."""
    m = _FENCE.match(line)
    if not m or (m.group(2)[0] == "`" and "`" in m.group(3)):
        return None
    return m.group(1), len(m.group(2)), m.group(2)[0] + m.group(3).strip()


def is_runnable_fence(line: str) -> bool:
    """A fence at column 0 whose info string's first word is bash, sh or shell."""
    info = fence_info(line)
    if info is None or info[0]:
        return False
    words = info[2][1:].split()
    return bool(words) and words[0].lower() in _RUNNABLE


def _closes(line: str, char: str, length: int) -> bool:
    m = _FENCE.match(line)
    return bool(m) and len(m.group(1)) <= 3 and m.group(2)[0] == char \
        and len(m.group(2)) >= length and not m.group(3).strip()


class _Scanner:
    def __init__(self, file: str):
        self.file = file
        self.items: list[Item] = []
        self.findings: list[Finding] = []
        self.prose: list[tuple[int, str]] = []
        self.heading: str | None = None

    def finding(self, line: int, severity: Severity, code: str, message: str) -> None:
        self.findings.append(Finding(SourceLoc(self.file, line), severity, code, message))

    def flush(self) -> None:
        lines = self.prose
        while lines and not lines[0][1].strip():
            lines.pop(0)
        while lines and not lines[-1][1].strip():
            lines.pop()
        if lines:
            text = "\n".join(t for _, t in lines)
            self.items.append(ProseItem(text, lines[0][0], lines[-1][0], self.heading))
        self.prose = []
        self.heading = None

    def start_heading(self, title: str, carried: list[tuple[int, str]]) -> None:
        self.flush()
        self.heading = title
        self.prose = carried

    def scan(self, lines: Sequence[str]) -> list[Item]:
        k, n = 0, len(lines)
        while k < n:
            line, no = lines[k], k + 1
            k += 1
            if is_runnable_fence(line):
                k = self.runnable(lines, k - 1)
                continue
            info = fence_info(line)
            if info is not None:
                k = self.other_fence(lines, k - 1, info)
                continue
            m = _DIRECTIVE.match(line)
            if m:
                self.flush()
                self.items.append(DirectiveItem(m.group(1), m.group(2), no, no))
                continue
            if line.lstrip().startswith("<!--"):
                k = self.comment(lines, k - 1)
                continue
            self.check_stray(line, no)
            self.prose_line(line, no)
        self.flush()
        return self.items

    def prose_line(self, line: str, no: int) -> None:
        m = _ATX.match(line)
        if m:
            self.start_heading((m.group(2) or "").strip(), [(no, line)])
            return
        if _SETEXT.match(line) and self.prose and self.prose[-1][1].strip() \
                and not _NOT_PARAGRAPH.match(self.prose[-1][1]) \
                and not _SETEXT.match(self.prose[-1][1]):
            title_line = self.prose.pop()
            self.start_heading(title_line[1].strip(), [title_line, (no, line)])
            return
        self.prose.append((no, line))

    def runnable(self, lines: Sequence[str], k: int) -> int:
        self.flush()
        _, length, info = fence_info(lines[k])
        start = k + 1
        end = start
        while end < len(lines) and not _closes(lines[end], info[0], length):
            end += 1
        if end >= len(lines):
            self.finding(k + 1, Severity.ERROR, "unterminated-fence",
                         f"fence {lines[k].strip()!r} is never closed")
        self.items.extend(split_shell(lines[start:end], self.file, start + 1))
        return end + 1

    def other_fence(self, lines: Sequence[str], k: int, info: tuple[str, int, str]) -> int:
        _, length, text = info
        self.prose_line(lines[k], k + 1)
        end = k + 1
        while end < len(lines) and not _closes(lines[end].lstrip(), text[0], length):
            self.prose.append((end + 1, lines[end]))
            end += 1
        if end >= len(lines):
            self.finding(k + 1, Severity.ERROR, "unterminated-fence",
                         f"fence {lines[k].strip()!r} is never closed")
            return end
        self.prose.append((end + 1, lines[end]))
        return end + 1

    def comment(self, lines: Sequence[str], k: int) -> int:
        """Skip an HTML comment; directives inside one are still read, as the old tool did."""
        first = lines[k]
        if _HASH_IN_COMMENT.match(first):
            self.finding(k + 1, Severity.WARNING, "malformed-directive",
                         f"{first.strip()!r} is a comment, not a directive "
                         f"(write '<!-- @{first.split('#@', 1)[1].split('-->')[0].strip()} -->')")
        if _OPEN_DIRECTIVE.match(first) and "-->" not in first:
            self.finding(k + 1, Severity.ERROR, "malformed-directive",
                         f"directive comment {first.strip()!r} does not end with '-->' "
                         "on the same line")
        if "-->" in first[first.index("<!--") + 4:]:
            return k + 1
        end = k + 1
        while end < len(lines):
            line = lines[end]
            if _DIRECTIVE.match(line):
                self.finding(k + 1, Severity.WARNING, "unclosed-comment",
                             f"HTML comment {first.strip()!r} is not closed before the "
                             f"directive at line {end + 1}")
                return end
            if "-->" in line:
                return end + 1
            end += 1
        self.finding(k + 1, Severity.WARNING, "unclosed-comment",
                     f"HTML comment {first.strip()!r} is never closed: the rest of the file "
                     "is hidden")
        return end

    def check_stray(self, line: str, no: int) -> None:
        """A directive someone meant to write, outside any comment."""
        m = _BARE_DIRECTIVE.match(line)
        if not m:
            return
        name, closed = m.group(1), m.group(3)
        if closed:
            self.finding(no, Severity.ERROR, "directive-outside-comment",
                         f"{line.strip()!r} looks like a directive but is not in a comment "
                         "(missing '<!--')")
        elif name in KNOWN_NAMES:
            self.finding(no, Severity.WARNING, "directive-outside-comment",
                         f"{line.strip()!r} looks like a directive but is prose "
                         f"(write '<!-- {line.strip().lstrip('#')} -->')")


def scan_markdown(lines: Sequence[str], file: str) -> tuple[list[Item], list[Finding]]:
    """Items of a Markdown file, and what looked wrong while reading it."""
    scanner = _Scanner(file)
    items = scanner.scan(lines)
    return items, scanner.findings
