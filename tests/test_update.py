"""`--update`: real output written back as `##` lines, every other byte kept."""
from __future__ import annotations

import os
import re
import stat

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from runner.errors import DemorunError, ParseError
from runner.files import write_atomic
from runner.model import Expectation, SourceLoc
from runner.modes.update import OutputEdit, unified_diff, updated_text
from runner.verify import compare_output

BLOCK = re.compile(r"\s*##(?: |$)")


def block_after(text: str, command_line: int) -> tuple[list[str], Expectation | None]:
    """The `##` block under the command ending at `command_line`, read as FORMAT.md says."""
    lines = text.split("\n")
    lines = [line.removesuffix("\r") for line in lines]
    found = []
    i = command_line
    while i < len(lines) and BLOCK.match(lines[i]):
        rest = lines[i].lstrip()[2:]
        found.append(rest[1:] if rest.startswith(" ") else rest)
        i += 1
    if not found:
        return [], None
    return found, Expectation(tuple(found), SourceLoc("w.md", command_line + 1), command_line + len(found))


def doc(block: list[str] | None, eol: str = "\n", final_newline: bool = True, indent: str = "") -> str:
    lines = ["# Title", "", "Some prose.", "", f"{indent}```bash", f"{indent}kubectl get pods"]
    lines += [f"{indent}## {line}" if line else f"{indent}##" for line in block or []]
    lines += [f"{indent}```", "", "More prose."]
    text = eol.join(lines)
    return text + eol if final_newline else text


def edit_for(text: str, new_output: str, **extra) -> OutputEdit:
    _, old = block_after(text, 6)
    return OutputEdit(6, old, new_output, **extra)


def test_replaces_a_failing_block_and_keeps_the_rest():
    text = doc(["NAME    READY   STATUS", "web-0   1/1     Running"])
    new = updated_text(text, [edit_for(text, "NAME    READY   STATUS\nweb-0   0/1     Pending\n")])
    assert new == doc(["NAME    READY   STATUS", "web-0   0/1     Pending"])


def test_adds_a_block_under_a_command_that_had_none():
    text = doc(None)
    new = updated_text(text, [OutputEdit(6, None, "hello\n\nworld\n\n")])
    assert new == doc(["hello", "", "world"])


def test_adds_no_block_for_empty_output():
    text = doc(None)
    assert updated_text(text, [OutputEdit(6, None, "\n\x1b[0m\n")]) == text


def test_a_block_whose_command_now_prints_nothing_becomes_a_bare_marker():
    text = doc(["old output"])
    assert updated_text(text, [edit_for(text, "")]) == doc([""])


def test_writes_normalised_output():
    text = doc(None)
    new = updated_text(text, [OutputEdit(6, None, "\x1b[32mok\x1b[0m   \r\n50%\r100%\r\n")])
    assert new == doc(["ok", "100%"])


def test_keeps_crlf_endings_and_a_missing_final_newline():
    text = doc(["old"], eol="\r\n", final_newline=False)
    new = updated_text(text, [edit_for(text, "new\n")])
    assert new == doc(["new"], eol="\r\n", final_newline=False)


def test_inserting_at_the_last_line_of_a_file_without_final_newline():
    text = "#!/bin/bash\necho hi"
    assert updated_text(text, [OutputEdit(2, None, "hi\n")]) == "#!/bin/bash\necho hi\n## hi"


def test_indented_fences_get_indented_blocks():
    text = doc(None, indent="   ")
    assert updated_text(text, [OutputEdit(6, None, "x\n")]) == doc(["x"], indent="   ")


def test_author_ellipsis_lines_that_still_match_are_kept():
    text = doc(["Installing...", "...", "Linkerd ... installed", "status: ok"])
    new = updated_text(text, [edit_for(text, "Installing...\nstep 1\nstep 2\nLinkerd edge-22 installed\nstatus: broken\n")])
    assert new == doc(["Installing...", "...", "Linkerd ... installed", "status: broken"])


def test_lines_that_still_match_keep_the_authors_bytes():
    text = doc(["started at 2022-11-17T16:06:24Z", "result: ok"])
    new = updated_text(text, [edit_for(text, "started at 2023-05-05T05:05:05Z\nresult: failed\n")])
    assert new == doc(["started at 2022-11-17T16:06:24Z", "result: failed"])


def test_exact_mode_keeps_only_lines_that_are_exactly_equal():
    text = doc(["started at 2022-11-17T16:06:24Z", "result: ok"])
    new = updated_text(text, [edit_for(text, "started at 2023-05-05T05:05:05Z\nresult: failed\n", mode="exact")])
    assert new == doc(["started at 2023-05-05T05:05:05Z", "result: failed"])


