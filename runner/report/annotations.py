"""GitHub Actions workflow commands that pin each failure to its file and line in the pull request."""
from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping

from ..printable import visible
from ..results import FileReport, RunReport, Status, StepResult
from ..secrets import redact_report
from .plain import clip_line, first_line, plain
from .summary import LINT_SHOWN, nothing_checked

# An annotation is read in a narrow box; the full difference is in the log and reports.
DETAIL_LINE_LIMIT = 30


def in_github_actions(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the run is a GitHub Actions job, which reads annotations from stdout."""
    return (os.environ if environ is None else environ).get("GITHUB_ACTIONS") == "true"


def repository_root(environ: Mapping[str, str] | None = None, cwd: str | None = None) -> str:
    """The folder annotation paths are relative to: the checkout GitHub names, else the enclosing git work tree.

    GitHub places an annotation only when its path is relative to the repository root,
    whatever folder the job ran demorun from.
    """
    environ = os.environ if environ is None else environ
    if environ.get("GITHUB_WORKSPACE"):
        return os.path.realpath(environ["GITHUB_WORKSPACE"])
    start = os.path.realpath(cwd or os.getcwd())
    for folder in (start, *_parents(start)):
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
    return start


def _parents(path: str) -> list[str]:
    found = []
    while (parent := os.path.dirname(path)) != path:
        found.append(parent)
        path = parent
    return found


def repository_path(file: str, root: str) -> str:
    """`file` relative to `root` with forward slashes; unchanged when it lies outside the repository."""
    # The folder is resolved like the root; a linked file keeps its own name, where GitHub shows it.
    full = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(file))), os.path.basename(file))
    if full != root and not full.startswith(root.rstrip(os.sep) + os.sep):
        return file
    return os.path.relpath(full, root).replace(os.sep, "/")


def _data(text: str) -> str:
    """The escaping GitHub's runner undoes in a command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """The escaping GitHub's runner undoes in a command's name=value properties."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _command(kind: str, message: str, **properties: str | int) -> str:
    props = ",".join(f"{k}={_property(visible(str(v)))}" for k, v in properties.items())
    return f"::{kind} {props}::{_data(visible(message))}"


def _message(result: StepResult) -> str:
    details = list(result.verdict.details)
    if len(details) > DETAIL_LINE_LIMIT:
        cut = len(details) - DETAIL_LINE_LIMIT
        details = details[:DETAIL_LINE_LIMIT] + [f"… {cut} more lines in the log"]
    return plain("\n".join(map(clip_line, [result.verdict.message or "failed", *details])))


def _first_line_named(message: str, file: str) -> int:
    """The line of the first `file:N:` a parse error names, so the annotation sits on it; else 1."""
    found = re.search(rf"^{re.escape(file)}:(\d+):", message, re.M)
    return int(found.group(1)) if found else 1


def github_annotations(report: RunReport, redact: Callable[[str], str], root: str | None = None) -> list[str]:
    """One ::error line per failed command or broken file, ::warning for a skipped or empty file
    (::error under --strict), ::error for each lint error, ::notice for each `##` block --update
    wrote; paths relative to the repository `root` (found from the working folder by default)."""
    report = redact_report(report, redact)
    root = root or repository_root()
    lines = []
    for fr in report.files:
        lines += _file_annotations(fr, root)
        for result in fr.results:
            if result.verdict.status not in (Status.FAIL, Status.UPDATED):
                continue
            step = result.step
            end = step.expected.end_line if step.expected else step.end_line
            properties: dict[str, str | int] = {"file": repository_path(step.loc.file, root),
                                                "line": step.loc.line}
            if end > step.loc.line:
                properties["endLine"] = end
            properties["title"] = f"demorun: {plain(first_line(step.text))}"
            if result.verdict.status is Status.UPDATED:
                lines.append(_command("notice", plain(result.verdict.message), **properties))
            else:
                lines.append(_command("error", _message(result), **properties))
    return lines


def _file_annotations(fr: FileReport, root: str) -> list[str]:
    """What is said of a file as a whole: broken, skipped, nothing to run, lint errors."""
    path = repository_path(fr.file, root)
    lines = []
    if fr.error:
        lines.append(_command("error", plain(fr.error), file=path,
                              line=_first_line_named(fr.error, fr.file), title="demorun: workshop not checked"))
    if fr.skipped_reason and not fr.count(Status.PASS) and not fr.count(Status.FAIL):
        lines.append(_command("warning", plain("\n".join([fr.skipped_reason, *fr.hints])), file=path, line=1,
                              title="demorun: workshop skipped"))
    strictly = "error" if fr.strict else "warning"
    if nothing_checked(fr):
        lines.append(_command(strictly, plain(fr.empty or "no command ran"), file=path, line=1,
                              title="demorun: nothing to run"))
    for finding in fr.lint_errors[:LINT_SHOWN]:  # lint errors fail check: always errors
        lines.append(_command("error", plain(finding.message), file=repository_path(finding.loc.file, root),
                              line=finding.loc.line, title=f"demorun lint: {finding.code}"))
    more = len(fr.lint_errors) - LINT_SHOWN
    if more > 0:
        lines.append(_command("error", f"and {more} more lint errors: `demorun lint {fr.file}` lists them all",
                              file=path, line=1, title="demorun lint"))
    return lines
