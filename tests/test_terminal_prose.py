"""Prose on the terminal: each element as the shared reader sees it, wrapping, colours, escapes, hostile sizes."""
from __future__ import annotations

import re
import time
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runner.terminal.prose import render

SGR = re.compile(r"\x1b\[[0-9;]*m")
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # what a terminal would act on (tab and newline aside)


def plain(markdown: str, width: int = 60) -> list[str]:
    return render(markdown, width=width, color=False).splitlines()


def coloured(markdown: str, width: int = 60) -> str:
    return render(markdown, width=width, color=True)


def cells(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in SGR.sub("", line))


# Elements.

def test_headings_keep_their_marks_without_colour_and_are_styled_with_it():
    assert plain("# Title\n\n## Part\n\n###### Deep #####\n\nSub\n---\n") == [
        "# Title", "", "## Part", "", "###### Deep", "", "## Sub"]
    shown = coloured("# Title\n\n## Part\n\n### Third\n")
    assert "\x1b[1;4mTitle\x1b[0m" in shown and "\x1b[4;35mPart\x1b[0m" in shown
    assert "\x1b[1;35mThird\x1b[0m" in shown and "#" not in shown
    assert shown.splitlines()[0] == " " * 27 + "\x1b[1;4mTitle\x1b[0m"  # a title stands centred


def test_inline_code_emphasis_links_and_images():
    text = "Run `ls -l`, **bold**, *italic*, ~~gone~~, <kbd>Q</kbd>, [docs](https://x.io) and ![a cat](cat.png)."
    assert plain(text, 200) == ["Run ls -l, bold, italic, gone, Q, docs (https://x.io) and \U0001f306 a cat."]
    shown = coloured(text, 200)
    for piece in ("\x1b[7mls -l\x1b[0m", "\x1b[1mbold\x1b[0m", "\x1b[3mitalic\x1b[0m", "\x1b[9mgone\x1b[0m",
                  "\x1b[1;4mQ\x1b[0m", "\x1b[4mdocs\x1b[0m (\x1b[2mhttps://x.io\x1b[0m)"):
        assert piece in shown


def test_a_link_that_is_its_own_text_shows_its_address_once():
    text = "See <https://auto.io>, https://bare.io/x. or <me@x.io>; [https://a.io](https://a.io) too."
    assert plain(text, 200) == ["See https://auto.io, https://bare.io/x. or me@x.io; https://a.io too."]
    assert "\x1b[4mhttps://auto.io\x1b[0m" in coloured(text, 200)
    assert plain("[text](https://a.io)") == ["text (https://a.io)"]


def test_what_is_not_emphasis_stays_as_written():
    assert plain(r"snake_case_name, 2 * 3 * 4, a single ~tilde, \*escaped\* and `unclosed") == [
        "snake_case_name, 2 * 3 * 4, a single ~tilde, *escaped* and", "`unclosed"]
    assert plain("**nested *inner* text** and ***both***") == ["nested inner text and both"]
    assert "\x1b[1;3minner\x1b[0m" in coloured("**nested *inner* text**")


def test_reference_links_entities_and_breaks():
    assert plain("See [the guide][g] and [g].\n\n[g]: https://g.example \"Guide\"\n") == [
        "See the guide (https://g.example) and g (https://g.example)."]
    assert plain("AT&amp;T &lt;tag&gt; &copy; but `&amp;` in code") == ["AT&T <tag> © but &amp; in code"]
    assert plain("one  \ntwo\\\nthree\nfour") == ["one", "two", "three four"]


def test_lists_bullets_numbers_and_nesting():
    assert plain("- one\n- two\n  - inner\n    more\n- three\n") == [
        " • one", " • two", "    • inner more", " • three"]
    assert plain("3. three\n4. four\n") == [" 3. three", " 4. four"]
    assert plain("1) one\n2) two\n") == [" 1) one", " 2) two"]
    assert plain("1. a\n" * 10) == [f"{n:>3}. a" for n in range(1, 11)]
    assert plain("- a\n\n  continued\n- b") == [" • a", "   continued", " • b"]
    assert "\x1b[1m•\x1b[0m one" in coloured("- one") and "\x1b[1m3.\x1b[0m three" in coloured("3. three")


def test_list_items_wrap_under_their_text():
    lines = plain("- " + "word " * 30, 30)
    assert lines[0].startswith(" • word") and all(line.startswith("   word") for line in lines[1:])
    assert all(len(line) <= 30 for line in lines)


