"""Session speed and memory against floors measured in the same run: trivial commands and bulk output.

Run by hand: `python3 bench/session.py` (add `--quick` for fewer repetitions). Every number is
measured now, on this machine, next to its baselines; the ratios are what to read.
"""
from __future__ import annotations

import argparse
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from runner.engine import Engine, Listener, Policy  # noqa: E402
from runner.parse import parse_text  # noqa: E402
from runner.session import Session  # noqa: E402

LINE = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"  # 64 bytes with its newline
MB = 1_000_000
# Interpreter noise on top of the two copies (bytes and text) that returning one str needs.
MEMORY_ALLOWANCE = 1 << 20


class FloorShell:
    """The least a persistent bash on a pty can cost: one write, read until a one-byte prompt."""

    def __init__(self):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvp("bash", ["bash", "--norc", "--noprofile", "--noediting", "-i"])
        attrs = termios.tcgetattr(self.fd)
        attrs[3] &= ~termios.ECHO
        termios.tcsetattr(self.fd, termios.TCSANOW, attrs)
        os.write(self.fd, b"PS1=$'\\x1d'; PS2=; unset PROMPT_COMMAND\n")
        self.read_until_prompt()
        self.read_until_prompt(timeout=0.2)

    def read_until_prompt(self, timeout: float = 10.0) -> int:
        got = 0
        while True:
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                return got
            data = os.read(self.fd, 65536)
            got += len(data)
            if data.endswith(b"\x1d"):
                return got

    def run(self, command: str) -> int:
        os.write(self.fd, command.encode() + b"\n")
        return self.read_until_prompt()

    def close(self) -> None:
        os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def per_command(total: float, count: int) -> float:
    return total / count * 1e6


def time_floor(n: int) -> float:
    shell = FloorShell()
    try:
        start = time.perf_counter()
        for _ in range(n):
            shell.run("true")
        return per_command(time.perf_counter() - start, n)
    finally:
        shell.close()


def time_session(n: int) -> float:
    with Session() as session:
        for _ in range(50):
            session.run("true")
        start = time.perf_counter()
        for _ in range(n):
            session.run("true")
        return per_command(time.perf_counter() - start, n)


def time_engine(n: int) -> float:
    """What `demorun run` pays a command: plan, syntax pre-check, session, verdict and listeners."""
    plan = parse_text("```bash\n" + "true\n" * n + "```\n", "bench.md")
    with Session() as session:
        engine = Engine(plan, session, policy=Policy(check_output=False), listeners=[Listener()])
        start = time.perf_counter()
        results = engine.run_all()
        elapsed = time.perf_counter() - start
    assert len(results) == n and all(r.verdict.passed for r in results)
    return per_command(elapsed, n)


def time_script(n: int, folder: Path) -> float:
    """`bash script.sh`, its own start-up subtracted."""
    full, empty = folder / "full.sh", folder / "empty.sh"
    full.write_text("true\n" * n)
    empty.write_text("")

    def once(path: Path) -> float:
        start = time.perf_counter()
        subprocess.run(["bash", str(path)], check=True)
        return time.perf_counter() - start

    spent = min(once(full) for _ in range(5)) - min(once(empty) for _ in range(5))
    return per_command(max(spent, 0.0), n)


