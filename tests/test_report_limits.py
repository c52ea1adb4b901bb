"""Reports stay usable: one huge output line or diff line is cut, in JUnit, HTML and the console."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest
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


# What a run keeps for its reports: the output clipped once, with copies the size of what is kept.

def test_clipping_a_huge_output_costs_what_is_kept_not_the_output():
    import tracemalloc

    from runner.report.plain import OUTPUT_LINE_LIMIT, clip_output

    for output in ("x" * 60 + "\n") * 800_000, "é" * 30_000_000:  # 49 MB of lines; one 60 MB line
        tracemalloc.start()
        clipped = clip_output(output)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 8 * 1024 * 1024  # the kept parts, and a chunk counted at a time: not the output
        assert len(clipped.encode()) < OUTPUT_BYTE_LIMIT + 200 and clipped.count("\n") <= OUTPUT_LINE_LIMIT
        assert clip_output(clipped) == clipped  # clipped once is clipped for good


def test_a_cut_never_leaves_part_of_a_secret():
    from runner.report.plain import clip_output

    secret = "tok-0123456789-abcdef"
    redact = Redactor([secret])
    for at in range(-len(secret), 1):
        for edge in (OUTPUT_BYTE_LIMIT // 10, 10_000_000 - (OUTPUT_BYTE_LIMIT - OUTPUT_BYTE_LIMIT // 10)):
            text = "a" * (edge + at) + secret + "b" * (10_000_000 - edge - at)
            shown = redact(clip_output(text, redact.spans))
            assert not any(secret[i:i + 4] in shown for i in range(len(secret) - 3)), (edge, at)


def test_a_checked_file_keeps_only_what_its_reports_show(tmp_path):
    from runner.modes.check import check_file

    path = tmp_path / "w.md"
    path.write_text("```bash\nseq 1 200000\n```\n")
    kept = check_file(str(path), no_init=True, fail_fast=False, timeout=None, progress=False)
    (result,) = kept.report.results
    assert result.verdict.passed and len(result.outcome.output) < OUTPUT_BYTE_LIMIT
    assert result.outcome.output.rstrip().endswith("200000") and "lines not shown" in result.outcome.output
    updating = check_file(str(path), no_init=True, fail_fast=False, timeout=None, progress=False, update=True)
    assert updating.report.results[0].outcome.output.count("\n") >= 199_999  # --update writes it whole


@pytest.mark.slow
def test_reports_cost_no_memory_and_little_time_beyond_the_check(tmp_path):
    """bench/reports_memory.py at 50 MB: the ratios, with a generous margin for a loaded machine."""
    import os

    size = 50_000_000
    path = tmp_path / "big.md"
    line = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"
    path.write_text(f"```bash\nyes {line} | head -c {size}\n```\n")

    def measured(*options: str) -> tuple[float, int]:
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "runner", "check", "--no-init", *options, str(path)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        return time.perf_counter() - started, usage.ru_maxrss * 1024

    plain = measured()
    reports = measured("--junit", str(tmp_path / "j.xml"), "--html", str(tmp_path / "r.html"))
    assert reports[1] < 1.1 * plain[1]  # no copy of the output: it was 3.6x before
    assert reports[1] - plain[1] < 0.2 * size
    assert reports[0] < 2 * plain[0]
