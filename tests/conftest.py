"""Shared fixtures: writing workshops and invoking the command line."""
from __future__ import annotations

import os
import signal
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import settings

from runner.cli import main
from runner.model import Expectation, Kind, SourceLoc, Step, Visibility

# Property tests: no per-example time limit (a loaded machine is not a failure), and the same
# examples on every run of the default suite, so its verdict is the code's and not the draw's.
# `make test-all` draws new examples each run (HYPOTHESIS_PROFILE=explore) to look further.
settings.register_profile("default", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("explore", deadline=None, derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"


@pytest.fixture
def corpus() -> Path:
    """The real workshop corpus beside the repository; skipped where it is absent."""
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    return CORPUS


class Blocked(Exception):
    """Not an OSError, which the code under test may catch."""


@pytest.fixture
def no_hang():
    """Opening a FIFO waits for its other end forever: a test that would block fails after 30 s."""
    def expired(signum, frame):
        raise Blocked("blocked for 30 s: something opened a FIFO or a device it should not have")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def workshop(tmp_path):
    """Write a workshop file (dedented) and return its path as a string."""

    def write(text: str, name: str = "workshop.md") -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return str(path)

    return write


@pytest.fixture
def demorun(monkeypatch):
    """Invoke `demorun ARGS...` in-process; returns click's Result (exit_code, output)."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")

    def invoke(*args: str, env: dict | None = None):
        return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)

    return invoke


def command_step(file: str, line: int, text: str, expected: tuple[str, ...] = ()) -> Step:
    """A one-line COMMAND step as the parser makes it, its `##` block (if any) right under it."""
    block = Expectation(expected, SourceLoc(file, line + 1), line + len(expected)) if expected else None
    return Step(Kind.COMMAND, SourceLoc(file, line), text, Visibility.SHOW, end_line=line, expected=block)


STANDINS = Path(__file__).resolve().parent / "fixtures" / "cluster"


@pytest.fixture
def standins(tmp_path, monkeypatch):
    """Stand-in k3d, kind, kubectl and docker (tests/fixtures/cluster/standin-*) first on PATH.

    They keep their clusters as files in a temporary state folder, and HOME is
    a temporary folder holding a ~/.kube/config, so nothing real is touched.
    """
    from types import SimpleNamespace

    from runner.cluster import preflight

    bin_dir, state, home = tmp_path / "standin-bin", tmp_path / "standin-state", tmp_path / "home"
    for folder in (bin_dir, state, home / ".kube"):
        folder.mkdir(parents=True)
    for tool in ("k3d", "kind", "kubectl", "docker"):
        (bin_dir / tool).symlink_to(STANDINS / f"standin-{tool}")
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("STANDIN_STATE", str(state))
    monkeypatch.setenv("HOME", str(home))
    for name in ("KUBECONFIG", "DOCKER_HOST", "DOCKER_CONTEXT", "KIND_CLUSTER_NAME"):
        monkeypatch.delenv(name, raising=False)
    preflight._ask_engine.cache_clear()  # the engine's answer is kept per process; each test has its own

    def clusters(tool: str = "k3d") -> list[str]:
        return sorted(p.name for p in (state / tool).glob("*"))

    def existing(tool: str, *names: str) -> None:
        (state / tool).mkdir(exist_ok=True)
        for name in names:
            (state / tool / name).touch()

    def copy(name: str) -> str:
        """A fixture workshop copied beside the test's files: its commands may write next to it."""
        target = tmp_path / name
        target.write_bytes((STANDINS / name).read_bytes())
        return str(target)

    return SimpleNamespace(bin=bin_dir, state=state, home=home, clusters=clusters, existing=existing, copy=copy)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Each phase's report on the test item (`item.rep_call`): fixtures that check after a test
    (tests/tmux_terminal.py) leave a failed test's own failure alone."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report
