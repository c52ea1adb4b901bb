"""Hostile workshops: bounded expansion and nesting, imports that cannot block, with located errors.

How long parsing takes as inputs grow is measured by bench/parse_scaling.py;
these tests check the bounds hold and say where they were hit.
"""
from __future__ import annotations

import os
import sys

import pytest

from runner.errors import ParseError
from runner.parse.builder import MAX_DEPTH, MAX_STEPS, MAX_TEXT, MAX_WORK, Builder
from runner.parse.source import MAX_BYTES
from runner.parse.workshop import BLOCKING, blocking_findings, parse_text, parse_workshop


def _codes(plan) -> dict[str, list]:
    found: dict[str, list] = {}
    for finding in plan.findings:
        found.setdefault(finding.code, []).append(finding)
    return found


def test_macros_calling_macros_twice_stop_at_the_step_cap(tmp_path):
    lines = ["<!-- @macro m0 -->", "```bash", "echo leaf", "```", "<!-- @end -->"]
    for n in range(1, 21):
        lines += [f"<!-- @macro m{n} -->", f"<!-- @m{n - 1} -->", f"<!-- @m{n - 1} -->", "<!-- @end -->"]
    lines.append("<!-- @m20 -->")
    path = str(tmp_path / "bomb.md")
    plan = parse_text("\n".join(lines) + "\n", path)
    assert len(plan.steps) == MAX_STEPS
    (finding,) = _codes(plan)["too-many-steps"]
    assert finding.severity.value == "error"
    assert finding.loc.line == len(lines)  # the outermost call, where the reader can act


def test_a_macro_chain_deeper_than_the_cap_is_an_error_not_a_crash(tmp_path):
    depth = sys.getrecursionlimit()  # deep enough to overflow the stack without a cap
    lines = ["<!-- @macro m0 -->", "```bash", "echo leaf", "```", "<!-- @end -->"]
    for n in range(1, depth):
        lines += [f"<!-- @macro m{n} -->", f"<!-- @m{n - 1} -->", "<!-- @end -->"]
    lines.append(f"<!-- @m{depth - 1} -->")
    plan = parse_text("\n".join(lines) + "\n", str(tmp_path / "chain.md"))
    (finding,) = _codes(plan)["too-deep"]
    assert f"more than {MAX_DEPTH} deep" in finding.message and "macro 'm" in finding.message


def test_nested_blocks_deeper_than_the_cap_are_an_error_not_a_crash(tmp_path):
    depth = sys.getrecursionlimit()
    text = "<!-- @macro m -->\n" * depth + "<!-- @end -->\n" * depth
    text += "<!-- @ifhook h -->\n" * depth + "<!-- @endif -->\n" * depth
    plan = parse_text(text, str(tmp_path / "nested.md"))
    lines = [f.loc.line for f in _codes(plan)["too-deep"]]
    assert lines == [MAX_DEPTH + 1, 2 * depth + MAX_DEPTH + 1]
    assert "stray-end" not in _codes(plan)


def test_an_import_chain_deeper_than_the_cap_is_an_error(tmp_path):
    count = MAX_DEPTH + 5
    for n in range(count):
        (tmp_path / f"f{n}.sh").write_text(f"#@import f{n + 1}.sh\n" if n + 1 < count else "echo end\n")
    plan = parse_text("<!-- @import f0.sh -->\n", str(tmp_path / "main.md"))
    (finding,) = _codes(plan)["too-deep"]
    assert finding.loc.file.endswith(f"f{MAX_DEPTH - 1}.sh") and finding.loc.line == 1
    assert "import of" in finding.message


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/stdin", "/dev/null", "fifo"])
def test_import_refuses_what_is_not_a_regular_file_at_the_import_line(tmp_path, target):
    if target == "fifo":
        os.mkfifo(tmp_path / "fifo")  # nobody writes to it: reading would block forever
    path = tmp_path / "main.md"
    path.write_text(f"# Title\n\n<!-- @import {target} -->\n")
    plan = parse_workshop(str(path), no_init=True)
    (finding,) = _codes(plan)["unreadable-import"]
    assert (finding.loc.file, finding.loc.line) == (str(path), 3)
    assert "regular file" in finding.message or "device" in finding.message


def test_import_refuses_a_file_over_the_size_cap(tmp_path):
    big = tmp_path / "big.sh"
    with open(big, "wb") as f:
        f.truncate(MAX_BYTES + 1)  # sparse: no real disk used
    path = tmp_path / "main.sh"
    path.write_text("echo before\n#@import big.sh\n")
    plan = parse_workshop(str(path), no_init=True)
    (finding,) = _codes(plan)["unreadable-import"]
    assert finding.loc.line == 2 and "larger than" in finding.message


def test_the_workshop_itself_may_be_a_pipe_but_not_an_endless_one(tmp_path):
    with pytest.raises(ParseError, match="larger than"):
        parse_workshop("/dev/zero")


def test_over_long_directive_arguments_are_refused_where_they_stand(tmp_path):
    text = "echo hi\n#@print " + "\\" * 100_000 + "a\n"
    plan = parse_text(text, str(tmp_path / "w.sh"))
    (finding,) = _codes(plan)["directive-too-long"]
    assert finding.loc.line == 2


