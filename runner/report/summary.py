"""The terminal's account of a run: a progress line per file, then failures and a table of counts."""
from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..printable import visible
from ..results import FileReport, RunReport, Status, StepResult
from ..secrets import redact_report
from ..verify.diff import diff_line_kind
from ..verify.normalise import normalise
from .plain import clip_line, first_line, plain

LINT_SHOWN = 20  # lint errors listed one by one per file; the rest are counted (`demorun lint` lists all)
_STYLE = {Status.PASS: "green", Status.FAIL: "bold red", Status.SKIP: "yellow", Status.UPDATED: "cyan",
          Status.EMPTY: "yellow"}
STRICTLY = "--strict: a failure"
LINT_FAILS = "a failure"  # check fails a file on its lint errors by default; run and present go on


def nothing_checked(fr: FileReport) -> bool:
    """A file that could be read but held nothing to run (a reason says where its fences are)."""
    return not fr.error and (fr.empty is not None or (not fr.results and not fr.skipped_reason))


def file_status(fr: FileReport) -> Status:
    """FAIL if it is broken, a command failed, it has lint errors or (--strict) nothing to run;
    EMPTY if nothing in it could run; SKIP if nothing in it passed; UPDATED if `--update` wrote
    a block of it; else PASS."""
    empty = nothing_checked(fr)
    if fr.error or fr.count(Status.FAIL) or fr.lint_errors or (fr.strict and empty):
        return Status.FAIL
    if empty:
        return Status.EMPTY
    if fr.skipped_reason or not (fr.count(Status.PASS) or fr.count(Status.UPDATED)):
        return Status.SKIP
    return Status.UPDATED if fr.count(Status.UPDATED) else Status.PASS


def file_label(fr: FileReport) -> str:
    """The status's word, or ERROR for a file that could not be read and EMPTY for one with nothing
    to run, whether or not --strict fails it."""
    if fr.error:
        return "ERROR"
    return "EMPTY" if nothing_checked(fr) else file_status(fr).name


def empty_reason(fr: FileReport) -> str:
    """Why nothing in a file ran, without the words its label already says."""
    return (fr.empty or "no command ran").removeprefix("no runnable command: ")


def lint_note(fr: FileReport) -> str:
    errors = len(fr.lint_errors)
    if not errors:
        return ""
    return f"{errors} lint error{'s' if errors != 1 else ''}" + f" ({LINT_FAILS})"


