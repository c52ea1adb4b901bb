"""Tables: header detection, cells by column, rows as an unordered set, messages."""
from __future__ import annotations

import pytest

from runner.verify.compare import compare_output
from runner.verify.tables import Table, Text, cells, segments
from runner.verify.values import VerifyOptions

HEADER = "NAME                      READY   STATUS    RESTARTS   AGE"
ROW = "web-1   1/1   Running   0   5m   x   y   z   w"  # a row under any of the headers below


@pytest.mark.parametrize("line", [
    HEADER,
    "NAME          DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR            AGE",
    "CONTAINER ID   IMAGE   COMMAND   CREATED   STATUS   PORTS   NAMES",
    "NAME   CPU(cores)   MEMORY(bytes)",
    "NAME    MESHED   SUCCESS   RPS   LATENCY_P50   LATENCY_P99",
])
def test_headers(line):
    assert isinstance(segments([line, ROW])[0], Table)


@pytest.mark.parametrize("line", [
    "NAME",  # one title
    "NAME READY STATUS",  # single spaces: one title
    "Name   Ready",  # not capitals
    "2/2   3/3",  # no letters
    "LAST DEPLOYED: Thu Nov 17 16:06:24 2022",
    "ERROR  connection refused",
])
def test_not_headers(line):
    assert not any(isinstance(part, Table) for part in segments([line, ROW]))


def test_segments_cut_tables_at_blank_lines():
    parts = segments(["intro", "NAME   READY", "a      1/1", "", "NAME   STATUS", "b      Ok", "", "outro"])
    assert [type(p) for p in parts] == [Text, Table, Text, Table, Text]
    assert parts[1].titles == ("NAME", "READY") and parts[1].rows == ("a      1/1",)
    assert parts[3].starts == (0, 7)


def test_cells_split_on_two_spaces_and_keep_single_spaces():
    assert cells("web-0   1/1   Running   3 (29s ago)   5m", (0, 8, 14, 24, 38)) == (
        "web-0", "1/1", "Running", "3 (29s ago)", "5m")


def test_empty_cells_are_placed_by_header_columns():
    header = "CONTAINER ID   IMAGE     PORTS          NAMES"
    starts = tuple(header.index(t) for t in ("CONTAINER ID", "IMAGE", "PORTS", "NAMES"))
    assert cells("9a8b7c6d5e4f   redis:7                  cache", starts) == ("9a8b7c6d5e4f", "redis:7", "", "cache")
    assert cells("9a8b7c6d5e4f   redis:7", starts) == ("9a8b7c6d5e4f", "redis:7", "", "")


def test_padding_never_matters():
    expected = [HEADER, "metrics-6b9c4d8f57-wr2lp   1/1     Running   0          47s"]
    actual = "NAME  READY  STATUS  RESTARTS  AGE\nmetrics-6b9c4d8f57-wr2lp  1/1  Running  0  5m6s\n"
    assert compare_output(expected, actual) is None


def test_row_count_matters_even_for_identical_rows():
    expected = ["NAME   STATUS", "a      Ok", "a      Ok"]
    mismatch = compare_output(expected, "NAME   STATUS\na      Ok\n")
    assert mismatch is not None and mismatch.details == ("missing row a",)


def test_restarts_need_the_same_shape():
    expected = ["NAME    RESTARTS", "web-0   0"]
    assert compare_output(expected, "NAME    RESTARTS\nweb-0   3 (29s ago)\n") is None
    mismatch = compare_output(expected, "NAME    RESTARTS\nweb-0   <unknown>\n")
    assert mismatch is not None
    assert mismatch.details == ("web-0: RESTARTS expected 0, got <unknown>",)


def test_volatile_columns_from_configuration():
    expected = ["NAME     SCHEDULE    SHARD", "backup   0 * * * *   7 of 12"]
    actual = "NAME     SCHEDULE    SHARD\nbackup   0 * * * *   3 of 12\n"
    assert compare_output(expected, actual) is not None
    assert compare_output(expected, actual, options=VerifyOptions(volatile_columns=("SHARD",))) is None


def test_the_time_since_a_cron_job_last_ran_is_a_measurement_its_schedule_a_setting():
    expected = ["NAME     SCHEDULE      LAST SCHEDULE", "backup   */5 * * * *   Tue 10:00"]
    assert compare_output(expected, "NAME     SCHEDULE      LAST SCHEDULE\nbackup   */5 * * * *   Wed 11:00\n") is None
    mismatch = compare_output(expected, "NAME     SCHEDULE      LAST SCHEDULE\nbackup   */9 * * * *   Tue 10:00\n")
    assert mismatch is not None and mismatch.details == ("backup: SCHEDULE expected */5 * * * *, got */9 * * * *",)


