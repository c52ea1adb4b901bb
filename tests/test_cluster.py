"""Cluster workshops: preflight before anything runs, and the bundled demos against a real cluster."""
from __future__ import annotations

import os
import shutil

import pytest
from conftest import REPO

from runner.cluster import preflight

K3D_DEMOS = [str(REPO / "demos" / name) for name in ("k3d-cluster.md", "startup/README.md",
                                                      "network-policies/README.md")]
CLUSTER_TOOLS = ("k3d", "kubectl", "docker", "linkerd")
STARTUP = str(REPO / "demos" / "startup" / "README.md")


def _engine_answers() -> bool:
    return all(shutil.which(t) for t in CLUSTER_TOOLS) and preflight.engine_problem(["k3d"], os.environ)[1] is None


@pytest.mark.cluster
@pytest.mark.slow
@pytest.mark.parametrize("demo", K3D_DEMOS, ids=lambda path: path.split("demos/")[1])
def test_k3d_workshops_pass_against_a_real_cluster(demorun, demo):
    if not _engine_answers():
        pytest.skip("needs k3d, kubectl, linkerd and docker on PATH, and a running Docker engine")
    result = demorun("check", "--timeout", "10m", demo)
    assert result.exit_code == 0, result.output


def test_preflight_names_every_missing_tool_before_running_anything(demorun, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty PATH: none of the cluster tools
    ran = demorun("run", STARTUP)
    assert ran.exit_code == 3
    for tool in ("k3d", "kubectl", "docker", "linkerd"):
        assert f"  - {tool}: not on PATH (@requires at {STARTUP}:" in ran.output
    assert "https://k3d.io" in ran.output  # and how to get it
    assert "$ " not in ran.output  # no command was shown, let alone run
    checked = demorun("check", STARTUP)
    assert checked.exit_code == 3 and "skipped: missing tools" in checked.output


def test_a_docker_client_whose_engine_is_down_stops_the_run(demorun, standins):
    (standins.state / "engine-down").touch()
    ran = demorun("run", STARTUP, "--requires", "helm")
    assert ran.exit_code == 3
    assert "the docker engine is down: `docker info` said: Cannot connect to the Docker daemon" in ran.output
    assert "linkerd: not on PATH (@requires at" in ran.output  # one message lists everything
    assert "helm: not on PATH (--requires); install it: https://helm.sh" in ran.output
    assert not (standins.state / "calls").exists()  # k3d was never asked anything


def test_an_engine_that_never_answers_is_down_after_a_few_seconds(demorun, standins, monkeypatch, workshop):
    (standins.state / "engine-hangs").touch()
    monkeypatch.setattr(preflight, "ENGINE_TIMEOUT", 0.5)
    ran = demorun("run", workshop("<!-- @requires kind -->\n```bash\necho hi\n```\n"))
    assert ran.exit_code == 3 and "gave no answer within 0.5s" in ran.output, ran.output


def test_without_a_docker_client_k3d_asks_the_engine_socket(standins, tmp_path):
    (standins.bin / "docker").unlink()
    problem = preflight.engine_problem(["k3d"], {"PATH": str(standins.bin),
                                                 "DOCKER_HOST": f"unix://{tmp_path}/none.sock"})[1]
    assert problem and f"nothing answers at {tmp_path}/none.sock" in problem


def test_check_skips_the_file_with_the_reason_and_strict_fails_it(demorun, standins):
    (standins.state / "engine-down").touch()
    checked = demorun("check", str(REPO / "demos" / "k3d-cluster.md"))
    assert checked.exit_code == 3
    assert "skipped: the docker engine is down (`docker info` said: Cannot connect" in checked.output
    assert demorun("check", "--strict", str(REPO / "demos" / "k3d-cluster.md")).exit_code == 1


def test_requires_on_the_command_line_adds_tools(demorun, workshop, tmp_path):
    file = workshop("```bash\necho hi\n## hi\n```\n")
    assert demorun("check", file).exit_code == 0
    checked = demorun("check", "--requires", "no-such-tool-here,also-missing", file)
    assert checked.exit_code == 3
    assert "missing tools no-such-tool-here, also-missing (--requires)" in checked.output


def test_a_running_engine_lets_the_run_start(demorun, standins, workshop):
    ran = demorun("run", workshop("<!-- @requires k3d kubectl docker -->\n```bash\necho ran\n```\n"))
    assert ran.exit_code == 0 and "ran" in ran.output, ran.output


def test_kind_told_to_use_podman_needs_podman(standins):
    problem = preflight.engine_problem(["kind"], {"PATH": str(standins.bin), "KIND_EXPERIMENTAL_PROVIDER": "podman"})
    assert problem == ("podman", "`podman` is not on PATH (install Podman: https://podman.io/docs/installation)")
