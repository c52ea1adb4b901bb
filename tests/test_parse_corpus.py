"""The real workshops beside the repository: they parse, lint, and split as their authors meant."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main
from runner.model import Kind, Plan
from runner.parse.workshop import parse_workshop

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
SMA = CORPUS / "sma"


@pytest.fixture(scope="module")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"no corpus at {CORPUS}")
    return CORPUS


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".md", ".sh"))


def _lines(path: Path) -> list[str]:
    return path.read_text().split("\n")


def _runnable_fence_lines(lines: list[str]) -> list[int]:
    """Line numbers inside runnable fences, found without the parser."""
    inside, numbers = False, []
    for no, line in enumerate(lines, 1):
        if not inside and re.match(r"```(bash|sh|shell)\b", line):
            inside = True
        elif inside and line.strip() == "```":
            inside = False
        elif inside:
            numbers.append(no)
    return numbers


def test_every_file_parses(corpus):
    for path in _files(corpus):
        plan = parse_workshop(str(path), no_init=True)
        assert isinstance(plan, Plan) and plan.steps, path
        for step in plan.steps:
            assert step.loc.line >= 1 and step.end_line >= step.loc.line, (path, step)


def test_the_whole_corpus_lints_without_a_crash(corpus):
    result = CliRunner().invoke(main, ["lint", "--no-init", str(corpus)])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert re.fullmatch(r"\d+ errors, \d+ warnings in \d+ files", lines[-1])
    assert all(re.match(r".+:\d+: (error|warning): .+ \[[a-z-]+\]$", line) for line in lines[:-1])


def test_the_malformed_imports_of_certificates_with_vault_are_reported(corpus):
    path = SMA / "certificates-with-vault" / "README.md"
    stray = [no for no, line in enumerate(_lines(path), 1) if line.startswith("@import")]
    assert len(stray) == 2
    plan = parse_workshop(str(path), no_init=True)
    reported = [f.loc.line for f in plan.findings
                if f.code == "directive-outside-comment" and f.severity.value == "error"]
    assert reported == stray


def test_startup_deep_dive_attaches_every_expected_line_to_its_command(corpus):
    path = SMA / "startup-deep-dive" / "README.md"
    lines = _lines(path)
    hash_lines = [no for no in _runnable_fence_lines(lines) if lines[no - 1].startswith("##")]
    result = CliRunner().invoke(main, ["list", "--json", "--no-init", str(path)])
    assert result.exit_code == 0
    plan = json.loads(result.output)
    owned = [(s["line"], s["end_line"], s["expected"]) for s in plan["steps"]
             if s["kind"] == "command" and s["expected"]]
    attached = [no for _, _, e in owned for no in range(e["line"], e["end_line"] + 1)]
    assert attached == hash_lines
    assert len(attached) == 85

    def owner(line: int):
        (found,) = [(start, end, e) for start, end, e in owned if start == line]
        return found

    _, _, pods = owner(156)
    assert lines[155] == "kubectl get pods -n emojivoto"
    assert (pods["line"], pods["end_line"]) == (157, 161)
    assert pods["lines"] == [line[3:] for line in lines[156:161]]

    start, end, lifecycle = owner(184)
    assert end == 185 and "lifecycle" in lines[184]
    assert (lifecycle["line"], lifecycle["end_line"]) == (186, 190)
    assert lifecycle["lines"].count("") == 2


def test_heredocs_and_loops_of_deploying_bel_are_single_commands(corpus):
    folder = SMA / "deploying-bel-with-hazl"
    checked = 0
    for path in _files(folder):
        lines = _lines(path)
        plan = parse_workshop(str(path), no_init=True)
        starts = {s.loc.line: s for s in plan.commands if s.loc.file == str(path)}
        for no, line in enumerate(lines, 1):
            heredoc = re.match(r"cat <<(\w+)", line)
            loop = re.match(r"(while|for|until) ", line)
            if not (heredoc or loop) or no not in starts:
                continue
            command = starts[no]
            last = lines[command.end_line - 1]
            assert last == (heredoc.group(1) if heredoc else "done"), (path, no)
            assert command.text == "\n".join(lines[no - 1:command.end_line])
            checked += 1
    assert checked >= 4


def test_expected_json_in_mtls_does_not_leak_into_the_prose_after_its_fence(corpus):
    path = SMA / "mtls-workshop" / "README.md"
    lines = _lines(path)
    brace = next(no for no, line in enumerate(lines, 1) if line.startswith("##   },"))
    closing = next(no for no in range(brace, len(lines) + 1) if lines[no - 1] == "```")
    heading = next(no for no in range(closing, len(lines) + 1) if lines[no - 1].startswith("## "))
    plan = parse_workshop(str(path), no_init=True)
    assert not any("}," in s.text for s in plan.steps if s.kind is Kind.PROSE)
    after = next(s for s in plan.steps if s.loc.file == str(path) and s.loc.line == heading)
    assert after.kind is Kind.PROSE
    assert after.section == lines[heading - 1][3:].strip()