def test_block_quotes_code_blocks_and_rules():
    assert plain("> quoted *text*\n> goes on") == ["▌ quoted text goes on"]
    assert plain("> one\n>\n> - two", 20) == ["▌ one", "▌  • two"]
    assert "\x1b[35m▌\x1b[0m \x1b[35mquoted\x1b[0m" in coloured("> quoted")
    assert plain("```bash\n# not a heading\n  *kept*  as is\n```\n\n    indented()\n") == [
        "│ # not a heading", "│   *kept*  as is", "", "│ indented()"]
    assert plain("a\n\n---\n\nb", 10) == ["a", "", "─" * 10, "", "b"]


def test_code_blocks_stand_behind_a_bar_with_their_own_colours():
    assert coloured("```\necho hi\n\tindented\n```", 20).splitlines() == [
        "\x1b[2m│ \x1b[0mecho hi", "\x1b[2m│ \x1b[0m    indented"]


def test_html_shows_what_it_holds_without_tags_or_comments_and_notes_as_written():
    assert plain("<details>\n<summary>Hidden</summary>\n\n<!-- a\ncomment -->\nshown\n</details>") == [
        "Hidden", "", "shown"]
    assert plain("a <span>b</span> <!-- unseen --> c<br>d") == ["a b c", "d"]
    assert plain('<div align="center">\n  <b>Big</b> &amp; <script>alert(1)</script> bold\n</div>') == [
        "Big & bold"]
    assert plain("<<Explain what we see here>>\n\nDelete it: `k3d cluster delete <cluster-name>`, <your-name>.") == [
        "<<Explain what we see here>>", "", "Delete it: k3d cluster delete <cluster-name>, <your-name>."]
    assert plain("<div><p>one</p><p>two</p></div>\n\nin<p>a</p>paragraph") == ["one", "two", "", "in a paragraph"]
    assert plain("<!-- only a comment -->") == [] and plain("a <!-- b\n\nc") == ["a <!-- b", "", "c"]
    assert plain("<div>\n<!-- never closed\nstill a comment\n</div>") == []


def test_a_key_left_open_styles_nothing_past_its_paragraph():
    assert coloured("Press <kbd>Q\n\nthen read on.").splitlines()[-1] == "then read on."


def test_tables_as_aligned_text():
    assert plain("| name | value |\n|------|------:|\n| a | 1 |\n| longer name | 22 |\n") == [
        " name         value", " ──────────────────", " a                1", " longer name     22"]
    assert plain("| a | b | c |\n|:-|:-:|-:|\n| left | mid | right |") == [
        " a      b       c", " ────────────────", " left  mid  right"]
    wide = plain("| a | b |\n|---|---|\n| " + "x " * 30 + "| y |", 30)
    assert all(len(line) <= 30 for line in wide) and any(line.rstrip().endswith("y") for line in wide)
    many = plain("|" + "col|" * 12 + "\n|" + "-|" * 12 + "\n|" + "v|" * 12, 20)
    assert all(len(line) <= 20 for line in many) and "col │ col" in many[0]


def test_every_style_reads_on_light_and_dark_terminals():
    """Only attributes and magenta: no white, black, grey, yellow or cyan, foreground or background."""
    text = ("# T\n\n## P\n\n### S\n\n#### F\n\n##### V\n\n###### W\n\n`c` **b** *i* ~~s~~ <kbd>K</kbd> [l](u) "
            "<https://a.io> ![i](p)\n\n- x\n\n1. y\n\n> q\n\n```\nc\n```\n\n---\n\n| h |\n|---|\n| c |\n")
    codes = {code for sgr in SGR.findall(coloured(text)) for code in sgr[2:-1].split(";")}
    assert codes <= {"0", "1", "2", "3", "4", "7", "9", "35"}, codes


# Wrapping.

def test_paragraphs_wrap_at_the_width_without_breaking_words():
    text = " ".join(f"word{n}" for n in range(100))
    for width in (20, 41, 80):
        lines = plain(text, width)
        assert all(len(line) <= width for line in lines)
        assert " ".join(lines).split() == text.split()


def test_wide_characters_count_two_columns_and_long_words_fold():
    lines = plain("界" * 50, 21)
    assert all(cells(line) <= 21 for line in lines) and "".join(lines) == "界" * 50
    lines = plain("x" * 130, 60)
    assert [len(line) for line in lines] == [60, 60, 10]


def test_styles_never_spill_over_a_line_end():
    for line in coloured("**" + "bold words " * 20 + "end**", 30).splitlines():
        assert line.startswith("\x1b[1m") and line.endswith("\x1b[0m")


