"""What the docs say about exit codes and verdict words is what the command line does.

The README's exit-code table, docs/ci.md's verdict table, its table of where each verdict
is shown and its sentences that name an exit code are read from the docs; each row is run
through the real command line on a small workshop of its own, so changing a doc or a
behaviour without the other fails here.
"""
from __future__ import annotations

import os
import re
import signal
import sys
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pexpect
import pytest
from conftest import REPO

README = (REPO / "README.md").read_text()
CI = (REPO / "docs" / "ci.md").read_text()


def table(text: str, after: str) -> list[list[str]]:
    """The rows of the first Markdown table after the line `after`, cells stripped, header left out."""
    lines = text.split(after, 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]])
    return rows


WORKSHOPS = {
    "pass": "```bash\necho hi\n## hi\n```\n",
    "output": "```bash\necho hi\n## ho\n```\n",
    "status": "```bash\nfalse\n```\n",
    "time": "<!-- @timeout 1s -->\n```bash\nsleep 30\n```\n",
    "rejected": '```bash\necho "unterminated\n```\n',
    "shell ended": "```bash\nexit 0\necho never\n## never\n```\n",
    "skip": "<!-- @SKIP -->\n```bash\necho hi\n```\n",
    "empty": "# Notes\n\n```console\n$ echo hi\n```\n",
    "lint": "<!-- @SHWO -->\n```bash\necho hi\n## hi\n```\n",
    "requires": "<!-- @requires no-such-tool-for-demorun -->\n```bash\necho hi\n```\n",
    "exit 7": "```bash\nexit 7\n```\n",
    "drift": "```bash\necho new\n## old\n```\n",
    "import": "<!-- @import no-such-helpers.md -->\n```bash\necho hi\n## hi\n```\n",
}


@pytest.fixture
def written(tmp_path):
    def write(name: str) -> str:
        path = tmp_path / f"{name.replace(' ', '-')}.md"
        path.write_text(WORKSHOPS[name])
        return str(path)

    return write


def _broken(tmp_path: Path) -> str:
    path = tmp_path / "broken.md"
    path.write_bytes(b"```bash\necho \xff\xfe\n```\n")  # not UTF-8: it cannot be read
    return str(path)


# The README's exit codes: for each row, what its text claims, each claim run.

def _code_cases(tmp_path, written) -> dict[str, list[tuple[str, list[str]]]]:
    bad_config = tmp_path / "config" / "w.md"
    bad_config.parent.mkdir()
    bad_config.write_text(WORKSHOPS["pass"])
    (bad_config.parent / "demorun.toml").write_text('timeout = "whenever"\n')
    no_workshops = tmp_path / "docs"
    no_workshops.mkdir()
    (no_workshops / "README.md").write_text(WORKSHOPS["empty"])
    return {
        "0": [("nothing failed", ["check", written("pass")]),
              ("skipped commands", ["check", written("skip")]),
              ("a file with nothing to run (EMPTY)", ["check", written("empty")]),
              ("fail only with `--strict`", ["check", written("skip")]),
              ("`run` and `present` go on", ["run", written("lint")])],
        "1": [("its output", ["check", written("output")]),
              ("its exit status", ["check", written("status")]),
              ("its time limit", ["check", written("time")]),
              ("bash rejected it", ["run", written("rejected")]),
              ("the shell ended before it", ["check", written("shell ended")]),
              ("a skipped command", ["check", "--strict", written("skip")]),
              ("a file with nothing to run", ["check", "--strict", written("empty")]),
              ("for `check`, a lint error", ["check", written("lint")]),
              ("for `lint`: an error was found", ["lint", "--no-init", written("lint")])],
        "2": [("usage", ["check", "--shard", "4/3", written("pass")]),
              ("parse", ["run", _broken(tmp_path)]),
              ("configuration error", ["check", str(bad_config)]),
              ("a broken file as ERROR, checks the others, then exits 2",
               ["check", _broken(tmp_path), written("pass")]),
              ("`check DIR` finding no workshop in DIR exits 2", ["check", str(no_workshops)])],
        "3": [("a tool named by `@requires`", ["check", written("requires")]),
              ("`--requires`", ["run", "--requires", "no-such-tool-for-demorun", written("pass")])],
        "N": [("the workshop itself ran `exit N`", ["run", written("exit 7")])],
    }


