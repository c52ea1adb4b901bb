"""`demorun list`: the steps in order as text, and as the JSON that docs/plan-json.md documents."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main

ROOT = Path(__file__).resolve().parents[1]
WORKSHOPS = ROOT / "tests" / "fixtures" / "parse" / "workshops"
DOC = ROOT / "docs" / "plan-json.md"


def run(*args: str):
    return CliRunner().invoke(main, ["list", "--no-init", *args], catch_exceptions=False)


def _documented_fields(heading: str) -> set[str]:
    """Field names in the first column of the first table under `heading` in docs/plan-json.md."""
    text = "\n" + DOC.read_text()
    section = text[text.index(f"\n{heading}\n"):]
    rows = [line for line in section[section.index("\n| "):].split("\n\n")[0].splitlines() if line]
    fields = set()
    for row in rows[2:]:
        fields.update(re.findall(r"`([a-z_]+)`", row.split("|")[1]))
    return fields


@pytest.fixture(scope="module")
def directives_json():
    result = run("--json", str(WORKSHOPS / "directives.md"))
    assert result.exit_code == 0
    return json.loads(result.stdout)


def test_json_fields_are_the_documented_ones(directives_json):
    assert set(directives_json) == _documented_fields("# The plan as JSON: `demorun list --json`")
    step_fields = _documented_fields("## Steps")
    for step in directives_json["steps"]:
        assert set(step) == step_fields
        assert set(step["modifiers"]) == _documented_fields("### Modifiers")


def test_json_steps_in_order_with_their_details(directives_json):
    steps = directives_json["steps"]
    assert [s["index"] for s in steps] == list(range(len(steps)))
    extensions = next(s for s in steps if s["text"] == "echo extensions")
    assert extensions["modifiers"]["masks"] == ["[0-9a-f]{8}", r"\d+s"]
    assert (extensions["modifiers"]["timeout"], extensions["modifiers"]["exit"]) == (90.0, 3)
    any_exit = next(s for s in steps if s["text"] == "false")
    assert any_exit["modifiers"]["exit"] is None
    assert [s["visibility"] for s in steps if s["kind"] == "command"][-4:] == [
        "hide", "skip", "skip", "show"]
    assert [r["tool"] for r in directives_json["requires"]] == ["kubectl", "jq", "helm"]


def test_json_expected_output_call_sites_and_findings():
    data = json.loads(run("--json", str(WORKSHOPS / "expected.md")).stdout)
    printf = next(s for s in data["steps"] if s["text"].startswith("printf"))
    assert printf["expected"]["lines"] == ["a", "", "b", "  indented"]
    assert (printf["expected"]["line"], printf["expected"]["end_line"]) == (7, 10)
    assert [(f["line"], f["code"], f["severity"]) for f in data["findings"]] == [
        (13, "orphan-output", "warning"), (17, "orphan-output", "warning")]
    main_plan = json.loads(run("--json", str(WORKSHOPS / "main.md")).stdout)
    helper = next(s for s in main_plan["steps"] if "helper" in s["text"])
    assert [c["line"] for c in helper["called_from"]] == [10, 8]


def test_json_hooks():
    data = json.loads(run("--json", str(WORKSHOPS / "hooks.md")).stdout)
    nested = next(s for s in data["steps"] if s["text"] == "echo nested")
    assert nested["if_hooks"] == ["EDITOR", "TERMINAL"]
    assert [s["hook_var"] for s in data["steps"] if s["kind"] == "hook"] == [
        "EDITOR", "MY_BROWSER", "EDITOR"]


def test_text_listing_shows_location_kind_visibility_and_directives():
    path = str(WORKSHOPS / "directives.md")
    lines = run(path).stdout.splitlines()
    flags = next(i for i, line in enumerate(lines) if line.endswith("echo flags"))
    assert re.match(rf"{re.escape(path)}:11 +command +show +echo flags$", lines[flags])
    assert lines[flags + 1].split() == ["@nowaitbefore", "@noshow", "@waitafter", "@notypeout"]
    assert any(re.match(rf"{re.escape(path)}:30-31 +print +show +kubectl logs", line)
               for line in lines)
    assert lines[-1] == f"requires: kubectl ({path}:1), jq ({path}:1), helm ({path}:36)"


def test_text_listing_shows_expectations_call_sites_and_findings():
    path = str(WORKSHOPS / "expected.md")
    out = run(path).stdout
    assert f"expects 4 lines at {path}:7-10" in out
    assert f"{path}:13: warning:" in out
    main_out = run(str(WORKSHOPS / "main.md")).stdout
    assert f"via {WORKSHOPS / 'lib' / 'page.md'}:8 < {WORKSHOPS / 'main.md'}:10" in main_out


@pytest.mark.parametrize("make, fragment", [
    (lambda d: str(d / "absent.md"), "no such file"),
    (lambda d: (d / "b.md").write_bytes(b"\x00") and str(d / "b.md"), "binary"),
    (lambda d: (d / "c.md").write_bytes(b"\xff\n") and str(d / "c.md"), "c.md:1: "),
])
def test_bad_input_is_one_line_and_exit_two(tmp_path, make, fragment):
    result = run(make(tmp_path))
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("demorun: ") and fragment in line


def test_a_directory_is_refused(tmp_path):
    result = run(str(tmp_path))
    assert result.exit_code == 2
    assert "is a directory" in result.stderr


def test_json_of_a_file_whose_name_is_not_utf8_is_utf8(tmp_path):
    import os
    import subprocess
    import sys

    name = os.fsencode(tmp_path) + b"/w\xff.md"
    with open(name, "wb") as f:
        f.write(b"```bash\necho hi\n```\n")
    done = subprocess.run([sys.executable, "-m", "runner", "list", "--json", "--no-init", name],
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.decode("utf-8"))["file"] == os.fsdecode(name)
