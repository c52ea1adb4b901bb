"""The terminal summary: a line per file, every failure with its difference, counts and time."""
from __future__ import annotations

import re

from runner.model import Kind, SourceLoc, Step, Visibility
from runner.report.summary import (
    file_progress_line,
    file_status,
    format_duration,
    render_summary,
)
from runner.results import FileReport, Outcome, RunReport, Status, StepResult, Verdict
from runner.secrets import Redactor

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _result(file: str, line: int, status: Status, text: str = "true", message: str = "",
            details: tuple[str, ...] = ()) -> StepResult:
    step = Step(Kind.COMMAND, SourceLoc(file, line), text, Visibility.SHOW, end_line=line)
    outcome = None if status is Status.SKIP else Outcome("", 0, 0.1)
    return StepResult(step, Verdict(status, message, details), outcome, line)


def _report() -> RunReport:
    good = FileReport("demos/quickstart.md", (
        _result("demos/quickstart.md", 3, Status.PASS),
        _result("demos/quickstart.md", 6, Status.PASS),
        _result("demos/quickstart.md", 9, Status.SKIP),
    ), 3.24)
    bad = FileReport("demos/mesh.md", (
        _result("demos/mesh.md", 4, Status.PASS),
        _result("demos/mesh.md", 8, Status.FAIL, "kubectl get pods \\\n  -n linkerd",
                "linkerd-identity-*: STATUS expected Running, got Init:CrashLoopBackOff [red]x[/red]",
                ("-linkerd-identity-a  2/2  Running", "+linkerd-identity-b  0/2  Init:CrashLoopBackOff pw-0987zz")),
    ), 75.0)
    skipped = FileReport("demos/k3d.md", (), 0.0, skipped_reason="k3d is not on PATH")
    return RunReport((good, bad, skipped), 78.3)


def test_progress_line_per_file():
    good, bad, skipped = _report().files
    assert file_progress_line(good) == "PASS demos/quickstart.md  2 passed, 0 failed, 1 skipped  (3.2s)"
    assert file_progress_line(bad) == "FAIL demos/mesh.md  1 passed, 1 failed, 0 skipped  (1m15s)"
    assert file_progress_line(skipped).startswith("SKIP demos/k3d.md")
    assert file_progress_line(skipped).endswith("skipped: k3d is not on PATH")


def test_file_status():
    good, bad, skipped = _report().files
    assert [file_status(f) for f in (good, bad, skipped)] == [Status.PASS, Status.FAIL, Status.SKIP]
    only_skips = FileReport("x.md", (_result("x.md", 1, Status.SKIP),), 0.0)
    assert file_status(only_skips) is Status.SKIP


def test_durations():
    assert [format_duration(s) for s in (0.04, 9.96, 59.9, 60.0, 3599.4)] == ["0.0s", "10.0s", "59.9s", "1m00s", "59m59s"]


def test_summary_lists_failures_counts_and_total():
    text = render_summary(_report(), Redactor(), color=False)
    assert "\x1b" not in text
    lines = text.splitlines()
    assert lines[0] == "FAIL demos/mesh.md:8  kubectl get pods -n linkerd"
    assert "linkerd-identity-*: STATUS expected Running, got Init:CrashLoopBackOff [red]x[/red]" in lines[1]
    assert lines[2].strip() == "-linkerd-identity-a  2/2  Running"
    rows = {line.split()[1]: line.split() for line in lines if line.startswith(("PASS ", "FAIL ", "SKIP "))
            and not line.startswith("FAIL demos/mesh.md:")}
    assert rows["demos/quickstart.md"][2:6] == ["2", "0", "1", "3.2s"]
    assert rows["demos/mesh.md"][2:6] == ["1", "1", "0", "1m15s"]
    assert rows["demos/k3d.md"][2:] == ["0", "0", "0", "0.0s", "skipped:", "k3d", "is", "not", "on", "PATH"]
    total = next(line.split() for line in lines if line.split()[:1] == ["total"])
    assert total == ["total", "3", "1", "1", "1m18s"]
    assert lines[-1] == "1 failed, 3 passed, 1 skipped in 1m18s"


def test_summary_masks_secrets():
    text = render_summary(_report(), Redactor(["pw-0987zz"]), color=False)
    assert "pw-0987zz" not in text
    assert "Init:CrashLoopBackOff ***" in text


def test_colour_only_when_asked_and_text_is_the_same():
    plain = render_summary(_report(), Redactor(), color=False)
    coloured = render_summary(_report(), Redactor(), color=True)
    assert "\x1b[" in coloured
    assert [line.rstrip() for line in _ANSI.sub("", coloured).splitlines()] == plain.splitlines()


def test_all_passing_run_has_no_failure_section():
    good = _report().files[0]
    text = render_summary(RunReport((good,), 3.24), Redactor(), color=False)
    assert not text.startswith("FAIL")
    assert text.splitlines()[-1] == "0 failed, 2 passed, 1 skipped in 3.2s"
