"""The live show's two waits a presenter feels, side by side with demosh on the same workshop.

Run by hand: `python3 bench/present.py [--rounds N]` (demosh: `pip install -e '.[bench]'`).
Each tool runs in a pty of its own, 100x30, on a small workshop written for the run:
- launch to first screen: from starting the process to its first prose on the screen
  [demorun <= 1.5x demosh];
- RETURN to output: from the RETURN that runs a typed command to the first byte of that
  command's output [demorun < 15 ms].
Rounds alternate the tools; medians count. The ratio demorun / demosh is printed for each.
"""
from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DEMORUN, ENV, Figures, interleaved, run_main, tool

FIRST = b"First screen of the benchmark."
COMMANDS = 5
WORKSHOP = "<!-- @SHOW -->\n\n" + FIRST.decode() + "\n\n" + "".join(
    f"```bash\necho ret-output-{n}\n```\n\n" for n in range(1, COMMANDS + 1))
LAUNCH_RATIO, RETURN_TARGET = 1.5, 0.015


class Show:
    """One tool presenting the workshop in a pty: what it printed, and when."""

    def __init__(self, argv: list[str], cwd: str):
        self.start = time.perf_counter()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
            os.chdir(cwd)
            os.execvpe(argv[0], argv, ENV)
        self.seen = bytearray()

    def until(self, needle: bytes, timeout: float = 20.0, since: int | None = None) -> float:
        """Seconds from now until `needle` has been printed after byte `since` (None: after what was
        seen before)."""
        begin, mark = time.perf_counter(), len(self.seen) if since is None else since
        while needle not in self.seen[max(0, mark - len(needle)):]:
            left = begin + timeout - time.perf_counter()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise TimeoutError(f"{needle!r} never came; seen {bytes(self.seen[-300:])!r}")
            try:
                self.seen += os.read(self.fd, 65536)
            except OSError:
                raise TimeoutError(f"the tool ended before {needle!r}") from None
        return time.perf_counter() - begin

    def quiet(self, seconds: float = 0.05) -> None:
        """Read until nothing comes for a while: the command is typed and waits for RETURN."""
        while select.select([self.fd], [], [], seconds)[0]:
            try:
                self.seen += os.read(self.fd, 65536)
            except OSError:
                return

    def end(self) -> None:
        """Close the terminal, as a presenter closing the window: each tool ends its own shell."""
        os.close(self.fd)
        deadline = time.perf_counter() + 10
        while time.perf_counter() < deadline:
            if os.waitpid(self.pid, os.WNOHANG)[0]:
                return
            time.sleep(0.02)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)


def one_show(argv: list[str], cwd: str) -> tuple[float, list[float]]:
    """(launch to first screen, [RETURN to output for each command])."""
    show = Show(argv, cwd)
    try:
        show.until(FIRST)
        launch = time.perf_counter() - show.start
        returns = []
        after = show.seen.index(FIRST) + len(FIRST)  # typing may come in the same read as what is before it
        for n in range(1, COMMANDS + 1):
            show.until(f"ret-output-{n}".encode(), since=after)  # typed out
            show.quiet()
            sent = time.perf_counter()
            os.write(show.fd, b"\r")
            show.until(f"\nret-output-{n}".encode())
            returns.append(time.perf_counter() - sent)
            after = show.seen.index(f"\nret-output-{n}".encode()) + len(f"\nret-output-{n}")
        return launch, returns
    finally:
        show.end()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    demosh = tool("demosh")
    figures = Figures("present: launch to first screen and RETURN to output, against demosh")
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "talk.md").write_text(WORKSHOP)
        tools = {
            "demorun": [*DEMORUN, "present", "--no-init", "--speed", "100000", "talk.md"],
            "demosh": [demosh, "--no-init", "--no-blurb", "talk.md"],
        }
        for argv in tools.values():  # warm-up: byte code compiled, files in the page cache
            one_show(argv, folder)
        samples: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in tools}

        def measure(name: str):
            def once() -> float:
                launch, returns = one_show(tools[name], folder)
                samples[name][0].append(launch)
                samples[name][1].extend(returns)
                return launch
            return once

        interleaved({name: measure(name) for name in tools}, args.rounds)
    launch = {name: statistics.median(s[0]) for name, s in samples.items()}
    ret = {name: statistics.median(s[1]) for name, s in samples.items()}
    figures.ratio("launch to first screen, demorun / demosh, ms", launch["demorun"] * 1000,
                  launch["demosh"] * 1000, LAUNCH_RATIO)
    ours, theirs = ret["demorun"], ret["demosh"]
    verdict = "ok" if ours < RETURN_TARGET else "MISSED"
    if ours >= RETURN_TARGET:
        figures.missed.append(f"RETURN to output: {ours * 1000:.1f} ms (target < {RETURN_TARGET * 1000:g} ms)")
    print(f"  {'RETURN to output':<24} demorun {ours * 1000:7.1f} ms  demosh {theirs * 1000:7.1f} ms  "
          f"ratio {ours / theirs:5.2f}x  (target < {RETURN_TARGET * 1000:g} ms) {verdict}", flush=True)
    return figures.done()


if __name__ == "__main__":
    run_main(main)
