"""A whole workshop of the usual shape, presented in a real terminal: its screens, wait by wait, are the
steps `demorun list` gives (hidden setup, prose, commands and their output, waits, clears, a nested file)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import tmux_terminal as live
from test_present_stage import notes_pane  # noqa: F401  (a fixture)
from tmux_terminal import FAST, FIXTURES, REPO

pytestmark = live.TMUX
terminal, present = live.terminal, live.present  # the same real-terminal fixtures
WORKSHOP = FIXTURES / "workshop" / "README.md"


def _steps() -> list[dict]:
    listed = subprocess.run([sys.executable, "-m", "runner", "list", "--json", "--no-init", str(WORKSHOP)],
                            cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(listed.stdout)["steps"]


def _shown(step: dict) -> list[str]:
    """What a shown step puts on the audience's screen, line by line, as text to find there."""
    kind, text = step["kind"], step["text"]
    if kind == "prose":
        return [re.sub(r"^#+ |[*`]", "", line).strip() for line in text.splitlines() if line.strip()]
    if kind == "comment":
        return [f"# {line}" for line in text.splitlines()]
    if kind == "print":
        return [text.replace("${SHOP}", "corner")]  # the value the hidden setup gave it
    if kind == "command":
        return [f"$ {text}", *(step["expected"] or {"lines": []})["lines"]]
    return []


def _in_order(screen: str, wanted: list[str]) -> bool:
    at = 0
    for text in wanted:
        found = screen.find(text, at)
        if found < 0:
            return False
        at = found + len(text)
    return True


def test_the_screens_of_a_whole_workshop_follow_its_steps(present, notes_pane, tmp_path):  # noqa: F811
    steps = _steps()
    assert {s["kind"] for s in steps} >= {"prose", "command", "wait", "clear", "comment", "print"}
    assert any(s["called_from"] for s in steps if s["kind"] == "command" and s["visibility"] == "show")
    hidden = [s["text"] for s in steps if s["kind"] == "command" and s["visibility"] != "show"]
    assert len(hidden) >= 3  # setup in the workshop and in the nested file
    pane, tty = notes_pane
    pane.tmux("resize-window", "-t", "t", "-x", "250", "-y", "30")  # every location on the panel whole
    cast = tmp_path / "show.cast"
    term = present(str(WORKSHOP), *FAST, "--notes", tty, "--record", str(cast))
    on_screen: list[str] = []  # what the audience must see now, in order, since the last clear
    cleared: list[str] = []  # what a clear took away
    waits = commands = 0
    for number, step in enumerate(steps):
        if step["visibility"] != "show":
            continue
        if step["kind"] == "clear":
            cleared, on_screen = cleared + on_screen, []
            continue
        if step["kind"] not in ("wait", "command", "print"):
            on_screen += _shown(step)
            continue
        if step["kind"] == "command":
            on_screen.append(f"$ {step['text']}")
        elif step["kind"] == "print":  # shown, then a wait for RETURN, as demosh's @print
            on_screen += _shown(step)
        # Places are named from the workshop's folder, however the workshop was given.
        pane.wait_text(f"waiting for you at {os.path.relpath(step['file'], WORKSHOP.parent)}:{step['line']}")
        screen = term.wait_for(lambda s, w=list(on_screen): _in_order(s, w), f"the screen at step {number}")
        assert not any(text in screen for text in hidden)
        assert not any(text in screen for text in cleared if not any(text in kept for kept in on_screen))
        later = next((s for s in steps[number + 1:] if s["visibility"] == "show" and _shown(s)), None)
        assert later is None or not any(text in screen for text in _shown(later)[:1])
        term.keys("Enter")
        if step["kind"] == "command":  # its output is seen at the next wait, or in the recording
            commands += 1
            on_screen = on_screen[:-1] + _shown(step)
        elif step["kind"] == "wait":
            waits += 1
    assert (waits, commands) == (3, 5)
    assert term.finished()[0] == 0
    assert _in_order(term.screen(), on_screen)
    pane.wait_text("end of the show: 5 commands")
    played = "".join(json.loads(line)[2] for line in cast.read_text().splitlines()[1:]).replace("\r\n", "\n")
    shown = [text for s in steps if s["visibility"] == "show" and s["kind"] == "command" for text in _shown(s)]
    assert _in_order(re.sub(r"\x1b\[[0-9;]*m", "", played), shown)
