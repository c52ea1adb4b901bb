"""bash is the judge: demorun's command boundaries equal those of a real bash, for generated fences.

Fences come from a grammar of simple commands, pipelines, `&&`/`||`, compound
commands, functions, heredocs, quotes, `$( )`, comments and continuations
(`;\\` and `|\\` too). One interactive bash labels each line as starting or
continuing a command (tests/bash_oracle.py); demorun's split must agree line
for line. Failures hypothesis shrinks to go into tests/fixtures/parse/differential,
which are replayed on every run.
"""
from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pytest
from bash_oracle import BashOracle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runner.parse.items import CommandItem
from runner.parse.shell import split_shell

FIXTURES = Path(__file__).parent / "fixtures" / "parse" / "differential"
NL = "\x00"  # a newline token in the rendering: pending heredoc bodies follow it

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")


@pytest.fixture(scope="module")
def oracle():
    bash = BashOracle()
    yield bash
    bash.close()


def demorun_labels(lines: list[str]) -> list[str]:
    labels = ["start"] * len(lines)
    for item in split_shell(lines, "fence.sh"):
        if isinstance(item, CommandItem):
            for line in range(item.line + 1, item.end_line + 1):
                labels[line - 1] = "cont"
    return labels


def compare(oracle: BashOracle, text: str) -> None:
    lines = text.split("\n")
    expected, said = oracle.labels(lines)
    # Errors bash finds later, when it runs a command substitution, do not move boundaries.
    parse_errors = [line for line in said.splitlines() if "command substitution" not in line
                    and ("syntax error near" in line or "unexpected end of file" in line)]
    assert not parse_errors, f"the generator wrote invalid bash:\n{text}\n{said}"
    got = demorun_labels(lines)
    if got != expected:
        table = "\n".join(f"{'!' if g != e else ' '} bash={e:<5} demorun={g:<5} {line!r}"
                          for line, e, g in zip(lines, expected, got))
        pytest.fail(f"command boundaries differ from bash's (keep the shrunk text as a fixture in "
                    f"{FIXTURES.relative_to(Path(__file__).parent.parent)}):\n{table}")


# -- the grammar ----------------------------------------------------------------------

