"""Requirements read from the plan: lint suggests @requires, `check --requires-auto` preflights the tools called."""
from __future__ import annotations

import pytest

from runner.cluster.names import called_tools

OLD = """# Written before @requires

```bash
kubectl get pods -n shop
## No resources found in shop namespace.
x=$(helm list -q)
```
"""


@pytest.mark.parametrize("command, tools", [
    ("kubectl get pods", ["kubectl"]),
    ("out=$(kubectl get ns) && echo $out", ["kubectl"]),
    ("sudo -E docker ps; watch -n 1 linkerd check", ["docker", "linkerd"]),
    ("K=1 timeout 30 helm install x y", ["helm"]),
    ("if kind get clusters; then k3d cluster list; fi", ["kind", "k3d"]),
    ("echo kubectl is not called here; cat kubectl.yaml", []),
    ("/usr/local/bin/k3d version", ["k3d"]),
])
def test_called_tools(command, tools):
    assert called_tools(command) == tools


def test_lint_suggests_requires_for_the_cluster_tools_a_workshop_calls(demorun, workshop):
    file = workshop(OLD)
    result = demorun("lint", file)
    assert result.exit_code == 0, result.output  # a warning: the file still runs
    assert (f"{file}:4: warning: calls kubectl, helm without @requires; add '@requires kubectl helm'"
            in result.output), result.output
    declared = workshop("<!-- @requires kubectl -->\n" + OLD, "declared.md")
    result = demorun("lint", declared)
    assert "calls helm without @requires; add '@requires helm'" in result.output
    both = workshop("<!-- @requires kubectl helm -->\n" + OLD, "both.md")
    assert "undeclared-tools" not in demorun("lint", both).output


def test_lint_names_the_import_line_for_a_call_in_an_imported_file(demorun, workshop):
    workshop("kubectl get nodes\n", "helpers.sh")
    file = workshop("# Uses a helper\n\n<!-- @import helpers.sh -->\n", "uses.md")
    assert f"{file}:3: warning: calls kubectl without @requires" in demorun("lint", file).output


def test_requires_auto_skips_old_workshops_on_a_machine_without_the_tools(demorun, workshop, tmp_path, monkeypatch):
    files = [workshop(OLD, "a.md"), workshop(OLD.replace("kubectl get pods -n shop", "k3d version"), "b.md")]
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    plain = demorun("check", *files)
    assert plain.exit_code == 1, plain.output  # each call fails: "command not found"
    auto = demorun("check", "--requires-auto", *files)
    assert auto.exit_code == 3, auto.output  # every file skipped, nothing run
    assert f"skipped: missing tools kubectl, helm (called at {files[0]}:4; --requires-auto)" in auto.output
    assert "missing tools k3d, helm; the docker engine is down" in auto.output  # k3d needs one too
    assert "0 failed, 0 passed, 4 skipped" in auto.output


def test_requires_auto_asks_the_container_engine_for_k3d(demorun, workshop, standins):
    (standins.state / "engine-down").touch()
    file = workshop("```bash\nk3d cluster list\n```\n")
    checked = demorun("check", "--requires-auto", file)
    assert checked.exit_code == 3, checked.output
    assert "the docker engine is down (`docker info` said: Cannot connect" in checked.output
    assert f"(called at {file}:2; --requires-auto)" in checked.output
    assert not (standins.state / "calls").exists()  # k3d was never run
