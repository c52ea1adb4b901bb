"""The terminal's account of a run: a progress line per file, then failures and a table of counts."""
from __future__ import annotations

import io
from collections.abc import Callable

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..printable import visible
from ..results import FileReport, RunReport, Status, StepResult
from ..secrets import redact_report
from ..verify.diff import diff_line_kind
from .plain import clip_line, first_line, plain

_STYLE = {Status.PASS: "green", Status.FAIL: "bold red", Status.SKIP: "yellow"}


def file_status(fr: FileReport) -> Status:
    """A file fails if it is broken or any command failed, is skipped if nothing in it passed, else passes."""
    if fr.error or fr.count(Status.FAIL):
        return Status.FAIL
    if fr.skipped_reason or (fr.results and not fr.count(Status.PASS)):
        return Status.SKIP
    return Status.PASS


def file_label(fr: FileReport) -> str:
    """PASS, FAIL or SKIP, or ERROR for a file that could not be read, so nothing in it ran."""
    return "ERROR" if fr.error else file_status(fr).name


def format_duration(seconds: float) -> str:
    """Seconds to one decimal under a minute, then minutes and seconds."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s"


def _counts(passed: int, failed: int, skipped: int) -> str:
    return f"{passed} passed, {failed} failed, {skipped} skipped"


def file_progress_line(fr: FileReport) -> str:
    """One line as each file finishes, e.g. 'PASS demos/a.md  3 passed, 0 failed, 0 skipped  (1.2s)'."""
    if fr.error:
        lines = fr.error.splitlines() or [""]
        return f"ERROR {visible(fr.file)}  not checked: {visible(lines[0])}{' …' if len(lines) > 1 else ''}"
    status = file_status(fr)
    line = (f"{status.name} {visible(fr.file)}  "
            f"{_counts(fr.count(Status.PASS), fr.count(Status.FAIL), fr.count(Status.SKIP))}  "
            f"({format_duration(fr.duration)})")
    if fr.skipped_reason:
        line += f"  skipped: {plain(fr.skipped_reason)}"
    return line


def file_progress_lines(fr: FileReport) -> list[str]:
    """The progress line, then why commands were skipped (runs of one reason as one line) and notices."""
    lines = [file_progress_line(fr)]
    if fr.interrupted:
        lines[0] += f"  {fr.interrupted}"
    if not fr.skipped_reason:
        lines += [f"  skipped {visible(span)}: {plain(reason)}" for span, reason in _skip_runs(fr.results)]
    lines += [f"  note {visible(str(loc))}: {plain(message)}" for loc, message in fr.notices]
    return lines


def _skip_runs(results: tuple[StepResult, ...]) -> list[tuple[str, str]]:
    """Consecutive skipped commands with the same reason, as ("file:first-last (N commands)", reason)."""
    runs: list[tuple[list[StepResult], str]] = []
    for result in results:
        if result.verdict.status is not Status.SKIP:
            runs.append(([], ""))
            continue
        reason = result.verdict.message.removeprefix(f"{result.step.loc}: ")
        if runs and runs[-1][0] and runs[-1][1] == reason:
            runs[-1][0].append(result)
        else:
            runs.append(([result], reason))
    spans = []
    for run, reason in runs:
        if not run:
            continue
        first, last = run[0].step.loc, run[-1].step.loc
        span = str(first) if len(run) == 1 else (
            f"{first}-{last.line} ({len(run)} commands)" if first.file == last.file else f"{first} ({len(run)} commands)")
        spans.append((span, reason))
    return spans


_DIFF_STYLE = {"header": "bold", "hunk": "cyan", "added": "green", "removed": "red", "": ""}


def _failure(result: StepResult) -> list[Text]:
    step = result.step
    head = Text()
    head.append("FAIL ", style=_STYLE[Status.FAIL])
    head.append(visible(str(step.loc)), style="bold")
    head.append("  " + visible(first_line(step.text)))
    lines = [head]
    if result.verdict.message:
        lines.append(Text("  " + clip_line(plain(result.verdict.message))))
    for detail in result.verdict.details:
        detail = clip_line(plain(detail))
        lines.append(Text("    " + detail, style=_DIFF_STYLE[diff_line_kind(detail)]))
    for site in step.called_from:
        lines.append(Text(f"  called from {visible(str(site))}", style="dim"))
    return lines


def _error(fr: FileReport) -> list[Text]:
    head = Text()
    head.append("ERROR ", style=_STYLE[Status.FAIL])
    head.append(visible(fr.file), style="bold")
    return [head, *(Text("  " + visible(line)) for line in (fr.error or "").splitlines())]


def failure_text(result: StepResult) -> str:
    """A failed command as the summary shows it, in plain text: for the pytest plugin's reports."""
    return "\n".join(line.plain for line in _failure(result))


def _table(report: RunReport) -> Table:
    table = Table(box=box.SIMPLE, show_footer=True, show_edge=False, pad_edge=False)
    table.add_column("", footer="")
    table.add_column("file", footer="total")
    for name, status in (("passed", Status.PASS), ("failed", Status.FAIL), ("skipped", Status.SKIP)):
        table.add_column(name, justify="right", footer=str(report.count(status)))
    table.add_column("time", justify="right", footer=format_duration(report.duration))
    table.add_column("note")
    for fr in report.files:
        status = file_status(fr)
        table.add_row(
            Text(file_label(fr), style=_STYLE[status]),
            Text(visible(fr.file)),
            str(fr.count(Status.PASS)),
            Text(str(fr.count(Status.FAIL)), style=_STYLE[Status.FAIL] if fr.count(Status.FAIL) else ""),
            str(fr.count(Status.SKIP)),
            format_duration(fr.duration),
            Text(f"skipped: {plain(fr.skipped_reason)}" if fr.skipped_reason
                 else "not checked: see above" if fr.error else ""),
        )
    return table


def render_summary(report: RunReport, redact: Callable[[str], str], *, color: bool) -> str:
    """Every failure with its message and difference, a table of counts per file, and the totals."""
    report = redact_report(report, redact)
    buffer = io.StringIO()
    # Wide and soft-wrapped: diff lines and paths must reach CI logs unbroken.
    console = Console(file=buffer, force_terminal=color, no_color=not color,
                      color_system="standard" if color else None, width=200,
                      highlight=False, emoji=False, markup=False, legacy_windows=False)
    for fr in report.files:
        if fr.error:
            for line in _error(fr):
                console.print(line, soft_wrap=True)
            console.print()
    failures = [r for fr in report.files for r in fr.results if r.verdict.status is Status.FAIL]
    for result in failures:
        for line in _failure(result):
            console.print(line, soft_wrap=True)
        console.print()
    console.print(_table(report))
    failed, passed, skipped = (report.count(s) for s in (Status.FAIL, Status.PASS, Status.SKIP))
    total = Text()
    total.append(f"{failed} failed", style=_STYLE[Status.FAIL] if failed else "")
    total.append(", ")
    total.append(f"{passed} passed", style=_STYLE[Status.PASS] if passed else "")
    total.append(f", {skipped} skipped")
    errors = sum(1 for fr in report.files if fr.error)
    if errors:
        total.append(f", {errors} error{'s' if errors != 1 else ''}", style=_STYLE[Status.FAIL])
    total.append(f" in {format_duration(report.duration)}")
    console.print(total, soft_wrap=True)
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())
