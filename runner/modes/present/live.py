"""`demorun present` from its first command on: the live show, typed at a human pace and driven by keys.

runner/modes/present/start.py checks the workshop and shows its opening prose first; this module
brings the shell, the engine and the checker, which that opening does not wait for.

The key loop's one rule: nothing runs unseen. A command runs only on a RETURN read after it was
shown whole; keys pressed before that moment (while it was being typed, during hidden setup, a
clear or catching up) are forgotten just before it appears whole (Keyboard.discard), and a key
that puts away a message of the presenter's does only that.
"""
from __future__ import annotations

import os
import signal
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field

from ...config import Config
from ...engine.core import Engine
from ...engine.signals import interrupts
from ...engine.walk import Action, may_run
from ...errors import Aborted, DemorunError
from ...model import Kind, Plan, SourceLoc, Step, Visibility
from ...printable import visible
from ...results import Status, StepResult
from ...secrets import Redactor
from ...terminal.keys import CTRL_C, ENTER, SPACE, Keyboard, TypeAhead
from ...terminal.screen import BOLD, DIM, RESET, Screen, keystrokes
from ...timings import Timings
from ..engine_setup import PRESENT, policy_for
from ..setup import open_session
from .catchup import DEFAULT_LIMIT, bounded, never_ends, summary
from .choices import AS_WRITTEN, Choices
from .desk import Desk
from .endings import hidden_ending, quiet_exit
from .listening import LiveListener, drift_mark, live_step
from .notes import Channel, Outline
from .opening import braced, show_text, writes_file

HELP = "RETURN run  + skip  - back  ! shell  g go to  d diff  o output  c canned  Q quit"
_OPENED = frozenset({Kind.PROSE, Kind.COMMENT, Kind.CLEAR})  # what the opening showed already


@dataclass
class _CatchUp:
    """What one catching up did: commands reached, failed, skipped as endless, cut at the limit."""

    done: int = 0
    failed: int = 0
    skipped: list[tuple[SourceLoc, str]] = field(default_factory=list)
    cut: list[SourceLoc] = field(default_factory=list)


class Quit(Exception):
    """The presenter ended the show; `code` is the exit status, `how` the key that did it."""

    def __init__(self, code: int = 0, how: str = "Q"):
        super().__init__(code)
        self.code = code
        self.how = how


class Jump(Exception):
    """The presenter picked a section to go to."""

    def __init__(self, index: int):
        super().__init__(index)
        self.index = index


