"""Metrics expositions: a sample's number is a measurement; its name, labels and the HELP/TYPE lines stay."""
from __future__ import annotations

import pytest

from runner.verify.compare import compare_output
from runner.verify.roles import Pins

PROM = """# HELP http_requests_total Requests served.
# TYPE http_requests_total counter
http_requests_total{code="200",route="books"} 5548
http_requests_total{code="500",route="books"} 3 1700000000
process_cpu_seconds_total 12.5
request_duration_seconds_bucket{le="0.5"} 1.5e+03
outbound_route_total{
  route_name="books-create",
  error=""
} 5548"""

ENVOY = """cluster.base_h2.upstream_rq_200: 62
cluster.base_h2.upstream_rq_active: 1
server.live.state: 1"""


def _changed(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize("text, old, new", [
    (PROM, "} 5548\n", "} 6012\n"),
    (PROM, "} 3 1700000000", "} 17 1700000999"),
    (PROM, "total 12.5", "total 40.25"),
    (PROM, "} 5548", "} 0"),
    (ENVOY, "rq_200: 62", "rq_200: 118"),
    (ENVOY, "active: 1", "active: 0"),
])
def test_numbers_of_samples_may_change(text, old, new):
    assert compare_output(text.split("\n"), _changed(text, old, new)) is None


@pytest.mark.parametrize("text, old, new", [
    (PROM, 'code="500"', 'code="503"'),  # a label value
    (PROM, 'route="books"} 5548', 'route="authors"} 5548'),
    (PROM, "http_requests_total{code=\"200\"", "http_requests_failed{code=\"200\""),  # a name
    (PROM, "# TYPE http_requests_total counter", "# TYPE http_requests_total gauge"),
    (PROM, 'route_name="books-create"', 'route_name="books-delete"'),  # a label on its own line
    (ENVOY, "upstream_rq_200: 62", "upstream_rq_503: 62"),
    (ENVOY, "rq_200: 62", "rq_200: 62 (stale)"),
])
def test_names_labels_and_types_must_match(text, old, new):
    assert compare_output(text.split("\n"), _changed(text, old, new)) is not None


def test_a_pinned_metric_compares_as_written():
    text = "jobs_total 3"
    assert compare_output([text], "jobs_total 4") is None
    assert compare_output([text], "jobs_total 4", pins=Pins.of(["jobs_total"], [])) is not None


@pytest.mark.parametrize("line, other", [
    ("exit_code 1", "exit_code 2"),  # a word before a number is no sample without a metric's suffix
    ("replicas: 1", "replicas: 2"),
    ("config.yaml: 1", "config.yaml: 2"),  # one dot is a file name, not an envoy stat
])
def test_lines_that_only_look_like_samples_stay_exact(line, other):
    assert compare_output([line], other) is not None


DIG = """;; ANSWER SECTION:
root.cz.\t\t600\tIN\tA\t91.213.160.188
example.com. 300 IN MX 10 mail.example.com.
. 518400 IN NS a.root-servers.net."""

HYPERFINE = """Benchmark 1: ./old
  Time (mean ± σ):     410.3 ms ±  19.9 ms    [User: 173.7 ms, System: 1314.5 ms]
  Range (min … max):   389.7 ms … 452.1 ms    187 runs

Summary
  './new' ran
    1.02 ± 0.06 times faster than './old'"""


@pytest.mark.parametrize("text, old, new", [
    (DIG, "\t600\t", "\t598\t"),
    (DIG, " 300 IN MX", " 12 IN MX"),
    (DIG, " 518400 IN", " 518399 IN"),
    (HYPERFINE, "187 runs", "179 runs"),
    (HYPERFINE, "1.02 ± 0.06", "1.10 ± 0.1"),
])
def test_ttls_run_counts_and_ratios_may_change(text, old, new):
    assert compare_output(text.split("\n"), _changed(text, old, new)) is None


@pytest.mark.parametrize("text, old, new", [
    (DIG, "\tIN\tA\t", "\tIN\tAAAA\t"),  # the record's type
    (DIG, "MX 10 mail", "MX 20 mail"),  # a preference is data, not a TTL
    (DIG, "root.cz.", "root.sk."),
    (DIG, "91.213.160.188", "91.213.160.189"),  # the address is the answer
    (HYPERFINE, "times faster than", "times slower than"),
    (HYPERFINE, "'./new' ran", "'./old' ran"),
    (HYPERFINE, "187 runs", "187 runs (outliers)"),
])
def test_the_words_around_them_must_match(text, old, new):
    assert compare_output(text.split("\n"), _changed(text, old, new)) is not None
