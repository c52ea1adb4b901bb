"""`present` with the authoring directives, in a real terminal under tmux: a fence written as a
file shows as its text, and @wait-for stops a never-ending command at its match."""
from __future__ import annotations

import shlex
import shutil
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from test_present_live import DONE, REPO, Terminal, _end

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

WORKSHOP = """
    # Files and waits

    <!-- @SHOW -->

    ```yaml file=out/web.yaml
    kind: Pod
    name: web-from-the-fence
    ```

    <!-- @nowaitbefore -->
    ```bash
    grep name: out/web.yaml
    ```

    <!-- @wait-for ^ready-now -->
    <!-- @nowaitbefore -->
    ```bash
    python3 -c 'import time; print("ready-now", flush=True); time.sleep(600)'; echo "status=$?"
    ```

    <!-- @nowaitbefore -->
    ```bash
    echo after-the-wait
    ```
    """


@pytest.fixture
def terminal():
    term = Terminal(f"demorun-test-{uuid.uuid4().hex[:12]}")
    yield term
    _end(term)


def test_present_shows_the_file_s_text_writes_it_and_stops_at_the_match(terminal, tmp_path):
    path = tmp_path / "workshop.md"
    path.write_text(textwrap.dedent(WORKSHOP).lstrip("\n"))
    command = shlex.join([sys.executable, "-m", "runner", "present", "--no-init", "--speed", "2000", str(path)])
    terminal.start(f"cd {shlex.quote(str(REPO))} && HOME={shlex.quote(str(tmp_path))} {command}; "
                   f"echo {DONE}=$?; sleep 600")
    shown = terminal.wait_text("name: web-from-the-fence")  # the fence, as prose
    assert "cat <<" not in shown and "tee " not in shown
    terminal.wait_text("after-the-wait", timeout=20)  # the wait ended at its match, well before 600 s
    assert (tmp_path / "out" / "web.yaml").read_text() == "kind: Pod\nname: web-from-the-fence\n"
    shown = terminal.screen()
    assert "status=1" not in shown  # the `; echo` after the interrupted program never ran: Ctrl-C stopped the line
    terminal.keys("q")
    terminal.wait_text(f"{DONE}=")


def test_the_demo_is_bash_only_and_passes(demorun):
    result = demorun("check", str(REPO / "demos" / "files-and-waiting" / "README.md"))
    assert result.exit_code == 0, result.output
    assert not (Path(REPO) / "demos" / "files-and-waiting" / "build").exists()  # it cleans up after itself
