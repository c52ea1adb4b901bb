"""The presenter on stage, in a real terminal: keys during commands, cues, endings, the notes channel."""
from __future__ import annotations

import pytest
from test_present_live import FAST, present, prompt_line, terminal  # noqa: F401  (fixtures)

pytestmark = pytest.mark.tmux


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
    term.wait_text("your word? ")
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
    term = present("lessons.md", *FAST)
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
