"""What the workshop's shell takes from demorun's caller: the table of docs/shell.md, by variable."""
from __future__ import annotations

import pytest

from runner.session.session import RESET_VARIABLES, Session

# Each variable the session resets, with a value that would change bash or the workshop's commands.
RESET = {
    "SHELLOPTS": "xtrace:errexit", "BASHOPTS": "extglob:nullglob", "POSIXLY_CORRECT": "1", "BASH_XTRACEFD": "1",
    "PROMPT_COMMAND": "echo pc", "PS0": "ps0", "PS1": "ps1", "PS2": "ps2", "PS3": "ps3", "PS4": ">>",
    "HISTFILE": "/tmp/h", "HISTSIZE": "3", "HISTFILESIZE": "3", "HISTCONTROL": "ignoreboth", "HISTIGNORE": "ls",
    "HISTTIMEFORMAT": "%F", "INPUTRC": "/tmp/inputrc", "IGNOREEOF": "3", "TMOUT": "5", "GLOBIGNORE": "*",
    "EXECIGNORE": "*", "FUNCNEST": "1", "CDPATH": "/", "COLUMNS": "20", "LINES": "5", "MAIL": "/tmp/m",
    "MAILPATH": "/tmp/m", "MAILCHECK": "1", "TIMEFORMAT": "t", "OLDPWD": "/", "BASH_COMPAT": "31",
    "BASH_LOADABLES_PATH": "/tmp", "PROMPT_DIRTRIM": "1", "BASH_ENV": "/tmp/env", "ENV": "/tmp/env",
}
INHERITED = {"KUBECONFIG_DEMO": "kept", "LANG": "C.UTF-8", "TZ": "UTC", "EDITOR": "vi", "GREETING": "hello"}


def test_every_reset_variable_is_in_the_table():
    assert set(RESET) == set(RESET_VARIABLES)


@pytest.mark.parametrize("name", sorted(RESET_VARIABLES))
def test_a_variable_that_changes_bash_itself_does_not_reach_the_session(name, monkeypatch, tmp_path):
    if name in ("ENV", "BASH_ENV"):
        rc = tmp_path / "rc"
        rc.write_text("alias echo='exit 3'\nexit 3\n")
        RESET[name] = str(rc)
    monkeypatch.setenv(name, RESET[name])
    monkeypatch.setenv("POSIXLY_CORRECT", "1") if name == "ENV" else None  # ENV is read in POSIX mode
    with Session(cwd=str(tmp_path)) as session:
        outcome = session.run(f"echo \"$-\"; [[ ${{{name}-unset}} == '{RESET[name]}' ]] && echo taken || echo reset")
        assert outcome.status == 0, outcome.output
        assert outcome.output.splitlines() == ["himBs", "reset"]


def test_exported_functions_of_the_caller_do_not_reach_the_session(monkeypatch, tmp_path):
    monkeypatch.setenv("BASH_FUNC_cd%%", "() { echo not cd; }")
    with Session(cwd=str(tmp_path)) as session:
        assert session.run("cd / && pwd").output == "/\n"


@pytest.mark.parametrize("name", sorted(INHERITED))
def test_the_callers_other_variables_reach_the_session(name, monkeypatch, tmp_path):
    monkeypatch.setenv(name, INHERITED[name])
    with Session(cwd=str(tmp_path)) as session:
        assert session.run(f'printenv {name}').output == INHERITED[name] + "\n"


def test_through_the_cli_the_callers_shell_options_do_not_trace_or_stop_the_run(demorun, workshop, tmp_path):
    rc = tmp_path / "rc"
    rc.write_text("alias echo='exit 3'\n")
    path = workshop("""
        <!-- @SHOW -->
        ```bash
        false || echo "flags $-"
        ```
        """)
    env = {"SHELLOPTS": "xtrace:errexit", "POSIXLY_CORRECT": "1", "ENV": str(rc), "BASH_ENV": str(rc)}
    result = demorun("run", path, env=env)
    assert result.exit_code == 0, result.output
    assert "flags himBs" in result.output
    assert "+ false" not in result.output
