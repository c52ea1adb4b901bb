"""`demorun present`: the live show, typed at a human pace and driven by the presenter's keys."""
from __future__ import annotations

import dataclasses
import os
import random
import re
import shutil
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

from ..cluster import ClusterGuard, ClusterOptions
from ..config import load_config
from ..engine import Action, Engine, Listener, Policy, interrupts
from ..engine.walk import may_run
from ..errors import Aborted, DemorunError, MissingRequirement
from ..model import Kind, Plan, SourceLoc, Status, Step, StepResult, Visibility
from ..modes.setup import (
    effective_timeout,
    load_plan,
    missing_requirements,
    open_session,
)
from ..secrets import Redactor
from ..verify.diff import diff_line_kind
from .keys import BACKSPACE, CTRL_C, CTRL_D, ENTER, ESCAPE, SPACE, Keyboard, TypeAhead
from .screen import BOLD, DIM, GREEN, RED, RESET, YELLOW, Screen

HELP = "RETURN run  space finish  - repeat  + skip  ! shell  g go to  d diff  Q quit"
HUMAN_PACE = (0.010, 0.100)  # seconds between two keystrokes, as the old tool typed
BRACED_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# What a terminal may have been left with by a command that was killed: colours, hidden cursor.
TERMINAL_RESET = "\x1b[0m\x1b[?25h"


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


@dataclass(frozen=True)
class Section:
    """A heading of the workshop and the step that starts it."""

    index: int
    title: str
    shown: bool  # in a SHOW part of the file


def sections(plan: Plan) -> list[Section]:
    """Every heading in order: where the section of a step changes is where its heading is."""
    found: list[Section] = []
    previous = None
    for index, step in enumerate(plan.steps):
        if step.section is not None and step.section != previous and step.visibility is not Visibility.SKIP:
            found.append(Section(index, step.section, step.visibility is Visibility.SHOW))
        previous = step.section
    return found


def _normalised(title: str) -> str:
    return " ".join(re.sub(r"[`*_]", "", title).casefold().split())


def find_section(plan: Plan, heading: str) -> Section:
    """The section a presenter named: exactly (ignoring case and emphasis), else the only one containing it."""
    wanted = _normalised(heading)
    candidates = sections(plan)
    for matches in ([s for s in candidates if _normalised(s.title) == wanted],
                    [s for s in candidates if wanted and wanted in _normalised(s.title)]):
        shown = [s for s in matches if s.shown] or matches
        if len({s.title for s in shown}) == 1:
            return shown[0]
        if shown:
            names = ", ".join(repr(s.title) for s in shown[:6])
            raise DemorunError(f"{plan.file}: --from {heading!r} matches several sections: {names}")
    titles = [s.title for s in candidates if s.shown] or [s.title for s in candidates]
    listing = ", ".join(repr(t) for t in titles[:8]) + (", ..." if len(titles) > 8 else "")
    raise DemorunError(f"{plan.file}: --from {heading!r}: no such section"
                       + (f"; sections: {listing}" if listing else "; the file has no headings"))


class LiveListener(Listener):
    """Streams the output of shown commands to the screen; a verdict keeps what failures need."""

    def __init__(self, screen: Screen):
        self.screen = screen
        self.visible = False

    def on_output(self, step: Step, chunk: bytes) -> None:
        if self.visible:
            self.screen.write(chunk)

    def on_step_done(self, result: StepResult) -> None:
        if result.outcome is not None and result.outcome.recovery:
            self.screen.restore_modes()  # a killed full-screen program cannot switch its modes off

    def on_notice(self, loc: SourceLoc, message: str) -> None:
        self.screen.notice(f"{loc}: {message}")


