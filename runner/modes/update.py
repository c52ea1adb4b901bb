"""`check --update`: write real output back as `##` lines, changing nothing else in the file.

The file is read as bytes, so every line ending (LF, CRLF, a lone CR inside a
line) and a byte-order mark stay as they are; only `##` lines are ours. It is
written only if it still holds the bytes that were parsed (compared by
SHA-256 under the folder lock that every write takes), so an edit made
during the run, or another `--update` of the same file, is never overwritten
or merged into blocks at the wrong lines.

Only files in the folder tree of the workshop given on the command line (or
below the folder given, for one found in it) are written: a file imported
from elsewhere (`../..`, an absolute path) and the presenter's init files are
reported instead, as is a block whose command (a macro, a file imported twice)
ran more than once with different output, rather than written with the first.
"""
from __future__ import annotations

import difflib
import functools
import hashlib
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import DemorunError, ParseError, WorkshopChanged
from ..files import rewrite
from ..model import Expectation, Step
from ..parse.markdown import fence_info
from ..verify.compare import compare_output
from ..verify.diff import Matcher
from ..verify.normalise import normalise
from ..verify.roles import NO_PINS, Pins
from ..verify.text import ELLIPSIS, align
from ..verify.volatile import canon_for
from ..verify.wildcards import escape

_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_BLOCK_LINE = re.compile(r"\s*##")
_BOM = "\ufeff"


@dataclass(frozen=True)
class OutputEdit:
    """Real output for one command: replaces its `##` block, or adds one after the command."""

    command_end_line: int
    old: Expectation | None
    new_output: str
    expect: str = "auto"  # the command's @expect, so kept lines still match the way it is checked
    masks: tuple[str, ...] = ()  # the command's @mask regexes
    pins: Pins = NO_PINS  # the command's @literal and @volatile names


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
                raise WorkshopChanged(f"line {at} is past the end of the file; was it changed during the run?")
            indent = _fence_indent(lines, at - 1)
            ending = _ending(lines[at - 1]) or eol
            body = [_block_line(indent, line) + ending for line in _as_text(new, edit.expect)]
            if not _ending(lines[at - 1]):
                lines[at - 1] += ending
                body[-1] = body[-1][: -len(ending)]
            replaced[at] = (at, body)
            continue
        first, last = edit.old.loc.line - 1, edit.old.end_line - 1
        _check_block(lines, edit.old)
        if compare_output(edit.old.lines, edit.new_output, expect=edit.expect, masks=edit.masks,
                          pins=edit.pins) is None:
            continue
        first_body = _body(lines[first])
        indent = first_body[: len(first_body) - len(first_body.lstrip())]
        ending = _ending(lines[first]) or eol
        raw = [_body(lines[i]) for i in range(first, last + 1)]
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
    exact = edit.expect == "exact"
    written_new = _as_text(new, edit.expect)
    if len(old) != len(raw):
        return [(False, line) for line in written_new]
    # The same keys the verifier diffs, so the lines kept are those the check shows as matching.
    aligned = align(old, new, canon_for(edit.masks, builtin=not exact, pins=edit.pins),
                    canon_for(edit.masks, loose=True, pins=edit.pins), exact=exact)
    old_keys, new_keys = aligned.expected, aligned.actual
    dots = [not exact and line.strip() == ELLIPSIS for line in old]
    merged: list[tuple[bool, str]] = []
    for tag, i1, i2, j1, j2 in Matcher(old_keys, new_keys).get_opcodes():
        if tag == "equal":
            merged.extend((True, raw[i]) for i in range(i1, i2))
            continue
        kept_dots = [(True, raw[i]) for i in range(i1, i2) if dots[i]]
        merged.extend(kept_dots)
        if not (kept_dots and all(dots[i1:i2])):
            merged.extend((False, line) for line in written_new[j1:j2])
    written = [_unblock(line) if kept else line for kept, line in merged]
    if compare_output(written, "\n".join(new), expect=edit.expect, masks=edit.masks, pins=edit.pins) is not None:
        return [(False, line) for line in written_new]
    return merged


def _as_text(lines: list[str], expect: str) -> list[str]:
    """Output lines as `##` lines that read back as themselves: dots that would be a wildcard are escaped."""
    return lines if expect == "exact" else [escape(line) for line in lines]


