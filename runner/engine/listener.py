"""What a run tells the modes: one typed hook per event, called directly, never by name."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..model import SourceLoc, Step
from ..results import Outcome, StepResult, Verdict
from ..secrets import SecretTracker


class Run(Protocol):
    """What a listener may keep of the run it hears (the engine), told as the run starts."""

    secrets: SecretTracker  # the values to mask in what it shows, as seen so far

    def judge(self, step: Step, outcome: Outcome) -> Verdict:
        """How the run's policy reads a command's output against its `##` block."""
        ...


class Listener:
    """What happens during a run; presenters and reporters override what they need."""

    def on_start(self, run: Run) -> None:
        """The run is set up and nothing has run yet."""

    def on_text(self, step: Step, text: str) -> None:
        """Prose, commentary or an expanded @print of a SHOW section."""

    def on_step_start(self, index: int, step: Step) -> None:
        """A command is about to run."""

    def on_output(self, step: Step, chunk: bytes) -> None:
        """A piece of a running command's output, as the terminal showed it."""

    def on_step_done(self, result: StepResult) -> None:
        """A command ran, was rejected, or was skipped (with the reason in its verdict)."""

    def on_notice(self, loc: SourceLoc, message: str) -> None:
        """Something worth a warning that does not fail the run."""

    def uses_shell(self, step: Step) -> bool:
        """Whether hearing of this command asks the session something (then no later command may
        wait in bash's input while it runs: the answer must be the shell's state right after it)."""
        return False


class Broadcast(Listener):
    """Several listeners heard as one, in the order given."""

    def __init__(self, listeners: Sequence[Listener]):
        self.listeners = tuple(listeners)
        # Output comes chunk by chunk, many per command: only those that listen to it hear it.
        self._hearing = tuple(listener for listener in self.listeners
                              if type(listener).on_output is not Listener.on_output)

    def on_start(self, run: Run) -> None:
        for listener in self.listeners:
            listener.on_start(run)

    def on_text(self, step: Step, text: str) -> None:
        for listener in self.listeners:
            listener.on_text(step, text)

    def on_step_start(self, index: int, step: Step) -> None:
        for listener in self.listeners:
            listener.on_step_start(index, step)

    def on_output(self, step: Step, chunk: bytes) -> None:
        for listener in self._hearing:
            listener.on_output(step, chunk)

    def on_step_done(self, result: StepResult) -> None:
        for listener in self.listeners:
            listener.on_step_done(result)

    def on_notice(self, loc: SourceLoc, message: str) -> None:
        for listener in self.listeners:
            listener.on_notice(loc, message)

    def uses_shell(self, step: Step) -> bool:
        return any(listener.uses_shell(step) for listener in self.listeners)