class Show:
    """One presentation of one plan: walks the steps, types, waits and obeys keys."""

    def __init__(self, plan: Plan, engine: Engine, screen: Screen, keys: Keyboard,
                 listener: LiveListener, *, speed: float | None, channel: Channel | None = None,
                 timings: Timings | None = None, catch_up_limit: float = DEFAULT_LIMIT,
                 choices: Choices = AS_WRITTEN):
        self.plan = plan
        self.steps = plan.steps
        self.engine = engine
        self.session = engine.session
        self.screen = screen
        self.keys = keys
        self.listener = listener
        self.speed = speed
        self.channel = channel or Channel(screen, plan.file)
        self.desk = Desk(plan, self.session, screen, keys, self.channel)
        self.timings = timings or Timings(plan.file)
        self.catch_up_limit = catch_up_limit
        self.choices = choices
        self.channel.marks = choices.marks
        self.last_shown: StepResult | None = None  # the last command the audience saw run, for `c`
        self.catching_up = False
        self.canned_for: StepResult | None = None  # the command whose `##` output `c` showed last
        self.outline = Outline(plan)
        self.offered: set[int] = set()  # commands shown to the audience, run or skipped: what `-` offers
        self.last_drift: StepResult | None = None
        self.typeahead = TypeAhead()
        self.session.keys_filter = self.typeahead
        listener.notify = self.channel.say
        self.completed = -1  # the last step of the walk whose command has run
        self.at_step = 0  # the step the show is at, for how it ended
        self.opened = 0  # steps before this one were shown by the opening (start.py) already
        self.last_visible = False  # whether the last command run was shown
        self.keyed = False  # the presenter has pressed a key at a wait
        self.ran = 0
        self.differed = 0

    # The walk.

    def present(self, start: int = 0, opened: int = 0) -> int:
        """Show every step from `start`; commands before it run hidden first so that state is right.

        `opened`: the steps before it were shown by the opening while the shell started; their
        commands (hidden ones) still run here. The exit status: 0 at the end; bash's own when a
        command ends the shell (at least 1 when that command was hidden: the show could not go
        on as written).
        """
        self.opened = opened
        self.catch_up(0, start)
        index = start
        while index < len(self.steps) and self.session.alive:
            self.at_step = index
            try:
                self.step(index, self.steps[index])
            except Jump as jump:
                index = self.go_to(index, jump.index)
                continue
            index += 1
        if not self.session.alive:
            return self.shell_ended()
        self.channel.finish([self.tally("end of the show")])
        return 0

    def tally(self, ended: str) -> str:
        """How many commands the audience saw, and how many did not go as in the script."""
        said = f"{ended}: {self.ran} command{'' if self.ran == 1 else 's'}"
        return said + (f", {self.differed} not as in the script" if self.differed else "")

    def ended_by(self, how: str) -> str:
        """The line that says how the show ended, when the presenter ended it."""
        loc = self.steps[min(self.at_step, len(self.steps) - 1)].loc if self.steps else None
        return self.tally(f"show ended by {how}" + (f" at {loc}" if loc else ""))

    def shell_ended(self) -> int:
        """bash has exited: say where and why, and for a hidden step show what led to it."""
        step = self.engine.exit_step
        status = self.session.exit_status or 0
        self.screen.newline_if_needed()
        if self.last_visible and (step is None or step.kind is not Kind.HOOK):
            where = f"{step.loc}: " if step is not None else ""
            self.screen.notice(f"{where}the workshop's shell exited (status {status}); end of the show")
            return status
        said, body = hidden_ending(step, status, self.listener.hidden.lines())
        self.screen.failure(said)
        for line, ours in body:
            self.screen.line(line, *((DIM,) if ours else ()))
        self.screen.failure("end of the show: the workshop cannot go on without its shell")
        return status or 1

    def step(self, index: int, step: Step) -> None:
        if index < self.opened and step.kind in _OPENED:
            return
        action = self.engine.decide(index, step)
        if action is not Action.SKIP:
            self.timings.at(step)
            if self.choices.debug:
                self.channel.note(f"{step.loc}: {step.kind.name.lower()} "
                                  f"({action.name.lower()}, {step.visibility.name.lower()})")
        shown = step.visibility is Visibility.SHOW
        if action is Action.RUN:
            if shown and step.modifiers.show:
                self.show_command(index, step)
            else:
                self.execute(index, step, visible=shown)
        elif action is Action.HOOK:
            self.engine.run_hook(step, on_output=self.screen.write if shown else None)  # shown, as demosh does
            if not shown:
                self.keys.discard()
        elif action is Action.PACE:
            # Also in hidden parts: the livecast macros wait there while the slides are up.
            if step.kind is Kind.WAIT:
                self.pause(index, step.loc)
            else:
                self.keys.discard()  # a key pressed before a clear answers nothing after it
                self.screen.clear()
        elif action is not Action.SHOW:
            return
        elif step.kind in (Kind.PROSE, Kind.COMMENT):
            show_text(self.screen, step, self.session.variables() if "${" in step.text and self.session.alive else {},
                      writes_file(self.plan, index + 1))
        elif step.kind is Kind.PRINT:
            self.screen.printed(self.engine.expand(step))
            self.pause(index + 1, step.loc)  # demosh waits for RETURN after an @print

    def catch_up(self, start: int, stop: int) -> None:
        """Run the commands in steps[start:stop] hidden, as setup: what `--from` and `g` skip over.

        Each gets the catch-up limit; those that never end by themselves are skipped, or stopped
        at the limit when they come after something else (runner/modes/present/catchup.py).
        Progress shows as k/N for the presenter; keys pressed meanwhile are forgotten. One Ctrl-C
        interrupts the hidden command running; a second one soon after stops the catching up,
        not the show: one watch over all the commands, not one each.
        """
        todo = sum(1 for step in self.steps[start:stop]
                   if may_run(step) and (not step.if_hooks or self.engine.hooks_active(step)))
        if not todo:
            return
        tally = _CatchUp()
        self.catching_up = True
        try:
            with interrupts(lambda: self.session, self.engine.running, self.channel.post), self.keys.signals():
                self._catch_up(start, stop, todo, tally)
        except Aborted as stopped:
            if stopped.signum != signal.SIGINT:
                raise
            self.keys.discard()
            self.engine.stopped_by = None  # the engine stopped for the catching up alone: the show goes on
            self.channel.say(f"catching up stopped by Ctrl-C after {tally.done} of {todo} hidden commands: "
                             "what comes next may miss the state the others make")
        finally:
            self.catching_up = False
            self.channel.progress(None)
        for message in summary(todo, tally.failed, tally.skipped, tally.cut, self.catch_up_limit):
            self.channel.say(message)

    def _catch_up(self, start: int, stop: int, todo: int, tally: _CatchUp) -> None:
        """The hidden commands of catch_up, counted in `tally`."""
        for index, step, action in self.engine.walk(start, stop):
            if action is not Action.RUN:
                continue
            tally.done += 1
            endless = never_ends(step.text)
            if endless is not None and endless.first:
                tally.skipped.append((step.loc, endless.reason))
                continue
            self.channel.progress(f"catching up: {tally.done}/{todo} hidden commands ({step.loc})")
            result = self.execute(index, bounded(step, self.catch_up_limit, endless),
                                  visible=False, quietly=True)
            outcome = result.outcome if result is not None else None
            if outcome is not None and (outcome.timed_out or (outcome.stopped and endless is not None)):
                tally.cut.append(step.loc)
            elif result is not None and result.verdict.status is Status.FAIL:
                tally.failed += 1
            if not self.session.alive:
                return

    def go_to(self, current: int, target: int) -> int:
        """Forward jumps run what they skip over; backward ones run it again as it comes."""
        self.opened = 0  # the opening's text is shown again when the show comes back to it
        self.screen.newline_if_needed()
        if target > current:
            self.catch_up(current + 1 if self.completed == current else current, target)
        return target

    # Commands.

    def shown_text(self, step: Step) -> str:
        """The command as typed: `${VAR}` shows its value, as the old tool did; `$VAR` stays."""
        if "${" not in step.text or not self.session.alive:
            return step.text
        return braced(step.text, self.session.variables())

    def show_command(self, index: int, step: Step) -> None:
        """Offer a command (typed, or at once) and run it on RETURN; `-` may run earlier ones first."""
        self.channel.at(self.outline.at(index))
        text = self.shown_text(step)
        typeout = step.modifiers.typeout
        while True:
            self.offered.add(index)
            self.screen.prompt()
            key = self.display(text, typeout=typeout)
            if not step.modifiers.wait_before:
                self.screen.end_command()
                break
            chosen = self.choose(index, step.loc, text, key)
            if chosen is None:
                self.screen.line("(skipped)", DIM)
                return
            if chosen == index:
                break
            self.execute(chosen, self.steps[chosen], visible=True)
            typeout = False  # then this command is offered again, under that one's output
        self.execute(index, step, visible=True)
        self.completed = index
        if step.modifiers.wait_after and self.session.alive:
            self.pause(index + 1, step.loc)

    def display(self, text: str, *, typeout: bool) -> str | None:
        """Show a command after its prompt, typed out or at once.

        Any key pressed before it is whole finishes the typing, and that is all RETURN and space
        do then; another key (`+`, `Q`, `g`...) is returned, for the wait to act on. Every other key
        pressed until then is forgotten just before the command appears whole.
        """
        shown = visible(text)
        pieces = keystrokes(shown, self.speed) if typeout else [(shown, 0.0)]
        if self.screen.color:
            self.screen.write(BOLD)
        try:
            typed = 0
            key = None
            for piece, pause in pieces[:-1]:
                self.screen.write(piece)
                typed += 1
                if (key := self.keys.read(timeout=pause)) is not None:
                    break
            else:
                key = self.keys.read(timeout=0)
            self.keys.discard()
            self.screen.write("".join(piece for piece, _ in pieces[typed:]))
            # A q while it types is taken for one meant for a pager that has just closed.
            return None if key in (None, ENTER, SPACE, "q") else key
        finally:
            if self.screen.color:
                self.screen.write(RESET)

    def choose(self, index: int, where: SourceLoc, text: str | None, key: str | None = None) -> int | None:
        """At a command (`text` on the screen) or a pause (None): the command to run on RETURN, or None
        (`+` skips the command; RETURN or `+` at a pause goes on). `-` offers earlier commands, in
        place of what is offered (`+` takes one back again), so no prompt is left that did not run."""
        current = index if text is not None else None
        offered, shown = current, text
        while True:
            try:
                back = self.earlier(index if offered is None else offered) is not None
                action = self.wait(shown, where, earlier=back, first=key)
            except Jump:
                if shown is not None:
                    self.screen.take_back(shown)
                raise
            key = None
            if action == "repeat":
                if shown is not None:
                    self.screen.take_back(shown)
                offered = self.earlier(index if offered is None else offered)
                assert offered is not None  # wait() offers `-` only when there is one
                shown = self.shown_text(self.steps[offered])
                self.screen.prompt()
                self.display(shown, typeout=False)
            elif action == "skip" and offered != current:
                self.screen.take_back(shown or "")
                offered, shown = current, text
                if text is not None:
                    self.screen.prompt()
                    self.display(text, typeout=False)
            else:
                if shown is not None:
                    self.screen.end_command()
                return offered if action == "run" else None

    def earlier(self, before: int) -> int | None:
        """The command shown last before step `before`, run or skipped, for `-`."""
        return max((i for i in self.offered if i < before), default=None)

    def execute(self, index: int, step: Step, *, visible: bool, quietly: bool = False) -> StepResult | None:
        """Run one command, shown live with its keys, or hidden as setup; mark what did not go as written.

        `quietly`: a hidden failure is only remembered for `d` (catching up says how many at the end).
        """
        self.listener.visible = visible
        self.last_visible = visible
        self.typeahead.start(self.keys.take_pending() if visible else [])
        ended_before = len(self.engine.shells_ended)
        try:
            if visible:
                result = self.engine.execute(index, live_step(step), interactive=True)
            elif self.catching_up:  # catch_up watches Ctrl-C over all its commands
                result = self.engine.execute(index, step, interactive=False)
            else:
                with interrupts(lambda: self.session, self.engine.running, self.channel.post), self.keys.signals():
                    result = self.engine.execute(index, step, interactive=False)
        except DemorunError as exc:
            self.channel.say(str(exc))
            return None
        finally:
            self.listener.visible = False
            if not visible:
                self.keys.discard()  # keys pressed while it ran hidden answer nothing on the screen
        if result.outcome is not None:
            self.timings.command(result.outcome.duration)
            self.ran += visible
        if visible:
            self.last_shown = result
        quiet = len(self.engine.shells_ended) > ended_before and self.ended_quietly(index, step)
        if result.verdict.status is Status.FAIL and not quiet and not (visible and self.typeahead.signalled):
            self.last_drift = result
            if visible:
                self.differed += 1
                self.screen.newline_if_needed()
                self.channel.drift(drift_mark(result), str(step.loc))
            elif not quietly:
                self.channel.say(f"{result.verdict.message} (a hidden command; d: details)")
        if visible and self.choices.canned and result.verdict.status is Status.FAIL and not quiet \
                and step.modifiers.stop_after is None:  # one the presenter stops on purpose is no failure
            self.canned(result)
        if visible and self.typeahead.cut:
            self.channel.say("(a paste's lines after its first were not typed: "
                             "bash would have run them as commands)")
        if self.typeahead.quit_after:
            raise Quit(0, "Q")
        return result

    def ended_quietly(self, index: int, step: Step) -> bool:
        """A nested workshop ended by this command under DEMOSH_QUIET_FAILURE: said on notes only."""
        scope = min(s for s in step.nested if s in self.engine.shells_ended) if step.nested else None
        if scope is None or not quiet_exit(self.plan, index, scope):
            return False
        self.channel.note(f"{step.loc} ended quietly "
                          "(DEMOSH_QUIET_FAILURE); the caller goes on")
        return True

    def canned(self, result: StepResult | None, shown: str | None = None) -> None:
        """`c` (and --canned on a failure): the last shown command's `##` output as its result, for a
        show whose cluster is gone; the audience sees output, the notes terminal says it is canned.
        `shown`: the next command, on the screen already: it is taken back and offered again under
        that output, so the output stays with the command it belongs to."""
        step = result.step if result is not None else None
        if step is None or step.expected is None or not step.expected.lines:
            self.channel.tell("(no ## output to show for the last command)" if step is not None
                              else "(no command has run yet)")
            return
        if result is self.canned_for:
            self.channel.tell("(its ## output is on the screen already)")
            return
        if shown is not None:
            self.screen.take_back(shown)
        self.screen.newline_if_needed()
        for line in step.expected.lines:
            self.screen.write(visible(line) + "\n")
        self.canned_for = result
        self.channel.note(f"{step.loc}: canned: its ## output from {step.expected.loc} shown as its result")
        if self.choices.marks:
            self.screen.aside("(canned: the ## output of the script)", DIM)
        if shown is not None:
            self.screen.prompt()
            self.display(shown, typeout=False)

    # Waiting for the presenter.

    def pause(self, index: int, where: SourceLoc) -> None:
        """A wait that is not before a command (@wait, @waitafter): RETURN or `+` goes on; `-` offers
        the commands before it, and after one ran the show waits here again."""
        self.channel.at(self.outline.at(index))
        if not self.keyed and not self.screen.status_shown and self.choices.blurb:  # also says the hidden setup is over
            self.channel.cue(f"{os.path.basename(self.plan.file)} · RETURN to start · ? for keys")
        while (chosen := self.choose(index, where, None)) is not None:
            self.execute(chosen, self.steps[chosen], visible=True)

    def wait(self, shown: str | None, where: SourceLoc, *, earlier: bool, first: str | None = None) -> str:
        """Obey keys until one says what comes next: "run", "skip" or "repeat".

        `shown`: the command on the screen (None at a pause); `where`: the step that waits;
        `earlier`: whether `-` has one to offer; `first`: a key pressed while the command was
        being typed. A key read while a message of the presenter's holds a row only puts it
        away (Q and Ctrl-C still quit).
        """
        if self.channel.at_wait(str(where)):
            first = None  # pressed before the message appeared: it does not answer it
        try:
            return self.obey(shown, earlier, first)
        finally:
            self.channel.waited()

    def obey(self, shown: str | None, earlier: bool, first: str | None) -> str:
        """The keys of one wait (see `wait`)."""
        armed_quit = False
        while True:
            key = first if first is not None else self.keys.key()
            first = None
            self.keyed = True
            if key == CTRL_C:
                if armed_quit:
                    raise Quit(130, "Ctrl-C")
                armed_quit = True
                self.channel.tell("(Ctrl-C again to quit)")
                continue
            armed_quit = False
            if key == "Q":
                raise Quit(0, "Q")
            if self.screen.message_shown:
                self.keys.discard()
                self.screen.clear_status()
                self.channel.next_message()
                continue
            self.screen.clear_status()  # the start cue: the key answers it
            if key == ENTER:
                return "run"
            if key == "+":
                return "skip" if shown is not None else "run"
            if key == "-":
                if earlier:
                    return "repeat"
                self.channel.tell("(nothing before this command to offer again)" if shown is not None
                                  else "(no command before this point to offer again)")
                continue
            self.tool(key, shown)

    def tool(self, key: str, shown: str | None) -> None:
        """The keys that open something over the show and come back to the same wait."""
        if key == "?":
            self.channel.tell(HELP)
        elif key == "d":
            self.desk.show_diff(self.last_drift)
        elif key == "q":  # everywhere it closes what is open over the show; at a wait nothing is
            self.channel.tell("(q closes a page or the pager; Q ends the show)")
        elif key == "c":
            self.canned(self.last_shown, shown)
        elif key == "o":
            self.desk.page_output(bytes(self.listener.shown_output), self.listener.shown_cut)
        elif key == "!":
            self.desk.shell(self.screen.record)
            if shown is not None:
                self.screen.prompt()
                self.display(shown, typeout=False)
        elif key == "g":
            target = self.desk.pick_section()
            if target is not None:
                raise Jump(target)


