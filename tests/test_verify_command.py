"""verify_command: exit status, timeouts and output, with file:line in every message."""
from __future__ import annotations

import pytest

from runner.errors import ParseError
from runner.model import Expectation, Kind, Modifiers, SourceLoc, Step, Visibility
from runner.results import Outcome, Status
from runner.verify.command import verify_command


def step(expected: list[str] | None = None, first: int = 157, **modifiers) -> Step:
    block = None
    if expected is not None:
        block = Expectation(tuple(expected), SourceLoc("README.md", first), first + len(expected) - 1)
    return Step(Kind.COMMAND, SourceLoc("README.md", 156), "kubectl get pods", Visibility.SHOW, end_line=156,
                expected=block, modifiers=Modifiers(**modifiers))


def ran(output: str = "", status: int = 0, **extra) -> Outcome:
    return Outcome(output=output, status=status, duration=1.5, **extra)


def test_passing_command():
    verdict = verify_command(step(["hello"]), ran("hello\n"))
    assert verdict.status is Status.PASS and verdict.message == ""


def test_without_a_block_output_is_not_checked():
    assert verify_command(step(None), ran("anything at all\n")).passed


def test_exit_status_failure_names_the_command_and_shows_the_last_lines():
    output = "".join(f"line {i}\n" for i in range(30)) + "error: not found\n"
    verdict = verify_command(step(["x"], first=41), ran(output, status=1))
    assert verdict.status is Status.FAIL
    assert verdict.message == "README.md:156: exit status 1, expected 0"
    assert verdict.details[-1] == "error: not found" and len(verdict.details) == 10


def test_expected_exit_status_and_any():
    assert verify_command(step(exit=2), ran(status=2)).passed
    assert not verify_command(step(exit=2), ran(status=0)).passed
    assert verify_command(step(exit=None), ran(status=7)).passed


def test_timeout_fails_saying_so():
    verdict = verify_command(step(timeout=90.0), ran("partial\n", status=130, timed_out=True, recovery="interrupted"))
    assert verdict.message == "README.md:156: timed out after the 90 s limit (stopped at 1.50 s, interrupted)"
    assert verdict.details == ("partial",)


def test_a_timeout_names_the_limit_it_ran_under_and_the_time_it_stopped_at():
    verdict = verify_command(step(), ran(status=130, timed_out=True, limit=300.0))  # the run's default
    assert verdict.message == "README.md:156: timed out after the 5 min limit (stopped at 1.50 s)"


def test_stop_after_counts_as_success_and_still_checks_output():
    stopped = ran("Forwarding from 127.0.0.1:8080 -> 8080\n", status=130, timed_out=True, stopped=True)
    assert verify_command(step(["Forwarding from 127.0.0.1:8080 -> 8080"], stop_after=5.0), stopped).passed
    assert not verify_command(step(["Forwarding from 127.0.0.1:9090 -> 9090"], stop_after=5.0), stopped).passed


def test_output_failure_names_the_command_and_its_block():
    expected = ["NAME    READY   STATUS", "web-0   1/1     Running", "web-1   1/1     Running"]
    output = "NAME    READY   STATUS\nweb-0   0/1     Pending\nweb-1   1/1     Running\n"
    verdict = verify_command(step(expected), ran(output))
    assert verdict.message == "README.md:156: output differs from ## block at README.md:157-159: 1 row differs"
    assert verdict.details == ("web-0: READY expected 1/1, got 0/1", "web-0: STATUS expected Running, got Pending")


def test_a_one_line_block_is_named_by_its_line():
    verdict = verify_command(step(["yes"], first=157), ran("no\n"))
    assert "## block at README.md:157: " in verdict.message


def test_expect_and_mask_modifiers_apply():
    assert verify_command(step(["b"], expect="contains"), ran("a\nb\nc\n")).passed
    assert verify_command(step(["id 1"], masks=(r"id \d+",)), ran("id 22\n")).passed


def test_a_broken_mask_error_carries_the_command_location():
    with pytest.raises(ParseError) as caught:
        verify_command(step(["a"], masks=("(",)), ran("b\n"))
    assert str(caught.value).startswith("README.md:156: invalid @mask regex '('")
