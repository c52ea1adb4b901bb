"""Catching up (`--from`, `g`) cannot hang: what never ends is skipped or stopped, each command has a limit."""
from __future__ import annotations

import time

import pytest
import tmux_terminal as live
from test_present_stage import notes_pane  # noqa: F401  (a fixture)
from tmux_terminal import FAST, prompt_line

from runner.config import load_config
from runner.errors import ConfigError
from runner.model import DEFAULT_TIMEOUT, Kind, Modifiers, SourceLoc, Step, Visibility
from runner.modes.present.catchup import bounded, never_ends, summary

terminal, present = live.terminal, live.present  # the same real-terminal fixtures


@pytest.mark.parametrize("command, reason", [
    ("watch kubectl get pods", "watch"),
    ("watch -n 1 date", "watch"),
    ("kubectl get pods -w", "kubectl -w"),
    ("kubectl get pods -n shop --watch", "kubectl -w"),
    ("kubectl -n shop get events --watch-only", "kubectl -w"),
    ("kubectl -n shop port-forward svc/web 8080:80", "port-forward"),
    ("linkerd viz dashboard", "dashboard"),
    ("minikube dashboard", "dashboard"),
    ("kubectl logs -f deploy/web", "logs -f"),
    ("kubectl logs deploy/web --follow", "logs -f"),
    ("docker logs -f web", "logs -f"),
    ("tail -F /var/log/syslog", "tail -f"),
    ("linkerd viz tap deploy/web", "linkerd tap"),
    ("kubectl proxy", "proxy"),
    ("sudo -E watch ls", "watch"),
    ("KUBECONFIG=x watch ls", "watch"),
    ("kubectl get pods -w | grep web", "kubectl -w"),
    ("seq 1 500 | less", "less"),
    ('read -p "Press RETURN"', "waits for keys (read)"),
    ("sleep infinity", "sleep infinity"),
    ("k9s", "k9s"),
])
def test_commands_that_never_end_by_themselves(command, reason):
    found = never_ends(command)
    assert found is not None and found.reason == reason and found.first


@pytest.mark.parametrize("command", [
    "kubectl get pods",
    "kubectl -n shop port-forward svc/web 8080:80 &",  # in the background, as setup needs it
    "linkerd viz dashboard &>/dev/null &",
    "helm install dashboard ./chart",
    "kubectl apply -f dashboard.yaml",
    'curl -s -o /dev/null -w "%{http_code}" http://web',
    "grep -w word file",
    "kubectl logs deploy/web",
    "tail -n 20 file",
    "timeout 10 kubectl logs -f deploy/web",
    "kubectl rollout status -w deploy/web",
    "kubectl top pods",
    'echo "watch this space"',
    "while read line; do echo $line; done < file",
    "cat <<EOF\nwatch: true\nEOF",
    'echo "unclosed',
    "linkerd viz stat deploy",
])
def test_commands_thatend(command):
    assert never_ends(command) is None


def test_a_never_ending_command_after_others_is_stopped_not_skipped():
    found = never_ends("kubectl apply -f web.yaml && kubectl get pods -w")
    assert found is not None and not found.first
    assert never_ends("FOO=1; tail -f log").first is False


