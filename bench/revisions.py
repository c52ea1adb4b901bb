"""This tree against an earlier revision of it, measured in the same run: nothing got slower.

Run by hand: `python3 bench/revisions.py --base REV [--rounds N]` (`make bench-revisions BASE=REV`).
REV is checked out into a temporary worktree; both trees are run with this interpreter, rounds
alternating, and each figure is this tree's median over the base's [target <= 1.05x]:
- per command: `run --quiet` of 2,000 `true` commands, less that of 200, over 1,800;
- a table checked: `check` of 200 commands whose 3-row tables differ in their volatile columns;
- start-up: `--version`, `lint ONE.md`;
- `present`'s first screen on a pty, with and without a dozen quick hidden commands before it.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CORPUS, ENV, ROOT, Figures, interleaved, run_main, timed  # noqa: E402
from session import TABLE  # noqa: E402
from startup import OWN, SHOW, first_screen  # noqa: E402

TARGET = 1.05
ONE = CORPUS / "sma" / "linkerd-101" / "README.md"
HIDDEN_SETUP = "".join(f"```bash\nexport STEP_{n}=ready\n```\n\n" for n in range(12)) + SHOW


def workshops(folder: Path) -> dict[str, Path]:
    """The workshops every figure runs, written once for both trees."""
    files = {
        "true-2000": "```bash\n" + "true\n" * 2000 + "```\n",
        "true-200": "```bash\n" + "true\n" * 200 + "```\n",
        "tables": "```bash\n" + TABLE * 200 + "```\n",
        "show": SHOW,
        "hidden": HIDDEN_SETUP,
    }
    paths = {}
    for name, text in files.items():
        paths[name] = folder / f"{name}.md"
        paths[name].write_text(text)
    return paths


def runner(tree: Path) -> Callable[..., float]:
    """Times `python -m runner ARGS` from `tree`; the exit status must be 0."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def run(*args: str, cwd: Path) -> float:
        def once() -> None:
            done = subprocess.run([sys.executable, "-m", "runner", *args], env=env, cwd=cwd, capture_output=True)
            if done.returncode:
                raise SystemExit(f"{tree}: demorun {' '.join(args)} exited {done.returncode}: "
                                 f"{done.stderr.decode(errors='replace')[-400:]}")
        return timed(once)

    return run


def screen(tree: Path, file: Path) -> float:
    """`present`'s first screen with `tree`'s code (first_screen runs with common.ENV)."""
    saved = ENV["PYTHONPATH"]
    ENV["PYTHONPATH"] = str(tree)
    try:
        return first_screen([sys.executable, "-m", "runner", "present", "--no-init", file.name], file.parent)
    finally:
        ENV["PYTHONPATH"] = saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the earlier revision (a commit, branch or tag)")
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    lint_file = ONE if ONE.exists() else OWN
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base), args.base], cwd=ROOT, check=True)
        try:
            files = workshops(Path(tmp))
            cwd = Path(tmp)
            trees = {"base": base, "this": ROOT}
            commands = {
                "2000": ("run", "--quiet", "--no-init", str(files["true-2000"])),
                "200": ("run", "--quiet", "--no-init", str(files["true-200"])),
                "tables": ("check", "--no-init", str(files["tables"])),
                "version": ("--version",),
                "lint": ("lint", "--no-init", str(lint_file)),
            }
            cases: dict[str, Callable[[], float]] = {}
            for name, tree in trees.items():
                run = runner(tree)
                for key, argv in commands.items():
                    cases[f"{name} {key}"] = lambda run=run, argv=argv: run(*argv, cwd=cwd)
                for key in ("show", "hidden"):
                    cases[f"{name} {key}"] = lambda tree=tree, key=key: screen(tree, files[key])
            times = interleaved(cases, args.rounds)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False)
    figures = Figures(f"this tree against {args.base}, medians of {args.rounds} interleaved rounds")

    def per_command(name: str) -> float:
        return (times[f"{name} 2000"] - times[f"{name} 200"]) / 1800 * 1e6

    figures.ratio("run --quiet, per `true` command, us", per_command("this"), per_command("base"), TARGET)
    for key, label in (("tables", "check of 200 volatile 3-row tables, ms"), ("version", "--version, ms"),
                       ("lint", "lint ONE.md, ms"), ("show", "present, first screen, ms"),
                       ("hidden", "present, first screen after 12 hidden commands, ms")):
        figures.ratio(label, times[f"this {key}"] * 1000, times[f"base {key}"] * 1000, TARGET)
    return figures.done()


if __name__ == "__main__":
    run_main(main)
