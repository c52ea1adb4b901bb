"""What a verdict says was forgiven: each value that differed from the `##` block, where it is, and the rule."""
from __future__ import annotations

from runner.model import Expectation, Kind, Modifiers, SourceLoc, Step, Visibility
from runner.results import Outcome, Status
from runner.verify.command import verify_command
from runner.verify.compare import judge_output
from runner.verify.forgiven import MAX_FORGIVEN
from runner.verify.normalise import normalise
from runner.verify.roles import Pins


def _spans(expected: list[str], actual: str, **kwargs) -> list[tuple[int, str, str, str]]:
    judged = judge_output(expected, actual, **kwargs)
    assert judged.mismatch is None, judged.mismatch
    lines = normalise(actual)
    return [(f.line, lines[f.line - 1][f.start:f.end], f.expected, f.rule) for f in judged.forgiven]


def test_values_in_text_are_reported_with_their_kind():
    assert _spans(["pod web-68cc8bc689-j4ph2 up 5m at 10.0.0.1"], "pod web-7f9c4d5b8-x2kqz up 7m at 10.0.0.9\n") == [
        (1, "7f9c4d5b8-x2kqz", "68cc8bc689-j4ph2", "generated-name"),
        (1, "7m", "5m", "duration"),
        (1, "10.0.0.9", "10.0.0.1", "address"),
    ]


def test_values_equal_on_both_sides_are_not_reported():
    assert _spans(["up 5m", "at 10.0.0.1"], "up 5m\nat 10.0.0.2\n") == [(2, "10.0.0.2", "10.0.0.1", "address")]


def test_table_cells_are_reported_at_their_place_with_their_column():
    expected = ["NAME                   READY   RESTARTS   AGE", "web-68cc8bc689-j4ph2   1/1     0          5m"]
    actual = "NAME                  READY   RESTARTS     AGE\nweb-7f9c4d5b8-x2kqz   1/1     1 (3s ago)   7m\n"
    assert _spans(expected, actual) == [
        (2, "7f9c4d5b8-x2kqz", "68cc8bc689-j4ph2", "generated-name"),
        (2, "1 (3s ago)", "0", "column RESTARTS"),
        (2, "7m", "5m", "column AGE"),
    ]


def test_a_volatile_pin_and_a_measured_key_name_themselves():
    assert _spans(["NAME   SHARD", "web    7"], "NAME   SHARD\nweb    3\n", pins=Pins.of(volatile=["SHARD"])) == [
        (2, "3", "7", "@volatile SHARD")]
    assert _spans(["Restart Count:  0"], "Restart Count:  3\n") == [(1, "3", "0", "key Restart Count")]


def test_lines_are_numbered_as_the_output_printed_them():
    """Rollout progress lines are left out of the comparison, never out of the line numbers."""
    expected = ["deployment rolled out at 10:00:01"]
    actual = "Waiting for deployment \"web\" rollout to finish: 0 of 1 updated replicas are available...\n" \
             "deployment rolled out at 10:02:33\n"
    assert _spans(expected, actual) == [(2, "10:02:33", "10:00:01", "time")]


def test_tabs_are_expanded_as_reports_show_the_output():
    expected = ["NAME\tUPDATED                        \tSTATUS", "web\t2024-06-21 08:02:55 +0000 UTC\tdeployed"]
    actual = "NAME\tUPDATED                        \tSTATUS\nweb\t2024-07-01 10:11:12 +0000 UTC\tdeployed\n"
    assert _spans(expected, actual) == [
        (2, "2024-07-01 10:11:12 +0000 UTC", "2024-06-21 08:02:55 +0000 UTC", "column UPDATED")]


def test_at_most_so_many_values_are_reported_for_one_command():
    expected = [f"request {i} took {i % 50 + 1}ms" for i in range(MAX_FORGIVEN * 2)]
    actual = "\n".join(f"request {i} took {i % 50 + 2}ms" for i in range(MAX_FORGIVEN * 2)) + "\n"
    judged = judge_output(expected, actual)
    assert judged.mismatch is None and len(judged.forgiven) == MAX_FORGIVEN


def _step(lines: list[str], **modifiers) -> Step:
    return Step(Kind.COMMAND, SourceLoc("w.md", 3), "cmd", Visibility.SHOW,
                expected=Expectation(tuple(lines), SourceLoc("w.md", 4), 3 + len(lines)),
                modifiers=Modifiers(**modifiers))


def test_the_verdict_carries_what_was_forgiven_and_pins_reach_it():
    step = _step(["NAME    RESTARTS", "web-0   0"])
    verdict = verify_command(step, Outcome("NAME    RESTARTS\nweb-0   2 (1s ago)\n", 0, 0.1))
    assert verdict.status is Status.PASS and [f.rule for f in verdict.forgiven] == ["column RESTARTS"]
    pinned = verify_command(_step(["NAME    RESTARTS", "web-0   0"], literal=("RESTARTS",)),
                            Outcome("NAME    RESTARTS\nweb-0   2 (1s ago)\n", 0, 0.1))
    assert pinned.status is Status.FAIL and "web-0: RESTARTS expected 0, got 2 (1s ago)" in pinned.details


def test_a_passing_command_with_nothing_forgiven_shares_one_verdict():
    one = verify_command(_step(["same"]), Outcome("same\n", 0, 0.1))
    two = verify_command(_step(["same"]), Outcome("same\n", 0, 0.1))
    assert one is two and not one.forgiven
