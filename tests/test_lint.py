"""`demorun lint`: findings with file:line and severity, exit 0/1/2, and bad input in one line."""
from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main

FINDING = re.compile(r"(?P<file>.+):(?P<line>\d+): (?P<severity>error|warning): .+ \[(?P<code>[a-z-]+)\]")


def lint(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, ["lint", *args], env=env, catch_exceptions=False)


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return str(path)


def findings(result) -> list[tuple[str, int, str, str]]:
    found = []
    for line in result.stdout.splitlines()[:-1]:
        m = FINDING.fullmatch(line)
        assert m, line
        found.append((m["file"], int(m["line"]), m["severity"], m["code"]))
    return found


def test_a_clean_workshop(tmp_path):
    path = write(tmp_path, "ok.md", """
        <!-- @SHOW -->
        ```bash
        echo hello
        ## hello
        ```
    """)
    result = lint("--no-init", path)
    assert (result.exit_code, result.stdout) == (0, "no problems in 1 file\n")


def test_warnings_alone_exit_zero(tmp_path):
    path = write(tmp_path, "warn.md", """
        ```bash
        ## nobody owns this
        ```
    """)
    result = lint("--no-init", path)
    assert result.exit_code == 0
    assert findings(result) == [(path, 1 + 1, "warning", "orphan-output")]
    assert result.stdout.splitlines()[-1] == "0 errors, 1 warning in 1 file"


def test_errors_exit_one_and_point_at_the_line_bash_complains_about(tmp_path):
    path = write(tmp_path, "bad.md", """
        Intro.
        <!-- @SHOW -->
        ```bash
        for x in 1 2; do
          echo (
        done
        ```
        <!-- @exit maybe -->
    """)
    result = lint("--no-init", path)
    assert result.exit_code == 1
    assert findings(result) == [(path, 5, "error", "bash-syntax"),
                                (path, 8, "error", "malformed-directive")]
    assert "unexpected token" in result.stdout


def test_unknown_names_warn_only_when_no_such_command_exists(tmp_path):
    path = write(tmp_path, "names.md", """
        <!-- @true -->
        <!-- @no_such_tool_for_demorun_tests -->
        <!-- @no_such_tool_for_demorun_tests again -->
    """)
    result = lint("--no-init", path)
    assert result.exit_code == 0
    assert [(line, severity, code) for _, line, severity, code in findings(result)] == [
        (2, "warning", "undefined-macro")]  # one warning per name
    assert "did you mean" not in result.stdout


@pytest.mark.parametrize(("typo", "meant"), [
    ("show", "SHOW"), ("SHWO", "SHOW"), ("timout 5s", "timeout"), ("Timeout 5s", "timeout"), ("HIDEE", "HIDE"),
    ("stopafter 5s", "stop-after"), ("retyr 30s", "retry"), ("imprt x.sh", "import"), ("nowaitbefor", "nowaitbefore"),
])
def test_a_typo_of_a_directive_in_any_case_is_an_error_naming_the_directive(tmp_path, typo, meant):
    path = write(tmp_path, "typo.md", f"<!-- @{typo} -->\n```bash\necho hi\n```\n<!-- @{typo} -->\n")
    result = lint("--no-init", path)
    assert result.exit_code == 1
    assert [(line, severity, code) for _, line, severity, code in findings(result)
            if code != "no-show"] == [(1, "error", "unknown-directive")]  # once per name
    assert f"did you mean @{meant}?" in result.stdout


@pytest.mark.parametrize("name", ["show_5", "make", "kubectl_wait", "cat"])
def test_names_that_are_no_typo_of_a_directive_stay_warnings(tmp_path, name):
    path = write(tmp_path, "own.md", f"<!-- @{name} -->\n")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "bash").symlink_to(shutil.which("bash"))
    result = lint("--no-init", path, env={"PATH": str(tmp_path / "bin")})  # not a command here either
    assert [(severity, code) for _, _, severity, code in findings(result)] == [("warning", "undefined-macro")]


