"""Markdown workshops: prose chunks and sections, fences, comments and directive-looking lines."""
from __future__ import annotations

from pathlib import Path

import pytest

from runner.model import Kind, Visibility
from runner.parse.workshop import parse_text, parse_workshop

WORKSHOPS = Path(__file__).parent / "fixtures" / "parse" / "workshops"


def _plan(name: str):
    return parse_workshop(str(WORKSHOPS / name), no_init=True)


def _codes(plan) -> list[tuple[int, str]]:
    return [(f.loc.line, f.code) for f in plan.findings]


def test_each_heading_starts_a_prose_step_and_names_the_section():
    plan = _plan("sections.md")
    prose = [s for s in plan.steps if s.kind is Kind.PROSE]
    assert [(s.loc.line, s.end_line, s.section) for s in prose] == [
        (1, 1, None), (3, 7, "Getting started"), (14, 28, "Setext title"), (30, 30, "Running")]
    (command,) = plan.commands
    assert command.section == "Running"


def test_html_comments_are_left_out_of_prose():
    chunk = _plan("sections.md").steps[1]
    assert "comment" not in chunk.text
    assert chunk.text.splitlines() == ["# Getting started", "", "Some text under the first heading.",
                                       "More text."]


def test_other_fences_are_prose_even_with_hashes_or_bash_inside():
    plan = _plan("sections.md")
    assert [c.text for c in plan.commands] == ["echo first"]
    setext = plan.steps[2]
    assert "## not a heading: inside a yaml fence" in setext.text
    assert "echo indented fences are prose" in setext.text


def test_expected_output_and_display_only_lines():
    plan = _plan("expected.md")
    hello, printf, bare = plan.commands
    assert hello.expected.lines == ("hello",)
    assert printf.expected.lines == ("a", "", "b", "  indented")
    assert (printf.expected.loc.line, printf.expected.end_line) == (7, 10)
    assert bare.expected is None
    comments = [s for s in plan.steps if s.kind is Kind.COMMENT]
    # A fence of `##` lines alone (line 17) is a sample capture: not shown, as demosh does not.
    assert [(c.loc.line, c.text) for c in comments] == [(13, "after a blank line: display only")]
    assert _codes(plan) == [(13, "orphan-output"), (17, "orphan-output")]
    assert "never shown" in next(f.message for f in plan.findings if f.loc.line == 17)


def test_output_lines_do_not_leak_into_the_prose_after_their_fence():
    plan = _plan("expected.md")
    prose = [s for s in plan.steps if s.kind is Kind.PROSE]
    assert [p.text for p in prose] == ["Prose after the fence.", "## A heading, not output"]
    assert prose[1].section == "A heading, not output"


@pytest.mark.parametrize("fence, closing", [("```bash", "```"), ("```sh", "```"),
                                            ("```shell", "```"), ("~~~bash", "~~~~"),
                                            ("````bash title=x", "````"), ("```Bash", "```")])
def test_runnable_fence_openings(fence, closing):
    plan = parse_text(f"{fence}\necho run\n{closing}\n", "w.md")
    assert [c.text for c in plan.commands] == ["echo run"]


@pytest.mark.parametrize("fence", ["```console", "```", "``` yaml", " ```bash", "```bash-session"])
def test_other_fences_do_not_run(fence):
    plan = parse_text(f"{fence}\necho run\n```\n", "w.md")
    assert plan.commands == ()
    assert plan.steps[0].kind is Kind.PROSE


def test_directive_comments_accept_leading_spaces_and_no_spaces():
    plan = parse_text("  <!-- @SHOW -->\n<!--@wait-->\n", "w.md")
    assert [(s.kind, s.visibility) for s in plan.steps] == [(Kind.WAIT, Visibility.SHOW)]


def test_unclosed_comment_before_a_directive_is_reported_and_the_directive_applies():
    plan = parse_text("<!-- set -e >\n<!-- @SHOW -->\n\nText\n", "w.md")
    assert _codes(plan) == [(1, "unclosed-comment")]
    assert plan.steps[0].visibility is Visibility.SHOW


def test_hash_directive_inside_a_comment_is_flagged_not_applied():
    plan = parse_text("<!-- #@SHOW -->\n\nText\n", "w.md")
    assert plan.steps[0].visibility is Visibility.HIDE
    assert _codes(plan) == [(1, "malformed-directive")]
    assert "<!-- @SHOW -->" in plan.findings[0].message


@pytest.mark.parametrize("line, severity", [("@import tools.sh -->", "error"),
                                            ("@SHOW", "warning"), ("#@wait", "warning")])
def test_directive_looking_prose_lines_are_reported(line, severity):
    plan = parse_text(f"Intro\n\n{line}\n", "w.md")
    (finding,) = plan.findings
    assert (finding.loc.line, finding.code, finding.severity.value) == (
        3, "directive-outside-comment", severity)
    assert repr(line) in finding.message


def test_ordinary_at_words_in_prose_are_left_alone():
    assert parse_text("Thanks to @someone for this.\n@octocat\n", "w.md").findings == ()


def test_unterminated_fence_is_an_error_and_its_commands_still_count():
    plan = parse_text("Text\n\n```bash\necho a\n", "w.md")
    assert _codes(plan) == [(3, "unterminated-fence")]
    assert [c.text for c in plan.commands] == ["echo a"]


def test_a_fence_never_carries_an_open_command_into_the_next():
    plan = parse_text("```bash\necho 'open\n```\n\nProse line.\n\n```bash\necho b\n```\n", "w.md")
    assert [c.text for c in plan.commands] == ["echo 'open", "echo b"]
    assert any(s.kind is Kind.PROSE and s.text == "Prose line." for s in plan.steps)


def test_crlf_line_endings_are_read_like_lf():
    plan = parse_text("<!-- @SHOW -->\r\n```bash\r\necho a\r\n## a\r\n```\r\n", "w.md")
    (command,) = plan.commands
    assert (command.text, command.expected.lines, command.visibility) == ("echo a", ("a",),
                                                                          Visibility.SHOW)
