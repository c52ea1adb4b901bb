"""The presenter on stage, in a real terminal: keys during commands, cues, endings, the notes channel."""
from __future__ import annotations

import json
import re
import time

import tmux_terminal as live
from tmux_terminal import FAST, prompt_line

pytestmark = live.TMUX
terminal, present, notes_pane = live.terminal, live.present, live.notes_pane  # the shared fixtures


def test_q_during_a_command_quits_after_it(present):
    term = present("typeahead.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, "sleep 2; echo slept"), "the first command")
    term.keys("Enter")
    term.keys("Q")
    status, _ = term.finished()
    shown = term.screen()
    assert status == 0
    assert "\nslept" in shown, "the command was cut short instead of finishing"
    assert "next-command" not in shown and "not found" not in shown


def test_a_line_typed_during_a_command_is_never_run(present, tmp_path):
    leaked = tmp_path / "LEAKED"
    term = present("typeahead.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, "sleep 2; echo slept"), "the first command")
    term.keys("Enter")
    term.text(f"touch {leaked}")
    term.keys("Enter")
    term.wait_text("\nslept")
    term.wait_for(lambda s: prompt_line(s, "echo next-command"), "the next command")
    shown = term.stays_without("\nnext-command")  # RETURN during the command ran nothing
    assert "touch" not in shown
    term.keys("Enter")
    shown = term.wait_text("\nnext-command")
    assert "≠" not in shown and "rejects" not in shown
    assert not leaked.exists()
    term.keys("Q")
    assert term.finished()[0] == 0


def test_letters_typed_during_a_command_reach_neither_it_nor_the_next(present):
    term = present("typeahead.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, "sleep 2; echo slept"), "the first command")
    term.keys("Enter")
    term.text("abc")
    term.wait_for(lambda s: prompt_line(s, "echo next-command"), "the next command")
    term.keys("Enter")
    shown = term.wait_text("\nnext-command")
    assert "abc" not in shown and "not found" not in shown
    term.wait_for(lambda s: "your word?" in s and prompt_line(s, 'echo "word was $word"'), "the read")
    term.keys("Enter")
    term.wait_text("\nyour word? ")
    term.text("typed")  # a command that reads the terminal gets the keys
    term.keys("Enter")
    term.wait_text("word was typed")
    term.keys("Q")
    assert term.finished()[0] == 0


def test_ctrl_d_leaves_the_shell_without_bashs_complaint(present):
    term = present("basics.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the first command")
    term.keys("!")
    term.wait_text("exit")
    term.keys("C-d")
    shown = term.wait_text("(back to the show)")
    assert "Use" not in shown
    term.keys("Q")
    assert term.finished()[0] == 0


def test_the_end_counts_only_the_commands_shown(present):
    term = present("basics.md", *FAST)
    for command, output in (('echo "first-output for mars"', "first-output for mars"),
                            ("echo second-output", "second-output"), ("echo third-output", "third-output")):
        term.wait_for(lambda s, c=command: prompt_line(s, c), command)
        term.keys("Enter")
        term.wait_text(f"\n{output}")
    status, _ = term.finished()
    assert status == 0
    assert "end of the show: 3 commands" in term.screen()


def test_no_drift_for_a_failure_that_is_the_lesson_or_the_presenters_ctrl_c(present):
    term = present("lessons.md", *FAST, "--marks")
    term.wait_for(lambda s: prompt_line(s, "false"), "the failing command")
    term.keys("Enter")
    term.wait_for(lambda s: prompt_line(s, "sleep 100"), "the watch")
    term.keys("Enter")
    term.wait_text("\nweb   Running")
    term.keys("C-c")
    term.wait_for(lambda s: prompt_line(s, "echo what-really-happens"), "the drifting command")
    assert "≠" not in term.screen()
    term.keys("Enter")
    term.wait_for(lambda s: prompt_line(s, "echo the-end"), "the last command")
    assert term.screen().count("≠") == 1  # real drift is still marked
    term.keys("Q")
    assert term.finished()[0] == 0


def test_start_cue_on_an_empty_screen_goes_with_the_first_key(present):
    term = present("cue.md", *FAST)
    shown = term.wait_text("RETURN to start")
    assert "cue.md" in shown and "? for keys" in shown
    assert "Prose after the start" not in term.stays_without("Prose after the start")
    term.keys("Enter")
    shown = term.wait_text("Prose after the start")
    assert "RETURN to start" not in shown
    term.keys("Q")
    assert term.finished()[0] == 0


def test_a_hidden_command_that_ends_the_shell_ends_the_show_with_its_status(present):
    term = present("hidden_fail.md", *FAST)
    status, _ = term.finished()
    shown = term.screen()
    assert status == 3
    assert "hidden_fail.md:15: a hidden command ended the workshop's shell with exit status 3" in shown
    # What the hidden section printed before it, by earlier commands too; never bash's own `exit`.
    tail = shown[shown.index("the last "):shown.index("end of the show")].splitlines()[1:]
    assert tail == ["checking the tools this workshop needs", "error: the tool frobnicate is not installed"]
    assert "never-run" not in shown
    # The opening was read while the setup ran; the failure comes after it.
    assert shown.index("Opening words") < shown.index("a hidden command ended")


def test_catching_up_shows_progress_then_erases_it(present):
    term = present("catchup.md", *FAST, "--from", "using them")
    term.wait_text("catching up: 1/3")
    term.wait_text("catching up: 3/3")
    shown = term.wait_for(lambda s: prompt_line(s, 'echo "installed $STEP"'), "the section's command")
    assert "catching up" not in shown
    term.keys("Enter")
    term.wait_text("\ninstalled 3")
    term.keys("Q")
    assert term.finished()[0] == 0


def test_o_shows_the_last_output_again_in_a_pager(present):
    term = present("pager.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, "Running\"; done"), "the long command")
    term.keys("Enter")
    before = term.wait_for(lambda s: prompt_line(s, "echo after-the-table"), "the next command")
    assert "NAME-HEADER" not in before  # scrolled away
    term.keys("o")
    paged = term.wait_text("NAME-HEADER")
    assert paged.splitlines()[0].startswith("NAME-HEADER")
    term.keys("q")
    term.wait_for(lambda s: s == before, "the show exactly as it was")
    term.keys("Enter")
    term.wait_text("\nafter-the-table")
    term.keys("Q")
    assert term.finished()[0] == 0


def test_timings_of_three_sections_at_theend(present, tmp_path):
    written = tmp_path / "talk.json"
    term = present("three_sections.md", *FAST, "--timings", str(written))
    for command in ("sleep 0.2; echo first-done", "sleep 0.8; echo second-done", "echo third-done"):
        term.wait_for(lambda s, c=command: prompt_line(s, c), command)
        term.keys("Enter")
    status, _ = term.finished()
    shown = term.screen()
    assert status == 0
    table = shown[shown.index("section"):]
    for title in ("First", "Second", "Third", "total"):
        assert re.search(rf"^{title}\s+\d", table, re.MULTILINE), table
    data = json.loads(written.read_text())
    by_title = {s["title"]: s for s in data["sections"]}
    assert {"First", "Second", "Third"} <= set(by_title)
    assert by_title["Second"]["commands"] >= 0.8 > by_title["First"]["commands"] >= 0.2
    assert all(s["total"] >= s["commands"] for s in data["sections"])


def test_notes_on_a_second_terminal(present, notes_pane):
    pane, tty = notes_pane
    term = present("notes.md", *FAST, "--notes", tty)
    term.wait_for(lambda s: prompt_line(s, "echo one-done"), "the first command")
    panel = pane.wait_text("Ask who has used a service mesh")
    assert "section 1/2: Part one" in panel and "step 1/2" in panel and "echo one-done" in panel
    main = term.screen()
    assert "service mesh" not in main and "step 1/2" not in main  # the audience sees none of it
    term.keys("?")
    pane.wait_text("Q quit")
    assert "Q quit" not in term.screen()
    term.keys("Enter")
    term.wait_for(lambda s: prompt_line(s, "echo two-done"), "the second command")
    panel = pane.wait_text("press o if its header")
    assert "section 2/2: Part two" in panel and "step 2/2" in panel and "service mesh" not in panel
    assert re.search(r"Part one\s+\d", panel)  # time spent per section
    term.keys("Enter")
    assert term.finished()[0] == 0
    pane.wait_text("end of the show: 2 commands")
    assert "end of the show" not in term.screen()


def test_set_e_and_a_failing_hook_end_with_where_and_the_hooks_name(present):
    term = present("hook_fail.md", *FAST, env="DEMO_HOOK_SCENE=false")
    term.wait_for(lambda s: prompt_line(s, "echo before-the-hook"), "the first command")
    term.keys("Enter")
    status, _ = term.finished()
    shown = term.screen()
    assert status == 1
    assert "hook_fail.md:15: the hook @switch_scene ($DEMO_HOOK_SCENE) ended the workshop's shell " \
           "with exit status 1" in shown
    assert "never-reached" not in shown


def test_a_long_command_is_typed_in_bounded_time(present, tmp_path):
    words = " ".join(f"w{n}" for n in range(700))  # about 3000 keys: minutes at a human pace
    workshop = tmp_path / "long.md"
    workshop.write_text(f"<!-- @SHOW -->\n\n```bash\necho {words} | wc -w\n```\n")
    term = present(str(workshop))  # at a human pace
    started = time.monotonic()
    term.wait_for(lambda s: "| wc -w" in s, "the whole command typed", timeout=15)
    assert time.monotonic() - started < 12  # the cap is 2 s; uncapped, 3000 keys take 165 s
    term.keys("Enter")
    term.wait_text("\n700\n")
    term.keys("Q")
    term.finished()


def test_help_never_covers_a_command_that_takes_two_rows(present, tmp_path):
    workshop = tmp_path / "wide.md"
    workshop.write_text("<!-- @SHOW -->\n\n```bash\necho " + "x" * 150 + " wide-end\n```\n")
    term = present(str(workshop), *FAST)
    before = term.wait_for(lambda s: "wide-end" in s, "the wide command")
    term.keys("?")
    shown = term.wait_text("Q quit")
    assert shown.rstrip().splitlines()[:-1] == before.rstrip().splitlines()
    term.keys("x")
    term.wait_for(lambda s: s == before, "the screen as it was")
    term.keys("Q")
    term.finished()


def _prompts(shown: str) -> list[str]:
    return [line.rstrip() for line in shown.splitlines() if line.startswith("$ ")]


def test_minus_on_the_first_command_says_there_is_nothing_before(present):
    term = present("basics.md", *FAST)
    before = term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the first command")
    term.keys("-")
    shown = term.wait_text("nothing before this command")
    assert _prompts(shown) == _prompts(before)  # no second prompt line
    term.keys("x")  # the answer goes with the next key, which acts (x: nothing)
    term.wait_for(lambda s: s == before, "the screen as it was")
    term.keys("Enter")
    term.wait_text("\nfirst-output for mars")
    term.keys("Q")
    term.finished()


def test_minus_offers_the_skipped_command_in_place_and_leaves_no_stray_prompt(present):
    term = present("basics.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the first command")
    term.keys("Enter")
    term.wait_for(lambda s: prompt_line(s, "echo second-output"), "the second command")
    term.keys("+")
    term.wait_for(lambda s: prompt_line(s, "echo third-output"), "the third command")
    term.keys("-")
    shown = term.wait_for(lambda s: s.rstrip().endswith("$ echo second-output"), "the skipped command offered")
    assert "$ echo third-output" not in shown  # in place of the one that did not run
    term.keys("-")
    term.wait_for(lambda s: s.rstrip().endswith('$ echo "first-output for mars"'), "the one before it")
    term.keys("+")  # not that one after all: back where the show was
    shown = term.wait_for(lambda s: s.rstrip().endswith("$ echo third-output"), "the third command back")
    assert _prompts(shown) == ['$ echo "first-output for mars"', "$ echo second-output", "$ echo third-output"]
    term.keys("-")
    term.wait_for(lambda s: s.rstrip().endswith("$ echo second-output"), "the skipped command again")
    term.keys("Enter")
    shown = term.wait_for(lambda s: s.rstrip().endswith("$ echo third-output"), "the third command after it")
    assert "\nsecond-output\n" in shown
    assert _prompts(shown) == ['$ echo "first-output for mars"', "$ echo second-output", "$ echo second-output",
                               "$ echo third-output"]
    term.keys("Q")
    term.finished()


def test_q_says_how_the_show_ended(present):
    term = present("basics.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, 'echo "first-output for mars"'), "the first command")
    term.keys("Enter")
    term.wait_for(lambda s: prompt_line(s, "echo second-output"), "the second command")
    term.keys("Q")
    assert term.finished()[0] == 0
    assert "show ended by Q at " in term.screen() and "basics.md:21: 1 command" in term.screen()


def test_drift_goes_to_the_notes_and_never_into_a_recording(present, notes_pane, tmp_path):
    pane, tty = notes_pane
    cast = tmp_path / "talk.cast"
    term = present("drift.md", *FAST, "--notes", tty, "--record", str(cast))
    for command in ("echo as-written", "echo what-really-happens", "echo last"):
        term.wait_for(lambda s, c=command: prompt_line(s, c), command)
        term.keys("Enter")
    assert term.finished()[0] == 0
    panel = pane.wait_text("not as in the script")
    assert "drift.md:11: ≠ output differs (d: diff)" in panel
    assert "end of the show: 3 commands, 1 not as in the script" in panel
    assert "≠" not in term.screen() and "not as in the script" not in term.screen()
    played = "".join(json.loads(line)[2] for line in cast.read_text().splitlines()[1:])
    assert "what-really-happens" in played and "≠" not in played and "not as in the script" not in played


def test_without_notes_drift_shows_but_is_not_recorded(present, tmp_path):
    cast = tmp_path / "talk.cast"
    term = present("drift.md", *FAST, "--marks", "--record", str(cast))
    for command in ("echo as-written", "echo what-really-happens", "echo last"):
        term.wait_for(lambda s, c=command: prompt_line(s, c), command)
        term.keys("Enter")
    assert term.finished()[0] == 0
    assert "≠ output differs" in term.screen() and "1 not as in the script" in term.screen()
    played = "".join(json.loads(line)[2] for line in cast.read_text().splitlines()[1:])
    assert "\r\nlast" in played or "\nlast" in played
    assert "≠" not in played and "not as in the script" not in played


def test_the_opening_shows_while_the_hidden_setup_runs(present, tmp_path):
    go = tmp_path / "go"
    term = present("slow_setup.md", *FAST, env=f"GO={go}")
    shown = term.wait_text("OPENING-WHILE-SETUP")
    assert "Opening title" in shown
    term.stays_without("$ echo after-the-setup", seconds=0.3)  # the setup waits for the test
    go.touch()
    term.wait_for(lambda s: prompt_line(s, "echo after-the-setup"), "the first command, after the setup")
    term.keys("Enter")
    term.wait_text("\nafter-the-setup")
    term.keys("Q")
    assert term.finished()[0] == 0


def test_going_back_to_the_opening_shows_its_text_again(present):
    term = present("sections.md", *FAST)
    term.wait_for(lambda s: prompt_line(s, "STATE=set-in-part-one"), "the first command")
    term.keys("+")
    term.wait_for(lambda s: prompt_line(s, 'echo "part one ran"'), "the second command")
    term.keys("+")
    term.wait_for(lambda s: prompt_line(s, 'echo "state is $STATE"'), "the second section's command")
    term.keys("g")
    term.wait_text("go to section")
    term.text("1")
    term.keys("Enter")
    shown = term.wait_for(lambda s: s.count("Prose of part one.") == 2 and s.rstrip().endswith(
        "$ STATE=set-in-part-one"), "the opening's text again, then its command")
    assert 'echo "state is $STATE"' not in shown  # taken back: it was not run
    term.keys("Q")
    term.finished()


def test_with_notes_the_start_cue_is_on_the_notes_terminal_only(present, notes_pane):
    pane, tty = notes_pane
    term = present("cue.md", *FAST, "--notes", tty)
    pane.wait_text("waiting for you at ")
    shown = term.stays_without("RETURN to start", seconds=0.3)
    assert "cue.md" not in shown
    term.keys("Enter")
    term.wait_text("Prose after the start")
    term.keys("Q")
    assert term.finished()[0] == 0
