"""The terminal summary: a line per file, every failure with its difference, counts and time."""
from __future__ import annotations

import re

from runner.model import Kind, SourceLoc, Step, Visibility
from runner.report.summary import (
    file_progress_line,
    file_progress_lines,
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
    assert [format_duration(s) for s in (0.04, 9.96, 59.9, 60.0, 3599.4)] == \
        ["0.0s", "10.0s", "59.9s", "1m00s", "59m59s"]


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


# Nothing checked is not a pass; --strict and --update in every line of the summary.

def _lint_error(file: str, line: int):
    from runner.model import Finding, Severity

    return Finding(SourceLoc(file, line), Severity.ERROR, "unknown-directive",
                   "'@SHWO' is no directive; did you mean @SHOW?")


def test_a_file_with_nothing_to_run_is_empty_never_pass_and_fails_strict():
    why = "line 5: ```console fence is not run; use ```bash"
    empty = FileReport("README.md", (), 0.0, empty=f"no runnable command: {why}")
    assert file_status(empty) is Status.EMPTY
    assert file_progress_line(empty) == f"EMPTY README.md  nothing to run: {why}"
    text = render_summary(RunReport((empty,), 0.1), Redactor(), color=False)
    assert "PASS" not in text and text.splitlines()[-1] == "0 failed, 0 passed, 0 skipped, 1 empty file in 0.1s"
    strict = FileReport("README.md", (), 0.0, empty=empty.empty, strict=True)
    assert file_status(strict) is Status.FAIL
    assert file_progress_line(strict).endswith("(--strict: a failure)")
    text = render_summary(RunReport((strict,), 0.1), Redactor(), color=False)
    assert text.startswith("EMPTY README.md\n  nothing to run: line 5:")
    assert text.splitlines()[-1] == "0 failed, 0 passed, 0 skipped, 1 empty file (--strict: a failure) in 0.1s"
    assert file_status(FileReport("x.md", (), 0.0)) is Status.EMPTY  # no results and no reason: still not a pass


def test_lint_errors_are_counted_and_fail_the_file_with_or_without_strict():
    results = (_result("w.md", 3, Status.PASS),)
    for strict in (False, True):
        linted = FileReport("w.md", results, 0.5, findings=(_lint_error("w.md", 1),), strict=strict)
        assert file_status(linted) is Status.FAIL
        assert file_progress_line(linted) == \
            "FAIL w.md  1 passed, 0 failed, 0 skipped  (0.5s)  1 lint error (a failure)"
        text = render_summary(RunReport((linted,), 0.5), Redactor(), color=False)
        assert text.splitlines()[-1] == "0 failed, 1 passed, 0 skipped, 1 lint error (a failure) in 0.5s"
        assert text.startswith("LINT w.md:1\n  '@SHWO' is no directive; did you mean @SHOW? "
                               "[unknown-directive] (a failure")


def test_updated_commands_are_their_own_word_and_make_the_file_updated():
    updated = StepResult(_result("w.md", 3, Status.UPDATED).step,
                         Verdict(Status.UPDATED, "w.md:3: ## block at w.md:4 rewritten with the real output"),
                         Outcome("", 0, 0.1), 3)
    fr = FileReport("w.md", (_result("w.md", 1, Status.PASS), updated), 0.2)
    assert file_status(fr) is Status.UPDATED
    assert file_progress_line(fr) == "UPDATED w.md  1 passed, 0 failed, 0 skipped, 1 updated  (0.2s)"
    text = render_summary(RunReport((fr,), 0.2), Redactor(), color=False)
    assert "UPDATED w.md:3  true  (## block at w.md:4 rewritten with the real output)" in text
    assert next(line for line in text.splitlines() if line.split()[:1] == ["total"]).split()[1:5] == \
        ["1", "0", "0", "1"]
    assert text.splitlines()[-1] == "0 failed, 1 passed, 0 skipped, 1 updated in 0.2s"
    alongside = FileReport("w.md", (updated, _result("w.md", 9, Status.FAIL)), 0.2)
    assert file_status(alongside) is Status.FAIL  # what --update could not fix still fails the file


def test_a_skipped_file_lists_how_to_get_each_tool():
    fr = FileReport("k.md", (), 0.0, skipped_reason="missing tool k3d (@requires at k.md:1)",
                    hints=("k3d: not on PATH (@requires at k.md:1); install it: https://k3d.io/#installation",))
    assert file_progress_lines(fr)[1] == "  - k3d: not on PATH (@requires at k.md:1); install it: https://k3d.io/#installation"


def test_under_strict_many_lint_errors_are_listed_up_to_twenty_then_counted():
    findings = tuple(_lint_error("w.md", n) for n in range(1, 31))
    fr = FileReport("w.md", (_result("w.md", 40, Status.PASS),), 0.5, findings=findings, strict=True)
    text = render_summary(RunReport((fr,), 0.5), Redactor(), color=False)
    assert text.count("LINT w.md:") == 20
    assert "LINT … and 10 more in w.md: `demorun lint w.md` lists them all" in text