def format_duration(seconds: float) -> str:
    """Seconds to one decimal under a minute, then minutes and seconds."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s"


def _counts(fr: FileReport | RunReport) -> str:
    said = f"{fr.count(Status.PASS)} passed, {fr.count(Status.FAIL)} failed, {fr.count(Status.SKIP)} skipped"
    updated = fr.count(Status.UPDATED)
    return said + (f", {updated} updated" if updated else "")


def file_progress_line(fr: FileReport) -> str:
    """One line as each file finishes, e.g. 'PASS demos/a.md  3 passed, 0 failed, 0 skipped  (1.2s)'."""
    if fr.error:
        lines = fr.error.splitlines() or [""]
        return f"ERROR {visible(fr.file)}  not checked: {visible(lines[0])}{' …' if len(lines) > 1 else ''}"
    if nothing_checked(fr):
        line = f"EMPTY {visible(fr.file)}  nothing to run: {plain(empty_reason(fr))}"
        return line + (f"  ({STRICTLY})" if fr.strict else "")
    line = f"{file_status(fr).name} {visible(fr.file)}  {_counts(fr)}  ({format_duration(fr.duration)})"
    if fr.lint_errors:
        line += f"  {lint_note(fr)}"
    if fr.skipped_reason:
        line += f"  skipped: {plain(fr.skipped_reason)}"
    return line


def file_progress_lines(fr: FileReport) -> list[str]:
    """The progress line, then how to get what a skipped file lacks, why commands were skipped
    (runs of one reason as one line) and notices."""
    lines = [file_progress_line(fr)]
    if fr.interrupted:
        lines[0] += f"  {fr.interrupted}"
    lines += [f"  - {plain(hint)}" for hint in fr.hints]
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
        count = f"({len(run)} commands)"
        span = str(first) if len(run) == 1 else (
            f"{first}-{last.line} {count}" if first.file == last.file else f"{first} {count}")
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


@dataclass(frozen=True)
class ForgivenValue:
    """A forgiven value as a report shows it: texts whose lines hold a secret are shown as ***."""

    line: int
    start: int
    end: int
    rule: str
    actual: str
    expected: str
    placed: bool  # its line is shown as it was, so start and end mark it there


def forgiven_values(result: StepResult, redact: Callable[[str], str]) -> list[ForgivenValue]:
    """What the verdict forgave, with the texts a reader may see.

    A value is cut out of a line, and a cut can hold part of a secret that
    masking the cut alone would miss: a value whose line (or `##` block)
    holds a secret shows as ***.
    """
    outcome, expected = result.outcome, result.step.expected
    if not result.verdict.forgiven or outcome is None:
        return []
    lines = normalise(outcome.output)
    block = "\n".join(expected.lines) if expected is not None else ""
    block_clean = redact(block) == block
    out = []
    for f in result.verdict.forgiven:
        line = lines[f.line - 1] if 0 < f.line <= len(lines) else ""
        clean = redact(line) == line
        out.append(ForgivenValue(f.line, f.start, f.end, f.rule, line[f.start:f.end] if clean else "***",
                                 f.expected if block_clean else "***", clean))
    return out


def _forgiven(result: StepResult, redact: Callable[[str], str]) -> list[Text]:
    head = Text()
    head.append("FORGIVEN ", style=_STYLE[Status.SKIP])
    head.append(str(result.step.loc), style="bold")
    head.append("  " + plain(first_line(redact(result.step.text))))
    lines = [head]
    for v in forgiven_values(result, redact):
        was = f" (was {plain(v.expected)})" if v.expected else ""
        lines.append(Text(clip_line(f"    line {v.line}: {plain(v.actual)}{was}: {v.rule}")))
    return lines


def _error(fr: FileReport) -> list[Text]:
    head = Text()
    head.append("ERROR ", style=_STYLE[Status.FAIL])
    head.append(visible(fr.file), style="bold")
    return [head, *(Text("  " + visible(line)) for line in (fr.error or "").splitlines())]


def _strict_failures(fr: FileReport) -> list[Text]:
    """What fails a file besides its commands: its lint errors, or (--strict) that it has nothing to run."""
    lines = []
    if fr.strict and nothing_checked(fr):
        head = Text()
        head.append("EMPTY ", style=_STYLE[Status.FAIL])
        head.append(fr.file, style="bold")
        lines += [head, Text(f"  nothing to run: {plain(empty_reason(fr))} ({STRICTLY})")]
    for finding in fr.lint_errors[:LINT_SHOWN]:
        head = Text()
        head.append("LINT ", style=_STYLE[Status.FAIL])
        head.append(str(finding.loc), style="bold")
        lines += [head, Text(f"  {clip_line(plain(finding.message))} [{finding.code}] ({LINT_FAILS})")]
    more = len(fr.lint_errors) - LINT_SHOWN
    if more > 0:
        lines.append(Text(f"LINT … and {more} more in {fr.file}: `demorun lint {fr.file}` lists them all"))
    return lines


def _updated(result: StepResult) -> Text:
    line = Text()
    line.append("UPDATED ", style=_STYLE[Status.UPDATED])
    line.append(str(result.step.loc), style="bold")
    line.append(f"  {plain(first_line(result.step.text))}")
    said = result.verdict.message.removeprefix(f"{result.step.loc}: ")
    line.append(f"  ({plain(said)})", style="dim")
    return line


def failure_text(result: StepResult) -> str:
    """A failed command as the summary shows it, in plain text: for the pytest plugin's reports."""
    return "\n".join(line.plain for line in _failure(result))


def _note(fr: FileReport) -> Text:
    if fr.error:
        return Text("not checked: see above")
    if nothing_checked(fr):
        return Text("nothing to run: see above")
    said = [f"skipped: {plain(fr.skipped_reason)}"] if fr.skipped_reason else []
    said += [lint_note(fr)] if fr.lint_errors else []
    return Text("; ".join(said))


