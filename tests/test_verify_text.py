"""Text output: `...` lines and inline `...`, unified diffs, modes and masks."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runner.errors import ParseError
from runner.verify.compare import compare_output
from runner.verify.wildcards import match_lines


@pytest.mark.parametrize("pattern, lines, ok", [
    (["a", None, "b"], ["a", "b"], True),
    (["a", None, "b"], ["a", "x", "y", "b"], True),
    (["a", None, "b"], ["a", "b", "b"], True),
    (["a", None, "b"], ["a", "b", "c"], False),
    ([None], [], True),
    ([None, None], ["x"], True),
    (["a", None, "b", None, "c"], ["a", "b", "x", "b", "c"], True),
    (["a", None, "b", "c"], ["a", "b", "x", "b", "c"], True),
    (["a", None, "b", "c"], ["a", "b", "c", "b"], False),
    (["a"], [], False),
    ([], ["a"], False),
    (["a", "", None], ["a"], True),  # the output's trailing blank lines were dropped
])
def test_whole_line_ellipsis_takes_zero_or_more_lines(pattern, lines, ok):
    assert (match_lines(pattern, lines) is not None) is ok


def test_indented_ellipsis_line_is_a_wildcard_too():
    assert compare_output(["start", "    ...", "end"], "start\n  one\n  two\nend\n") is None


def test_inline_ellipsis_stands_for_text_within_one_line():
    assert compare_output(["Linkerd ... installed"], "Linkerd edge-22.11.1 installed\n") is None
    assert compare_output(["Linkerd ... installed"], "Linkerd edge\ninstalled\n") is not None


def test_literal_ellipsis_in_output_matches_itself():
    assert compare_output(["Waiting for rollout..."], "Waiting for rollout...\n") is None


def test_expected_empty_output_fails_on_any_output():
    mismatch = compare_output([], "surprise\n")
    assert mismatch is not None and "+surprise" in mismatch.details
    assert compare_output([""], "\n\n") is None


def test_diff_hunks_number_lines_as_diff_does():
    expected = [f"line {i}" for i in range(1, 11)]
    actual = "\n".join(expected).replace("line 6", "line six") + "\n"
    mismatch = compare_output(expected, actual)
    assert mismatch is not None
    assert mismatch.details[:3] == ("--- expected", "+++ actual", "@@ -3,7 +3,7 @@")
    assert "-line 6" in mismatch.details and "+line six" in mismatch.details
    assert " line 1" not in mismatch.details


def test_lines_matching_under_the_rules_show_as_unchanged_in_the_diff():
    expected = ["started 2022-11-17T16:06:24Z", "Linkerd ... installed", "status ok"]
    actual = "started 2023-01-01T00:00:00Z\nLinkerd edge installed\nstatus broken\n"
    mismatch = compare_output(expected, actual)
    assert mismatch is not None
    assert mismatch.summary == "1 expected line not seen, 1 unexpected line"
    assert " started 2022-11-17T16:06:24Z" in mismatch.details
    assert " Linkerd ... installed" in mismatch.details


def test_ignore_accepts_anything():
    assert compare_output(["x"], "y\n", expect="ignore") is None


def test_unknown_mode_is_an_error():
    with pytest.raises(ParseError, match="'fuzzy'"):
        compare_output(["x"], "x\n", expect="fuzzy")


def test_exact_still_ignores_colours_and_line_endings():
    assert compare_output(["ok 47s"], "\x1b[32mok 47s\x1b[0m\r\n", expect="exact") is None
    assert compare_output(["ok 47s"], "ok 48s\n", expect="exact") is not None


def test_a_mask_needs_a_match_on_both_sides():
    masks = [r"build-\d+"]
    assert compare_output(["got build-1"], "got build-22\n", masks=masks) is None
    assert compare_output(["got build-1"], "got nothing\n", masks=masks) is not None


def test_a_broken_mask_is_an_error_quoting_it():
    with pytest.raises(ParseError, match=r"'build-\(\['"):
        compare_output(["a"], "b\n", masks=["build-(["])


def test_update_keeps_exactly_the_lines_the_failure_diff_shows_as_unchanged():
    """One alignment serves both: what a reader sees as matching is what `--update` keeps."""
    from runner.model import Expectation, SourceLoc
    from runner.modes.update import OutputEdit, updated_text

    block = ["started 2022-11-17T16:06:24Z", "Linkerd ... installed", "web-5d7f8b9c6-abcde ready", "status ok"]
    output = "started 2023-01-01T00:00:00Z\nLinkerd edge installed\nweb-79c4b8d6f5-tq8zw ready\nstatus broken\n"
    mismatch = compare_output(block, output)
    assert mismatch is not None
    unchanged = [d[1:] for d in mismatch.details if d.startswith(" ")]
    assert unchanged == block[:3]
    text = "```bash\nrun\n" + "".join(f"## {line}\n" for line in block) + "```\n"
    old = Expectation(tuple(block), SourceLoc("w.md", 3), 6)
    new = updated_text(text, [OutputEdit(2, old, output)])
    kept = [line[3:] for line in new.split("\n") if line.startswith("## ")]
    assert kept == [*unchanged, "status broken"]


def test_every_other_line_changed_in_a_long_output_is_diffed_without_quadratic_search():
    lines = [f"request {i} served" for i in range(20_000)]
    actual = "\n".join(line.replace("served", "failed") if i % 2 else line for i, line in enumerate(lines))
    mismatch = compare_output(lines, actual)
    assert mismatch is not None and mismatch.summary == "10000 expected lines not seen, 10000 unexpected lines"
    assert "line 2: expected served, got failed" in mismatch.details


@settings(max_examples=200)
@given(st.lists(st.sampled_from("abcdefgh"), max_size=40), st.lists(st.sampled_from("abcdefgh"), max_size=40))
def test_the_line_matcher_turns_one_side_into_the_other(a, b):
    """Opcodes cut at unique anchors still describe a correct edit, whatever the cut-off for difflib."""
    from runner.verify import diff

    saved, diff._SMALL = diff._SMALL, 4
    try:
        ops = diff.Matcher(a, b).get_opcodes()
    finally:
        diff._SMALL = saved
    rebuilt, i, j = [], 0, 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j)
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        rebuilt.extend(b[j1:j2])
        i, j = i2, j2
    assert (i, j) == (len(a), len(b)) and rebuilt == b


def test_json_nested_deeper_than_the_stack_is_compared_as_text():
    deep = "[" * 50_000 + "]" * 50_000
    assert compare_output([deep], deep + "\n") is None
    mismatch = compare_output([deep], deep.replace("[]", "[1]"))
    assert mismatch is not None and mismatch.summary == "1 expected line not seen, 1 unexpected line"
