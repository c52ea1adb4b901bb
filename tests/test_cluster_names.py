"""Which clusters a command creates, read from its text (runner/cluster/names.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from runner.cluster.names import config_name, created_clusters

CASES = Path(__file__).resolve().parent / "fixtures" / "cluster" / "create-commands.txt"
VARIABLES = {"$CLUSTER": "from-var", "${CLUSTER}-two": "from-var-two", "${KIND_CLUSTER_NAME:-kind}": "kind"}
FILES = {"/dev/stdin": "metadata:\n  name: from-stdin\n",
         "k3d.yaml": "apiVersion: k3d.io/v1alpha5\nkind: Simple\nmetadata:\n  name: from-k3d-config\nservers: 1\n",
         "kind.yaml": "kind: Cluster\n# name: commented-out\nname: from-kind-config\n"}


def _cases() -> list[tuple[str, set[tuple[str, str]]]]:
    cases, lines = [], []
    for line in CASES.read_text().splitlines():
        if line.startswith("=>"):
            pairs = {tuple(pair.split(":", 1)) for pair in line[2:].split()}
            cases.append(("\n".join(lines), pairs))
            lines = []
        elif lines or not line.startswith("# "):
            lines.append(line)
    return cases


@pytest.mark.parametrize("command, expected", _cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_created_clusters(command, expected):
    assert created_clusters(command, lambda word: VARIABLES.get(word, ""), FILES.get) == expected


@pytest.mark.parametrize("text, name", [
    ("metadata:\n  labels:\n    name: not-this\n  name: this-one\n", "this-one"),
    ("name: 'quoted'  # and a comment\n", "quoted"),
    ("kind: Cluster\nnodes:\n  - role: control-plane\n    name: a-node\n", None),
    ("", None),
])
def test_config_name(text, name):
    assert config_name(text) == name
