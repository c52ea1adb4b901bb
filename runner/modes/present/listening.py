"""What the live show hears from the engine, and how a command's drift reads on stage.

Shown commands' output streams to the screen and is kept for `o`; hidden commands' output is
kept for when one of them ends the shell (runner/modes/present/endings.py).
"""
from __future__ import annotations

from ...engine.listener import Listener
from ...model import SourceLoc, Step
from ...results import StepResult
from ...terminal.pager import OUTPUT_KEPT
from ...terminal.screen import Screen
from .endings import HiddenTail


class LiveListener(Listener):
    """Streams the output of shown commands to the screen and keeps what `o` and failures need."""

    def __init__(self, screen: Screen):
        self.screen = screen
        self.visible = False
        self.shown_output = bytearray()  # the last shown command's, from its start, for `o`
        self.shown_cut = False
        self.hidden = HiddenTail()  # what the hidden commands since the last shown one printed
        self.notify = screen.notice

    def on_step_start(self, index: int, step: Step) -> None:
        if self.visible:
            self.shown_output.clear()
            self.shown_cut = False
            self.hidden.clear()

    def on_output(self, step: Step, chunk: bytes) -> None:
        if not self.visible:
            return
        self.screen.write(chunk)
        room = OUTPUT_KEPT - len(self.shown_output)
        self.shown_output += chunk[:max(0, room)]
        self.shown_cut = self.shown_cut or len(chunk) > room

    def on_step_done(self, result: StepResult) -> None:
        if result.outcome is None:
            return
        if not self.visible:
            self.hidden.add(result.outcome.output)
        if self.visible:
            # What a command switched on and left on (a full-screen program that crashed or was
            # stopped with Ctrl-C: the alternate screen, a hidden cursor, mouse reporting,
            # application cursor keys) is switched off before the show writes again.
            self.screen.reset_leftovers()

    def on_notice(self, loc: SourceLoc, message: str) -> None:
        self.notify(f"{loc}: {message}")


def live_step(step: Step) -> Step:
    """A command as the live show runs it: `@stop-after` ones run until the presenter stops them.

    A `##` block that matches says the command did what the author saw, so its exit status
    alone (`kubectl logs` of a pod still starting, shown on purpose) is no drift on stage.
    """
    modifiers = step.modifiers
    if modifiers.stop_after is not None:
        modifiers = modifiers._replace(stop_after=None, exit=None)
    elif step.expected is not None and modifiers.exit == 0:
        modifiers = modifiers._replace(exit=None)
    return step if modifiers is step.modifiers else step._replace(modifiers=modifiers)


def drift_mark(result: StepResult) -> str:
    """The discreet line under a command that did not go as written: what, in a few words."""
    reason = result.verdict.message.removeprefix(f"{result.step.loc}: ")
    reason = reason.split(" from ## block", 1)[0]
    if len(reason) > 50:
        reason = reason[:49] + "…"
    return f"≠ {reason} (d: {'diff' if reason.startswith('output differs') else 'details'})"
