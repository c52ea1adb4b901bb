"""A new user's first hour: what `make test` installs, and a CI check that fails a broken workshop.

Each test goes through the command line (or make), as a user would.
"""
from __future__ import annotations

import shutil
import subprocess
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from conftest import REPO

pytest_plugins = ("pytester",)


def _make_tools(tmp_path: Path, *extra: str) -> tuple[list[str], Path]:
    """`make tools` on a machine with neither tmux nor chromium, as root, apt-get recording its arguments."""
    bin_ = tmp_path / "bin"
    bin_.mkdir(exist_ok=True)
    called = tmp_path / "apt-get.log"
    (bin_ / "apt-get").write_text(f'#!/bin/sh\necho "$@" >> {called}\n')
    (bin_ / "id").write_text("#!/bin/sh\necho 0\n")
    for stub in ("apt-get", "id"):
        (bin_ / stub).chmod(0o755)
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    done = subprocess.run([make, "-s", "-C", str(REPO), "tools", *extra], capture_output=True, text=True,
                          env={"PATH": str(bin_), "HOME": str(tmp_path)}, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines(), called


def test_make_test_says_on_its_first_line_what_apt_get_installs_and_how_to_skip_it(tmp_path):
    lines, called = _make_tools(tmp_path)
    assert lines[0].startswith("make: installing tmux chromium with apt-get"), lines
    assert "NO_APT=1" in lines[0]
    assert "install -y -qq tmux chromium" in called.read_text()


def test_no_apt_zero_does_not_skip_the_install(tmp_path):
    lines, called = _make_tools(tmp_path, "NO_APT=0")
    assert lines[0].startswith("make: installing tmux chromium with apt-get"), lines
    assert "install -y -qq tmux chromium" in called.read_text()


def test_no_apt_skips_the_install_and_says_so(tmp_path):
    lines, called = _make_tools(tmp_path, "NO_APT=1")
    assert lines == ["make: not installing tmux chromium (NO_APT is set): the tests that need them will skip"]
    assert not called.exists()


def test_make_test_runs_the_announcement_before_anything_else():
    order = subprocess.run(["make", "-n", "-C", str(REPO), "test", "NO_APT=1"], capture_output=True, text=True,
                           timeout=60).stdout
    assert order.index("missing=") < order.index("pytest")


# A CI check fails on a broken workshop; run goes on.

BROKEN = {
    "no directive": "<!-- @SHWO -->\n```bash\necho hi\n## hi\n```\n",
    "missing import": "<!-- @import no-such-helpers.md -->\n```bash\necho hi\n## hi\n```\n",
    "bash rejects": '```bash\necho "unterminated\n```\n',
    "bash rejects, in a @SKIP section": ('<!-- @SKIP -->\n```bash\nif then fi (\n```\n'
                                         '<!-- @SHOW -->\n```bash\necho ok\n```\n'),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_check_fails_a_broken_workshop_by_default_and_run_goes_on(demorun, workshop, name):
    path = workshop(BROKEN[name])
    checked = demorun("check", path)
    assert checked.exit_code == 1, checked.output
    assert f"FAIL {path}" in checked.output
    if name.startswith("bash rejects"):  # said as lint says it, where no run reaches the command
        assert ("LINT" in checked.output) == ("@SKIP" in name), checked.output
    else:  # a lint error: run says it and goes on, as demosh did
        ran = demorun("run", path)
        assert ran.exit_code == 0 and "the run goes on" in ran.output, ran.output


def test_a_command_not_found_after_a_failed_import_names_the_import_not_requires(demorun, workshop):
    path = workshop("<!-- @import helpers.md -->\n```bash\ngreet world\n## hello world\n```\n")
    result = demorun("check", path)
    assert result.exit_code == 1
    assert "greet is defined nowhere the session knows; an @import failed, which may be what defines it: " \
           f"{path}:1: cannot import 'helpers.md'" in result.output, result.output
    assert result.output.index("@import failed") < result.output.index("@requires greet")


def test_a_known_tool_missing_beside_a_failed_import_gets_its_install_hint(demorun, workshop, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", f"{tmp_path}:/bin")  # bash, and no linkerd, whatever this machine has
    path = workshop("<!-- @import helpers.md -->\n```bash\nlinkerd version\n```\n")
    result = demorun("check", path)
    assert "linkerd is not installed here" in result.output, result.output
    assert "@import failed" not in result.output


def test_a_command_not_found_with_its_imports_read_still_suggests_requires(demorun, workshop):
    workshop("```bash\ntrue\n```\n", "helpers.md")
    path = workshop("<!-- @import helpers.md -->\n```bash\nno-such-tool-here\n```\n")
    result = demorun("check", path)
    assert "<!-- @requires no-such-tool-here -->" in result.output, result.output




# check DIR runs only what is meant to run.

INSTALL = "# Install\n\n```bash\ntouch installed\n```\n"
TOUR = "```bash\necho hi\n## hi\n```\n"


def _docs(tmp_path: Path, config: str | None = None) -> Path:
    (tmp_path / "docs" / "drafts").mkdir(parents=True)
    (tmp_path / "docs" / "INSTALL.md").write_text(INSTALL)
    (tmp_path / "docs" / "tour.md").write_text(TOUR)
    (tmp_path / "docs" / "drafts" / "next.md").write_text(TOUR)
    if config is not None:
        (tmp_path / "pyproject.toml").write_text(f"[tool.demorun]\n{config}\n")
    return tmp_path / "docs"


def test_check_exclude_leaves_install_notes_unrun_and_v_says_why(demorun, tmp_path, monkeypatch):
    docs = _docs(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = demorun("check", "-v", "--exclude", "INSTALL.md", "--exclude", "docs/drafts", "docs")
    assert result.exit_code == 0, result.output
    assert not (docs / "installed").exists()
    assert "demorun: docs/INSTALL.md: left out: matches --exclude 'INSTALL.md'" in result.output
    assert "demorun: docs/drafts/next.md: left out: matches --exclude 'docs/drafts'" in result.output
    assert "demorun: docs/tour.md: taken: Markdown with a runnable fence" in result.output
    demorun("check", "docs")  # without the glob, the rule takes the install notes: they run
    assert (docs / "installed").exists()


def test_configured_exclude_and_include_choose_a_folders_workshops(demorun, tmp_path):
    docs = _docs(tmp_path, 'exclude = ["INSTALL.md"]')
    excluded = demorun("check", "-v", str(docs))
    assert excluded.exit_code == 0 and not (docs / "installed").exists(), excluded.output
    assert "INSTALL.md: left out: matches exclude 'INSTALL.md' (pyproject.toml)" in excluded.output
    assert f"PASS {docs}/drafts/next.md" in excluded.output
    (tmp_path / "pyproject.toml").write_text('[tool.demorun]\ninclude = ["docs/*.md"]\nexclude = ["INSTALL.md"]\n')
    included = demorun("check", "-v", str(docs))
    assert f"{docs}/tour.md: taken: matches include 'docs/*.md' (pyproject.toml)" in included.output
    assert "next.md" not in included.output and not (docs / "installed").exists()


@pytest.mark.parametrize("glob", ["", "/abs/*.md", "../up.md"])
def test_a_malformed_glob_is_a_configuration_error(demorun, tmp_path, glob):
    docs = _docs(tmp_path, f'exclude = ["{glob}"]')
    result = demorun("check", str(docs))
    assert result.exit_code == 2 and "key 'exclude'" in result.output and "expected a glob" in result.output, \
        result.output


FOLDER_GLOBS = ["drafts/", "drafts", "./drafts/", "docs/drafts/", "./docs/drafts", "docs/drafts/**", "**/drafts"]


@pytest.mark.parametrize("glob", FOLDER_GLOBS)
def test_a_configured_glob_naming_a_folder_leaves_out_everything_below_it(demorun, tmp_path, glob):
    docs = _docs(tmp_path, f'exclude = ["{glob}"]')
    (docs / "drafts" / "deeper").mkdir()
    (docs / "drafts" / "deeper" / "more.md").write_text(TOUR)
    result = demorun("check", "-v", "--exclude", "INSTALL.md", str(docs))
    assert result.exit_code == 0, result.output
    assert f"drafts/next.md: left out: matches exclude {glob!r}" in result.output
    assert f"drafts/deeper/more.md: left out: matches exclude {glob!r}" in result.output
    assert f"PASS {docs}/tour.md" in result.output


@pytest.mark.parametrize("glob", [*FOLDER_GLOBS, "docs/", "docs", "./docs"])
def test_check_exclude_naming_a_folder_leaves_out_everything_below_it(demorun, tmp_path, monkeypatch, glob):
    _docs(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = demorun("check", "-v", "--exclude", "INSTALL.md", "--exclude", glob, ".")
    left_out = "docs/drafts/next.md: left out: matches --exclude"
    if glob.strip("./") == "docs":
        assert result.exit_code == 2, result.output
        assert result.output.splitlines()[-1] == (
            "demorun: no workshops in '.': the globs left out all 3 file(s) with a bash fence "
            f"(--exclude 'INSTALL.md': 1, --exclude {glob!r}: 2; `check -v` lists them)")
    else:
        assert result.exit_code == 0 and left_out in result.output and "PASS ./docs/tour.md" in result.output, \
            result.output


def test_a_folder_glob_with_a_trailing_slash_names_folders_only(demorun, tmp_path, monkeypatch):
    _docs(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = demorun("check", "-v", "--exclude", "INSTALL.md", "--exclude", "tour.md/", "docs")
    assert "docs/tour.md: taken" in result.output, result.output


@pytest.mark.parametrize("glob", ["", " ", "/abs/*.md", "../up.md", "docs/../x"])
def test_a_malformed_check_exclude_is_refused_as_the_configured_one_is(demorun, tmp_path, monkeypatch, glob):
    docs = _docs(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = demorun("check", "--exclude", glob, "docs")
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [f"demorun: --exclude {glob!r}: expected a glob relative to the "
                                                  "current folder"]
    assert not (docs / "installed").exists()


def test_when_the_configured_globs_leave_out_every_file_the_error_names_them(demorun, tmp_path):
    docs = _docs(tmp_path, 'include = ["docs/drafts/*.md"]\nexclude = ["next.md"]')
    result = demorun("check", str(docs))
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [
        f"demorun: no workshops in {str(docs)!r}: the globs left out all 1 file(s) with a bash fence "
        "(exclude 'next.md' (pyproject.toml): 1; `check -v` lists them)"]


NO_COMMAND = {"a fence of comments": "# Notes\n```bash\n# only a comment\n\n```\n",
              "a fence in an HTML comment": "<!--\n```bash\necho hidden\n```\n-->\n",
              "a macro of comments": "<!-- @macro m -->\n```bash\n# nothing\n```\n<!-- @end -->\n"}


@pytest.mark.parametrize("text", NO_COMMAND.values(), ids=NO_COMMAND.keys())
def test_check_v_gives_a_file_without_a_command_one_line_and_one_reason(demorun, workshop, tmp_path,
                                                                          monkeypatch, text):
    workshop(text, "empty.md")
    workshop("```bash\necho hi\n## hi\n```\n", "tour.md")
    monkeypatch.chdir(tmp_path)
    result = demorun("check", "-v", ".")
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if line.startswith("demorun: ./empty.md")]
    assert len(said) == 1 and said[0].startswith("demorun: ./empty.md: not a workshop: no runnable command"), said
    assert "demorun: ./tour.md: taken: Markdown with a runnable fence" in result.output


def test_a_folder_of_files_without_a_command_says_why_for_each_and_counts_them(demorun, workshop, tmp_path,
                                                                                 monkeypatch):
    for k, text in enumerate(NO_COMMAND.values()):
        workshop(text, f"empty{k}.md")
    monkeypatch.chdir(tmp_path)
    result = demorun("check", "-v", ".")
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert [line.split(":")[1] for line in lines[:-1]] == [" ./empty0.md", " ./empty1.md", " ./empty2.md"], lines
    assert all("not a workshop" in line for line in lines[:-1])
    assert lines[-1] == ("demorun: no workshops in '.' (no *.md with a command in a bash fence; 3 Markdown file(s) "
                         "without one: `check -v` says why)")


# Every line says one thing.

@pytest.mark.parametrize("text", ["```bash\necho new\n## old\n```\n", "```bash\necho new\n```\n"])
def test_update_gives_a_file_one_verdict_word(demorun, workshop, text):
    path = workshop(text)  # a block that differs, and a command with none: each is written
    result = demorun("check", "--update", path)
    assert result.exit_code == 0, result.output
    assert f"FAIL {path}" not in result.output and f"PASS {path}" not in result.output
    assert f"checked {path}  0 passed, 0 failed, 0 skipped, 1 updated" in result.output
    assert f"UPDATED   {path}" in result.output  # the summary's row


def test_update_counts_a_file_as_its_summary_does(demorun, workshop):
    path = workshop("```bash\necho new\n## old\n```\n```bash\nfalse\n```\n")
    result = demorun("check", "--update", path)
    assert result.exit_code == 1, result.output
    assert f"FAIL {path}  0 passed, 1 failed, 0 skipped, 1 updated" in result.output
    assert result.output.rstrip().splitlines()[-1].startswith("1 failed, 0 passed, 0 skipped, 1 updated")


def test_junit_names_stay_when_lines_above_are_edited(demorun, workshop, tmp_path):
    def names(text: str) -> list[tuple[str | None, str | None]]:
        import xml.etree.ElementTree as ET

        path = workshop(text)
        demorun("check", "--junit", str(tmp_path / "j.xml"), path)
        return [(c.get("name"), c.get("line")) for c in ET.parse(tmp_path / "j.xml").getroot().iter("testcase")]

    body = "```bash\necho hi\n## hi\n```\n\n```bash\necho hi\n## hi\n```\n"
    before, after = names(body), names("# Title\n\nSome prose.\n\n" + body)
    assert [n for n, _ in before] == [n for n, _ in after] == ["echo hi", "echo hi #2"]
    assert [line for _, line in before] == ["2", "7"] and [line for _, line in after] == ["6", "11"]


def test_the_html_report_marks_the_value_that_differs(demorun, workshop, tmp_path):
    path = workshop("```bash\nprintf 'NAME   STATUS   AGE\\nbeta   Ready    5m\\nalpha  Pending  3d\\n'\n"
                    "## NAME   STATUS   AGE\n## alpha  Running  1d\n## beta   Ready    2m\n```\n")
    demorun("check", "--html", str(tmp_path / "r.html"), path)
    page = (tmp_path / "r.html").read_text()
    assert 'alpha  <mark class="differs" title="differs from the ## block">Pending</mark>  3d' in page
    assert page.count('class="differs"') == 1  # 3d (AGE) and beta's row are not what differs


_LOADED = any(e.name == "demorun" for e in entry_points(group="pytest11"))
PLUGIN = [*([] if _LOADED else ["-p", "runner.pytest_plugin"]),
          "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:hypothesispytest"]


def test_pytest_demorun_takes_its_paths_as_pytests_own(pytester):
    (pytester.path / "docs").mkdir()
    (pytester.path / "demos").mkdir()
    (pytester.path / "docs" / "a.md").write_text(TOUR)
    (pytester.path / "demos" / "b.md").write_text(TOUR)
    result = pytester.runpytest(*PLUGIN, "--demorun", "-q", "docs/", "demos/")
    result.assert_outcomes(passed=2)


def test_pytest_short_summary_keeps_what_differs(pytester):
    (pytester.path / "w.md").write_text("```bash\nprintf 'NAME   STATUS\\nweb    Pending\\n'\n"
                                        "## NAME   STATUS\n## web    Running\n```\n")
    result = pytester.runpytest(*PLUGIN, "--demorun", "-rf", "w.md")
    result.stdout.fnmatch_lines(["FAILED w.md::line-2 - web: STATUS expected Running, got Pending"])


# The README starts with the user.

README = (REPO / "README.md").read_text()


def test_the_readme_opens_with_the_two_commands_then_the_tutorial_and_leaves_internals_to_docs():
    first_fence = README.split("```", 2)[1]
    assert "make demo" in first_fence and "make test" in first_fence
    tutorial = README.index("## Your first workshop")
    assert tutorial < README.index("## Commands") < README.index("Exit codes, for every command:")
    steps = README[tutorial:README.index("## Commands")]
    for command in ("cat > hello.md", "demorun run hello.md", "demorun check hello.md", "sed -i",
                    "demorun check --update hello.md", "demorun present hello.md"):
        assert command in steps, command
    assert ". .venv/bin/activate" in README[:tutorial]
    for internal in ("subreaper", "/proc/", "input queue", "a socket that no other process can open"):
        assert internal not in README, internal
    assert "docs/internals.md" in README


def test_make_test_checks_the_readme_with_demorun_on_path():
    last = (REPO / "Makefile").read_text().split("\ntest:", 1)[1].split("\n\n", 1)[0].splitlines()[-1]
    assert "demorun check demos README.md" in last and 'PATH="$(CURDIR)/$(BIN):$$PATH"' in last


def test_pytest_demorun_chooses_a_folders_workshops_as_check_does(pytester):
    (pytester.path / "docs").mkdir()
    (pytester.path / "docs" / "INSTALL.md").write_text(INSTALL)
    (pytester.path / "docs" / "tour.md").write_text(TOUR)
    pytester.makepyprojecttoml('[tool.demorun]\nexclude = ["INSTALL.md"]\n')
    result = pytester.runpytest(*PLUGIN, "--demorun", "docs")
    result.assert_outcomes(passed=1)
    assert not (pytester.path / "docs" / "installed").exists()


def test_pytest_demorun_says_a_bad_glob_as_a_usage_error(pytester):
    (pytester.path / "docs").mkdir()
    (pytester.path / "docs" / "tour.md").write_text(TOUR)
    pytester.makepyprojecttoml('[tool.demorun]\nexclude = [""]\n')
    result = pytester.runpytest(*PLUGIN, "--demorun", "docs")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*key 'exclude'*expected a glob*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
