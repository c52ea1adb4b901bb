"""A success rate may rise or stay between runs, never fall; the rest of the row compares as before."""
from __future__ import annotations

import pytest

from runner.verify.compare import compare_output

STAT = """NAME          MESHED   SUCCESS      RPS   LATENCY_P50   LATENCY_P95   LATENCY_P99   TCP_CONN
bad              1/1    {bad}   4.7rps           1ms           1ms           4ms          2
good             1/1   100.00%   5.9rps           1ms           1ms           1ms          3"""

INBOUND = """NAME    SERVER          ROUTE      TYPE  SUCCESS   RPS  LATENCY_P50  LATENCY_P95  LATENCY_P99
webapp  [default]:7000  probe            100.00%  0.30          2ms          2ms          2ms
webapp  [default]:7000  [default]         {rate}  8.22         18ms         65ms         93ms"""


@pytest.mark.parametrize("table, field, before, after, ok", [
    (STAT, "bad", "75.00%", "75.00%", True),
    (STAT, "bad", "75.00%", "80.10%", True),
    (STAT, "bad", "75.00%", "74.99%", False),
    (INBOUND, "rate", "75.66%", "91.30%", True),
    (INBOUND, "rate", "75.66%", "51.20%", False),
])
def test_a_success_rate_may_rise_never_fall(table, field, before, after, ok):
    found = compare_output(table.format(**{field: before}).split("\n"), table.format(**{field: after}))
    assert (found is None) is ok, found
    if not ok:
        assert any(f"SUCCESS fell from {before} to {after}" in d for d in found.details)


def test_rows_with_the_same_key_pass_when_some_pairing_lets_every_rate_hold():
    head = "NAME   SUCCESS   RPS"
    expected = [head, "web    90.00%    1.0rps", "web    50.00%    1.0rps"]
    assert compare_output(expected, f"{head}\nweb    60.00%    1.0rps\nweb    95.00%    1.0rps") is None
    assert compare_output(expected, f"{head}\nweb    40.00%    1.0rps\nweb    95.00%    1.0rps") is not None


def test_a_rate_without_data_is_not_ordered():
    head = "NAME   SUCCESS   RPS"
    assert compare_output([head, "web    -         -"], f"{head}\nweb    -         -") is None