def run_show(plan: Plan, args: list[str], config: Config, *, screen: Screen, keys: Keyboard, channel: Channel,
             clock: Timings, guard_env: Mapping[str, str], size: os.terminal_size, speed: float | None,
             start: int, opened: int, timeout: float | None,
             catch_up_limit: float | None, choices: Choices = AS_WRITTEN) -> tuple[int, Redactor]:
    """The show from step `start` on, in a bash of its own: the exit status, and what the recording must mask.

    `opened`: the opening already showed the text of the steps before it (their commands run here).
    """
    policy = policy_for(PRESENT, config, timeout=timeout)
    listener = LiveListener(screen)
    redact = Redactor()
    with open_session(plan.file, args, config, timeout=policy.default_timeout, cols=size.columns, rows=size.lines,
                      unattended=False, extra_env=guard_env) as session:
        engine = Engine(plan, session, listeners=[listener], policy=policy)
        show = Show(plan, engine, screen, keys, listener, speed=speed, channel=channel, timings=clock,
                    catch_up_limit=catch_up_limit or config.catch_up_timeout or DEFAULT_LIMIT, choices=choices)
        try:
            code = show.present(start, opened)
        except Quit as quit_:
            screen.clear_status()
            screen.newline_if_needed()
            channel.finish([show.ended_by(quit_.how)])
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
