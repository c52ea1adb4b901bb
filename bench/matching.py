"""Benchmark: matching a kubectl table whose rows are shuffled and whose volatile cells all changed.

Run by hand: `python3 bench/matching.py`. Prints seconds per size and the
time per row against the 1,000-row run measured here, so the ratios say
whether matching stays linear on this machine, whatever its speed.
Targets: 10,000 rows under a second; per-row time roughly flat up to 100,000.
"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from runner.verify import compare_output  # noqa: E402

SAFE = "bcdfghjklmnpqrstvwxz2456789"
HASH = "456789bcdf"
STATUSES = ("Running", "Completed", "Pending", "Init:0/1", "CrashLoopBackOff")


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _age(rng: random.Random) -> str:
    return rng.choice((f"{rng.randint(1, 59)}s", f"{rng.randint(1, 59)}m{rng.randint(0, 59)}s", f"{rng.randint(1, 9)}d"))


def _restarts(rng: random.Random) -> str:
    return "0" if rng.random() < 0.5 else f"{rng.randint(1, 9)} ({rng.randint(1, 59)}s ago)"


def tables(rows: int, seed: int = 1) -> tuple[list[str], str]:
    """Expected lines and an actual output: same pods, other suffixes, ages, IPs and order."""
    rng = random.Random(seed)
    header = ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"]
    expected, actual = [], []
    for i in range(rows):
        name = f"app-{i}"
        ready = f"{rng.randint(0, 2)}/2"
        status = rng.choice(STATUSES)
        node = f"node-{i % 7}"
        for out in (expected, actual):
            pod = f"{name}-{_pick(rng, HASH, 10)}-{_pick(rng, SAFE, 4)}{rng.choice('bcdfg')}"
            ip = f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
            out.append([pod, ready, status, _restarts(rng), _age(rng), ip, node])
    rng.shuffle(actual)
    return _render(header, expected), "\n".join(_render(header, actual)) + "\n"


def _render(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
    return ["   ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header, *rows]]


def measure(rows: int, repeat: int = 3) -> float:
    expected, actual = tables(rows)
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        mismatch = compare_output(expected, actual)
        best = min(best, time.perf_counter() - started)
    if mismatch is not None:
        raise SystemExit(f"{rows} rows: unexpected mismatch: {mismatch.summary}")
    return best


def main() -> None:
    sizes = (1_000, 10_000, 100_000)
    times = {n: measure(n, repeat=1 if n >= 100_000 else 3) for n in sizes}
    base = times[sizes[0]] / sizes[0]
    print(f"{'rows':>8}  {'seconds':>8}  {'per-row vs 1,000':>16}")
    for n in sizes:
        print(f"{n:>8,}  {times[n]:>8.3f}  {times[n] / n / base:>16.2f}")
    fast = times[10_000] < 1.0
    linear = times[100_000] / 100_000 / base < 2.0
    print(f"10,000 rows in {times[10_000]:.3f}s (target < 1s): {'ok' if fast else 'SLOW'}")
    print(f"100,000 rows per row {times[100_000] / 100_000 / base:.2f}x the 1,000-row time (target < 2x): "
          f"{'ok' if linear else 'NOT LINEAR'}")
    if not (fast and linear):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
