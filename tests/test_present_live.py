"""`demorun present` in a real terminal: tmux types the presenter's keys and reads the screen."""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import time

import tmux_terminal as live
from tmux_terminal import FAST, Terminal, end, prompt_line

pytestmark = live.TMUX
terminal, present = live.terminal, live.present  # the shared real-terminal fixtures


def test_command_is_typed_and_runs_on_return(present):
    command = 'echo "first-output for mars"'
    term = present("basics.md")
    term.wait_text("Some prose with inline code")
    partial = []

    def typed(shown: str) -> bool:
        line = next((line.rstrip() for line in shown.splitlines() if line.startswith("$ ")), "")
        partial.append(2 < len(line) < len(command) + 2)
        return line == f"$ {command}"

    term.wait_for(typed, "the typed command")
    assert any(partial), "the command appeared whole instead of being typed"
    term.stays_without("first-output for mars\n")
    term.keys("Enter")
    term.wait_for(lambda s: "\nfirst-output for mars" in s, "the command's output")
    term.keys("Q")
    assert term.finished()[0] == 0


def test_braced_variables_show_their_value_while_typing(present):
    term = present("basics.md", *FAST)
    shown = term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the typed command")
    assert "${PLANET}" not in shown
    term.keys("Q")
    term.finished()


def test_space_finishes_the_typing_without_running(present):
    term = present("basics.md", "--speed", "2")
    term.wait_text("$ e")
    term.keys("Space")
    term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the whole command at once",
                  timeout=3)
    term.stays_without("first-output for mars\n")
    term.keys("Enter")
    term.wait_for(lambda s: "\nfirst-output for mars" in s, "the command's output")
    term.keys("Q")
    term.finished()


def test_q_quits_and_leaves_the_terminal_sane(present):
    term = present("basics.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the first command")
    term.keys("Q")
    status, stty = term.finished()
    assert status == 0
    flags = stty.split()
    assert "echo" in flags and "icanon" in flags and "isig" in flags
    assert "-echo" not in flags and "-icanon" not in flags
    assert "first-output for mars\n" not in term.screen()


def test_minus_repeats_the_previous_command(present):
    term = present("basics.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the first command")
    term.keys("Enter")
    term.wait_for(lambda s: prompt_line(s, "echo second-output"), "the second command")
    term.keys("-")
    term.wait_for(lambda s: sum(prompt_line(line, 'echo "first-output for mars"')
                                for line in s.splitlines()) == 2, "the first command offered again")
    term.keys("Enter")
    term.wait_for(lambda s: s.count("\nfirst-output for mars") == 2, "the first command's output twice")
    term.wait_for(lambda s: s.rstrip().endswith("$ echo second-output"), "the second command back")
    term.keys("Enter")
    term.wait_text("\nsecond-output")
    term.keys("Q")
    term.finished()


def test_plus_skips_a_command(present):
    term = present("basics.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the first command")
    term.keys("+")
    term.wait_for(lambda s: prompt_line(s, "echo second-output"), "the second command")
    term.keys("Enter")
    shown = term.wait_text("\nsecond-output")
    assert "first-output for mars\n" not in shown
    term.keys("Q")
    term.finished()


def test_bang_opens_the_workshops_shell_and_comes_back(present):
    term = present("basics.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the first command")
    term.keys("!")
    term.wait_text("exit")
    term.text('echo "seen:$GREETING:$PLANET"')
    term.keys("Enter")
    term.wait_text("seen:greeting-from-setup:mars")
    term.text("exit")
    term.keys("Enter")
    term.wait_for(lambda s: s.rstrip().endswith('$ echo "first-output for mars"'), "the show back")
    term.keys("Enter")
    term.wait_text("\nfirst-output for mars")
    term.keys("Q")
    assert term.finished()[0] == 0


def test_help_line_on_question_mark_is_the_presenters_and_goes_away(present):
    term = present("basics.md", *FAST)
    before = term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the first command")
    term.keys("?")
    shown = term.wait_text("Q quit")
    help_line = next(line for line in shown.splitlines() if "Q quit" in line)
    assert "RETURN" in help_line and len(help_line.rstrip()) <= 80
    # On the row under the command, which its output would take: nothing the audience saw moved.
    assert shown.rstrip().splitlines()[:-1] == before.rstrip().splitlines()
    term.keys("x")
    term.wait_for(lambda s: s == before, "the screen exactly as before")
    term.keys("Q")
    term.finished()


