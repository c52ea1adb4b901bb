"""Secret values kept out of every artefact: found by variable name, shown as ***."""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping

from .model import FileReport, Plan, RunReport, Step, StepResult

SECRET_NAME_PARTS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "API_KEY")
MASK = "***"
# Shorter values are too common ("1", "yes", "dev") to mask without hiding real output.
MIN_SECRET_LENGTH = 4


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
    """A secret as it may reach an artefact: as set, through a terminal, and line by line."""
    yield secret
    if "\n" in secret:
        # A terminal turns \n into \r\n, and tools often print such values one line at a time.
        yield secret.replace("\r\n", "\n").replace("\n", "\r\n")
        yield from (line.rstrip("\r") for line in secret.split("\n"))


class Redactor:
    """Replaces every occurrence of any secret with ***, trying the longest secret first.

    Longest first, so that a secret containing another is masked whole rather
    than leaving its tail visible.
    """

    __slots__ = ("secrets", "_pattern")

    def __init__(self, secrets: Iterable[str] = ()):
        found = {v for s in secrets for v in _variants(s) if len(v) >= MIN_SECRET_LENGTH}
        self.secrets = frozenset(found)
        ordered = sorted(found, key=lambda s: (-len(s), s))
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    def __call__(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(MASK, text)

    def __bool__(self) -> bool:
        return self._pattern is not None

    def __repr__(self) -> str:
        return f"Redactor({len(self.secrets)} secrets)"

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where secrets occur in text, in order and without overlap, as (start, end)."""
        if self._pattern is None:
            return []
        return [m.span() for m in self._pattern.finditer(text)]


def _redact_step(step: Step, redact: Callable[[str], str]) -> Step:
    expected = step.expected
    if expected is not None:
        expected = dataclasses.replace(expected, lines=tuple(map(redact, expected.lines)))
    return dataclasses.replace(
        step,
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
        outcome = dataclasses.replace(outcome, output=redact(outcome.output))
    return dataclasses.replace(
        result, step=_redact_step(result.step, redact), verdict=verdict, outcome=outcome
    )


def _redact_plan(plan: Plan, redact: Callable[[str], str]) -> Plan:
    return dataclasses.replace(
        plan,
        steps=tuple(_redact_step(s, redact) for s in plan.steps),
        findings=tuple(dataclasses.replace(f, message=redact(f.message)) for f in plan.findings),
    )


def redact_file(report: FileReport, redact: Callable[[str], str]) -> FileReport:
    """A file report with its results, plan and skip reason passed through redact."""
    return dataclasses.replace(
        report,
        results=tuple(redact_result(r, redact) for r in report.results),
        skipped_reason=None if report.skipped_reason is None else redact(report.skipped_reason),
        plan=None if report.plan is None else _redact_plan(report.plan, redact),
        error=None if report.error is None else redact(report.error),
    )


def redact_report(report: RunReport, redact: Callable[[str], str]) -> RunReport:
    """The whole run with every text a reporter may show passed through redact."""
    return dataclasses.replace(report, files=tuple(redact_file(f, redact) for f in report.files))
