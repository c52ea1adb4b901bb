"""The presenter's own channel: what only the presenter should see, kept off the audience's screen.

Without `--notes`, messages take the cursor's row in place until the next key
and lists take the terminal's alternate screen, so nothing scrolls. With
`--notes TTY` (another terminal or a tmux pane) everything goes there, beside
a panel: the section, step k/N, the next command, the author's `@note`s and
the time spent in each section.
"""
from __future__ import annotations

import functools
import os
import re
import time
from collections import deque
from dataclasses import dataclass

from ...errors import DemorunError
from ...model import Kind, Plan, Visibility
from ...printable import visible
from ...terminal.screen import BOLD, DIM, RESET, YELLOW, Screen
from ...timings import Timings, duration

MESSAGES_KEPT = 8
REFRESH_EVERY = 1.0  # seconds: the elapsed times on the panel tick


@dataclass(frozen=True)
class Position:
    """Where the show is, as the notes panel tells it."""

    section: str | None
    section_number: int  # 1-based among the shown sections; 0 before the first
    sections: int
    step: int  # 1-based among the commands the audience sees; 0 when none is left
    steps: int
    next_command: str | None
    notes: tuple[str, ...]


class Outline:
    """What the notes panel needs to know of a plan, worked out once."""

    def __init__(self, plan: Plan):
        self.plan = plan
        steps = plan.steps
        self.shown = [i for i, s in enumerate(steps) if s.kind is Kind.COMMAND
                      and s.visibility is Visibility.SHOW and s.modifiers.show]
        self.titles: list[str] = []
        for step in steps:
            if step.visibility is Visibility.SHOW and step.section and step.section not in self.titles:
                self.titles.append(step.section)

    def at(self, index: int) -> Position:
        """The position of step `index`: its section, the next shown command, the notes in force.

        Notes count from where they stand until the next command has run.
        """
        steps = self.plan.steps
        section = steps[min(index, len(steps) - 1)].section if steps else None
        following = next((n for n, i in enumerate(self.shown) if i >= index), None)
        after = next((i for i in range(index, len(steps)) if steps[i].kind is Kind.COMMAND), len(steps))
        before = next((i for i in range(index - 1, -1, -1) if steps[i].kind is Kind.COMMAND), -1)
        notes = tuple(steps[i].text for i in range(before + 1, min(after + 1, len(steps)))
                      if steps[i].kind is Kind.NOTE and steps[i].visibility is not Visibility.SKIP)
        return Position(
            section=section,
            section_number=self.titles.index(section) + 1 if section in self.titles else 0,
            sections=len(self.titles),
            step=following + 1 if following is not None else 0,
            steps=len(self.shown),
            next_command=steps[self.shown[following]].text if following is not None else None,
            notes=notes,
        )


class Channel:
    """The presenter's messages on the audience's own terminal: a status line, or a page over it.

    The status line shows only while the show waits for a key, so it never collides with
    output; what is said meanwhile is kept for the next wait, and shown one message at a time,
    each until a key puts it away.
    """

    page_waits_for_key = True  # a page covers the show, so the presenter dismisses it

    def __init__(self, screen: Screen, file: str = ""):
        self.screen = screen
        self.queued: list[str] = []
        self.marks = False  # --marks: drift marks on this terminal too
        folder = os.path.dirname(file)
        # The workshop's folder as it was given, where a path starts: the presenter reads
        # `README.md:12`, and a message on one row keeps its place and its words.
        self._folder = re.compile(r"(?<![\w./~-])" + re.escape(folder + os.sep)) if folder not in ("", ".") else None

    def local(self, text: str) -> str:
        """`text` with the places in the workshop's folder named from there."""
        return self._folder.sub("", text) if self._folder else text

    def say(self, text: str) -> None:
        """A message for the presenter, shown at the next wait until a key."""
        self.queued.append(text)

    def tell(self, text: str) -> None:
        """An answer to the presenter's own key (help, "nothing before this"), shown now: the next
        key erases it and also acts, since it was pressed after the answer appeared."""
        self.screen.show_status(self.local(text), message=False)

    def post(self, text: str) -> None:
        """A message from a signal handler: only kept (drawing could meet a draw it interrupted)."""
        self.queued.append(text)

    def note(self, text: str) -> None:
        """Something only a notes terminal shows: the audience's screen has no room for it."""

    def cue(self, text: str) -> None:
        """What the first key at the show's first pause answers: the next key erases it."""
        self.screen.show_status(self.local(text), message=False)

    def drift(self, mark: str, where: str) -> None:
        """The mark under a command (at `where`) that did not go as written: dim, never recorded;
        on the audience's terminal only when asked for (--marks): `d` shows it there anyway."""
        if self.marks:
            self.screen.aside(mark, DIM, YELLOW)

    def progress(self, text: str | None) -> None:
        """How far a long stretch without keys has come (None: it is over)."""
        if text is None:
            self.screen.clear_status()
        else:
            self.screen.show_status(self.local(text))

    def at_wait(self, where: str) -> bool:
        """The show waits for a key at `where`: the first message said meanwhile shows now; whether one did."""
        return self.next_message()

    def waited(self) -> None:
        """The key the show waited for came."""

    def next_message(self) -> bool:
        """Show the next message said meanwhile, if there is one; whether there was."""
        if not self.queued:
            return False
        text = visible(self.local(self.queued.pop(0)))
        more = f"  (+{len(self.queued)} more)" if self.queued else ""
        room = self.screen.width - 1 - len(more)
        self.screen.show_status((text if len(text) <= room else text[:max(0, room - 1)] + "…") + more)
        return True

    def page(self, lines: list[str]) -> None:
        self.screen.open_page(lines)

    def page_input(self, text: str) -> None:
        self.screen.page_input(text)

    def close_page(self) -> None:
        self.screen.close_page()

    def at(self, position: Position) -> None:
        """The show moved; only a notes terminal shows where."""

    def finish(self, lines: list[str]) -> None:
        """The end of the show: its last lines stay on the screen, out of the recording."""
        for line in lines:
            self.screen.aside(line, DIM)

    def close(self) -> None:
        """Nothing to let go of."""