class Show:
    """One presentation of one plan: walks the steps, types, waits and obeys keys."""

    def __init__(self, plan: Plan, engine: Engine, screen: Screen, keys: Keyboard,
                 listener: LiveListener, *, speed: float | None):
        self.plan = plan
        self.steps = plan.steps
        self.engine = engine
        self.session = engine.session
        self.screen = screen
        self.keys = keys
        self.listener = listener
        self.speed = speed
        self.history: list[int] = []  # commands shown and run, for `-`
        self.last_drift: StepResult | None = None
        self.typeahead = TypeAhead()
        self.session.keys_filter = self.typeahead
        self.completed = -1  # the last step of the walk whose command has run
        self.ran = 0
        self.differed = 0

    # The walk.

    def present(self, start: int = 0) -> int:
        """Show every step from `start`; commands before it run hidden first so that state is right."""
        self.catch_up(0, start)
        index = start
        while index < len(self.steps):
            try:
                self.step(index, self.steps[index])
            except Jump as jump:
                index = self.go_to(index, jump.index)
                continue
            if not self.session.alive:
                self.screen.notice(f"{self.steps[index].loc}: the workshop's shell exited; end of the show")
                return 0
            index += 1
        summary = f"end of the show: {self.ran} commands"
        if self.differed:
            summary += f", {self.differed} not as in the script"
        self.screen.line(summary, DIM)
        return 0

    def step(self, index: int, step: Step) -> None:
        action = self.engine.decide(index, step)
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
                self.pause()
            else:
                self.screen.clear()
        elif action is not Action.SHOW:
            return
        elif step.kind is Kind.PROSE:
            self.screen.width = _columns()
            self.screen.blank_line()
            self.screen.prose(step.text)
            self.screen.blank_line()
        elif step.kind is Kind.COMMENT:
            self.screen.comment(step.text)
        elif step.kind is Kind.PRINT:
            self.screen.printed(self.engine.expand(step))

    def catch_up(self, start: int, stop: int) -> None:
        """Run the commands in steps[start:stop] hidden, as setup: what `--from` and `g` skip over."""
        todo = sum(1 for step in self.steps[start:stop] if may_run(step))
        if not todo:
            return
        self.screen.line(f"running {todo} earlier command{'s' if todo > 1 else ''} hidden...", DIM)
        for index, step, action in self.engine.walk(start, stop):
            if action is Action.RUN:
                self.execute(index, step, visible=False)
                if not self.session.alive:
                    return
        self.keys.drain()

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
        action = self.offer(step, typeout=step.modifiers.typeout, wait=step.modifiers.wait_before)
        while action == "repeat":
            self.repeat()
            action = self.offer(step, typeout=False, wait=True)
        if action == "skip":
            self.screen.line("(skipped)", DIM)
            return
        self.execute(index, step, visible=True)
        self.completed = index
        self.history.append(index)
        if step.modifiers.wait_after and self.session.alive:
            self.pause()

    def offer(self, step: Step, *, typeout: bool, wait: bool) -> str:
        """Prompt and command, typed or at once; then what the presenter wants: run, skip or repeat."""
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
                self.screen.write(char)
                key = self.keys.read(timeout=self.delay())
                if key is None:
                    continue
                self.screen.write(text[position + 1:])
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

    def execute(self, index: int, step: Step, *, visible: bool) -> StepResult | None:
        """Run one command, shown live with its keys, or hidden as setup; mark what did not go as written."""
        self.listener.visible = visible
        self.typeahead.start()
        try:
            if visible:
                result = self.engine.execute(index, live_step(step), interactive=True)
            else:
                with interrupts(lambda: self.session), self.keys.signals():
                    result = self.engine.execute(index, step, interactive=False)
        except DemorunError as exc:
            self.screen.newline_if_needed()
            self.screen.notice(str(exc))
            return None
        finally:
            self.listener.visible = False
        if visible and result.outcome is not None:
            self.ran += 1
        if result.verdict.status is Status.FAIL and not (visible and self.typeahead.signalled):
            self.differed += visible
            self.last_drift = result
            self.screen.newline_if_needed()
            if visible:
                self.screen.line(drift_mark(result), DIM, YELLOW)
            else:
                self.screen.notice(f"{result.verdict.message} (a hidden command; d: details)")
        if self.typeahead.quit_after:
            raise Quit(0)
        return result

    def repeat(self) -> None:
        """`-`: offer the previous command again; `-` once more goes one further back."""
        back = 1
        while True:
            if back > len(self.history):
                self.screen.line("(nothing earlier to repeat)", DIM)
                return
            index = self.history[-back]
            action = self.offer(self.steps[index], typeout=False, wait=True)
            if action == "repeat":
                back += 1
                continue
            if action == "run":
                self.execute(index, self.steps[index], visible=True)
            else:
                self.screen.line("(skipped)", DIM)
            return

    # Waiting for the presenter.

    def pause(self) -> None:
        """A wait that is not before a command (@wait, @waitafter): RETURN or `+` goes on."""
        while self.wait(None, at_command=False) == "repeat":
            self.repeat()

    def wait(self, redraw: Callable[[], None] | None, *, at_command: bool) -> str:
        """Obey keys until one says what comes next: "run", "skip" or "repeat"."""
        armed_quit = False
        while True:
            key = self.keys.read()
            if key == CTRL_C:
                if armed_quit:
                    raise Quit(130)
                armed_quit = True
                self.aside("(Ctrl-C again to quit)", redraw)
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
                self.aside(HELP, redraw)
            elif key == "d":
                self.show_diff(redraw)
            elif key == "!":
                self.shell(redraw)
            elif key == "g":
                target = self.pick_section()
                if target is not None:
                    raise Jump(target)
                if redraw:
                    redraw()

    def aside(self, text: str, redraw: Callable[[], None] | None) -> None:
        """A line for the presenter, then the prompt put back as it was."""
        self.screen.newline_if_needed()
        self.screen.line(text, DIM)
        if redraw:
            redraw()

    def show_diff(self, redraw: Callable[[], None] | None) -> None:
        self.screen.newline_if_needed()
        result = self.last_drift
        if result is None:
            self.screen.line("(every command so far went as written)", DIM)
        else:
            self.screen.line(result.verdict.message, YELLOW)
            for line in result.verdict.details:
                self.screen.line(line, *_DIFF_STYLE[diff_line_kind(line)])
        if redraw:
            redraw()

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
        """`g`: list the sections, read a number or the start of a heading; ESC cancels."""
        choices = [s for s in sections(self.plan) if s.shown]
        self.screen.newline_if_needed()
        if not choices:
            self.screen.line("(no sections to go to)", DIM)
            return None
        for number, section in enumerate(choices, 1):
            self.screen.line(f"{number:>3}  {section.title}", DIM)
        answer = self.read_line("go to section (number or title, ESC cancels): ")
        if not answer:
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1].index
        try:
            return find_section(self.plan, answer).index
        except DemorunError:
            self.screen.line(f"(no section {answer!r})", DIM)
            return None

    def read_line(self, prompt: str) -> str | None:
        self.screen.write(self.screen.style(prompt, DIM))
        typed = ""
        while True:
            key = self.keys.read()
            if key == ENTER:
                self.screen.end_command()
                return typed.strip()
            if key in (ESCAPE, CTRL_C, CTRL_D):
                self.screen.end_command()
                return None
            if key == BACKSPACE:
                if typed:
                    typed = typed[:-1]
                    self.screen.write("\b \b")
                continue
            if key == SPACE:
                key = " "
            if len(key) == 1 and key.isprintable():
                typed += key
                self.screen.write(key)


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


