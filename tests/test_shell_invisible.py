"""demorun's own lines are invisible in the workshop's shell: its traces, $_, PIPESTATUS and
where the workshop sent bash's output show only what the workshop ran."""
from __future__ import annotations

from runner.session.session import Session


def test_xtrace_shows_the_workshops_commands_and_never_the_guard(demorun, workshop):
    path = workshop("""
        <!-- @SHOW -->
        ```bash
        set -x
        sleep 0 &
        echo one
        echo two
        set +x
        ```
        """)
    result = demorun("run", path)
    assert result.exit_code == 0, result.output
    assert "+ echo one" in result.output and "+ echo two" in result.output
    assert "__dr_" not in result.output


def test_pipestatus_and_last_argument_are_the_workshops_after_a_background_job(demorun, workshop):
    path = workshop("""
        <!-- @SHOW -->
        ```bash
        sleep 30 &
        true | false | true
        echo "status ${PIPESTATUS[*]}"
        f() { :; }
        f here
        echo "last $_"
        ```
        """)
    result = demorun("run", path)
    assert result.exit_code == 0, result.output
    assert "status 0 1 0" in result.output
    assert "last here" in result.output


def test_the_sessions_queries_never_land_where_the_workshop_sent_its_output(tmp_path):
    log = tmp_path / "log"
    with Session(cwd=str(tmp_path)) as session:
        session.run("SECRET_TOKEN=hunter2-value; f() { :; }")
        session.run(f"exec >{log} 2>&1")
        session.variables()
        session.functions()
        assert session.getvar("SECRET_TOKEN") == "hunter2-value"
        session.run("echo mine")
    text = log.read_text()
    assert "mine" in text
    assert "hunter2-value" not in text and "DEMORUN_SESSION" not in text


def test_set_a_never_exports_the_sessions_own_variables(tmp_path):
    with Session(cwd=str(tmp_path)) as session:
        session.run("set -a")
        session.variables()
        assert "__dr_" not in session.run("env").output
