"""`check --update`: write real output back as `##` lines, changing nothing else in the file."""
from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from ..errors import ParseError
from ..model import Expectation
from ..verify import compare_output, normalise
from ..verify.text import ELLIPSIS, keys, matchers
from ..verify.volatile import canon_for

_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_FENCE = re.compile(r"( *)(```|~~~)")
_BLOCK_LINE = re.compile(r"\s*##(?: |$)")


@dataclass(frozen=True)
class OutputEdit:
    """Real output for one command: replaces its `##` block, or adds one after the command."""

    command_end_line: int
    old: Expectation | None
    new_output: str
    mode: str = "auto"  # the command's @expect, so kept lines still match the way it is checked
    masks: tuple[str, ...] = ()  # the command's @mask regexes


def updated_text(text: str, edits: Sequence[OutputEdit]) -> str:
    """`text` with each edit applied; every other byte as it was."""
    lines = _LINE.findall(text)
    eol = _dominant_eol(lines)
    replaced: dict[int, tuple[int, list[str]]] = {}  # first index -> (end index, new lines)
    for edit in edits:
        new = normalise(edit.new_output)
        if edit.old is None:
            if not new:
                continue
            at = edit.command_end_line
            if not 1 <= at <= len(lines):
                raise ParseError(f"line {at} is past the end of the file; was it changed during the run?")
            indent = _fence_indent(lines, at - 1)
            ending = _ending(lines[at - 1]) or eol
            body = [_block_line(indent, line) + ending for line in new]
            if not _ending(lines[at - 1]):
                lines[at - 1] += ending
                body[-1] = body[-1][: -len(ending)]
            replaced[at] = (at, body)
            continue
        first, last = edit.old.loc.line - 1, edit.old.end_line - 1
        _check_block(lines, edit.old)
        if compare_output(edit.old.lines, edit.new_output, mode=edit.mode, masks=edit.masks) is None:
            continue
        indent = re.match(r"\s*", lines[first].rstrip("\r\n")).group()
        ending = _ending(lines[first]) or eol
        raw = [lines[i].rstrip("\r\n") for i in range(first, last + 1)]
        merged = _merge(list(edit.old.lines), raw, new, edit)
        body = [(line if kept else _block_line(indent, line)) + ending for kept, line in merged]
        body[-1] = body[-1][: len(body[-1]) - len(ending)] + _ending(lines[last])
        replaced[first] = (last + 1, body)
    out: list[str] = []
    i = 0
    for start in sorted(replaced):
        end, body = replaced[start]
        if start < i:
            raise ValueError(f"overlapping output edits at line {start + 1}")
        out.extend(lines[i:start])
        out.extend(body)
        i = end
    out.extend(lines[i:])
    return "".join(out)


def _merge(old: list[str], raw: list[str], new: list[str], edit: OutputEdit) -> list[tuple[bool, str]]:
    """The new lines, keeping the author's lines (and `...` lines) where they still match.

    Returns (kept, text) pairs: kept lines are the original source lines, byte
    for byte; the others are output lines still to be written as `##` lines.
    """
    if not new:
        return [(False, "")]
    exact = edit.mode == "exact"
    canon = canon_for(edit.masks, builtin=not exact)
    if len(old) != len(raw):
        return [(False, line) for line in new]
    if exact:
        old_keys, new_keys = keys(old, canon, padding=False), keys(new, canon, padding=False)
        dots = [False] * len(old)
    else:
        ms = matchers(old, canon)
        dots = [line.strip() == ELLIPSIS for line in old]
        new_keys = keys(new, canon)
        patterns = [(i, m) for i, m in enumerate(ms) if isinstance(m, re.Pattern)]
        old_keys = [m if isinstance(m, str) else f"\x00{i}" for i, m in enumerate(ms)]
        new_keys = [next((f"\x00{i}" for i, p in patterns if p.fullmatch(k)), k) for k in new_keys]
    merged: list[tuple[bool, str]] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old_keys, new_keys, autojunk=False).get_opcodes():
        if tag == "equal":
            merged.extend((True, raw[i]) for i in range(i1, i2))
            continue
        kept_dots = [(True, raw[i]) for i in range(i1, i2) if dots[i]]
        merged.extend(kept_dots)
        if not (kept_dots and all(dots[i1:i2])):
            merged.extend((False, line) for line in new[j1:j2])
    written = [_unblock(line) if kept else line for kept, line in merged]
    if compare_output(written, "\n".join(new), mode=edit.mode, masks=edit.masks) is not None:
        return [(False, line) for line in new]
    return merged


def _check_block(lines: list[str], block: Expectation) -> None:
    """Refuse to write when the `##` block is no longer where the plan saw it."""
    first, last = block.loc.line - 1, block.end_line - 1
    if not (0 <= first <= last < len(lines)) or not all(
        _BLOCK_LINE.match(lines[i].rstrip("\r\n")) for i in range(first, last + 1)
    ):
        raise ParseError("the ## block is not where it was when the file was read; was it changed during the run?",
                         block.loc)


def _block_line(indent: str, line: str) -> str:
    return f"{indent}## {line}" if line else f"{indent}##"


def _unblock(source: str) -> str:
    """The output line a `##` source line stands for (FORMAT.md: one space after `##` is removed)."""
    rest = source.lstrip()[2:]
    return rest[1:] if rest.startswith(" ") else rest


def _ending(line: str) -> str:
    return "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else ""


def _dominant_eol(lines: Sequence[str]) -> str:
    crlf = sum(1 for line in lines if line.endswith("\r\n"))
    return "\r\n" if crlf * 2 > len(lines) else "\n"


def _fence_indent(lines: Sequence[str], index: int) -> str:
    """The indentation of the fence a command sits in, for the `##` lines added under it."""
    for i in range(index, -1, -1):
        m = _FENCE.match(lines[i])
        if m:
            return m.group(1)
    return ""


def unified_diff(path: str, old: str, new: str) -> str:
    """What `--update` would change, as `diff -u` prints it."""
    out = []
    for line in difflib.unified_diff(_LINE.findall(old), _LINE.findall(new), fromfile=f"a/{path}",
                                     tofile=f"b/{path}"):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
