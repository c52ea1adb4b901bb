"""Property: whatever a secret's value and however it was set, no channel ever shows it.

Each channel is driven the way a run drives it (a command starts, its output
comes in pieces, the session is read, the command is done), with a stand-in
for the shell that holds the value once the command has run. The value may
arrive split across pieces, coloured in the middle (`grep --color`), inside a
terminal title or a link, or spelled out in the command itself.
"""
from __future__ import annotations

import io
import json
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from runner.model import Kind, Plan, SourceLoc, Step, Visibility
from runner.modes.run import ReplayListener
from runner.report.annotations import github_annotations
from runner.report.cast import CastRecorder
from runner.report.html import render_html
from runner.report.junit import junit_xml
from runner.report.progress import Progress
from runner.report.summary import render_summary
from runner.results import FileReport, Outcome, RunReport, Status, StepResult, Verdict
from runner.secrets import SecretTracker
from runner.terminal.screen import Screen

NAMES = ["API_TOKEN", "DB_PASSWORD", "MY_SECRET", "GH_APIKEY", "CLIENT_API_KEY", "LDAP_PASSWD"]
SETTERS = {  # how a command sets the variable: its value spelled out, or known only to the session
    "literal": "export {name}={quoted}; echo \"{name} is ${name}\"",
    "sourced": "source ./creds.env && echo \"{name} is ${name}\"",
    "computed": "export $(cat creds.env); printf '%s\\n' \"${name}\"",
    "function": "login_with_vault",
}
# What a value may be made of: letters first, so it is never a common word or number; quotes
# and backslashes included, so the command must be read the way bash reads it.
VALUES = st.builds(lambda head, tail: head + tail, st.text(string.ascii_letters, min_size=2, max_size=4),
                   st.text(string.ascii_letters + string.digits + "-_.:/+=@%'\"\\ ", min_size=4, max_size=24))


class _Shell:
    """The session as the tracker sees it: the variable is set once the command has run."""

    alive = True

    def __init__(self, name: str, value: str):
        self.name, self.value, self.ran = name, value, False

    def variables(self) -> dict[str, str]:
        return {self.name: self.value} if self.ran else {}

    def functions(self) -> list[str]:
        return ["login_with_vault"]


def _shell_quoted(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def _pieces(value: str, how: str, cut: int) -> list[bytes]:
    """The command's output as it comes from the terminal, in two pieces cut at `cut`."""
    shown = {
        "plain": f"token: {value}\r\n",
        "coloured": f"token: {value[:2]}\x1b[01;31m\x1b[K{value[2:]}\x1b[m\x1b[K\r\n",
        "title": f"\x1b]0;{value}\x07done\r\n",
        "link": f"\x1b]8;;https://example.com/?t={value}\x1b\\link\x1b]8;;\x1b\\\r\n",
    }[how].encode()
    cut = cut % (len(shown) + 1)
    return [shown[:cut], shown[cut:]]


def _drive(listeners, name, value, setter, pieces, during=lambda step: None):
    """One command through `listeners` as the engine runs it; the step, its result and the tracker.
    `during` is called while the command runs, before the session could be read."""
    text = SETTERS[setter].format(name=name, quoted=_shell_quoted(value))
    step = Step(Kind.COMMAND, SourceLoc("w.md", 3), text, Visibility.HIDE, end_line=3)
    tracker = SecretTracker([step])
    shell = _Shell(name, value)
    for listener in listeners:
        if hasattr(listener, "mask_with"):
            listener.mask_with(tracker)
        elif isinstance(listener, ReplayListener):
            listener.secrets = tracker
    tracker.before(0, shell)
    for listener in listeners:
        listener.on_step_start(0, step)
    for piece in pieces:
        for listener in listeners:
            listener.on_output(step, piece)
    during(step)
    shell.ran = True
    tracker.after(0, shell)
    output = b"".join(pieces).decode()
    result = StepResult(step, Verdict(Status.FAIL, f"{step.loc}: expected nothing, got {output!r}",
                                      ("-nothing", f"+{output}")), Outcome(output, 1, 0.5), 0)
    for listener in listeners:
        listener.on_step_done(result)
    return step, result, tracker


def _verbose(name, value, setter, pieces) -> str:
    out = io.BytesIO()
    with Progress(err=io.StringIO(), out=out, verbose=True) as progress:
        _drive([progress], name, value, setter, pieces)
    return out.getvalue().decode()


def _status_lines(name, value, setter, pieces) -> str:
    progress = Progress(err=io.StringIO(), out=io.BytesIO(), terminal=True)
    seen: list[str] = []
    # What the status line and the CI "still running" line quote, while the command runs.
    _drive([progress], name, value, setter, pieces, during=lambda step: seen.append(progress._shown(step)))
    return seen[0]


def _failure_summary(name, value, setter, pieces) -> str:
    out = io.BytesIO()
    listener = ReplayListener(Screen(out=out, color=False, width=80), quiet=True, speed=None)
    _drive([listener], name, value, setter, pieces)
    return out.getvalue().decode()


def _report(name, value, setter, pieces) -> tuple[RunReport, SecretTracker]:
    step, result, tracker = _drive([], name, value, setter, pieces)
    prose = Step(Kind.PROSE, SourceLoc("w.md", 1), f"# Using {value}", Visibility.SHOW)
    plan = Plan("w.md", (prose, step))
    return RunReport((FileReport("w.md", (result,), 0.5, plan=plan),), 0.5), tracker


def _reports(name, value, setter, pieces) -> str:
    report, tracker = _report(name, value, setter, pieces)
    redact = tracker.redactor
    return "\n".join([junit_xml(report, redact).decode(), render_html(report, redact),
                      render_summary(report, redact, color=False),
                      *github_annotations(report, redact, root="/")])


def _cast(name, value, setter, pieces, tmp_path) -> str:
    path = tmp_path / "w.cast"
    recorder = CastRecorder(str(path), width=80, height=24)
    screen = Screen(out=io.BytesIO(), color=False, width=80, record=recorder.output)
    step, _, tracker = _drive([], name, value, setter, pieces)
    screen.command(step.text)
    for piece in pieces:
        screen.write(piece)
    recorder.close(tracker.redactor)
    return "".join(json.loads(line)[2] for line in path.read_text().splitlines()[1:])


CHANNELS = {"-v": _verbose, "status line": _status_lines, "run's failure summary": _failure_summary,
            "reports": _reports}


@settings(max_examples=150, deadline=None)
@given(value=VALUES, name=st.sampled_from(NAMES), setter=st.sampled_from(list(SETTERS)),
       how=st.sampled_from(["plain", "coloured", "title", "link"]), cut=st.integers(0, 200),
       channel=st.sampled_from(list(CHANNELS)))
def test_no_channel_shows_a_secret(value, name, setter, how, cut, channel):
    shown = CHANNELS[channel](name, value, setter, _pieces(value, how, cut))
    assert value not in shown
    assert value.replace("\\", "\\\\").replace('"', '\\"') not in shown  # nor as JSON or repr quote it


@settings(max_examples=40, deadline=None)
@given(value=VALUES, name=st.sampled_from(NAMES), setter=st.sampled_from(list(SETTERS)),
       how=st.sampled_from(["plain", "coloured", "title", "link"]), cut=st.integers(0, 200))
def test_no_recording_shows_a_secret(tmp_path_factory, value, name, setter, how, cut):
    shown = _cast(name, value, setter, _pieces(value, how, cut), tmp_path_factory.mktemp("cast"))
    assert value not in shown
