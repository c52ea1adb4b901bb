"""The one-line framing against the framing it replaced, and commands queued ahead in bash's
input (run and check) against commands sent one at a time: every workshop must come out the
same, command by command.

The default suite compares a sample that takes every path of framing and queuing (and says
so); the whole of demos/ and tests/fixtures, about 90 s, runs with `pytest -m exhaustive`."""
from __future__ import annotations

import re
import shutil
from collections import deque
from pathlib import Path

import pytest

import runner.session.framing as framing
import runner.session.session as session_module
from runner.engine.core import Engine, Policy
from runner.errors import ParseError
from runner.model import NO_MODIFIERS, Plan, Step
from runner.parse.workshop import parse_workshop
from runner.session.bash import Bash
from runner.session.read_ahead import ReadAhead
from runner.session.session import Session

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 3.0  # seconds a command may take here; workshops that wait longer are cut short
WORKSHOPS = sorted([*ROOT.glob("demos/*.md"), *ROOT.glob("tests/fixtures/**/*.md")])
# A few fast workshops that between them take every path (the sample's test checks it does).
SAMPLE = [ROOT / "demos/quickstart.md", ROOT / "tests/fixtures/engine/three.md",
          ROOT / "tests/fixtures/present/hidden_fail.md", ROOT / "tests/fixtures/parse/workshops/expected.md"]
PATHS = {"one line", "line by line", "guarded", "queued", "replied while queued", "taken back", "drained"}
# Durations, clocks and process ids differ from run to run by nature.
_VOLATILE = re.compile(r"\d[\w.:]*")


def two_line_frame(text: str, interactive: bool, guard: bool = False) -> deque[bytes]:
    """The framing before: every command as `{ first line`, ..., `} </dev/null`, the closing
    brace sent only when bash asks for it; nothing marked where a command's output ended."""
    lines = text.split("\n")
    lines[0] = "{ " + lines[0]
    lines.append("}" if interactive else "} </dev/null")
    encoded = [(line + "\n").encode("utf-8", "surrogateescape") for line in lines]
    return deque(encoded[:-2] + [encoded[-2] + encoded[-1]])


def _quick(plan: Plan) -> Plan:
    """The plan with waits cut short, the same for both framings: retries off, time limits short."""
    def quick(step: Step) -> Step:
        m = step.modifiers
        if m is NO_MODIFIERS:  # the session's default limit is LIMIT already
            return step
        return step._replace(modifiers=m._replace(
            retry=None, timeout=min(m.timeout or LIMIT, LIMIT),
            stop_after=None if m.stop_after is None else min(m.stop_after, LIMIT / 2)))
    return plan._replace(steps=tuple(quick(s) for s in plan.steps))


def outcomes(path: Path, folder: Path, read_ahead: bool = False, queued: list[str] | None = None) -> list[tuple]:
    """What each command of the workshop did; nothing for a file that is no workshop (a broken fixture).

    `queued` collects the commands the engine offered to queue behind the one it ran."""
    shutil.copytree(path.parent, folder)
    try:
        plan = _quick(parse_workshop(str(folder / path.name), no_init=True))
    except ParseError:
        return []
    with Session(cwd=str(folder), default_timeout=LIMIT, read_ahead=read_ahead) as session:
        run = session.run

        def counted(command, **options):
            if queued is not None:
                queued.extend(options.get("ahead", ()))
            return run(command, **options)

        session.run = counted
        results = Engine(plan, session, policy=Policy(default_timeout=LIMIT)).run_all()

    def same(text: str) -> str:
        return _VOLATILE.sub("N", text.replace(str(folder), "WORKSHOP"))

    # The output itself is judged by the verdict (the demos print volatile tables on purpose);
    # its line count must agree as well.
    return [(r.step.loc.line, r.verdict.status, same(r.verdict.message), r.verdict.details and len(r.verdict.details),
             None if r.outcome is None else (r.outcome.status, r.outcome.output.count("\n"),
                                             r.outcome.timed_out, r.outcome.recovery))
            for r in results]


