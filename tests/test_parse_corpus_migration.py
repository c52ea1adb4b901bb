"""Files written for demosh, from the corpus: they run without a refusal, and lint helps migrate them.

The run uses stand-ins, not the real tools: scripts from tests/fixtures/parse/standins
installed as `kubectl`, `k3d`, `helm`... in a temporary bin folder first on PATH, which
log their arguments and succeed. So nothing reaches a cluster or the network, and
what is checked is that demorun reads and runs every file to its end. The files run in a
copy of the corpus: a workshop writes into its own folder (certificates, manifests), and
the corpus is only ever read.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import CORPUS, REPO

from runner.discover import find_workshops
from runner.modes.lint import lint_findings

STANDIN = Path(__file__).parent / "fixtures" / "parse" / "standins" / "standin.sh"
# Tools the corpus calls, plus `sleep`, `watch` and `curl`, whose real versions would wait
# or reach the network.
STANDIN_NAMES = ("kubectl", "k3d", "kind", "helm", "linkerd", "linkerd-buoyant", "step", "vault",
                 "docker", "bat", "dig", "curl", "watch", "sleep")
FILES = [f for f, _ in find_workshops([str(CORPUS)], scripts=True)] if CORPUS.is_dir() else []


@pytest.fixture(scope="module")
def standins(tmp_path_factory) -> Path:
    """A bin folder where each stand-in is installed under a real tool's name."""
    folder = tmp_path_factory.mktemp("standin-bin")
    for name in STANDIN_NAMES:
        shutil.copy(STANDIN, folder / name)
        (folder / name).chmod(0o755)
    return folder


def _run(file: str, bin_folder: Path, home: Path) -> str | None:
    """Why `demorun run --keep-going` refused the file, or None when it ran to its end."""
    env = {**os.environ, "PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}", "HOME": str(home),
           "STANDIN_LOG": str(home / "calls.log")}
    done = subprocess.run([sys.executable, "-m", "runner", "run", "--keep-going", "--quiet", "--no-init",
                           "--timeout", "2s", file], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=600, check=False)
    said = done.stdout + done.stderr
    refused = done.returncode in (2, 3)  # 2: refused to parse, 3: refused for a missing tool
    if refused or "nothing was run" in said or "Traceback" in said:
        return f"{file}: exit {done.returncode}\n{said}"
    return None


@pytest.mark.slow
@pytest.mark.skipif(not FILES, reason=f"corpus not found at {CORPUS}")
def test_every_corpus_file_runs_to_its_end_with_stand_in_tools(standins, tmp_path):
    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS, copy)
    for path in [copy, *copy.rglob("*")]:  # the corpus is read-only; its copy is the workshops' to write in
        path.chmod(path.stat().st_mode | 0o200)
    files = [str(copy / os.path.relpath(f, CORPUS)) for f in FILES]
    homes = [tmp_path / f"home{i}" for i in range(len(files))]
    for home in homes:
        home.mkdir()
    # Most of the time goes to loops waiting for a cluster that stand-ins never start.
    with ThreadPoolExecutor(max_workers=4) as pool:
        problems = [p for p in pool.map(_run, files, [standins] * len(files), homes) if p]
    assert not problems, "\n\n".join(problems)
    assert sum((home / "calls.log").exists() for home in homes) > len(files) // 2  # the stand-ins ran


def test_lint_reports_what_demosh_read_differently_where_it_occurs(corpus):
    findings, _ = lint_findings([str(corpus)], no_init=True)
    found = {(os.path.relpath(f.loc.file, corpus), f.code) for f in findings}
    for where, code in [("sma/mtls-workshop/README.md", "commentary-as-output"),
                        ("sma/dynamic-routing-and-circuit-breaking/setup-demo.sh", "commentary-as-output"),
                        ("sma/deploying-bel-with-hazl/README.md", "output-in-fence"),
                        ("sma/deploying-bel-with-hazl/README.md", "no-show")]:
        assert (where, code) in found, (where, code)
    for finding in findings:
        if finding.code in ("commentary-as-output", "output-in-fence", "no-show", "pasted-prompt"):
            line = Path(finding.loc.file).read_text().splitlines()[finding.loc.line - 1].strip()
            assert repr(line[:40]) [:-1] in finding.message, finding  # the line's own text
    # Lint's errors for these files are warnings when running: nothing in the corpus is refused.
    stray = [f for f in findings if f.code == "directive-outside-comment"]
    assert stray and all(f.severity.value == "error" for f in stray)
