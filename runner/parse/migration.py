"""Lint's help for files written for demosh: what demosh read one way and demorun reads another.

Pure: the lines of a file in, warnings out, each quoting the line it is about.
demosh treated `##` lines as comments; demorun checks them as expected output.
It hid every file until `@SHOW`; a Markdown file without one presents nothing.
And it ran whatever sat in a bash fence, so pasted prompts and pasted output
are common where ```` ```text ```` was meant.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from ..model import Expect, Finding, Kind, Plan, Severity, SourceLoc, Visibility
from .items import CommandItem
from .markdown import fences, is_runnable_fence
from .shell import split_shell

# Words that make a `##` line read as a sentence to the reader, not as a tool's output.
_OPENERS = frozenset("this that these here note now you we it should expect expected output "
                     "the wait see shows will".split())
_PROSE_WORDS = frozenset("this that should will would you we here the output shows show see "
                         "note now expect expected it is are of a an to".split())
_MARKER = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # EMISSARY_INSTALL_END: a section mark
_TABLE_GAP = re.compile(r"\S {3,}\S")
_CAPS_HEAD = re.compile(r"[A-Z][A-Z0-9_-]+(?:\[[^\]]*\])?(?: {2,}|$)")
_LOG_LEVEL = re.compile(r"(?:INFO|WARN|WARNING|ERRO|ERROR|DEBU|DEBUG|TRAC|FATA)\b")
_OUTPUT_START = re.compile(r"\d|Every \d+(?:\.\d+)?s:|[a-z0-9-]+/[a-z0-9.-]+ (?:created|configured|unchanged)")


def _quote(text: str, width: int = 80) -> str:
    text = text.strip()
    return repr(text if len(text) <= width else text[:width - 1] + "…")


def reads_like_commentary(line: str) -> bool:
    """A `##` line that is a sentence or a section mark, as demosh authors wrote comments."""
    text = line.strip()
    if _MARKER.fullmatch(text.lstrip("# ")):  # also `#### MARK`, read as `## MARK`
        return True
    words = text.split()
    if len(words) < 3 or not words[0][:1].isupper():
        return False
    bare = [w.strip(".,:;!?…'\"`()") for w in words]
    if not all(w.isalpha() for w in bare if w):
        return False
    lowered = [w.lower() for w in bare]
    return (lowered[0] in _OPENERS or text.endswith((".", "…", ":"))) \
        and sum(w in _PROSE_WORDS for w in lowered) >= 1


def looks_like_output(line: str) -> bool:
    """A line of a tool's output (a table row or header, a log line), not a command."""
    text = line.strip()
    unquoted = re.split(r"['\"]", text, maxsplit=1)[0]  # a table inside a quoted argument is a command's
    return bool(_CAPS_HEAD.match(text) or _LOG_LEVEL.match(text) or _OUTPUT_START.match(text)
                or len(_TABLE_GAP.findall(unquoted)) >= 2)


def _fence_findings(file: str, lines: Sequence[str], start: int, end: int, fence: bool) -> list[Finding]:
    """Findings for shell text lines[start:end]; `fence` when it is a Markdown fence's body."""
    findings = []
    commands = [item for item in split_shell(lines[start:end], file, start + 1)
                if isinstance(item, CommandItem)]
    for command in commands:
        if command.expected is None:
            continue
        for offset, text in enumerate(command.expected.lines):
            if reads_like_commentary(text):
                line = command.expected.loc.line + offset
                findings.append(Finding(SourceLoc(file, line), Severity.WARNING, "commentary-as-output",
                                        f"{_quote(lines[line - 1])} reads like a comment, but '##' "
                                        "under a command is its expected output: write '# ' for "
                                        "commentary"))
                break
    prompt = next((c for c in commands if c.text.lstrip().startswith("$ ")), None)
    if prompt is not None:
        findings.append(Finding(SourceLoc(file, prompt.line), Severity.WARNING, "pasted-prompt",
                                f"{_quote(lines[prompt.line - 1])} starts with a pasted '$ ' prompt, "
                                "which bash would run as a command named '$': drop the prompt"))
    if fence:
        firsts = [c for c in commands if not c.text.lstrip().startswith("$ ")]
        output = [c for c in firsts if looks_like_output(c.text.split("\n", 1)[0])]
        if output and 3 * len(output) >= 2 * len(firsts):
            opening = start - 1
            findings.append(Finding(SourceLoc(file, output[0].line), Severity.WARNING, "output-in-fence",
                                    f"{_quote(lines[output[0].line - 1])} looks like pasted output, "
                                    f"not a command: open the fence at line {opening + 1} with "
                                    "```text so it is shown and never run"))
    return findings


def migration_findings(file: str, lines: Sequence[str], markdown: bool) -> list[Finding]:
    """Commentary read as output, pasted prompts, and output pasted into bash fences."""
    if not markdown:
        return _fence_findings(file, lines, 0, len(lines), fence=False)
    findings = []
    for k, end, _ in fences(lines):
        if is_runnable_fence(lines[k]):
            findings += _fence_findings(file, lines, k + 1, end, fence=True)
    return findings


def no_show_finding(plan: Plan, lines: Sequence[str]) -> Finding | None:
    """A Markdown workshop whose commands all stay hidden: `present` would show a blank screen."""
    if not plan.file.lower().endswith(".md") or not plan.commands:
        return None
    if any(step.visibility is Visibility.SHOW for step in plan.steps):
        return None
    first = next((k for k, line in enumerate(lines) if is_runnable_fence(line)), None)
    if first is None:
        return None
    return Finding(SourceLoc(plan.file, first + 1), Severity.WARNING, "no-show",
                   f"{_quote(lines[first])} opens a bash fence, but no '<!-- @SHOW -->' comes "
                   "anywhere: files start hidden, so present would show a blank screen")


def unchecked_modifier_findings(plan: Plan) -> list[Finding]:
    """@mask, @retry or @expect on a command with no `##` block: they only act on expected output."""
    findings = []
    for step in plan.steps:
        if step.kind is not Kind.COMMAND or step.expected is not None:
            continue
        m = step.modifiers
        names = ["@mask"] * bool(m.masks) + ["@retry"] * (m.retry is not None) \
            + ["@expect"] * (m.expect is not Expect.AUTO)
        if names:
            first = step.text.split("\n", 1)[0]
            findings.append(Finding(step.loc, Severity.WARNING, "modifier-without-output",
                                    f"{' and '.join(names)} applies to {_quote(first)}, which has no "
                                    "'##' block to check: did it mean the next command?"))
    return findings