# Stopped from outside, serially and with -j: a real signal once the command runs, twice for Ctrl-C.
SIGNALS = {"129": ("SIGHUP", [signal.SIGHUP]), "130": ("Ctrl-C", [signal.SIGINT, signal.SIGINT]),
           "143": ("SIGTERM", [signal.SIGTERM])}


def _stopped(tmp_path: Path, signals: list[int], *options: str) -> int:
    """The exit code of a check stopped by `signals` while its one command runs."""
    (tmp_path / "stop.md").write_text("```bash\ntouch started.txt; bash -c 'trap \"\" INT; sleep 60'\n```\n")
    (tmp_path / "started.txt").unlink(missing_ok=True)
    child = pexpect.spawn(sys.executable, ["-m", "runner", "check", *options, "stop.md"], cwd=str(tmp_path),
                          env={**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(REPO)}, encoding="utf-8", timeout=60)
    deadline = time.monotonic() + 30
    while not (tmp_path / "started.txt").exists():
        assert time.monotonic() < deadline, child.before
        time.sleep(0.05)
    for n, sig in enumerate(signals):
        if n:
            child.expect("Ctrl-C again to stop")
        child.kill(sig)
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


@pytest.mark.parametrize("code", sorted(SIGNALS))
def test_every_signal_code_in_the_readme_is_what_a_stopped_run_exits_with(tmp_path, code):
    said, signals = SIGNALS[code]
    rows = {c: meaning for c, meaning in table(README, "Exit codes, for every command:")}
    assert said in rows[code]
    assert _stopped(tmp_path, signals) == int(code)


def test_a_parallel_check_stopped_exits_as_ci_md_says(tmp_path):
    sentence = re.search(r"exits (\d+) after Ctrl-C, (\d+) after SIGTERM and (\d+) after SIGHUP", " ".join(CI.split()))
    assert sentence, "docs/ci.md no longer says how a stopped -j check exits"
    for code, signals in zip(sentence.groups(), ([signal.SIGINT, signal.SIGINT], [signal.SIGTERM], [signal.SIGHUP])):
        assert _stopped(tmp_path, signals, "-j", "2") == int(code)


# docs/ci.md's verdict words: the word each workshop gets, and the exit code with and without --strict.

VERDICT_WORKSHOPS = {"PASS": ("pass", []), "FAIL": ("output", []), "SKIP": ("skip", []), "ERROR": (None, []),
                     "EMPTY": ("empty", []), "UPDATED": ("drift", ["--update"])}


def _fails(cell: str) -> tuple[int, int]:
    """(exit code, with --strict) from a 'fails check' cell: no, yes (N), with `--strict` (N)."""
    if cell == "no":
        return 0, 0
    m = re.fullmatch(r"(yes|with `--strict`) \((\d)\)", cell)
    assert m, cell
    code = int(m.group(2))
    return (code if m.group(1) == "yes" else 0), code


def test_every_verdict_word_in_ci_md_is_what_check_says_and_exits_with(demorun, tmp_path, written):
    rows = table(CI, "## Verdicts")
    assert {row[0] for row in rows} == set(VERDICT_WORKSHOPS)
    for word, _, _, fails in rows:
        name, extra = VERDICT_WORKSHOPS[word]
        for strict, code in zip(([], ["--strict"]), _fails(fails)):
            path = written(name) if name else _broken(tmp_path)
            result = demorun("check", *extra, *strict, path)
            assert result.exit_code == code, (word, strict, result.output)
            label = re.search(rf"^(\w+) {{2,}}{re.escape(path)} ", result.output, re.M)  # the summary table's row
            assert label and label.group(1) == (word if not strict or code == 0 or word in ("ERROR", "EMPTY")
                                                else "FAIL"), (word, strict, result.output)


