"""What the Markdown and shell readers hand the plan builder: one file's pieces, with lines."""
from __future__ import annotations

from typing import NamedTuple

from ..model import Expectation


class ProseItem(NamedTuple):
    """Markdown outside runnable fences; `heading` is set when the chunk opens with one."""

    text: str
    line: int
    end_line: int
    heading: str | None = None


class CommentItem(NamedTuple):
    """Consecutive `#` commentary lines of a script or fence, without the `# `."""

    text: str
    line: int
    end_line: int


class OutputItem(NamedTuple):
    """`##` lines that no command owns: never checked; shown unless their fence has no command."""

    lines: tuple[str, ...]
    line: int
    end_line: int
    sample: bool = False  # in a fence with no command: a capture shown as an example, which demosh hides


class CommandItem(NamedTuple):
    """One complete command as bash reads it, with the `##` block right under it."""

    text: str
    line: int
    end_line: int
    expected: Expectation | None = None
    complete: bool = True  # False when the fence or file ended inside it


class DirectiveItem(NamedTuple):
    """`<!-- @name args -->` or `#@name args`; `args` is the rest of the text, as written."""

    name: str
    args: str
    line: int
    end_line: int


class FileItem(NamedTuple):
    """A fence to be written to `path` (```` ```yaml file=PATH ```` or `<!-- @file PATH -->` above it)."""

    path: str  # as the author wrote it, relative to the folder of the file that holds the fence
    text: str
    line: int  # the opening fence
    end_line: int


class BlockItem(NamedTuple):
    """A `@macro name` ... `@end` or `@ifhook name` ... `@endif` block, body already read."""

    kind: str  # "macro" or "ifhook"
    name: str
    body: tuple[Item, ...]
    line: int
    end_line: int


Item = ProseItem | CommentItem | OutputItem | CommandItem | DirectiveItem | FileItem | BlockItem
