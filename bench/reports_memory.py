"""Peak memory and time of `demorun check` on one command printing a lot, with `--junit` and `--html`
against the same check without reports, measured in the same run.

Run by hand: `python3 bench/reports_memory.py [--size MB] [--rounds N] [--secret]`. Figures (targets
in brackets), each the median of interleaved rounds:
- peak resident memory with both reports, against the size of the command's output [<= 1.2x];
- peak resident memory with both reports, against the same check without them (for reading);
- wall time with both reports, against the same check without them [<= 1.3x].
`--secret` also sets a secret the output does not hold, so every report masks what it shows.
The default size is 1,000 MB: about 20 s a check on a quiet machine, and 1.2 GB of memory at most.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DEMORUN, ENV, Figures, interleaved, run_main  # noqa: E402

MB = 1_000_000
LINE = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"  # 64 bytes with its newline


def workshop(folder: Path, size: int, secret: bool) -> Path:
    path = folder / "big.md"
    setup = "```bash\nexport API_TOKEN=not-in-the-output-4242\n```\n\n" if secret else ""
    path.write_text(f"{setup}```bash\nyes {LINE} | head -c {size}\n```\n")
    return path


def measured(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(seconds, peak resident bytes) of one child process, its own alone."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    errors = child.stderr.read().decode() if child.stderr else ""
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {child.returncode}: {errors.strip()}")
    return elapsed, usage.ru_maxrss * 1024.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000, help="MB the command prints (default 1000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each case (default 3)")
    parser.add_argument("--secret", action="store_true", help="a secret is set, so reports mask what they show")
    opts = parser.parse_args()
    size = opts.size * MB
    figures = Figures(f"check of one command printing {opts.size} MB, with and without --junit and --html")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        file = workshop(folder, size, opts.secret)
        plain = [*DEMORUN, "check", "--no-init", str(file)]
        reports = [*DEMORUN, "check", "--no-init", "--junit", str(folder / "j.xml"), "--html", str(folder / "r.html"),
                   str(file)]
        seen: dict[str, list[tuple[float, float]]] = {"plain": [], "reports": []}

        def case(name: str, argv: list[str]):
            def measure() -> float:
                seen[name].append(measured(argv, folder))
                return seen[name][-1][0]
            return measure

        times = interleaved({"plain": case("plain", plain), "reports": case("reports", reports)}, opts.rounds)
        peak = {name: sorted(m for _, m in runs)[len(runs) // 2] for name, runs in seen.items()}
        report_bytes = sum((folder / name).stat().st_size for name in ("j.xml", "r.html"))
    print(f"  the two reports hold {report_bytes / MB:.2f} MB")
    figures.ratio("peak memory with reports / output, MB", peak["reports"] / MB, size / MB, 1.2)
    figures.ratio("peak memory with reports / without, MB", peak["reports"] / MB, peak["plain"] / MB, float("inf"))
    figures.ratio("time with reports / without, s", times["reports"], times["plain"], 1.3)
    return figures.done()


if __name__ == "__main__":
    run_main(main)
