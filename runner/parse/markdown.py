"""Markdown into prose chunks, directives and runnable fences, each with its lines.

Line-based on purpose: only block structure matters here (fences, headings,
HTML comments), and every piece must keep its file:line, which Markdown
libraries do not report. Rendering prose is the presenters' business.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ..model import Finding, Severity, SourceLoc
from .directives import KNOWN_NAMES, interpret
from .items import CommandItem, DirectiveItem, FileItem, Item, OutputItem, ProseItem
from .shell import split_shell

# Every pattern here is anchored and cannot backtrack over a long run of blanks: lines are
# untrusted, and a lazy group before optional blanks made a 2 KB line take seconds.
_FENCE = re.compile(r"( *)(`{3,}|~{3,})(.*)$")
_RUNNABLE = {"bash", "sh", "shell"}
_NON_BLANKS = re.compile(r"\S*")
_ATX_OPEN = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")
_NOT_PARAGRAPH = re.compile(r" {0,3}([#>*+|<-]|\d+[.)]|`{3}|~{3})|    ")
_BARE_NAME = re.compile(r"#?@(\$?[\w-]+)")


def _comment_body(line: str) -> str | None:
    """What is between `<!--` and `-->` when they open and close the line, else None."""
    text = line.strip()
    if len(text) < 7 or not text.startswith("<!--") or not text.endswith("-->"):
        return None
    return text[4:-3]


def directive_comment(line: str) -> tuple[str, str] | None:
    """(name, args) of a line `<!-- @name args -->`, else None."""
    body = _comment_body(line)
    if body is None:
        return None
    body = body.lstrip()
    if not body.startswith("@"):
        return None
    name = _NON_BLANKS.match(body, 1).group()  # type: ignore[union-attr]  # `\S*` matches anywhere
    return name, body[1 + len(name):].strip()


def _opens_directive(line: str) -> bool:
    text = line.lstrip()
    return text.startswith("<!--") and text[4:].lstrip().startswith("@")


def _atx_title(line: str) -> str | None:
    """The title of an ATX heading (`## Title ##`), else None."""
    m = _ATX_OPEN.match(line)
    if not m:
        return None
    title = line[m.end():].strip(" \t")
    closed = title.rstrip("#")
    if closed != title and (not closed or closed[-1] in " \t"):
        title = closed.rstrip(" \t")
    return title


# `file=PATH` in an info string, its PATH quoted or not, as `@file` takes it (shlex's quotes).
_FILE_ATTRIBUTE = re.compile(r"""(?<!\S)file=("[^"]*"|'[^']*'|[^\s"'{}]*)(?=\s|$)""")
_NEAR_FILE = re.compile(r"""(?<!\S)\S*?\bfile\s*[=:]\S*""", re.IGNORECASE)


def _file_words(info: str) -> tuple[list[str], list[str]]:
    """The paths of the `file=` words after an info string's first word (quotes taken off), and
    the words that look meant as one and are not (`FILE=x`, `{file=x}`, `file:x`)."""
    _, _, rest = info.partition(" ")
    named = [m.group(1)[1:-1] if m.group(1)[:1] in "\"'" and m.group(1) else m.group(1)
             for m in _FILE_ATTRIBUTE.finditer(rest)]
    exact = {m.span() for m in _FILE_ATTRIBUTE.finditer(rest)}
    near = [m.group(0) for m in _NEAR_FILE.finditer(rest)
            if not any(a <= m.start() < b for a, b in exact)]
    return named, near


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


def has_runnable_fence(data: bytes) -> bool:
    """Whether Markdown, as bytes, has a line `is_runnable_fence` accepts (for finding workshops
    in a folder): only the lines that start like a fence are decoded and judged."""
    data = b"\n" + data.removeprefix(b"\xef\xbb\xbf")
    for opener in (b"\n```", b"\n~~~"):
        at = data.find(opener)
        while at >= 0:
            end = data.find(b"\n", at + 1)
            if is_runnable_fence(data[at + 1:end if end >= 0 else len(data)].decode("utf-8", "replace")):
                return True
            at = data.find(opener, at + 1)
    return False


