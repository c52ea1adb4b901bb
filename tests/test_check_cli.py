"""`demorun check`: statuses and `##` output checked end to end, reports, and --update."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

STALE = """
<!-- @SHOW -->
Prose stays as it is.

```bash
printf 'NAME   STATUS\\nalpha  Ready\\nbeta   Ready\\n'
## NAME   STATUS
## alpha  Ready
## beta   Pending
```

```bash
echo unchanged
## unchanged
```

```bash
echo "no block yet"
```
"""


def test_bundled_demos_pass(demorun):
    result = demorun("check", str(REPO / "demos"))
    assert result.exit_code == 0, result.output
    assert "quickstart.md" in result.output
    assert "k3d-cluster.md" in result.output  # listed as skipped where k3d is missing, or run


def test_stale_output_fails_naming_row_and_column(demorun, workshop):
    path = workshop(STALE)
    result = demorun("check", path)
    assert result.exit_code == 1
    assert f"{path}:5" in result.output  # the command
    assert f"{path}:6" in result.output  # its ## block
    assert "STATUS" in result.output and "Pending" in result.output and "Ready" in result.output


def test_update_then_check_passes_and_only_hash_lines_change(demorun, workshop):
    path = workshop(STALE)
    before = Path(path).read_text()
    result = demorun("check", "--update", path)
    assert result.exit_code == 0, result.output
    after = Path(path).read_text()
    changed = [line for line in after.splitlines() if line not in before.splitlines()]
    assert changed and all(line.startswith("##") for line in changed)
    assert "## beta   Ready" in after and "## no block yet" in after
    again = demorun("check", path)
    assert again.exit_code == 0, again.output


def test_update_diff_writes_nothing(demorun, workshop):
    path = workshop(STALE)
    before = Path(path).read_bytes()
    result = demorun("check", "--update", "--diff", path)
    assert "+## beta   Ready" in result.output and "-## beta   Pending" in result.output
    assert Path(path).read_bytes() == before


def test_exit_status_is_checked_and_at_exit_changes_it(demorun, workshop):
    failing = workshop("""
        ```bash
        false
        ```
        """, "failing.md")
    expected = workshop("""
        <!-- @exit 1 -->
        ```bash
        false
        ```
        """, "expected.md")
    assert demorun("check", failing).exit_code == 1
    assert demorun("check", expected).exit_code == 0


def test_keeps_going_by_default_and_fail_fast_stops(demorun, workshop):
    path = workshop("""
        ```bash
        echo one
        ## two
        ```
        ```bash
        echo three
        ## four
        ```
        """)
    everything = demorun("check", path)
    assert everything.exit_code == 1 and "2 failed" in everything.output
    first = demorun("check", "--fail-fast", path)
    assert first.exit_code == 1 and "1 failed" in first.output


def test_skip_sections_are_counted_as_skipped(demorun, workshop):
    path = workshop("""
        <!-- @SKIP -->
        ```bash
        exit 9
        ```
        <!-- @SHOW -->
        ```bash
        echo ok
        ## ok
        ```
        """)
    result = demorun("check", path)
    assert result.exit_code == 0, result.output
    assert "1 skipped" in result.output


def test_missing_requirement_skips_exit_3_and_strict_fails(demorun, workshop):
    path = workshop("""
        <!-- @requires surely-not-a-tool-xyz -->
        ```bash
        echo hi
        ```
        """)
    result = demorun("check", path)
    assert result.exit_code == 3
    assert "surely-not-a-tool-xyz" in result.output
    assert demorun("check", "--strict", path).exit_code == 1


def test_configuration_error_is_exit_2_naming_file_and_key(demorun, workshop, tmp_path):
    (tmp_path / "demorun.toml").write_text('timeout = "whenever"\n')
    path = workshop("```bash\necho hi\n```\n")
    result = demorun("check", path)
    assert result.exit_code == 2
    assert "demorun.toml" in result.output and "'timeout'" in result.output


def test_configured_env_reaches_the_session(demorun, workshop, tmp_path):
    (tmp_path / "demorun.toml").write_text('[env]\nGREETING = "hello from config"\n')
    path = workshop("""
        ```bash
        echo "$GREETING"
        ## hello from config
        ```
        """)
    result = demorun("check", path)
    assert result.exit_code == 0, result.output


def test_secrets_are_masked_in_every_artefact(demorun, workshop, tmp_path):
    path = workshop("""
        ```bash
        export API_TOKEN=s3cr3t-value-123
        echo "token is $API_TOKEN"
        ## token is something else
        ```
        """)
    junit, html = tmp_path / "r.xml", tmp_path / "r.html"
    result = demorun("check", "--junit", str(junit), "--html", str(html), path,
                     env={"GITHUB_ACTIONS": "true"})
    assert result.exit_code == 1
    assert "::error file=" in result.output
    for text in (result.output, junit.read_text(), html.read_text()):
        assert "s3cr3t-value-123" not in text
        assert "***" in text


def test_junit_report_reads_back_in_a_real_consumer(demorun, workshop, tmp_path):
    junitparser = pytest.importorskip("junitparser")
    path = workshop(STALE)
    out = tmp_path / "report.xml"
    demorun("check", "--junit", str(out), path)
    xml = junitparser.JUnitXml.fromfile(str(out))
    cases = [case for suite in xml for case in suite]
    assert len(cases) == 3
    failed = [case for case in cases if case.result and not case.is_passed]
    assert len(failed) == 1 and (failed[0]._elem.get("file"), failed[0]._elem.get("line")) == (path, "5")


def test_no_workshops_in_a_folder_is_a_clear_error(demorun, tmp_path):
    (tmp_path / "notes.txt").write_text("nothing here")
    result = demorun("check", str(tmp_path))
    assert result.exit_code == 2
    assert "no workshops in" in result.output


def test_readme_examples_pass(demorun):
    # Its tutorial calls `demorun`, as a reader with .venv/bin on PATH does.
    path = f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ.get('PATH', '')}"
    result = demorun("check", str(REPO / "README.md"), env={"PATH": path})
    assert result.exit_code == 0, result.output


def test_git_diff_after_update_shows_only_hash_lines(demorun, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    workshop = repo / "w.md"
    workshop.write_text(STALE.lstrip("\n"))
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    assert demorun("check", "--update", str(workshop)).exit_code == 0
    diff = subprocess.run([*git, "diff", "-U0"], capture_output=True, text=True, check=True).stdout
    changes = [line for line in diff.splitlines()
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert changes and all(line[1:].startswith("##") for line in changes)


def test_update_writes_secrets_as_stars_and_they_match_again(demorun, workshop):
    path = workshop("""
        ```bash
        export DB_PASSWORD=hunter2-but-longer
        echo "connecting with $DB_PASSWORD"
        ```
        """)
    assert demorun("check", "--update", path).exit_code == 0
    text = Path(path).read_text()
    assert "## connecting with ***" in text
    assert text.count("hunter2-but-longer") == 1  # only where the workshop itself sets it
    again = demorun("check", path)
    assert again.exit_code == 0, again.output


# Nothing checked is not a pass.

GITHUB_README = """
# A tool

