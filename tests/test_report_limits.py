"""Reports stay usable: one huge output line or diff line is cut, in JUnit, HTML and the console."""
from __future__ import annotations

import subprocess
import sys
import time

from conftest import command_step

from runner.report.html import render_html
from runner.report.junit import junit_xml
from runner.report.plain import OUTPUT_BYTE_LIMIT, clip_bytes, clip_line
from runner.report.summary import render_summary
from runner.results import FileReport, Outcome, RunReport, Status, StepResult, Verdict
from runner.secrets import Redactor

HUGE = 20_000_000  # one line of 20 MB; the same report for 50 MB, only slower to build


def _huge_report() -> RunReport:
    line = "é" + "x" * HUGE + "THE-END"
    step = command_step("w.md", 2, "print-a-lot", ("short",))
    verdict = Verdict(Status.FAIL, "output differs", ("-short", "+" + line))
    result = StepResult(step, verdict, Outcome(line + "\r\n", 0, 1.0), 0)
    return RunReport((FileReport("w.md", (result,), 1.0),), 1.0)


def test_one_huge_line_makes_small_reports_keeping_both_ends():
    report = _huge_report()
    started = time.monotonic()
    xml = junit_xml(report, Redactor())
    page = render_html(report, Redactor()).encode()
    console = render_summary(report, Redactor(), color=False).encode()
    assert time.monotonic() - started < 30  # linear; the point is the size, measured below
    for artefact in (xml, page):
        assert len(artefact) < 2 * OUTPUT_BYTE_LIMIT
        assert "é".encode() in artefact and b"THE-END" in artefact and b"bytes not shown" in artefact
    assert len(console) < 10_000 and b"characters not shown" in console


def test_clip_bytes_never_splits_a_character_and_keeps_short_text():
    assert clip_bytes("short", 10) == "short"
    text = "é" * 1000
    clipped = clip_bytes(text, 101)
    assert "bytes not shown" in clipped
    assert clipped.encode("utf-8")  # valid UTF-8: no half character at either cut
    head, _, tail = clipped.partition("\n… ")
    assert set(head) == {"é"} and set(tail.split("…\n")[1]) == {"é"}


def test_clip_line_keeps_both_ends():
    assert clip_line("abc", 10) == "abc"
    assert clip_line("a" * 50 + "b" * 50, 10) == "aaaaa … 90 characters not shown … bbbbb"


def test_a_reader_that_stops_early_costs_neither_the_exit_status_nor_the_reports(tmp_path):
    first, second = tmp_path / "a.md", tmp_path / "b.md"
    first.write_text("```bash\necho a\n## a\n```\n")
    second.write_text("```bash\nsleep 0.3; echo b\n## b\n```\n")
    junit, html = tmp_path / "j.xml", tmp_path / "r.html"
    run = subprocess.Popen([sys.executable, "-m", "runner", "check", "--junit", str(junit), "--html", str(html),
                            str(first), str(second)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert run.stdout.readline().startswith(b"PASS ")
    run.stdout.close()  # as `| head -1` does, before the second file's line and the summary
    assert run.wait(60) == 0, run.stderr.read().decode()
    assert run.stderr.read() == b""
    assert junit.read_text().count("<testcase") == 2 and "b.md" in html.read_text()
