"""JUnit reports are read back by a real JUnit consumer: counts, names, failure text, no secrets."""
from __future__ import annotations

import os

import pytest
from conftest import command_step
from junitparser import Failure, JUnitXml, Skipped

from runner.errors import DemorunError
from runner.report.junit import write_junit
from runner.results import FileReport, Outcome, RunReport, Status, StepResult, Verdict
from runner.secrets import Redactor

SECRET = "tok-Hx81-secret"


def _report() -> RunReport:
    a = "demos/a.md"
    results = (
        StepResult(command_step(a, 5, "echo hi", ("hi",)), Verdict(Status.PASS), Outcome("hi\r\n", 0, 0.25), 1),
        StepResult(
            command_step(a, 9, f"curl -H 'Authorization: {SECRET}' \\\n  http://svc/", ("ok",)),
            Verdict(Status.FAIL, "output differs", ("-ok", f"+denied for {SECRET}")),
            Outcome(f"\x1b[31mdenied\x1b[0m for {SECRET}\x07\r\n", 22, 1.5),
            3,
        ),
        StepResult(command_step(a, 14, "sleep 600"), Verdict(Status.SKIP, "skipped by @SKIP"), None, 4),
    )
    skipped_file = FileReport("demos/k3d.md", (), 0.0, skipped_reason="k3d is not on PATH")
    return RunReport((FileReport(a, results, 2.0), skipped_file), 2.1)


@pytest.fixture
def xml(tmp_path):
    path = tmp_path / "junit.xml"
    write_junit(_report(), str(path), Redactor([SECRET]))
    return path


def test_counts_per_suite_and_in_total(xml):
    doc = JUnitXml.fromfile(str(xml))
    suites = {s.name: s for s in doc}
    assert set(suites) == {"demos/a.md", "demos/k3d.md"}
    a = suites["demos/a.md"]
    assert (a.tests, a.failures, a.skipped, a.errors) == (3, 1, 1, 0)
    assert a.time == pytest.approx(2.0)
    assert (suites["demos/k3d.md"].tests, suites["demos/k3d.md"].skipped) == (1, 1)
    doc.update_statistics()
    assert (doc.tests, doc.failures, doc.skipped) == (4, 1, 2)


def test_one_case_per_command_named_by_the_command_its_place_in_attributes(xml):
    cases = list(next(iter(JUnitXml.fromfile(str(xml)))))
    assert [c.name for c in cases] == [
        "echo hi",
        "curl -H 'Authorization: ***' http://svc/",
        "sleep 600",
    ]
    assert [c._elem.get("line") for c in cases] == ["5", "9", "14"]
    assert cases[1].time == pytest.approx(1.5)
    assert cases[0].is_passed and not cases[0].result


def test_failure_carries_message_and_difference(xml):
    case = list(next(iter(JUnitXml.fromfile(str(xml)))))[1]
    (failure,) = case.result
    assert isinstance(failure, Failure)
    assert failure.message == "output differs"
    assert failure.text.splitlines()[:3] == ["output differs", "-ok", "+denied for ***"]
    assert "demos/a.md:10" in failure.text
    assert "exit status 22" in failure.text
    assert case.system_out.strip() == "denied for ***"


def test_skips_carry_their_reason(xml):
    doc = {s.name: list(s) for s in JUnitXml.fromfile(str(xml))}
    (skip,) = doc["demos/a.md"][2].result
    assert isinstance(skip, Skipped) and skip.message == "skipped by @SKIP"
    (file_skip,) = doc["demos/k3d.md"][0].result
    assert file_skip.message == "k3d is not on PATH"


def test_no_secret_and_no_control_character_reaches_the_file(xml):
    data = xml.read_bytes()
    assert SECRET.encode() not in data
    assert b"***" in data
    assert not any(byte < 0x20 and byte not in b"\t\n\r" for byte in data)


def test_rewrite_replaces_whole_file_and_leaves_no_temporary(tmp_path, xml):
    xml.write_text("old")
    write_junit(_report(), str(xml), Redactor())
    assert SECRET in xml.read_text()  # no secrets given, nothing masked
    assert sorted(os.listdir(tmp_path)) == ["junit.xml"]


def test_unwritable_place_is_a_clear_error(tmp_path):
    missing = tmp_path / "no" / "such" / "junit.xml"
    with pytest.raises(DemorunError, match="cannot write .*junit.xml"):
        write_junit(_report(), str(missing), Redactor())
    with pytest.raises(DemorunError, match="cannot write"):
        write_junit(_report(), str(tmp_path), Redactor())
    assert os.listdir(tmp_path) == []


