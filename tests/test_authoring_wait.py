"""@wait-for and never-ending commands (lint's warning, check's short limit, --strict), through the command line."""
from __future__ import annotations

import json
import time

import pytest

# A command that never ends by itself and prints a line, then nothing: a follow, a watch.
FOLLOW = ("""python3 -c 'import time; print("starting", flush=True); time.sleep(0.2); """
          """print("ready", flush=True); time.sleep(600)'""")


def test_wait_for_ends_the_command_at_the_match_and_compares_what_came_before(demorun, workshop):
    path = workshop(f"""
        <!-- @wait-for ^ready -->
        ```bash
        {FOLLOW}
        ## starting
        ## ready
        echo next
        ## next
        ```
        """)
    started = time.monotonic()
    result = demorun("check", "--timeout", "20s", path)  # a wait that never stops fails, not hangs
    assert result.exit_code == 0, result.output
    assert time.monotonic() - started < 20  # not the 30 s of a never-ending command, nor 10 minutes


def test_the_interrupt_s_noise_is_never_compared(demorun, workshop):
    # Python prints a KeyboardInterrupt traceback and bash echoes ^C: a `##` block without them passes,
    # and --update writes none of them.
    path = workshop(f"""
        <!-- @wait-for ready -->
        ```bash
        {FOLLOW}
        ## wrong
        ```
        """)
    assert demorun("check", "--update", "--timeout", "20s", path).exit_code == 0
    text = open(path).read()
    assert "## starting\n## ready\n" in text
    assert "KeyboardInterrupt" not in text and "^C" not in text and "Traceback" not in text


def test_wait_for_fails_at_the_limit_saying_what_it_waited_for(demorun, workshop):
    path = workshop(f"""
        <!-- @wait-for ^never-printed$ -->
        <!-- @timeout 2s -->
        ```bash
        {FOLLOW}
        ```
        """)
    result = demorun("check", path)
    assert result.exit_code == 1
    assert f"{path}:4: @wait-for ^never-printed$: waited 2s and its output never matched" in result.output


def test_wait_for_fails_when_the_command_ends_without_a_match(demorun, workshop):
    path = workshop("""
        <!-- @wait-for ready -->
        ```bash
        echo something else
        ```
        """)
    result = demorun("check", path)
    assert result.exit_code == 1
    assert "@wait-for ready: it ended (status 0)" in result.output


def test_a_malformed_wait_for_is_a_lint_error(demorun, workshop):
    path = workshop("""
        <!-- @wait-for ([ -->
        ```bash
        echo x
        ```
        """)
    result = demorun("lint", path)
    assert result.exit_code == 1 and "'@wait-for' '([' is not a regular expression" in result.output


def test_list_json_shows_wait_for(demorun, workshop):
    path = workshop(f"""
        <!-- @wait-for ^ready -->
        ```bash
        {FOLLOW}
        ```
        """)
    step = next(s for s in json.loads(demorun("list", "--json", path).output)["steps"] if s["kind"] == "command")
    assert step["modifiers"]["wait_for"] == "^ready"


@pytest.mark.parametrize("command", ["tail -f /dev/null", "kubectl get pods -w", "kubectl logs -f web",
                                     "kubectl port-forward svc/web 8080:80", "linkerd viz tap deploy/web"])
def test_lint_warns_of_a_never_ending_command_with_the_fix(demorun, workshop, command):
    path = workshop(f"""
        ```bash
        {command}
        ```
        """)
    result = demorun("lint", path)
    assert f"{path}:2: warning:" in result.output and "[never-ends]" in result.output
    assert "@stop-after" in result.output and "@wait-for" in result.output and "`&`" in result.output


@pytest.mark.parametrize("fixed", ["<!-- @stop-after 1s -->\n```bash\ntail -f /dev/null\n```",
                                   "<!-- @wait-for x -->\n```bash\ntail -f /dev/null\n```",
                                   "```bash\ntail -f /dev/null &\n```"])
def test_lint_says_nothing_once_the_author_said_how_it_ends(demorun, workshop, fixed):
    assert "never-ends" not in demorun("lint", workshop(fixed)).output


def test_check_strict_fails_a_never_ending_command_at_once(demorun, workshop):
    path = workshop("""
        ```bash
        tail -f /dev/null
        ```
        """)
    started = time.monotonic()
    result = demorun("check", "--strict", path)
    assert result.exit_code == 1
    assert time.monotonic() - started < 10
    assert "`tail -f` never ends by itself, and --strict does not wait for it" in result.output
    assert "@wait-for REGEX" in result.output


def test_check_gives_a_never_ending_command_a_short_limit_of_its_own(demorun, workshop):
    path = workshop("""
        ```bash
        tail -f /dev/null
        ```
        """)
    started = time.monotonic()
    result = demorun("check", "--timeout", "2s", path)  # the short limit is never longer than the run's
    assert result.exit_code == 1
    assert time.monotonic() - started < 15
    assert "`tail -f` never ends by itself, so it ran to the 2s limit" in result.output  # the user's own
    assert "not the default limit" not in result.output


def test_the_short_limit_of_its_own_is_said_as_such(demorun, workshop, monkeypatch):
    monkeypatch.setattr("runner.modes.check.ENDLESS_LIMIT", 1.0)
    result = demorun("check", workshop("""
        ```bash
        tail -f /dev/null
        ```
        """))
    assert result.exit_code == 1
    assert "`tail -f` never ends by itself, so it was given 1s, not the default limit" in result.output


def test_a_program_that_waits_for_keys_is_told_to_pipe_to_cat(demorun, workshop):
    path = workshop("""
        ```bash
        less /etc/hostname
        ```
        """)
    assert "it waits for keys nobody presses unattended: pipe its output to `cat`" in demorun("lint", path).output


def test_a_never_ending_command_in_the_background_or_bounded_is_left_alone_by_check(demorun, workshop):
    path = workshop("""
        ```bash
        timeout 1 tail -f /dev/null; echo "status $?"
        ## status 124
        ```
        """)
    result = demorun("check", "--strict", path)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("command", ["python3 -m http.server 8000", "sleep 1d", "sleep 3600", "nc -l 8080",
                                     "ncat -lk 9000", "socat TCP-LISTEN:8080,fork -", "kubectl attach web -it",
                                     "docker attach web", "yes", "yes > /dev/null",
                                     "while true; do date; sleep 1; done", "while :; do curl -s web; done",
                                     "for ((;;)); do date; done", "kubectl apply -f x.yaml && until false; do :; done"])
def test_lint_knows_servers_listeners_loops_and_long_sleeps_by_their_shape(demorun, workshop, command):
    result = demorun("lint", workshop(f"""
        ```bash
        {command}
        ```
        """))
    assert "[never-ends]" in result.output, command


@pytest.mark.parametrize("command", ["printf 'a\\n' | less -FX", "git log | less --quit-if-one-screen",
                                     "sleep 5", "sleep $DELAY", "nc web 80", "yes | head -1", "cat",
                                     "while true; do curl -s web && break; sleep 1; done",
                                     "while read -r line; do echo $line; done < list.txt",
                                     "timeout 10 bash -c 'while true; do date; done'",
                                     "python3 -m http.server 8000 &"])
def test_lint_leaves_alone_what_ends_by_itself(demorun, workshop, command):
    result = demorun("lint", workshop(f"""
        ```bash
        {command}
        ```
        """))
    assert "[never-ends]" not in result.output, command
