"""The HTML report's words for EMPTY, UPDATED, lint errors and a skipped file's install hints."""
from __future__ import annotations

import re

from conftest import command_step

from runner.model import Finding, Severity, SourceLoc
from runner.report.html import render_html
from runner.results import FileReport, Outcome, RunReport, Status, StepResult, Verdict
from runner.secrets import Redactor

EMPTY = "no runnable command: line 5: ```console fence is not run; use ```bash"


def _badge(page: str) -> str:
    return re.search(r'<header>\s*<h1><span class="badge (\w+)">', page).group(1)


def test_a_run_with_nothing_checked_is_no_pass_and_says_where_the_fences_are():
    page = render_html(RunReport((FileReport("README.md", (), 0.0, empty=EMPTY),), 0.1), Redactor())
    assert _badge(page) == "empty"
    assert '<span class="badge empty">EMPTY</span>' in page
    assert "Nothing to run: line 5: ```console fence is not run; use ```bash" in page
    strict = render_html(RunReport((FileReport("README.md", (), 0.0, empty=EMPTY, strict=True),), 0.1), Redactor())
    assert _badge(strict) == "fail" and '<span class="badge fail">EMPTY</span>' in strict


def test_updated_commands_lint_errors_and_install_hints_are_shown():
    updated = StepResult(command_step("w.md", 2, "echo one", ("two",)),
                         Verdict(Status.UPDATED, "w.md:2: ## block at w.md:3 rewritten with the real output"),
                         Outcome("one\n", 0, 0.1), 0)
    lint = Finding(SourceLoc("w.md", 1), Severity.ERROR, "unknown-directive", "'@SHWO'; did you mean @SHOW?")
    skipped = FileReport("k.md", (), 0.0, skipped_reason="missing tool k3d (@requires at k.md:1)",
                         hints=("k3d: not on PATH; install it: https://k3d.io/#installation",))
    page = render_html(RunReport((FileReport("w.md", (updated,), 0.1, findings=(lint,)), skipped), 0.1), Redactor())
    assert _badge(page) == "fail"  # a lint error fails the file, its command UPDATED all the same
    assert '<span class="badge updated">UPDATED</span>' in page and "rewritten with the real output" in page
    assert "w.md:1: &#39;@SHWO&#39;; did you mean @SHOW? <code>[unknown-directive]</code>" in page
    assert "1 lint error" in page
    assert "<li>k3d: not on PATH; install it: https://k3d.io/#installation</li>" in page
