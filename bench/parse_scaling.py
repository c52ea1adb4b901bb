"""Parsing stays linear on hostile input: each pathological file at 1x, 10x and 100x its size.

Run by hand: `python3 bench/parse_scaling.py [--timeout S] [NAME...]`. Each input
is parsed (the plan `lint`, `run` and `check` all start from) in a fresh
process; the baseline is the same input at 1x, measured in the same run. For
each size it prints the time and the ratio to 1x divided by the size factor:
about 1.0 is linear (below 1.0 at 10x is fixed costs fading), 10 or more is
quadratic. A size that takes longer than the timeout is reported as such.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCALES = (1, 10, 100)


def _fence(body: str) -> str:
    return f"<!-- @SHOW -->\n\n```bash\n{body}\n```\n"


# name -> (file name, text at scale k). The first four are the issue's own findings.
INPUTS = {
    "directive-spaces": ("w.md", lambda k: "@a b" + " " * 2000 * k + "x\n"),
    "unclosed-directive": ("w.md", lambda k: "<!-- @a " + " " * 3000 * k + "x\n"),
    "heading-spaces": ("w.md", lambda k: "# a" + " " * 5000 * k + "b\n"),
    "blank-lines": ("w.md", lambda k: "\n" * 10000 * k),
    "stray-close-spaces": ("w.md", lambda k: "@import x" + " " * 2000 * k + "-->" + " " * 2000 * k + "x\n"),
    "hash-comment-directive": ("w.md", lambda k: "<!-- #@a " + "--> " * 1000 * k + "x\n"),
    "backslash-run": ("w.sh", lambda k: "#@print " + "\\" * 4000 * k + "a\n"),
    "continued-directive": ("w.sh", lambda k: "#@print a \\\n" * 2000 * k + "b\n"),
    "long-word": ("w.sh", lambda k: "echo " + 'a\\"' * 20000 * k + "\n"),
    "nested-expansions": ("w.sh", lambda k: 'echo "' + "${x:-" * 2000 * k + "'" * 2000 * k
                          + "}" * 2000 * k + '"\n'),
    "heredocs-on-one-line": ("w.sh", lambda k: ": " + "<<E " * 2000 * k + "\n" + "E\n" * 2000 * k),
    "double-paren-replays": ("w.sh", lambda k: "(" * 300 * k + "a" + ") b" * 300 * k + "\n"),
    "open-macros": ("w.md", lambda k: "<!-- @macro m -->\n" * 500 * k + "<!-- @end -->\n" * 500 * k),
    "macro-calls": ("w.md", lambda k: "<!-- @macro m -->\n```bash\necho hi\n```\n<!-- @end -->\n"
                    + "<!-- @m -->\n" * 2000 * k),
    "many-fences": ("w.md", lambda k: _fence("echo hi\n## hi") * 1000 * k),
}


def _measure(name: str, scale: int) -> None:
    """In the child: parse once, print the seconds it took."""
    sys.path.insert(0, str(ROOT))
    from runner.parse.workshop import parse_text

    file_name, build = INPUTS[name]
    text = build(scale)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, file_name)
        started = time.perf_counter()
        parse_text(text, path)
        print(f"{time.perf_counter() - started:.6f}")


def _run(name: str, scale: int, timeout: float) -> float | None:
    try:
        done = subprocess.run([sys.executable, __file__, "--one", name, str(scale)],
                              capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    return float(done.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="inputs to measure (default: all)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per measurement")
    parser.add_argument("--one", nargs=2, metavar=("NAME", "SCALE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        _measure(args.one[0], int(args.one[1]))
        return 0
    names = args.names or list(INPUTS)
    print(f"{'input':<24} {'1x':>9} {'10x':>9} {'100x':>9}   ratio/size at 10x, 100x")
    worst = 0.0
    for name in names:
        times = []
        for scale in SCALES:
            seconds = _run(name, scale, args.timeout)
            times.append(seconds)
            if seconds is None:
                break
        cells = [f"{t:8.3f}s" if t is not None else f">{args.timeout:.0f}s".rjust(9) for t in times]
        cells += [""] * (len(SCALES) - len(cells))
        ratios = []
        base = max(times[0] or 0.0, 1e-4)
        for scale, seconds in zip(SCALES[1:], times[1:]):
            ratio = (seconds / base / scale) if seconds is not None else float("inf")
            worst = max(worst, ratio)
            ratios.append(f"{ratio:.2f}")
        print(f"{name:<24} {cells[0]:>9} {cells[1]:>9} {cells[2]:>9}   {', '.join(ratios)}")
    print(f"worst ratio/size: {worst:.2f} (about 1 is linear)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