def test_a_block_that_already_matches_is_left_alone():
    text = doc(["pod web-68cc8bc689-j4ph2 up 5s"])
    assert updated_text(text, [edit_for(text, "pod web-7f9c4d5b8-x2kqz up 9m\n")]) == text


def test_several_edits_in_one_file():
    text = "```bash\necho a\n## x\necho b\necho c\n## y\n```\n"
    edits = [OutputEdit(2, Expectation(("x",), SourceLoc("w.md", 3), 3), "a\n"),
             OutputEdit(4, None, "b\n"),
             OutputEdit(5, Expectation(("y",), SourceLoc("w.md", 6), 6), "c\n")]
    assert updated_text(text, edits) == "```bash\necho a\n## a\necho b\n## b\necho c\n## c\n```\n"


def test_a_block_that_moved_since_the_run_is_refused():
    text = doc(["old"])
    moved = Expectation(("old",), SourceLoc("w.md", 3), 3)
    with pytest.raises(ParseError, match="changed during the run"):
        updated_text(text, [OutputEdit(2, moved, "new\n")])


lines = st.lists(st.from_regex(r"[ -~]{0,30}", fullmatch=True).map(str.rstrip), max_size=6)
tables = st.lists(st.tuples(st.from_regex(r"[a-z]{1,6}", fullmatch=True), st.sampled_from(("1/1", "0/1", "2/2")),
                            st.sampled_from(("Running", "Pending", "Error"))), max_size=5).map(
    lambda rows: ["NAME     READY   STATUS"] + [f"{n:<8} {r:<7} {s}" for n, r, s in rows])
outputs = st.one_of(lines, tables, st.lists(st.sampled_from(["...", "a", "b", "x ... y", "x 1 y", ""]), max_size=6))
layouts = st.tuples(st.sampled_from(("\n", "\r\n")), st.booleans(), st.sampled_from(("", "  ")))


@settings(max_examples=150)
@given(st.one_of(st.none(), outputs), outputs, layouts)
def test_update_then_check_passes(old, new_lines, layout):
    eol, final, indent = layout
    text = doc(old, eol, final, indent)
    new_output = "\n".join(new_lines) + "\n"
    updated = updated_text(text, [edit_for(text, new_output)])
    block, _ = block_after(updated, 6)
    if any(line.strip() for line in new_lines) or old:
        assert compare_output(block, new_output) is None
    prose = updated.split(eol)
    assert prose[:6] == text.split(eol)[:6] and prose[-3:] == text.split(eol)[-3:]


@settings(max_examples=100)
@given(outputs, layouts, st.randoms(use_true_random=False))
def test_update_of_matching_output_changes_no_byte(old, layout, rng):
    eol, final, indent = layout
    text = doc(old, eol, final, indent)
    rows = [line for line in old if line.strip() != "..."]
    if old and old[0].startswith("NAME"):
        rows = old[:1] + rng.sample(old[1:], len(old) - 1)
    output = "\n".join(rows).replace(" ... ", " anything ") + "\n"
    edit = edit_for(text, output)
    assume(edit.old is not None)
    assert compare_output(edit.old.lines, output) is None
    assert updated_text(text, [edit]) == text


def test_write_atomic_keeps_mode_bits_and_bytes(tmp_path):
    path = tmp_path / "w.md"
    path.write_bytes(b"old\r\n")
    os.chmod(path, 0o750)
    write_atomic(str(path), "new\r\nline")
    assert path.read_bytes() == b"new\r\nline"
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    assert os.listdir(tmp_path) == ["w.md"]


def test_write_atomic_through_a_symlink_writes_the_target(tmp_path):
    target = tmp_path / "real.md"
    target.write_text("old")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    write_atomic(str(link), "new")
    assert link.is_symlink() and target.read_text() == "new"


def test_write_atomic_reports_a_folder_it_cannot_write_in(tmp_path):
    with pytest.raises(DemorunError, match="cannot write .*missing"):
        write_atomic(str(tmp_path / "missing" / "w.md"), "new")


def test_unified_diff_shows_the_change_and_a_missing_final_newline():
    old = "a\nb\nc"
    new = "a\nB\nc"
    diff = unified_diff("w.md", old, new)
    assert diff.startswith("--- a/w.md\n+++ b/w.md\n")
    assert "-b\n+B\n" in diff
    assert diff.endswith(" c\n\\ No newline at end of file\n")
    assert unified_diff("w.md", old, old) == ""
