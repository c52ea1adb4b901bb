"""Shared fixtures: writing workshops and invoking the command line."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main
from runner.model import Expectation, Kind, SourceLoc, Step, Visibility

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"


@pytest.fixture
def corpus() -> Path:
    """The real workshop corpus beside the repository; skipped where it is absent."""
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    return CORPUS


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
