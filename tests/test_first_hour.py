"""A new user's first hour: what `make test` installs, and a CI check that fails a broken workshop.

Each test goes through the command line (or make), as a user would.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO


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
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_check_fails_a_broken_workshop_by_default_and_run_goes_on(demorun, workshop, name):
    path = workshop(BROKEN[name])
    checked = demorun("check", path)
    assert checked.exit_code == 1, checked.output
    assert f"FAIL {path}" in checked.output
    if name != "bash rejects":  # a lint error: run says it and goes on, as demosh did
        ran = demorun("run", path)
        assert ran.exit_code == 0 and "the run goes on" in ran.output, ran.output


def test_a_command_not_found_after_a_failed_import_names_the_import_not_requires(demorun, workshop):
    path = workshop("<!-- @import helpers.md -->\n```bash\ngreet world\n## hello world\n```\n")
    result = demorun("check", path)
    assert result.exit_code == 1
    assert "greet is defined nowhere the session knows; an @import that would define it failed: " \
           f"{path}:1: cannot import 'helpers.md'" in result.output, result.output
    assert "@requires greet" not in result.output


def test_a_command_not_found_with_its_imports_read_still_suggests_requires(demorun, workshop):
    workshop("```bash\ntrue\n```\n", "helpers.md")
    path = workshop("<!-- @import helpers.md -->\n```bash\nno-such-tool-here\n```\n")
    result = demorun("check", path)
    assert "<!-- @requires no-such-tool-here -->" in result.output, result.output


