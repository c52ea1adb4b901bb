"""The model of docs/matching.md, class by class: what names a value decides if it is a setting or a measurement."""
from __future__ import annotations

import pytest

from runner.verify.compare import compare_output
from runner.verify.keys import keyed_values, pinnable_names
from runner.verify.roles import Pins, Role, column_roles, name_role


@pytest.mark.parametrize("name, role", [
    ("cpu", Role.SETTING), ("memory", Role.SETTING), ("CPU Requests", Role.SETTING), ("Limits", Role.SETTING),
    ("targetCPUUtilizationPercentage", Role.SETTING), ("weight", Role.SETTING), ("replicas", Role.SETTING),
    ("maxReplicas", Role.SETTING), ("timeoutSeconds", Role.SETTING), ("SCHEDULE", Role.SETTING),
    ("CPU(cores)", Role.MEASURED), ("MEMORY(bytes)", Role.MEASURED), ("CPU%", Role.MEASURED),
    ("currentCPUUtilizationPercentage", Role.MEASURED), ("LAST SCHEDULE", Role.MEASURED), ("AGE", Role.MEASURED),
    ("RESTARTS", Role.MEASURED), ("Restart Count", Role.MEASURED), ("Start Time", Role.MEASURED),
    ("LATENCY_P99", Role.MEASURED), ("Success Rate", Role.MEASURED), ("NET I/O", Role.MEASURED),
    ("x-envoy-upstream-service-time", Role.MEASURED),
    ("id", Role.IDENTIFIER), ("x-request-id", Role.IDENTIFIER), ("Image ID", Role.IDENTIFIER),
    ("Resource Version", Role.IDENTIFIER), ("K3S_TOKEN", Role.IDENTIFIER),
    ("STATUS", Role.PLAIN), ("Last State", Role.PLAIN), ("UP-TO-DATE", Role.PLAIN), ("PORT(S)", Role.PLAIN),
    ("APP VERSION", Role.PLAIN), ("resourceVersion", Role.IDENTIFIER), ("NAME", Role.PLAIN),
])
def test_a_name_is_read_from_its_head_noun(name, role):
    assert name_role(name) is role


def test_an_autoscaler_target_is_a_measured_use_over_a_setting():
    assert column_roles("TARGETS") == (Role.MEASURED, Role.SETTING)
    assert column_roles("MEM USAGE / LIMIT") == (Role.MEASURED, Role.SETTING)


def test_pins_come_before_the_words_and_the_project_columns_after_them():
    pins = Pins.of(literal=["restarts"], volatile=["Replicas"])
    assert column_roles("RESTARTS", pins) == (Role.LITERAL,)
    assert column_roles("REPLICAS", pins) == (Role.MEASURED,)
    assert column_roles("SHARD", volatile_columns=frozenset({"SHARD"})) == (Role.MEASURED,)


# Units read with their context: a quantity under a setting's key is literal, under a measurement's forgiven.
@pytest.mark.parametrize("expected, actual, same", [
    ("    cpu:     500m", "    cpu:     250m", False),
    ("    memory:  128Mi", "    memory:  256Mi", False),
    ("weight: 900m", "weight: 100m", False),
    ("replicas: 3", "replicas: 2", False),
    ("  Limits:\n    cpu:  1k", "  Limits:\n    cpu:  2k", False),
    ("timeout 30s", "timeout 60s", False),
    ('{"resources": {"limits": {"cpu": "500m"}}}', '{"resources": {"limits": {"cpu": "750m"}}}', False),
    ("took 30s", "took 2m", True),
    ("up for 500m", "up for 12m", True),  # no key: read by its shape, a duration
    ("Restart Count:  0", "Restart Count:  3", True),
    ('{"restartCount": 0}', '{"restartCount": 4}', True),
    ("NAME    CPU(cores)   MEMORY(bytes)\nweb-0   500m         128Mi",
     "NAME    CPU(cores)   MEMORY(bytes)\nweb-0   3m           1.2Gi", True),
    ("NAME    CPU Requests   CPU Limits\nweb-0   250m (12%)     500m (25%)",
     "NAME    CPU Requests   CPU Limits\nweb-0   100m (5%)      500m (25%)", False),
    ("NAME   TARGETS     REPLICAS\nweb    250m/500m   1", "NAME   TARGETS     REPLICAS\nweb    100m/500m   1", True),
    ("NAME   TARGETS     REPLICAS\nweb    250m/500m   1", "NAME   TARGETS     REPLICAS\nweb    250m/200m   1", False),
    ("NAME   TARGETS         REPLICAS\nweb    cpu: 45%/50%    1",
     "NAME   TARGETS         REPLICAS\nweb    cpu: 45%/50%    3", False),
])
def test_units_are_read_in_their_context(expected, actual, same):
    assert (compare_output(expected.split("\n"), actual + "\n") is None) is same


