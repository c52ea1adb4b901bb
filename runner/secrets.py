"""Secret values kept out of every artefact: found by variable name, shown as ***.

Values are read from the session, not from the command text, so a secret set
without its name on the command line (`export $(cat creds.env)`, `source`, a
function) is found too; when to read is decided once per plan (SecretTracker),
so a command that cannot change variables costs nothing. What a command spells
out (`export API_TOKEN=abc123`) is known before anything runs, so even the
command's own echo is masked; what only the session knows is learned right
after the command that may set it, and what streams live from that command is
held until then (SecretTracker.learns). Masking sees through terminal escapes
(a token `grep --color` split in two is still one secret) and into them (a
title or a link's address), and output shown as text is masked again after the
escapes are stripped.
"""
from __future__ import annotations

import dataclasses
import json
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

from .model import Kind, Plan, Step
from .results import FileReport, RunReport, StepResult
from .verify.normalise import normalise

SECRET_NAME_PARTS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "API_KEY")
MASK = "***"
# Shorter values are too common ("1", "yes", "dev") to mask without hiding real output (README.md).
MIN_SECRET_LENGTH = 4
# What a terminal draws nothing for: CSI (colours), OSC (titles, links), and two-byte escapes.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-~]")


def is_secret_name(name: str, extra_names: Iterable[str] = ()) -> bool:
    """Whether a variable's value must be masked: its name says so, or the configuration does."""
    upper = name.upper()
    return any(part in upper for part in SECRET_NAME_PARTS) or name in set(extra_names)


def secret_values(variables: Mapping[str, str], extra_names: Iterable[str] = ()) -> frozenset[str]:
    """The values of secret-named variables, leaving out values too short to mask safely."""
    extra = frozenset(extra_names)
    return frozenset(
        value
        for name, value in variables.items()
        if len(value) >= MIN_SECRET_LENGTH and is_secret_name(name, extra)
    )


def _variants(secret: str) -> Iterable[str]:
    """A secret as it may reach an artefact: as set, quoted by a message (`{text!r}`) or as JSON,
    through a terminal, and line by line."""
    yield secret
    yield repr(secret)[1:-1]
    yield json.dumps(secret, ensure_ascii=False)[1:-1]
    if "\n" in secret:
        # A terminal turns \n into \r\n, and tools often print such values one line at a time.
        yield secret.replace("\r\n", "\n").replace("\n", "\r\n")
        yield from (line.rstrip("\r") for line in secret.split("\n"))


