"""The real-k3d workflow in .github/workflows: valid for GitHub, the one docs/ci.md shows, and what it checks exists.

Validation runs check-jsonschema with its built-in copy of the GitHub workflow schema, so it
needs no network; a broken copy must fail it, or the test would prove nothing.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.y*ml"))
CLUSTER_DEMOS = REPO / ".github" / "workflows" / "cluster-demos.yml"


def _validate(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           str(path)], capture_output=True, text=True, timeout=120)


def test_there_is_a_workflow_to_validate():
    assert CLUSTER_DEMOS in WORKFLOWS


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda path: path.name)
def test_every_workflow_is_valid_for_github(workflow):
    done = _validate(workflow)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("breakage", [("runs-on:", "runs_on:"), ("    steps:\n", "    stages:\n"),
                                      ("shard: [1, 2, 3]", "shard: 3\n        include: nope")],
                         ids=["misspelt key", "no steps", "bad matrix"])
def test_a_broken_copy_fails_the_validation(tmp_path, breakage):
    text = CLUSTER_DEMOS.read_text()
    assert breakage[0] in text
    broken = tmp_path / "broken.yml"
    broken.write_text(text.replace(breakage[0], breakage[1], 1))
    assert _validate(broken).returncode != 0


def test_docs_ci_shows_the_workflow_byte_for_byte():
    doc = (REPO / "docs" / "ci.md").read_text()
    shown = doc.split("<!-- the file .github/workflows/cluster-demos.yml -->\n```yaml\n", 1)[1].split("\n```\n", 1)[0]
    assert shown + "\n" == CLUSTER_DEMOS.read_text()


def test_the_workflow_checks_the_cluster_demos_in_shards_and_keeps_the_reports():
    text = CLUSTER_DEMOS.read_text()
    command = re.search(r"demorun check .*?(?=\n      - )", text, re.S).group(0)
    for demo in ("demos/startup", "demos/network-policies", "demos/k3d-cluster.md"):
        assert demo in command and (REPO / demo).exists()
    assert "--shard ${{ matrix.shard }}/3" in command and "shard: [1, 2, 3]" in text
    assert "--junit reports/junit.xml" in command and "--html reports/report.html" in command
    assert "actions/upload-artifact" in text and "path: reports/" in text
    for tool in ("k3d", "kubectl", "linkerd"):
        assert re.search(rf"install.*{tool}|{tool}.*install", text, re.I), tool
    assert "pip install .\n" in text