@functools.cache
def _choice(options: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.sampled_from(options)


@functools.cache
def _range(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


def _pick(draw, options) -> str:
    """One of `options`; strategies are built once, as building them costs more than drawing."""
    return draw(_choice(tuple(options)))


def _int(draw, low: int, high: int) -> int:
    return draw(_range(low, high))


class _Heredocs:
    """Heredoc bodies announced on the current line, written after its next newline token."""

    def __init__(self) -> None:
        self.pending: list[str] = []

    def flush(self, text: str) -> str:
        first = text.find(NL)
        if first < 0:
            return text
        bodies = "".join(self.pending)
        self.pending = []
        return text[:first + 1] + bodies + text[first + 1:]


PLAIN = ["a", "b1", "x-y", "a#b", "fi", "done", "then", "esac", "in", "do", "}", "{", "--x=1",
         "a\\ b", "\\;", "\\#c", "\\|", "\\'", '\\"', "~", "*.md", "@(a|b)"]
SINGLE = ["a b", "; | & ( ) < >", "# not a comment", '" $( `', "fi done }", "multi\nline", "\\", ""]
DOUBLE = ["a", "$HOME", "${x:-y}", "$(echo in)", "`echo bq`", '\\"', "'", "multi\nline", "#",
          "$((1 + 2))", "; (", "cont\\\nnued", "${x//a/b}", "}", ""]
EXPANSIONS = ["$x", "${x:-a b}", "${#x}", "$((1 + (2 * 3)))", "$'a\\'b'", "$'x'", "${x/\\}/y}",
              "$(case a in a) echo x;; esac)", "$(echo ')')", "`echo \\`echo in\\``", "<(echo p)"]
HEADS = ["echo", "printf '%s\\n'", "true", ":", "x=1", "x=1 echo", "y+=2 :"]
REDIRECTS = [">/dev/null", "2>&1", "<<< word", "<<<'a b'", "2>/dev/null", ">|/dev/null", "&>/dev/null",
             "</dev/null"]
CONDITIONS = ["[[ a == b && -n x ]]", "[[ x =~ ^(a|b)$ ]]", "(( 1 + (2) ))", "[[ ( a < b ) ]]",
              "false", "true", "[ -z '' ]"]
BODY_LINES = ["text", "fi", "done", "}", "EOF ", " EOF", "'", '"', "$(echo x)", "\tindented", "## x",
              "# c", "", "EOFX", "esac", ")"]
# Between two commands of a list; NL is a newline token, "\\\n" a continuation.
SEPARATORS = ["; ", ";" + NL, NL, " ;\\\n", ";\\\n", " && ", " &&" + NL, " || ", " ||\\\n", " | ",
              " |" + NL, " |\\\n", "|\\\n", NL + NL, " & ", " # c" + NL, ";  # ends \\" + NL,
              " &&\\\n  "]
# Before a closing keyword (fi, done, }, then, do).
ENDS = ["; ", ";" + NL, NL, " ;\\\n", ";\\\n", NL + "  ", "; # c" + NL, ";\\\n\\\n"]
# After an opening keyword (then, do, else, {).
OPENS = [" ", NL, " \\\n", NL + NL, " # c" + NL]


def _word(draw) -> str:
    kind = _int(draw, 0, 4)
    if kind == 0:
        word = _pick(draw, PLAIN)
        if len(word) > 1 and _int(draw, 0, 5) == 0:
            cut = draw(st.integers(1, len(word) - 1))
            if word[cut - 1] != "\\":
                word = word[:cut] + "\\\n" + word[cut:]
        return word
    if kind == 1:
        return "'" + _pick(draw, SINGLE) + "'"
    if kind == 2:
        return '"' + "".join(_pick(draw, DOUBLE) for _ in range(_int(draw, 0, 3))) + '"'
    return _pick(draw, EXPANSIONS)


def _heredoc(draw, docs: _Heredocs) -> str:
    name = _pick(draw, ["EOF", "END", "x"])
    quoting = _pick(draw, ["", "'", '"', "\\"])
    strip = _int(draw, 0, 1)
    written = name if not quoting else (f"\\{name}" if quoting == "\\" else f"{quoting}{name}{quoting}")
    body = [_pick(draw, BODY_LINES) for _ in range(_int(draw, 0, 3))]
    if not quoting:
        body = [b for b in body if b not in ("'", '"')]
    ending = ("\t" if strip and _int(draw, 0, 1) else "") + name
    docs.pending.append("".join(f"{line}\n" for line in body) + ending + "\n")
    return f"{'<<-' if strip else '<<'}{' ' if _int(draw, 0, 1) else ''}{written}"


def _simple(draw, docs: _Heredocs, depth: int) -> str:
    if _int(draw, 0, 6) == 0:
        return _pick(draw, CONDITIONS)
    parts = [_pick(draw, HEADS)]
    for _ in range(_int(draw, 0, 3)):
        if depth > 0 and _int(draw, 0, 8) == 0:
            # A command substitution reads its own heredocs (bash parses it apart).
            parts.append("$( " + _list(draw, _Heredocs(), depth - 1, inline=True) + ")")
        else:
            parts.append(_word(draw))
    if _int(draw, 0, 3) == 0:
        parts.append(_pick(draw, REDIRECTS))
    if _int(draw, 0, 4) == 0:
        parts.append(_heredoc(draw, docs))
    return " ".join(parts)


def _list(draw, docs: _Heredocs, depth: int, inline: bool = False) -> str:
    """Commands joined by separators; `inline` (inside `$( )`) ends on a newline if a heredoc waits."""
    text = _command(draw, docs, depth)
    for _ in range(_int(draw, 0, 2)):
        text += docs.flush(_pick(draw, SEPARATORS)) + _command(draw, docs, depth)
    if inline and docs.pending:
        text += docs.flush(NL)
    return text


def _sep(draw, docs: _Heredocs, choices: list[str]) -> str:
    return docs.flush(_pick(draw, choices))


def _keyword(draw, word: str) -> str:
    """A reserved word, sometimes cut by a backslash-newline (which bash removes first)."""
    if len(word) > 1 and _int(draw, 0, 9) == 0:
        return word[0] + "\\\n" + word[1:]
    return word


def _compound(draw, docs: _Heredocs, depth: int) -> str:
    kind = _pick(draw, ["if", "for", "arith-for", "while", "until", "case", "brace",
                                 "subshell", "function", "function-kw"])
    def body() -> str:
        return _list(draw, docs, depth - 1)

    def end() -> str:
        return _sep(draw, docs, ENDS)

    def opens() -> str:
        return _sep(draw, docs, OPENS)

    if kind == "if":
        text = f"if {body()}{end()}then{opens()}{body()}"
        if _int(draw, 0, 1):
            text += f"{end()}elif {body()}{end()}then{opens()}{body()}"
        if _int(draw, 0, 1):
            text += f"{end()}else{opens()}{body()}"
        return text + end() + _keyword(draw, "fi")
    if kind in ("for", "arith-for", "while", "until"):
        head = {"for": "for v in a 'b c'", "arith-for": "for ((i = 0; i < 0; i++))",
                "while": "while false", "until": "until true"}[kind]
        return f"{head}{end()}do{opens()}{body()}{end()}{_keyword(draw, 'done')}"
    if kind == "case":
        text = "case w in" + _sep(draw, docs, [" ", NL])
        for _ in range(_int(draw, 1, 3)):
            pattern = _pick(draw, ["a", "b|c", "(d", "*", "@(x|y)", "'q)'", "e\\)"])
            text += f"{pattern}){opens()}{body()}{_sep(draw, docs, [' ;;', ';;' + NL, NL + ';;' + NL, ' ;;&'])} "
        return text + _keyword(draw, "esac")
    if kind == "brace":
        return f"{{{opens()}{body()}{end()}}}"
    if kind == "subshell":  # `((` opening two subshells is tested apart (fixtures)
        return f"( {body()})"
    name = _pick(draw, ["f", "g", "h"])
    head = f"function {name} " if kind == "function-kw" else f"{name}(){_sep(draw, docs, [' ', NL])}"
    group = f"{{{opens()}{body()}{end()}}}" if _int(draw, 0, 3) else f"( {body()} )"
    return head + group


def _command(draw, docs: _Heredocs, depth: int) -> str:
    if depth > 0 and _int(draw, 0, 2) == 0:
        text = _compound(draw, docs, depth)
        if _int(draw, 0, 4) == 0:
            text += " " + _pick(draw, REDIRECTS)
        return text
    return _simple(draw, docs, depth)


@st.composite
def fences(draw) -> str:
    """A fence body: complete commands, with commentary, blank and `##` lines between them."""
    docs = _Heredocs()
    out = ""
    for _ in range(_int(draw, 1, 4)):
        between = _pick(draw, ["", "", "# commentary", "", "## output", "#"])
        if between:
            out += between + "\n"
        command = _list(draw, docs, 2)
        if _int(draw, 0, 5) == 0:
            command += _pick(draw, [";", " &", "  # trailing ( comment"])
        out += command + docs.flush(NL)
    return out.replace(NL, "\n").rstrip("\n")


# -- the tests ---------------------------------------------------------------------------

@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fences())
def test_commands_end_where_bash_says(oracle, text):
    compare(oracle, text)


@pytest.mark.parametrize("fixture", sorted(FIXTURES.glob("*.sh")), ids=lambda p: p.stem)
def test_regression_fixtures_end_where_bash_says(oracle, fixture):
    compare(oracle, fixture.read_text().rstrip("\n"))


def test_the_oracle_sees_continuations(oracle):
    labels, _ = oracle.labels(["if true; then \\", "  echo a ;\\", "fi", "echo b"])
    assert labels == ["start", "cont", "cont", "start"]
