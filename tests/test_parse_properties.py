"""Properties: any text gives a plan (or a located ParseError), and valid commands split back whole."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runner.errors import ParseError
from runner.model import Plan
from runner.parse.bash_syntax import check_syntax
from runner.parse.items import CommandItem
from runner.parse.shell import split_shell
from runner.parse.workshop import parse_text, parse_workshop

SNIPPETS = [
    "echo plain",
    "ls -l \\\n  /tmp",
    "cat <<EOF\nbody with } and fi\nEOF",
    "cat <<-'END'\n\tquoted $(body)\n\tEND",
    "if true; then\n  echo yes\nelse\n  echo no\nfi",
    "for i in 1 2; do\n  echo $i\ndone",
    "while false; do :; done",
    "case $x in\n  a|b) echo ab ;;\n  *) echo other ;;\nesac",
    "f() {\n  echo \"}\"\n}",
    "function g {\n  return 0\n}",
    "h() (\n  echo subshell body\n)",
    "select s in a b; do\n  break\ndone",
    "{ echo a; echo b; } > /dev/null",
    "(\n  cd /tmp\n)",
    "echo 'multi\nline'",
    "x=\"$(echo $(echo nested))\"",
    "arr=(\n  one\n  two\n)",
    "seq 3 |\n  wc -l",
    "true &&\n  echo ok",
    "[[ -n $HOME && $HOME =~ ^/(root|home) ]]",
    "echo $(( (1 + 2) * 3 ))",
    "echo done # fi }",
    "echo \"${HOME:-}\" '${x'",
]

LINE_PIECES = st.sampled_from([
    "", "# Title", "## Heading", "Some prose.", "```bash", "```", "~~~", "```yaml", "<!-- @SHOW -->",
    "<!-- @HIDE -->", "<!-- @SKIP -->", "<!-- @wait -->", "<!-- @import nowhere.sh -->",
    "<!-- @macro m -->", "<!-- @end -->", "<!-- @m -->", "<!-- @ifhook show_browser -->",
    "<!-- @endif -->", "<!-- unclosed", "-->", "#@wait", "#@immed", "#@timeout 5s", "#@exit x",
    "## output", "##", "echo hi", "cat <<EOF", "EOF", "if true; then", "fi", "echo 'open", "}",
    "f() {", "#@print \\", "@import x -->", "=====", "----", "<!-- @$SHELL nowhere.md -->",
])


def _check_plan(plan: Plan, file: str, line_count: int) -> None:
    assert isinstance(plan, Plan)
    for step in plan.steps:
        if step.loc.file == file:
            assert 1 <= step.loc.line <= step.end_line <= max(line_count, 1)
    for finding in plan.findings:
        assert finding.loc.line >= 1 and finding.message


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_random_text_gives_a_plan(text):
    for name in ("random.md", "random.sh"):
        _check_plan(parse_text(text, name), name, text.count("\n") + 1)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE_PIECES, max_size=40))
def test_random_markdown_gives_a_plan(lines):
    text = "\n".join(lines) + "\n"
    for name in ("random.md", "random.sh"):
        _check_plan(parse_text(text, name), name, len(lines))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200))
def test_random_bytes_give_a_plan_or_a_located_parse_error(tmp_path, data):
    path = tmp_path / "bytes.md"
    path.write_bytes(data)
    try:
        plan = parse_workshop(str(path), no_init=True)
    except ParseError as exc:
        assert exc.message and str(path) in str(exc)
    else:
        _check_plan(plan, str(path), data.count(b"\n") + 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=8))
def test_valid_commands_split_back_into_themselves(snippets):
    lines = "\n".join(snippets).split("\n")
    commands = [i.text for i in split_shell(lines, "s.sh") if isinstance(i, CommandItem)]
    assert commands == snippets


def test_the_snippets_are_valid_bash():
    assert check_syntax(SNIPPETS) == [None] * len(SNIPPETS)


SHELL_PIECES = st.sampled_from([
    "a", " ", "'", '"', "`", "\\", "(", ")", "{", "}", "[[", "]]", "<", ">", "|", "&", ";", "#",
    "\n", "$", "${", "$(", "$((", "))", "<<", "EOF", "if ", "then ", "fi", "case ", " in ",
    "esac", "do ", "done", "for ", "function ", "@(", "=(", "touch MARKER ",
])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.lists(SHELL_PIECES, max_size=25).map("".join), min_size=1, max_size=60))
def test_any_batch_gets_one_verdict_per_command_and_runs_nothing(tmp_path, texts):
    marker = tmp_path / "ran"
    verdicts = check_syntax([t.replace("MARKER", str(marker)) for t in texts])
    assert len(verdicts) == len(texts)
    assert all(v is None or (isinstance(v, str) and v) for v in verdicts)
    assert not marker.exists()
