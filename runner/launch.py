"""The `demorun` command's entry: `--version`, and plain `lint` and `present`, start before click loads.

Editors and hooks call `demorun --version` to find the tool and `demorun lint FILE` on every
save, and a presenter waits for `present`'s first screen in front of an audience; importing
click costs about as much again as each of these answers (docs/performance.md). The options
are click's, read from its own table (runner/fast_table.py, made from runner/cli.py); anything
this path does not recognise (help, a typo, an unusual spelling, a bad value) is click's to answer.
"""
from __future__ import annotations

import os
import sys


def main() -> None:
    if None in (sys.stdin, sys.stdout, sys.stderr):  # the caller closed one (`>&-`)
        from .streams import open_standard_streams

        closed = open_standard_streams()
        if closed:
            print(f"demorun: {closed}", file=sys.stderr)
    try:
        os.getcwd()
    except OSError:
        print("demorun: the current folder no longer exists (deleted?): change to one that does", file=sys.stderr)
        raise SystemExit(2) from None
    argv = sys.argv[1:]
    if "_DEMORUN_COMPLETE" in os.environ:  # shell completion asks click
        argv = []
    if argv == ["--version"]:
        from . import __version__

        print(f"demorun, version {__version__}")  # as click.version_option prints it
        return
    if argv[:1] in (["lint"], ["present"]):
        values = fast_values(argv[0], argv[1:])
        if values is not None:
            from . import commands

            getattr(commands, argv[0])(**values)  # exits with the command's code
    from .cli import main as click_main

    click_main()


def fast_values(command: str, args: list[str]) -> dict[str, object] | None:
    """What click would hand the body of `command` for `args`; None where click must answer.

    Options come before the arguments; an option spelt `--opt=value`, a value starting with
    `-`, a value the option's type refuses, or an option after the first argument is click's.
    """
    from .fast_table import COMMANDS

    spec = COMMANDS[command]
    values: dict[str, object] = {}
    repeated: dict[str, list[object]] = {}
    for name, kind, _, multiple in spec["options"].values():
        if multiple:
            repeated[name] = []
        else:
            values[name] = False if kind == "flag" else None
    index = 0
    while index < len(args) and args[index] in spec["options"]:
        name, kind, must_exist, multiple = spec["options"][args[index]]
        if kind == "flag":
            values[name] = True
        else:
            index += 1
            if index >= len(args) or args[index].startswith("-"):
                return None
            value = _value(kind, must_exist, args[index])
            if value is None:
                return None
            if multiple:
                repeated[name].append(value)
            else:
                values[name] = value
        index += 1
    rest = args[index:]
    if not rest or any(arg.startswith("-") or not arg for arg in rest):
        return None
    for name, nargs in spec["arguments"]:
        if nargs == 1:
            values[name], rest = rest[0], rest[1:]
        else:
            values[name], rest = tuple(rest), []
    return values | {name: tuple(found) for name, found in repeated.items()}


def _value(kind: str, must_exist: bool, text: str) -> object:
    """The option's value as its click type makes it; None where click would refuse it or must decide."""
    if kind == "text":
        return text
    if kind == "path":  # click.Path(dir_okay=False), and exists=True where must_exist
        if os.path.isdir(text) or (must_exist and not os.path.exists(text)) or (
                os.path.exists(text) and not os.access(text, os.R_OK)):
            return None
        return text
    if kind == "optional":
        return None
    from . import arguments

    try:
        return getattr(arguments, kind)(text)
    except ValueError:
        return None
