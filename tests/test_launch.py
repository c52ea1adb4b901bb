"""`demorun --version` answers before the commands load, in click's own words."""
from __future__ import annotations

import subprocess
import sys

import pytest
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


@pytest.mark.parametrize("args", [["--no-init", "bad.md", "good.md"], ["good.md"], ["missing.md"]])
def test_lint_fast_path_answers_as_the_click_command_does(tmp_path, args):
    (tmp_path / "good.md").write_text("<!-- @SHOW -->\n```bash\necho hi\n```\n")
    (tmp_path / "bad.md").write_text('<!-- @SHOW -->\n```bash\necho "\x1b[31mred\n```\n')
    fast = subprocess.run([sys.executable, "-m", "runner", "lint", *args], capture_output=True, text=True,
                          cwd=tmp_path)
    slow = CliRunner().invoke(main, ["lint", *[str(tmp_path / a) if a.endswith(".md") else a for a in args]])
    assert (fast.returncode, fast.stdout) == (slow.exit_code, slow.stdout.replace(f"{tmp_path}/", ""))
    assert fast.stderr == slow.stderr.replace(f"{tmp_path}/", "")


def test_plain_lint_needs_no_click():
    probe = "import sys; sys.argv = ['demorun', 'lint', 'missing.md']; from runner.launch import main\n" \
            "try:\n    main()\nexcept SystemExit:\n    print('click' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.splitlines()[-1] == "False"


def test_lint_and_presents_opening_build_no_results():
    """Outcomes, verdicts and reports (runner.results) are built when a run needs them, never by lint."""
    probe = "import sys; sys.argv = ['demorun', 'lint', '--no-init', 'README.md']; from runner.launch import main\n" \
            "try:\n    main()\nexcept SystemExit:\n    print('runner.results' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.splitlines()[-1] == "False"


def test_the_fast_path_reads_clicks_own_table():
    """runner/fast_table.py is what tools/fast_table.py makes of runner/cli.py: one definition of the options."""
    from runner.cli import fast_table
    from runner.fast_table import COMMANDS

    assert COMMANDS == fast_table(), "options changed in runner/cli.py: run tools/fast_table.py"


@pytest.mark.parametrize("argv", [["run", "--speed", "-5", "w.md"], ["run", "--speed", "nan", "w.md"],
                                  ["present", "--speed", "0", "w.md"], ["check", "-j", "0", "w.md"],
                                  ["check", "--shard", "3/2", "w.md"], ["run", "--timeout", "soon", "w.md"]])
def test_bad_values_are_usage_errors_before_anything_runs(argv):
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 2 and "Invalid value" in result.output
