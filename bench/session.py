"""Per-command cost and output memory of `demorun run` and `check`, as ratios against floors
measured in the same run.

Run by hand: `python3 bench/session.py [--quick]`. Figures (targets in brackets):
- the round trip of a command through `demorun run --quiet`, wall and CPU, against the floor:
  one bash on a pty, one write per command, read to a PROMPT_COMMAND marker [<= 1.5x];
  per command = (time for 5,000 - time for 1,000) / 4,000, so start-up cancels out;
  then the session's own share: `Session.run` beside the same floor loop, in one process,
  with the later commands offered for queuing (`ahead`) as the engine offers them;
- `check` against `run` of the same workshop: identical output [<= 1.1x], a volatile
  3-row table [<= 1.3x];
- peak memory while one command prints 200 MB, against the output's size [<= 1.2x].

`--against CHECKOUT` sets this checkout beside another (the branch point of a change, say, as
a `git worktree`), rounds alternating: the per-command cost of `run --quiet`, of Session.run
alone, and of `check`, after / before [<= 1.05x]. `--tweaks` times what the session keeps
for speed at some cost to clarity, beside the per-command CPU of Session.run measured then.
"""
from __future__ import annotations

import argparse
import codecs
import dataclasses
import os
import pty
import resource
import select
import statistics
import subprocess
import sys
import tempfile
import termios
import time
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DEMORUN, ENV, ROOT, Figures, interleaved, run_main  # noqa: E402

sys.path.insert(0, str(ROOT))  # Session.run alone is this checkout's too, not an installed copy's

LINE = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"  # 64 bytes with its newline
MB = 1_000_000
# Pod names, restarts and ages change on every run, as a cluster's do; the suffix's first character
# comes from the digits Kubernetes draws suffixes from (4-9), so every table matches its `##` block.
TABLE = """\
printf 'NAME                   READY   STATUS    RESTARTS   AGE\\n\
web-5d8f7c9b4-%s   1/1     Running   %s          %ss\\n\
web-5d8f7c9b4-%s   1/1     Running   0          %ss\\n' $((RANDOM % 6 + 4))x7q2 $((RANDOM % 5)) $RANDOM p4w2r $RANDOM
## NAME                   READY   STATUS    RESTARTS   AGE
## web-5d8f7c9b4-xk2lq    1/1     Running   0          40s
## web-5d8f7c9b4-p4w2r    1/1     Running   0          41s
"""


