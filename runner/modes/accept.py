"""`check --interactive`: each `##` block that differs, shown with its diff, accepted, skipped or quit."""
from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

import click

from ..engine.authoring import no_terminal_reason
from ..errors import DemorunError
from ..printable import visible
from .update import Proposed, unified_diff, updated_text

PROMPT = "accept, skip or quit? [a/s/q] "
_ANSWERS = {"a": "accept", "accept": "accept", "y": "accept", "yes": "accept",
            "s": "skip", "skip": "skip", "n": "skip", "no": "skip", "": "skip",
            "q": "quit", "quit": "quit"}


class Asker:
    """Asks about one block at a time; what is accepted is written as --update writes it."""

    def __init__(self, read_line: Callable[[str], str | None], echo: Callable[[str], None]):
        self.read_line = read_line
        self.echo = echo

    @classmethod
    def on_terminal(cls) -> Asker:
        """An asker on the terminal; a usage error when standard input is not one (nobody could answer)."""
        reason = no_terminal_reason()
        if reason is not None:
            raise DemorunError(f"check --interactive asks at a terminal, and {reason} "
                               "(--update writes every block without asking)")
        return cls(_read_line, lambda text: click.echo(text, nl=False))

    def choose(self, proposed: Sequence[Proposed], redact: Callable[[str], str]) -> list[Proposed]:
        """The proposed edits accepted, in order; quitting leaves the rest unwritten."""
        accepted: list[Proposed] = []
        for number, item in enumerate(proposed, 1):
            step, _, edit = item
            try:
                with open(step.loc.file, encoding="utf-8", newline="") as source:
                    old = source.read()
            except (OSError, UnicodeDecodeError) as exc:
                self.echo(f"demorun: {step.loc}: cannot read it to show the change: {exc}\n")
                continue
            first = step.text.split("\n", 1)[0]
            self.echo(visible(redact(f"\n[{number}/{len(proposed)}] {step.loc}: {first}\n")))
            self.echo(visible(redact(unified_diff(step.loc.file, old, updated_text(old, [edit])))))
            answer = self._answer()
            if answer == "quit":
                self.echo(f"quit: {len(proposed) - number + 1} block(s) left as they are\n")
                break
            if answer == "accept":
                accepted.append(item)
        self.echo(f"{len(accepted)} of {len(proposed)} block(s) accepted\n")
        return accepted

    def _answer(self) -> str:
        while True:
            line = self.read_line(PROMPT)
            if line is None:  # end of input: nobody answers any more
                return "quit"
            answer = _ANSWERS.get(line.strip().lower())
            if answer is not None:
                return answer
            self.echo("answer a (write this block), s (leave it) or q (leave it and every one after)\n")


def _read_line(prompt: str) -> str | None:
    click.echo(prompt, nl=False)
    line = sys.stdin.readline()
    return line if line else None
