"""Cleanup and kubeconfig isolation, with stand-in k3d, kind and kubectl (tests/fixtures/cluster/standin-*).

The stand-ins keep clusters as files, so each test can see what the runner
created, deleted and left alone, and whether ~/.kube/config was touched.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO

USER_KUBECONFIG = b"apiVersion: v1\nkind: Config\ncurrent-context: prod\ncontexts:\n- name: prod\n"


@pytest.mark.parametrize("command", ["run", "check"])
def test_a_cluster_the_workshop_creates_is_deleted_after_success(demorun, standins, command):
    result = demorun(command, standins.copy("creates.md"))
    assert result.exit_code == 0, result.output
    assert standins.clusters() == []
    assert "deleted k3d cluster demo-a in " in result.output


@pytest.mark.parametrize("command", ["run", "check"])
def test_a_cluster_is_deleted_after_a_failure(demorun, standins, command):
    result = demorun(command, standins.copy("fails.md"))
    assert result.exit_code == 1, result.output
    assert standins.clusters() == []
    assert "deleted k3d cluster demo-a" in result.output


def test_a_cluster_is_deleted_after_a_timeout(demorun, standins):
    result = demorun("check", standins.copy("times-out.md"))
    assert result.exit_code == 1 and "timed out" in result.output, result.output
    assert standins.clusters() == []


def test_a_cluster_that_existed_before_is_never_deleted(demorun, standins):
    standins.existing("k3d", "keep-me")
    result = demorun("run", standins.copy("existing.md"))
    assert result.exit_code == 0, result.output
    assert standins.clusters() == ["keep-me"]  # recreated by the workshop, still not the runner's to delete
    assert "deleted k3d cluster demo-a" in result.output and "keep-me" not in result.output


def test_a_cluster_found_only_by_listing_is_deleted(demorun, standins):
    result = demorun("run", standins.copy("unnamed.md"))
    assert result.exit_code == 0, result.output
    assert standins.clusters() == [] and "deleted k3d cluster demo-42" in result.output


def test_kind_clusters_named_by_config_and_by_default_are_deleted(demorun, standins):
    standins.existing("kind", "older")
    result = demorun("run", standins.copy("kind.md"))
    assert result.exit_code == 0, result.output
    assert standins.clusters("kind") == ["older"]
    assert "deleted kind clusters from-config, kind" in result.output


def test_keep_clusters_keeps_them_and_says_how_to_delete_them(demorun, standins):
    result = demorun("run", "--keep-clusters", standins.copy("creates.md"))
    assert result.exit_code == 0, result.output
    assert standins.clusters() == ["demo-a"]
    assert "delete with: k3d cluster delete demo-a" in result.output
    kubeconfig = result.output.split("export KUBECONFIG=")[1].split()[0]
    assert "k3d-demo-a" in Path(kubeconfig).read_text()  # the kept cluster stays reachable
    Path(kubeconfig).unlink()
    Path(kubeconfig).parent.rmdir()


def test_the_users_kubeconfig_is_byte_identical_after_a_run(demorun, standins):
    user = standins.home / ".kube" / "config"
    user.write_bytes(USER_KUBECONFIG)
    result = demorun("run", standins.copy("creates.md"))
    assert result.exit_code == 0, result.output
    assert user.read_bytes() == USER_KUBECONFIG
    # The test can fail: without isolation the stand-in k3d writes its context there.
    result = demorun("run", "--no-isolate", standins.copy("creates.md"))
    assert result.exit_code == 0, result.output
    assert b"k3d-demo-a" in user.read_bytes()


def test_a_seed_kubeconfig_is_read_and_never_written(demorun, standins, tmp_path, workshop):
    seed = tmp_path / "seed-config"
    seed.write_bytes(USER_KUBECONFIG.replace(b"current-context: prod", b"current-context: staging"))
    before = seed.read_bytes()
    file = workshop("""
        ```bash
        kubectl config current-context
        ## staging
        k3d cluster create demo-a
        kubectl config current-context
        ## k3d-demo-a
        ```
    """, name="seeded.md")
    result = demorun("check", "--kubeconfig", str(seed), file)
    assert result.exit_code == 0, result.output
    assert seed.read_bytes() == before and standins.clusters() == []


def test_no_isolated_folder_is_left_behind(demorun, standins, monkeypatch, tmp_path):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    assert demorun("check", standins.copy("creates.md")).exit_code == 0
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_workshop_that_never_mentions_a_cluster_tool_never_lists_clusters(demorun, standins, workshop):
    assert demorun("check", workshop("```bash\necho hi\n## hi\n```\n")).exit_code == 0
    assert not (standins.state / "calls").exists()


@pytest.mark.parametrize("sig, times", [(signal.SIGINT, 2), (signal.SIGTERM, 1), (signal.SIGHUP, 1)],
                         ids=["ctrl-c-twice", "sigterm", "sighup"])
def test_a_cluster_is_deleted_when_the_run_is_stopped_by_a_signal(standins, sig, times):
    process = subprocess.Popen([sys.executable, "-m", "runner", "run", standins.copy("waits.md")],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)  # as a terminal would: signals go to its group
    try:
        deadline = time.monotonic() + 20
        while not (standins.state / "waiting").exists():
            assert time.monotonic() < deadline and process.poll() is None, "the workshop never got going"
            time.sleep(0.05)
        assert standins.clusters() == ["demo-a"]
        for _ in range(times):
            os.killpg(process.pid, sig)
            time.sleep(0.2)
        output, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode != 0
    assert standins.clusters() == [], output
    assert "deleted k3d cluster demo-a" in output


def test_parallel_check_deletes_named_clusters_in_workers_and_the_rest_at_the_end(standins):
    standins.existing("k3d", "keep-me")
    # A real process: workers write to the real stderr, which CliRunner does not capture.
    done = subprocess.run([sys.executable, "-m", "runner", "check", "-j", "2", standins.copy("creates.md"),
                           standins.copy("unnamed.md")], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert standins.clusters() == ["keep-me"]
    assert "deleting k3d cluster demo-a created by " in done.stderr  # named by its command: its worker
    assert "deleting k3d cluster demo-42 created by this check" in done.stderr  # after every worker ended


def test_a_config_on_stdin_is_not_read_by_the_runner_and_its_cluster_is_still_found(standins):
    # A real process whose stdin never ends, like a terminal nobody types into: reading it would hang.
    read_end, write_end = os.pipe()
    try:
        done = subprocess.run([sys.executable, "-m", "runner", "run", standins.copy("stdin-config.md")],
                              cwd=REPO, stdin=read_end, capture_output=True, text=True, timeout=30)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert done.returncode == 0, done.stderr
    assert standins.clusters() == [] and "deleting k3d cluster from-stdin" in done.stderr


def _run_until_cleanup_starts(standins) -> subprocess.Popen:
    """`demorun run` of a failing cluster workshop, returned once it has begun deleting its cluster."""
    process = subprocess.Popen([sys.executable, "-m", "runner", "run", standins.copy("fails.md")],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    deadline = time.monotonic() + 20
    while not (standins.state / "deleting").exists():
        if time.monotonic() > deadline or process.poll() is not None:
            os.killpg(process.pid, signal.SIGKILL)
            raise AssertionError("cleanup never started")
        time.sleep(0.05)
    return process


def test_a_signal_during_cleanup_waits_for_the_deletion_to_finish(standins, monkeypatch):
    monkeypatch.setenv("STANDIN_DELETE_DELAY", "1.5")
    process = _run_until_cleanup_starts(standins)
    try:
        os.killpg(process.pid, signal.SIGTERM)
        output, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert standins.clusters() == [], output
    assert "still cleaning up clusters" in output and "deleted k3d cluster demo-a" in output
    assert process.returncode != 0  # and the run still ends as the signal asked


def _guard_env(**options) -> dict[str, str]:
    from runner.cluster.guard import ClusterGuard, ClusterOptions
    from runner.model import Plan

    config_env = options.pop("config_env", {})
    with ClusterGuard(Plan("w.md", ()), ClusterOptions(cleanup=False, **options), config_env=config_env,
                      announce=print) as guard:
        return dict(guard.env)


def test_present_isolates_only_when_asked(tmp_path):
    assert _guard_env(isolate=False) == {}
    isolated = _guard_env(isolate=True)["KUBECONFIG"]
    assert isolated.endswith("/config") and not Path(isolated).parent.exists()  # gone with the run


def test_a_configured_kubeconfig_wins_and_no_isolate_uses_the_given_one(tmp_path):
    assert _guard_env(config_env={"KUBECONFIG": "/project/kubeconfig"}) == {}
    seed = tmp_path / "seed"
    seed.write_text("x")
    assert _guard_env(isolate=False, kubeconfig=str(seed)) == {"KUBECONFIG": str(seed)}


def test_run_quiet_v_streams_the_setup_nobody_would_see(demorun, workshop):
    file = workshop("```bash\necho from-hidden-setup\n```\n")
    result = demorun("run", "--quiet", "-v", file)
    assert result.exit_code == 0 and "\nfrom-hidden-setup\n" in result.output, result.output
    assert "from-hidden-setup" not in demorun("run", "--quiet", file).output


def test_a_second_signal_during_cleanup_stops_it_and_says_what_is_left(standins, monkeypatch):
    monkeypatch.setenv("STANDIN_DELETE_DELAY", "20")
    process = _run_until_cleanup_starts(standins)
    try:
        started = time.monotonic()
        for _ in range(2):
            os.killpg(process.pid, signal.SIGTERM)
            time.sleep(0.3)
        output, _ = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
    assert time.monotonic() - started < 10  # not the 20 s the deletion would take
    assert process.returncode == 143, output
    assert "what is left can be deleted with: k3d cluster delete demo-a" in output
