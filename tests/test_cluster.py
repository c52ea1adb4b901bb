"""The k3d workshop against a real cluster, and its preflight where the tools are missing."""
from __future__ import annotations

import shutil

import pytest
from conftest import REPO

K3D_DEMO = str(REPO / "demos" / "k3d-cluster.md")
CLUSTER_TOOLS = ("k3d", "kubectl", "docker")


@pytest.mark.cluster
@pytest.mark.slow
@pytest.mark.skipif(not all(shutil.which(t) for t in CLUSTER_TOOLS),
                    reason="needs k3d, kubectl and docker on PATH (and a running Docker engine)")
def test_k3d_workshop_passes_against_a_real_cluster(demorun):
    result = demorun("check", "--timeout", "10m", K3D_DEMO)
    assert result.exit_code == 0, result.output


def test_preflight_names_the_missing_tools_when_path_lacks_them(demorun, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty PATH: none of the cluster tools
    checked = demorun("check", K3D_DEMO)
    assert checked.exit_code == 3
    assert "k3d" in checked.output and "@requires" in checked.output
    ran = demorun("run", K3D_DEMO)
    assert ran.exit_code == 3 and "k3d" in ran.output
