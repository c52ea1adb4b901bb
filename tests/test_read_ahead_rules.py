"""What may wait in bash's input behind the running command: one module decides
(runner/session/read_ahead.py), for the engine's plan and the session's batch alike."""
from __future__ import annotations

from runner.session.framing import frame
from runner.session.read_ahead import AHEAD_BYTES, may_wait, plan_may_queue, queueable


def test_a_plan_that_sets_aliases_or_debug_traps_queues_nothing():
    assert plan_may_queue(["echo a", "echo b"])
    for risky in ("alias ll='ls -l'", "trap 'echo step' DEBUG", "set -T", "trap 'x' CONT", "shopt -s extdebug"):
        assert not plan_may_queue(["echo a", risky]), risky


def test_what_a_command_says_can_bar_it_from_waiting():
    assert may_wait("kubectl get pods -n shop -o wide")
    for barred in ("sleep 5 &", "PS1='> '", "read -u 3 line", "builtin() { :; }", "stty -echo", "# a note"):
        assert not may_wait(barred), barred


def test_a_batch_stops_at_the_first_command_that_may_not_wait():
    text = "echo one"
    lines = queueable(text, frame(text, False), ["echo two", "stty sane", "echo three"])
    assert [command for command, _ in lines] == ["echo two"]


def test_nothing_waits_behind_a_command_sent_line_by_line_or_reading_a_descriptor():
    for text in ("echo one\necho more", "read -u 0 x"):
        assert queueable(text, frame(text, False), ["echo two"]) == ()


def test_a_batch_fits_the_bytes_one_write_delivers_whole():
    text = "echo one"
    lines = queueable(text, frame(text, False), ["echo " + "x" * 60] * 64)
    assert 0 < len(lines) < 64
    assert len(frame(text, False)[0]) + sum(len(line) for _, line in lines) <= AHEAD_BYTES