def _terminal_size() -> os.terminal_size:
    """The real terminal's size: a COLUMNS inherited from elsewhere must not shrink the show."""
    try:
        return os.get_terminal_size(sys.stdout.fileno())
    except (OSError, ValueError):
        return shutil.get_terminal_size((80, 24))


def _columns() -> int:
    return _terminal_size().columns


@contextmanager
def _ending_signals() -> Iterator[None]:
    """SIGTERM and a closing terminal end the show through the same cleanup as Q."""

    def abort(signum, frame):
        raise Aborted(signum)

    saved = {sig: signal.signal(sig, abort) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def _restore_terminal(screen: Screen) -> None:
    with suppress(OSError, ValueError):
        screen.restore_modes()
        screen.out.write(TERMINAL_RESET.encode())
        screen.out.flush()


def run_present(file: str, args: list[str], *, speed: float | None, start_at: str | None,
                record: str | None, timeout: float | None, no_init: bool,
                cluster: ClusterOptions = ClusterOptions(isolate=False, cleanup=False)) -> int:
    """Present FILE in this terminal; 0 at the end or on Q, 130 when interrupted."""
    if speed is not None and speed <= 0:
        raise DemorunError(f"--speed {speed:g}: must be a positive number of characters a second")
    plan = load_plan(file, no_init=no_init)
    config = load_config(file)
    missing = missing_requirements(plan, cluster.requires, config)
    if missing:
        raise MissingRequirement(f"{file}: not presented: {missing.message()}")
    start = find_section(plan, start_at).index if start_at else 0
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise DemorunError(f"{file}: present needs a terminal; use `demorun run {file}` to replay it unattended")
    size = _terminal_size()
    default_timeout = effective_timeout(timeout, config)

    recorder = None
    if record:
        from ..report.cast import CastRecorder

        recorder = CastRecorder(record, width=size.columns, height=size.lines, title=file)
    screen = Screen(record=recorder.output if recorder else None, width=size.columns)
    listener = LiveListener(screen)
    redact = Redactor()
    try:
        with ClusterGuard(plan, cluster, config_env=config.env, announce=screen.notice) as guard, \
                _ending_signals(), Keyboard(sys.stdin.fileno()) as keys, \
                open_session(file, args, config, timeout=default_timeout, cols=size.columns, rows=size.lines,
                             unattended=False, extra_env=guard.env) as session:
            engine = Engine(plan, session, listeners=[listener], policy=Policy(
                check_output=True, keep_going=True, run_hooks=True, default_timeout=default_timeout,
                secret_names=config.secrets))
            show = Show(plan, engine, screen, keys, listener, speed=speed)
            try:
                code = show.present(start)
            except Quit as quit_:
                screen.newline_if_needed()
                code = quit_.code
            except (Aborted, EOFError) as exc:
                with suppress(OSError):
                    screen.newline_if_needed()
                    screen.notice(f"show ended: {exc}")
                code = exc.exit_code if isinstance(exc, Aborted) else 130
            with suppress(DemorunError):
                redact = engine.redactor()
    finally:
        _restore_terminal(screen)
        if recorder:
            recorder.close(redact)
    return code
