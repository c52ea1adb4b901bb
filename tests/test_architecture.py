"""The house rules of runner/, read from the code: floors, no circles, short functions, the doc's graph."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import module_graph  # noqa: E402

MAX_LINES = 80  # a function longer than this is split (complexity is ruff's C901, limit 20, in make test)


@pytest.fixture(scope="module")
def edges():
    return module_graph.graph()


def test_no_module_imports_from_a_higher_floor(edges):
    assert module_graph.upward(edges) == []


def test_no_modules_import_each_other(edges):
    assert module_graph.circles(edges) == []


def test_the_checks_see_an_upward_import_and_a_circle(edges):
    broken = {name: set(targets) for name, targets in edges.items()}
    broken["runner.errors"].add("runner.cli")
    broken["runner.model"].add("runner.errors")
    broken["runner.errors"].add("runner.model")
    assert module_graph.upward(broken) == ["runner.errors (floor 0) imports runner.cli (floor 4)"]
    assert ["runner.errors", "runner.model"] in [sorted(set(g) & {"runner.errors", "runner.model"})
                                                 for g in module_graph.circles(broken)]


def test_lazy_imports_count(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    from .b import x\n")
    known = {"runner.a", "runner.b"}
    assert module_graph.imports("runner.a", tmp_path / "a.py", known) == {"runner.b"}


def test_the_architecture_doc_shows_the_graph_of_today(edges):
    assert module_graph.DOC.read_text() == module_graph.updated_doc(edges), \
        "docs/architecture.md is out of date: run python tools/module_graph.py"


def test_every_module_is_on_a_floor(edges):
    for name in edges:
        module_graph.floor(name)


def test_no_function_is_longer_than_80_lines():
    long = []
    for path in sorted((ROOT / "runner").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []
