"""`demorun check`: statuses and `##` output checked end to end, reports, and --update."""
from __future__ import annotations

import subprocess
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
    assert len(failed) == 1 and f"{path}:5" in failed[0].name


def test_no_workshops_in_a_folder_is_a_clear_error(demorun, tmp_path):
    (tmp_path / "notes.txt").write_text("nothing here")
    result = demorun("check", str(tmp_path))
    assert result.exit_code == 2
    assert "no workshops in" in result.output


def test_readme_examples_pass(demorun):
    result = demorun("check", str(REPO / "README.md"))
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
