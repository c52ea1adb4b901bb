"""GitHub annotations point at the failing command's lines, escaped as the runner expects."""
from __future__ import annotations

import re

from conftest import REPO, command_step

from runner.report.annotations import (
    DETAIL_LINE_LIMIT,
    github_annotations,
    in_github_actions,
)
from runner.results import FileReport, Outcome, RunReport, Status, StepResult, Verdict
from runner.secrets import Redactor

_LINE = re.compile(r"^::(error|warning) ((?:[A-Za-z]+=[^,:]*)(?:,[A-Za-z]+=[^,:]*)*)::(.*)$")


def _unescape(text: str) -> str:
    return (text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":")
            .replace("%2C", ",").replace("%25", "%"))


def _parse(line: str) -> tuple[str, dict[str, str], str]:
    match = _LINE.match(line)
    assert match, line
    props = dict(p.split("=", 1) for p in match.group(2).split(","))
    return match.group(1), {k: _unescape(v) for k, v in props.items()}, _unescape(match.group(3))


def _report(details: tuple[str, ...] = ("-Running", "+Init:Error, 50%")) -> RunReport:
    results = (
        StepResult(command_step("docs/w.md", 3, "true"), Verdict(Status.PASS), Outcome("", 0, 0.1), 1),
        StepResult(command_step("docs/w.md", 7, "kubectl get pods, now: 100%", ("x", "x", "x")),
                   Verdict(Status.FAIL, "STATUS expected Running, got Init:Error with tok-ABCD-1234", details),
                   Outcome("", 0, 0.2), 2),
        StepResult(command_step("docs/w.md", 12, "false"), Verdict(Status.FAIL, "exit status 1, expected 0"),
                   Outcome("", 1, 0.1), 3),
    )
    skipped = FileReport("docs/k3d.md", (), 0.0, skipped_reason="k3d is not on PATH")
    return RunReport((FileReport("docs/w.md", results, 0.4), skipped), 0.4)


def test_one_error_per_failed_command_with_its_lines():
    lines = github_annotations(_report(), Redactor())
    parsed = [_parse(line) for line in lines]
    errors = [p for p in parsed if p[0] == "error"]
    assert [(p[1]["file"], p[1]["line"], p[1].get("endLine")) for p in errors] == [
        ("docs/w.md", "7", "10"), ("docs/w.md", "12", None)]
    assert errors[0][1]["title"] == "demorun: kubectl get pods, now: 100%"
    assert errors[0][2] == "STATUS expected Running, got Init:Error with tok-ABCD-1234\n-Running\n+Init:Error, 50%"
    assert errors[1][2] == "exit status 1, expected 0"


def test_escaping_keeps_each_annotation_on_one_line():
    for line in github_annotations(_report(), Redactor()):
        assert "\n" not in line and "\r" not in line
        _parse(line)


def test_skipped_file_is_a_warning():
    warnings = [_parse(line) for line in github_annotations(_report(), Redactor()) if line.startswith("::warning")]
    assert [(w[1]["file"], w[2]) for w in warnings] == [("docs/k3d.md", "k3d is not on PATH")]


def test_secrets_are_masked():
    lines = github_annotations(_report(), Redactor(["tok-ABCD-1234"]))
    assert not any("tok-ABCD-1234" in line for line in lines)
    assert any("with ***" in line for line in lines)


def test_long_differences_are_cut():
    details = tuple(f"+line {i}" for i in range(DETAIL_LINE_LIMIT * 3))
    error = next(_parse(line) for line in github_annotations(_report(details), Redactor()))
    message = error[2].splitlines()
    assert len(message) == DETAIL_LINE_LIMIT + 2
    assert f"{DETAIL_LINE_LIMIT * 2} more lines" in message[-1]


def test_only_github_actions_asks_for_annotations():
    assert in_github_actions({"GITHUB_ACTIONS": "true"})
    assert not in_github_actions({"GITHUB_ACTIONS": "false"})
    assert not in_github_actions({"CI": "true"})


def test_paths_are_relative_to_the_repository_root_wherever_demorun_ran(tmp_path, monkeypatch):
    from runner.report.annotations import repository_path, repository_root

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "docs" / "sub").mkdir(parents=True)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    monkeypatch.chdir(repo / "docs")
    root = repository_root()
    assert root == str(repo.resolve())
    report = RunReport((FileReport("./sub/w.md", (
        StepResult(command_step("./sub/w.md", 4, "false"), Verdict(Status.FAIL, "exit status 1"),
                   Outcome("", 1, 0.1), 0),), 0.1),), 0.1)
    [line] = github_annotations(report, Redactor())
    assert _parse(line)[1]["file"] == "docs/sub/w.md"
    assert repository_path(str(tmp_path / "elsewhere.md"), root) == str(tmp_path / "elsewhere.md")
    assert repository_root({"GITHUB_WORKSPACE": str(repo / "docs")}) == str((repo / "docs").resolve())


def test_a_broken_workshop_is_annotated_at_the_line_its_error_names():
    error = "docs/b.md has 1 error(s); nothing was run\ndocs/b.md:7: error: cannot import 'x.sh' [missing-import]"
    broken = FileReport("docs/b.md", (), 0.0, error=error)
    [line] = github_annotations(RunReport((broken,), 0.0), Redactor(), root=str(REPO))
    kind, props, message = _parse(line)
    assert (kind, props["file"], props["line"]) == ("error", "docs/b.md", "7")
    assert message == error
    unnamed = FileReport("docs/c.md", (), 0.0, error="docs/c.md: its worker process ended unexpectedly")
    assert _parse(github_annotations(RunReport((unnamed,), 0.0), Redactor(), root=str(REPO))[0])[1]["line"] == "1"


def test_lint_errors_are_errors_empty_files_warnings_or_under_strict_errors_and_updates_notices():
    from runner.model import Finding, Severity, SourceLoc

    finding = Finding(SourceLoc("docs/w.md", 4), Severity.ERROR, "unknown-directive", "'@SHWO'; did you mean @SHOW?")
    updated = StepResult(command_step("docs/w.md", 7, "echo one", ("two",)),
                         Verdict(Status.UPDATED, "docs/w.md:7: ## block at docs/w.md:8 rewritten with the real output"),
                         Outcome("one\n", 0, 0.1), 1)
    empty = "no runnable command: line 5: ```console fence is not run; use ```bash"
    for strict, kind in ((False, "warning"), (True, "error")):
        report = RunReport((FileReport("docs/w.md", (updated,), 0.1, findings=(finding,), strict=strict),
                            FileReport("docs/README.md", (), 0.0, empty=empty, strict=strict)), 0.1)
        lines = github_annotations(report, Redactor(), root=str(REPO))
        assert "::error file=docs/w.md,line=4,title=demorun lint%3A unknown-directive::'@SHWO'; did you mean " \
               "@SHOW?" in lines
        assert f"::{kind} file=docs/README.md,line=1,title=demorun%3A nothing to run::{empty}" in lines
        assert "::notice file=docs/w.md,line=7,endLine=8,title=demorun%3A echo one::docs/w.md:7: ## block at " \
               "docs/w.md:8 rewritten with the real output" in lines
