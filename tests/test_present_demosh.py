"""The show shows what demosh shows, in a real terminal: no sample captures, quiet nested exits, a live size."""
from __future__ import annotations

import json
import subprocess
import sys

import tmux_terminal as live
from test_present_stage import notes_pane  # noqa: F401  (a fixture)
from tmux_terminal import FAST, FIXTURES, REPO, prompt_line

pytestmark = live.TMUX
terminal, present = live.terminal, live.present  # the same real-terminal fixtures


def test_a_fence_of_sample_lines_is_not_shown(present):
    term = present("sample.md", *FAST)
    shown = term.wait_for(lambda s: prompt_line(s, "echo after-the-sample"), "the command after the sample")
    assert "In the other terminal you would see:" in shown
    assert "SAMPLE-CAPTURE" not in shown
    listed = subprocess.run([sys.executable, "-m", "runner", "list", "--json", "--no-init",
                             str(FIXTURES / "sample.md")], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert "SAMPLE-CAPTURE" not in json.dumps([s["text"] for s in json.loads(listed)["steps"]])
    term.keys("Q")
    term.finished()


def test_a_nested_file_that_ends_quietly_is_no_failure_on_stage(present, notes_pane):  # noqa: F811
    pane, tty = notes_pane
    term = present("quiet_main.md", *FAST, "--notes", tty)
    shown = term.wait_for(lambda s: prompt_line(s, "echo after-the-nested-file"), "the caller's next command")
    assert "nested-never-shown" not in shown
    panel = pane.wait_text("ended quietly")
    assert "quiet_nested.md:6 ended quietly (DEMOSH_QUIET_FAILURE); the caller goes on" in panel
    assert "exit status" not in panel and "never ran" not in panel
    term.keys("Enter")
    shown = term.wait_text("\nafter-the-nested-file")
    assert "exit status" not in shown and "≠" not in shown and "nested" not in shown.replace("nested-file", "")
    term.keys("Q")
    assert term.finished()[0] == 0


def test_without_the_quiet_idiom_the_nested_exit_is_reported(present, tmp_path):
    (tmp_path / "quiet_nested.md").write_text(
        (FIXTURES / "quiet_nested.md").read_text().replace("DEMOSH_QUIET_FAILURE=true", "DEMOSH_QUIET_FAILURE=no"))
    main = tmp_path / "quiet_main.md"
    main.write_text((FIXTURES / "quiet_main.md").read_text())
    term = present(str(main), *FAST)
    term.wait_text("quiet_nested.md:6: exit")  # the notice is cut to the screen's width; tmp paths are long
    term.keys("Q")
    term.finished()


def test_programs_in_the_show_see_the_terminal_and_its_resizes(present, terminal):
    term = present("terminal_size.md", *FAST, env="COLUMNS=77 LINES=11")  # exported by the presenter's shell
    term.wait_for(lambda s: prompt_line(s, "echo environment-checked"), "the first command")
    term.keys("Enter")
    shown = term.wait_text("\nenvironment-checked")
    # printenv printed nothing: neither COLUMNS nor LINES is in the workshop's environment.
    lines = shown.splitlines()
    ran = next(i for i, line in enumerate(lines) if prompt_line(line, "echo environment-checked"))
    assert lines[ran + 1] == "environment-checked"
    term.wait_for(lambda s: prompt_line(s, "tput cols"), "the second command")
    terminal.tmux("resize-window", "-t", "t", "-x", "123", "-y", "30")
    term.keys("Enter")
    term.wait_text("\n123\n")
    term.keys("Q")
    assert term.finished()[0] == 0
