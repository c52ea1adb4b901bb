"""Start-up time of `demorun --version` and `demorun lint FILE`, against floors measured in the same run.

Run by hand: `python3 bench/startup.py [--runs N] [--venv DIR]`. Linting runs in
editors and pre-commit hooks, so both commands must finish in under 100 ms.
Floors: the bare interpreter (`python -c pass`) and importing click, which
every click tool pays. Peers, when installed, are timed the same way. Byte
code is compiled first (a warm-up run), as an installed package has it.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS_FILE = ROOT.parent / "shared" / "corpus" / "sma" / "linkerd-101" / "README.md"
OWN_FILE = ROOT / "tests" / "fixtures" / "parse" / "workshops" / "directives.md"
TARGET = 0.100


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed(argv: list[str], runs: int) -> tuple[float, float]:
    """(best, median) wall-clock seconds of `argv`, after one warm-up run."""
    env = _env()
    subprocess.run(argv, env=env, cwd=ROOT, capture_output=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, env=env, cwd=ROOT, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--venv", help="a virtualenv with demorun installed (default: .venv if present)")
    args = parser.parse_args()

    workshop = str(CORPUS_FILE if CORPUS_FILE.exists() else OWN_FILE)
    py = sys.executable
    cases: list[tuple[str, list[str], bool]] = [
        ("python -c pass (floor)", [py, "-c", "pass"], False),
        ("python -c 'import click' (floor)", [py, "-c", "import click"], False),
        ("python -m runner --version", [py, "-m", "runner", "--version"], True),
        ("python -m runner lint FILE", [py, "-m", "runner", "lint", "--no-init", workshop], True),
    ]
    venv = Path(args.venv) if args.venv else ROOT / ".venv"
    script = venv / "bin" / "demorun"
    if script.exists():
        cases += [(f"{script} --version", [str(script), "--version"], True),
                  (f"{script} lint FILE", [str(script), "lint", "--no-init", workshop], True)]
    for peer, argv in (("demosh", ["--help"]), ("prysk", ["--version"]),
                       ("byexample", ["--version"])):
        beside = Path(sys.executable).parent / peer
        found = str(beside) if beside.exists() else shutil.which(peer)
        if found:
            cases.append((f"{peer} {' '.join(argv)} (peer)", [found, *argv], False))

    print(f"workshop: {workshop}")
    print(f"{'command':<58} {'best':>8} {'median':>8} {'x floor':>8}")
    floor = None
    slow = []
    for label, argv, ours in cases:
        best, median = timed(argv, args.runs)
        floor = floor or best
        print(f"{label:<58} {best * 1000:>6.1f}ms {median * 1000:>6.1f}ms {best / floor:>8.2f}")
        if ours and best > TARGET:
            slow.append(label)
    print(f"target: every demorun command under {TARGET * 1000:.0f} ms "
          f"({'met' if not slow else 'missed by ' + ', '.join(slow)})")


if __name__ == "__main__":
    main()