def floor_loop(count: int, command: str) -> None:
    """The floor, in a process of its own: bash on a pty, one write, read to the marker."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp("bash", ["bash", "--norc", "--noprofile", "--noediting", "-i"])
    attrs = termios.tcgetattr(fd)
    attrs[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, attrs)

    def until_marker() -> None:
        while select.select([fd], [], [], 10)[0]:
            if os.read(fd, 65536).endswith(b"\x1d"):
                return
        raise SystemExit("the floor shell stopped answering")

    os.write(fd, b"PS1=; PS2=; PROMPT_COMMAND=\"printf '\\\\x1d'\"\n")
    until_marker()
    line = command.encode() + b"\n"
    for _ in range(count):
        os.write(fd, line)
        until_marker()
    os.kill(pid, 9)
    os.waitpid(pid, 0)


def measured(argv: list[str], cwd: Path, env: dict[str, str] = ENV) -> tuple[float, float]:
    """(wall, CPU) seconds of a command and everything it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')}")
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def round_trip(figures: Figures, folder: Path, rounds: int, small: int, large: int) -> None:
    for command in ("true", "echo hi"):
        for count in (small, large):
            (folder / f"w{count}.md").write_text("```bash\n" + f"{command}\n" * count + "```\n")
        cases = {}
        for count in (small, large):
            cases[f"floor {count}"] = lambda c=count, command=command: measured(
                [sys.executable, __file__, "--floor", str(c), command], folder)
            cases[f"run {count}"] = lambda c=count: measured([*DEMORUN, "run", "--quiet", f"w{c}.md"], folder)
        seen: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(rounds):
            for name, measure in cases.items():
                seen[name].append(measure())

        def per_command(who: str, index: int, seen: dict[str, list[tuple[float, float]]] = seen) -> float:
            spans = [(big[index] - little[index]) / (large - small)
                     for big, little in zip(seen[f"{who} {large}"], seen[f"{who} {small}"], strict=True)]
            return sorted(spans)[len(spans) // 2] * 1e6

        for index, kind in ((0, "wall"), (1, "CPU")):
            figures.ratio(f"`{command}` round trip, {kind}, us (run / floor)", per_command("run", index),
                          per_command("floor", index), 1.5)


def _cpu_of(pid: int) -> float:
    """CPU seconds a live process has used, to the nanosecond (/proc/PID/schedstat: its stat
    counts clock ticks, 10 ms each, and bash spends about 50 ms on 5,000 commands)."""
    with open(f"/proc/{pid}/schedstat", "rb") as f:
        return int(f.read().split()[0]) / 1e9


class _InProcessFloor:
    """The floor loop in this process, so it can be set beside Session.run command for command."""

    def __init__(self) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvp("bash", ["bash", "--norc", "--noprofile", "--noediting", "-i"])
        attrs = termios.tcgetattr(self.fd)
        attrs[3] &= ~termios.ECHO
        termios.tcsetattr(self.fd, termios.TCSANOW, attrs)
        os.write(self.fd, b"PS1=; PS2=; PROMPT_COMMAND=\"printf '\\\\x1d'\"\n")
        self.run("true")

    def run(self, command: str) -> None:
        os.write(self.fd, command.encode() + b"\n")
        while select.select([self.fd], [], [], 10)[0]:
            if os.read(self.fd, 65536).endswith(b"\x1d"):
                return

    def close(self) -> None:
        os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def session_round_trip(figures: Figures, rounds: int, count: int) -> None:
    """The session's own share: Session.run against the floor loop, both in this process."""
    from runner.session.session import Session

    for command in ("true", "echo hi"):
        def loop(run, pid: int, command: str = command) -> tuple[float, float, float]:
            """Per command: wall, CPU of both processes, and bash's part of that CPU (us)."""
            python, bash, start = time.process_time(), _cpu_of(pid), time.perf_counter()
            for _ in range(count):
                run(command)
            wall, python, bash = time.perf_counter() - start, time.process_time() - python, _cpu_of(pid) - bash
            return wall / count * 1e6, (python + bash) / count * 1e6, bash / count * 1e6

        def floor() -> tuple[float, float]:
            shell = _InProcessFloor()
            try:
                return loop(shell.run, shell.pid)
            finally:
                shell.close()

        def session(command: str = command) -> tuple[float, float]:
            with Session(read_ahead=True) as bash:
                later = [command] * 64  # what the engine offers: the next commands of the plan

                def run(text: str) -> None:
                    bash.run(text, ahead=() if bash.queued else later)
                return loop(run, bash._bash.pid)

        seen = {"floor": [], "session": []}
        for _ in range(rounds):
            seen["floor"].append(floor())
            seen["session"].append(session())
        for index, kind in ((0, "wall"), (1, "CPU")):
            values = {name: sorted(v[index] for v in runs)[len(runs) // 2] for name, runs in seen.items()}
            figures.ratio(f"`{command}` Session.run alone, {kind}, us (session / floor)", values["session"],
                          values["floor"], 1.5)
        # Where the CPU goes: what bash itself spends (prompts, the group and its </dev/null) against
        # the floor's bash, and the rest, this process's Python; no target, a guide for the next pass.
        share = {name: sorted((v[1] - v[2], v[2]) for v in runs)[len(runs) // 2] for name, runs in seen.items()}
        print(f"  `{command}` CPU per command, Python + bash: session {share['session'][0]:.1f} + "
              f"{share['session'][1]:.1f} us, floor {share['floor'][0]:.1f} + {share['floor'][1]:.1f} us", flush=True)


def check_against_run(figures: Figures, folder: Path, rounds: int, count: int) -> None:
    (folder / "same.md").write_text("```bash\n" + "echo hi\n## hi\n" * count + "```\n")
    (folder / "table.md").write_text("```bash\n" + TABLE * count + "```\n")
    for name, target, label in (("same.md", 1.1, "identical output"), ("table.md", 1.3, "volatile 3-row table")):
        times = interleaved({
            "run": lambda n=name: measured([*DEMORUN, "run", "--quiet", n], folder)[0],
            "check": lambda n=name: measured([*DEMORUN, "check", n], folder)[0]}, rounds)
        figures.ratio(f"check / run, {count} commands, {label}, s", times["check"], times["run"], target)


def memory(figures: Figures, size: int) -> None:
    for streamed in (False, True):
        argv = [sys.executable, __file__, "--memory", str(size)] + (["--streamed"] if streamed else [])
        grown = float(subprocess.run(argv, capture_output=True, text=True, check=True, env=ENV).stdout)
        how = "streamed to a listener" if streamed else "held"
        figures.ratio(f"peak memory for {size // MB} MB of output ({how}), MB", grown / MB, size / MB, 1.2)


def high_water() -> int:
    """Peak resident memory of this process so far, in bytes (VmHWM)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def memory_child(size: int, streamed: bool) -> None:
    from runner.session.session import Session

    with Session() as session:
        session.run(f"yes {LINE} | head -c 1000")
        before = high_water()
        outcome = session.run(f"yes {LINE} | head -c {size}", on_output=(lambda chunk: None) if streamed else None)
        after = high_water()
        assert len(outcome.output) == size, len(outcome.output)
    print(after - before)


# Session.run in a process of its own, from whichever checkout PYTHONPATH names (run it outside
# any checkout: `-c` puts the current folder first): per command, wall and CPU (this process and
# bash, whose CPU /proc/PID/schedstat gives to the nanosecond, as _cpu_of) in microseconds.
_SESSION_LOOP = """
import os, sys, time
from runner.session.session import Session
count, command = int(sys.argv[1]), sys.argv[2]
def cpu(pid):
    with open(f"/proc/{pid}/schedstat", "rb") as f:
        return int(f.read().split()[0]) / 1e9
with Session(read_ahead=True) as session:
    later = [command] * 64
    def run(text):
        session.run(text, ahead=() if session.queued else later)
    for _ in range(100):
        run(command)
    pid = session._bash.pid
    python, bash, start = time.process_time(), cpu(pid), time.perf_counter()
    for _ in range(count):
        run(command)
    wall, python, bash = time.perf_counter() - start, time.process_time() - python, cpu(pid) - bash
print(wall / count * 1e6, (python + bash) / count * 1e6)
"""


def _median(values: list[float]) -> float:
    return statistics.median(values)


def against(figures: Figures, folder: Path, other: Path, rounds: int, small: int, large: int) -> None:
    """Per-command cost here against `other`, a checkout of the code before a change; the two
    take turns in every round, so both see the same machine."""
    checkouts = {"before": other.resolve(), "after": ROOT}
    envs = {name: {**ENV, "PYTHONPATH": str(path)} for name, path in checkouts.items()}
    print(f"  before: {checkouts['before']}; after: {checkouts['after']}", flush=True)
    for command in ("true", "echo hi"):
        for count in (small, large):
            (folder / f"w{count}.md").write_text("```bash\n" + f"{command}\n" * count + "```\n")
        spans: dict[str, list[tuple[float, float]]] = {name: [] for name in checkouts}
        for _ in range(rounds):
            for name, env in envs.items():
                little = measured([*DEMORUN, "run", "--quiet", f"w{small}.md"], folder, env)
                big = measured([*DEMORUN, "run", "--quiet", f"w{large}.md"], folder, env)
                spans[name].append(((big[0] - little[0]) / (large - small), (big[1] - little[1]) / (large - small)))
        for index, kind in ((0, "wall"), (1, "CPU")):
            after = _median([v[index] for v in spans["after"]]) * 1e6
            before = _median([v[index] for v in spans["before"]]) * 1e6
            figures.ratio(f"`{command}` run --quiet per command, {kind}, us (after / before)", after, before, 1.05)
        loops: dict[str, list[tuple[float, float]]] = {name: [] for name in checkouts}
        for _ in range(rounds):
            for name, env in envs.items():
                done = subprocess.run([sys.executable, "-c", _SESSION_LOOP, str(large), command], env=env,
                                      cwd=folder, capture_output=True, text=True, check=True)
                wall, cpu = map(float, done.stdout.split())
                loops[name].append((wall, cpu))
        for index, kind in ((0, "wall"), (1, "CPU")):
            after = _median([v[index] for v in loops["after"]])
            before = _median([v[index] for v in loops["before"]])
            figures.ratio(f"`{command}` Session.run alone, {kind}, us (after / before)", after, before, 1.05)
    (folder / "same.md").write_text("```bash\n" + "echo hi\n## hi\n" * large + "```\n")
    times = {name: [] for name in checkouts}
    for _ in range(rounds):
        for name, env in envs.items():
            times[name].append(measured([*DEMORUN, "check", "same.md"], folder, env)[0])
    figures.ratio(f"check, {large} commands, identical output, s (after / before)", _median(times["after"]),
                  _median(times["before"]), 1.05)


def tweaks(rounds: int, count: int) -> None:
    """What each speed tweak of the session saves per command, beside Session.run's own CPU."""
    from runner.results import Escalation
    from runner.session.exchange import Reply, Request
    from runner.session.framing import _DEFINES_BUILTIN, is_blank
    from runner.session.pty_io import Output, wait_ready

    class _AlwaysIncremental(Output):
        def _add(self, data: bytes, final: bool = False) -> None:
            if self._decoder is None:
                self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
            text, self._text = self._text, ""
            text += self._decoder.decode(data, final)
            self._text = text

    def _one_line(kind: type[Output]) -> str:
        output = kind()
        output.append(b"hi\r\n")
        return output.text()

    @dataclasses.dataclass(frozen=True)
    class FrozenReply:
        started: bool
        status: int | None
        output: str
        said: str = ""
        stage: Escalation = Escalation.NONE
        stuck: bool = False
        died: bool = False
        note: str | None = None
        began: float = 0.0
        early: bool = False

    @dataclasses.dataclass(frozen=True)
    class FrozenRequest:
        chunks: tuple[bytes, ...]
        deadline: float
        on_output: Callable[[bytes], None] | None = None
        interactive: bool = False
        keys: int | None = None
        keys_filter: object = None
        ahead: tuple[tuple[str, bytes], ...] = ()
        ahead_limit: float = 0.0
        watch_idle: bool = False
        sent: bool = False
        escalate: bool = True

    def per_call(statement: Callable[[], object], number: int = 20000) -> float:
        return min(timeit.repeat(statement, number=number, repeat=rounds)) / number * 1e6

    reading, writing = os.pipe()
    os.write(writing, b"x")  # always ready: the wait returns at once, as a command's output does
    poller = select.poll()
    poller.register(reading, select.POLLIN)

    text = "kubectl get pods -n shop -o wide"
    done = subprocess.run([sys.executable, "-c", _SESSION_LOOP, str(count), "true"], env=ENV,
                          cwd=tempfile.gettempdir(), capture_output=True, text=True, check=True)
    command_cpu = float(done.stdout.split()[1])
    print(f"  Session.run of `true`, CPU per command (Python and bash): {command_cpu:.1f} us", flush=True)
    rows = [
        ("Reply as a named tuple / as a frozen dataclass", per_call(lambda: Reply(True, 0, "", "", began=1.0)),
         per_call(lambda: FrozenReply(True, 0, "", "", began=1.0))),
        ("Request as a named tuple / as a frozen dataclass",
         per_call(lambda: Request((b"",), 1.0, None, False, None, None, (), 0.0, True, True)),
         per_call(lambda: FrozenRequest((b"",), 1.0, None, False, None, None, (), 0.0, True, True))),
        ("one poll object kept / a poll object per wait",
         per_call(lambda: poller.poll(0)), per_call(lambda: wait_ready([reading], [], 0))),
        ("output decoded whole / through an incremental decoder",
         per_call(lambda: _one_line(Output)), per_call(lambda: _one_line(_AlwaysIncremental))),
        ("a substring test before the regex / the regex alone",
         per_call(lambda: "builtin" in text and _DEFINES_BUILTIN.search(text)),
         per_call(lambda: _DEFINES_BUILTIN.search(text))),
        ("is_blank's first-character test / the full test",
         per_call(lambda: is_blank(text)),
         per_call(lambda: all(not line.strip() or line.lstrip().startswith("#") for line in text.split("\n")))),
    ]
    for label, kept, plain in rows:
        print(f"  {label:<58} {kept:6.2f} / {plain:6.2f} us: saves {plain - kept:5.2f} us,"
              f" {(plain - kept) / command_cpu:5.1%} of a command", flush=True)
    os.close(reading)
    os.close(writing)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer commands and rounds")
    parser.add_argument("--memory", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--streamed", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--floor", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--against", type=Path, metavar="CHECKOUT", help="this checkout against another one")
    parser.add_argument("--tweaks", action="store_true", help="what the session's speed tweaks save")
    opts = parser.parse_args()
    if opts.memory:
        memory_child(opts.memory, opts.streamed)
        return 0
    if opts.floor:
        floor_loop(int(opts.floor[0]), opts.floor[1])
        return 0
    rounds = 3 if opts.quick else 5
    if opts.tweaks:
        tweaks(rounds, 1000 if opts.quick else 3000)
        return 0
    if opts.against:
        figures = Figures(f"this checkout's per-command cost against {opts.against}, rounds alternating")
        with tempfile.TemporaryDirectory() as tmp:
            against(figures, Path(tmp), opts.against, rounds * 2 + 1, 1000, 2000 if opts.quick else 5000)
        return figures.done()
    figures = Figures("demorun's per-command cost and memory against floors measured now")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        round_trip(figures, folder, rounds, 1000, 2000 if opts.quick else 5000)
        session_round_trip(figures, rounds, 1000 if opts.quick else 3000)
        check_against_run(figures, folder, rounds, 500 if opts.quick else 2000)
    memory(figures, (50 if opts.quick else 200) * MB)
    return figures.done()


if __name__ == "__main__":
    run_main(main)
