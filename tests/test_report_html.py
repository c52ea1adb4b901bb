"""The HTML report: the workshop as it reads, every command with its output, escaped and self-contained."""
from __future__ import annotations

import dataclasses
import os
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from runner.model import Expectation, Kind, Plan, SourceLoc, Step, Visibility
from runner.report.html import render_html, write_html
from runner.report.plain import OUTPUT_LINE_LIMIT
from runner.results import FileReport, Outcome, RunReport, Status, StepResult, Verdict
from runner.secrets import Redactor

SECRET = "Zk-55-topsecret"
F = "demos/mesh.md"
PROSE = f"""# Meshing the app

Export **API_TOKEN** first: `export API_TOKEN={SECRET}`.

<img src=x onerror="document.body.dataset.pwned='prose'"> <!-- @SHOW -->

[docs](javascript:document.body.dataset.pwned='link') and a table:

| pod | ready |
| --- | ----- |
| web | 2/2 |
"""
PAYLOAD = "<script>document.body.dataset.pwned='output'</script>"


def _loc(line: int) -> SourceLoc:
    return SourceLoc(F, line)


def _report() -> RunReport:
    prose = Step(Kind.PROSE, _loc(1), PROSE, Visibility.SHOW)
    setup = Step(Kind.COMMAND, _loc(14), "kubectl create ns mesh", Visibility.HIDE, end_line=14)
    comment = Step(Kind.COMMENT, _loc(16), "every pod should be ready", Visibility.SHOW)
    pods = Step(Kind.COMMAND, _loc(17), "kubectl get pods \\\n  -n mesh", Visibility.SHOW, end_line=18,
                expected=Expectation(("NAME  READY  STATUS", "web-abc  2/2  Running"), _loc(19), 20))
    echo = Step(Kind.COMMAND, _loc(22), f"echo \"{PAYLOAD}\" $API_TOKEN", Visibility.SHOW, end_line=22)
    later = Step(Kind.COMMAND, _loc(25), "kubectl delete ns mesh", Visibility.SKIP, end_line=25)
    never = Step(Kind.COMMAND, _loc(27), "kubectl get ns", Visibility.SHOW, end_line=27)
    plan = Plan(F, (prose, setup, comment, pods, echo, later, never))
    results = (
        StepResult(setup, Verdict(Status.PASS), Outcome("namespace/mesh created\r\n", 0, 0.3), 1),
        StepResult(pods, Verdict(Status.FAIL, "web-*: STATUS expected Running, got CrashLoopBackOff",
                                 ("-web-abc  2/2  Running", "+web-xyz  0/2  CrashLoopBackOff")),
                   Outcome("NAME  READY  STATUS\r\nweb-xyz  0/2  \x1b[31mCrashLoopBackOff\x1b[0m\r\n", 0, 1.2), 3),
        StepResult(echo, Verdict(Status.FAIL, f"exit status 3, expected 0 ({SECRET})"),
                   Outcome(f"{PAYLOAD} {SECRET}\r\n", 3, 0.1), 4),
        StepResult(later, Verdict(Status.SKIP, "skipped by @SKIP"), None, 5),
    )
    skipped = FileReport("demos/k3d.md", (), 0.0, skipped_reason="k3d is not on PATH")
    return RunReport((FileReport(F, results, 1.7, plan=plan), skipped), 1.8)