# Things that vary and are now known, each beside a near miss that must still fail.
@pytest.mark.parametrize("expected, actual, same", [
    ("0.0.0.0:32768->80/tcp, :::32768->80/tcp", "0.0.0.0:49153->80/tcp, :::49153->80/tcp", True),
    ("tcp6  0  0 :::32768  :::*  LISTEN", "tcp6  0  0 :::41234  :::*  LISTEN", True),
    ("Listening on [::]:32768", "Listening on [::]:40001", True),
    ("Listening on [::]:80", "Listening on [::]:8080", False),
    (":::80->80/tcp", ":::81->80/tcp", False),
    ("req id=3:0 proxy=in", "req id=7:2 proxy=in", True),
    ("req id=3:0 proxy=in", "req id=7:2 proxy=out", False),
    ("* Connected to example.com (93.184.216.34) port 443 (#0)",
     "* Connected to example.com (93.184.215.14) port 443 (#3)", True),
    ("[HTTP/2] [1] OPENED stream for https://example.com/", "[HTTP/2] [3] OPENED stream for https://example.com/",
     True),
    ("at 2023-01-01 10:00:00.123 +0000 UTC m=+3827.270451", "at 2023-02-01 11:00:00.456 +0000 UTC m=+12.003", True),
    ("m=+3827.27 tries=3", "m=+12.5 tries=4", False),
    ("Start Time: 1700000000", "Start Time: 1700003600", True),
    ("now 1700000000", "now 1712345678", True),
    ("memory: 1700000000", "memory: 1712345678", False),
    ("NAME: release-1612624192", "NAME: release-1612629999", True),
    ("job backup-28391520 done", "job backup-28391525 done", True),
    ("NAME: release-1612624192", "NAME: review-1612629999", False),
    ("00000000: 4865 6c6c 6f0a                           Hello.",
     "00000000: 776f 726c 640a                           world.", True),
    ("    0000 - 2f 5d 8e 1c 3a 44 55 66-77 88 99 aa bb cc dd ee   /]..:DUfw.......",
     "    0000 - 01 02 03 04 05 06 07 08-09 0a 0b 0c 0d 0e 0f 10   ................", True),
    ("00000000: 4865 6c6c 6f0a                           Hello.",
     "00000010: 776f 726c 640a                           world.", False),
    # A unit after a space: one time, or several with one unit (ping's summary); a setting's stays literal.
    ("round-trip min/avg/max = 0.085/0.087/0.090 ms", "round-trip min/avg/max = 0.075/0.077/0.080 ms", True),
    ("rtt min/avg/max/mdev = 0.045/0.052/0.060/0.007 ms", "rtt min/avg/max/mdev = 0.051/0.063/0.081/0.012 ms", True),
    ("2 packets transmitted, 2 packets received, 0% packet loss",
     "2 packets transmitted, 0 packets received, 100% packet loss", False),
    ("webpack 5.4.0 compiled successfully in 1934 ms", "webpack 5.4.0 compiled successfully in 1940 ms", True),
    ("webpack 5.4.0 compiled successfully in 1934 ms", "webpack 5.4.1 compiled successfully in 1934 ms", False),
    ("1 failed, 1 passed in 0.04 seconds", "1 failed, 1 passed in 0.12 seconds", True),
    ("1 failed, 1 passed in 0.04 seconds", "2 failed in 0.12 seconds", False),
    ("timeout 500 ms", "timeout 250 ms", False),
    # Pods of clusters before Kubernetes 1.8: a decimal template hash, a suffix of any letters and digits.
    ("my-nginx-3800858182-jr4a2   1/1   Running", "my-nginx-3800858182-e9ihh   1/1   Running", True),
    ("my-nginx-3800858182-jr4a2   1/1   Running", "my-api-3800858182-e9ihh   1/1   Running", False),
    ("my-nginx-3800858182-jr4a2   1/1   Running", "my-nginx-3800858182-e9ihh   0/1   Running", False),
])
def test_what_varies_between_runs(expected, actual, same):
    assert (compare_output([expected], actual + "\n") is None) is same


def _top(rows: list[tuple[str, ...]]) -> str:
    header = ("Source", "Destination", "Method", "Path", "Count", "Best", "Worst", "Last", "Success Rate")
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header, *rows])


def test_a_table_with_mixed_case_titles_and_no_rule_is_a_set_of_rows_with_measured_counters():
    expected = _top([("10.42.0.1", "web-7f9c4d5b8-x2kqz", "GET", "/api", "12", "1ms", "2ms", "1ms", "100.00%"),
                     ("10.42.0.2", "web-7f9c4d5b8-x2kqz", "GET", "/", "3", "1ms", "2ms", "1ms", "100.00%")])
    reordered = _top([("10.42.0.9", "web-5d6c7b8f9-bcdfg", "GET", "/", "30", "1ms", "3ms", "2ms", "99.12%"),
                      ("10.42.0.7", "web-5d6c7b8f9-bcdfg", "GET", "/api", "140", "2ms", "9ms", "1ms", "100.00%")])
    assert compare_output(expected.split("\n"), reordered + "\n") is None
    other_method = _top([("10.42.0.9", "web-5d6c7b8f9-bcdfg", "GET", "/", "30", "1ms", "3ms", "2ms", "99.12%"),
                         ("10.42.0.7", "web-5d6c7b8f9-bcdfg", "POST", "/api", "140", "2ms", "9ms", "1ms", "100.00%")])
    mismatch = compare_output(expected.split("\n"), other_method + "\n")
    assert mismatch is not None and "Method expected GET, got POST" in " ".join(mismatch.details)


