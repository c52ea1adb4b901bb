"""`demorun present` from its first command on: the live show, typed at a human pace and driven by keys.

runner/modes/present/start.py checks the workshop and shows its opening prose first; this module
brings the shell, the engine and the checker, which that opening does not wait for.
"""
from __future__ import annotations

import dataclasses
import os
import random
import re
from collections.abc import Callable, Mapping
from contextlib import suppress

from ...config import Config
from ...engine.core import Engine, Policy
from ...engine.listener import Listener
from ...engine.signals import interrupts
from ...engine.walk import Action, may_run
from ...errors import Aborted, DemorunError
from ...model import Kind, Plan, SourceLoc, Step, Visibility
from ...printable import visible
from ...results import Status, StepResult
from ...secrets import Redactor
from ...terminal.keys import (
    BACKSPACE,
    CTRL_C,
    CTRL_D,
    ENTER,
    ESCAPE,
    SPACE,
    Keyboard,
    TypeAhead,
)
from ...terminal.pager import OUTPUT_KEPT, show_in_pager
from ...terminal.screen import BOLD, DIM, GREEN, RED, RESET, YELLOW, Screen
from ...timings import Timings
from ...verify.diff import diff_line_kind
from ..setup import effective_timeout, open_session
from .notes import Channel, Outline
from .opening import show_text
from .sections import find_section, sections

HELP = "RETURN run  + skip  - again  ! shell  g go to  d diff  o output  Q quit"
HUMAN_PACE = (0.010, 0.100)  # seconds between two keystrokes, as the old tool typed
BRACED_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
HIDDEN_TAIL = 20  # lines of a hidden command's output shown when it ends the shell


class Quit(Exception):
    """The presenter ended the show; `code` is the exit status."""

    def __init__(self, code: int = 0):
        super().__init__(code)
        self.code = code


class Jump(Exception):
    """The presenter picked a section to go to."""

    def __init__(self, index: int):
        super().__init__(index)
        self.index = index


class LiveListener(Listener):
    """Streams the output of shown commands to the screen and keeps what `o` and failures need."""

    def __init__(self, screen: Screen):
        self.screen = screen
        self.visible = False
        self.shown_output = bytearray()  # the last shown command's, from its start, for `o`
        self.shown_cut = False
        self.hidden_output = bytearray()  # the tail of the last hidden command's
        self.notify: Callable[[str], None] = screen.notice

    def on_step_start(self, index: int, step: Step) -> None:
        if self.visible:
            self.shown_output.clear()
            self.shown_cut = False
        else:
            self.hidden_output.clear()

    def on_output(self, step: Step, chunk: bytes) -> None:
        if not self.visible:
            self.hidden_output += chunk
            del self.hidden_output[:-65536]
            return
        self.screen.write(chunk)
        room = OUTPUT_KEPT - len(self.shown_output)
        self.shown_output += chunk[:max(0, room)]
        self.shown_cut = self.shown_cut or len(chunk) > room

    def on_step_done(self, result: StepResult) -> None:
        if result.outcome is not None and result.outcome.recovery:
            self.screen.reset_leftovers()  # a killed full-screen program cannot switch off what it switched on

    def on_notice(self, loc: SourceLoc, message: str) -> None:
        self.notify(f"{loc}: {message}")


