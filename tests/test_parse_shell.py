"""Splitting shell text into commands as bash reads them, and what sits between commands."""
from __future__ import annotations

from pathlib import Path

import pytest

from runner.parse.items import CommandItem, CommentItem, DirectiveItem, OutputItem
from runner.parse.shell import expected_line, split_command, split_shell

SPLIT = Path(__file__).parent / "fixtures" / "parse" / "split"


def _header(lines: list[str], key: str) -> list[str]:
    for line in lines[:3]:
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].split()
    return []


def _span(item: CommandItem) -> str:
    return str(item.line) if item.end_line == item.line else f"{item.line}-{item.end_line}"


@pytest.mark.parametrize("fixture", sorted(SPLIT.glob("*.sh")), ids=lambda p: p.stem)
def test_commands_split_where_the_fixture_header_says(fixture: Path):
    lines = fixture.read_text().split("\n")[:-1]
    commands = [i for i in split_shell(lines, str(fixture)) if isinstance(i, CommandItem)]
    assert [_span(c) for c in commands] == _header(lines, "commands")
    incomplete = [_span(c) for c in commands if not c.complete]
    assert incomplete == _header(lines, "incomplete")


@pytest.mark.parametrize("fixture", sorted(SPLIT.glob("*.sh")), ids=lambda p: p.stem)
def test_command_text_is_exactly_the_source_lines(fixture: Path):
    lines = fixture.read_text().split("\n")[:-1]
    for item in split_shell(lines, str(fixture)):
        if isinstance(item, CommandItem):
            assert item.text == "\n".join(lines[item.line - 1:item.end_line])


def test_a_heredoc_is_one_command_whatever_its_body_holds():
    lines = ["cat <<EOF", "if then", "'", "}", "EOF", "echo next"]
    commands = [i for i in split_shell(lines, "f") if isinstance(i, CommandItem)]
    assert [(c.line, c.end_line) for c in commands] == [(1, 5), (6, 6)]


def test_expected_output_belongs_to_the_command_right_above():
    lines = ["echo a", "## a", "##", "##  two spaces", "", "## orphan", "echo b", "## b"]
    items = split_shell(lines, "f.sh", first_line=10)
    first, orphan, second = items
    assert first.expected.lines == ("a", "", " two spaces")
    assert (first.expected.loc.line, first.expected.end_line) == (11, 13)
    assert str(first.expected.loc) == "f.sh:11"
    assert isinstance(orphan, OutputItem) and orphan.lines == ("orphan",)
    assert second.expected.lines == ("b",)


def test_expected_output_after_a_multiline_command_starts_after_its_last_line():
    lines = ["for i in 1 2; do", "  echo $i", "done", "## 1", "## 2"]
    (command,) = split_shell(lines, "f")
    assert (command.line, command.end_line) == (1, 3)
    assert command.expected.lines == ("1", "2")
    assert "##" not in command.text


def test_comments_group_until_a_blank_line_and_hashbang_lines_vanish():
    lines = ["#!/bin/bash", "# one", "#two", "", "# three"]
    items = split_shell(lines, "f")
    assert [(type(i), i.text) for i in items] == [(CommentItem, "one\ntwo"), (CommentItem, "three")]


def test_directives_may_be_indented_and_continue_with_a_backslash():
    lines = ["  #@wait", "#@print \\", "  text ${X}", "#@SHOW"]
    items = split_shell(lines, "f")
    assert all(isinstance(i, DirectiveItem) for i in items)
    assert [(i.name, i.line, i.end_line) for i in items] == [
        ("wait", 1, 1), ("print", 2, 3), ("SHOW", 4, 4)]


def test_directive_lines_inside_an_open_command_belong_to_it():
    lines = ["if true; then", "#@wait", "  echo x", "fi"]
    (command,) = split_shell(lines, "f")
    assert command.text.count("\n") == 3


@pytest.mark.parametrize("line, expected", [("## x", "x"), ("##", ""), ("##x", "x"),
                                             ("##  x", " x"), ("### x", "# x")])
def test_expected_line_removes_exactly_one_space(line, expected):
    assert expected_line(line) == expected


@pytest.mark.parametrize("text, complete, balanced", [
    ("echo hi", True, True),
    ("echo 'open", False, True),
    ("if true; then", False, True),
    ("echo hi; }", True, False),
    ("fi", True, False),
    ("cat <<EOF\nbody", False, True),
    ("f()", False, True),
    ("echo a |", False, True),
    ("ls @(a|b", False, True),
    ("x=$(( 1 +", False, True),
])
def test_split_command_reports_completeness_and_balance(text, complete, balanced):
    got_complete, got_balanced, why = split_command(text)
    assert (got_complete, got_balanced) == (complete, balanced)
    assert bool(why) == (not complete)