def _doubling(levels: int, leaf: str) -> list[str]:
    """Macros m1..mN, each calling the one below twice; m0 is `leaf`; the last line calls mN."""
    lines = ["<!-- @macro m0 -->", *leaf.splitlines(), "<!-- @end -->"]
    for n in range(1, levels + 1):
        lines += [f"<!-- @macro m{n} -->", f"<!-- @m{n - 1} -->", f"<!-- @m{n - 1} -->", "<!-- @end -->"]
    return lines + [f"<!-- @m{levels} -->"]


@pytest.mark.parametrize("leaf", ["", "<!-- @timeout 5s -->"])
def test_macros_that_expand_to_nothing_still_stop_at_the_work_bound(tmp_path, leaf):
    lines = _doubling(40, leaf)  # 2**40 calls: no step cap would ever be reached
    builder = Builder(no_init=True, home=None)
    plan = builder.build(str(tmp_path / "bomb.md"), "\n".join(lines) + "\n")
    (finding,) = _codes(plan)["too-much-work"]
    assert finding.loc.line == len(lines) and finding.severity.value == "error"
    assert blocking_findings(plan) == (finding,)
    assert MAX_WORK < builder.work <= MAX_WORK + 1


def test_imports_that_import_the_next_twice_stop_at_the_work_bound(tmp_path):
    for n in range(40):
        (tmp_path / f"f{n}.sh").write_text(f"#@import f{n + 1}.sh\n#@import f{n + 1}.sh\n" if n < 39 else "#@SHOW\n")
    (tmp_path / "main.md").write_text("# Title\n\n<!-- @import f0.sh -->\n")
    plan = parse_workshop(str(tmp_path / "main.md"), no_init=True)
    (finding,) = [f for f in plan.findings if f.code in BLOCKING]
    assert (finding.code, finding.loc.file, finding.loc.line) == ("too-much-work", str(tmp_path / "main.md"), 3)


def test_nested_shells_that_run_the_next_twice_stop_at_the_work_bound(tmp_path):
    for n in range(40):
        (tmp_path / f"f{n}.sh").write_text(f"#@$SHELL f{n + 1}.sh\n#@$SHELL f{n + 1}.sh\n" if n < 39 else "#@SHOW\n")
    (tmp_path / "main.sh").write_text("#@$SHELL f0.sh\n")
    plan = parse_workshop(str(tmp_path / "main.sh"), no_init=True)
    (finding,) = _codes(plan)["too-much-work"]
    assert (finding.loc.file, finding.loc.line) == (str(tmp_path / "main.sh"), 1)
    assert len(plan.shells) <= MAX_WORK


def test_text_repeated_past_the_bound_stops_with_the_call_located(tmp_path):
    big = "x" * (MAX_TEXT // 64)  # one big prose block, fine 64 times over
    text = f"<!-- @macro big -->\n{big}\n<!-- @end -->\n\n# Start\n\n" + "<!-- @big -->\n\n" * 80
    plan = parse_text(text, str(tmp_path / "w.md"))
    (finding,) = _codes(plan)["too-much-text"]
    calls = (MAX_TEXT - len(text) - len("# Start")) // len(big) + 1  # the file read, then each call
    assert finding.loc.line == 7 + 2 * (calls - 1)
    assert sum(len(step.text) for step in plan.steps) <= MAX_TEXT


def test_reading_many_big_imports_stops_at_the_text_bound(tmp_path):
    size = MAX_TEXT // 16
    for n in range(20):  # each a quarter of the file size limit: 40 MiB in all
        # Read, never expanded: a macro nobody calls. Only what is read can reach the bound.
        (tmp_path / f"part{n}.md").write_text(f"<!-- @macro unused{n} -->\n" + "y" * size + "\n<!-- @end -->\n")
    main = tmp_path / "main.md"
    main.write_text("".join(f"<!-- @import part{n}.md -->\n" for n in range(20)))
    plan = parse_workshop(str(main), no_init=True)
    (finding,) = _codes(plan)["too-much-text"]
    assert (finding.loc.file, finding.loc.line) == (str(main), 16)  # 16 files read fill the bound


def test_a_runaway_file_is_refused_by_check_and_list_exits_two(demorun, tmp_path, monkeypatch):
    monkeypatch.setattr("runner.parse.builder.MAX_WORK", 10_000)  # the same bound, reached sooner
    lines = _doubling(40, "<!-- @SHOW -->")
    path = tmp_path / "bomb.md"
    path.write_text("\n".join(lines) + "\n")
    checked = demorun("check", "--no-init", str(path))
    assert checked.exit_code == 2 and "too-much-work" in checked.output
    listed = demorun("list", "--no-init", str(path))
    assert listed.exit_code == 2
    assert listed.output.splitlines()[-2].startswith(f"{path}:{len(lines)}: error: ")
    assert "cut short" in listed.output.splitlines()[-1]
    assert demorun("list", "--no-init", "--json", str(path)).exit_code == 2
    assert demorun("lint", "--no-init", str(path)).exit_code == 1
