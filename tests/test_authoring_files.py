"""Fences written as files (```` ```yaml file=PATH ```` and `<!-- @file PATH -->`), through the command line."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

WORKSHOP = """
    # Files

    <!-- @SHOW -->

    ```yaml file=manifests/web.yaml
    kind: Pod
    metadata:
      name: web
    ```

    <!-- @file scripts/hello.sh -->
    ```bash
    echo "hello from a file"
    ```

    ```bash
    grep name: manifests/web.yaml
    ##   name: web
    bash scripts/hello.sh
    ## hello from a file
    ```
    """


@pytest.mark.parametrize("mode", ["run", "check"])
def test_a_fence_is_written_where_it_says_before_the_next_command(demorun, workshop, mode):
    path = workshop(WORKSHOP)
    result = demorun(mode, path)
    assert result.exit_code == 0, result.output
    folder = Path(path).parent
    assert (folder / "manifests" / "web.yaml").read_text() == "kind: Pod\nmetadata:\n  name: web\n"
    assert (folder / "scripts" / "hello.sh").read_text() == 'echo "hello from a file"\n'


def test_a_bash_fence_that_is_a_file_is_not_run(demorun, workshop):
    path = workshop("""
        <!-- @file side-effect.sh -->
        ```bash
        touch ran-it
        ```

        ```bash
        test ! -e ran-it && test -e side-effect.sh
        ```
        """)
    assert demorun("check", path).exit_code == 0
    assert not (Path(path).parent / "ran-it").exists()


def test_run_shows_the_file_s_text_not_a_shell_command(demorun, workshop):
    result = demorun("run", workshop(WORKSHOP))
    assert "kind: Pod" in result.output
    assert "$ cat" not in result.output and "tee" not in result.output


@pytest.mark.parametrize("target", ["../outside.yaml", "/tmp/abs.yaml", "a/../../b.yaml", "~/x.yaml", "dir/"])
def test_a_path_outside_the_workshop_is_a_lint_error_and_nothing_runs(demorun, workshop, target):
    path = workshop(f"""
        ```yaml file={target}
        x: 1
        ```

        ```bash
        touch ran-it
        ```
        """)
    linted = demorun("lint", path)
    assert linted.exit_code == 1
    assert f"{path}:1: error: file={target}" in linted.output and "[file-outside-workshop]" in linted.output
    assert demorun("check", path).exit_code == 2
    assert not (Path(path).parent / "ran-it").exists()


def test_a_symlinked_folder_leading_out_fails_the_write(demorun, workshop, tmp_path):
    path = workshop("""
        ```text file=link/escaped.txt
        x
        ```

        ```bash
        echo after
        ```
        """, name="w/workshop.md")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, Path(path).parent / "link")
    result = demorun("run", path)
    assert result.exit_code == 1
    assert "leads outside the workshop's folder" in result.output
    assert not (outside / "escaped.txt").exists()


def test_file_directive_without_a_fence_is_an_error(demorun, workshop):
    path = workshop("""
        <!-- @file x.yaml -->
        Some prose instead of a fence.
        """)
    result = demorun("lint", path)
    assert f"{path}:1: error:" in result.output and "[file-without-fence]" in result.output


def test_list_json_shows_the_file_step(demorun, workshop):
    plan = json.loads(demorun("list", "--json", workshop(WORKSHOP)).output)
    files = [s for s in plan["steps"] if s["kind"] == "file"]
    assert [(f["target"], f["line"]) for f in files] == [("manifests/web.yaml", 5), ("scripts/hello.sh", 12)]
    assert files[0]["text"].startswith("kind: Pod\n")


def test_update_never_touches_a_file_fence(demorun, workshop):
    path = workshop("""
        ```text file=notes.txt
        ## not an output block
        old text
        ```

        ```bash
        echo new
        ## old
        ```
        """)
    assert demorun("check", "--update", path).exit_code == 0
    text = Path(path).read_text()
    assert "## not an output block\nold text\n" in text and "## new" in text


def test_a_fence_may_not_overwrite_the_workshop_itself(demorun, workshop):
    path = workshop("""
        ```text file=workshop.md
        gone
        ```

        ```bash
        echo x
        ```
        """)
    before = Path(path).read_text()
    result = demorun("lint", path)
    assert "writing it would replace the workshop" in result.output and result.exit_code == 1
    assert demorun("check", path).exit_code == 2
    assert Path(path).read_text() == before


def test_a_new_file_gets_0666_less_the_umask_and_a_rewrite_keeps_its_mode(demorun, workshop):
    path = workshop(WORKSHOP)
    folder = Path(path).parent
    (folder / "scripts").mkdir()
    (folder / "scripts" / "hello.sh").write_text("old\n")
    os.chmod(folder / "scripts" / "hello.sh", 0o750)
    old = os.umask(0o027)
    try:
        assert demorun("run", path).exit_code == 0
    finally:
        os.umask(old)
    assert (folder / "manifests" / "web.yaml").stat().st_mode & 0o777 == 0o640  # as `cat >` leaves it
    assert (folder / "scripts" / "hello.sh").stat().st_mode & 0o777 == 0o750  # the existing file's mode
    assert (folder / "scripts" / "hello.sh").read_text() == 'echo "hello from a file"\n'
    assert not [p for p in folder.rglob(".demorun-*")]  # no temporary file left


@pytest.mark.parametrize("spelling", ['```yaml file="a b.yaml"', "```yaml file='a b.yaml'"])
def test_a_quoted_path_in_the_info_string_is_taken_as_at_file_takes_it(demorun, workshop, spelling):
    path = workshop(f"""
        {spelling}
        kind: Pod
        ```

        <!-- @file "c d.yaml" -->
        ```yaml
        kind: Service
        ```

        ```bash
        cat "a b.yaml" "c d.yaml"
        ```
        """)
    assert demorun("check", path).exit_code == 0
    folder = Path(path).parent
    assert (folder / "a b.yaml").read_text() == "kind: Pod\n"
    assert (folder / "c d.yaml").read_text() == "kind: Service\n"
    assert sorted(p.name for p in folder.iterdir()) == ["a b.yaml", "c d.yaml", "workshop.md"]


def test_file_given_twice_is_an_error(demorun, workshop):
    path = workshop("""
        ```yaml file=i.yaml file=j.yaml
        kind: Pod
        ```
        """)
    result = demorun("lint", path)
    assert f"{path}:1: error:" in result.output and "'file=' given 2 times" in result.output
    assert result.exit_code != 0


@pytest.mark.parametrize("word", ["FILE=x.yaml", "{file=x.yaml}", "{.yaml file=x.yaml}", "file:x.yaml"])
def test_a_near_miss_of_file_is_a_warning_and_writes_nothing(demorun, workshop, word):
    path = workshop(f"""
        ```yaml {word}
        kind: Pod
        ```

        ```bash
        true
        ```
        """)
    result = demorun("lint", path)
    assert f"{path}:1: warning:" in result.output and "did you mean file=PATH?" in result.output
    assert demorun("run", path).exit_code == 0
    assert not (Path(path).parent / "x.yaml").exists()


def test_an_unclosed_quote_in_file_is_an_error(demorun, workshop):
    path = workshop("""
        ```yaml file="a b.yaml
        kind: Pod
        ```
        """)
    result = demorun("lint", path)
    assert f"{path}:1: error:" in result.output and "its quote is not closed" in result.output
