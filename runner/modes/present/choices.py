"""How the presenter asked for the show to behave: the switches `present` passes to the live show.

Kept apart from runner/modes/present/live.py so that start.py names them without loading the
engine before the first screen.
"""
from __future__ import annotations

from typing import NamedTuple


class Choices(NamedTuple):
    canned: bool = False  # --canned: a failing command's `##` output is shown as its result
    marks: bool = False  # --marks: drift marks on the audience's terminal too (never recorded)
    blurb: bool = True  # the start cue; --no-blurb leaves it out, as demosh's option does
    debug: bool = False  # --debug: each step said on the notes terminal as the show reaches it


AS_WRITTEN = Choices()  # no switch given
