"""`present` with the authoring directives, in a real terminal under tmux: a fence written as a
file shows as its text, and @wait-for stops a never-ending command at its match."""
from __future__ import annotations

import shlex
import sys
import textwrap
from pathlib import Path

import tmux_terminal as live
from tmux_terminal import REPO, wrapped

pytestmark = live.TMUX
terminal = live.terminal  # the shared real terminal, checked whole at the end

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


def test_present_shows_the_file_s_text_writes_it_and_stops_at_the_match(terminal, tmp_path):
    path = tmp_path / "workshop.md"
    path.write_text(textwrap.dedent(WORKSHOP).lstrip("\n"))
    command = shlex.join([sys.executable, "-m", "runner", "present", "--no-init", "--speed", "2000", str(path)])
    terminal.start(wrapped(f"cd {shlex.quote(str(REPO))} && HOME={shlex.quote(str(tmp_path))} {command}"))
    shown = terminal.wait_text("name: web-from-the-fence")  # the fence, as prose
    assert "cat <<" not in shown and "tee " not in shown
    terminal.wait_text("after-the-wait", timeout=20)  # the wait ended at its match, well before 600 s
    assert (tmp_path / "out" / "web.yaml").read_text() == "kind: Pod\nname: web-from-the-fence\n"
    shown = terminal.screen()
    assert "status=1" not in shown  # the `; echo` after the interrupted program never ran: Ctrl-C stopped the line
    terminal.keys("Q")
    terminal.finished()


def test_the_demo_is_bash_only_and_passes(demorun):
    result = demorun("check", str(REPO / "demos" / "files-and-waiting" / "README.md"))
    assert result.exit_code == 0, result.output
    assert not (Path(REPO) / "demos" / "files-and-waiting" / "build").exists()  # it cleans up after itself
