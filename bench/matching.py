"""Benchmark: what checking output costs, against baselines measured in the same run.

Run by hand: `python3 bench/matching.py` (add `--quick` for fewer rounds). Three figures:

1. A kubectl table of 100,000 rows whose rows are shuffled and whose volatile cells
   (names, restarts, ages, IPs) all changed: seconds and peak memory of one check,
   next to the floor of reading it at all (normalising both sides and comparing them
   as Counters of rows). Targets: under 1 s and under 100 MiB; per-row time flat from
   1,000 rows; the ratio to the floor is printed.
2. `demorun check` of a workshop whose commands print output identical to their
   `##` blocks, against `demorun run` of the same workshop: target 1.1x.
3. The same with a 3-row table whose names, restarts and ages changed: target 1.3x.

Runs of (2) and (3) are interleaved and the median of each is compared, so a
machine that is busy (the load average is printed) slows both alike.
"""
from __future__ import annotations

import argparse
import collections
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from runner.verify.compare import compare_output  # noqa: E402  (after the checkout is on the path)
from runner.verify.normalise import normalise  # noqa: E402

SAFE = "bcdfghjklmnpqrstvwxz2456789"
HASH = "456789bcdf"
STATUSES = ("Running", "Completed", "Pending", "Init:0/1", "CrashLoopBackOff")
HEADER = ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"]


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _age(rng: random.Random) -> str:
    return rng.choice((f"{rng.randint(1, 59)}s", f"{rng.randint(1, 59)}m{rng.randint(0, 59)}s",
                       f"{rng.randint(1, 9)}d"))


def _restarts(rng: random.Random) -> str:
    return "0" if rng.random() < 0.5 else f"{rng.randint(1, 9)} ({rng.randint(1, 59)}s ago)"


def tables(rows: int, seed: int = 1) -> tuple[list[str], str]:
    """Expected lines and an actual output: same pods, other suffixes, ages, IPs and order."""
    rng = random.Random(seed)
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
    return _render(HEADER, expected), "\n".join(_render(HEADER, actual)) + "\n"