class Show:
    """One presentation of one plan: walks the steps, types, waits and obeys keys."""

    def __init__(self, plan: Plan, engine: Engine, screen: Screen, keys: Keyboard,
                 listener: LiveListener, *, speed: float | None, channel: Channel | None = None,
                 timings: Timings | None = None):
        self.plan = plan
        self.steps = plan.steps
        self.engine = engine
        self.session = engine.session
        self.screen = screen
        self.keys = keys
        self.listener = listener
        self.speed = speed
        self.channel = channel or Channel(screen)
        self.timings = timings or Timings(plan.file)
        self.outline = Outline(plan)
        self.history: list[int] = []  # commands shown and run, for `-`
        self.last_drift: StepResult | None = None
        self.typeahead = TypeAhead()
        self.session.keys_filter = self.typeahead
        listener.notify = self.channel.say
        self.completed = -1  # the last step of the walk whose command has run
        self.last_visible = False  # whether the last command run was shown
        self.keyed = False  # the presenter has pressed a key at a wait
        self.ran = 0
        self.differed = 0

    # The walk.

    def present(self, start: int = 0) -> int:
        """Show every step from `start`; commands before it run hidden first so that state is right.

        The exit status: 0 at the end; bash's own when a command ends the shell (at least 1
        when that command was hidden: the show could not go on as written).
        """
        self.catch_up(0, start)
        index = start
        while index < len(self.steps) and self.session.alive:
            try:
                self.step(index, self.steps[index])
            except Jump as jump:
                index = self.go_to(index, jump.index)
                continue
            index += 1
        if not self.session.alive:
            return self.shell_ended()
        summary = f"end of the show: {self.ran} command{'' if self.ran == 1 else 's'}"
        if self.differed:
            summary += f", {self.differed} not as in the script"
        self.channel.finish([summary])
        return 0

    def shell_ended(self) -> int:
        """bash has exited: say where and why, and for a hidden command show what it printed."""
        step = self.engine.exit_step
        status = self.session.exit_status or 0
        where = f"{step.loc}: " if step is not None else ""
        self.screen.newline_if_needed()
        if self.last_visible:
            self.screen.notice(f"{where}the workshop's shell exited (status {status}); end of the show")
            return status
        self.screen.failure(f"{where}a hidden command ended the workshop's shell with exit status {status}:")
        if step is not None:
            for line in step.text.splitlines():
                self.screen.line(f"    {line}")
        tail = bytes(self.listener.hidden_output).decode("utf-8", "replace").splitlines()
        if tail:
            self.screen.line(f"its last {min(len(tail), HIDDEN_TAIL)} lines of output:", DIM)
            for line in tail[-HIDDEN_TAIL:]:
                self.screen.line(line)
        self.screen.failure("end of the show: the workshop cannot go on without its shell")
        return status or 1

    def step(self, index: int, step: Step) -> None:
        action = self.engine.decide(index, step)
        if action is not Action.SKIP:
            self.timings.at(step)
        shown = step.visibility is Visibility.SHOW
        if action is Action.RUN:
            if shown and step.modifiers.show:
                self.show_command(index, step)
            else:
                self.execute(index, step, visible=shown)
        elif action is Action.HOOK:
            self.engine.run_hook(step)
        elif action is Action.PACE:
            # Also in hidden parts: the livecast macros wait there while the slides are up.
            if step.kind is Kind.WAIT:
                self.pause(index)
            else:
                self.screen.clear()
        elif action is not Action.SHOW:
            return
        elif step.kind in (Kind.PROSE, Kind.COMMENT):
            show_text(self.screen, step)
        elif step.kind is Kind.PRINT:
            self.screen.printed(self.engine.expand(step))

    def catch_up(self, start: int, stop: int) -> None:
        """Run the commands in steps[start:stop] hidden, as setup: what `--from` and `g` skip over.

        Progress shows as k/N for the presenter; `Q` pressed meanwhile quits after the command.
        """
        todo = sum(1 for step in self.steps[start:stop]
                   if may_run(step) and (not step.if_hooks or self.engine.hooks_active(step)))
        if not todo:
            return
        done = failed = 0
        for index, step, action in self.engine.walk(start, stop):
            if action is not Action.RUN:
                continue
            done += 1
            self.channel.progress(f"catching up: {done}/{todo} hidden commands ({step.loc})")
            result = self.execute(index, step, visible=False, quietly=True)
            failed += result is not None and result.verdict.status is Status.FAIL
            while (key := self.keys.read(timeout=0)) is not None:
                if key == "Q":
                    raise Quit(0)
            if not self.session.alive:
                return
        self.channel.progress(None)
        if failed:
            self.channel.say(f"{failed} of {todo} earlier commands failed while catching up (d: the last)")

    def go_to(self, current: int, target: int) -> int:
        """Forward jumps run what they skip over; backward ones run it again as it comes."""
        self.screen.newline_if_needed()
        if target > current:
            self.catch_up(current + 1 if self.completed == current else current, target)
        return target

    # Commands.

    def shown_text(self, step: Step) -> str:
        """The command as typed: `${VAR}` shows its value, as the old tool did; `$VAR` stays."""
        if "${" not in step.text or not self.session.alive:
            return step.text
        values = self.session.variables()
        return BRACED_VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), step.text)

    def show_command(self, index: int, step: Step) -> None:
        action = self.offer(index, step, typeout=step.modifiers.typeout, wait=step.modifiers.wait_before)
        while action == "repeat":
            self.repeat()
            action = self.offer(index, step, typeout=False, wait=True)
        if action == "skip":
            self.screen.line("(skipped)", DIM)
            return
        self.execute(index, step, visible=True)
        self.completed = index
        self.history.append(index)
        if step.modifiers.wait_after and self.session.alive:
            self.pause(index + 1)

    def offer(self, index: int, step: Step, *, typeout: bool, wait: bool) -> str:
        """Prompt and command, typed or at once; then what the presenter wants: run, skip or repeat."""
        self.channel.at(self.outline.at(index))
        text = self.shown_text(step)
        self.screen.prompt()
        if typeout and not self.type_out(text):
            self.screen.end_command()
            return "run"
        if not typeout:
            self.screen.command(text)
        if not wait:
            self.screen.end_command()
            return "run"

        def redraw() -> None:
            self.screen.prompt()
            self.screen.command(text)

        action = self.wait(redraw, at_command=True)
        self.screen.end_command()
        return action

    def type_out(self, text: str) -> bool:
        """Type at a human pace; any key finishes the typing. False when RETURN asked to run at once."""
        if self.screen.color:
            self.screen.write(BOLD)
        try:
            for position, char in enumerate(text):
                self.screen.write(visible(char))
                key = self.keys.read(timeout=self.delay())
                if key is None:
                    continue
                self.screen.write(visible(text[position + 1:]))
                if key == ENTER:
                    return False
                if key != SPACE:
                    self.keys.unread(key)
                return True
            return True
        finally:
            if self.screen.color:
                self.screen.write(RESET)

    def delay(self) -> float:
        if self.speed:
            return random.uniform(0.5, 1.5) / self.speed
        return random.uniform(*HUMAN_PACE)

    def execute(self, index: int, step: Step, *, visible: bool, quietly: bool = False) -> StepResult | None:
        """Run one command, shown live with its keys, or hidden as setup; mark what did not go as written.

        `quietly`: a hidden failure is only remembered for `d` (catching up says how many at the end).
        """
        self.listener.visible = visible
        self.last_visible = visible
        self.typeahead.start(self.keys.take_pending() if visible else [])
        try:
            if visible:
                result = self.engine.execute(index, live_step(step), interactive=True)
            else:
                with interrupts(lambda: self.session), self.keys.signals():
                    result = self.engine.execute(index, step, interactive=False)
        except DemorunError as exc:
            self.channel.say(str(exc))
            return None
        finally:
            self.listener.visible = False
        if result.outcome is not None:
            self.timings.command(result.outcome.duration)
            self.ran += visible
        if result.verdict.status is Status.FAIL and not (visible and self.typeahead.signalled):
            self.last_drift = result
            if visible:
                self.differed += 1
                self.screen.newline_if_needed()
                self.screen.line(drift_mark(result), DIM, YELLOW)
            elif not quietly:
                self.channel.say(f"{result.verdict.message} (a hidden command; d: details)")
        if self.typeahead.quit_after:
            raise Quit(0)
        return result

    def repeat(self) -> None:
        """`-`: offer the previous command again; `-` once more goes one further back."""
        back = 1
        while True:
            if back > len(self.history):
                self.channel.tell("(nothing earlier to repeat)")
                return
            index = self.history[-back]
            action = self.offer(index, self.steps[index], typeout=False, wait=True)
            if action == "repeat":
                back += 1
                continue
            if action == "run":
                self.execute(index, self.steps[index], visible=True)
            else:
                self.screen.line("(skipped)", DIM)
            return

    # Waiting for the presenter.

    def pause(self, index: int) -> None:
        """A wait that is not before a command (@wait, @waitafter): RETURN or `+` goes on."""
        self.channel.at(self.outline.at(index))
        if not self.keyed and self.screen.empty and not self.screen.status_shown:
            name = os.path.basename(self.plan.file)
            self.screen.show_status(f"{name} · RETURN to start · ? for keys")
        while self.wait(None, at_command=False) == "repeat":
            self.repeat()

    def wait(self, redraw: Callable[[], None] | None, *, at_command: bool) -> str:
        """Obey keys until one says what comes next: "run", "skip" or "repeat"."""
        self.channel.at_wait()
        armed_quit = False
        while True:
            key = self.keys.read()
            self.keyed = True
            self.screen.clear_status()
            if key == CTRL_C:
                if armed_quit:
                    raise Quit(130)
                armed_quit = True
                self.channel.tell("(Ctrl-C again to quit)")
                continue
            armed_quit = False
            if key == ENTER:
                return "run"
            if key == "+":
                return "skip" if at_command else "run"
            if key == "-":
                return "repeat"
            if key == "Q":
                raise Quit(0)
            if key == "?":
                self.channel.tell(HELP)
            elif key == "d":
                self.show_diff()
            elif key == "o":
                self.page_output()
            elif key == "!":
                self.shell(redraw)
            elif key == "g":
                target = self.pick_section()
                if target is not None:
                    raise Jump(target)

    def show_diff(self) -> None:
        """`d`: why the last command marked (or a hidden one) did not go as written, over the show."""
        result = self.last_drift
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
            self.keys.read()
        finally:
            self.channel.close_page()

    def page_output(self) -> None:
        """`o`: the last shown command's output in a pager, from its first line."""
        if not self.listener.shown_output:
            self.channel.tell("(no output to show again yet)")
            return
        with self.keys.suspended():
            problem = show_in_pager(bytes(self.listener.shown_output), self.listener.shown_cut)
        if problem:
            self.channel.tell(problem)

    def shell(self, redraw: Callable[[], None] | None) -> None:
        """`!`: the workshop's own shell, with its variables and directory, until the presenter exits it."""
        self.screen.newline_if_needed()
        self.screen.line("(the workshop's shell: `exit` or Ctrl-D to come back)", DIM)
        with self.keys.suspended():
            self.session.interact_shell(on_output=self.screen.record)
        # The shell wrote past the screen's bookkeeping: Ctrl-D leaves the cursor after a prompt.
        self.screen.write("\r\x1b[K")
        self.screen.line("(back to the show)", DIM)
        if redraw:
            redraw()

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
            key = self.keys.read()
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