def compare(workshops: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[str]]:
    """Each workshop run three ways, the outcomes equal; how many commands, and those offered for queuing."""
    compared, queued = 0, []
    for number, path in enumerate(workshops):
        new = outcomes(path, tmp_path / f"new{number}" / "w")
        ahead = outcomes(path, tmp_path / f"ahead{number}" / "w", read_ahead=True, queued=queued)
        with monkeypatch.context() as patch:
            patch.setattr(framing, "frame", two_line_frame)
            old = outcomes(path, tmp_path / f"old{number}" / "w")
        assert new == old, path
        assert ahead == new, path
        compared += len(new)
    return compared, queued


@pytest.mark.exhaustive
@pytest.mark.slow  # every workshop three times, some waiting out their time limit: about 90 s
def test_framings_agree_on_every_workshop(tmp_path, monkeypatch):
    assert WORKSHOPS
    compared, queued = compare(WORKSHOPS, tmp_path, monkeypatch)
    assert compared > 50
    assert len(queued) > 50  # the comparison saw commands wait in bash's input


def paths_taken(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The paths the session takes from now on, by name (PATHS), as a set that fills up."""
    taken: set[str] = set()
    frame, queue, take_queued = framing.frame, session_module.queueable, Bash.take_queued
    withdraw, drained = ReadAhead.withdraw, ReadAhead.drained

    def framed(text, interactive, guard=False):
        chunks = frame(text, interactive, guard)
        taken.update(["one line" if len(chunks) == 1 else "line by line"] + (["guarded"] if guard else []))
        return chunks

    def queued(text, chunks, ahead):
        lines = queue(text, chunks, ahead)
        taken.update(["queued"] if lines else [])
        return lines

    def replied(self, *args):
        reply = take_queued(self, *args)
        taken.update([] if reply is None else ["replied while queued"])
        return reply

    def taken_back(self):
        taken.update(["taken back"] if self else [])
        return withdraw(self)

    def read_away(self, payload):
        taken.update(["drained"] if self and b"D" in payload.partition(b"j")[0] else [])
        return drained(self, payload)

    monkeypatch.setattr(framing, "frame", framed)
    monkeypatch.setattr(session_module, "queueable", queued)
    monkeypatch.setattr(Bash, "take_queued", replied)
    monkeypatch.setattr(ReadAhead, "withdraw", taken_back)
    monkeypatch.setattr(ReadAhead, "drained", read_away)
    return taken


def test_framings_agree_on_a_sample_that_takes_every_path(tmp_path, monkeypatch):
    taken = paths_taken(monkeypatch)
    compared, queued = compare(SAMPLE, tmp_path, monkeypatch)
    assert taken == PATHS
    assert compared > 10
    assert len(queued) > 5  # the comparison saw commands wait in bash's input


def test_one_line_commands_go_as_one_line():
    frame = framing.frame
    assert list(frame("echo hi", False)) == [b"{ echo hi; } </dev/null\n"]
    assert list(frame("echo hi", True)) == [b"{ echo hi; }\n"]
    # Comments, trailing operators and several lines keep the closing brace on its own line.
    for text in ("echo hi # note", "sleep 1 &", "true;", "echo a \\", "a |"):
        assert frame(text, False)[-1].endswith(b"\n} </dev/null\n"), text


@pytest.mark.parametrize("command, output, status", [
    ("echo 'a;b' \"c}\" ${HOME+x}", "a;b c} x\n", 0),
    ("f() { echo in f; }; f", "in f\n", 0),
    ("(exit 3)", "", 3),
    ("cat", "", 0),
    ("echo $((1+2))", "3\n", 0),
])
def test_one_line_framing_keeps_meaning(command, output, status):
    with Session() as session:
        outcome = session.run(command)
        assert (outcome.output, outcome.status) == (output, status)


def test_one_line_commands_that_do_not_parse_run_nothing(tmp_path):
    from runner.errors import CommandRejected
    with Session(cwd=str(tmp_path)) as session:
        for text in ("touch a; }", "touch b; f() { echo", "touch c 'open", "touch d; fi"):
            with pytest.raises(CommandRejected):
                session.run(text)
        assert session.run("ls; echo ok").output == "ok\n"