class _Page(HTMLParser):
    """Just enough of a DOM: elements with attributes, and text per element id."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text_by_id: dict[str, str] = {}
        self._open: list[str | None] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = {k: v or "" for k, v in attrs}
        self.tags.append((tag, attrs))
        if tag not in ("img", "br", "hr", "meta", "input"):
            self._open.append(attrs.get("id"))
            if attrs.get("id"):
                self.text_by_id[attrs["id"]] = ""

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()

    def handle_data(self, data):
        for ident in self._open:
            if ident:
                self.text_by_id[ident] += data


@pytest.fixture(scope="module")
def html() -> str:
    return render_html(_report(), Redactor([SECRET]))


def test_failures_listed_first_with_links_to_their_commands(html):
    page = _Page(html)
    failures = page.text_by_id["failures"]
    assert failures.index("demos/mesh.md:17") < failures.index("demos/mesh.md:22")
    assert "web-*: STATUS expected Running, got CrashLoopBackOff" in failures
    links = [a["href"] for tag, a in page.tags if tag == "a" and a.get("href", "").startswith("#f0-")]
    assert links[:2] == ["#f0-s3", "#f0-s4"]
    for target in links:
        assert target[1:] in page.text_by_id
    assert "CrashLoopBackOff" in page.text_by_id["f0-s3"]
    assert html.index('id="failures"') < html.index('id="f0"')


def test_every_command_with_output_expected_and_verdict(html):
    page = _Page(html)
    pods = page.text_by_id["f0-s3"]
    assert "kubectl get pods \\\n  -n mesh" in pods
    assert "expected (demos/mesh.md:19)" in pods
    assert "web-abc  2/2  Running" in pods and "web-xyz  0/2  CrashLoopBackOff" in pods
    assert "FAIL" in pods and "exit 0" in pods
    assert "setup" in page.text_by_id["f0-s1"] and "namespace/mesh created" in page.text_by_id["f0-s1"]
    assert "@SKIP" in page.text_by_id["f0-s5"] and "skipped by @SKIP" in page.text_by_id["f0-s5"]
    assert "NOT RUN" in page.text_by_id["f0-s6"]
    assert "\x1b" not in html


def test_workshop_reads_in_order(html):
    body = html[html.index('id="f0"'):]
    order = [body.index(s) for s in ("Meshing the app", "kubectl create ns mesh", "# every pod should be ready",
                                     "kubectl get pods", "kubectl delete ns mesh", "kubectl get ns")]
    assert order == sorted(order)
    page = _Page(html)
    assert ("h1", {}) in page.tags and ("table", {}) in page.tags and ("strong", {}) in page.tags


def test_everything_is_escaped_and_nothing_runs(html):
    page = _Page(html)
    assert not [t for t, _ in page.tags if t in ("script", "iframe", "object", "embed")]
    assert not [a for _, a in page.tags if any(k.startswith("on") for k in a)]
    assert not [a for _, a in page.tags if a.get("href", "").startswith("javascript:")]
    assert PAYLOAD in page.text_by_id["f0-s4"]  # shown as text
    assert "@SHOW" not in html  # presenter's comments stay out of the page


def test_secrets_masked_everywhere_even_in_prose(html):
    assert SECRET not in html
    assert "export API_TOKEN=***" in html
    assert html.count("***") >= 4


def test_file_skipped_and_plan_missing_still_render():
    report = _report()
    bare = FileReport("plain.md", report.files[0].results, 1.0)
    page = _Page(render_html(RunReport((bare, report.files[1]), 1.0), Redactor()))
    assert "kubectl get pods" in page.text_by_id["f0-s3"]
    assert "k3d is not on PATH" in page.text_by_id["f1"]


def test_written_atomically(tmp_path):
    path = tmp_path / "report.html"
    path.write_text("old")
    write_html(_report(), str(path), Redactor([SECRET]))
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert os.listdir(tmp_path) == ["report.html"]


def _chromium(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={cwd / 'profile'}", "--window-size=1200,1600"]
    return subprocess.run([shutil.which("chromium"), *flags, *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.browser
def test_page_renders_in_a_real_browser(tmp_path):
    if shutil.which("chromium") is None:
        pytest.skip("chromium is not installed")
    path = tmp_path / "report.html"
    write_html(_report(), str(path), Redactor([SECRET]))
    dom = _chromium("--dump-dom", path.as_uri(), cwd=tmp_path).stdout
    page = _Page(dom)
    assert "data-pwned" not in dom
    assert not [t for t, _ in page.tags if t == "script"]
    assert PAYLOAD in page.text_by_id["f0-s4"]
    assert [a["href"] for t, a in page.tags if t == "a" and a.get("href", "").startswith("#f0-")][:2] == \
        ["#f0-s3", "#f0-s4"]
    shot = tmp_path / "shot.png"
    _chromium(f"--screenshot={shot}", path.as_uri(), cwd=tmp_path)
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1200, 1600)
    # A blank or unstyled page compresses to a few kilobytes; badges, code and tables do not.
    assert len(png) > 40_000


def test_huge_output_is_cut_keeping_its_end():
    report = _report()
    fr = report.files[0]
    lines = [f"log line {i}" for i in range(OUTPUT_LINE_LIMIT * 3)]
    big = dataclasses.replace(fr.results[1], outcome=Outcome("\r\n".join(lines), 1, 9.0))
    fr = dataclasses.replace(fr, results=(fr.results[0], big, *fr.results[2:]))
    output = _Page(render_html(RunReport((fr,), 9.0), Redactor())).text_by_id["f0-s3"]
    assert f"{OUTPUT_LINE_LIMIT * 2} lines not shown" in output
    assert lines[-1] in output and lines[0] in output
    assert lines[OUTPUT_LINE_LIMIT] not in output


_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
_PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "main", "nav", "section", "div", "span",
              "h1", "h2", "h3", "h4", "h5", "h6", "p", "a", "ol", "ul", "li", "code", "pre", "strong", "em", "del",
              "blockquote", "hr", "br", "img", "table", "thead", "tbody", "tr", "th", "td"}


def test_real_workshops_render_as_prose_without_their_comments_or_raw_html():
    if not _CORPUS.is_dir():
        pytest.skip(f"workshop corpus not found at {_CORPUS}")
    files = sorted(_CORPUS.rglob("*.md"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        step = Step(Kind.PROSE, SourceLoc(str(path), 1), text, Visibility.SHOW)
        report = RunReport((FileReport(str(path), (), 0.0, plan=Plan(str(path), (step,))),), 0.0)
        page = render_html(report, Redactor())
        tags = {tag for tag, _ in _Page(page).tags}
        assert tags <= _PAGE_TAGS, (path, tags - _PAGE_TAGS)
        if "<!--" in text:
            assert "&lt;!--" not in page and "<!--" not in page, path
