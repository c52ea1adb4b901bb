"""`...` without backtracking: globs within a line, runs of lines between whole-line `...`, time linear in both."""
from __future__ import annotations

import random
import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from runner.verify.compare import compare_output
from runner.verify.volatile import canon_for
from runner.verify.wildcards import ANY_LINES, Glob, match_lines


@settings(max_examples=300)
@given(st.lists(st.text(alphabet="ab.", max_size=4), min_size=2, max_size=6), st.text(alphabet="ab.", max_size=20))
def test_a_glob_matches_what_the_same_pattern_as_a_regex_matches(pieces, text):
    regex = ".*".join(map(re.escape, pieces))
    assert Glob(tuple(pieces)).fullmatch(text) is (re.fullmatch(regex, text, re.DOTALL) is not None)


@settings(max_examples=300)
@given(st.lists(st.sampled_from(["a", "b", "", None]), max_size=8),
       st.lists(st.sampled_from(["a", "b", ""]), max_size=10))
def test_runs_between_whole_line_dots_match_as_a_regex_over_lines_would(pattern, lines):
    """The line matcher against a regex over one letter a line (`...` as `.*`), trailing blank lines aside."""
    while lines and lines[-1] == "":
        lines.pop()  # output never ends in blank lines: normalising drops them
    def as_regex(ms):
        return "".join(".*" if m is None else "_" if m == "" else m for m in ms)

    text = "".join(line or "_" for line in lines)
    # Blank lines and `...` at the end may stand for the blank lines normalising dropped.
    cuts = [cut for cut in range(len(pattern) + 1) if all(m in (None, "") for m in pattern[cut:])]
    expected = any(re.fullmatch(as_regex(pattern[:cut]), text) for cut in cuts)
    pairs = match_lines(pattern, lines)
    assert (pairs is not None) is expected, (pattern, lines)
    if pairs is not None:
        assert all(pattern[i] == lines[j] for i, j in pairs)
        assert [i for i, _ in pairs] == sorted(i for i, _ in pairs)


def test_match_lines_names_the_line_each_expected_line_took():
    lines = ["a", "x", "b", "y", "b", "c"]
    assert match_lines(["a", ANY_LINES, "b", ANY_LINES, "c"], lines) == [(0, 0), (2, 2), (4, 5)]
    assert match_lines(["a", ANY_LINES, "b", "c"], ["a", "b", "x", "b", "c"]) == [(0, 0), (2, 3), (3, 4)]


def test_an_ellipsis_inside_a_hex_dump_ascii_column_is_text_when_the_line_reads_the_same():
    line = "    0000 - 2f 5d 8e 1c 3a 44 55 66-77 88 99 aa bb cc dd ee   /]..:DUfw......."
    assert compare_output([line], line.replace("2f 5d", "01 02") + "\n") is None


def _best(fn, rounds: int = 3) -> float:
    """The fastest of a few rounds, each from cold caches, so sizes compare alike."""
    best = float("inf")
    for _ in range(rounds):
        canon_for.cache_clear()
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def test_six_dots_in_a_line_that_does_not_match_take_time_linear_in_its_length():
    """A regex of nested `.*` backtracks for ever here; a glob reads each piece once."""
    expected = ["a ... b ... c ... d ... e ... f ... g"]

    def timed(width: int) -> float:
        actual = " ".join("abcdef"[i % 6] for i in range(width)) + " z\n"
        return _best(lambda: compare_output(expected, actual))

    small, large = timed(20_000), timed(160_000)
    assert large / small < 8 * 3, (small, large)  # 8 times the text: at most 3 times the per-character cost


def test_whole_line_dots_take_time_linear_in_the_lines_of_the_output():
    """A run of lines that nearly matches at every place makes a naive search quadratic when both grow."""

    def timed(lines: int) -> float:
        expected = ["start", "...", *["a"] * (lines // 2), "b", "...", "end"]
        actual = "\n".join(["start", *["a"] * lines, "b", "end"]) + "\n"
        return _best(lambda: compare_output(expected, actual))

    small, large = timed(4_000), timed(32_000)
    assert large / small < 8 * 3, (small, large)


def test_many_globbed_lines_against_many_lines_stay_linear():
    rng = random.Random(7)
    words = ["alpha", "beta", "gamma", "delta"]

    def timed(lines: int) -> float:
        rows = [f"{rng.choice(words)} {i} {rng.choice(words)}" for i in range(lines)]
        expected = ["...", *[f"{row.split()[0]} ... {row.split()[2]}" for row in rows[-50:]]]
        return _best(lambda: compare_output(expected, "\n".join(rows) + "\n"))

    small, large = timed(2_000), timed(16_000)
    assert large / small < 8 * 3, (small, large)