class Redactor:
    """Replaces every occurrence of any secret with ***, trying the longest secret first.

    Longest first, so that a secret containing another is masked whole rather
    than leaving its tail visible. In text with terminal escapes, secrets are
    looked for in the text the terminal draws, so one with escapes between its
    characters (`grep --color` marking a match inside it) is masked whole,
    escapes included; linear in the text, whatever the secrets' length.
    """

    __slots__ = ("_pattern", "secrets")

    def __init__(self, secrets: Iterable[str] = ()):
        found = {v for s in secrets for v in _variants(s) if len(v) >= MIN_SECRET_LENGTH}
        self.secrets = frozenset(found)
        ordered = sorted(found, key=lambda s: (-len(s), s))
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    def __call__(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        if "\x1b" not in text and "\x9b" not in text:
            return self._pattern.sub(MASK, text)
        pieces, pos = [], 0
        for start, end in self.spans(text):
            pieces += [text[pos:start], MASK]
            pos = end
        pieces.append(text[pos:])
        return "".join(pieces)

    def __bool__(self) -> bool:
        return self._pattern is not None

    def __repr__(self) -> str:
        return f"Redactor({len(self.secrets)} secrets)"

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where secrets occur in text, in order and without overlap, as (start, end): in what the
        terminal draws (escapes between a secret's characters taken along) and inside escapes."""
        if self._pattern is None:
            return []
        raw = [m.span() for m in self._pattern.finditer(text)]
        if "\x1b" not in text and "\x9b" not in text:
            return raw
        return _union(raw, _drawn_spans(self._pattern, text))


def _drawn_spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    """Where `pattern` matches the text a terminal draws, as spans of `text` itself."""
    # The text without its escapes, and where each piece of it starts in both.
    drawn_at: list[int] = []
    text_at: list[int] = []
    pieces: list[str] = []
    pos = length = 0
    for m in _ESCAPES.finditer(text):
        if m.start() > pos:
            drawn_at.append(length)
            text_at.append(pos)
            pieces.append(text[pos:m.start()])
            length += m.start() - pos
        pos = m.end()
    drawn_at.append(length)
    text_at.append(pos)
    pieces.append(text[pos:])

    def in_text(i: int) -> int:
        k = bisect_right(drawn_at, i) - 1
        return text_at[k] + i - drawn_at[k]

    return [(in_text(m.start()), in_text(m.end() - 1) + 1) for m in pattern.finditer("".join(pieces))]


def _union(first: list[tuple[int, int]], second: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Two sorted lists of spans as one, overlapping spans merged."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(first + second):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def masked_as_shown(output: str, redact: Callable[[str], str]) -> str:
    """Terminal output as a reader saw it (escapes gone, overwrites applied), secrets masked.

    Masked before the terminal is replayed, so an overwrite cannot leave half a
    secret, and again after, so one that only the replay puts together is caught.
    """
    return redact("\n".join(normalise(redact(output))))


# `NAME=value` and `NAME+=value` wherever a shell word may start: a command's own assignment,
# `export`/`declare`/`local` ones, `NAME=value cmd`, lines of a here-document or a .env file.
_ASSIGNMENT = re.compile(r"(?:^|(?<=[\s;&|(){}`]))([A-Za-z_][A-Za-z_0-9]*)\+?=")
_WORD_END = frozenset(" \t\n;&|()<>")


def _literal_word(text: str, at: int) -> str | None:
    """The shell word starting at `at` with its quotes removed, or None when any of it is
    expanded (`$x`, `$(...)`, backquotes): then only the session knows the value."""
    value: list[str] = []
    i, n = at, len(text)
    while i < n and text[i] not in _WORD_END:
        char = text[i]
        if char == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return None
            value.append(text[i + 1:end])
            i = end + 1
        elif char == '"':
            i += 1
            while i < n and text[i] != '"':
                if text[i] in "$`":
                    return None
                if text[i] == "\\" and i + 1 < n and text[i + 1] in '"\\$`\n':
                    i += 1
                value.append(text[i])
                i += 1
            if i >= n:
                return None
            i += 1
        elif char in "$`":
            return None
        elif char == "\\" and i + 1 < n:
            value.append(text[i + 1])
            i += 2
        else:
            value.append(char)
            i += 1
    return "".join(value)


def literal_secrets(commands: Iterable[str], extra_names: Iterable[str] = ()) -> frozenset[str]:
    """The values commands assign literally to secret-named variables (`export API_TOKEN=abc123`),
    known before anything runs; values too short to mask are left out as by secret_values."""
    extra = frozenset(extra_names)
    found = set()
    for command in commands:
        if "=" not in command:
            continue
        for m in _ASSIGNMENT.finditer(command):
            if is_secret_name(m.group(1), extra):
                value = _literal_word(command, m.end())
                if value is not None and len(value) >= MIN_SECRET_LENGTH:
                    found.add(value)
    return frozenset(found)


class _Variables(Protocol):
    @property
    def alive(self) -> bool: ...

    def variables(self) -> dict[str, str]: ...

    def functions(self) -> list[str]: ...


# Commands that can set variables whose names they do not spell out: running code (`source`, `.`,
# `eval`), or a builtin given a computed name (`export $(cat creds.env)`, `declare "$k=$v"`,
# `read -r "$name"`). `export KUBECONFIG=$PWD/k` names its variable, so it needs no read.
_RUNS_CODE = re.compile(
    r"(?<![\w.$/-])(?:source|eval|exec)(?![\w.-])|(?:^|[\s;&|({])\.\s|(?<![\w.$/-])printf\s+-v\s*[\"']?[$`]")
_NAMING_BUILTIN = re.compile(
    r"(?<![\w.$/-])(?:export|declare|typeset|local|readonly|read|mapfile|readarray)(?![\w.-])")
_EXPANDED_WORD = re.compile(r"\s[\"']?[$`]")
_SIMPLE_COMMAND = re.compile(r"[^;&|\n]+")
_DROPS_VARIABLES = re.compile(r"(?<![\w.$/-])(?:unset|exit|logout|exec)(?![\w.-])")
_FUNCTION_DEFINITION = re.compile(
    r"(?:^|[\s;&|({])(?:function\s+([^\s(){};&|]+)|([A-Za-z_][\w:.-]*)\s*\(\s*\))")
_WORD = re.compile(r"[^\s;&|(){}<>`$'\"]+")


def _sets_variables(command: str) -> bool:
    """Whether a command runs code or gives a builtin a computed name; one pass over it."""
    if _RUNS_CODE.search(command):
        return True
    if not _NAMING_BUILTIN.search(command):  # found in no part if not in the whole
        return False
    for part in _SIMPLE_COMMAND.finditer(command):
        builtin = _NAMING_BUILTIN.search(part.group())
        if builtin and _EXPANDED_WORD.search(part.group(), builtin.end()):
            return True
    return False


class SecretTracker:
    """The secret values a session has held, read whenever a command may have changed them.

    Decided once per plan: a command is followed by a read if it names a secret,
    runs code (`source`, `eval`), sets variables whose names it computes
    (`export $(cat f)`) or calls a function (defined in the workshop, or found
    in the shell after a read); it is preceded by one if it can drop variables
    (`unset`, `exit`, `exec`), and the first command is preceded by one for what
    the environment brought. Other commands cost nothing; a read, two round
    trips to bash. Values the commands assign literally are known from the start.
    """

    def __init__(self, steps: Sequence[Step], extra_names: Sequence[str] = ()):
        self._extra = tuple(extra_names)
        names = tuple(part for part in (*SECRET_NAME_PARTS, *(n.upper() for n in extra_names)) if part)
        names_secret = re.compile("|".join(map(re.escape, names))).search
        commands = {i: s.text for i, s in enumerate(steps) if s.kind is Kind.COMMAND}
        self._after = frozenset(i for i, text in commands.items()
                                if names_secret(text.upper()) or _sets_variables(text))
        self._before = frozenset(i for i, text in commands.items() if _DROPS_VARIABLES.search(text))
        # The words of the commands not read after anyway, split only once a function is known.
        self._commands = {i: text for i, text in commands.items() if i not in self._after}
        self._words: dict[int, frozenset[str]] = {}
        self._functions = frozenset(a or b for text in commands.values()
                                    for a, b in _FUNCTION_DEFINITION.findall(text))
        self._values = literal_secrets(commands.values(), self._extra)
        self._redactor = Redactor(self._values)
        self._started = False
        self._read_after: set[int] = set()  # the commands that learn after which the session was read

    def _calls_function(self, index: int) -> bool:
        words = self._words.get(index)
        if words is None:
            text = self._commands.get(index)
            if text is None:
                return False
            words = self._words[index] = frozenset(_WORD.findall(text))
        return not self._functions.isdisjoint(words)

    def before(self, index: int, session: _Variables) -> None:
        """Called before command `index` runs."""
        if (not self._started or index in self._before
                or (self._functions and self._calls_function(index))):
            self.read(session)

    def after(self, index: int, session: _Variables) -> None:
        """Called after command `index` ran, while the shell is alive."""
        if self.learns(index) and session.alive:
            self.read(session)
            self._read_after.add(index)

    def learns(self, index: int) -> bool:
        """Whether the session is read after command `index`: what it prints may hold a value
        known only then, so whoever shows its output live holds it until the command is done."""
        return index in self._after or bool(self._functions and self._calls_function(index))

    def unread(self, index: int) -> bool:
        """Command `index` may have set secrets that could not be read (its shell ended, or it was
        stopped): what it printed may hold values no redactor knows, so it is not shown."""
        return self.learns(index) and index not in self._read_after

    def quiet(self, index: int) -> bool:
        """Command `index` needs no read before or after it (see before and after)."""
        return (self._started and index not in self._before and index not in self._after
                and not (self._functions and self._calls_function(index)))

    def read(self, session: _Variables) -> None:
        """Add the values the session's secret-named variables hold now, and learn its functions."""
        if not session.alive:
            return
        self._started = True
        found = secret_values(session.variables(), self._extra)
        if not found <= self._values:
            self._values |= found
            self._redactor = Redactor(self._values)
        self._functions |= frozenset(session.functions())

    @property
    def redactor(self) -> Redactor:
        """Masks every secret value seen so far."""
        return self._redactor


UNREAD = "(output not shown: the session could not be read for the secrets this command may have set)"


def withhold_unread(results: Sequence[StepResult], secrets: SecretTracker) -> list[StepResult]:
    """The results, with the output (and the details that quote it) of every command that may
    have set secrets the session could not be read for afterwards replaced by a note."""
    return [dataclasses.replace(r, outcome=dataclasses.replace(r.outcome, output=UNREAD),
                                verdict=dataclasses.replace(r.verdict, details=()))
            if r.outcome is not None and r.outcome.output and secrets.unread(r.index) else r
            for r in results]


def _redact_step(step: Step, redact: Callable[[str], str]) -> Step:
    expected = step.expected
    if expected is not None:
        expected = expected._replace(lines=tuple(map(redact, expected.lines)))
    return step._replace(
        text=redact(step.text),
        section=None if step.section is None else redact(step.section),
        expected=expected,
    )


def redact_result(result: StepResult, redact: Callable[[str], str]) -> StepResult:
    """A step result with every text a report may show passed through redact."""
    verdict = dataclasses.replace(
        result.verdict,
        message=redact(result.verdict.message),
        details=tuple(map(redact, result.verdict.details)),
    )
    outcome = result.outcome
    if outcome is not None:
        outcome = dataclasses.replace(outcome, output=masked_as_shown(outcome.output, redact))
    return dataclasses.replace(
        result, step=_redact_step(result.step, redact), verdict=verdict, outcome=outcome
    )


def _redact_plan(plan: Plan, redact: Callable[[str], str]) -> Plan:
    return plan._replace(
        steps=tuple(_redact_step(s, redact) for s in plan.steps),
        findings=tuple(f._replace(message=redact(f.message)) for f in plan.findings),
    )


def redact_file(report: FileReport, redact: Callable[[str], str]) -> FileReport:
    """A file report with its results, plan, skip reason, lint errors and other words passed through redact."""
    return dataclasses.replace(
        report,
        results=tuple(redact_result(r, redact) for r in report.results),
        skipped_reason=None if report.skipped_reason is None else redact(report.skipped_reason),
        plan=None if report.plan is None else _redact_plan(report.plan, redact),
        error=None if report.error is None else redact(report.error),
        empty=None if report.empty is None else redact(report.empty),
        findings=tuple(f._replace(message=redact(f.message)) for f in report.findings),
        hints=tuple(map(redact, report.hints)),
    )


def redact_report(report: RunReport, redact: Callable[[str], str]) -> RunReport:
    """The whole run with every text a reporter may show passed through redact.

    A Redactor that knows no secret changes nothing: the report is given back as it is, not
    copied result by result (a copy per command cost `check` a tenth of its time)."""
    if isinstance(redact, Redactor) and not redact:
        return report
    return dataclasses.replace(report, files=tuple(redact_file(f, redact) for f in report.files))
