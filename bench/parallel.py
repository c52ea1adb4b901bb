"""`demorun check -j 2` against `-j 1` on a folder of 8 workshops that take about 2 s each.

Run by hand: `python3 bench/parallel.py [--files 8] [--seconds 2] [--jobs 2]`.
The baseline is the serial run (`-j 1`) in the same invocation. Each
workshop mostly waits (`sleep`), as real ones wait for clusters and
downloads, so two workers should take about half the wall time even on a
busy machine. The verdicts, the terminal output and the JUnit report must be
identical apart from times; the script exits 1 when they are not.
"""
from __future__ import annotations

import argparse
import difflib
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_TIMES = re.compile(r"\d+(?:\.\d+)?s\b|\d+m\d\ds\b")


def write_workshops(folder: Path, files: int, seconds: float) -> None:
    """Four commands a workshop, each waiting a quarter of `seconds`; one table in each, one stale."""
    step = seconds / 4
    for i in range(files):
        expected = "Pending" if i == files - 1 else "Ready"  # one failure, so failures are compared too
        (folder / f"w{i:02d}.md").write_text(f"""# Workshop {i}

```bash
export N={i}; sleep {step}
```

```bash
sleep {step}; echo "workshop $N"
## workshop {i}
```

```bash
sleep {step}; printf 'NAME   STATUS\\nalpha  Ready\\n'
## NAME   STATUS
## alpha  {expected}
```

```bash
sleep {step}
```
""")


def check(folder: Path, jobs: int, junit: Path) -> tuple[float, int, str, str]:
    """(wall seconds, exit code, output without times, JUnit without times) of one `check -j N`."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "runner", "check", "-j", str(jobs), "--junit", str(junit),
                           str(folder)], cwd=ROOT, capture_output=True, text=True, env={"NO_COLOR": "1",
                           "PATH": "/usr/local/bin:/usr/bin:/bin"})
    wall = time.perf_counter() - started
    # Column widths follow the times' widths, so spaces and the table's rules are folded too.
    output = re.sub(r"─+", "─", re.sub(r"[ \t]+", " ", _TIMES.sub("T", done.stdout)))
    report = re.sub(r' time="[^"]*"', "", junit.read_text())
    return wall, done.returncode, output, report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=2.0, help="how long each workshop takes")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "workshops"
        folder.mkdir()
        write_workshops(folder, args.files, args.seconds)
        serial = check(folder, 1, Path(tmp) / "serial.xml")
        parallel = check(folder, args.jobs, Path(tmp) / "parallel.xml")

    print(f"{args.files} workshops of ~{args.seconds:g}s each")
    print(f"  check -j 1 (baseline)  {serial[0]:6.2f}s  exit {serial[1]}")
    print(f"  check -j {args.jobs}            {parallel[0]:6.2f}s  exit {parallel[1]}  "
          f"{serial[0] / parallel[0]:.2f}x faster ({parallel[0] / serial[0]:.0%} of the baseline's time)")
    same = [("exit code", serial[1] == parallel[1]), ("output", serial[2] == parallel[2]),
            ("JUnit", serial[3] == parallel[3])]
    for name, ok in same:
        print(f"  {name} identical apart from times: {'yes' if ok else 'NO'}")
    for before, after in ((serial[2], parallel[2]), (serial[3], parallel[3])):
        if before != after:
            print("\n".join(difflib.unified_diff(before.splitlines(), after.splitlines(), "-j 1", f"-j {args.jobs}",
                                                  lineterm="")))
    return 0 if all(ok for _, ok in same) else 1


if __name__ == "__main__":
    sys.exit(main())
