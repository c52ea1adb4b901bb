"""`present`, `run` and `check` judge the same output the same way under a project's masks and
volatile columns: what check forgives, the presenter does not mark and the replay does not name."""
from __future__ import annotations

import shlex
import subprocess
import sys

import pytest
import tmux_terminal as live
from tmux_terminal import FAST, REPO, prompt_line

pytestmark = live.TMUX
terminal, present = live.terminal, live.present

WORKSHOP = """\
<!-- @SHOW -->

# Release

```bash
echo "published to green"
## published to blue
```

```bash
printf 'NAME  PORT\\nweb   7\\n'
## NAME  PORT
## web   3
```

```bash
echo the-end
## the-end
```
"""

CONFIG = """\
[tool.demorun]
volatile-columns = ["PORT"]

[tool.demorun.masks]
colour = 'to (green|blue)'
"""


@pytest.mark.parametrize("configured", [True, False], ids=["with-the-projects-policy", "without"])
def test_present_run_and_check_agree(present, tmp_path, configured):
    (tmp_path / "README.md").write_text(WORKSHOP)
    if configured:
        (tmp_path / "pyproject.toml").write_text(CONFIG)
    demorun = [sys.executable, "-m", "runner"]
    checked = subprocess.run([*demorun, "check", "--no-init", "README.md"], cwd=tmp_path,
                             capture_output=True, text=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    replayed = subprocess.run([*demorun, "run", "--no-init", "README.md"], cwd=tmp_path,
                              capture_output=True, text=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    term = present(str(tmp_path / "README.md"), *FAST, cwd=tmp_path)
    for command in ('echo "published to green"', "printf 'NAME  PORT\\nweb   7\\n'", "echo the-end"):
        term.wait_for(lambda s, c=command: prompt_line(s, c), shlex.quote(command))
        term.keys("Enter")
    shown = term.wait_text("end of the show")
    term.finished()
    if configured:
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "differ" not in replayed.stdout + replayed.stderr
        assert "not as in the script" not in shown and "≠" not in shown, shown
    else:
        assert checked.returncode != 0
        assert "2 outputs differ" in replayed.stdout + replayed.stderr
        assert "2 not as in the script" in shown, shown