def test_a_function_the_workshop_defines_is_no_unknown_name(tmp_path):
    path = write(tmp_path, "f.md", "```bash\nshwo() { echo shown; }\n```\n<!-- @shwo -->\n")
    assert "@shwo" not in lint("--no-init", path).stdout


def test_init_files_define_names_unless_no_init(tmp_path):
    home = tmp_path / "home"
    write(home, ".demoshrc", "#@hook show_notes NOTES\n")
    path = write(tmp_path, "w.md", "<!-- @show_notes -->\n")
    assert lint(path, env={"HOME": str(home)}).exit_code == 0
    assert "no problems" in lint(path, env={"HOME": str(home)}).stdout
    assert "undefined-macro" in lint("--no-init", path, env={"HOME": str(home)}).stdout


def test_a_folder_lints_markdown_with_runnable_fences_and_shell_scripts(tmp_path):
    write(tmp_path, "guide.md", "```bash\necho (\n```\n")
    write(tmp_path, "notes.md", "```yaml\nnot: [a workshop\n```\n")
    write(tmp_path, "sub/setup.sh", "if true; then\n")
    write(tmp_path, ".hidden/skip.sh", "echo (\n")
    result = lint("--no-init", str(tmp_path))
    assert result.exit_code == 1
    files = {Path(f).name for f, *_ in findings(result)}
    assert files == {"guide.md", "setup.sh"}
    assert result.stdout.splitlines()[-1].endswith("in 2 files")


def test_shared_imports_are_reported_once(tmp_path):
    write(tmp_path, "tools.sh", "echo (\n")
    write(tmp_path, "a.md", "<!-- @SHOW -->\n<!-- @import tools.sh -->\n```bash\necho a\n```\n")
    write(tmp_path, "b.md", "<!-- @SHOW -->\n<!-- @import tools.sh -->\n```bash\necho b\n```\n")
    result = lint("--no-init", str(tmp_path))
    assert [(Path(f).name, code) for f, _, _, code in findings(result)] == [
        ("tools.sh", "bash-syntax")]


def test_missing_and_unreadable_imports_are_errors(tmp_path):
    write(tmp_path, "blob.sh", "")
    (tmp_path / "blob.sh").write_bytes(b"\x00binary")
    path = write(tmp_path, "w.md", "<!-- @import gone.sh -->\n<!-- @import blob.sh -->\n")
    result = lint("--no-init", path)
    assert result.exit_code == 1
    assert [(line, code) for _, line, _, code in findings(result)] == [
        (1, "missing-import"), (2, "unreadable-import")]


def test_an_unreadable_file_found_in_a_folder_is_a_finding(tmp_path):
    (tmp_path / "blob.sh").write_bytes(b"\x00\x01")
    write(tmp_path, "ok.sh", "echo ok\n")
    result = lint("--no-init", str(tmp_path))
    assert result.exit_code == 1
    assert [(Path(f).name, code) for f, _, _, code in findings(result)] == [("blob.sh", "unreadable")]


@pytest.mark.parametrize("make, fragment", [
    (lambda d: str(d / "absent.md"), "no such file"),
    (lambda d: str(d), "no workshops in"),
    (lambda d: (d / "x.md").write_bytes(b"\x00\xff") and str(d / "x.md"), "binary"),
    (lambda d: (d / "y.md").write_bytes(b"ok\n\xff\n") and str(d / "y.md"), "y.md:2: "),
])
def test_bad_input_is_one_line_and_exit_two(tmp_path, make, fragment):
    result = lint("--no-init", make(tmp_path))
    assert result.exit_code == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("demorun: ") and fragment in line


def test_no_paths_is_a_usage_error():
    assert lint().exit_code == 2


LINT_FIXTURES = Path(__file__).parent / "fixtures" / "lint"


def _by_code(result) -> dict[str, list[str]]:
    """code -> the finding lines, for messages."""
    found: dict[str, list[str]] = {}
    for line in result.stdout.splitlines()[:-1]:
        found.setdefault(FINDING.fullmatch(line)["code"], []).append(line)
    return found


