"""How long each section of a workshop took, commands against waiting: to fit a talk into its slot.

`run --timings` and `present --timings` share it. A section is the stretch of
the walk under one heading; its time runs from its first step to the next
section's, split into the time commands took and the rest (waiting for the
presenter's keys, typing commands out, prose).
"""
from __future__ import annotations

import time
from collections.abc import Callable

from . import files
from .errors import DemorunError
from .files import write_atomic
from .model import Step

BEFORE_HEADINGS = "(before the first heading)"


class SectionTime:
    """One section's share of the show; a section visited twice (`g` back) adds up."""

    __slots__ = ("title", "line", "total", "commands", "count")

    def __init__(self, title: str, line: int):
        self.title = title
        self.line = line  # where the walk first met it
        self.total = 0.0
        self.commands = 0.0
        self.count = 0  # commands run

    def copy(self) -> SectionTime:
        copied = SectionTime(self.title, self.line)
        copied.total, copied.commands, copied.count = self.total, self.commands, self.count
        return copied

    @property
    def waiting(self) -> float:
        return max(0.0, self.total - self.commands)


class Timings:
    """Wall time per section as the walk reports steps and finished commands."""

    def __init__(self, file: str, clock: Callable[[], float] = time.monotonic):
        self.file = file
        self._clock = clock
        self._sections: dict[str, SectionTime] = {}
        self._current: SectionTime | None = None
        self._since = clock()  # when the current section's open stretch began

    def at(self, step: Step) -> None:
        """The walk has reached `step`: where its section changes, a new stretch starts."""
        title = step.section or BEFORE_HEADINGS
        if self._current is not None and self._current.title == title:
            return
        self._close()
        self._current = self._sections.setdefault(title, SectionTime(title, step.loc.line))

    def command(self, seconds: float) -> None:
        """A command of the current section finished after `seconds`."""
        if self._current is None:
            self._current = self._sections.setdefault(BEFORE_HEADINGS, SectionTime(BEFORE_HEADINGS, 0))
        self._current.commands += seconds
        self._current.count += 1

    def _close(self) -> None:
        now = self._clock()
        if self._current is not None:
            self._current.total += now - self._since
        self._since = now

    def current(self) -> SectionTime | None:
        """The section now under way, its time counted up to now."""
        if self._current is None:
            return None
        live = self._current.copy()
        live.total += self._clock() - self._since
        return live

    def sections(self) -> list[SectionTime]:
        """Every section met so far in the order met, the current one counted up to now."""
        now = self.current()
        met = list(self._sections.values())  # one step: the notes panel reads this from its own thread
        return [now if now is not None and s.title == now.title else s for s in met]

    def table(self, width: int = 80) -> list[str]:
        """The sections as aligned lines of text, a total last; fits `width` columns."""
        rows = self.sections()
        name_width = max(12, min(width - 30, max((len(s.title) for s in rows), default=0)))
        lines = [f"{'section':<{name_width}} {'total':>7} {'commands':>9} {'waiting':>8}"]
        for s in rows:
            lines.append(f"{_cut(s.title, name_width):<{name_width}} {duration(s.total):>7} "
                         f"{duration(s.commands):>9} {duration(s.waiting):>8}")
        total = sum(s.total for s in rows)
        commands = sum(s.commands for s in rows)
        lines.append(f"{'total':<{name_width}} {duration(total):>7} {duration(commands):>9} "
                     f"{duration(max(0.0, total - commands)):>8}")
        return lines

    def as_json(self) -> dict:
        rows = self.sections()
        return {
            "file": self.file,
            "total": round(sum(s.total for s in rows), 3),
            "commands": round(sum(s.commands for s in rows), 3),
            "sections": [{"title": s.title, "line": s.line, "total": round(s.total, 3),
                          "commands": round(s.commands, 3), "waiting": round(s.waiting, 3),
                          "count": s.count} for s in rows],
        }

    def write(self, path: str) -> None:
        """The sections as JSON at `path`, whole (a character device such as /dev/null written in place)."""
        import json  # here: only --timings FILE.json writes it

        try:
            write_atomic(path, json.dumps(self.as_json(), indent=2) + "\n")
        except DemorunError as exc:
            raise DemorunError(f"--timings {path}: {exc.message}") from None


def check_writable(path: str) -> None:
    """Refuse a timings file that could not be written, before a long rehearsal rather than after."""
    try:
        files.check_writable(path)
    except DemorunError as exc:
        raise DemorunError(f"--timings {path}: {exc.message}") from None


def duration(seconds: float) -> str:
    """4.2 -> `4.2s`, 75 -> `1m15s`, 3725 -> `1h02m`: short enough for a column."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"