def test_a_read_only_report_is_refused_before_the_run_and_never_replaced(demorun, workshop, tmp_path):
    report = tmp_path / "junit.xml"
    report.write_text("kept")
    report.chmod(0o444)
    result = demorun("check", "--junit", str(report), workshop("```bash\ntouch ran\n```\n"))
    assert result.exit_code == 2 and "read-only" in result.output
    assert report.read_text() == "kept" and not (tmp_path / "ran").exists()
    with pytest.raises(DemorunError, match="read-only"):
        write_junit(_report(), str(report), Redactor())


def _suite(report: RunReport, tmp_path, name: str):
    path = tmp_path / "j.xml"
    write_junit(report, str(path), Redactor())
    return next(s for s in JUnitXml.fromfile(str(path)) if s.name == name)


def test_a_file_with_nothing_to_run_is_a_skipped_case_or_under_strict_a_failure(tmp_path):
    why = "no runnable command: line 5: ```console fence is not run; use ```bash"
    suite = _suite(RunReport((FileReport("README.md", (), 0.0, empty=why),), 0.1), tmp_path, "README.md")
    (case,) = list(suite)
    assert (suite.tests, suite.skipped, suite.failures) == (1, 1, 0)
    assert isinstance(case.result[0], Skipped) and case.result[0].message == why
    suite = _suite(RunReport((FileReport("README.md", (), 0.0, empty=why, strict=True),), 0.1), tmp_path, "README.md")
    (case,) = list(suite)
    assert (suite.tests, suite.skipped, suite.failures) == (1, 0, 1)
    assert isinstance(case.result[0], Failure) and case.result[0].type == "empty"


def test_lint_errors_fail_a_case_of_their_own_with_or_without_strict(tmp_path):
    from runner.model import Finding, Severity, SourceLoc

    finding = Finding(SourceLoc("w.md", 4), Severity.ERROR, "unknown-directive", "'@SHWO'; did you mean @SHOW?")
    passed = StepResult(command_step("w.md", 6, "echo hi"), Verdict(Status.PASS), Outcome("hi\n", 0, 0.1), 2)
    for strict in (False, True):
        suite = _suite(RunReport((FileReport("w.md", (passed,), 0.1, findings=(finding,), strict=strict),), 0.1),
                       tmp_path, "w.md")
        assert (suite.tests, suite.failures) == (2, 1)
        lint = next(c for c in suite if c.name == "w.md lint")
        assert lint._elem.get("line") == "4" and lint.result[0].type == "lint"
        assert "did you mean @SHOW?" in lint.result[0].text


def test_an_updated_command_passes_and_says_it_was_updated(tmp_path):
    result = StepResult(command_step("w.md", 2, "echo one", ("two",)),
                        Verdict(Status.UPDATED, "w.md:2: ## block at w.md:3 rewritten with the real output"),
                        Outcome("one\n", 0, 0.1), 1)
    suite = _suite(RunReport((FileReport("w.md", (result,), 0.1),), 0.1), tmp_path, "w.md")
    (case,) = list(suite)
    assert case.is_passed and (suite.failures, suite.skipped) == (0, 0)
    said = {p.get("name"): p.get("value") for p in case._elem.iter("property")}
    assert said == {"demorun.status": "updated",
                    "demorun.updated": "w.md:2: ## block at w.md:3 rewritten with the real output"}


def test_an_interrupted_command_is_timed_as_long_as_it_ran(tmp_path):
    stopped = StepResult(command_step("w.md", 2, "sleep 60"),
                         Verdict(Status.FAIL, "w.md:2: terminated (SIGTERM) while this command ran"), None, 1,
                         stopped_after=12.5)
    (case,) = list(_suite(RunReport((FileReport("w.md", (stopped,), 13.0),), 13.0), tmp_path, "w.md"))
    assert case.time == pytest.approx(12.5)


def test_a_skipped_file_says_how_to_get_what_it_lacks(tmp_path):
    fr = FileReport("k.md", (), 0.0, skipped_reason="missing tool k3d (@requires at k.md:1)",
                    hints=("k3d: not on PATH (@requires at k.md:1); install it: https://k3d.io/#installation",))
    (case,) = list(_suite(RunReport((fr,), 0.0), tmp_path, "k.md"))
    assert "https://k3d.io" in case.result[0].text
