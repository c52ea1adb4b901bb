"""The workshop's terminal: what a command does to it shows in its result, never silently undone."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("queued", [False, True], ids=["alone", "with commands queued behind"])
def test_a_shell_that_stops_itself_fails_its_command_and_says_so(queued, demorun, workshop):
    after = "echo after\n" * (5 if queued else 1)
    path = workshop(f"<!-- @SHOW -->\n```bash\nkill -STOP $$\n{after}```\n")
    result = demorun("run", path)
    assert result.exit_code == 1, result.output
    assert "the shell itself was stopped (SIGSTOP)" in result.output
    assert "exit status 147" in result.output
    assert "after" not in result.output.split("kill -STOP $$", 1)[1].split("exit status")[0]


def test_jobs_lists_a_stopped_job_as_a_terminals_bash_does(demorun, workshop):
    # The stop lands when the kernel delivers it: the workshop waits for it, as a person's typing does.
    path = workshop("""
        <!-- @SHOW -->
        ```bash
        sleep 100 &
        kill -STOP $!
        until [ "$(cut -d' ' -f3 /proc/$!/stat)" = T ]; do sleep 0.01; done
        jobs
        ```
        """)
    result = demorun("run", path)
    assert result.exit_code == 0, result.output
    assert "[1]+  Stopped                 sleep 100" in result.output


@pytest.mark.parametrize("command", ["stty size", "tty"])
def test_what_needs_a_terminal_in_an_unattended_command_says_why_it_failed(command, demorun, workshop):
    path = workshop(f"<!-- @SHOW -->\n```bash\n{command}\n```\n")
    result = demorun("run", path)
    assert result.exit_code == 1, result.output
    assert "the command's stdin is /dev/null, not a terminal" in result.output


def test_a_failure_that_is_not_about_the_terminal_gets_no_such_note(demorun, workshop):
    path = workshop("<!-- @SHOW -->\n```bash\nls /no/such/place\n```\n")
    result = demorun("run", path)
    assert result.exit_code == 1
    assert "not a terminal" not in result.output
