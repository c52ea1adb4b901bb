"""The `demorun` command's entry: `--version` and a plain `lint` answer before click loads.

Editors and hooks call `demorun --version` to find the tool and `demorun lint FILE` on every
save; click alone costs more than the rest of the first answer and a third of the second.
"""
from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv == ["--version"]:
        from . import __version__

        print(f"demorun, version {__version__}")  # as click.version_option prints it
        return
    if argv[:1] == ["lint"] and _plain_lint(argv[1:]):
        from .modes.lint import run_lint

        paths = [arg for arg in argv[1:] if arg != "--no-init"]
        call(run_lint, paths, no_init=len(paths) < len(argv) - 1)  # exits with lint's code
    from .cli import main as commands

    commands()


def _plain_lint(args: list[str]) -> bool:
    """Paths and --no-init only: anything else (--help, a typo, no path) is click's to answer."""
    return any(arg != "--no-init" for arg in args) and all(
        arg == "--no-init" or (arg and not arg.startswith("-")) for arg in args)


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