def time_bash_c(n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        subprocess.run(["bash", "-c", "true"], check=True)
    return per_command(time.perf_counter() - start, n)


def time_demosh(n: int, folder: Path) -> float | None:
    """demosh on a pty (it wants a terminal), its start-up subtracted via a 10-command run."""
    if not shutil.which("demosh") or not shutil.which("script"):
        return None

    def once(count: int) -> float:
        path = folder / f"demo{count}.sh"
        path.write_text("true\n" * count)
        start = time.perf_counter()
        subprocess.run(["script", "-qec", f"demosh --no-blurb --no-init {path}", "/dev/null"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - start

    small = min(once(10) for _ in range(3))
    return per_command(min(once(n) for _ in range(2)) - small, n - 10)


def output_command(size: int) -> str:
    return f"yes {LINE} | head -c {size}"


def throughput(size: int, repeat: int) -> tuple[float, float]:
    """Seconds for `size` bytes of output: (floor pty loop, Session)."""
    floor = FloorShell()
    try:
        floor_time = min(_timed(lambda: floor.run(output_command(size))) for _ in range(repeat))
    finally:
        floor.close()
    with Session() as session:
        def run() -> None:
            outcome = session.run(output_command(size))
            assert len(outcome.output) == size, (len(outcome.output), size)
        session_time = min(_timed(run) for _ in range(repeat))
    return floor_time, session_time


def time_pexpect_default(size: int) -> float:
    """pexpect's plain expect(): it searches the whole buffer on every read, so time grows as size^2."""
    import pexpect

    child = pexpect.spawn("bash", ["--norc", "--noprofile"], echo=False, encoding=None)
    child.delaybeforesend = None
    try:
        child.sendline("PS1='[P]'")
        child.expect_exact("[P]")
        start = time.perf_counter()
        child.sendline(output_command(size) + "; echo END''MARK")
        child.expect(re.escape("ENDMARK"), timeout=600)
        return time.perf_counter() - start
    finally:
        child.close(force=True)


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def peak_memory(size: int, streamed: bool) -> float:
    """Growth of peak RSS while one command prints `size` bytes, measured in a fresh process."""
    done = subprocess.run([sys.executable, __file__, "--memory", str(size)] + (["--streamed"] if streamed else []),
                          capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def high_water() -> int:
    """Peak resident memory of this process so far, in bytes (VmHWM, fresh at exec unlike ru_maxrss)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def memory_child(size: int, streamed: bool) -> None:
    with Session() as session:
        session.run(output_command(1000))
        before = high_water()
        seen = [0]

        def count(chunk: bytes) -> None:
            seen[0] += len(chunk)

        outcome = session.run(output_command(size), on_output=count if streamed else None)
        after = high_water()
        assert len(outcome.output) == size
    print(after - before)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--memory", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--streamed", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.memory:
        memory_child(opts.memory, opts.streamed)
        return 0
    n = 300 if opts.quick else 1000
    repeat = 1 if opts.quick else 3
    rounds = 2 if opts.quick else 5
    missed = []
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"{n} trivial commands (`true`), microseconds each (best of {rounds} rounds):")
        # Rounds alternate so both see the same machine; the fastest round is the least disturbed.
        floors, sessions, engines = [], [], []
        for _ in range(rounds):
            floors.append(time_floor(n))
            sessions.append(time_session(n))
            engines.append(time_engine(n))
        floor, session, engine = min(floors), min(sessions), min(engines)
        rows = [("persistent bash on a pty (floor)", floor), ("demorun Session.run", session),
                ("demorun run's engine (whole plan)", engine),
                ("bash script.sh", time_script(n, folder)), ("one bash -c per command", time_bash_c(min(n, 300)))]
        demosh = time_demosh(n, folder)
        if demosh is not None:
            rows.append(("demosh under script -qec", demosh))
        for name, micros in rows:
            print(f"  {name:36} {micros:9.1f} us   {micros / floor:6.2f}x floor")
        print(f"  Session overhead over the floor: {session - floor:.1f} us a command")
        if engine > 200:
            missed.append(f"the engine costs {engine:.0f} us a command (target 200)")
        if demosh is not None:
            print(f"  the engine is {demosh / engine:.1f}x faster than demosh")
            if demosh / engine < 10:
                missed.append(f"the engine is only {demosh / engine:.1f}x faster than demosh (target 10x)")
    print("\nOutput of one command (`yes | head -c SIZE`):")
    print(f"  {'size':>6} {'floor MB/s':>11} {'Session MB/s':>13} {'s per MB':>9} {'peak RSS/out':>13} {'streamed':>9}")
    per_mb = []
    for size_mb in (1, 10, 50):
        size = size_mb * MB
        floor_time, session_time = throughput(size, repeat)
        held = peak_memory(size, streamed=False) / size
        streamed = peak_memory(size, streamed=True) / size
        per_mb.append(session_time / size_mb)
        rate = size_mb / session_time
        print(f"  {size_mb:>4}MB {size_mb / floor_time:>11.1f} {rate:>13.1f} {session_time / size_mb:>9.4f}"
              f" {held:>12.3f}x {streamed:>8.3f}x")
        if rate < 30:
            missed.append(f"{size_mb} MB at {rate:.1f} MB/s (target 30)")
        if max(held, streamed) * size > 2 * size + MEMORY_ALLOWANCE:
            missed.append(f"{size_mb} MB peaks at {max(held, streamed):.3f}x the output (target 2x)")
    growth = per_mb[-1] / per_mb[0]
    print(f"  time per MB at 50 MB / at 1 MB: {growth:.2f} (1.0 is linear)")
    one, two = time_pexpect_default(MB), time_pexpect_default(2 * MB)
    print(f"  for contrast, pexpect's default expect(): 1 MB in {one:.2f}s ({1 / one:.1f} MB/s), "
          f"2 MB in {two:.2f}s ({two / one:.1f}x the time for 2x the output)")
    if growth > 1.5:
        missed.append(f"time per MB grows {growth:.2f}x from 1 to 50 MB (target: linear)")
    print(f"load average {os.getloadavg()[0]:.2f} at the end (other work on the machine skews every row)")
    for line in missed:
        print(f"target missed: {line}")
    if not missed:
        print("all targets met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