def _table(report: RunReport) -> Table:
    table = Table(box=box.SIMPLE, show_footer=True, show_edge=False, pad_edge=False)
    table.add_column("", footer="")
    table.add_column("file", footer="total")
    shown = [("passed", Status.PASS), ("failed", Status.FAIL), ("skipped", Status.SKIP)]
    if report.count(Status.UPDATED):
        shown.append(("updated", Status.UPDATED))
    for name, status in shown:
        table.add_column(name, justify="right", footer=str(report.count(status)))
    table.add_column("time", justify="right", footer=format_duration(report.duration))
    table.add_column("note")
    for fr in report.files:
        counts = [Text(str(fr.count(s)), style=_STYLE[Status.FAIL] if s is Status.FAIL and fr.count(s) else "")
                  for _, s in shown]
        table.add_row(Text(file_label(fr), style=_STYLE[file_status(fr)]), Text(visible(fr.file)), *counts,
                      format_duration(fr.duration), _note(fr))
    return table


def _total(report: RunReport) -> Text:
    """The last line: counts of commands, then of files that are not what their commands say."""
    failed, passed, skipped = (report.count(s) for s in (Status.FAIL, Status.PASS, Status.SKIP))
    total = Text()
    total.append(f"{failed} failed", style=_STYLE[Status.FAIL] if failed else "")
    total.append(", ")
    total.append(f"{passed} passed", style=_STYLE[Status.PASS] if passed else "")
    total.append(f", {skipped} skipped")
    updated = report.count(Status.UPDATED)
    if updated:
        total.append(f", {updated} updated", style=_STYLE[Status.UPDATED])
    files = report.files
    for count, what, strictly in (
            (sum(1 for fr in files if nothing_checked(fr)), "empty file", any(fr.strict for fr in files)),
            (sum(len(fr.lint_errors) for fr in files), "lint error", True)):
        if count:
            note = STRICTLY if what == "empty file" else LINT_FAILS
            total.append(f", {count} {what}{'s' if count != 1 else ''}" + (f" ({note})" if strictly else ""),
                         style=_STYLE[Status.FAIL] if strictly else _STYLE[Status.SKIP])
    errors = sum(1 for fr in files if fr.error)
    if errors:
        total.append(f", {errors} error{'s' if errors != 1 else ''}", style=_STYLE[Status.FAIL])
    total.append(f" in {format_duration(report.duration)}")
    return total


def render_summary(report: RunReport, redact: Callable[[str], str], *, color: bool, verbose: bool = False) -> str:
    """Broken files, every failure with its message and difference, what --update wrote, a table
    of counts per file, and the totals.

    `verbose` first lists, command by command, the values that differed from
    the `##` block but were forgiven, and the rule that forgave each.
    """
    raw = report
    report = redact_report(report, redact)
    buffer = io.StringIO()
    # Wide and soft-wrapped: diff lines and paths must reach CI logs unbroken.
    console = Console(file=buffer, force_terminal=color, no_color=not color,
                      color_system="standard" if color else None, width=200,
                      highlight=False, emoji=False, markup=False, legacy_windows=False)
    for fr in report.files:
        blocks = (_error(fr) if fr.error else []) + (_strict_failures(fr) if not fr.error else [])
        for line in blocks:
            console.print(line, soft_wrap=True)
        if blocks:
            console.print()
    if verbose:
        for result in (r for fr in raw.files for r in fr.results if r.verdict.forgiven):
            for line in _forgiven(result, redact):
                console.print(line, soft_wrap=True)
            console.print()
    for result in (r for fr in report.files for r in fr.results if r.verdict.status is Status.FAIL):
        for line in _failure(result):
            console.print(line, soft_wrap=True)
        console.print()
    updated = [r for fr in report.files for r in fr.results if r.verdict.status is Status.UPDATED]
    for result in updated:
        console.print(_updated(result), soft_wrap=True)
    if updated:
        console.print()
    console.print(_table(report))
    console.print(_total(report), soft_wrap=True)
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())