SHOWN = {"FAIL": "output", "SKIP": "requires", "ERROR": None, "EMPTY": "empty", "UPDATED": "drift",
         "lint errors": "lint"}


def _tokens(cell: str) -> tuple[list[str], list[str]]:
    """The `code` spans a cell names for a plain run, and those it names for --strict."""
    plain, _, strict = cell.partition("with `--strict`")
    pick = lambda text: [t for t in re.findall(r"`([^`]+)`", text) if t.startswith(("<", "::", "demorun."))]  # noqa: E731
    return pick(plain), pick(strict)


def test_every_report_shows_each_verdict_as_ci_md_says(demorun, tmp_path, written):
    rows = table(CI, "Where each is shown:")
    assert {row[0] for row in rows} == set(SHOWN)
    for word, _console, junit_cell, _html, annotations_cell, _pytest in rows:
        name = SHOWN[word]
        path = written(name) if name else _broken(tmp_path)
        junit_plain, junit_strict = _tokens(junit_cell)
        notes_plain, notes_strict = _tokens(annotations_cell)
        for strict, junit_tokens, note_tokens in (([], junit_plain, notes_plain),
                                                   (["--strict"], junit_strict, notes_strict)):
            if strict and not (junit_tokens or note_tokens):
                continue
            report = tmp_path / "junit.xml"
            extra = ["--update"] if word == "UPDATED" else []
            result = demorun("check", *extra, *strict, "--junit", str(report), path, env={"GITHUB_ACTIONS": "true"})
            xml = report.read_text()
            for token in junit_tokens:
                found = token in xml if not token.startswith("<") else \
                    ET.fromstring(xml).find(f".//{token.strip('<>').split()[0]}") is not None
                assert found and (" type=" not in token or token.split('"')[1] in xml), (word, strict, token, xml)
            for token in note_tokens:
                assert any(line.startswith(token + " ") for line in result.output.splitlines()), \
                    (word, strict, token, result.output)


# docs/ci.md's other sentences that name an exit code.

def test_every_exit_code_ci_md_names_in_a_sentence_is_tested(demorun, tmp_path, written):
    text = "\n".join(line for line in re.sub(r"```.*?```", "", CI, flags=re.S).splitlines()
                     if not line.startswith("|"))  # the tables are walked above
    prose = " ".join(text.split())
    said = {m.group(0).strip() for m in re.finditer(
        r"[^.(]*\(exit \d\)|[^.]*exit code is \d[^.]*|[^.]*exits \d{3}[^.]*", prose)}
    assert len(said) >= 5, said
    def code(*args: str) -> int:
        return demorun(*args).exit_code

    checks = {
        "A shard with no files passes (exit 0)": lambda: code("check", "--shard", "3/3", written("pass")) == 0,
        "anything else is a usage error (exit 2)": lambda: code("check", "--shard", "0/3", written("pass")) == 2,
        "A folder with no workshop at all is a usage error (exit 2)": lambda: _no_workshops(demorun, tmp_path) == 2,
        "fails on it (exit 1)": lambda: code("check", written("import")) == 1,
        "the exit code is 2 at the end": lambda: demorun("check", _broken(tmp_path), written("pass")).exit_code == 2,
        # walked by test_a_parallel_check_stopped_exits_as_ci_md_says, which reads this sentence
        "after Ctrl-C,": lambda: bool(re.search(r"exits \d+ after Ctrl-C, \d+ after SIGTERM and \d+ after SIGHUP",
                                                " ".join(CI.split()))),
    }
    for sentence in said:
        key = next((k for k in checks if k in sentence), None)
        assert key is not None, f"docs/ci.md names an exit code no test walks: {sentence!r}"
        assert checks[key](), sentence


def _no_workshops(demorun, tmp_path: Path) -> int:
    folder = tmp_path / "only-notes"
    folder.mkdir(exist_ok=True)
    (folder / "notes.md").write_text(textwrap.dedent(WORKSHOPS["empty"]))
    return demorun("check", str(folder)).exit_code
