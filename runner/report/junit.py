"""JUnit XML: one test suite per workshop, one test case per command, for any CI to read."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

from ..files import write_atomic
from ..results import FileReport, RunReport, Status, StepResult
from ..secrets import redact_report
from .plain import clip_line, clip_output, first_line, plain
from .summary import STRICTLY, lint_note, nothing_checked

# XML 1.0 cannot hold these even as character references; parsers reject the file.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", plain(text))


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def case_names(fr: FileReport) -> list[str]:
    """Each command's first line, with `[FILE]` for one written in another file (an @import) and
    ` #2`, ` #3`... for a repeat: unique within the suite and unchanged when lines above it are
    edited, so a CI's test history follows the command. Where it is goes to the `line` attribute."""
    names: list[str] = []
    seen: dict[str, int] = {}
    for result in fr.results:
        step = result.step
        name = first_line(step.text) + ("" if step.loc.file == fr.file else f" [{step.loc.file}]")
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name} #{seen[name]}")
    return names


def _failure_text(result: StepResult) -> str:
    lines = [result.verdict.message, *map(clip_line, result.verdict.details)]
    expected = result.step.expected
    if expected is not None:
        lines.append(f"expected output at {expected.loc}")
    if result.outcome is not None:
        lines.append(f"exit status {result.outcome.status}")
    return "\n".join(line for line in lines if line)


def _testcase(suite: ET.Element, fr: FileReport, result: StepResult, name: str) -> None:
    step = result.step
    case = ET.SubElement(
        suite,
        "testcase",
        classname=_xml(fr.file),
        name=_xml(name),
        file=_xml(step.loc.file),
        line=str(step.loc.line),
        time=_seconds(result.elapsed),  # an interrupted command's too: how long it ran
    )
    verdict = result.verdict
    if verdict.status is Status.FAIL:
        timed_out = result.outcome is not None and result.outcome.timed_out
        failure = ET.SubElement(
            case, "failure", message=_xml(clip_line(verdict.message)), type="timeout" if timed_out else "failed"
        )
        failure.text = _xml(_failure_text(result))
    elif verdict.status is Status.SKIP:
        skipped = ET.SubElement(case, "skipped", message=_xml(verdict.message or fr.skipped_reason or ""))
        skipped.text = _xml("\n".join(fr.hints)) or None  # a file skipped for a missing tool: how to get it
    elif verdict.status is Status.UPDATED:
        # JUnit has no word for it: a passing case (it matches the file now) that says what was written.
        properties = ET.SubElement(case, "properties")
        ET.SubElement(properties, "property", name="demorun.status", value="updated")
        ET.SubElement(properties, "property", name="demorun.updated", value=_xml(verdict.message))
    if result.outcome is not None and result.outcome.output:
        out = ET.SubElement(case, "system-out")
        out.text = _xml(clip_output(result.outcome.output))


def _broken_suite(root: ET.Element, fr: FileReport) -> None:
    """A file that could not be parsed or configured: one case in error, as CI tools expect."""
    suite = ET.SubElement(root, "testsuite", name=_xml(fr.file), tests="1", failures="0", errors="1",
                          skipped="0", time=_seconds(fr.duration))
    case = ET.SubElement(suite, "testcase", classname=_xml(fr.file), name=_xml(fr.file),
                         file=_xml(fr.file), time=_seconds(0.0))
    error = ET.SubElement(case, "error", message=_xml(first_line(fr.error or "")), type="error")
    error.text = _xml(fr.error or "")


def _file_case(suite: ET.Element, fr: FileReport, name: str, line: int = 1) -> ET.Element:
    """A case for the file as a whole, not one of its commands."""
    return ET.SubElement(suite, "testcase", classname=_xml(fr.file), name=_xml(name), file=_xml(fr.file),
                         line=str(line), time=_seconds(0.0))


def _file_cases(suite: ET.Element, fr: FileReport) -> tuple[int, int, int]:
    """Cases for what is true of the file as a whole: skipped (a tool is missing), nothing to
    run, and its lint errors (a failure: check fails a file on them). (tests, failures, skipped) among them."""
    counts = [0, 0, 0]
    if not fr.results and fr.skipped_reason:
        # A whole file skipped (a missing tool) still shows up, as one skipped case.
        skipped = ET.SubElement(_file_case(suite, fr, fr.file), "skipped", message=_xml(fr.skipped_reason))
        skipped.text = _xml("\n".join(fr.hints)) or None
        counts = [1, 0, 1]
    elif nothing_checked(fr):
        case = _file_case(suite, fr, fr.file)
        reason = fr.empty or "no command ran"
        if fr.strict:
            ET.SubElement(case, "failure", message=_xml(f"{reason} ({STRICTLY})"), type="empty")
            counts = [1, 1, 0]
        else:
            ET.SubElement(case, "skipped", message=_xml(reason))
            counts = [1, 0, 1]
    errors = fr.lint_errors
    if errors:
        case = _file_case(suite, fr, f"{fr.file} lint", errors[0].loc.line)
        failure = ET.SubElement(case, "failure", message=_xml(f"{lint_note(fr)}"), type="lint")
        failure.text = "\n".join(_xml(str(f)) for f in errors)
        counts = [counts[0] + 1, counts[1] + 1, counts[2]]
    return counts[0], counts[1], counts[2]


def _testsuite(root: ET.Element, fr: FileReport) -> tuple[int, int, int]:
    suite = ET.SubElement(root, "testsuite", name=_xml(fr.file), time=_seconds(fr.duration))
    for result, name in zip(fr.results, case_names(fr)):
        _testcase(suite, fr, result, name)
    tests, failures, skipped = _file_cases(suite, fr)
    counts = (len(fr.results) + tests, fr.count(Status.FAIL) + failures, fr.count(Status.SKIP) + skipped)
    for key, value in zip(("tests", "failures", "errors", "skipped"), (counts[0], counts[1], 0, counts[2])):
        suite.set(key, str(value))
    return counts


def junit_xml(report: RunReport, redact: Callable[[str], str]) -> bytes:
    """The report as JUnit XML bytes, secrets masked."""
    report = redact_report(report, redact)
    root = ET.Element("testsuites", name="demorun")
    totals = [0, 0, 0]
    errors = 0
    for fr in report.files:
        if fr.error:
            _broken_suite(root, fr)
            errors += 1
            continue
        for i, n in enumerate(_testsuite(root, fr)):
            totals[i] += n
    root.set("tests", str(totals[0] + errors))
    root.set("failures", str(totals[1]))
    root.set("errors", str(errors))
    root.set("skipped", str(totals[2]))
    root.set("time", _seconds(report.duration))
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def write_junit(report: RunReport, path: str, redact: Callable[[str], str]) -> None:
    """Write the JUnit report to path atomically."""
    write_atomic(path, junit_xml(report, redact))