GONE = "the notes terminal has closed: the presenter's messages show here now"


def _unless_gone(method):
    """Once the notes terminal has closed, the audience's channel (Channel) does it instead:
    nothing the presenter must know is said to a terminal that is no longer there."""
    here = getattr(Channel, method.__name__)

    @functools.wraps(method)
    def either(self, *args):
        return here(self, *args) if self.gone else method(self, *args)
    return either


class NotesChannel(Channel):
    """Everything for the presenter on a terminal of its own, redrawn in place, ticking each second.

    When that terminal closes (its window shut, its tmux pane killed), the show says so at the
    next wait and goes on with the messages on its own terminal, as without --notes.
    """

    def __init__(self, screen: Screen, path: str, file: str, timings: Timings):
        # Here, not above: threading and the session package would slow every show's first screen.
        import threading

        from ...session.pty_io import window_size

        super().__init__(screen, file)
        self._size = window_size
        self.fd = open_notes(path)
        self.file = file
        self.timings = timings
        self.color = not os.environ.get("NO_COLOR")  # a terminal, as open_notes made sure
        self.position: Position | None = None
        self.messages: deque[str] = deque(maxlen=MESSAGES_KEPT)
        self.page_lines: list[str] = []
        self.input: str | None = None
        self.progress_line: str | None = None
        self.waiting: str | None = None  # where the show waits for a key, while it does
        self.ending: list[str] = []
        self._posted: list[str] = []  # said from a signal handler, moved to messages at the next draw
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._started = time.monotonic()
        self.gone = False  # the notes terminal closed during the show
        self._ticker = threading.Thread(target=self._tick, name="demorun-notes", daemon=True)
        self._ticker.start()

    @_unless_gone
    def say(self, text: str) -> None:
        with self._lock:
            self.messages.append(text)
        self.draw()
        if self.gone:  # found closed by this very message: it waits for the next pause here
            self.queued.append(text)

    @_unless_gone
    def tell(self, text: str) -> None:
        with self._lock:
            self.messages.append(text)
        self.draw()
        if self.gone:  # found closed by this very message: it is shown here instead
            Channel.tell(self, text)

    @_unless_gone
    def note(self, text: str) -> None:
        self.say(text)

    @_unless_gone
    def cue(self, text: str) -> None:
        """The panel says where the show waits: the audience's screen stays the show's alone."""

    @_unless_gone
    def post(self, text: str) -> None:
        self._posted.append(text)  # no lock: the handler may have interrupted a draw holding it

    @_unless_gone
    def drift(self, mark: str, where: str) -> None:
        self.say(f"{where}: {mark}")

    @_unless_gone
    def progress(self, text: str | None) -> None:
        with self._lock:
            self.progress_line = text
        self.draw()

    @_unless_gone
    def next_message(self) -> bool:
        """Messages show as they come: none waits for a key."""
        return False

    @_unless_gone
    def at_wait(self, where: str) -> bool:
        with self._lock:
            self.waiting = where
        self.draw()
        return False

    @_unless_gone
    def waited(self) -> None:
        with self._lock:
            self.waiting = None
        self.draw()

    @_unless_gone
    def page(self, lines: list[str]) -> None:
        with self._lock:
            self.page_lines, self.input = list(lines), None
        self.draw()

    @_unless_gone
    def page_input(self, text: str) -> None:
        with self._lock:
            self.input = text
        self.draw()

    @_unless_gone
    def close_page(self) -> None:
        with self._lock:
            self.input = None
        self.draw()

    @_unless_gone
    def at(self, position: Position) -> None:
        with self._lock:
            self.position = position
        self.draw()

    @_unless_gone
    def finish(self, lines: list[str]) -> None:
        with self._lock:
            self.ending.extend(lines)
            self.position, self.page_lines = None, []
        self.draw()

    def close(self) -> None:
        self._stop.set()
        self._ticker.join(timeout=2 * REFRESH_EVERY)
        self.draw()
        with self._lock:
            os.close(self.fd)
            self.fd = -1

    def _tick(self) -> None:
        while not self._stop.wait(REFRESH_EVERY):
            self.draw()

    def _style(self, text: str, *codes: str) -> str:
        return "".join(codes) + text + RESET if self.color and codes else text

    def lines(self) -> list[str]:
        """The panel, top to bottom."""
        out = [self._style(f"{os.path.basename(self.file)}  ·  {duration(time.monotonic() - self._started)}", BOLD)]
        p = self.position
        if p is not None:
            where = f"section {p.section_number}/{p.sections}: {visible(p.section or '')}" \
                if p.section_number else "(setup)"
            out.append(where)
            if p.next_command is not None:
                out.append(f"step {p.step}/{p.steps}  next: " + visible(p.next_command.splitlines()[0]))
            else:
                out.append(f"no command left of {p.steps}")
            for note in p.notes:
                out.append(self._style(f"▸ {visible(note)}", YELLOW))
        if self.waiting is not None:
            out.append(self._style(f"waiting for you at {visible(self.local(self.waiting))}", BOLD))
        out.append("")
        current = self.timings.current()
        for s in self.timings.sections():
            mark = "▶ " if current is not None and s.title == current.title else "  "
            out.append(f"{mark}{visible(s.title)}  {duration(s.total)} (commands {duration(s.commands)})")
        if self.page_lines:
            out.append("")
            out.extend(self.page_lines)
        if self.input is not None:
            out.append(visible(self.input))
        if self.progress_line is not None:
            out.append(visible(self.local(self.progress_line)))
        if self.messages:
            out.append("")
            out.extend(self._style(visible(self.local(m)), DIM) for m in self.messages)
        if self.ending:
            out.append("")
            out.extend(visible(line) for line in self.ending)
        return out

    def draw(self) -> None:
        """The whole panel from the top, each line cleared to its end: no flicker, no scrolling."""
        with self._lock:
            if self.fd < 0:
                return
            while self._posted:
                self.messages.append(self._posted.pop(0))
            rows, cols = self._size(self.fd) or (24, 80)
            lines = self.lines()
            if len(lines) > rows - 1:  # keep the top (where the show is) and the latest messages
                lines = lines[:rows // 2] + lines[-(rows - 1 - rows // 2):]
            body = "\x1b[H" + "".join(_fit(line, cols) + "\x1b[K\r\n" for line in lines) + "\x1b[J"
            try:
                os.write(self.fd, body.encode("utf-8", "replace"))
            except BlockingIOError:
                pass  # a stopped notes terminal must never stall the show
            except OSError:  # it has closed: say so, and say the rest on the show's own terminal
                if not self.gone:
                    self.gone = True
                    self.queued.append(GONE)

    @property
    def page_waits_for_key(self) -> bool:  # type: ignore[override]
        """A page on the notes terminal needs no key to go; one on the show's own terminal does."""
        return self.gone


def open_notes(path: str) -> int:
    """The notes terminal, opened for writing only: its own shell keeps its keys."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError as exc:
        raise DemorunError(f"--notes {path}: cannot open it: {exc.strerror or exc}") from None
    if not os.isatty(fd):
        os.close(fd)
        raise DemorunError(f"--notes {path}: not a terminal (give one like /dev/pts/3; `tty` prints it)")
    try:
        same = os.fstat(fd).st_rdev == os.fstat(1).st_rdev
    except OSError:
        same = False
    if same:
        os.close(fd)
        raise DemorunError(f"--notes {path}: that is the terminal the show is on; give another one")
    return fd


def _fit(line: str, cols: int) -> str:
    """A line cut to the terminal's width; escape codes (ours only, at the ends) do not count."""
    plain = line.replace(BOLD, "").replace(DIM, "").replace(YELLOW, "").replace(RESET, "")
    if len(plain) < cols:
        return line
    return plain[:max(0, cols - 2)] + "…"
