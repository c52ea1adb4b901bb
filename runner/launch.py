"""The `demorun` command's entry: `--version` answers before click and the commands load.

Editors and hooks call `demorun --version` to find the tool; click alone costs more than
the rest of that answer.
"""
from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        from . import __version__

        print(f"demorun, version {__version__}")  # as click.version_option prints it
        return
    from .cli import main as commands

    commands()
