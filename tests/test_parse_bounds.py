"""Property: any graph of macros and imports calling each other builds in bounded time and memory.

Graphs are generated with every edge used one to three times, so a few levels
already describe millions of calls. The builder's bounds are lowered for the
test (the same code, reached sooner); an expansion within them must come out
whole and exact, one past them must stop with a blocking finding at the call
in the workshop, having done no more work than the bounds allow.
"""
from __future__ import annotations

import os
import signal
import time
import tracemalloc
from contextlib import contextmanager
from dataclasses import dataclass
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runner.model import Kind
from runner.parse import builder
from runner.parse.workshop import BLOCKING

STEPS, WORK, TEXT = 2_000, 20_000, 200_000  # the bounds, lowered
CEILING = 20.0  # seconds: far above what the lowered bounds allow, only there so a runaway ends


@dataclass(frozen=True)
class Node:
    kind: str  # "macro" (defined in the workshop) or "import" (a file of its own)
    commands: int  # commands of its own, each printing `size` characters
    size: int
    calls: tuple[tuple[int, int], ...]  # (node called, how many times), only nodes after this one


@st.composite
def graphs(draw) -> list[Node]:
    count = draw(st.integers(1, 16))
    nodes = []
    for index in range(count):
        later = list(range(index + 1, count))
        calls = draw(st.lists(st.tuples(st.sampled_from(later), st.integers(1, 3)), max_size=3)) if later else []
        if later and draw(st.booleans()):
            calls.append((index + 1, 2))  # the doubling chain, the shape that ran away
        nodes.append(Node(draw(st.sampled_from(["macro", "import"])), draw(st.sampled_from([0, 0, 0, 1, 2])),
                          draw(st.sampled_from([1, 100, 5_000])), tuple(calls)))
    return nodes


def _call(index: int, node: Node) -> str:
    return f"<!-- @import n{index}.md -->" if node.kind == "import" else f"<!-- @m{index} -->"


def _body(index: int, nodes: list[Node]) -> list[str]:
    node = nodes[index]
    lines = ["```bash", *(f"echo {'x' * node.size} # n{index}" for _ in range(node.commands)), "```"]
    for target, times in node.calls:
        lines += [_call(target, nodes[target])] * times
    return lines


def _write(tmp_path, nodes: list[Node]) -> str:
    main = []
    for index, node in enumerate(nodes):
        if node.kind == "macro":
            main += [f"<!-- @macro m{index} -->", *_body(index, nodes), "<!-- @end -->"]
        else:
            (tmp_path / f"n{index}.md").write_text("\n".join(_body(index, nodes)) + "\n")
    main += ["", "# Start", "", _call(0, nodes[0])]
    path = tmp_path / "main.md"
    path.write_text("\n".join(main) + "\n")
    return str(path)


def _read(path: str) -> int:
    """Characters of the workshop and the files it imports: what the builder reads, once each."""
    folder = os.path.dirname(path)
    return sum(len(open(os.path.join(folder, name)).read()) for name in os.listdir(folder))


def _expected_commands(nodes: list[Node]) -> int:
    """How many commands the whole expansion holds, computed from the graph, not by expanding it."""
    total = [0] * len(nodes)
    for index in reversed(range(len(nodes))):
        total[index] = nodes[index].commands + sum(times * total[t] for t, times in nodes[index].calls)
    return total[0]


def _visits(nodes: list[Node]) -> int:
    """At most how many items building visits: each line of a body once per expansion, each call
    once more, and every line of every file once more for the pass collecting definitions."""
    lines = [node.commands + 2 + sum(times for _, times in node.calls) for node in nodes]
    total = [0] * len(nodes)
    for index in reversed(range(len(nodes))):
        total[index] = lines[index] + sum(times * (1 + total[t]) for t, times in nodes[index].calls)
    return total[0] + 2 * (sum(lines) + 3 * len(nodes)) + 10


def _depth(nodes: list[Node]) -> int:
    deepest = [1] * len(nodes)
    for index in reversed(range(len(nodes))):
        deepest[index] = 1 + max((deepest[t] for t, _ in nodes[index].calls), default=0)
    return deepest[0]


class Runaway(Exception):
    """Not an OSError, which the builder may catch."""


@contextmanager
def _ceiling(seconds: float):
    def expired(signum, frame):
        raise Runaway(f"building took more than {seconds}s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(nodes=graphs())
def test_any_macro_and_import_graph_builds_within_its_bounds(tmp_path_factory, nodes):
    path = _write(tmp_path_factory.mktemp("graph"), nodes)
    with mock.patch.multiple(builder, MAX_STEPS=STEPS, MAX_WORK=WORK, MAX_TEXT=TEXT):
        build = builder.Builder(no_init=True, home=None)
        tracemalloc.start()
        started = time.process_time()
        try:
            with _ceiling(CEILING):
                plan = build.build(path, open(path).read())
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    spent = time.process_time() - started
    assert build.work <= WORK + 1 and len(plan.steps) <= STEPS  # one item past the bound, and no more
    assert sum(len(s.text) for s in plan.steps) <= TEXT
    assert peak < 64 * 1024 * 1024 and spent < CEILING
    stopped = [f for f in plan.findings if f.code in BLOCKING]
    commands = sum(1 for step in plan.steps if step.kind is Kind.COMMAND)
    expected = _expected_commands(nodes)
    # Each command is one step; its text is its size and a dozen more.
    fits = expected * 3 <= STEPS and _read(path) + expected * (5_000 + 20) <= TEXT
    if fits and _depth(nodes) < 60 and _visits(nodes) < WORK:
        assert not stopped and commands == expected
    if stopped:
        assert len(stopped) == 1 and stopped[0].loc.file == path  # the call in the workshop, not deep inside
        assert commands < expected