def test_wait_holds_until_return_and_clear_clears(present):
    term = present("waits.md", *FAST)
    term.wait_text("Text before the wait.")
    term.stays_without("Text after the wait.")
    term.keys("Enter")
    term.wait_text("Text after the wait.")
    term.stays_without("Text after the clear.", seconds=0.3)
    term.keys("Enter")
    shown = term.wait_text("Text after the clear.")
    assert "Text before the wait." not in shown
    term.keys("Q")
    term.finished()


def test_from_starts_at_the_heading_with_earlier_state(present):
    term = present("sections.md", *FAST, "--from", "using the SECOND part")
    shown = term.wait_for(lambda s: prompt_line(s, 'echo "state is $STATE"'), "the second section's command")
    assert "Prose of the second part." in shown
    assert "Prose of part one." not in shown
    term.keys("Enter")
    term.wait_text("\nstate is set-in-part-one")
    term.keys("Q")
    term.finished()


def test_g_jumps_to_a_section_running_what_it_skips(present):
    term = present("sections.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, "STATE=set-in-part-one"), "the first command")
    term.keys("g")
    term.wait_text("go to section")
    term.text("2")
    term.keys("Enter")
    term.wait_for(lambda s: prompt_line(s, 'echo "state is $STATE"'), "the second section's command")
    term.keys("Enter")
    term.wait_text("\nstate is set-in-part-one")
    term.keys("Q")
    term.finished()


def test_ctrl_c_stops_the_command_not_the_show(present):
    term = present("interrupt.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, "sleep 100"), "the sleep")
    term.keys("Enter")
    live.wait_running("sleep", "100")
    term.keys("C-c")
    term.wait_for(lambda s: prompt_line(s, "echo after-the-sleep"), "the next command", timeout=5)
    term.keys("Enter")
    term.wait_text("\nafter-the-sleep")
    term.keys("Q")
    assert term.finished()[0] == 0


def test_ctrl_c_twice_at_a_prompt_ends_the_show(present):
    term = present("interrupt.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, "sleep 100"), "the sleep")
    term.keys("C-c")
    term.wait_text("Ctrl-C again")
    term.keys("C-c")
    status, stty = term.finished()
    assert status == 130
    assert "-echo" not in stty.split() and "-icanon" not in stty.split()


def test_drift_mark_for_a_mismatch_only_and_d_shows_the_difference(present):
    term = present("drift.md", *FAST, "--marks")
    term.wait_for(lambda s: prompt_line(s, "echo as-written"), "the first command")
    term.keys("Enter")
    term.wait_for(lambda s: prompt_line(s, "echo what-really-happens"), "the second command")
    assert "≠" not in term.screen()
    term.keys("Enter")
    term.wait_text("≠")
    term.wait_for(lambda s: prompt_line(s, "echo last"), "the last command")
    before = term.screen()
    term.keys("d")
    shown = term.wait_text("what-the-script-says")  # a page over the show, for the presenter
    assert "echo last" not in shown
    term.keys("x")
    shown = term.wait_for(lambda s: s == before, "the show exactly as it was")
    assert shown.count("≠") == 1
    term.keys("Q")
    term.finished()


def test_record_makes_a_cast_that_a_real_player_plays(present, tmp_path, terminal):
    cast = tmp_path / "show.cast"
    term = present("basics.md", *FAST, "--record", str(cast))
    term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the first command")
    term.keys("Enter")
    term.wait_for(lambda s: prompt_line(s, "echo second-output"), "the second command")
    term.keys("Q")
    assert term.finished()[0] == 0
    header, *events = cast.read_text().splitlines()
    assert json.loads(header)["width"] == 100
    played = "".join(json.loads(e)[2] for e in events)
    assert "first-output for mars" in played and "GREETING" not in played

    player = Terminal(f"{terminal.socket}-player")
    try:
        player.start(f"asciinema play -s 20 -i 0.2 {shlex.quote(str(cast))}; echo PLAYED=$?; sleep 600")
        shown = player.wait_text("PLAYED=")
        assert "PLAYED=0" in shown
        assert "\nfirst-output for mars" in shown
    finally:
        end(player)


def test_directives_while_presenting(present, tmp_path):
    hooked = tmp_path / "hook-ran"
    term = present("directives.md", *FAST, env=f"DEMO_HOOK_MARKER='touch {hooked}'")
    term.wait_for(lambda s: prompt_line(s, "NAME=world"), "the first command")
    term.keys("Enter")
    term.wait_text("# printed for world")  # @print, expanded, then a wait for RETURN as demosh's
    term.keys("Enter")
    shown = term.wait_for(lambda s: prompt_line(s, "echo waits-after"), "the @notypeout command")
    assert "\nran-without-waiting" in shown  # @nowaitbefore: no key needed
    assert "\nimmediate-output" in shown and "echo immediate-output" not in shown  # @immed
    term.keys("Enter")
    term.wait_text("\nwaits-after")
    term.stays_without("hook-is-on")  # @waitafter holds the show
    assert not hooked.exists()
    term.keys("Enter")
    term.wait_text("\nhook-is-on")  # @ifhook: the hook variable is set
    assert hooked.exists()  # the hook command ran
    term.wait_for(lambda s: prompt_line(s, "sleep 100"), "the @stop-after command")
    term.keys("Enter")
    term.stays_without("echo the-end", seconds=1.5)  # not stopped after 1s: the presenter stops it
    term.keys("C-c")
    shown = term.wait_for(lambda s: prompt_line(s, "echo the-end"), "the last command")
    assert "≠" not in shown
    term.keys("Q")
    assert term.finished()[0] == 0


def test_closing_the_terminal_ends_the_workshops_processes(present, terminal):
    term = present("hangup.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, "sleep 313.37"), "the long command")
    term.keys("Enter")
    live.wait_running("sleep", "313.37")
    live.wait_running("sleep", "313.38")
    terminal.closed = True  # killed on purpose: there is no terminal left to check
    subprocess.run(["tmux", "-L", terminal.socket, "kill-server"], check=True)
    deadline = time.monotonic() + 8
    while live.running("sleep", "313.37") or live.running("sleep", "313.38"):
        assert time.monotonic() < deadline, "the workshop's processes outlived the show"
        time.sleep(0.1)


def test_no_color_means_no_colours_of_ours(present):
    term = present("basics.md", *FAST, env="NO_COLOR=1")
    term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the first command")
    coloured = term.tmux("capture-pane", "-p", "-e", "-t", "t")
    assert not re.search(r"\x1b\[[0-9;]*3[0-7]m", coloured), coloured
    term.keys("Q")
    term.finished()


def test_keys_reach_interactive_commands(present):
    term = present("interactive.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, "seq 1 500 | less"), "the pager command")
    term.keys("Enter")
    term.wait_for(lambda s: "\n28\n" in s and "500" not in s, "less showing the first page")
    term.keys("G")
    term.wait_text("500")
    term.keys("q")
    term.wait_for(lambda s: prompt_line(s, '"hello, $answer"'), "the next command, typed whole")
    term.keys("Enter")
    term.wait_text("\nyour name? ")
    term.text("Ada")
    term.keys("Enter")
    term.wait_text("hello, Ada")
    term.keys("Q")
    assert term.finished()[0] == 0


def test_escape_sequences_in_the_workshop_are_shown_not_obeyed(present):
    term = present("escapes.md", *FAST)
    shown = term.wait_for(lambda s: "$ echo" in s and s.rstrip().endswith('"\\033\\007"'), "the typed command")
    title = term.tmux("display-message", "-p", "-t", "t", "#{pane_title}")
    assert "TITLE" not in title and "OWNED" not in title, title
    for text in ("^[]2;PROSE-TITLE^G", "^[[2J a clear and ^[]2;OWNED^G", "^[]2;COMMENT-TITLE^G",
                 "^[]2;TYPED-TITLE^G"):
        assert text in shown, shown
    term.keys("Enter")
    term.wait_text("typed ]2;TYPED-TITLE out")  # the command itself got the bytes
    term.keys("Q")
    assert term.finished()[0] == 0