def test_keys_are_found_at_line_start_inline_as_flags_and_before_numbers():
    line = "Liveness:  http-get http://:8080/ delay=0s timeout=1s period=10s #success=1 took 3s --wait 60s"
    found = [(line[k.start:k.end], k.key, k.role) for k in keyed_values(line)]
    assert found == [("0s", "delay", Role.SETTING), ("1s", "timeout", Role.SETTING), ("10s", "period", Role.SETTING),
                     ("3s", "took", Role.MEASURED), ("60s", "wait", Role.SETTING)]
    assert [(k.key, k.role) for k in keyed_values("  Start Time:   Mon, 01 Jan 2024 10:00:00 +0000")] == \
        [("Start Time", Role.MEASURED)]


def test_what_can_be_pinned_is_what_the_block_names():
    names = pinnable_names(["NAME    RESTARTS   AGE", "web-0   0          5m", "", "Start Time:  1700000000",
                            "took 3s"])
    assert {"name", "restarts", "age", "start time", "took"} <= names and "web-0" not in names


@pytest.mark.parametrize("pins, same", [
    (Pins(), True),
    (Pins.of(literal=["RESTARTS"]), False),
    (Pins.of(literal=["restarts"]), False),
    (Pins.of(literal=["AGE"]), False),
    (Pins.of(literal=["generated-name"]), False),
    (Pins.of(volatile=["STATUS"]), True),
])
def test_pins_make_a_column_or_a_rule_literal_or_volatile(pins, same):
    expected = ["NAME                   READY   STATUS    RESTARTS   AGE",
                "web-68cc8bc689-j4ph2   1/1     Running   0          5m"]
    actual = ("NAME                  READY   STATUS    RESTARTS     AGE\n"
              "web-7f9c4d5b8-x2kqz   1/1     Running   1 (3s ago)   5m\n")
    if pins.literal == {"age"}:
        actual = actual.replace("5m\n", "7m\n").replace("1 (3s ago)", "0         ")
    assert (compare_output(expected, actual, pins=pins) is None) is same


def test_a_volatile_pin_forgives_a_status_column_and_a_key():
    assert compare_output(["NAME   STATUS", "web    Running"], "NAME   STATUS\nweb    Pending\n",
                          pins=Pins.of(volatile=["status"])) is not None  # words stay, as in any measurement
    assert compare_output(["shard: 7"], "shard: 3\n") is not None
    assert compare_output(["shard: 7"], "shard: 3\n", pins=Pins.of(volatile=["shard"])) is None


def test_a_literal_pin_turns_off_a_project_mask_by_its_name():
    from runner.verify.values import VerifyOptions

    options = VerifyOptions(masks=(("build", r"build-\d+"),))
    assert compare_output(["got build-1"], "got build-22\n", options=options) is None
    pinned = Pins.of(literal=["build"])
    assert compare_output(["got build-1"], "got build-22\n", options=options, pins=pinned) is not None


def test_rollout_progress_of_older_kubectl_comes_or_not_but_the_result_stays():
    expected = ["Waiting for rollout to finish: 2 of 3 updated replicas are available...",
                'deployment "nginx-deployment" successfully rolled out']
    assert compare_output(expected, 'deployment "nginx-deployment" successfully rolled out\n') is None
    failed = compare_output(expected, 'Waiting for rollout to finish: 2 out of 3 new replicas have been updated...\n'
                                      'error: deployment "nginx" exceeded its progress deadline\n')
    assert failed is not None and "-deployment \"nginx-deployment\" successfully rolled out" in failed.details


def test_a_changed_row_of_a_table_with_more_rows_allowed_is_named_by_its_cells():
    expected = ["NAME                   CHART VERSION   APP VERSION", "stable/nginx-ingress   0.31.0          0.20.0",
                "..."]
    actual = ("NAME                   CHART VERSION   APP VERSION\nstable/nginx-ingress   1.30.3          0.20.0\n"
              "stable/nginx-lego      0.3.1\n")
    mismatch = compare_output(expected, actual)
    assert mismatch is not None and mismatch.summary == "1 row differs"
    assert mismatch.details == ("stable/nginx-ingress: CHART VERSION expected 0.31.0, got 1.30.3",)
    assert compare_output(expected, actual.replace("1.30.3", "0.31.0")) is None
