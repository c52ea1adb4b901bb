"""Every ending of a session runs the workshop's EXIT trap exactly once, whatever the shell's state."""
from __future__ import annotations

import pytest

STATES = {
    "a function named exit": "exit() { echo not leaving; }",
    "checkjobs with a job running": "shopt -s checkjobs; sleep 100 &",
    "a stopped job": "sleep 100 & kill -STOP $!",
    "all at once": "exit() { :; }; logout() { :; }; shopt -s checkjobs; sleep 100 & sleep 200 & kill -STOP $!",
    "a nested shell's stopped job": None,
}


@pytest.mark.parametrize("state", sorted(STATES))
def test_the_exit_trap_runs_once_at_the_end(state, demorun, workshop, tmp_path):
    trap_log = tmp_path / "trap.log"
    if STATES[state] is None:
        inner = workshop(f"""
            ```bash
            trap 'echo inner >>{trap_log}' EXIT
            sleep 100 & kill -STOP $!
            ```
            """, name="inner.md")
        body = f"```\n\n<!-- @$SHELL {inner} -->\n\n```bash\ntrue"
    else:
        body = STATES[state]
    path = workshop(f"""```bash\ntrap 'echo cleanup >>{trap_log}' EXIT\n{body}\n```\n""")
    result = demorun("run", path)
    assert result.exit_code == 0, result.output
    expected = ["inner", "cleanup"] if STATES[state] is None else ["cleanup"]
    assert trap_log.read_text().splitlines() == expected
