"""The presenter's tools at a wait: `d` the difference, `o` the output again, `!` the shell, `g` a section.

Each takes the screen for a while (a page over it, a pager, the workshop's shell) and gives it
back as it was; keys pressed meanwhile are forgotten once it is back (Keyboard.discard), so
none of them acts on the show.
"""
from __future__ import annotations

from ...errors import DemorunError
from ...model import Plan
from ...printable import visible
from ...results import StepResult
from ...session.session import Session
from ...terminal.keys import BACKSPACE, CTRL_C, CTRL_D, ENTER, ESCAPE, SPACE, Keyboard
from ...terminal.pager import show_in_pager
from ...terminal.screen import DIM, GREEN, RED, YELLOW, Screen
from ...verify.diff import diff_line_kind
from .notes import Channel
from .sections import find_section, sections

_DIFF_STYLE = {"header": (DIM,), "hunk": (DIM,), "added": (GREEN,), "removed": (RED,), "": ()}


class Desk:
    """What the presenter can open at any wait, over the show."""

    def __init__(self, plan: Plan, session: Session, screen: Screen, keys: Keyboard, channel: Channel):
        self.plan = plan
        self.session = session
        self.screen = screen
        self.keys = keys
        self.channel = channel

    def show_diff(self, result: StepResult | None) -> None:
        """`d`: why the last command marked (or a hidden one) did not go as written, over the show."""
        if result is None:
            self.channel.tell("(every command so far went as written)")
            return
        width = self.screen.width - 1
        lines = [self.screen.style(_cut(visible(result.verdict.message), width), YELLOW)]
        lines += [self.screen.style(_cut(visible(line), width), *_DIFF_STYLE[diff_line_kind(line)])
                  for line in result.verdict.details]
        self.show_page(lines)

    def show_page(self, lines: list[str]) -> None:
        """Lines over the show; on the audience's terminal they stay until a key puts the show back."""
        if not self.channel.page_waits_for_key:
            self.channel.page(lines)
            return
        self.channel.page([*lines, "", self.screen.style("(any key: back to the show)", DIM)])
        try:
            self.keys.key()
        finally:
            self.keys.discard()
            self.channel.close_page()

    def page_output(self, output: bytes, cut: bool) -> None:
        """`o`: the last shown command's output in a pager, from its first line."""
        if not output:
            self.channel.tell("(no output to show again yet)")
            return
        with self.keys.suspended():
            problem = show_in_pager(output, cut)
        self.keys.discard()
        if problem:
            self.channel.tell(problem)

    def shell(self, on_output) -> None:
        """`!`: the workshop's own shell, with its variables and directory, until the presenter exits it."""
        self.screen.newline_if_needed()
        self.screen.line("(the workshop's shell: `exit` or Ctrl-D to come back)", DIM)
        with self.keys.suspended():
            self.session.interact_shell(on_output=on_output)
        self.keys.discard()
        # The shell wrote past the screen's bookkeeping: Ctrl-D leaves the cursor after a prompt.
        self.screen.write("\r\x1b[K")
        self.screen.line("(back to the show)", DIM)

    def pick_section(self) -> int | None:
        """`g`: list the sections, read a number or part of a heading; ESC cancels."""
        choices = [s for s in sections(self.plan) if s.shown]
        if not choices:
            self.channel.tell("(no sections to go to)")
            return None
        width = self.screen.width - 1
        lines = [_cut(f"{number:>3}  {visible(section.title)}", width) for number, section in enumerate(choices, 1)]
        self.channel.page(["go to section:", *lines, ""])
        try:
            answer = self.read_line("number or title, RETURN to go, ESC cancels: ")
        finally:
            self.keys.discard()
            self.channel.close_page()
        if not answer:
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1].index
        try:
            return find_section(self.plan, answer).index
        except DemorunError:
            self.channel.tell(f"(no section {answer!r})")
            return None

    def read_line(self, prompt: str) -> str | None:
        """A short answer typed by the presenter, echoed on their channel only."""
        typed = ""
        while True:
            self.channel.page_input(prompt + typed)
            key = self.keys.key()
            if key == ENTER:
                return typed.strip()
            if key in (ESCAPE, CTRL_C, CTRL_D):
                return None
            if key == BACKSPACE:
                typed = typed[:-1]
            elif key == SPACE:
                typed += " "
            elif len(key) == 1 and key.isprintable():
                typed += key


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(0, width - 1)] + "…"
