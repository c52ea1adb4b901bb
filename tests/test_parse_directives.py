"""Directives: visibility, per-command modifiers, the extensions, and their validation."""
from __future__ import annotations

from pathlib import Path

import pytest

from runner.model import Kind, Modifiers, Visibility
from runner.parse.directives import interpret
from runner.parse.workshop import parse_text, parse_workshop

WORKSHOPS = Path(__file__).parent / "fixtures" / "parse" / "workshops"


@pytest.fixture(scope="module")
def plan():
    return parse_workshop(str(WORKSHOPS / "directives.md"), no_init=True)


def _command(plan, text: str):
    (step,) = [s for s in plan.commands if s.text == text]
    return step


def test_immed_clears_waiting_and_showing(plan):
    m = _command(plan, "echo immediate").modifiers
    assert (m.immediate, m.show, m.wait_before, m.optional) == (True, False, False, False)


def test_flag_directives_stack_on_the_next_command(plan):
    m = _command(plan, "echo flags").modifiers
    assert (m.wait_after, m.wait_before, m.show, m.typeout, m.immediate) == (
        True, False, False, False, False)


def test_extensions_set_their_fields(plan):
    m = _command(plan, "echo extensions").modifiers
    assert (m.expect, m.exit, m.timeout, m.stop_after, m.retry, m.retry_every) == (
        "contains", 3, 90.0, 300.0, 120.0, 5.0)
    assert m.masks == ("[0-9a-f]{8}", r"\d+s")


def test_modifiers_reset_after_each_command(plan):
    assert _command(plan, "echo defaults again").modifiers == Modifiers()
    assert _command(plan, "false").modifiers.exit is None


def test_wait_clear_and_print_steps(plan):
    kinds = [(s.kind, s.text) for s in plan.steps if s.kind in (Kind.WAIT, Kind.CLEAR, Kind.PRINT)]
    assert kinds == [(Kind.WAIT, ""), (Kind.CLEAR, ""), (Kind.PRINT, "# found pod ${POD} now"),
                     (Kind.PRINT, "kubectl logs ${POD}")]
    continued = [s for s in plan.steps if s.kind is Kind.PRINT][1]
    assert (continued.loc.line, continued.end_line) == (30, 31)


def test_unknown_names_become_optional_immediate_commands(plan):
    m = _command(plan, "some_tool --flag value").modifiers
    assert (m.immediate, m.show, m.wait_before, m.optional) == (True, False, False, True)


def test_show_hide_skip(plan):
    visibility = {s.text: s.visibility for s in plan.commands}
    assert visibility["echo flags"] is Visibility.SHOW
    assert visibility["echo hidden"] is Visibility.HIDE
    assert visibility["echo skipped"] is Visibility.SKIP
    assert visibility["echo still skipped"] is Visibility.SKIP  # only @SHOW ends a @SKIP
    assert visibility["echo shown again"] is Visibility.SHOW


def test_requires_collects_each_tool_once_anywhere(plan):
    assert [(r.tool, r.loc.line) for r in plan.requires] == [("kubectl", 1), ("jq", 1), ("helm", 36)]


def test_files_start_hidden():
    plan = parse_text("Intro\n\n```bash\necho a\n```\n", "w.md")
    assert {s.visibility for s in plan.steps} == {Visibility.HIDE}


def test_malformed_directives_are_reported_with_their_line():
    plan = parse_workshop(str(WORKSHOPS / "bad-directives.md"), no_init=True)
    assert [(f.loc.line, f.code) for f in plan.findings] == [
        (1, "malformed-directive"), (2, "malformed-directive"), (3, "malformed-directive"),
        (4, "malformed-directive"), (5, "malformed-directive"), (6, "malformed-directive"),
        (7, "malformed-directive"), (8, "malformed-directive"), (9, "malformed-directive"),
        (11, "malformed-directive"), (13, "directive-outside-comment"),
        (14, "malformed-directive"), (16, "stray-end"), (22, "unterminated-fence")]
    assert all(f.severity.value == "error" for f in plan.findings)
    assert "'fuzzy'" in plan.findings[0].message


def test_a_directive_with_extra_arguments_still_applies():
    plan = parse_text("<!-- @SHOW please -->\n\nText\n", "w.md")
    assert plan.steps[0].visibility is Visibility.SHOW
    assert plan.findings[0].code == "malformed-directive"


def test_dangling_modifiers_are_reported():
    plan = parse_text("```bash\necho a\n#@timeout 5s\n```\n", "w.md")
    assert [(f.loc.line, f.code) for f in plan.findings] == [(3, "dangling-modifier")]


@pytest.mark.parametrize("name, args, kind", [
    ("SHOW", "", "visibility"), ("wait", "", "wait"), ("immediate", "", "modifier"),
    ("import", "x.sh", "import"), ("$SHELL", "x.md", "shell"), ("${SHELL}", "x.md", "shell"),
    ("hook", "show_x X", "hook"), ("ifhook", "show_x", "ifhook"), ("macro", "m", "macro"),
    ("requires", "a b", "requires"), ("wait_clear", "", "call"), ("clear", "", "clear"),
    ("anything", "else", "call"),
])
def test_interpret_names(name, args, kind):
    directive, problem = interpret(name, args)
    assert (directive.kind, problem) == (kind, None)


@pytest.mark.parametrize("name, args", [
    ("exit", "-1"), ("exit", "3.5"), ("timeout", "0s"), ("stop-after", ""), ("retry", "5s every"),
    ("mask", ""), ("hook", "a b c"), ("hook", "name 9VAR"), ("import", "a b"), ("print", "'open"),
    ("ifhook", ""), ("", "x"),
])
def test_interpret_rejects(name, args):
    _, problem = interpret(name, args)
    assert problem


def test_literal_and_volatile_pin_names_on_the_next_command():
    plan = parse_text('<!-- @literal RESTARTS "Restart Count" -->\n<!-- @volatile RPS -->\n```bash\necho a\n```\n'
                      "```bash\necho b\n```\n", "w.md")
    first, second = plan.commands
    assert (first.modifiers.literal, first.modifiers.volatile) == (("RESTARTS", "Restart Count"), ("RPS",))
    assert second.modifiers == Modifiers() and not plan.findings


def test_a_later_pin_takes_a_name_from_the_other_kind():
    plan = parse_text("#@literal AGE RPS\n#@volatile age\necho a\n", "w.sh")
    m = plan.commands[0].modifiers
    assert (m.literal, m.volatile) == (("RPS",), ("age",))


@pytest.mark.parametrize("args, message", [
    ("", "'@literal' names at least one column or key"),
    ('"unclosed', "cannot be split"),
    ("'two  spaces'", "is not a column title or a key"),
])
def test_malformed_pins_are_errors_at_their_line(args, message):
    plan = parse_text(f"<!-- @SHOW -->\n<!-- @literal {args} -->\n```bash\necho a\n```\n", "w.md")
    assert [(f.loc.line, f.code, f.severity.value) for f in plan.findings] == [(2, "malformed-directive", "error")]
    assert message in plan.findings[0].message
