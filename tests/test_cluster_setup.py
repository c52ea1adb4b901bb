"""`@needs SETUP.md`: one setup per check for the workshops that need it, cleaned up once after them.

With the stand-in k3d and kubectl (tests/fixtures/cluster/standin-*): the setup creates
the cluster `shared`, the dependants read its context from the kubeconfig they start
from, and every step appends to the stand-ins' call log, so the order is on record.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import REPO

SETUP = """# Makes the cluster the other workshops use

```bash
echo "setup ran" >> "$STANDIN_STATE/calls"
k3d cluster create shared
```
"""
FAILING_SETUP = SETUP.replace("k3d cluster create shared", "k3d cluster create shared\nfalse")
DEPENDANT = """# {tag}

<!-- @needs CREATE.md -->

```bash
echo "{tag} ran" >> "$STANDIN_STATE/calls"
kubectl config current-context
## k3d-shared
{then}
```
"""


@pytest.fixture
def folder(tmp_path, standins) -> Path:
    """A folder in the demosh pattern: CREATE.md and two workshops that need it, plus one that does not."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "CREATE.md").write_text(SETUP)
    for tag in ("one", "two"):
        (ws / f"{tag}.md").write_text(DEPENDANT.format(tag=tag, then=""))
    (ws / "plain.md").write_text("```bash\necho plain\n## plain\n```\n")
    return ws


def _calls(standins) -> list[str]:
    return (standins.state / "calls").read_text().splitlines()


def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runner", "check", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_setup_runs_once_before_its_dependants_and_is_cleaned_up_once_after(folder, standins, jobs):
    done = _check("-j", jobs, str(folder))
    assert done.returncode == 0, done.stdout + done.stderr
    calls = _calls(standins)
    assert calls.count("setup ran") == 1 and calls.count("k3d cluster create shared") == 1
    deleted = [i for i, call in enumerate(calls) if call.startswith("k3d cluster delete")]
    assert [calls[i] for i in deleted] == ["k3d cluster delete shared"]  # once
    assert calls.index("setup ran") < calls.index("one ran") < deleted[0]
    assert calls.index("two ran") < deleted[0]
    assert standins.clusters() == []
    assert len(re.findall(r"^PASS .*CREATE\.md", done.stdout, re.M)) == 2  # progress line and table row, once each


def test_a_dependant_named_alone_brings_its_setup(folder, standins):
    done = _check(str(folder / "two.md"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert _calls(standins).count("setup ran") == 1
    assert re.search(r"^PASS .*ws/CREATE\.md", done.stdout, re.M)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_failing_setup_skips_its_dependants_with_the_reason(folder, standins, jobs, tmp_path):
    (folder / "CREATE.md").write_text(FAILING_SETUP)
    junit = tmp_path / "junit.xml"
    done = _check("-j", jobs, "--junit", str(junit), str(folder))
    assert done.returncode == 1, done.stdout + done.stderr
    calls = _calls(standins)
    assert "one ran" not in calls and "two ran" not in calls
    assert calls.count("k3d cluster delete shared") == 1 and standins.clusters() == []
    reason = f"its setup {folder}/CREATE.md failed: {folder}/CREATE.md:6: exit status 1, expected 0"
    for tag in ("one", "two"):
        assert f"SKIP {folder}/{tag}.md  0 passed, 0 failed, 2 skipped  (0.0s)  skipped: {reason}" in done.stdout
    assert re.search(r"^PASS .*plain\.md", done.stdout, re.M)  # a file that needs nothing still runs
    skipped = [case.find("skipped") for case in ET.parse(junit).getroot().iter("testcase")
               if "one.md" in (case.get("classname") or "") + (case.get("file") or "")]
    assert skipped and all(s is not None and reason in (s.get("message") or "") for s in skipped)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_stop_during_a_dependant_still_cleans_up_once(folder, standins, jobs, tmp_path):
    (folder / "one.md").write_text(DEPENDANT.format(tag="one", then='touch "$STANDIN_STATE/waiting"; sleep 30'))
    junit = tmp_path / "junit.xml"
    process = subprocess.Popen([sys.executable, "-m", "runner", "check", "-j", jobs, "--junit", str(junit),
                                str(folder / "one.md"), str(folder / "two.md")], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while not (standins.state / "waiting").exists():
            assert time.monotonic() < deadline and process.poll() is None, "the dependant never got going"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 143, output
    calls = _calls(standins)
    assert calls.count("k3d cluster delete shared") == 1 and standins.clusters() == [], output
    assert "two ran" not in calls
    cases = {(Path(c.get("file") or c.get("classname") or "").name, c.get("line")): c
             for c in ET.parse(junit).getroot().iter("testcase")}
    stopped = [c for (name, _), c in cases.items() if name == "one.md" and c.find("failure") is not None]
    assert stopped and "terminated (SIGTERM)" in stopped[0].find("failure").get("message")
    assert "not run: terminated (SIGTERM)" in output  # two.md, which never started


def test_the_dependants_share_the_setups_kubeconfig_not_the_users(folder, standins, tmp_path):
    user = standins.home / ".kube" / "config"
    user.write_text("current-context: mine\n")
    (tmp_path / "tmp").mkdir()
    done = subprocess.run([sys.executable, "-m", "runner", "check", str(folder)], cwd=REPO, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "TMPDIR": str(tmp_path / "tmp")})
    assert done.returncode == 0, done.stdout + done.stderr  # each dependant's context was k3d-shared
    assert user.read_text() == "current-context: mine\n"
    assert list((tmp_path / "tmp").iterdir()) == []  # the setup's kubeconfig went with its cleanup


def test_a_setup_that_needs_another_is_an_error_that_says_so(tmp_path, standins):
    (tmp_path / "base.md").write_text("```bash\ntrue\n```\n")
    (tmp_path / "CREATE.md").write_text("<!-- @needs base.md -->\n```bash\ntrue\n```\n")
    (tmp_path / "one.md").write_text("<!-- @needs CREATE.md -->\n```bash\ntrue\n```\n")
    done = _check(str(tmp_path / "one.md"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "a setup cannot need another" in done.stdout


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_setup_that_creates_no_cluster_still_lets_its_dependants_run(tmp_path, standins, jobs):
    (tmp_path / "CREATE.md").write_text("```bash\necho ready > ready.txt\n```\n")
    (tmp_path / "one.md").write_text("<!-- @needs CREATE.md -->\n```bash\ncat ready.txt\n## ready\n```\n")
    done = _check("-j", jobs, str(tmp_path / "one.md"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_missing_setup_skips_its_dependant_and_is_an_error(tmp_path, standins):
    (tmp_path / "one.md").write_text("<!-- @needs nowhere.md -->\n```bash\ntrue\n```\n")
    done = _check(str(tmp_path / "one.md"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"ERROR {tmp_path}/nowhere.md  not checked: no such file" in done.stdout
    assert f"skipped: its setup {tmp_path}/nowhere.md could not be checked: no such file" in done.stdout
