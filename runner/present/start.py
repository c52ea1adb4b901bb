"""`demorun present` up to its first screen: checks, the terminal, then the opening prose.

The audience sees the workshop's opening text (its title, its first paragraphs) before the
shell, the engine and the checker are loaded and bash is started: they are needed from the
first command on (runner/present/live.py runs the rest of the show), and loading them first
made the first screen wait several times longer than demosh's. So this module, and what it
imports before the opening is shown, stays clear of the session, the engine and click.
"""
from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext, suppress

from ..config import load_config
from ..errors import Aborted, DemorunError, MissingRequirement
from ..model import Kind, Plan, Step, Visibility
from ..modes.setup import load_plan, missing_requirements
from ..timings import Timings, check_writable
from .keys import Keyboard
from .prose import visible
from .screen import DIM, Screen

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every start would pay for it
if TYPE_CHECKING:
    from ..cluster import ClusterOptions
    from ..secrets import Redactor
    from .notes import Channel

# What a terminal may have been left with by a command that was killed: colours, hidden cursor.
TERMINAL_RESET = "\x1b[0m\x1b[?25h"
# Steps the opening may show or pass over: none needs the shell (NOTE is the notes terminal's).
_TEXT = frozenset({Kind.PROSE, Kind.COMMENT, Kind.CLEAR, Kind.NOTE})


def run_present(file: str, args: list[str], *, speed: float | None, start_at: str | None,
                record: str | None, timeout: float | None, no_init: bool,
                cluster: ClusterOptions | None = None,
                notes: str | None = None, timings: str | None = None) -> int:
    """Present FILE in this terminal; 0 at the end or on Q, 130 when interrupted.

    `cluster`: --requires, --kubeconfig and --isolate (None: none given, so no cluster guard);
    `notes`: a terminal for the presenter's channel; `timings`: None, "" to print them at the end,
    or a path to write them as JSON too.
    """
    if speed is not None and speed <= 0:
        raise DemorunError(f"--speed {speed:g}: must be a positive number of characters a second")
    plan = load_plan(file, no_init=no_init)
    config = load_config(file)
    missing = missing_requirements(plan, cluster.requires if cluster else (), config)
    if missing:
        raise MissingRequirement(f"{file}: not presented: {missing.message()}")
    start = 0
    if start_at:
        from .sections import find_section

        start = find_section(plan, start_at).index
    if timings:
        check_writable(timings)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise DemorunError(f"{file}: present needs a terminal; use `demorun run {file}` to replay it unattended")
    size = terminal_size()

    recorder = None
    if record:
        from ..report.cast import CastRecorder

        recorder = CastRecorder(record, width=size.columns, height=size.lines, title=file)
    screen = Screen(record=recorder.output if recorder else None, width=size.columns)
    clock = Timings(file)
    channel: Channel | None = None  # without --notes, made after the opening, which needs none
    if notes:
        from .notes import NotesChannel

        channel = NotesChannel(screen, notes, file, clock)
    redact: Redactor | None = None
    guard = nullcontext()
    if cluster is not None:
        from ..cluster import ClusterGuard

        guard = ClusterGuard(plan, cluster, config_env=config.env, announce=screen.notice)
    try:
        with guard as entered, _ending_signals(), Keyboard(sys.stdin.fileno()) as keys:
            if not start:
                start = show_opening(plan, screen, clock)
            # The shell, the engine and the checker: loaded while the audience reads the opening.
            from .live import run_show
            from .notes import Channel

            channel = channel or Channel(screen)
            code, redact = run_show(plan, args, config, screen=screen, keys=keys, channel=channel, clock=clock,
                                    guard_env=entered.env if entered else {}, size=size, speed=speed,
                                    start=start, timeout=timeout)
    finally:
        _restore_terminal(screen)
        if recorder:
            if redact is None:
                from ..secrets import Redactor

                redact = Redactor()
            recorder.close(redact)
        if notes:
            channel.finish(clock.table() if timings is not None else [])
            channel.close()
    if timings is not None:
        if not notes:  # after the show, and outside the recording: for the presenter
            for line in clock.table(screen.width):
                screen.out.write(screen.style(visible(line), DIM).encode() + b"\n")
            screen.out.flush()
        if timings:
            clock.write(timings)
    return code


def opening(plan: Plan) -> int:
    """How many steps from the start can be shown before the shell is up.

    Text, and what passes over text, until the first step that needs the shell: a command,
    a hook, a wait, an @print, or text under an @ifhook (its variable is the shell's).
    Decided as the engine decides (runner/engine/walk.py), which this must not import.
    """
    for index, step in enumerate(plan.steps):
        if step.kind not in _TEXT or (step.if_hooks and step.visibility is not Visibility.SKIP):
            return index
    return len(plan.steps)


def show_opening(plan: Plan, screen: Screen, clock: Timings) -> int:
    """Show the opening steps (see `opening`); the index of the first step the show goes on from."""
    end = opening(plan)
    for step in plan.steps[:end]:
        if step.visibility is Visibility.SKIP or step.kind is Kind.NOTE:
            continue
        if step.kind is Kind.CLEAR:  # @clear acts in hidden parts too, as the engine has it
            clock.at(step)
            screen.clear()
        elif step.visibility is Visibility.SHOW:
            clock.at(step)
            show_text(screen, step)
    return end


def show_text(screen: Screen, step: Step) -> None:
    """A prose or commentary step of a SHOW part, as the audience sees it."""
    if step.kind is Kind.PROSE:
        screen.width = columns()
        screen.blank_line()
        screen.prose(step.text)
        screen.blank_line()
    else:
        screen.comment(step.text)


def terminal_size() -> os.terminal_size:
    """The real terminal's size: a COLUMNS inherited from elsewhere must not shrink the show."""
    try:
        return os.get_terminal_size(sys.stdout.fileno())
    except (OSError, ValueError):
        import shutil

        return shutil.get_terminal_size((80, 24))


def columns() -> int:
    return terminal_size().columns


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
