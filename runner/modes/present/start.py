"""`demorun present` up to its first screen: checks, the terminal, then the opening prose.

The audience sees the workshop's opening text (its title, its first paragraphs) before the
shell, the engine and the checker are loaded and bash is started: they are needed from the
first command on (runner/modes/present/live.py runs the rest of the show), and loading them first
made the first screen wait several times longer than demosh's. So this module, and what it
imports before the opening is shown, stays clear of the session, the engine and click.
"""
from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from typing import TYPE_CHECKING

from ...config import load_config
from ...errors import Aborted, DemorunError, MissingRequirement
from ...printable import visible
from ...terminal.keys import CTRL_C, Keyboard
from ...terminal.screen import DIM, Screen
from ...timings import Timings, check_writable
from ..preamble import nothing_to_run, said_before, start_findings
from ..setup import load_plan, missing_requirements
from .choices import AS_WRITTEN, Choices
from .opening import show_opening, terminal_size

if TYPE_CHECKING:
    from ...cluster.guard import ClusterOptions
    from ...config import Config
    from ...model import Plan
    from ...secrets import Redactor
    from .notes import Channel

# What a terminal may have been left with by a command that was killed: colours, hidden cursor.
TERMINAL_RESET = "\x1b[0m\x1b[?25h"


def run_present(file: str, args: list[str], *, speed: float | None, start_at: str | None,
                record: str | None, timeout: float | None, no_init: bool,
                cluster: ClusterOptions | None = None,
                notes: str | None = None, timings: str | None = None,
                catch_up_timeout: float | None = None, choices: Choices = AS_WRITTEN) -> int:
    """Present FILE in this terminal; 0 at the end or on Q, 130 when interrupted.

    `cluster`: --requires, --kubeconfig and --isolate (None: none given, so no cluster guard);
    `notes`: a terminal for the presenter's channel; `timings`: None, "" to print them at the end,
    or a path to write them as JSON too; `catch_up_timeout`: each command's limit while catching up;
    `choices`: --canned, --marks, --no-blurb and --debug.
    """
    if speed is not None and speed <= 0:
        raise DemorunError(f"--speed {speed:g}: must be a positive number of characters a second")
    plan, config, start, twins = _ready(file, no_init=no_init, cluster=cluster, start_at=start_at, timings=timings)
    size = terminal_size()

    recorder = None
    if record:
        from ...report.cast import CastRecorder

        recorder = CastRecorder(record, width=size.columns, height=size.lines, title=file)
    screen = Screen(record=recorder.output if recorder else None, width=size.columns)
    clock = Timings(file)
    channel: Channel | None = None  # without --notes, made after the opening, which needs none
    said = said_before(file, start_findings(plan), nothing_to_run(plan), goes_on="the show goes on, as demosh's would")
    said += twins
    if notes:
        from .notes import NotesChannel

        channel = NotesChannel(screen, notes, file, clock)
        for line in said:
            channel.say(line)
    redact: Redactor | None = None
    guard: AbstractContextManager = nullcontext()
    if cluster is not None:
        from ...cluster.guard import ClusterGuard

        guard = ClusterGuard(plan, cluster, config_env=config.env, announce=screen.notice)
    try:
        with guard as entered, _ending_signals(), Keyboard(sys.stdin.fileno()) as keys:
            stop = _read_first(screen, keys, said) if said and not notes else None
            if stop is not None:
                return stop
            opened = 0 if start else show_opening(plan, screen, clock)
            # The shell, the engine and the checker: loaded while the audience reads the opening.
            from .live import run_show
            from .notes import Channel

            channel = channel or Channel(screen, file)
            code, redact = run_show(plan, args, config, screen=screen, keys=keys, channel=channel, clock=clock,
                                    guard_env=entered.env if entered else {}, size=size, speed=speed,
                                    start=start, opened=opened, timeout=timeout, catch_up_limit=catch_up_timeout,
                                    choices=choices)
    finally:
        _restore_terminal(screen)
        if recorder:
            if redact is None:
                from ...secrets import Redactor

                redact = Redactor()
            recorder.close(redact)
        if channel is not None and notes:
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


def _ready(file: str, *, no_init: bool, cluster: ClusterOptions | None, start_at: str | None,
           timings: str | None) -> tuple[Plan, Config, int, list[str]]:
    """The plan, its configuration and the step to start from, once nothing stands in the show's way;
    and what the presenter must know of that start (--from naming several sections of one title)."""
    plan = load_plan(file, no_init=no_init)
    config = load_config(file)
    missing = missing_requirements(plan, cluster.requires if cluster else (), config)
    if missing:
        raise MissingRequirement(f"{file}: not presented: {missing.message()}")
    start, twins = 0, []
    if start_at:
        from .sections import find_section, same_title

        start = find_section(plan, start_at).index
        twins = same_title(plan, start, start_at)
    if timings:
        check_writable(timings)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise DemorunError(f"{file}: present needs a terminal; use `demorun run {file}` to replay it unattended")
    return plan, config, start, twins


def _read_first(screen: Screen, keys: Keyboard, said: list[str]) -> int | None:
    """Lint's errors (or that nothing will run) on a page of the presenter's own, before the
    audience's first screen: never recorded, and gone when a key is pressed. None to start the
    show; the exit code for Q (0) or Ctrl-C (130), which stop here (q closes the page, as
    it closes every page, and the show starts)."""
    screen.open_page([*(visible(line) for line in said), "",
                      screen.style("RETURN (any key): start the show · Q: stop here", DIM)])
    try:
        key = keys.read()
    finally:
        screen.close_page()
    return 0 if key == "Q" else 130 if key == CTRL_C else None


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
        screen.reset_leftovers()
        screen.out.write(TERMINAL_RESET.encode())
        screen.out.flush()