def test_masks_from_configuration_apply_in_cells():
    expected = ["NAME    BUILD", "app     build-1042"]
    actual = "NAME    BUILD\napp     build-1187\n"
    assert compare_output(expected, actual) is not None
    assert compare_output(expected, actual, options=VerifyOptions(masks=(("build", r"build-\d+"),))) is None


def test_long_reports_are_cut():
    rows = [f"app-{i}   Running" for i in range(80)]
    failed = [r.replace("Running", "Failed") for r in rows]
    mismatch = compare_output(["NAME     STATUS", *rows], "\n".join(["NAME     STATUS", *failed]))
    assert mismatch is not None and mismatch.summary == "80 rows differ"
    assert len(mismatch.details) == 51 and mismatch.details[-1] == "... and 30 more"


def test_a_table_as_large_as_ten_thousand_rows_matches_shuffled():
    rows = [f"app-{i}-68cc8bc689-j4ph2   1/1   Running   0   {i % 50}s" for i in range(10_000)]
    moved = [f"app-{i}-7f9c4d5b8-x2kqz   1/1   Running   0   {i % 7}m" for i in range(10_000)]
    actual = "\n".join(["NAME   READY   STATUS   RESTARTS   AGE", *moved[1::2], *moved[::2]])
    assert compare_output(["NAME   READY   STATUS   RESTARTS   AGE", *rows], actual) is None
    broken = actual.replace("app-77-7f9c4d5b8-x2kqz   1/1   Running", "app-77-7f9c4d5b8-x2kqz   0/1   Running")
    mismatch = compare_output(["NAME   READY   STATUS   RESTARTS   AGE", *rows], broken)
    assert mismatch is not None and mismatch.details == ("app-77-*: READY expected 1/1, got 0/1",)


def test_tab_joined_rows_split_on_tabs_and_keep_trailing_empty_cells():
    assert cells("podinfo\tdefault  \t1       \t2024-06-21 08:02:55 +0000 UTC\tfailed", (0, 8, 16, 24, 64, 72)) == (
        "podinfo", "default", "1", "2024-06-21 08:02:55 +0000 UTC", "failed", "")


def test_a_single_space_where_a_column_starts_parts_two_cells():
    starts = (0, 8, 48)
    assert cells("web     2024-03-05 10:14:07.503412345 +0000 UTC deployed", starts) == (
        "web", "2024-03-05 10:14:07.503412345 +0000 UTC", "deployed")


def test_tab_headers_are_tables_even_with_one_space_gaps():
    parts = segments(["NAME\tUPDATED                         \tSTATUS", "web\t2024-06-21 08:02:55 +0000 UTC\tdeployed"])
    assert isinstance(parts[0], Table) and parts[0].titles == ("NAME", "UPDATED", "STATUS")


def test_describe_tables_have_mixed_case_titles_over_a_rule():
    parts = segments(["Events:", "  Type    Reason     Age   From     Message",
                      "  ----    ------     ----  ----     -------", "  Normal  Pulled     3s    kubelet  ok"])
    assert [type(p) for p in parts] == [Text, Table]
    assert parts[1].titles == ("Type", "Reason", "Age", "From", "Message") and parts[1].events
    assert parts[1].rows == ("  Normal  Pulled     3s    kubelet  ok",)


def test_mixed_case_titles_without_a_rule_head_a_table_when_every_row_starts_its_cells_under_them():
    parts = segments(["Source      Destination   Count   Success Rate", "10.42.0.1   web           12      100.00%",
                      "10.42.0.2   web           3       100.00%", "done"])
    assert [type(p) for p in parts] == [Table, Text]
    assert parts[0].titles == ("Source", "Destination", "Count", "Success Rate") and len(parts[0].rows) == 2
    assert parts[1].lines == ("done",) and parts[1].first == 3


@pytest.mark.parametrize("lines", [
    ["Name   Ready", "web  yes"],  # a cell starts under no title
    ["Name   Ready", "web"],  # no row with two cells: a line under a line
    ["Name  ready", "web   yes"],  # a title in lower case
])
def test_mixed_case_lines_whose_rows_do_not_line_up_are_text(lines):
    assert all(isinstance(p, Text) for p in segments(lines))


def test_rows_split_together_only_when_each_row_has_its_own_cells():
    """One row with a cell too many and one with a cell too few must not trade cells."""
    from runner.verify.roles import Role
    from runner.verify.rows import _key, row_keys
    from runner.verify.volatile import Canon

    starts, kinds = (0, 8, 15), ((Role.PLAIN,),) * 3
    rows = ["web-1   1/1   Running  extra", "web-2   1/1", "web-3   0/1   Pending"] * 30  # enough to be read by column
    canon = Canon(())
    assert row_keys(rows, starts, canon, kinds) == [_key(cells(r, starts), canon, kinds) for r in rows]
