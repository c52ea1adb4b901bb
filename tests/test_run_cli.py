"""`demorun run`: unattended replay end to end, through the command line, with real bash."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid

import pexpect
import pytest
from conftest import REPO


def test_quickstart_replays_what_the_audience_would_see(demorun):
    result = demorun("run", str(REPO / "demos" / "quickstart.md"))
    assert result.exit_code == 0, result.output
    assert "Connected to cluster quickstart" in result.output
    assert "A pretend cluster" in result.output  # prose of a SHOW section
    assert "Counting pods in quickstart" in result.output  # @print, expanded
    assert 'export PATH="$PWD:$PATH"' not in result.output  # hidden setup stays hidden
    assert "all succeeded" in result.output


def test_first_failure_stops_the_run_with_file_line_and_output(demorun, workshop):
    path = workshop("""
        ```bash
        echo before
        ls /no/such/dir
        ```
        <!-- @SHOW -->
        ```bash
        echo after
        ```
        """)
    result = demorun("run", path)
    assert result.exit_code == 1
    assert f"{path}:3" in result.output
    assert "No such file or directory" in result.output  # the hidden command's own output
    # A shown command would print itself and its output: neither appears.
    assert "after" not in result.output
    assert "after" in demorun("run", "--keep-going", path).output


def test_keep_going_runs_the_rest(demorun, workshop):
    path = workshop("""
        <!-- @SHOW -->
        ```bash
        false
        echo still-here
        ```
        """)
    result = demorun("run", "--keep-going", path)
    assert result.exit_code == 1
    assert "still-here" in result.output.replace("echo still-here", "")


def test_args_become_positional_parameters(demorun, workshop):
    path = workshop("""
        <!-- @SHOW -->
        ```bash
        echo "first=$1 second=$2 zero=$0"
        ```
        """)
    result = demorun("run", path, "alpha", "beta gamma")
    assert result.exit_code == 0, result.output
    assert f"first=alpha second=beta gamma zero={path}" in result.output


def test_exit_in_a_workshop_ends_the_run_with_its_status_at_file_line(demorun, workshop):
    path = workshop("""
        ```bash
        echo one
        exit 3
        echo never
        ```
        """)
    result = demorun("run", path)
    assert result.exit_code == 3
    assert f"{path}:3" in result.output and "status 3" in result.output


def test_timeout_interrupts_and_the_session_keeps_its_state(demorun, workshop):
    path = workshop("""
        <!-- @SHOW -->
        ```bash
        KEEP=kept
        ```
        <!-- @timeout 1s -->
        ```bash
        sleep 30
        ```
        ```bash
        echo "value=$KEEP"
        ```
        """)
    result = demorun("run", "--keep-going", path)
    assert result.exit_code == 1
    assert "timed out" in result.output.lower()
    assert "value=kept" in result.output


def test_reading_stdin_gets_end_of_file_instead_of_hanging(demorun, workshop):
    path = workshop("""
        <!-- @SHOW -->
        ```bash
        read -r answer || echo "no input"
        ```
        """)
    result = demorun("run", "--timeout", "20s", path)
    assert result.exit_code == 0, result.output
    assert "no input" in result.output


def test_quiet_shows_only_failures_and_the_summary(demorun, workshop):
    path = workshop("""
        <!-- @SHOW -->
        Some prose.
        ```bash
        echo loud
        ```
        """)
    result = demorun("run", "--quiet", path)
    assert result.exit_code == 0
    assert "loud" not in result.output and "Some prose" not in result.output
    assert result.output.splitlines()[-1].startswith("1 command ran, all succeeded")


def test_missing_required_tool_refuses_with_exit_3(demorun, workshop):
    path = workshop("""
        <!-- @requires surely-not-a-tool-xyz -->
        ```bash
        echo hi
        ```
        """)
    result = demorun("run", path)
    assert result.exit_code == 3
    assert "surely-not-a-tool-xyz" in result.output and f"{path}:1" in result.output


def test_missing_file_is_one_clear_line_with_exit_2(demorun, tmp_path):
    result = demorun("run", str(tmp_path / "nope.md"))
    assert result.exit_code == 2
    assert "nope.md" in result.output and "Traceback" not in result.output


def test_background_jobs_are_ended_after_the_run(workshop):
    marker = f"demorun-bg-{uuid.uuid4().hex[:8]}"
    path = workshop(f"""
        ```bash
        bash -c 'exec -a {marker} sleep 1000' &
        echo started
        ```
        """)
    done = subprocess.run([sys.executable, "-m", "runner", "run", path], capture_output=True,
                          text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    assert left.stdout.strip() == ""


def test_record_writes_a_cast_of_what_was_shown(demorun, workshop, tmp_path):
    path = workshop("""
        <!-- @SHOW -->
        ```bash
        echo recorded-line
        ```
        """)
    cast = tmp_path / "demo.cast"
    result = demorun("run", "--record", str(cast), path)
    assert result.exit_code == 0, result.output
    lines = cast.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["version"] == 2 and header["width"] > 0
    events = [json.loads(line) for line in lines[1:]]
    assert any("recorded-line" in event[2] for event in events)
    assert all(a[0] <= b[0] for a, b in zip(events, events[1:]))


def test_python_dash_m_runner_works():
    done = subprocess.run([sys.executable, "-m", "runner", "--version"], capture_output=True,
                          text=True, cwd=REPO, env={**os.environ})
    assert done.returncode == 0 and "demorun" in done.stdout


def _spawn_run(path: str, *args: str) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "runner", "run", *args, path], cwd=str(REPO),
                         env={**os.environ, "NO_COLOR": "1"}, encoding="utf-8", timeout=30)


def test_ctrl_c_interrupts_the_command_and_the_run_goes_on(workshop):
    path = workshop("""
        <!-- @SHOW -->
        ```bash
        echo waiting; sleep 100
        ```
        ```bash
        echo after-interrupt
        ```
        """)
    child = _spawn_run(path, "--keep-going")
    child.expect("\nwaiting")  # the output, not the command shown before it
    child.sendintr()
    child.expect("\nafter-interrupt")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1  # the interrupted command counts as failed


def test_second_ctrl_c_ends_the_run_and_its_processes(workshop):
    marker = f"demorun-int-{uuid.uuid4().hex[:8]}"
    path = workshop(f"""
        <!-- @SHOW -->
        ```bash
        trap '' INT; echo stubborn; bash -c 'exec -a {marker} sleep 1000'
        ```
        """)
    child = _spawn_run(path)
    child.expect("\nstubborn")
    child.sendintr()
    time.sleep(0.3)  # two presses, not one: signals that arrive together coalesce into one
    child.sendintr()
    child.expect("interrupted")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout == b""


def test_sigterm_ends_the_run_and_its_processes(workshop):
    marker = f"demorun-term-{uuid.uuid4().hex[:8]}"
    path = workshop(f"""
        <!-- @SHOW -->
        ```bash
        echo started; bash -c 'exec -a {marker} sleep 1000'
        ```
        """)
    child = _spawn_run(path)
    child.expect("\nstarted")
    child.kill(15)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 143
    assert subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout == b""


def test_stop_after_ends_a_never_ending_command_as_a_success(demorun, workshop):
    path = workshop("""
        <!-- @SHOW -->
        <!-- @stop-after 1s -->
        ```bash
        while true; do echo tick; sleep 0.2; done
        ```
        ```bash
        echo after-the-watch
        ```
        """)
    started = time.monotonic()
    result = demorun("run", path)
    assert result.exit_code == 0, result.output
    assert "tick" in result.output and "after-the-watch\n" in result.output
    assert time.monotonic() - started < 10


def test_a_command_bash_rejects_is_never_sent(demorun, workshop, tmp_path):
    path = workshop("""
        ```bash
        touch sent-before
        echo "unterminated
        ```
        """)
    result = demorun("run", path)
    assert result.exit_code == 1
    assert f"{path}:3: bash rejects this command" in result.output
    assert (tmp_path / "sent-before").exists()


def test_set_e_ends_the_run_where_bash_exits(demorun, workshop):
    path = workshop("""
        ```bash
        set -e
        false
        echo never-printed
        ```
        """)
    result = demorun("run", path)
    assert result.exit_code == 1
    assert f"{path}:3" in result.output and "never-printed\n" not in result.output


def test_unknown_directive_runs_as_a_command_or_warns_once(demorun, workshop):
    path = workshop("""
        <!-- @SHOW -->
        <!-- @no_such_scene_switch -->
        <!-- @no_such_scene_switch -->
        <!-- @echo directive-ran-as-a-command -->
        ```bash
        echo done
        ```
        """)
    result = demorun("run", path)
    assert result.exit_code == 0, result.output
    assert result.output.count("@no_such_scene_switch: not a macro, hook or command here") == 1
    assert f"{path}:2" in result.output
    assert "directive-ran-as-a-command" in result.output


def test_exit_traps_clean_up_after_a_failure(demorun, workshop, tmp_path):
    cleaned = tmp_path / "cleaned"
    path = workshop(f"""
        ```bash
        trap 'sleep 1.5; touch {cleaned}' EXIT
        false
        ```
        """)
    result = demorun("run", path)
    assert result.exit_code == 1
    assert cleaned.exists()  # the trap ran to its end before the session was closed


def test_secrets_are_masked_in_a_recording_even_when_the_shell_exits(demorun, workshop, tmp_path):
    path = workshop("""
        <!-- @SHOW -->
        ```bash
        export SERVICE_TOKEN=abcd-secret-9876
        echo "using $SERVICE_TOKEN"
        exit 4
        ```
        """)
    cast = tmp_path / "demo.cast"
    result = demorun("run", "--record", str(cast), path)
    assert result.exit_code == 4
    recorded = cast.read_text()
    assert "abcd-secret-9876" not in recorded and "***" in recorded


# run tells the truth.

DRIFTED = """
<!-- @SHOW -->
```bash
echo one
## one
```

