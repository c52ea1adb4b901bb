"""Shell text (a script, or the body of a runnable fence) into commands, commentary and directives."""
from __future__ import annotations

import re
from collections.abc import Sequence

from ..model import Expectation, SourceLoc
from .bash_reader import BashReader, plainly_complete
from .items import CommandItem, CommentItem, DirectiveItem, Item, OutputItem

_DIRECTIVE = re.compile(r"\s*#@(\S*)[ \t]*(.*)$", re.S)
# `$SHELL other.md` as a command: under demosh, $SHELL is demosh itself, so this presents that
# workshop in place; it nests as `@$SHELL other.md` does (bash would run Markdown as a script).
_NESTED_SHOW = re.compile(r"\s*(\$SHELL|\$\{SHELL\})[ \t]+([^\s;&|<>'\"$`-][^\s;&|<>'\"$`]*)[ \t]*$")


def expected_line(line: str) -> str:
    """`## text` is `text`, a bare `##` an empty line: exactly one space goes."""
    rest = line[2:]
    return rest[1:] if rest.startswith(" ") else rest


def _continues(line: str) -> bool:
    """An odd number of backslashes ends the line (counted from the end: a search for
    the run would retry at every backslash of a long one)."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def parse_directive_line(text: str, line: int, end_line: int) -> DirectiveItem:
    """`#@name args` (the `#@` already known to be there) as a directive item."""
    m = _DIRECTIVE.match(text)
    assert m is not None  # callers have seen the `#@`
    return DirectiveItem(m.group(1), m.group(2).rstrip(), line, end_line)


class _Splitter:
    def __init__(self, file: str, first_line: int):
        self.file = file
        self.first = first_line
        self.items: list[Item] = []
        self.comment: list[tuple[int, str]] = []
        self.command: tuple[list[str], int, int, bool] | None = None  # waiting for its `##`
        self.expected: list[str] = []
        self.expected_start = 0
        self.orphans: list[str] = []
        self.orphans_start = 0

    def flush_comment(self) -> None:
        if self.comment:
            text = "\n".join(t for _, t in self.comment)
            self.items.append(CommentItem(text, self.comment[0][0], self.comment[-1][0]))
            self.comment = []

    def flush_command(self) -> None:
        if self.command is not None:
            lines, start, end, complete = self.command
            expectation = None
            if self.expected:
                expectation = Expectation(tuple(self.expected),
                                          SourceLoc(self.file, self.expected_start),
                                          self.expected_start + len(self.expected) - 1)
            self.items.append(CommandItem("\n".join(lines), start, end, expectation, complete))
            self.command = None
            self.expected = []
        if self.orphans:
            self.items.append(OutputItem(tuple(self.orphans), self.orphans_start,
                                         self.orphans_start + len(self.orphans) - 1))
            self.orphans = []

    def expected_output(self, line: str, no: int) -> None:
        if self.command is not None and not self.orphans:
            if not self.expected:
                self.expected_start = no
            self.expected.append(expected_line(line))
            return
        self.flush_comment()
        if not self.orphans:
            self.orphans_start = no
        self.orphans.append(expected_line(line))

    def split(self, lines: Sequence[str]) -> list[Item]:
        k, n = 0, len(lines)
        while k < n:
            line, no = lines[k], self.first + k
            k += 1
            if line.startswith("##"):
                self.expected_output(line, no)
                continue
            self.flush_command()
            stripped = line.lstrip()
            if not stripped:
                self.flush_comment()
            elif stripped.startswith("#@"):
                self.flush_comment()
                parts = [line]
                while _continues(parts[-1]) and k < n:
                    parts.append(lines[k])
                    k += 1
                self.items.append(parse_directive_line("\n".join(parts), no, self.first + k - 1))
            elif stripped.startswith("#!"):
                self.flush_comment()
            elif (nested := _NESTED_SHOW.match(line)) is not None:
                self.flush_comment()
                self.items.append(DirectiveItem(nested.group(1), nested.group(2), no, no))
            elif stripped.startswith("#"):
                body = stripped[1:]
                self.comment.append((no, body[1:] if body.startswith(" ") else body))
            else:
                self.flush_comment()
                k = self.read_command(lines, k - 1)
        self.flush_command()
        self.flush_comment()
        return self.items

    def read_command(self, lines: Sequence[str], k: int) -> int:
        """Read the command starting at lines[k]; return the index after it."""
        if plainly_complete(lines[k]):
            self.command = ([lines[k]], self.first + k, self.first + k, True)
            return k + 1
        reader = BashReader()
        start = k
        while k < len(lines):
            reader.feed(lines[k])
            k += 1
            if reader.complete:
                self.command = (list(lines[start:k]), self.first + start, self.first + k - 1, True)
                return k
        body = list(lines[start:k])
        while body and not body[-1].strip():
            body.pop()
        self.command = (body, self.first + start, self.first + start + len(body) - 1, False)
        return k


def split_shell(lines: Sequence[str], file: str, first_line: int = 1) -> list[Item]:
    """Items of shell text whose first line is `first_line` of `file`."""
    return _Splitter(file, first_line).split(lines)


def split_command(text: str) -> tuple[bool, bool, str]:
    """(complete, balanced, why it is incomplete) for one command's text."""
    reader = BashReader()
    for line in text.split("\n"):
        reader.feed(line)
    return reader.complete, not reader.unbalanced, reader.why_incomplete()