def _render(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
    return ["   ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header, *rows]]


def _floor(expected: list[str], actual: str) -> bool:
    """The least any check does: read both sides as lines and compare them as Counters of rows."""
    return collections.Counter(normalise("\n".join(expected))) == collections.Counter(normalise(actual))


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def big_tables(quick: bool) -> bool:
    sizes = (1_000, 10_000, 100_000)
    print(f"{'rows':>8}  {'check s':>8}  {'floor s':>8}  {'vs floor':>8}  {'per-row vs 1,000':>16}")
    times, floors = {}, {}
    for n in sizes:
        expected, actual = tables(n)
        repeat = 1 if n >= 100_000 or quick else 3
        mismatch = compare_output(expected, actual)
        if mismatch is not None:
            raise SystemExit(f"{n} rows: unexpected mismatch: {mismatch.summary}")
        times[n] = _best(lambda: compare_output(expected, actual), repeat)  # noqa: B023
        floor = floors[n] = _best(lambda: _floor(expected, actual), repeat)  # noqa: B023
        base = times[sizes[0]] / sizes[0]
        print(f"{n:>8,}  {times[n]:>8.3f}  {floor:>8.3f}  {times[n] / floor:>7.1f}x  {times[n] / n / base:>16.2f}")
    memory = _peak_memory(100_000)
    print(f"100,000 rows: {times[100_000] / floors[100_000]:.1f}x the Counter-of-rows floor measured in this run")
    fast = times[100_000] < 1.0
    small = memory < 100
    linear = times[100_000] / 100_000 / (times[1_000] / 1_000) < 2.0
    print(f"100,000 rows: {times[100_000]:.3f}s (target < 1s): {'ok' if fast else 'SLOW'}; "
          f"peak memory of the check {memory:.0f} MiB (target < 100 MiB): {'ok' if small else 'TOO BIG'}; "
          f"per-row time {'flat' if linear else 'NOT LINEAR'}")
    return fast and small and linear


def _peak_memory(rows: int) -> float:
    """MiB the check allocates at its peak, beyond the two outputs it is given (tracemalloc)."""
    code = (f"import sys, tracemalloc; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'bench')!r}]\n"
            "from matching import tables\nfrom runner.verify.compare import compare_output\n"
            f"e, a = tables({rows})\ntracemalloc.start()\n"
            "compare_output(e, a)\nprint(tracemalloc.get_traced_memory()[1] / 2**20)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(done.stdout)


POD_TABLE = """NAME                        READY   STATUS    RESTARTS   AGE
orders-8b6f49c5d7-t2wqm     2/2     Running   0          95s
web-68cc8bc689-j4ph2        2/2     Running   0          95s
db-0                        1/1     Running   0          2m"""
OTHER_RUN = """NAME                       READY   STATUS    RESTARTS     AGE
web-7f9c4d5b8-x2kqz        2/2     Running   0            12s
db-0                       1/1     Running   1 (3s ago)   14s
orders-8b6f49c5d7-m6zkd    2/2     Running   0            12s"""


def workshop(commands: int, printed: str) -> str:
    """A workshop of `commands` commands that each print `printed` under the same `##` block."""
    block = "\n".join(f"## {line}" for line in POD_TABLE.split("\n"))
    body = printed.replace("'", "'\\''")
    step = f"```bash\nprintf '%s\\n' '{body}'\n{block}\n```\n"
    return "# Bench\n\n" + "\n".join(step for _ in range(commands))


def cli_ratios(quick: bool) -> bool:
    demorun = shutil.which("demorun", path=str(ROOT / ".venv" / "bin")) or shutil.which("demorun")
    if demorun is None:
        raise SystemExit("demorun is not installed: run `make install` first")
    commands, rounds = (200, 3) if quick else (600, 7)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for name, printed, target in (("identical output", POD_TABLE, 1.1), ("volatile 3-row table", OTHER_RUN, 1.3)):
            path = Path(tmp) / "w.md"
            path.write_text(workshop(commands, printed), encoding="utf-8")
            runs: dict[str, list[float]] = {"run": [], "check": []}
            for _ in range(rounds):
                for mode in ("run", "check"):
                    args = [demorun, mode, "--quiet", str(path)] if mode == "run" else [demorun, "check", str(path)]
                    started = time.perf_counter()
                    done = subprocess.run(args, capture_output=True, text=True, check=False,
                                          env={**os.environ, "NO_COLOR": "1"})
                    runs[mode].append(time.perf_counter() - started)
                    if done.returncode != 0:
                        raise SystemExit(f"demorun {mode} failed on the bench workshop:\n{done.stdout}{done.stderr}")
            run, check = statistics.median(runs["run"]), statistics.median(runs["check"])
            ratio = check / run
            ok &= ratio <= target
            print(f"{name:>22}: run {run / commands * 1e6:7.0f} us/command, check {check / commands * 1e6:7.0f} "
                  f"us/command: {ratio:.2f}x (target <= {target}x): {'ok' if ratio <= target else 'SLOW'}")
    return ok


def wildcards(quick: bool) -> bool:
    """`...` against long lines and many lines: time per character and per line flat as both grow 8 times."""
    ok = True
    pattern = ["a ... b ... c ... d ... e ... f ... g"]
    line = {n: " ".join("abcdef"[i % 6] for i in range(n)) + " z\n" for n in (25_000, 200_000)}
    lines = {n: (["start", "...", *["a"] * (n // 2), "b", "...", "end"],
                 "\n".join(["start", *["a"] * n, "b", "end"]) + "\n") for n in (5_000, 40_000)}
    repeat = 1 if quick else 3
    short, long_ = (_best(lambda: compare_output(pattern, line[n]), repeat) for n in line)  # noqa: B023
    few, many = (_best(lambda: compare_output(*lines[n]), repeat) for n in lines)  # noqa: B023
    for what, small, large in (("six `...` in one line, 8x its length", short, long_),
                               ("whole-line `...` runs, 8x the lines", few, many)):
        ratio = large / small
        ok &= ratio < 16
        print(f"{what}: {small:.3f}s -> {large:.3f}s, {ratio:.1f}x (target < 16x, linear is 8x): "
              f"{'ok' if ratio < 16 else 'NOT LINEAR'}")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and commands")
    parser.add_argument("--tables", action="store_true", help="only the big tables and the wildcards")
    args = parser.parse_args()
    quick = args.quick
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    ok = big_tables(quick)
    ok &= wildcards(quick)
    if args.tables:
        raise SystemExit(0 if ok else 1)
    ok &= cli_ratios(quick)
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