# What reaches the terminal.

HOSTILE = "\x1b]0;owned\x07 \x1b[2J\x9b31m \x00\x08\r\x7f"


@pytest.mark.parametrize("markdown", [
    f"plain {HOSTILE}", f"# heading {HOSTILE}", f"`{HOSTILE}`", f"[x](http://{HOSTILE})",
    f"```\n{HOSTILE}\n```", f"- item {HOSTILE}", f"> {HOSTILE}", f"| a |\n|---|\n| {HOSTILE} |",
    "&#27;[31m &#x9b; &#0;", f"**{HOSTILE}**",
])
@pytest.mark.parametrize("color", [True, False])
def test_control_characters_of_the_workshop_are_shown_never_sent(markdown, color):
    shown = render(markdown, width=80, color=color)
    assert not RAW.search(SGR.sub("", shown)), repr(shown)
    if not color:
        assert "\x1b" not in shown
    if "owned" in markdown:
        assert "^[]0;owned^G" in shown


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"ab 1.-*_`#>|[]()!<&;\\\n\t~:/=\x1b\x07\x9b界", "\n\n", "  ", "- ", "```"]),
                max_size=200).map("".join), st.integers(40, 120), st.booleans())
def test_any_text_fits_the_width_and_sends_no_control_characters(markdown, width, color):
    shown = render(markdown, width=width, color=color)
    assert not RAW.search(SGR.sub("", shown))
    assert all(cells(line) <= width for line in shown.splitlines()), shown


# Hostile sizes: linear time, no recursion limit.

def _seconds(markdown: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        render(markdown, width=80, color=True)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("make", [
    lambda n: "word **bold** `code` [link](u) " * (n // 32),
    lambda n: "- " * (n // 2) + "x",
    lambda n: "".join("  " * (k % 40) + "- item\n" for k in range(n // 48)),
    lambda n: ">" * n,
    lambda n: "[" * n + "]" * n,
    lambda n: "![a](" * (n // 5),
    lambda n: "*a _b " * (n // 6),
    lambda n: "` `` " * (n // 5),
    lambda n: '<a x="' * (n // 6),
    lambda n: "x" * n,
    lambda n: "|a|b|\n|-|-|\n" + "|x|y|\n" * (n // 6),
    lambda n: "<div>\n" + "<!--" * (n // 4),
    lambda n: "<div>\n" + "a<b " * (n // 4),
    lambda n: "<p>" + "<b x" * (n // 4),
    lambda n: "&amp;" * (n // 5),
    lambda n: "1. " * (n // 3) + "x",
    lambda n: "> " * (n // 2) + "x",
], ids=["styled", "nested-markers", "nested-indents", "quotes", "brackets", "images", "delimiters", "ticks",
        "tags", "one-word", "table", "html-comments", "html-lone-lt", "html-open-tags", "entities", "numbers",
        "spaced-quotes"])
def test_hostile_input_takes_linear_time(make):
    small, large = _seconds(make(10_000)), _seconds(make(40_000))
    assert large < 10 * small + 0.05, f"4x the input took {large / small:.1f}x the time"


def test_a_megabyte_paragraph_renders():
    text = "lorem ipsum `dolor` sit amet " * 36_000
    assert len(text) > 1_000_000
    lines = render(text, width=80, color=False).splitlines()
    assert all(len(line) <= 80 for line in lines) and len(lines) >= 12_000


def test_ten_thousand_nested_items_are_shown_as_text_past_the_deepest_level():
    lines = plain("- " * 10_000 + "end", 80)  # each `- ` opens an item inside the one before
    assert lines[0].startswith(" • " * 8) and lines[-1].endswith("end")
    assert all(cells(line) <= 80 for line in lines)
    lines = plain("".join("  " * k + f"- item{k}\n" for k in range(1_000)), 80)
    assert lines[0] == " • item0" and "item999" in lines[-1]


@pytest.mark.parametrize("width", [12, 40])
def test_nesting_deeper_than_the_width_allows_drops_the_indentation_not_the_width(width):
    quoted = plain("> " * 30 + "deep text here", width)
    listed = plain("".join("  " * k + f"- item{k}\n" for k in range(30)), width)
    assert all(cells(line) <= width for line in quoted + listed)
    assert [word for word in " ".join(quoted).split() if word != "▌"][-3:] == ["deep", "text", "here"]
    assert "item29" in listed[-1]
