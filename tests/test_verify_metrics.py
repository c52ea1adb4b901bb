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
