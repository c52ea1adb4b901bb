"""The five examples that fix the meaning of MATCHING.md, built from the corpus workshop's own lines."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from runner.verify.compare import compare_output

WORKSHOP = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "sma" / "startup-deep-dive" / "README.md"


@pytest.fixture(scope="module")
def lines() -> list[str]:
    if not WORKSHOP.is_file():
        pytest.skip(f"corpus workshop not found at {WORKSHOP}")
    return WORKSHOP.read_text(encoding="utf-8").split("\n")


def block(lines: list[str], first: int, last: int) -> list[str]:
    """The `##` lines first..last (1-based) as expected output lines."""
    picked = lines[first - 1 : last]
    assert all(line.startswith("##") for line in picked), picked
    return [line[3:] if line.startswith("## ") else line[2:] for line in picked]


def output(lines: list[str], first: int, last: int) -> str:
    """The same lines as a command would have printed them."""
    return "\n".join(block(lines, first, last)) + "\n"


def test_emojivoto_pods_of_another_run_pass(lines):
    assert compare_output(block(lines, 157, 161), output(lines, 405, 409)) is None


def test_crashlooping_linkerd_pods_fail_naming_status_and_ready_for_every_row(lines):
    mismatch = compare_output(block(lines, 133, 136), output(lines, 288, 291))
    assert mismatch is not None
    assert mismatch.summary == "3 rows differ"
    for name, ready, got in (("linkerd-identity", "2/2", "0/2"), ("linkerd-destination", "4/4", "0/4"),
                             ("linkerd-proxy-injector", "2/2", "0/2")):
        assert f"{name}-*: READY expected {ready}, got {got}" in mismatch.details
        assert f"{name}-*: STATUS expected Running, got Init:CrashLoopBackOff" in mismatch.details
    assert not any("RESTARTS" in d or "AGE" in d for d in mismatch.details)


def test_kube_system_pods_with_other_ages_pass(lines):
    assert compare_output(block(lines, 72, 75), output(lines, 122, 125)) is None


def test_a_fifth_namespace_fails_naming_the_unexpected_row(lines):
    mismatch = compare_output(block(lines, 60, 64), output(lines, 109, 114))
    assert mismatch is not None
    assert mismatch.summary == "1 unexpected row"
    assert mismatch.details == ("unexpected row linkerd",)


def _another_run(logs: str) -> str:
    """The validator logs with other timestamps and another token."""
    logs = re.sub(r"2022-11-17T16:06:(\d\d)\.(\d+)Z", lambda m: f"2023-03-09T08:41:{m[1]}.{m[2][::-1]}Z", logs)
    token = re.search(r'token="(\w+)', logs)[1]
    assert len(token) >= 16
    return logs.replace(token, token[::-1].swapcase())


def test_validator_logs_with_other_timestamps_and_token_pass(lines):
    other = _another_run(output(lines, 311, 314))
    assert other != output(lines, 311, 314)
    assert compare_output(block(lines, 311, 314), other) is None


def test_validator_logs_with_error_turned_to_info_fail_with_a_diff(lines):
    other = _another_run(output(lines, 311, 314)).replace(" ERROR ", "  INFO ")
    mismatch = compare_output(block(lines, 311, 314), other)
    assert mismatch is not None
    removed = [d for d in mismatch.details if d.startswith("-") and not d.startswith("---")]
    added = [d for d in mismatch.details if d.startswith("+") and not d.startswith("+++")]
    assert len(removed) == len(added) == 1
    assert "ERROR" in removed[0] and "INFO" in added[0] and "ERROR" not in added[0]
