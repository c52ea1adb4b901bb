"""The workshop's shell against a terminal's bash (tests/shell_oracle.py): the same commands, the
same state after each. A sample in the default suite; the whole corpus and many generated
sequences under `-m exhaustive`."""
from __future__ import annotations

import glob
import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shell_oracle import compare

from runner.parse.workshop import parse_workshop

pytestmark = [pytest.mark.tmux, pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")]
DEMORUN = str(Path(os.environ.get("VIRTUAL_ENV", REPO / ".venv")) / "bin" / "demorun")
CORPUS = Path("/work/shared/corpus")
# The corpus's commands that run anywhere and succeed: builtins and assignments, no cluster.
_HARMLESS = re.compile(r"^(?:export|echo|printf|alias|unalias|set|shopt|umask|true|declare|unset|[A-Za-z_]\w*=)\b")
_NEEDS_MORE = re.compile(r"[`<>&!|]|\$\(|\bread\b|\bkubectl\b")

# Steps that change the state the probes show; each succeeds whatever came before.
STEPS = [
    ("f() { echo in; }", "f"), ("echo a b",), ("false | true",), ("true | false | true",), ("x=1",),
    ("export Y=2",), ("set -o noglob",), ("set +o noglob",), ("shopt -s extglob",), ("shopt -u extglob",),
    ("umask 027",), ("umask 022",), ("trap 'echo t' USR1",), ("trap - USR1",), ("alias ll='ls -l'",),
    ("set -u",), ("set +u",), ("declare -i n=3",), ("sleep 30 &",), ("set -x",), ("set +x",),
    ('mkdir -p sub && cd "$_"',), ("cd ..",), ("unset -f f",), ("g() { return 0; }", "g x y"),
    ("printf '%s\\n' \"$_\"",), ("set -a",), ("set +a",), ("true | true | true | true",),
    ("set -o pipefail",), ("set +o pipefail",), ("kill $(jobs -p) 2>/dev/null; wait; true",), ("trap 'echo bye' EXIT",),
    ("pushd /tmp >/dev/null",), ("popd >/dev/null 2>&1 || :",), ("cd - >/dev/null 2>&1 || :",), ("shopt -s checkjobs",),
    ("declare -A assoc=([k]=v)",), ("PS1='my> '",), ("PROMPT_COMMAND='echo pc'",), ("unset PROMPT_COMMAND",),
    ("set -o noclobber",), ("set +o noclobber",), ("IFS=:",), ("IFS=$' \\t\\n'",), ("exec 3>/dev/null",),
    ("f() { false | true; }", "f"), ("echo \"$_\" | cat",),
]
FIXED = [
    ["f() { echo in; }", "f", 'echo "[$_]"', "sleep 30 &", "true | false | true", 'echo "${PIPESTATUS[@]}"'],
    ["set -x", "sleep 1 &", "echo hi", "false | true", "set +x", "jobs"],
    ["trap 'echo t' USR1", "umask 027", "shopt -s extglob", "cd /tmp", "export Z=1", "declare -F"],
]


def corpus_commands() -> list[str]:
    found: list[str] = []
    for path in sorted(glob.glob(str(CORPUS / "**" / "*.md"), recursive=True)):
        for step in parse_workshop(path, no_init=True).commands:
            text = step.text
            if "\n" not in text and _HARMLESS.match(text) and not _NEEDS_MORE.search(text):
                found.append(text)
    return list(dict.fromkeys(found))


def assert_same(commands: list[str], work: Path) -> None:
    found = compare(DEMORUN, commands, work)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("commands", FIXED, ids=["functions-and-pipelines", "xtrace-and-jobs", "settings"])
def test_the_shell_is_a_terminals_bash_after_each_command(commands, tmp_path):
    assert_same(commands, tmp_path)


def test_the_corpus_commands_leave_the_state_a_terminal_would(tmp_path):
    commands = corpus_commands()
    if not commands:
        pytest.skip("no corpus beside the repository")
    assert_same(commands[::7][:15], tmp_path)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(STEPS), min_size=1, max_size=6))
def test_generated_sequences_leave_the_state_a_terminal_would(tmp_path_factory, steps):
    assert_same([command for step in steps for command in step], tmp_path_factory.mktemp("seq"))


@pytest.mark.exhaustive
def test_every_corpus_command_leaves_the_state_a_terminal_would(tmp_path):
    commands = corpus_commands()
    for start in range(0, len(commands), 20):
        assert_same(commands[start:start + 20], tmp_path / str(start))


@pytest.mark.exhaustive
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(STEPS), min_size=1, max_size=12))
def test_many_generated_sequences_leave_the_state_a_terminal_would(tmp_path_factory, steps):
    assert_same([command for step in steps for command in step], tmp_path_factory.mktemp("seq"))
