"""`demorun --version` answers before the commands load, in click's own words."""
from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from runner.cli import main


def test_version_fast_path_matches_clicks_answer():
    fast = subprocess.run([sys.executable, "-m", "runner", "--version"], capture_output=True, text=True)
    assert fast.returncode == 0
    assert fast.stdout == CliRunner().invoke(main, ["--version"]).output


def test_version_needs_neither_click_nor_the_commands():
    probe = "import sys; sys.argv = ['demorun', '--version']; from runner.launch import main; main(); " \
            "print(sorted(m for m in sys.modules if m.startswith(('click', 'runner.'))))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.splitlines()[-1] == "['runner.launch']"
