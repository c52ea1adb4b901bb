"""The pytest plugin: `pytest --demorun DIR` judges every command as `demorun check` does."""
from __future__ import annotations

import re
import textwrap
from importlib.metadata import entry_points

import pytest

from runner.cli import main

pytest_plugins = ("pytester",)

# Where the entry point is not installed (a plain checkout), load the plugin by name.
_LOAD = [] if any(e.name == "demorun" for e in entry_points(group="pytest11")) else ["-p", "runner.pytest_plugin"]

TOUR = """
# A tour

```bash
export GREETING=hello
```

```bash
false
```

```bash
echo "$GREETING"
## hello
```

```bash
printf 'NAME   STATUS   AGE\\nalpha  Ready    3d\\nbeta   Ready    5m\\n'
## NAME   STATUS   AGE
## alpha  Ready    1d
## beta   Pending  2m
```
"""


def _write(pytester: pytest.Pytester, name: str, text: str):
    path = pytester.path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # Other plugins only slow each inner run down.
    return pytester.runpytest(*_LOAD, "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:xdist",
                              *args)


def test_one_test_per_command_in_file_order(pytester):
    _write(pytester, "docs/tour.md", TOUR)
    _write(pytester, "docs/notes.md", "# No runnable fence\n\n```python\nprint(1)\n```\n")
    result = _run(pytester, "--demorun", "docs", "--collect-only", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert ids == ["docs/tour.md::line-4", "docs/tour.md::line-8", "docs/tour.md::line-12",
                   "docs/tour.md::line-17"]


def test_imported_and_macro_commands_are_named_by_call_site_and_origin(pytester):
    _write(pytester, "helpers.sh", "greet() { echo \"hi $1\"; }\n")
    _write(pytester, "tour.md", """
        <!-- @import helpers.sh -->

        <!-- @macro twice -->
        ```bash
        greet one
        ```
        <!-- @end -->

        <!-- @twice -->

        <!-- @twice -->
        """)
    result = _run(pytester, "--demorun", "tour.md", "--collect-only", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert ids == ["tour.md::line-1[helpers.sh:1]", "tour.md::line-9[tour.md:5]", "tour.md::line-11[tour.md:5]"]


def test_a_failure_reads_as_check_says_it_naming_row_and_column(pytester, monkeypatch):
    path = _write(pytester, "tour.md", TOUR)
    result = _run(pytester, "--demorun", "tour.md", "-rfEs")
    result.assert_outcomes(passed=2, failed=2)
    # The later commands ran, in the same shell, after `false` failed.
    table = "\n".join(result.outlines)
    assert "tour.md:17: output differs from ## block at tour.md:18-20: 1 row differs" in table
    assert "beta: STATUS expected Pending, got Ready" in table
    assert "AGE" not in re.sub(r"(?s).*1 row differs", "", table).split("\n")[1]  # ages are volatile
    # The very lines `demorun check` prints for the same failures.
    monkeypatch.chdir(pytester.path)
    monkeypatch.setenv("NO_COLOR", "1")
    from click.testing import CliRunner

    check = CliRunner().invoke(main, ["check", path.name])
    lines = check.output.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"FAIL tour\.md:\d", line))
    end = next(i for i, line in enumerate(lines) if "passed   failed" in line)
    failures = [line for line in lines[start:end] if line.strip()]
    assert len(failures) == 5 and all(line in result.outlines for line in failures)


