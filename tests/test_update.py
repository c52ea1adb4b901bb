"""`--update`: real output written back as `##` lines, every other byte kept."""
from __future__ import annotations

import fcntl
import os
import re
import signal
import stat
import subprocess
import sys

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from runner import files
from runner.errors import DemorunError, WorkshopChanged
from runner.files import write_atomic
from runner.model import Expectation, SourceLoc
from runner.modes.update import (
    OutputEdit,
    apply_updates,
    read_fingerprints,
    unified_diff,
    updated_text,
)
from runner.verify.compare import compare_output

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
    real = "Installing...\nstep 1\nstep 2\nLinkerd edge-22 installed\nstatus: broken\n"
    new = updated_text(text, [edit_for(text, real)])
    assert new == doc(["Installing...", "...", "Linkerd ... installed", "status: broken"])


def test_lines_that_still_match_keep_the_authors_bytes():
    text = doc(["started at 2022-11-17T16:06:24Z", "result: ok"])
    new = updated_text(text, [edit_for(text, "started at 2023-05-05T05:05:05Z\nresult: failed\n")])
    assert new == doc(["started at 2022-11-17T16:06:24Z", "result: failed"])


def test_expect_exact_keeps_only_lines_that_are_exactly_equal():
    text = doc(["started at 2022-11-17T16:06:24Z", "result: ok"])
    new = updated_text(text, [edit_for(text, "started at 2023-05-05T05:05:05Z\nresult: failed\n", expect="exact")])
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
    with pytest.raises(WorkshopChanged, match="changed during the run"):
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


# The file as a whole: endings, byte-order mark, edits during the run, other writers.

def _check_update(demorun, path, *args: str):
    return demorun("check", "--update", *args, str(path))


STALE_CRLF = (b"# Title\r\n\r\nSome prose.\r\n\r\n```bash\r\necho new\r\n## old\r\n```\r\n\r\n"
              b"```bash\r\necho added\r\n```\r\n")


def test_crlf_file_stays_crlf_and_new_blocks_are_crlf(demorun, tmp_path):
    path = tmp_path / "w.md"
    path.write_bytes(STALE_CRLF)
    assert _check_update(demorun, path).exit_code == 0
    assert path.read_bytes() == STALE_CRLF.replace(b"## old", b"## new").replace(
        b"echo added\r\n", b"echo added\r\n## added\r\n")


def test_lone_cr_in_prose_stays_and_does_not_move_the_new_block(demorun, tmp_path):
    path = tmp_path / "w.md"
    before = b"Prose\rwith a lone CR.\n\n```bash\necho one\n```\n\nMore\r prose.\n```bash\necho two\n```\n"
    path.write_bytes(before)
    assert _check_update(demorun, path).exit_code == 0
    assert path.read_bytes() == before.replace(b"echo one\n", b"echo one\n## one\n").replace(
        b"echo two\n", b"echo two\n## two\n")


def test_mixed_endings_and_byte_order_mark_are_kept(demorun, tmp_path):
    path = tmp_path / "w.md"
    before = "\ufeffIntro\r\n\n```bash\r\necho é\n## x\r\n```\n".encode()
    path.write_bytes(before)
    assert _check_update(demorun, path).exit_code == 0
    assert path.read_bytes() == before.replace(b"## x", "## é".encode())


EDITS_ITSELF = """
```bash
echo stale
## old
```

```bash
printf 'Added during the run.\\n\\n' | cat - {name} > {name}.new && mv {name}.new {name}
```
"""


def test_a_file_edited_during_the_run_is_refused_and_kept(demorun, tmp_path):
    path = tmp_path / "w.md"
    path.write_text(EDITS_ITSELF.format(name="w.md"))
    result = _check_update(demorun, path)
    assert result.exit_code == 2
    assert "w.md changed during the run" in result.output and "nothing was written" in result.output
    edited = path.read_text()
    assert edited.startswith("Added during the run.\n") and "## old" in edited and "## stale" not in edited


def test_diff_of_a_file_edited_during_the_run_is_refused_too(demorun, tmp_path):
    path = tmp_path / "w.md"
    path.write_text(EDITS_ITSELF.format(name="w.md"))
    result = _check_update(demorun, path, "--diff")
    assert result.exit_code == 2 and "changed during the run" in result.output
    assert "+## stale" not in result.output


def test_a_read_only_file_is_refused_not_replaced(demorun, tmp_path):
    path = tmp_path / "w.md"
    path.write_text("```bash\necho new\n## old\n```\n")
    path.chmod(0o444)
    inode = path.stat().st_ino
    result = _check_update(demorun, path)
    assert result.exit_code == 2
    assert "read-only" in result.output
    assert path.stat().st_ino == inode and path.read_text().endswith("## old\n```\n")
    assert os.listdir(tmp_path) == ["w.md"]


def test_a_temporary_file_left_by_a_killed_update_is_cleaned_up(demorun, tmp_path):
    path = tmp_path / "w.md"
    path.write_text("```bash\necho new\n## old\n```\n")
    (tmp_path / ".w.md.demorun-tmp").write_text("half a file from a killed run")
    assert _check_update(demorun, path).exit_code == 0
    assert os.listdir(tmp_path) == ["w.md"]
    assert "## new" in path.read_text()


