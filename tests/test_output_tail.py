"""The tail of a hidden command's output that run and present show: bounded, whole lines only."""
from __future__ import annotations

from runner.modes.output_tail import KEPT, OutputTail, tail_text
from runner.modes.present.endings import HiddenTail


def test_a_short_output_is_read_whole():
    assert tail_text("one\ntwo\n") == "one\ntwo\n"


def test_a_long_output_is_read_from_its_first_whole_line_in_the_kept_end():
    cut_through = "s3cr3t-" * (KEPT // 7 + 1)  # a line longer than what is kept: only its end would be left
    text = tail_text("first\n" + cut_through + "\nlast line\n")
    assert text == "last line\n"
    assert len(tail_text("x\n" * KEPT)) <= KEPT


def test_the_tail_keeps_the_last_lines_of_several_commands():
    tail = OutputTail(3)
    tail.add("a\nb\n")
    tail.add("c\nd\n")
    assert tail.lines() == ["b", "c", "d"]
    tail.clear()
    assert tail.lines() == []


def test_presents_tail_leaves_out_the_exit_bash_says_as_it_leaves():
    tail = HiddenTail()
    tail.add("Missing: kubectl\nexit\n")
    assert tail.lines() == ["Missing: kubectl"]