def test_requires_is_a_skip_with_its_reason(pytester):
    _write(pytester, "needs.md", """
        <!-- @requires no-such-tool-for-demorun -->
        ```bash
        no-such-tool-for-demorun --version
        ```
        """)
    result = _run(pytester, "--demorun", "needs.md", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*missing tool no-such-tool-for-demorun (@requires at needs.md:1)*"])


def test_after_the_shell_exits_the_rest_is_skipped_saying_where(pytester):
    _write(pytester, "exits.md", """
        ```bash
        exit 3
        ```

        ```bash
        echo never
        ```
        """)
    result = _run(pytester, "--demorun", "exits.md", "-rs")
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*not run: the shell exited at exits.md:2*"])


def test_k_and_node_ids_select_and_earlier_commands_still_set_the_state(pytester):
    _write(pytester, "tour.md", TOUR)
    by_id = _run(pytester, "--demorun", "tour.md::line-12")
    by_id.assert_outcomes(passed=1)  # `export GREETING` ran first, unreported
    by_k = _run(pytester, "--demorun", "-k", "line-12 or line-17")
    by_k.assert_outcomes(passed=1, failed=1, deselected=2)


def test_configuration_comes_from_tool_demorun(pytester):
    pytester.makepyprojecttoml("""
        [tool.demorun]
        timeout = "20s"
        [tool.demorun.env]
        WHERE = "from-config"
        [tool.demorun.masks]
        build = 'build-[0-9]+'
        """)
    _write(pytester, "docs/conf.md", """
        ```bash
        echo "$WHERE build-$RANDOM$RANDOM"
        ## from-config build-1
        ```
        """)
    result = _run(pytester, "--demorun", "docs")
    result.assert_outcomes(passed=1)


def test_a_broken_workshop_is_an_error_and_the_others_still_run(pytester):
    (pytester.path / "a-broken.md").write_bytes(b"caf\xe9\n```bash\ntrue\n```\n")  # not UTF-8
    _write(pytester, "b-fine.md", "```bash\ntrue\n```\n")
    result = _run(pytester, "--demorun", ".")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*a-broken.md*not UTF-8*"])


def test_secrets_are_masked_in_failures_and_output(pytester):
    _write(pytester, "secret.md", """
        ```bash
        export API_TOKEN=tok-Z9y8X7w6
        ```

        ```bash
        echo "token is $API_TOKEN"
        ## token is nothing
        ```
        """)
    result = _run(pytester, "--demorun", "secret.md")
    result.assert_outcomes(passed=1, failed=1)
    assert "tok-Z9y8X7w6" not in result.stdout.str()
    assert "token is ***" in result.stdout.str()


def test_shards_cover_every_workshop_once(pytester):
    for i in range(6):
        _write(pytester, f"docs/w{i}.md", "```bash\ntrue\n```\n")
    (pytester.path / "docs" / "w6.md").write_bytes(b"caf\xe9\n```bash\ntrue\n```\n")  # broken: not UTF-8
    seen: list[str] = []
    for k in (1, 2, 3):
        result = _run(pytester, "--demorun", "docs", "--demorun-shard", f"{k}/3", "--collect-only", "-q")
        seen += [line.split("::")[0] for line in result.outlines if "::" in line]
    assert sorted(seen) == [f"docs/w{i}.md" for i in range(7)]


@pytest.mark.parametrize("args, message", [
    (["--demorun-shard", "0/2"], "--demorun-shard: '0/2'"),
    (["--demorun-timeout", "soon"], "--demorun-timeout"),
])
def test_bad_options_are_usage_errors(pytester, args, message):
    _write(pytester, "w.md", "```bash\ntrue\n```\n")
    result = _run(pytester, "--demorun", "w.md", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_without_the_option_workshops_are_left_alone(pytester):
    _write(pytester, "tour.md", TOUR)
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = _run(pytester)
    result.assert_outcomes(passed=1)


def test_scripts_run_when_named_not_when_found_in_a_folder(pytester):
    _write(pytester, "docs/tour.md", "```bash\ntrue\n```\n")
    _write(pytester, "docs/setup.sh", "touch ran-setup\n")
    in_folder = _run(pytester, "--demorun", "docs", "--collect-only", "-q")
    assert not any("setup.sh" in line for line in in_folder.outlines)
    named = _run(pytester, "--demorun", "docs/setup.sh")
    named.assert_outcomes(passed=1)
    assert (pytester.path / "docs" / "ran-setup").exists()


def test_xdist_loadfile_keeps_each_workshop_in_one_worker(pytester):
    pytest.importorskip("xdist")
    for name in ("a", "b", "c"):
        # Every command records the bash it ran in; later ones need the state of earlier ones.
        _write(pytester, f"docs/{name}.md", f"""
            ```bash
            export MINE={name}; echo $$ >> shells-{name}
            ```

            ```bash
            echo $$ >> shells-{name}; echo $MINE
            ## {name}
            ```

            ```bash
            echo $$ >> shells-{name}; echo $MINE
            ## {name}
            ```
            """)
    result = pytester.runpytest_subprocess(*_LOAD, "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
                                           "--demorun", "docs", "-n", "2", "--dist", "loadfile")
    result.assert_outcomes(passed=9)
    for name in ("a", "b", "c"):
        shells = (pytester.path / "docs" / f"shells-{name}").read_text().split()
        assert len(shells) == 3 and len(set(shells)) == 1  # one session per workshop


def test_lint_errors_and_an_empty_file_show_in_the_summary_without_rs(pytester):
    _write(pytester, "typo.md", """
        <!-- @SHWO -->
        ```bash
        echo hi
        ## hi
        ```
        """)
    _write(pytester, "notes.md", "# Notes\n\n```console\n$ echo hi\n```\n")
    result = _run(pytester, "--demorun", "typo.md", "notes.md")
    # As `check` does: the lint error fails the file (a test of its own), and its commands still run.
    result.assert_outcomes(passed=1, failed=1, skipped=1, warnings=1)  # @SHWO itself is skipped
    result.stdout.fnmatch_lines([
        "*typo.md:1: error: '@SHWO' is no directive*did you mean @SHOW?*unknown-directive*",
        "*DemorunWarning: notes.md: nothing to run: line 3: ```console fence is not run; use ```bash",
    ], consecutive=False)
    result.stdout.fnmatch_lines(["FAILED typo.md::lint*"])
    strict = _run(pytester, "--demorun", "notes.md", "-W", "error::runner.pytest_plugin.DemorunWarning")
    assert strict.ret != 0


def test_a_missing_tool_names_the_requires_line(pytester):
    _write(pytester, "tools.md", "```bash\nkubectl-nope get pods\n```\n")
    result = _run(pytester, "--demorun", "tools.md")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*kubectl-nope is not installed here*add <!-- @requires kubectl-nope -->"])


def test_a_skipped_workshop_says_how_to_get_the_tool(pytester):
    _write(pytester, "needs.md", "<!-- @requires no-such-tool-for-demorun -->\n```bash\necho hi\n```\n")
    result = _run(pytester, "--demorun", "needs.md", "-rs")
    result.stdout.fnmatch_lines(["*no-such-tool-for-demorun: not on PATH*install it or add its folder to PATH*"])