def test_a_killed_write_leaves_the_original_and_the_next_write_reuses_its_name(tmp_path):
    path = tmp_path / "w.md"
    path.write_text("original")
    script = ("import os, signal, runner.files as f\n"
              "def boom(*a): os.kill(os.getpid(), signal.SIGKILL)\n"
              "os.replace = boom\n"
              f"f.write_atomic({str(path)!r}, 'new')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert done.returncode == -signal.SIGKILL
    assert path.read_text() == "original" and (tmp_path / ".w.md.demorun-tmp").read_text() == "new"
    write_atomic(str(path), "newer")
    assert path.read_text() == "newer" and os.listdir(tmp_path) == ["w.md"]


def test_a_writer_waits_for_the_folder_lock_and_gives_up_with_a_message(tmp_path, monkeypatch):
    path = tmp_path / "w.md"
    path.write_text("old")
    monkeypatch.setattr(files, "LOCK_PATIENCE", 0.2)
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(DemorunError, match="another process has been writing"):
            write_atomic(str(path), "new")
    finally:
        os.close(fd)
    assert path.read_text() == "old"


def test_an_update_on_a_file_another_update_wrote_is_refused(tmp_path):
    path = tmp_path / "w.md"
    path.write_text(doc(["old"]))
    seen = read_fingerprints([str(path)])
    edit = edit_for(path.read_text(), "first\n")
    assert apply_updates({str(path): [edit]}, seen, show_diff=False, echo=lambda _: None) == {str(path)}
    with pytest.raises(WorkshopChanged, match="changed during the run"):
        apply_updates({str(path): [edit_for(doc(["old"]), "second\n")]}, seen, show_diff=False,
                      echo=lambda _: None)
    assert path.read_text() == doc(["first"])


CONCURRENT = """
```bash
sleep 1; echo one
## stale
```

```bash
echo two
```
"""


def test_two_updates_at_once_never_duplicate_or_misplace_blocks(tmp_path):
    path = tmp_path / "w.md"
    path.write_text(CONCURRENT)
    runs = [subprocess.Popen([sys.executable, "-m", "runner", "check", "--update", str(path)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for _ in range(3)]
    codes = sorted(run.wait(60) for run in runs)
    outputs = "".join(run.stdout.read() for run in runs)
    assert codes[0] == 0 and set(codes) <= {0, 2}, outputs
    assert codes.count(0) == 1 or "changed during the run" not in outputs
    assert path.read_text() == CONCURRENT.replace("## stale", "## one").replace(
        "echo two\n", "echo two\n## two\n")


# Property: everything but `##` lines is byte for byte the same, and a second update changes nothing.

_ENDINGS = st.sampled_from(["\n", "\r\n", "\r"])
_PROSE = st.lists(st.sampled_from(list("ab é中\t #*-`~<>!") + ["  ", "\u00a0", "😀"]), max_size=12).map("".join)
_OUTPUT_LINE = st.lists(st.sampled_from(list("xy 0\t.é") + ["...", "  "]), max_size=8).map("".join)
_OUTPUTS = st.lists(_OUTPUT_LINE, max_size=4).map(lambda lines: "".join(line + "\n" for line in lines))


@st.composite
def _workshops(draw) -> tuple[str, list[str]]:
    """Prose and fences with commands, some with `##` blocks, joined by random line endings."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        lines += draw(st.lists(_PROSE.filter(lambda t: not t.lstrip().startswith(("`", "~", "<", "#"))),
                               max_size=3))
        lines.append("```bash")
        for k in range(draw(st.integers(1, 3))):
            lines.append(f"echo c{len(lines)}{k}" + draw(st.sampled_from(["", " ", "\t", "  "])))
            lines += [f"## {line}" for line in draw(st.lists(_OUTPUT_LINE, max_size=2))]
        lines.append("```")
    endings = draw(st.lists(_ENDINGS, min_size=len(lines), max_size=len(lines)))
    text = "".join(line + end for line, end in zip(lines, endings))
    if draw(st.booleans()):
        text = text.rstrip("\r\n")
    return text, draw(st.lists(_OUTPUTS, min_size=12, max_size=12))


def _owned(text: str) -> tuple[list[str], set[int], list]:
    """The file's lines as written (split after each \\n), the `##` lines the parser gives commands, and them.

    A lone CR is not a line break to the parser (nor to `--update`): a line it
    joins to a `##` line is part of that `##` line.
    """
    from runner.model import Kind
    from runner.parse.workshop import parse_text

    plan = parse_text(text, "w.md")
    assume(not plan.errors)  # check never runs, so never updates, a workshop with errors
    commands = [s for s in plan.steps if s.kind is Kind.COMMAND]
    owned = {n for s in commands if s.expected for n in range(s.expected.loc.line, s.expected.end_line + 1)}
    return re.findall(r"[^\n]*\n|[^\n]+", text), owned, commands


def _edits(commands, outputs) -> list[OutputEdit]:
    """Edits for the generated commands; prose a lone CR pulled into a fence is not one bash would run."""
    ran = [s for s in commands if re.fullmatch(r"echo c\d+[ \t]*", s.text)]
    return [OutputEdit(s.end_line, s.expected, out) for s, out in zip(ran, outputs)]


@settings(max_examples=75, deadline=None)
@given(_workshops())
def test_update_changes_only_hash_lines_and_twice_is_once(case):
    text, outputs = case
    before, owned_before, commands = _owned(text)
    updated = updated_text(text, _edits(commands, outputs))
    after, owned_after, commands_after = _owned(updated)
    kept_before = "".join(line for n, line in enumerate(before, 1) if n not in owned_before)
    kept_after = "".join(line for n, line in enumerate(after, 1) if n not in owned_after)
    # A block added under the last line of a file without a final newline gives that line one.
    assert kept_after == kept_before or (not text.endswith("\n")
                                         and kept_after.rstrip("\r\n") == kept_before)
    assert [s.text for s in commands_after] == [s.text for s in commands]
    assert updated_text(updated, _edits(commands_after, outputs)) == updated


def test_ownership_and_mode_survive_an_update_by_root(tmp_path):
    if os.getuid() != 0:
        pytest.skip("only root can give a file away")
    path = tmp_path / "w.md"
    path.write_text("old")
    os.chown(path, 1234, 5678)
    path.chmod(0o640)
    write_atomic(str(path), "new")
    st = path.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (1234, 5678, 0o640)


def test_a_workshop_that_is_not_a_regular_file_is_not_updated(demorun, tmp_path):
    source = "```bash\necho new\n## old\n```\n"
    result = subprocess.run(["bash", "-c", f"{sys.executable} -m runner check --update <(printf %s {source!r})"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "not a regular file" in result.stdout + result.stderr


# Where --update may write: the workshop's folder tree, never init files, and one output per block.

def _stale(command: str = "echo new") -> str:
    return f"```bash\n{command}\n## old\n```\n"


def test_imports_from_outside_the_workshops_tree_are_reported_not_rewritten(demorun, tmp_path):
    outside, elsewhere = tmp_path / "shared" / "common.md", tmp_path / "abs" / "abs.md"
    for path in (outside, elsewhere):
        path.parent.mkdir()
        path.write_text(_stale())
    workshop = tmp_path / "talks" / "one" / "w.md"
    workshop.parent.mkdir(parents=True)
    workshop.write_text(f"<!-- @import ../../shared/common.md -->\n<!-- @import {elsewhere} -->\n" + _stale())
    result = _check_update(demorun, workshop)
    assert result.exit_code == 1
    assert outside.read_text() == _stale() and elsewhere.read_text() == _stale()
    assert "## new" in workshop.read_text()  # its own block is still written
    for path in ("common.md:2", "abs.md:2"):
        assert re.search(rf"{path}: not updated: .* lies outside .*talks/one, the folder tree of", result.output)


def test_a_folder_given_on_the_command_line_is_the_tree(demorun, tmp_path):
    common = tmp_path / "docs" / "common" / "x.md"
    common.parent.mkdir(parents=True)
    common.write_text(_stale())
    workshop = tmp_path / "docs" / "talk" / "w.md"
    workshop.parent.mkdir()
    workshop.write_text("# Talk\n\n<!-- @import ../common/x.md -->\n")
    assert demorun("check", "--update", str(tmp_path / "docs")).exit_code == 0
    assert "## new" in common.read_text()


def test_init_files_are_never_written(demorun, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".demoshrc.md").write_text(_stale("echo from-init") + "<!-- @macro greet -->\n" + _stale("echo hi")
                                       + "<!-- @end -->\n")
    before = (home / ".demoshrc.md").read_text()
    workshop = home / "w.md"  # inside home: the tree holds the init file, which stays out of reach
    workshop.write_text("<!-- @greet -->\n" + _stale())
    result = demorun("check", "--update", str(workshop), env={"HOME": str(home)})
    assert result.exit_code == 1
    assert (home / ".demoshrc.md").read_text() == before
    assert result.output.count("comes from the init file") == 2 and "## new" in workshop.read_text()


def test_a_macro_run_twice_with_different_output_is_reported(demorun, tmp_path):
    workshop = tmp_path / "w.md"
    text = ("<!-- @macro show -->\n" + _stale('echo "n=$N"') + "<!-- @end -->\n\n"
            "```bash\nN=1\n```\n<!-- @show -->\n```bash\nN=2\n```\n<!-- @show -->\n")
    workshop.write_text(text)
    result = _check_update(demorun, workshop)
    assert result.exit_code == 1 and workshop.read_text() == text
    assert re.search(r"w\.md:3: not updated: it ran 2 times with different output \(from \S*w\.md:11, \S*w\.md:15\)",
                     result.output)
    same = text.replace('echo "n=$N"', "echo same")
    workshop.write_text(same)
    assert _check_update(demorun, workshop).exit_code == 0
    assert workshop.read_text() == same.replace("## old", "## same")
