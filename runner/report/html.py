"""A self-contained HTML page: the workshop as it reads, each command with its real output and verdict."""
from __future__ import annotations

import re
from collections.abc import Callable
from html import unescape
from typing import Any

import jinja2
import mistune
from markupsafe import Markup
from mistune.renderers.html import HTMLRenderer

from ..files import write_atomic
from ..model import Kind, Step, Visibility
from ..parse.commonmark import reader
from ..results import FileReport, RunReport, Status, StepResult
from ..secrets import redact_report
from ..verify.diff import diff_line_kind
from .differing import differing_spans
from .plain import OUTPUT_BYTE_LIMIT, OUTPUT_LINE_LIMIT, clip_line, clip_output, first_line, plain
from .summary import (
    ForgivenValue,
    empty_reason,
    file_label,
    file_status,
    forgiven_values,
    format_duration,
    lint_note,
    nothing_checked,
)

Redact = Callable[[str], str]
_COMMENT = re.compile(r"\s*<!--.*?-->\s*", re.S)
_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("runner", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


class _ProseRenderer(HTMLRenderer):
    """Markdown to HTML with raw HTML shown as text, comments dropped, and secrets masked.

    Secrets are masked in the parsed text rather than the source, so that *** is
    never read as Markdown emphasis or a rule.
    """

    def __init__(self, redact: Redact):
        super().__init__(escape=True)
        self._redact = redact

    def text(self, text: str) -> str:
        # Entities are text (`AT&amp;T` reads AT&T), as in the terminal; escaped again on the way out.
        return super().text(self._redact(unescape(text)))

    def codespan(self, text: str) -> str:
        return super().codespan(self._redact(text))

    def block_code(self, code: str, info: str | None = None) -> str:
        return super().block_code(self._redact(code), info)

    def link(self, text: str, url: str, title: str | None = None) -> str:
        return super().link(text, self._redact(url), title and self._redact(title))

    def image(self, text: str, url: str, title: str | None = None) -> str:
        return super().image(text, self._redact(url), title and self._redact(title))

    def inline_html(self, html: str) -> str:
        # Directives and notes to the presenter live in HTML comments; readers never see them.
        html = _COMMENT.sub(" ", html).strip()
        return super().inline_html(self._redact(html)) if html else ""

    def block_html(self, html: str) -> str:
        html = _COMMENT.sub(" ", html).strip()
        return super().block_html(self._redact(html)) if html else ""


def _markdown(redact: Redact) -> mistune.Markdown:
    return reader(_ProseRenderer(redact))


_DIFF_CLASS = {"header": "hunk", "hunk": "hunk", "added": "add", "removed": "del", "": ""}


def _meta(result: StepResult) -> str:
    outcome = result.outcome
    if outcome is None:
        return "not run"
    parts = [f"exit {outcome.status}", format_duration(outcome.duration)]
    if outcome.timed_out:
        parts.append("timed out")
    if outcome.stopped:
        parts.append("stopped as planned")
    if outcome.recovery:
        parts.append(outcome.recovery)
    if outcome.state_lost:
        parts.append("shell restarted: state lost")
    return " · ".join(parts)


Piece = tuple[str, "ForgivenValue | None", bool]  # text, the forgiven value it is, whether it differs


def _marked(output: str, values: list[ForgivenValue],
            differs: dict[int, list[tuple[int, int]]]) -> list[list[Piece]] | None:
    """The output's lines cut into text, forgiven values and values that differ from the `##` block,
    or None when it is clipped (no place to mark)."""
    lines = output.split("\n")
    if len(lines) > OUTPUT_LINE_LIMIT or len(output.encode("utf-8", "surrogatepass")) > OUTPUT_BYTE_LIMIT:
        return None
    by_line: dict[int, list[tuple[int, int, ForgivenValue | None]]] = {}
    for v in values:
        if v.placed:
            by_line.setdefault(v.line, []).append((v.start, v.end, v))
    for number, spans in differs.items():
        forgiven = by_line.get(number, [])
        by_line.setdefault(number, []).extend(
            (start, end, None) for start, end in spans
            if not any(start < f_end and f_start < end for f_start, f_end, _ in forgiven))
    out = []
    for number, line in enumerate(lines, 1):
        pieces: list[Piece] = []
        at = 0
        for start, end, value in sorted(by_line.get(number, ()), key=lambda span: span[0]):
            if start < at or end > len(line):
                continue
            pieces += [(line[at:start], None, False), (line[start:end], value, value is None)]
            at = end
        pieces.append((line[at:], None, False))
        out.append(pieces)
    return out


def _output_failed(result: StepResult) -> bool:
    """Whether a failed command failed on its output (not only its status or its time)."""
    outcome = result.outcome
    return outcome is not None and not outcome.timed_out and "output differs" in result.verdict.message


def _command(step: Step, result: StepResult | None, anchor: str, raw: StepResult | None = None,
             redact: Redact = str) -> dict[str, Any]:
    expected = step.expected
    view: dict[str, Any] = {
        "kind": "command",
        "anchor": anchor,
        "loc": str(step.loc),
        "command": plain(step.text),
        "setup": step.visibility is Visibility.HIDE,
        "skipped_step": step.visibility is Visibility.SKIP,
        "called_from": [str(site) for site in step.called_from],
        "expected": plain(clip_output("\n".join(expected.lines))) if expected else None,
        "expected_loc": str(expected.loc) if expected else "",
        "output": None,
        "status": "notrun",
        "label": "NOT RUN",
        "message": "",
        "details": [],
        "meta": "not run",
        "marked": None,
        "forgiven": [],
    }
    if result is not None:
        verdict = result.verdict
        view.update(
            status=verdict.status.value,
            label=verdict.status.name,
            message=clip_line(plain(verdict.message)),
            details=[(_DIFF_CLASS[diff_line_kind(d)], clip_line(d)) for d in map(plain, verdict.details)],
            meta=_meta(result),
        )
        if result.outcome is not None:
            view["output"] = plain(clip_output(result.outcome.output))
            values = forgiven_values(raw, redact) if raw is not None else []
            view["forgiven"] = values
            differs = differing_spans([plain(line) for line in expected.lines], view["output"].split("\n"),
                                      tuple(map(plain, verdict.details))) \
                if expected is not None and verdict.status is Status.FAIL and _output_failed(result) else {}
            view["marked"] = _marked(view["output"], values, differs) if values or differs else None
    return view


def _blocks(fr: FileReport, original: FileReport, number: int, markdown: mistune.Markdown,
            redact: Redact) -> list[dict]:
    """The file as it reads: prose and commentary in order, commands where they stand."""
    blocks: list[dict] = []
    by_index = {r.index: r for r in fr.results if r.index >= 0}
    raw = {r.index: r for r in original.results if r.index >= 0}
    placed: set[int] = set()
    if fr.plan is not None and original.plan is not None:
        for index, (step, source) in enumerate(zip(fr.plan.steps, original.plan.steps)):
            # Prose under @HIDE is still the README as people read it; only @SKIP greys it out.
            skipped = step.visibility is Visibility.SKIP
            if step.kind is Kind.PROSE:
                blocks.append({"kind": "prose", "html": Markup(markdown(source.text)), "skipped": skipped})
            elif step.kind in (Kind.COMMENT, Kind.PRINT):
                blocks.append({"kind": step.kind.value, "text": plain(step.text), "skipped": skipped})
            elif step.kind is Kind.COMMAND or index in by_index:
                result = by_index.get(index)
                blocks.append(_command(step, result, f"f{number}-s{index}", raw.get(index), redact))
                placed.add(index)
    for k, (result, unmasked) in enumerate(zip(fr.results, original.results)):
        if result.index not in placed:
            blocks.append(_command(result.step, result, _anchor(number, k, result), unmasked, redact))
    return blocks


def _anchor(number: int, k: int, result: StepResult) -> str:
    """The id of a command's block: by plan position when known, else by result position."""
    return f"f{number}-s{result.index}" if result.index >= 0 else f"f{number}-r{k}"


def render_html(report: RunReport, redact: Redact) -> str:
    """The report as one HTML page with its styles inline, secrets masked, everything escaped."""
    masked = redact_report(report, redact)
    markdown = _markdown(redact)
    files, failures = [], []
    for number, (fr, original) in enumerate(zip(masked.files, report.files)):
        status = file_status(fr)
        files.append({
            "anchor": f"f{number}",
            "name": fr.file,
            "status": status.value,
            "label": file_label(fr),
            "passed": fr.count(Status.PASS),
            "failed": fr.count(Status.FAIL),
            "skipped": fr.count(Status.SKIP),
            "duration": format_duration(fr.duration),
            "skipped_reason": plain(fr.skipped_reason) if fr.skipped_reason else "",
            "hints": [plain(hint) for hint in fr.hints],
            "error": plain(fr.error) if fr.error else "",
            "empty": plain(empty_reason(fr)) if nothing_checked(fr) else "",
            "lint": [{"loc": str(f.loc), "message": plain(f.message), "code": f.code} for f in fr.lint_errors],
            "lint_note": lint_note(fr),
            "blocks": _blocks(fr, original, number, markdown, redact),
        })
        for k, result in enumerate(fr.results):
            if result.verdict.status is Status.FAIL:
                failures.append({
                    "href": "#" + _anchor(number, k, result),
                    "loc": str(result.step.loc),
                    "command": plain(first_line(result.step.text)),
                    "message": plain(result.verdict.message),
                })
    totals = {s.value: masked.count(s) for s in Status}
    statuses = {file_status(fr) for fr in report.files}
    if Status.FAIL in statuses:
        overall = "fail"
    elif not totals["pass"] and not totals["updated"]:
        overall = "skip" if totals["skip"] else "empty"  # nothing checked is not a pass
    else:
        overall = "updated" if totals["updated"] else "pass"
    return _ENVIRONMENT.get_template("report.html.j2").render(
        files=files, failures=failures, totals=totals, overall=overall,
        duration=format_duration(masked.duration),
    )


def write_html(report: RunReport, path: str, redact: Redact) -> None:
    """Write the HTML report to path atomically."""
    write_atomic(path, render_html(report, redact))