def test_recognising_is_linear_in_the_commands_length():
    def timed(size: int) -> float:
        text = "echo " + "word " * size + "| tail -n 5 && " * (size // 10)
        start = time.perf_counter()
        never_ends(text)
        return time.perf_counter() - start

    timed(1000)
    small, big = timed(4_000), timed(40_000)
    assert big < 30 * max(small, 1e-4)  # ten times the text: nowhere near a hundred times the time


def _command(**changes) -> Step:
    return Step(Kind.COMMAND, SourceLoc("w.md", 3), "sleep 100", Visibility.HIDE, modifiers=Modifiers(**changes))


def test_each_command_gets_the_limit_unless_its_author_bounded_it():
    assert bounded(_command(), 7.0, None).modifiers.timeout == 7.0
    stopped = bounded(_command(), 7.0, never_ends("watch ls")).modifiers
    assert stopped.stop_after == 7.0 and stopped.exit is None  # stopping it is what a presenter would do
    for own in ({"timeout": 300.0}, {"retry": 60.0}, {"stop_after": 5.0}):
        assert bounded(_command(**own), 7.0, None).modifiers == Modifiers(**own)
    assert DEFAULT_TIMEOUT > 7.0


def test_the_limit_is_configured_with_a_duration(tmp_path):
    (tmp_path / "demorun.toml").write_text('catch-up-timeout = "90s"\n')
    assert load_config(tmp_path).catch_up_timeout == 90
    (tmp_path / "demorun.toml").write_text('catch-up-timeout = "soon"\n')
    with pytest.raises(ConfigError, match="catch-up-timeout"):
        load_config(tmp_path)


def test_what_was_cut_is_said_once_per_kind():
    said = summary(5, 1, [(SourceLoc("/a/w.md", 6), "watch")], [SourceLoc("/a/w.md", 10)], 2.0)
    assert said == ["catching up skipped 1 command that never end: /a/w.md:6 (watch)",
                    "catching up stopped 1 command at the 2s limit: /a/w.md:10",
                    "1 of 5 earlier commands failed while catching up (d: the last)"]
    assert summary(3, 0, [], [], 2.0) == []


@live.TMUX[0]
@live.TMUX[1]
def test_from_past_a_watch_reaches_its_section_and_says_what_was_cut(present, notes_pane):  # noqa: F811
    pane, tty = notes_pane
    pane.tmux("resize-window", "-t", "t", "-x", "200", "-y", "30")  # room for every message whole
    started = time.monotonic()
    term = present("catchup_endless.md", *FAST, "--from", "Target", "--catch-up-timeout", "1s", "--notes", tty)
    term.wait_for(lambda s: prompt_line(s, 'echo "state is $STATE"'), "the target section", timeout=20)
    assert time.monotonic() - started < 15  # the watch and `sleep 30` would never let it come
    panel = pane.wait_text("at the 1s limit")
    assert "skipped 2 commands that never end: catchup_endless.md:6 (watch), " \
           "catchup_endless.md:14 (kubectl -w)" in panel
    assert "stopped 1 command at the 1s limit: catchup_endless.md:10" in panel
    assert "1 of 5 earlier commands failed" in panel
    term.keys("Enter")
    term.wait_text("\nstate is ready")  # what the stopped command set before its sleep is there
    term.keys("Q")
    assert term.finished()[0] == 0


@live.TMUX[0]
@live.TMUX[1]
def test_the_catch_up_messages_never_run_into_each_other_nor_run_the_command(present):
    term = present("catchup_endless.md", *FAST, "--from", "Target", "--catch-up-timeout", "1s")
    progress = term.wait_text("catching up: ")
    row = next(line for line in progress.splitlines() if "catching up: " in line)
    assert row.startswith("catching up: ") and row.rstrip().endswith(")")
    messages = []
    shown = term.wait_for(lambda s: prompt_line(s, 'echo "state is $STATE"') and "more)" in s, "the first message")
    for _ in range(4):
        row = shown.rstrip().splitlines()[-1]
        messages.append(row)
        if "more)" not in row:
            break
        term.keys("Enter")  # puts one message away, and shows the next, whole: it runs nothing
        shown = term.wait_for(lambda s, r=row: s.rstrip().splitlines()[-1] != r, "the next message")
        assert "\nstate is" not in shown
    assert len(messages) == 4
    # The warning said while catching up, then what catching up cut: each on its own, whole.
    assert "catchup_endless.md:17: @show_9: not a macro" in messages[0]
    assert messages[1].startswith("catching up skipped 2 commands that never end: catchup_endless.md:6 (watch)")
    assert messages[2].startswith("catching up stopped 1 command at the 1s limit: catchup_endless.md:10  (+1")
    assert messages[3] == "1 of 5 earlier commands failed while catching up (d: the last)"
    term.keys("Enter")
    term.wait_for(lambda s: s.rstrip().endswith('$ echo "state is $STATE"'), "the messages put away")
    term.stays_without("\nstate is")
    term.keys("Enter")
    term.wait_text("\nstate is ready")
    term.keys("Q")
    term.finished()