def live_step(step: Step) -> Step:
    """A command as the live show runs it: `@stop-after` ones run until the presenter stops them.

    A `##` block that matches says the command did what the author saw, so its exit status
    alone (`kubectl logs` of a pod still starting, shown on purpose) is no drift on stage.
    """
    modifiers = step.modifiers
    if modifiers.stop_after is not None:
        modifiers = dataclasses.replace(modifiers, stop_after=None, exit=None)
    elif step.expected is not None and modifiers.exit == 0:
        modifiers = dataclasses.replace(modifiers, exit=None)
    return step if modifiers is step.modifiers else dataclasses.replace(step, modifiers=modifiers)


def drift_mark(result: StepResult) -> str:
    """The discreet line under a command that did not go as written: what, in a few words."""
    reason = result.verdict.message.removeprefix(f"{result.step.loc}: ")
    reason = reason.split(" from ## block", 1)[0]
    if len(reason) > 50:
        reason = reason[:49] + "…"
    return f"≠ {reason} (d: {'diff' if reason.startswith('output differs') else 'details'})"


_DIFF_STYLE = {"header": (DIM,), "hunk": (DIM,), "added": (GREEN,), "removed": (RED,), "": ()}


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(0, width - 1)] + "…"


def run_show(plan: Plan, args: list[str], config: Config, *, screen: Screen, keys: Keyboard, channel: Channel,
             clock: Timings, guard_env: Mapping[str, str], size: os.terminal_size, speed: float | None,
             start: int, timeout: float | None) -> tuple[int, Redactor]:
    """The show from step `start` on, in a bash of its own: the exit status, and what the recording must mask."""
    default_timeout = effective_timeout(timeout, config)
    listener = LiveListener(screen)
    redact = Redactor()
    with open_session(plan.file, args, config, timeout=default_timeout, cols=size.columns, rows=size.lines,
                      unattended=False, extra_env=guard_env) as session:
        engine = Engine(plan, session, listeners=[listener], policy=Policy(
            check_output=True, keep_going=True, run_hooks=True, default_timeout=default_timeout,
            secret_names=config.secrets))
        show = Show(plan, engine, screen, keys, listener, speed=speed, channel=channel, timings=clock)
        try:
            code = show.present(start)
        except Quit as quit_:
            screen.clear_status()
            screen.newline_if_needed()
            code = quit_.code
        except (Aborted, EOFError) as exc:
            with suppress(OSError):
                screen.clear_status()
                screen.newline_if_needed()
                screen.notice(f"show ended: {exc}")
            code = exc.exit_code if isinstance(exc, Aborted) else 130
        with suppress(DemorunError):
            redact = engine.redactor()
    return code, redact
