"""The `demorun` command's entry: `--version`, a plain `lint` and a plain `present` start before click loads.

Editors and hooks call `demorun --version` to find the tool and `demorun lint FILE` on every
save; click alone costs more than the rest of the first answer and a third of the second.
A presenter waits for `present`'s first screen in front of an audience. Anything these
short paths do not recognise (help, a typo, an unusual spelling) is click's to answer.
"""
from __future__ import annotations

import os
import sys

# `present`'s options (runner/cli.py): the keyword of run_present each sets; flags take no value.
PRESENT_FLAGS = {"--no-init": "no_init", "--isolate": "isolate"}
PRESENT_VALUES = {"--speed": "speed", "--from": "start_at", "--record": "record", "--notes": "notes",
                  "--timeout": "timeout", "--requires": "requires", "--kubeconfig": "kubeconfig"}


def main() -> None:
    argv = sys.argv[1:]
    if "_DEMORUN_COMPLETE" in os.environ:  # shell completion asks click
        argv = []
    if argv == ["--version"]:
        from . import __version__

        print(f"demorun, version {__version__}")  # as click.version_option prints it
        return
    if argv[:1] == ["lint"] and _plain_lint(argv[1:]):
        from .modes.lint import run_lint

        paths = [arg for arg in argv[1:] if arg != "--no-init"]
        call(run_lint, paths, no_init=len(paths) < len(argv) - 1)  # exits with lint's code
    if argv[:1] == ["present"]:
        options = present_options(argv[1:])
        if options is not None:
            from .present.start import run_present

            call(run_present, **options)  # exits with the show's code
    from .cli import main as commands

    commands()


def _plain_lint(args: list[str]) -> bool:
    """Paths and --no-init only: anything else (--help, a typo, no path) is click's to answer."""
    return any(arg != "--no-init" for arg in args) and all(
        arg == "--no-init" or (arg and not arg.startswith("-")) for arg in args)


def present_options(args: list[str]) -> dict | None:
    """run_present's arguments from `present`'s command line, as click would give them.

    None when click must answer: help, `--timings` (its value is optional), `--opt=value`,
    an option after FILE, or a value click would refuse (it then says why).
    """
    found: dict = {"no_init": False, "isolate": False, "requires": []}
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in PRESENT_FLAGS:
            found[PRESENT_FLAGS[arg]] = True
        elif arg in PRESENT_VALUES and index + 1 < len(args) and not args[index + 1].startswith("-"):
            index += 1
            value = _present_value(arg, args[index])
            if value is None:
                return None
            if arg == "--requires":
                found["requires"].append(value)
            else:
                found[PRESENT_VALUES[arg]] = value
        elif arg and not arg.startswith("-"):
            rest = args[index + 1:]
            if any(extra.startswith("-") for extra in rest):
                return None
            return {"file": arg, "args": rest, "speed": found.get("speed"), "start_at": found.get("start_at"),
                    "record": found.get("record"), "notes": found.get("notes"), "timings": None,
                    "timeout": found.get("timeout"), "no_init": found["no_init"],
                    "cluster": cluster_options("present", tuple(found["requires"]), found.get("kubeconfig"),
                                               isolate=found["isolate"])}
        else:
            return None
        index += 1
    return None


def _present_value(option: str, value: str):
    """An option's value as click's type for it makes it; None where click would refuse it."""
    if option == "--speed":
        try:
            return float(value)
        except ValueError:
            return None
    if option == "--timeout":
        from .parse.durations import parse_duration

        try:
            return parse_duration(value)
        except ValueError:
            return None
    if option in ("--record", "--kubeconfig") and (  # click.Path(dir_okay=False), --kubeconfig exists=True
            os.path.isdir(value) or (os.path.exists(value) and not os.access(value, os.R_OK))
            or (option == "--kubeconfig" and not os.path.exists(value))):
        return None
    return value


def cluster_options(mode: str, requires: tuple[str, ...], kubeconfig: str | None, isolate: bool = False,
                    no_isolate: bool = False, keep_clusters: bool = False):
    """--requires, --kubeconfig and isolation as the cluster guard takes them; present never cleans up.

    None for a `present` that names none of them: it has nothing for a cluster guard to do.
    """
    tools = tuple(dict.fromkeys(t for value in requires for t in value.replace(",", " ").split()))
    if mode == "present" and not (tools or kubeconfig or isolate):
        return None
    from .cluster import ClusterOptions

    if mode == "present":
        return ClusterOptions(requires=tools, isolate=isolate, kubeconfig=kubeconfig, cleanup=False)
    return ClusterOptions(requires=tools, isolate=not no_isolate, kubeconfig=kubeconfig,
                          keep_clusters=keep_clusters)


def _finish(code: int) -> None:
    try:
        sys.stdout.flush()
    except OSError:
        pass  # the terminal hung up; the exit code still tells
    raise SystemExit(code)


def _say(message: str) -> None:
    from .streams import echo

    try:
        echo(f"demorun: {message}", err=True)
    except OSError:
        pass


def call(fn, *args, **kwargs) -> None:
    """Run a command body; user errors become one line on stderr, never a traceback."""
    from .errors import Aborted, DemorunError
    from .streams import tolerate_closed_readers

    tolerate_closed_readers()
    try:
        code = fn(*args, **kwargs)
    except DemorunError as exc:
        _say(str(exc))
        _finish(exc.exit_code)
    except Aborted as exc:
        _say(str(exc))
        _finish(exc.exit_code)
    except KeyboardInterrupt:  # Ctrl-C outside a run (parsing, say), or hurrying a cleanup
        _say("interrupted")
        _finish(130)
    _finish(code)
