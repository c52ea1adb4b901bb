"""`check -j` and `--shard` with workshops that create clusters: never two of one name at once.

The stand-in k3d (tests/fixtures/cluster/standin-k3d, first on PATH as `k3d`) refuses a
name that exists, as the real one does, so two files creating one name at the same time
make the second fail. Each workshop writes when it started and ended, to measure overlap.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from runner.cluster.planned import planned_clusters
from runner.cluster.schedule import clash, groups
from runner.discover import shard
from runner.model import Kind, Plan, SourceLoc, Step, Visibility
from runner.modes.units import lay_out

# Start and end marks around the file's work, and a cluster held for a second so a collision would show.
TIMED = """
```bash
date +%s.%N > "$STANDIN_STATE/{tag}.start"
k3d cluster create {name}
{between}
date +%s.%N > "$STANDIN_STATE/{tag}.end"
```
"""


def _check(*args: str) -> subprocess.CompletedProcess:
    # A real process: workers write to the real stderr, which CliRunner does not capture.
    return subprocess.run([sys.executable, "-m", "runner", "check", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


def _interval(state: Path, tag: str) -> tuple[float, float]:
    return float((state / f"{tag}.start").read_text()), float((state / f"{tag}.end").read_text())


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    return min(a[1], b[1]) - max(a[0], b[0])


def test_two_files_creating_one_name_pass_under_j2_one_after_the_other(standins, workshop):
    files = [workshop(TIMED.format(tag=tag, name="demo", between="sleep 1"), f"{tag}.md") for tag in "ab"]
    done = _check("-j", "2", "-v", *files)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "already exists" not in done.stdout + done.stderr
    assert _overlap(_interval(standins.state, "a"), _interval(standins.state, "b")) < 0
    # Said in -v when it happens, and in the summary.
    assert f"demorun: {files[1]} waits for {files[0]}: both create k3d cluster demo" in done.stderr
    assert "not run at the same time" in done.stdout
    assert f"{files[0]}, {files[1]}: one at a time, each creates k3d cluster demo" in done.stdout
    assert standins.clusters() == []


def test_files_creating_different_names_run_at_the_same_time(standins, workshop):
    # Each waits (up to 30 s) for the other to have started: run one after the other, the first fails.
    meet = ('touch "$STANDIN_STATE/{tag}.here"; for i in $(seq 300); do [ -e "$STANDIN_STATE/{other}.here" ] '
            '&& break; sleep 0.1; done; test -e "$STANDIN_STATE/{other}.here"')
    files = [workshop(TIMED.format(tag=tag, name=f"demo-{tag}", between=meet.format(tag=tag, other=other)),
                      f"{tag}.md") for tag, other in (("a", "b"), ("b", "a"))]
    done = _check("-j", "2", *files)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _overlap(_interval(standins.state, "a"), _interval(standins.state, "b")) > 0
    assert "not run at the same time" not in done.stdout


def test_a_name_that_cannot_be_read_runs_alone_among_cluster_files(standins, workshop):
    unread = workshop(TIMED.format(tag="u", name='"$(echo demo-u)"', between="sleep 1"), "u.md")
    named = workshop(TIMED.format(tag="n", name="demo-n", between="sleep 1"), "n.md")
    plain = workshop('```bash\ndate +%s.%N > "$STANDIN_STATE/p.start"; sleep 1\n'
                     'date +%s.%N > "$STANDIN_STATE/p.end"\n```\n', "p.md")
    done = _check("-j", "3", unread, named, plain)
    assert done.returncode == 0, done.stdout + done.stderr
    state = standins.state
    assert _overlap(_interval(state, "u"), _interval(state, "n")) < 0
    assert _overlap(_interval(state, "u"), _interval(state, "p")) > 0  # a file that creates none goes alongside
    assert f"{unread}: alone among the files that create clusters, since the name at {unread}:3" in done.stdout


def _plan(*commands: str, file: str = "/w/x.md") -> Plan:
    return Plan(file, tuple(Step(Kind.COMMAND, SourceLoc(file, i + 1), text, Visibility.SHOW)
                            for i, text in enumerate(commands)))


@pytest.mark.parametrize("commands, env, names, unreadable", [
    (["k3d cluster create demo"], {}, {"demo"}, 0),
    (["CLUSTER=demo", 'k3d cluster create "$CLUSTER"'], {}, {"demo"}, 0),
    (["export CLUSTER=demo; k3d cluster create ${CLUSTER}-x"], {}, {"demo-x"}, 0),
    (["k3d cluster create $CLUSTER"], {"CLUSTER": "from-env"}, {"from-env"}, 0),
    (["k3d cluster create $CLUSTER"], {}, set(), 1),  # unset: k3d would get no name, or an empty one
    (["CLUSTER=${CLUSTER:-dflt}", "k3d cluster create $CLUSTER"], {}, {"dflt"}, 0),
    (["CLUSTER=${CLUSTER:-dflt}", "k3d cluster create $CLUSTER"], {"CLUSTER": "env"}, {"env"}, 0),
    (["CLUSTERS='east west'", "for c in $CLUSTERS; do\n  k3d cluster create \"$c\"\ndone"], {}, {"east", "west"}, 0),
    (["CLUSTER=a", "k3d cluster create $CLUSTER", "CLUSTER=b", "k3d cluster create $CLUSTER"], {}, {"a", "b"}, 0),
    (["CLUSTER=a", "if test -n x; then CLUSTER=b; fi", "k3d cluster create $CLUSTER"], {}, {"a", "b"}, 0),
    (["read -r CLUSTER", "k3d cluster create $CLUSTER"], {"CLUSTER": "stale"}, set(), 1),
    (['k3d cluster create "$(hostname)"'], {}, set(), 1),
    (["k3d cluster create"], {}, {"k3s-default"}, 0),
    (["kind create cluster"], {}, {"kind"}, 0),
    (["kind create cluster"], {"KIND_CLUSTER_NAME": "k"}, {"k"}, 0),
    (["k3d cluster create --config /dev/stdin <<'EOF'\nmetadata:\n  name: from-heredoc\nEOF"], {}, {"from-heredoc"}, 0),
    (["k3d cluster create --config missing.yaml"], {}, set(), 1),
    (["cd \"$(mktemp -d)\"", "k3d cluster create -c here.yaml"], {}, set(), 1),
])
def test_names_read_from_the_plan(commands, env, names, unreadable):
    claims = planned_clusters(_plan(*commands), env)
    assert {name for _, name in claims.names} == names
    assert len(claims.unreadable) == unreadable


def test_a_config_beside_the_workshop_names_its_cluster(tmp_path):
    (tmp_path / "k3d.yaml").write_text("apiVersion: k3d.io/v1alpha5\nkind: Simple\nmetadata:\n  name: cfg\n")
    plan = _plan("k3d cluster create --config k3d.yaml", file=str(tmp_path / "w.md"))
    assert planned_clusters(plan, {}).names == {("k3d", "cfg")}


def test_skipped_sections_create_nothing():
    plan = Plan("w.md", (Step(Kind.COMMAND, SourceLoc("w.md", 1), "k3d cluster create $(x)", Visibility.SKIP),))
    assert not planned_clusters(plan, {}).creates


def test_reading_a_long_plan_takes_linear_time():
    import time

    def cost(n: int) -> float:
        plan = _plan(*[f"CLUSTER=c{i}\nk3d cluster create $CLUSTER --wait" for i in range(n)])
        started = time.perf_counter()
        assert len(planned_clusters(plan, {}).names) == n
        return time.perf_counter() - started

    cost(200)  # warm up
    assert cost(8000) < 12 * cost(2000)  # four times the plan, well under sixteen times the time


def _layout_files(workshop) -> list[str]:
    """Eight files: three share `one`, two share `two` through a variable, one reads no name, two create none."""
    texts = {"a": "k3d cluster create one", "b": "kind create cluster --name solo",
             "c": "CLUSTER=one\nk3d cluster create $CLUSTER", "d": "echo none", "e": "k3d cluster create two",
             "f": "k3d cluster create one --wait", "g": "k3d cluster create two", "h": "echo none"}
    return [workshop(f"```bash\n{text}\n```\n", f"{tag}.md") for tag, text in texts.items()]


def test_shards_keep_files_that_share_a_name_together_for_every_n(workshop):
    files = _layout_files(workshop)
    layout = lay_out(files, no_init=True)
    share = {"one": {files[0], files[2], files[5]}, "two": {files[4], files[6]}}
    for n in range(1, 10):
        parts = [set(layout.shard(k, n).files) for k in range(1, n + 1)]
        assert sorted(f for part in parts for f in part) == sorted(files)  # each file exactly once
        for together in share.values():
            assert sum(1 for part in parts if part & together) == 1, (n, parts)
        # Stable: the same split whatever order the files were given in.
        reversed_layout = lay_out(files[::-1], no_init=True)
        assert [set(reversed_layout.shard(k, n).files) for k in range(1, n + 1)] == parts


def test_shard_on_the_command_line_keeps_the_group(workshop):
    files = _layout_files(workshop)
    seen: dict[int, list[str]] = {}
    for k in (1, 2, 3):
        done = _check("--shard", f"{k}/3", "--requires", "no-such-tool", *files)  # skips: nothing runs
        assert done.returncode == 3, done.stdout + done.stderr
        seen[k] = re.findall(r"^SKIP (\S+)", done.stdout, re.M)
    assert sorted(f for part in seen.values() for f in part) == sorted(files)
    assert [k for k, part in seen.items() if files[0] in part] == [k for k, part in seen.items() if files[5] in part]


def test_clashes_and_groups_with_unreadable_names():
    from runner.cluster.planned import ClusterClaims, Unreadable

    k3d_a, kind_a = ClusterClaims(frozenset({("k3d", "a")})), ClusterClaims(frozenset({("kind", "a")}))
    none = ClusterClaims()
    unread = ClusterClaims(unreadable=(Unreadable(SourceLoc("u.md", 3), "k3d cluster create $(x)"),))
    assert clash(k3d_a, kind_a) is None  # k3d's a is not kind's a
    assert clash(k3d_a, ClusterClaims(frozenset({("k3d", "a"), ("k3d", "b")}))) == "both create k3d cluster a"
    assert clash(k3d_a, unread) and clash(unread, kind_a) and clash(unread, unread)
    assert clash(unread, none) is None and clash(none, k3d_a) is None
    assert groups([k3d_a, none, unread, kind_a]) == [[0, 2, 3], [1]]
    assert groups([k3d_a, none, kind_a, k3d_a]) == [[0, 3], [1], [2]]


def test_grouping_many_files_takes_linear_time():
    import time

    from runner.cluster.planned import ClusterClaims, Unreadable

    unread = (Unreadable(SourceLoc("u.md", 3), "k3d cluster create $(x)"),)

    def cost(n: int) -> float:
        claims = [ClusterClaims(frozenset({("k3d", f"c{i}"), ("k3d", f"c{i + 1}")})) for i in range(n)]
        claims += [ClusterClaims(unreadable=unread)] * n
        started = time.perf_counter()
        assert len(groups(claims)) == 1
        return time.perf_counter() - started

    cost(1000)
    assert cost(40000) < 12 * cost(10000)


def test_the_plain_split_is_round_robin_and_survives_a_huge_n():
    files = [f"/w/{i:02}.md" for i in range(7)]
    assert shard(files, 2, 3) == ["/w/01.md", "/w/04.md"]
    assert shard(files, 1, 999_999_999) == ["/w/00.md"]
    assert shard(files, 999_999_999, 999_999_999) == []
    assert os.path.abspath(files[0]) == files[0]
