"""The import graph of runner/, read from the code: floors, upward imports, circles, and the doc's picture.

`python tools/module_graph.py` rewrites the graph section of docs/architecture.md;
tests/test_architecture.py fails when a module imports from a higher floor, when modules
import each other (directly or round a circle), or when the doc's graph is out of date.
Imports inside functions count: a lazy import is still a dependency.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "runner"
DOC = ROOT / "docs" / "architecture.md"
BEGIN, END = "<!-- module graph: begin -->", "<!-- module graph: end -->"

# Lowest first. A module may import from its own floor or a lower one, never a higher one.
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    ("values", ("runner", "runner.errors", "runner.model", "runner.results", "runner.streams", "runner.files",
                "runner.printable", "runner.fast_table")),
    ("readers and tools", ("runner.parse", "runner.verify", "runner.session", "runner.config", "runner.secrets",
                           "runner.timings", "runner.discover", "runner.arguments")),
    ("the run and what shows it", ("runner.engine", "runner.terminal", "runner.report", "runner.cluster")),
    ("the commands' drivers", ("runner.modes",)),
    ("the command line", ("runner.exits", "runner.commands", "runner.cli", "runner.launch", "runner.__main__",
                          "runner.pytest_plugin")),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The runner modules `name` imports, anywhere in it (a package's own __init__ is not counted)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports(name, path, known) for name, path in found.items()}


def floor(name: str) -> int:
    best, level = -1, -1
    for index, (_, prefixes) in enumerate(FLOORS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, level = len(prefix), index
    if level < 0:
        raise ValueError(f"{name} is on no floor: add it to FLOORS in tools/module_graph.py")
    return level


def upward(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} (floor {floor(a)}) imports {b} (floor {floor(b)})"
                  for a, targets in edges.items() for b in targets if floor(b) > floor(a))


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(10000)
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def picture(edges: dict[str, set[str]]) -> str:
    """The doc's section: each floor, top first, with what each of its packages imports."""
    packages: dict[str, set[str]] = {}
    for name, targets in edges.items():
        owner = _package(name)
        packages.setdefault(owner, set()).update(_package(t) for t in targets if _package(t) != owner)
    lines = [BEGIN, "", "Regenerated from the code by `python tools/module_graph.py`; each line is a package or a",
             "top-level module and what it imports, floor by floor from the top. Imports only go down",
             "or along a floor, never up, and no two modules import each other (tests/test_architecture.py).", "",
             "```"]
    for level in reversed(range(len(FLOORS))):
        lines.append(f"{level}  {FLOORS[level][0]}")
        for name in sorted(p for p in packages if floor(p) == level):
            targets = ", ".join(sorted(t.removeprefix("runner.") for t in packages[name])) or "-"
            lines.append(f"     {name.removeprefix('runner.') or 'runner'}: {targets}")
    lines += ["```", "", END]
    return "\n".join(lines)


def _package(name: str) -> str:
    parts = name.split(".")
    if len(parts) > 2 and (ROOT / Path(*parts[:2])).is_dir():
        return ".".join(parts[:2])
    return name


def updated_doc(edges: dict[str, set[str]]) -> str:
    text = DOC.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + picture(edges) + text[end:]


if __name__ == "__main__":
    edges = graph()
    problems = upward(edges) + [" <-> ".join(group) for group in circles(edges)]
    DOC.write_text(updated_doc(edges))
    print("\n".join(problems) or "no upward imports, no circles")
    sys.exit(1 if problems else 0)
