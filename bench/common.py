"""What the benchmarks share: baselines that must be there, interleaved rounds, ratios and the load.

Every figure is a ratio against a baseline measured in the same run, rounds alternating so both
see the same machine; the median of the rounds is what counts.
"""
from __future__ import annotations

import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent  # the virtualenv's bin: demorun and demosh live there
CORPUS = ROOT.parent / "shared" / "corpus"


# demorun as `python -m runner` from this checkout (PYTHONPATH wins over an installed copy), so the
# same scripts can measure another checkout of the code: copy bench/ there and run it.
DEMORUN = [sys.executable, "-m", "runner"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ENV.pop("PYTHONDONTWRITEBYTECODE", None)  # byte code is cached, as an installed package has it


class MissingBaseline(Exception):
    """A tool a baseline needs is not installed: the figure cannot be measured."""


def tool(name: str) -> str:
    """The path of a command, from this interpreter's virtualenv or PATH; MissingBaseline if absent."""
    beside = BIN / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        hint = " (pip install -e '.[bench]')" if name == "demosh" else ""
        raise MissingBaseline(f"{name} is not installed{hint}")
    return found


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (5 min {five:.2f}) on {os.cpu_count()} cores"


def interleaved(cases: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    """Median of each case's measurement over rounds that take the cases in turn."""
    seen: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, measure in cases.items():
            seen[name].append(measure())
    return {name: statistics.median(values) for name, values in seen.items()}


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


class Figures:
    """Ratios against their baselines and targets; prints each, exits non-zero if one is missed."""

    def __init__(self, title: str):
        self.missed: list[str] = []
        print(f"{title}; {load()} at the start", flush=True)

    def ratio(self, label: str, value: float, baseline: float, target: float, unit: str = "") -> float:
        ratio = value / baseline if baseline > 0 else float("inf")
        verdict = "ok" if ratio <= target else "MISSED"
        if ratio > target:
            self.missed.append(f"{label}: {ratio:.2f}x (target <= {target}x)")
        print(f"  {label:<58} {value:10.3f}{unit} / {baseline:10.3f}{unit} = {ratio:5.2f}x"
              f"  (target <= {target}x) {verdict}", flush=True)
        return ratio

    def done(self) -> int:
        print(f"{load()} at the end")
        for line in self.missed:
            print(f"target missed: {line}")
        print("all targets met" if not self.missed else f"{len(self.missed)} target(s) missed")
        return 1 if self.missed else 0


def run_main(main: Callable[[], int]) -> None:
    """Runs a benchmark's main; a missing baseline is one clear line and exit status 2."""
    try:
        sys.exit(main())
    except MissingBaseline as exc:
        print(f"bench: cannot measure against the baseline: {exc}", file=sys.stderr)
        sys.exit(2)