def _check_block(lines: list[str], block: Expectation) -> None:
    """Refuse to write when the `##` block is no longer where the plan saw it."""
    first, last = block.loc.line - 1, block.end_line - 1
    if not (0 <= first <= last < len(lines)) or not all(
        _BLOCK_LINE.match(lines[i]) for i in range(first, last + 1)
    ):
        raise WorkshopChanged("the ## block is not where it was when the file was read; was it changed during the run?",
                         block.loc)


def _block_line(indent: str, line: str) -> str:
    return f"{indent}## {line}" if line else f"{indent}##"


def _unblock(source: str) -> str:
    """The output line a `##` source line stands for (docs/format.md: one space after `##` is removed)."""
    rest = source.lstrip()[2:]
    return rest.removeprefix(" ")


def _body(line: str) -> str:
    """A line without its ending; a lone CR before it is part of the line, as the parser reads it."""
    return line[: len(line) - len(_ending(line))]


def _ending(line: str) -> str:
    return "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else ""


def _dominant_eol(lines: Sequence[str]) -> str:
    crlf = sum(1 for line in lines if line.endswith("\r\n"))
    return "\r\n" if crlf * 2 > len(lines) else "\n"


def _fence_indent(lines: Sequence[str], index: int) -> str:
    """The indentation of the fence a command sits in, for the `##` lines added under it."""
    for i in range(index, -1, -1):
        info = fence_info(lines[i])
        if info is not None:
            return info[0]
    return ""


