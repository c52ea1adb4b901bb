"""Start-up of demorun against demosh, the tool workshops were written for, measured in the same run.

Run by hand: `python3 bench/startup.py [--rounds N]`. Figures (targets in brackets), medians of
interleaved rounds: `demorun --version` against `demosh --version` [<= 1.1x]; `demorun lint
ONE.md` against `demosh --version` [<= 1.5x]; `demorun present` until the first prose is on
a pty, against `demosh --no-blurb` showing the same workshop [<= 1.5x], and the same after a
dozen quick hidden setup commands [<= 1.5x]. Needs demosh (the `bench` extra); without it,
one clear line and exit status 2.
"""
from __future__ import annotations

import argparse
import fcntl
import os
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402
    CORPUS,
    DEMORUN,
    ENV,
    ROOT,
    Figures,
    interleaved,
    run_main,
    timed,
    tool,
)

ONE = CORPUS / "sma" / "linkerd-101" / "README.md"
OWN = ROOT / "tests" / "fixtures" / "parse" / "workshops" / "directives.md"
SHOW = """<!-- @SHOW -->

# A workshop

The first words on the screen: FIRST-SCREEN.

```bash
echo hello
```
"""
# The same after a dozen quick hidden commands, as a workshop's setup (variables, functions, checks).
SETUP = "# Setup\n\n```bash\n" + "".join(
    f"export STEP{n}=value-{n}\n" if n % 3 else f"step{n}() {{ echo {n}; }}\n" for n in range(12)
) + "```\n\n" + SHOW


def first_screen(argv: list[str], cwd: Path, needle: bytes = b"FIRST-SCREEN") -> float:
    """Seconds until `needle` is on the pty the command runs on."""
    import pty

    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execvpe(argv[0], argv, ENV)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # a terminal's size, as a person has
    seen = b""
    try:
        while needle not in seen:
            if not select.select([fd], [], [], 20)[0]:
                raise SystemExit(f"{' '.join(argv)} showed nothing in 20 s: {seen[-200:]!r}")
            try:
                seen = seen[-200:] + os.read(fd, 65536)
            except OSError:
                raise SystemExit(f"{' '.join(argv)} ended before its first screen: {seen[-200:]!r}") from None
        return time.perf_counter() - start
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(fd)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    demosh = tool("demosh")
    workshop = str(ONE if ONE.exists() else OWN)

    def quiet(argv: list[str]) -> float:
        return timed(lambda: subprocess.run(argv, env=ENV, cwd=ROOT, capture_output=True))

    figures = Figures(f"start-up against demosh ({workshop} for lint)")
    times = interleaved({
        "demosh --version": lambda: quiet([demosh, "--version"]),
        "demorun --version": lambda: quiet([*DEMORUN, "--version"]),
        "demorun lint": lambda: quiet([*DEMORUN, "lint", "--no-init", workshop]),
    }, args.rounds)
    figures.ratio("demorun --version / demosh --version, ms", times["demorun --version"] * 1000,
                  times["demosh --version"] * 1000, 1.1)
    figures.ratio("demorun lint ONE.md / demosh --version, ms", times["demorun lint"] * 1000,
                  times["demosh --version"] * 1000, 1.5)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "show.md").write_text(SHOW)
        (folder / "setup.md").write_text(SETUP)
        shown = interleaved({
            "demosh": lambda: first_screen([demosh, "--no-blurb", "show.md"], folder),
            "demorun": lambda: first_screen([*DEMORUN, "present", "show.md"], folder),
            "demosh setup": lambda: first_screen([demosh, "--no-blurb", "setup.md"], folder),
            "demorun setup": lambda: first_screen([*DEMORUN, "present", "setup.md"], folder),
        }, args.rounds)
    figures.ratio("demorun present / demosh, first screen, ms", shown["demorun"] * 1000, shown["demosh"] * 1000, 1.5)
    figures.ratio("the same after 12 hidden setup commands, ms", shown["demorun setup"] * 1000,
                  shown["demosh setup"] * 1000, 1.5)
    return figures.done()


if __name__ == "__main__":
    run_main(main)
