"""Markdown read once: finding workshops, `check --update` and the plan agree on what a fence is."""
from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from runner.modes.update import OutputEdit, updated_text
from runner.parse.markdown import has_runnable_fence, is_runnable_fence
from runner.parse.source import split_lines
from runner.parse.workshop import parse_text


# Fences: one definition (runner.parse.markdown), read by the plan, by discovery and by --update.

def _runnable_lines(text: str) -> bool:
    return any(is_runnable_fence(line) for line in split_lines(text.removeprefix("\ufeff")))


@pytest.mark.parametrize("text, runnable", [
    ("```bash\necho hi\n```\n", True),
    ("\ufeff```sh\necho hi\n```\n", True),
    ("Prose.\r\n~~~~Shell title=x\r\necho hi\r\n~~~~\r\n", True),
    ("~~~bash `quoted`\necho hi\n~~~", True),  # a tilde fence may have backticks in its info
    ("Prose.\n  ```bash\necho hi\n  ```\n", False),  # indented: shown, never run
    ("```bash `x`\necho hi\n```\n", False),  # backticks in a backtick fence's info: no fence there
    ("```~bash\necho hi\n```\n", False),
    ("```bashful\necho hi\n```\n", False),
    ("Run ```bash\necho hi\n```\n", False),
    ("", False),
])
def test_finding_workshops_asks_the_plans_own_fence_predicate(text, runnable):
    assert has_runnable_fence(text.encode()) is runnable
    assert _runnable_lines(text) is runnable
    assert bool(parse_text(text.removeprefix("\ufeff"), "w.md").commands) is runnable


@example("Prose.\n```sh")
@example("\ufeff~~~Shell")
@given(st.lists(st.sampled_from(["```", "~~~", "````", "bash", "sh", "Shell", "text", " ", "`", "~", "\n", "\r\n",
                                 "\r", "x", "\ufeff", "é", "\t"]), max_size=40).map("".join))
def test_finding_workshops_agrees_with_the_predicate_on_any_text(text):
    assert has_runnable_fence(text.encode()) == _runnable_lines(text)


@pytest.mark.parametrize("inner, closes", [
    ("````", True), ("   ````  ", True), ("``````", True),
    ("    ````", False), ("```", False), ("~~~~", False), ("```` bash", False),
])
def test_a_runnable_fence_ends_only_at_a_closing_fence(inner, closes):
    plan = parse_text(f"````bash\ncat <<'EOF'\n{inner}\nEOF\n````\n", "w.md")
    assert (inner not in plan.commands[0].text) is closes  # closed there, the heredoc is cut short


@pytest.mark.parametrize("fence, indent", [("```bash", ""), ("   ~~~sh", "   "), ("  ````bash title", "  ")])
def test_update_indents_new_blocks_as_the_fence_the_command_sits_in(fence, indent):
    closing = fence.strip()[:3]
    text = f"Prose.\n\n{fence}\n{indent}echo hi\n{indent}{closing}\n"
    assert updated_text(text, [OutputEdit(4, None, "hi\n")]).splitlines()[4] == f"{indent}## hi"