Install it and look:

```console
$ kubectl get pods
NAME   READY
```

```
kubectl apply -f app.yaml
```
"""


def test_a_file_with_nothing_to_run_is_empty_says_where_its_fences_are_and_fails_strict(demorun, workshop, tmp_path):
    path = workshop(GITHUB_README, "README.md")
    result = demorun("check", "--junit", str(tmp_path / "j.xml"), path)
    assert result.exit_code == 0, result.output
    assert "PASS" not in result.output
    assert (f"EMPTY {path}  nothing to run: line 5: ```console fence is not run; use ```bash; "
            "line 10: bare ``` fence is not run; use ```bash") in result.output
    assert "1 empty file" in result.output.splitlines()[-1]
    assert 'skipped="1"' in (tmp_path / "j.xml").read_text()
    strict = demorun("check", "--strict", "--junit", str(tmp_path / "j.xml"), path)
    assert strict.exit_code == 1
    assert "1 empty file (--strict: a failure)" in strict.output.splitlines()[-1]
    assert 'failures="1"' in (tmp_path / "j.xml").read_text()


def test_a_typo_in_a_directive_is_said_once_before_the_run_and_fails_the_check(demorun, workshop):
    path = workshop("""
        <!-- @SHWO -->
        <!-- @timout 5s -->
        ```bash
        echo hi
        ## hi
        ```
        """)
    result = demorun("check", path)
    assert result.exit_code == 1, result.output
    said = f"{path}:1: error: '@SHWO' is no directive"
    assert result.output.count(said) == 1 and "did you mean @SHOW?" in result.output
    assert result.output.index(said) < result.output.index(f"FAIL {path}")  # said before the verdict
    assert f"{path}:2: error:" in result.output and "did you mean @timeout?" in result.output
    assert f"LINT {path}:1" in result.output
    assert "2 lint errors (a failure)" in result.output.splitlines()[-1]
    assert demorun("check", "--strict", path).exit_code == 1
    ran = demorun("run", path)  # run says them and goes on, as demosh did
    assert ran.exit_code == 0 and "the run goes on" in ran.output, ran.output


@pytest.mark.parametrize("problem", ["<!-- @expect exakt -->", "<!-- @import no-such-helpers.sh -->"])
def test_a_malformed_directive_or_a_missing_import_fails_the_check(demorun, workshop, problem):
    path = workshop(f"{problem}\n```bash\necho hi\n## hi\n```\n")
    result = demorun("check", path)
    assert result.exit_code == 1 and f"{path}:1: error:" in result.output, result.output
    assert demorun("check", "--strict", path).exit_code == 1


def test_with_j_the_lint_errors_are_said_once_with_their_file(demorun, workshop):
    first = workshop("<!-- @SHWO -->\n```bash\necho one\n```\n", "one.md")
    second = workshop("```bash\necho two\n```\n", "two.md")
    result = demorun("check", "-j", "2", first, second)
    assert result.exit_code == 1, result.output
    assert result.output.count(f"{first}:1: error: '@SHWO' is no directive") == 1
    assert result.output.index("'@SHWO'") < result.output.index(f"FAIL {first}")
    assert f"LINT {first}:1" in result.output  # and listed in the summary, as a failure
    # Said with the file's result, after its commands ran: so in the past tense.
    assert f"1 lint error in {first}; the check ran the file and fails it on them" in result.output
    assert "the check runs the file" not in result.output


def test_a_folder_leaves_out_files_with_nothing_to_run_and_v_says_why(demorun, workshop, tmp_path):
    workshop("```bash\necho hi\n## hi\n```\n", "docs/tour.md")
    workshop(GITHUB_README, "docs/README.md")
    workshop("```bash\n# only a comment\n```\n", "docs/notes.md")
    quiet = demorun("check", str(tmp_path / "docs"))
    assert quiet.exit_code == 0, quiet.output
    assert "README.md" not in quiet.output and "notes.md" not in quiet.output
    told = demorun("check", "-v", str(tmp_path / "docs"))
    assert "docs/README.md: not a workshop: no runnable command: line 5: ```console fence" in told.output
    assert "docs/notes.md: not a workshop: no runnable command: line 1: ```bash fence holds no command" in told.output
    assert "EMPTY" not in told.output


def test_a_folder_with_no_workshop_at_all_is_a_usage_error_saying_what_it_found(demorun, workshop, tmp_path):
    workshop(GITHUB_README, "docs/README.md")
    result = demorun("check", str(tmp_path / "docs"))
    assert result.exit_code == 2
    assert "no workshops in" in result.output and "1 Markdown file(s) without one" in result.output
    workshop("```bash\n# only a comment\n```\n", "docs/notes.md")
    result = demorun("check", str(tmp_path / "docs"))
    assert result.exit_code == 2 and "2 Markdown file(s) without one" in result.output  # a comment is no command


def test_update_says_updated_and_its_ending_says_what_is_left_failing(demorun, workshop):
    path = workshop("""
        ```bash
        echo one
        ## two
        ```

        ```bash
        false
        ```

        ```bash
        echo new
        ```
        """)
    result = demorun("check", "--update", path)
    assert result.exit_code == 1  # `false` still fails: no ## block can fix it
    # As the summary counts it: the blocks to be written are updated, not failed.
    assert f"FAIL {path}  0 passed, 1 failed, 0 skipped, 2 updated" in result.output
    assert "(2 ## block(s) out of date)" in result.output
    summary = result.output[result.output.index(f"updated {path}"):]
    assert f"UPDATED {path}:2  echo one  (## block at {path}:3 rewritten with the real output)" in summary
    assert f"UPDATED {path}:11  echo new  (its output written under it as a ## block)" in summary
    assert f"FAIL {path}:7  false" in summary and f"FAIL {path}:2" not in summary
    assert summary.splitlines()[-1].startswith("1 failed, 0 passed, 0 skipped, 2 updated")
    fixed = workshop("```bash\necho one\n## two\n```\n", "fixed.md")
    result = demorun("check", "--update", fixed)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith("0 failed, 0 passed, 0 skipped, 1 updated")
    assert re.search(rf"^UPDATED +{re.escape(fixed)} ", result.output, re.M)  # the table's label


def test_update_diff_writes_nothing_so_nothing_is_updated(demorun, workshop):
    path = workshop("```bash\necho one\n## two\n```\n")
    result = demorun("check", "--update", "--diff", path)
    assert result.exit_code == 1 and "UPDATED" not in result.output


# Missing tools point at the cure.

def test_a_skipped_file_carries_the_install_hints_run_prints(demorun, workshop, tmp_path):
    path = workshop("""
        <!-- @requires k3d surely-not-a-tool-xyz -->
        ```bash
        echo hi
        ```
        """)
    env = {"PATH": _only_bash(tmp_path)}  # no k3d, whatever this machine has
    result = demorun("check", "--junit", str(tmp_path / "j.xml"), path, env=env)
    assert "https://k3d.io" in (tmp_path / "j.xml").read_text()
    ran = demorun("run", path, env=env)
    hints = [line for line in ran.output.splitlines() if line.startswith("  - ")]
    assert len(hints) >= 2 and all(line in result.output for line in hints), result.output
    assert "https://k3d.io" in result.output and "install it or add its folder to PATH" in result.output


def _only_bash(tmp_path: Path) -> str:
    """A PATH holding bash and nothing else."""
    folder = tmp_path / "only-bash"
    folder.mkdir(exist_ok=True)
    if not (folder / "bash").exists():
        (folder / "bash").symlink_to(shutil.which("bash"))
    return str(folder)


@pytest.mark.parametrize(("name", "directive"), [("w.md", "<!-- @requires kubectl-nope -->"),
                                                 ("w.sh", "#@requires kubectl-nope")])
def test_a_missing_tool_is_named_with_the_requires_line_that_would_have_skipped_the_file(
        demorun, workshop, name, directive):
    body = "kubectl-nope get pods\n"
    path = workshop(f"```bash\n{body}```\n" if name.endswith(".md") else body, name)
    result = demorun("check", path)
    assert result.exit_code == 1
    assert "kubectl-nope is not installed here" in result.output and directive in result.output


def test_a_missing_path_is_named_without_offering_requires(demorun, workshop):
    path = workshop("```bash\n./setup-cluster.sh\n```\n")
    result = demorun("check", path)
    assert "./setup-cluster.sh does not exist" in result.output and "@requires" not in result.output


def test_a_known_tool_gets_its_install_hint(demorun, workshop, tmp_path):
    path = workshop("```bash\nk3d cluster list\n```\n")
    result = demorun("check", path, env={"PATH": _only_bash(tmp_path)})  # no k3d, whatever the machine has
    assert "k3d is not installed here (install it: https://k3d.io" in result.output
    assert "<!-- @requires k3d -->" in result.output


def test_many_lint_errors_are_said_up_to_twenty_then_counted(demorun, workshop):
    path = workshop("".join(f"<!-- @exit maybe{n} -->\n```bash\necho {n}\n```\n" for n in range(30)))
    result = demorun("check", path)
    assert result.exit_code == 1, result.output
    said = [line for line in result.output.splitlines() if line.startswith(f"{path}:") and ": error: " in line]
    assert len(said) == 20 and all(line.endswith("[malformed-directive]") for line in said)
    assert f"… and 10 more: `demorun lint {path}` lists them all" in result.output
    assert "30 lint errors" in result.output.splitlines()[-1]


def test_a_signal_while_update_writes_still_leaves_the_reports(demorun, workshop, tmp_path, monkeypatch):
    import signal

    import runner.modes.check as check
    from runner.errors import Aborted

    def stopped(*args, **kwargs):
        raise Aborted(signal.SIGTERM)

    monkeypatch.setattr(check, "update_outputs", stopped)
    path = workshop("```bash\necho one\n## two\n```\n")
    result = demorun("check", "--update", "--junit", str(tmp_path / "j.xml"), path)
    assert result.exit_code == 143
    assert "terminated (SIGTERM); reports written" in result.output and (tmp_path / "j.xml").exists()


@pytest.mark.parametrize(("update", "reads"), [(False, 1), (True, 2)])
def test_a_file_is_parsed_once_unless_update_must_fingerprint_what_it_parses(demorun, workshop, monkeypatch,
                                                                               update, reads):
    import runner.modes.units
    import runner.parse.workshop

    parsed = []
    real = runner.parse.workshop.parse_workshop

    def counting(file, **kwargs):
        parsed.append(file)
        return real(file, **kwargs)

    monkeypatch.setattr(runner.parse.workshop, "parse_workshop", counting)
    monkeypatch.setattr(runner.modes.units, "parse_workshop", counting)
    path = workshop("```bash\necho hi\n## hi\n```\n")
    result = demorun("check", *(["--update"] if update else []), path)
    assert result.exit_code == 0, result.output
    assert parsed == [path] * reads