```bash
echo two
## deux
```

```bash
export API_TOKEN=tok-1234-abcd
echo "token $API_TOKEN"
## token ***
```

```bash
printf 'NAME  AGE\\nweb   %ss\\n' "$RANDOM"
## NAME  AGE
## web   3m
```

```bash
echo three
## trois
```
"""


def test_run_names_the_outputs_that_differ_without_failing(demorun, workshop):
    path = workshop(DRIFTED)
    result = demorun("run", path)
    assert result.exit_code == 0, result.output
    said = f"2 outputs differ from the file: {path}:8, :25; `demorun check` shows how"
    assert said in result.output  # not the masked secret, not the forgiven AGE
    assert result.output.index(said) < result.output.index("6 commands ran, all succeeded")
    quiet = demorun("run", "--quiet", path)
    assert quiet.exit_code == 0 and said in quiet.output
    checked = demorun("check", path)
    assert checked.exit_code == 1 and f"FAIL {path}:8" in checked.output and f"FAIL {path}:25" in checked.output
    assert f"FAIL {path}:14" not in checked.output and f"FAIL {path}:19" not in checked.output


def test_a_command_that_failed_is_not_counted_again_as_drift(demorun, workshop):
    path = workshop("```bash\necho one; false\n## two\n```\n\n```bash\necho three\n## four\n```\n")
    result = demorun("run", "--keep-going", path)
    assert result.exit_code == 1
    assert f"1 output differs from the file: {path}:7; `demorun check` shows how" in result.output


def test_run_names_drift_in_the_files_a_workshop_imports(demorun, workshop):
    workshop("```bash\necho helper\n## helped\n```\n", "helper.md")
    path = workshop("<!-- @import helper.md -->\n```bash\necho main\n## elsewhere\n```\n")
    result = demorun("run", path)
    assert f"2 outputs differ from the file: {path.replace('workshop.md', 'helper.md')}:2, {path}:3" in result.output


def test_run_stops_at_a_command_bash_rejects(demorun, workshop, tmp_path):
    path = workshop("""
        ```bash
        echo "unterminated
        ```

        ```bash
        touch ran-after
        ```
        """)
    result = demorun("run", path)
    assert result.exit_code == 1
    assert f"{path}:2: bash rejects this command" in result.output
    assert "1 not run" in result.output.splitlines()[-1]
    assert not (tmp_path / "ran-after").exists()
    assert demorun("run", "--keep-going", path).exit_code == 1 and (tmp_path / "ran-after").exists()


def test_run_of_a_file_with_nothing_to_run_says_so(demorun, workshop):
    path = workshop("# Notes\n\n```console\n$ echo hi\n```\n")
    result = demorun("run", path)
    assert result.exit_code == 0
    assert f"{path}: nothing to run: line 3: ```console fence is not run; use ```bash" in result.output
    assert "succeeded" not in result.output


def test_lint_errors_are_said_once_before_the_run(demorun, workshop):
    path = workshop("""
        <!-- @SHOW -->
        <!-- @SHWO -->
        <!-- @SHWO -->
        ```bash
        echo ran
        ```
        """)
    result = demorun("run", path)
    assert result.exit_code == 0, result.output
    assert result.output.count("SHWO") == 2 and "'@SHWO' is no directive" in result.output  # one finding
    assert "did you mean @SHOW?" in result.output and "not a macro, hook or command here" not in result.output
    assert result.output.index("did you mean") < result.output.index("$ echo ran")


@pytest.mark.parametrize(("name", "directive"), [("w.md", "<!-- @requires helmx -->"), ("w.sh", "#@requires helmx")])
def test_a_missing_tool_is_named_with_the_requires_line_in_the_workshops_syntax(demorun, workshop, name, directive):
    body = "helmx install web\n"
    path = workshop(f"```bash\n{body}```\n" if name.endswith(".md") else body, name)
    result = demorun("run", path)
    assert result.exit_code == 1
    assert f"helmx is not installed here; to skip this workshop where it is missing, with a preflight " \
           f"message, add {directive}" in result.output
    assert result.output.count("helmx: command not found") == 1  # the output once, not again as the verdict's