def unified_diff(path: str, old: str, new: str) -> str:
    """What `--update` would change, as `diff -u` prints it."""
    out = []
    for line in difflib.unified_diff(_LINE.findall(old), _LINE.findall(new), fromfile=f"a/{path}",
                                     tofile=f"b/{path}"):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def fingerprint(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_fingerprints(files: Iterable[str]) -> dict[str, str]:
    """Each file's fingerprint now: taken right after parsing, compared again before writing.

    Only regular files can be updated: a pipe or a device would not read the same twice.
    """
    found: dict[str, str] = {}
    for file in files:
        try:
            if not stat.S_ISREG(os.stat(file).st_mode):
                raise ParseError(f"cannot update {file!r}: not a regular file")
            with open(file, "rb") as f:
                found[file] = fingerprint(f.read())
        except OSError as exc:
            raise ParseError(f"cannot read {file!r}: {exc.strerror or exc}") from None
    return found


def _changed(path: str, current: bytes | None, expected: str | None) -> WorkshopChanged | None:
    if current is None:
        return WorkshopChanged(f"{path} was removed during the run; nothing was written to it")
    if expected is None or fingerprint(current) != expected:
        return WorkshopChanged(f"{path} changed during the run (edited, or updated by another demorun); "
                               "nothing was written to it: check it and run again")
    return None


def _apply(path: str, current: bytes | None, expected: str | None, edits: Sequence[OutputEdit]) -> bytes:
    """The updated bytes of a file that still holds what was parsed; WorkshopChanged if it does not."""
    problem = _changed(path, current, expected)
    if problem is not None:
        raise problem
    assert current is not None
    text = current.decode("utf-8")
    bom = _BOM if text.startswith(_BOM) else ""
    try:
        new = updated_text(text[len(bom):], edits)
    except WorkshopChanged as exc:
        if exc.loc is None:
            raise WorkshopChanged(f"{path}: {exc.message}") from None
        raise
    return (bom + new).encode("utf-8")


def _apply_to(path: str, expected: str | None, edits: Sequence[OutputEdit], current: bytes | None) -> bytes:
    return _apply(path, current, expected, edits)


def apply_updates(edits: Mapping[str, Sequence[OutputEdit]], fingerprints: Mapping[str, str], *,
                  show_diff: bool, echo: Callable[[str], None]) -> set[str]:
    """Write (or with show_diff, print as a diff) each file's edits; the files that changed.

    A file that cannot be updated does not stop the others; the first problem
    is raised at the end, with all of them in its message.
    """
    changed: set[str] = set()
    problems: list[DemorunError] = []
    for path, file_edits in edits.items():
        ordered = sorted(file_edits, key=lambda e: e.command_end_line)
        expected = fingerprints.get(path)
        try:
            if show_diff:
                with open(path, "rb") as f:
                    current = f.read()
                new = _apply(path, current, expected, ordered)
                if new != current:
                    echo(unified_diff(path, current.decode("utf-8"), new.decode("utf-8")))
                    changed.add(path)
            elif rewrite(path, functools.partial(_apply_to, path, expected, ordered)):
                echo(f"updated {path}: {len(ordered)} output block(s)\n")
                changed.add(path)
        except OSError as exc:
            problems.append(DemorunError(f"cannot read {path!r}: {exc.strerror or exc}"))
        except DemorunError as exc:
            problems.append(exc)
    if problems:
        first = problems[0]
        raise type(first)("\n".join(str(p) for p in problems)) if len(problems) > 1 else first
    return changed


INIT_FILES = (".demoshrc", ".demoshrc.md")  # in the presenter's home, as the parser reads them
Proposed = tuple[Step, str, OutputEdit]  # a command, the workshop it ran for, the block it would get


def _real(path: str) -> str:
    return os.path.realpath(path)


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def update_roots(paths: Sequence[str]) -> list[str]:
    """The folders given on the command line, and the folder of each file given."""
    return [_real(p) if os.path.isdir(p) else os.path.dirname(_real(p)) for p in paths]


def out_of_scope(step: Step, workshop: str, roots: Sequence[str], home: str) -> str | None:
    """Why --update may not write `step`'s block, or None: it must lie in the folder tree of the
    workshop as given on the command line, and neither be in an init file nor come from one."""
    inits = {_real(os.path.join(home, name)) for name in INIT_FILES}
    for site in (*step.called_from, step.loc):
        if _real(site.file) in inits:
            return f"it comes from the init file {site.file}, which --update never writes"
    workshop_real = _real(workshop)
    trees = [root for root in roots if _under(workshop_real, root)] or [os.path.dirname(workshop_real)]
    if any(_under(_real(step.loc.file), tree) for tree in trees):
        return None
    via = f", reached from {step.called_from[0]}" if step.called_from else ""
    return f"{step.loc.file} lies outside {trees[0]}, the folder tree of {workshop}{via}"


def choose_edits(proposed: Sequence[Proposed], roots: Sequence[str], home: str | None = None
                 ) -> tuple[dict[str, list[OutputEdit]], list[tuple[Step, str]]]:
    """The edits --update may make, by file, and the commands it will not write, with why.

    A block that several runs of its command would fill (a macro called twice, a file imported
    twice, or by two workshops) is written when they all printed the same, and refused otherwise.
    """
    home = home if home is not None else os.path.expanduser("~")
    refused: list[tuple[Step, str]] = []
    blocks: dict[tuple[str, int], list[tuple[Step, OutputEdit]]] = {}
    for step, workshop, edit in proposed:
        why = out_of_scope(step, workshop, roots, home)
        if why is not None:
            refused.append((step, why))
        else:
            blocks.setdefault((step.loc.file, edit.command_end_line), []).append((step, edit))
    chosen: dict[str, list[OutputEdit]] = {}
    for (file, _), runs in blocks.items():
        if len({tuple(normalise(edit.new_output)) for _, edit in runs}) > 1:
            sites = ", ".join(str(step.called_from[-1] if step.called_from else step.loc) for step, _ in runs)
            refused.append((runs[0][0], f"it ran {len(runs)} times with different output (from {sites}); "
                                        "no one block fits them all"))
        else:
            chosen.setdefault(file, []).append(runs[0][1])
    return chosen, refused


def update_outputs(proposed: Sequence[Proposed], fingerprints: Mapping[str, str], *, roots: Sequence[str],
                   show_diff: bool, echo: Callable[[str], None], refuse: Callable[[str], None],
                   home: str | None = None) -> tuple[set[tuple[str, int]], list[DemorunError]]:
    """Write (or show as a diff) the blocks --update may write, say which it will not and why.

    Each file is written on its own, so one that cannot be never stops another: the (file,
    command end line) of the blocks written, and what kept the others from being written.
    """
    chosen, refused = choose_edits(proposed, roots, home)
    for step, why in refused:
        refuse(f"{step.loc}: not updated: {why}")
    written: set[tuple[str, int]] = set()
    problems: list[DemorunError] = []
    for path, edits in chosen.items():
        try:
            if apply_updates({path: edits}, fingerprints, show_diff=show_diff, echo=echo):
                written |= {(path, edit.command_end_line) for edit in edits}
        except DemorunError as exc:
            problems.append(exc)
    return written, problems
