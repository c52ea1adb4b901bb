"""Markdown read once: the presenter and the HTML report read prose alike, and finding workshops,
`check --update` and the plan agree on what a fence is.

The terminal shows a link's address after its text and an image as a mark and its alt text;
the report shows raw HTML as its source while the terminal shows what it holds. Those are
the only differences allowed, and the comparison below knows them; everything else (a word
dropped, an entity read differently, a plugin on one side only) makes the texts differ.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from runner.errors import ParseError
from runner.model import Kind, Plan, SourceLoc, Step, Visibility
from runner.modes.update import OutputEdit, updated_text
from runner.parse.markdown import has_runnable_fence, is_runnable_fence
from runner.parse.source import split_lines
from runner.parse.workshop import parse_text, parse_workshop
from runner.report.html import render_html
from runner.results import FileReport, RunReport
from runner.secrets import Redactor
from runner.terminal.html_text import BLOCKS, ELEMENTS
from runner.terminal.prose import IMAGE, render

# Prose: the terminal (runner.terminal.prose) against the HTML report, both reading runner.parse.commonmark.

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
OWN = sorted((Path(__file__).parent / "fixtures" / "prose").glob("*.md"))
WIDE = 2000  # wide enough that no word is folded: only the words are compared, not the lines

# What only one side draws: heading marks, bullets, list numbers, bars and rules, the image mark.
_DECORATION = re.compile(r"[#•▌│─-]+|\d{1,9}[.)]|" + IMAGE.strip())
_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)(?:[\s/][^<>]*)?>")  # raw HTML: the report shows its tags
_BLOCK_TAGS = {"p", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "hr", "br",
               "table", "thead", "tbody", "tr", "th", "td"}


class _ProseOfReport(HTMLParser):
    """The text of each prose block of a report page, links and images written as the terminal writes them."""

    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.blocks: list[list[str]] = []
        self._divs = 0  # open <div>s inside the current prose block; 0 outside prose
        self._links: list[tuple[str, int]] = []  # (href, where its text starts)
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        values = {name: value or "" for name, value in attrs}
        if tag == "div" and "prose" in values.get("class", "").split():
            self.blocks.append([])
            self._divs = 1
        elif self._divs:
            self._divs += tag == "div"
            if tag == "a":
                self._links.append((values.get("href", ""), len(self.blocks[-1])))
            elif tag == "img":
                self.blocks[-1].append(f" {values.get('alt', '')} ")
            elif tag in _BLOCK_TAGS:
                self.blocks[-1].append(" ")

    def handle_endtag(self, tag):
        if not self._divs:
            return
        self._divs -= tag == "div"
        if tag == "a":
            href, start = self._links.pop()
            text = "".join(self.blocks[-1][start:]).strip()
            if text not in (href, href.removeprefix("mailto:")):
                self.blocks[-1].append(f" ({href})")
        elif tag in _BLOCK_TAGS:
            self.blocks[-1].append(" ")

    def handle_data(self, data):
        if self._divs:
            self.blocks[-1].append(data)


def _untagged(tag: re.Match[str]) -> str:
    """An HTML tag as the terminal shows it: nothing, a line's end for a block, itself if it names no element."""
    name = tag.group(1).lower()
    return " " if name in BLOCKS or name == "br" else "" if name in ELEMENTS else tag.group()


def words(text: str) -> list[str]:
    return [word for word in _TAG.sub(_untagged, text).split() if not _DECORATION.fullmatch(word)]


def report_texts(texts: list[str]) -> list[str]:
    """Each text as the HTML report shows it, as one prose step of a plan."""
    steps = tuple(Step(Kind.PROSE, SourceLoc("w.md", n + 1), text, Visibility.SHOW) for n, text in enumerate(texts))
    page = render_html(RunReport((FileReport("w.md", (), 0.0, plan=Plan("w.md", steps)),), 0.0), Redactor())
    return ["".join(block) for block in _ProseOfReport(page).blocks]


def assert_alike(texts: list[str], where: str) -> None:
    shown = report_texts(texts)
    assert len(shown) == len(texts)
    for text, html in zip(texts, shown):
        terminal = render(text, width=WIDE, color=False)
        assert words(terminal) == words(html), f"{where}: the terminal and the report read differently:\n{text[:400]}"


def _corpus_files() -> list[Path]:
    return sorted(CORPUS.rglob("*.md")) if CORPUS.is_dir() else []


@pytest.mark.parametrize("path", OWN, ids=lambda p: p.name)
def test_every_element_reads_alike(path):
    text = path.read_text()
    assert_alike([text], str(path))
    assert len(words(render(text, width=WIDE, color=False))) > 100  # the file is read, not skipped


@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_corpus_file_reads_alike(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    assert_alike([text], str(path))  # the whole file as prose: its fences too
    try:
        plan = parse_workshop(str(path), no_init=True)
    except ParseError:
        return  # the whole file was compared; the steps of a file that does not parse are not shown
    prose = [step.text for step in plan.steps if step.kind is Kind.PROSE]
    if prose:
        assert_alike(prose, str(path))


def test_the_corpus_is_compared_where_it_is_present():
    if not CORPUS.is_dir():
        pytest.skip(f"workshop corpus not found at {CORPUS}")
    assert len(_corpus_files()) >= 10


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
