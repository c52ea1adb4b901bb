"""bash's own verdict on commands: batched in one process, never executing anything."""
from __future__ import annotations

import subprocess

import pytest

from runner.parse import bash_syntax
from runner.parse.bash_syntax import check_syntax, check_syntax_located

ACCEPTED = [
    "echo hi",
    "cat <<EOF\nbody } fi\nEOF",
    "exit 3",
    "alias k=kubectl",
    "k get pods",
    "case $x in a) echo a;; (b) echo b;; esac",
    "sleep 1 &",
    "echo '}' \"}\" fi",
    "echo trailing \\",
    "f() {\n  echo body\n}",
    "rm -f !(keep)",
    "x=(a\nb)",
    "echo ok # } comment",
]

REJECTED = [
    ("echo (", "unexpected token"),
    ("if true; then\n  echo no fi", "missing 'fi'"),
    ("echo 'open", "unclosed quote"),
    ("cat <<EOF\nno end", "here-document never ends"),
    ("}", "unexpected token `}'"),
    ("for x in; do ) done", "unexpected token `)'"),
    ("k3d cluster delete <<name>>", "unexpected token `newline'"),
    ("fi", "unexpected token `fi'"),
]


def test_bash_accepts_valid_commands():
    assert check_syntax(ACCEPTED) == [None] * len(ACCEPTED)


@pytest.mark.parametrize("command, fragment", REJECTED)
def test_bash_rejects_and_says_why(command, fragment):
    (message,) = check_syntax([command])
    assert message is not None and fragment in message


def test_the_line_of_the_error_within_the_command():
    (problem,) = check_syntax_located(["echo one\necho two\necho (three\necho four"])
    assert problem.line == 3


def test_results_keep_their_order_in_a_mixed_batch():
    commands = ["echo ok", "echo (", "echo fine", "fi", "true"]
    assert [m is None for m in check_syntax(commands)] == [True, False, True, False, True]


def test_one_bash_for_a_clean_batch_and_one_more_to_say_what_is_wrong(monkeypatch):
    calls = []
    real_run = subprocess.run

    def counting_run(*args, **kwargs):
        calls.append(args[0])
        return real_run(*args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counting_run)
    check_syntax(ACCEPTED * 50)
    assert len(calls) == 1 and "-n" in calls[0]  # one `bash -n` over the whole plan
    check_syntax(ACCEPTED + [c for c, _ in REJECTED])
    assert len(calls) == 3


ESCAPES = [
    "}\nfi\ntouch MARKER\nif false; then {",
    "echo x; }; fi; touch MARKER; if false; then { :",
    ")\ntouch MARKER\n(",
    "done\ntouch MARKER",
    "touch MARKER",
    "$(touch MARKER)",
    "cat <<EOF\n$(touch MARKER)\nEOF",
]


@pytest.fixture
def unguarded(monkeypatch):
    """The checker without its last-resort guards (restricted shell, empty PATH)."""
    script = bash_syntax._SCRIPT.replace("set -r\n", "").replace(
        "PATH=/nonexistent-demorun-path\n", "")
    monkeypatch.setattr(bash_syntax, "_SCRIPT", script)
    return script


def test_the_unguarded_checker_would_run_a_bare_command(tmp_path, unguarded):
    marker = tmp_path / "ran"
    feed = f"fast\0touch {marker}\0".encode()
    subprocess.run(["bash", "--norc", "--noprofile", "-c", unguarded], input=feed,
                   capture_output=True, check=False)
    assert marker.exists()


@pytest.mark.parametrize("escape", ESCAPES)
def test_checking_never_runs_the_command(tmp_path, unguarded, escape):
    marker = tmp_path / "ran"
    check_syntax([escape.replace("MARKER", str(marker))])
    assert not marker.exists()


def test_empty_batch():
    assert check_syntax([]) == []


@pytest.mark.parametrize("first", [c for c, _ in REJECTED] + ["f() {", "{", "(", "if true; then"])
def test_two_wrong_commands_never_make_a_right_plan(first):
    """The whole-plan check wraps each command; no pair may close each other's wrappers."""
    closers = ["}", "fi", ")", "done", "esac", "} }", "fi; }"]
    for second in closers:
        assert all(check_syntax([first, "echo between", second])[i] is not None for i in (0, 2)), second


@pytest.mark.parametrize("name", ["bash", "sh", "no-such-program-here", "", ".", "/bin/sh", "/bin",
                                  "./runner/__main__.py", ".venv/bin/python"])
def test_on_path_finds_programs_as_shutil_which_does(name):
    import shutil

    from runner.parse.bash_syntax import on_path

    assert on_path(name) == shutil.which(name)