def test_migration_findings_quote_the_line_they_are_about():
    path = str(LINT_FIXTURES / "migration.md")
    result = lint("--no-init", path)
    lines = Path(path).read_text().splitlines()
    expected = {"no-show": [5], "commentary-as-output": [7, 23], "pasted-prompt": [11],
                "output-in-fence": [17]}
    by_code = _by_code(result)
    for code, at in expected.items():
        assert len(by_code[code]) == len(at), by_code[code]
        for finding, line in zip(by_code[code], at):
            assert finding.startswith(f"{path}:{line}: warning: ")
            assert repr(lines[line - 1].strip()) in finding, finding
    assert "```text" in by_code["output-in-fence"][0] and "line 16" in by_code["output-in-fence"][0]
    assert result.exit_code == 0  # warnings: demosh ran such files, and so can we


def test_a_section_mark_under_a_command_reads_as_commentary(tmp_path):
    path = write(tmp_path, "setup.sh", """
        ./install.sh
        #### INSTALL_END
        kubectl get pods
        ## NAME   READY
    """)
    (finding,) = _by_code(lint("--no-init", path))["commentary-as-output"]
    assert f"{path}:2:" in finding and "'#### INSTALL_END'" in finding


def test_files_run_by_another_workshop_need_no_show_of_their_own(tmp_path):
    write(tmp_path, "setup.md", "```bash\ntrue\n```\n")
    write(tmp_path, "main.md", "<!-- @SHOW -->\n```bash\n#@$SHELL setup.md\necho hi\n```\n")
    assert "no-show" not in _by_code(lint("--no-init", str(tmp_path)))


def test_mask_retry_and_expect_on_a_command_without_output_are_flagged():
    path = str(LINT_FIXTURES / "modifiers.md")
    result = lint("--no-init", path)
    found = _by_code(result)["modifier-without-output"]
    assert [int(FINDING.fullmatch(f)["line"]) for f in found] == [7, 15]
    assert "@mask applies to 'k3d cluster create demo'" in found[0]
    assert "@retry applies to 'kubectl rollout status deploy/web'" in found[1]
    assert result.exit_code == 0


def test_a_command_printing_a_table_is_no_pasted_output(tmp_path):
    path = write(tmp_path, "table.md", """
        <!-- @SHOW -->
        ```bash
        printf 'NAME   STATUS   AGE\\nweb    Ready    1s\\n'
        ```
    """)
    assert "output-in-fence" not in _by_code(lint("--no-init", path))


def test_pins_naming_nothing_in_the_block_are_flagged_with_what_it_has(tmp_path):
    path = write(tmp_path, "pins.md", """
        <!-- @SHOW -->
        <!-- @literal RESTART AGE -->
        ```bash
        kubectl get pods
        ## NAME    READY   RESTARTS   AGE
        ## web-0   1/1     0          5m
        ```

        <!-- @literal duration "Start Time" -->
        ```bash
        kubectl describe pod web-0 | grep Start
        ## Start Time:   Mon, 01 Jan 2024 10:00:00 +0000
        ```

        <!-- @volatile took -->
        ```bash
        echo done
        ```
        """)
    result = lint("--no-init", path)
    found = _by_code(result)
    assert [int(FINDING.fullmatch(f)["line"]) for f in found["unknown-pin"]] == [4]  # the command it applies to
    assert "'@literal RESTART' names no column or key" in found["unknown-pin"][0]
    assert "(it has age, name, ready, restarts)" in found["unknown-pin"][0]
    assert "@literal or @volatile applies to 'echo done'" in found["modifier-without-output"][0]
    assert result.exit_code == 0


def test_unknown_names_cost_time_in_line_with_the_file(tmp_path):
    import time

    from runner.modes.preamble import unknown_names
    from runner.parse.workshop import parse_text

    def timed(n: int) -> float:
        text = "".join(f"<!-- @no_such_name_{i} -->\n```bash\necho {i}\n```\n" for i in range(n))
        plan = parse_text(text, str(tmp_path / "w.md"))
        started = time.perf_counter()
        assert len(unknown_names([plan])) == n
        return time.perf_counter() - started

    small, large = min(timed(300) for _ in range(2)), min(timed(3_000) for _ in range(2))
    assert large < small * 10 * 3  # ten times the names and commands, well under thirty times the time