def closes_fence(line: str, char: str, length: int) -> bool:
    """Whether `line` closes a fence opened with `length` times `char`."""
    info = fence_info(line)
    return info is not None and len(info[0]) <= 3 and info[1] >= length and info[2] == char


def fence_end(lines: Sequence[str], k: int, info: tuple[str, int, str]) -> int:
    """The index of the line that closes the fence opened at lines[k] (len(lines): none does).

    A runnable fence stands at column 0 and closes as CommonMark says; any other may be
    indented (in a list item, say), and is closed by its fence at any indent.
    """
    _, length, text = info
    lenient = not is_runnable_fence(lines[k])
    end = k + 1
    while end < len(lines) and not closes_fence(lines[end].lstrip() if lenient else lines[end], text[0], length):
        end += 1
    return end


def fences(lines: Sequence[str]) -> Iterator[tuple[int, int, tuple[str, int, str]]]:
    """Every fence: the index of its opening line, of its closing line (len(lines): none), its fence_info."""
    k = 0
    while k < len(lines):
        info = fence_info(lines[k])
        if info is None:
            k += 1
            continue
        end = fence_end(lines, k, info)
        yield k, end, info
        k = end + 1


class _Scanner:
    def __init__(self, file: str):
        self.file = file
        self.items: list[Item] = []
        self.findings: list[Finding] = []
        self.prose: list[tuple[int, str]] = []
        self.heading: str | None = None
        self.file_pending: tuple[str, int] | None = None  # `@file PATH` waiting for its fence, and its line

    def finding(self, line: int, severity: Severity, code: str, message: str) -> None:
        self.findings.append(Finding(SourceLoc(self.file, line), severity, code, message))

    def flush(self) -> None:
        first, last = 0, len(self.prose)
        while first < last and not self.prose[first][1].strip():
            first += 1
        while last > first and not self.prose[last - 1][1].strip():
            last -= 1
        lines = self.prose[first:last]
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
            target = self.file_target(line, no)
            if target is not None:
                k = self.file_fence(lines, k - 1, target)
                continue
            if is_runnable_fence(line):
                k = self.runnable(lines, k - 1)
                continue
            info = fence_info(line)
            if info is not None:
                k = self.other_fence(lines, k - 1, info)
                continue
            directive = directive_comment(line)
            if directive and directive[0] == "file":
                self.file_directive(directive[1], no)
                continue
            if directive:
                self.flush()
                self.items.append(DirectiveItem(*directive, no, no))
                continue
            if line.lstrip().startswith("<!--"):
                k = self.comment(lines, k - 1)
                continue
            self.check_stray(line, no)
            self.prose_line(line, no)
        self.no_fence_for_file()
        self.flush()
        return self.items

    def file_directive(self, args: str, no: int) -> None:
        self.no_fence_for_file()
        directive, problem = interpret("file", args)
        if directive is None:
            self.finding(no, Severity.ERROR, "malformed-directive", problem or f"'@file' {args!r}")
        else:
            self.file_pending = (directive.words[0], no)

    def no_fence_for_file(self) -> None:
        if self.file_pending is not None:
            path, no = self.file_pending
            self.file_pending = None
            self.finding(no, Severity.ERROR, "file-without-fence",
                         f"'@file {path}' is not followed by a fence to write to it")

    def file_target(self, line: str, no: int) -> str | None:
        """The path a fence opening on `line` is written to (its `file=`, or a `@file` above); None if
        the line opens no such fence. A `@file` followed by anything but blank lines and a fence is wrong."""
        info = fence_info(line)
        if info is None:
            if self.file_pending is not None and line.strip():
                self.no_fence_for_file()
            return None
        named, near = _file_words(info[2][1:])
        pending, self.file_pending = self.file_pending, None
        shown = line.strip()
        for word in near:
            if word.startswith(("file=\"", "file='")):
                self.finding(no, Severity.ERROR, "malformed-directive", f"{shown!r}: {word!r}: its quote is not closed")
                continue
            self.finding(no, Severity.WARNING, "malformed-directive",
                         f"{shown!r}: {word!r} writes no file: did you mean file=PATH?")
        if len(named) > 1:
            self.finding(no, Severity.ERROR, "malformed-directive", f"{shown!r}: 'file=' given {len(named)} times")
        if named and not named[0]:
            self.finding(no, Severity.ERROR, "malformed-directive", f"{shown!r}: 'file=' names no path")
        if named and named[0]:
            return named[0]
        return pending[0] if pending is not None else None

    def file_fence(self, lines: Sequence[str], k: int, target: str) -> int:
        """A fence written to `target`: shown as the prose it is, and a file item after it."""
        info = fence_info(lines[k])
        assert info is not None  # file_target found a fence here
        closing = fence_end(lines, k, info)
        indent = len(info[0])
        body = [lines[n][indent:] if not lines[n][:indent].strip() else lines[n].lstrip()
                for n in range(k + 1, closing)]
        end = self.other_fence(lines, k, info)
        self.flush()
        self.items.append(FileItem(target, "".join(f"{line}\n" for line in body), k + 1, min(closing + 1, len(lines))))
        return end

    def prose_line(self, line: str, no: int) -> None:
        title = _atx_title(line)
        if title is not None:
            self.start_heading(title, [(no, line)])
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
        opened = fence_info(lines[k])
        assert opened is not None  # called at a runnable fence
        start, end = k + 1, fence_end(lines, k, opened)
        if end >= len(lines):
            self.finding(k + 1, Severity.ERROR, "unterminated-fence",
                         f"fence {lines[k].strip()!r} is never closed")
        items = split_shell(lines[start:end], self.file, start + 1)
        if not any(isinstance(item, CommandItem) for item in items):
            items = [item._replace(sample=True) if isinstance(item, OutputItem) else item for item in items]
        self.items.extend(items)
        return end + 1

    def other_fence(self, lines: Sequence[str], k: int, info: tuple[str, int, str]) -> int:
        self.prose_line(lines[k], k + 1)
        end = fence_end(lines, k, info)
        self.prose.extend((n + 1, lines[n]) for n in range(k + 1, end))
        if end >= len(lines):
            self.finding(k + 1, Severity.ERROR, "unterminated-fence",
                         f"fence {lines[k].strip()!r} is never closed")
            return end
        self.prose.append((end + 1, lines[end]))
        return end + 1

    def comment(self, lines: Sequence[str], k: int) -> int:
        """Skip an HTML comment; directives inside one are still read, as the old tool did."""
        first = lines[k]
        body = _comment_body(first)
        if body is not None and body.lstrip().startswith("#@"):
            self.finding(k + 1, Severity.WARNING, "malformed-directive",
                         f"{first.strip()!r} is a comment, not a directive "
                         f"(write '<!-- @{first.split('#@', 1)[1].split('-->')[0].strip()} -->')")
        if _opens_directive(first) and "-->" not in first:
            self.finding(k + 1, Severity.ERROR, "malformed-directive",
                         f"directive comment {first.strip()!r} does not end with '-->' "
                         "on the same line")
        if "-->" in first[first.index("<!--") + 4:]:
            return k + 1
        end = k + 1
        while end < len(lines):
            line = lines[end]
            if directive_comment(line):
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
        text = line.strip()
        closed = text.endswith("-->")
        core = text[:-3].rstrip() if closed else text
        m = _BARE_NAME.match(core)
        if not m or (m.end() < len(core) and not core[m.end()].isspace()):
            return
        name = m.group(1)
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
