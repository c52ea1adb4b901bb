"""What the engine does for the authoring directives: fences written as files, @wait-for, the
short limit of commands that never end by themselves, and @requires of one section."""
from __future__ import annotations

import codecs
import dataclasses
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

from ..model import Plan, Step
from ..parse.endless import fix_for, never_ends
from ..results import Outcome, Status, Verdict
from ..session.session import Session
from ..verify.normalise import normalise
from .listener import Listener
from .shell import Shell

WINDOW = 65536  # characters of output before the newest line that a @wait-for pattern may span
ENDLESS_LIMIT = 30.0  # seconds check gives a never-ending command its author did not bound


def write_file(step: Step) -> str | None:
    """Writes a FILE step's text to its path below the workshop's folder, whole or not at all; why not, or None."""
    assert step.target is not None  # FILE steps always have one (runner/parse/builder.py)
    base = os.path.dirname(os.path.realpath(step.loc.file))
    path = os.path.join(base, step.target)
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, exist_ok=True)
        real = os.path.realpath(folder)
        if os.path.commonpath([real, base]) != base:  # a symlinked folder leading out of the tree
            return f"{step.loc}: file={step.target}: its folder leads outside the workshop's folder ({real})"
        if os.path.isdir(path):
            return f"{step.loc}: file={step.target}: is a folder"
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".demorun-")
        try:
            os.fchmod(handle, _mode_for(path))
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(step.text)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as exc:
        return f"{step.loc}: cannot write file={step.target}: {exc.strerror or exc}"
    return None


def _mode_for(path: str) -> int:
    """The mode `cat > path` would leave: an existing file's own, else 0666 less the umask
    (mkstemp's 0600 would hide a manifest from the container or user meant to read it)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


class WaitFor:
    """@wait-for REGEX: watches a command's output as it comes, and interrupts it at the first match."""

    def __init__(self, pattern: str, session: Shell):
        self.pattern = pattern
        self.regex = re.compile(pattern, re.MULTILINE)
        self.session = session
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.seen = ""
        self.matched = False
        self.line = ""  # the line that matched, as far as it had come when it matched

    def feed(self, chunk: bytes) -> None:
        if self.matched:
            return
        self.seen += self.decoder.decode(chunk).replace("\r", "")
        if len(self.seen) > 2 * WINDOW:
            self.seen = self.seen[-WINDOW:]
        shown = _shown(self.seen)
        found = self.regex.search(shown)
        if found:
            self.matched = True
            start = shown.rfind("\n", 0, found.end() - 1 if found.end() else 0) + 1
            self.line = shown[start:].split("\n", 1)[0]
            self.session.interrupt()

    def settle(self, step: Step, outcome: Outcome) -> tuple[Outcome, Verdict | None]:
        """The outcome as the author means it: its output up to the line that matched, a success when
        demorun interrupted it there; else the failure that says what was waited for.

        A command that ended with a status of its own (1 to 127: not killed by the Ctrl-C, not
        0) ended by itself, or failed on the interrupt: its status is judged as usual."""
        found = self.regex.search(outcome.output)
        if found is None and not self.matched and self.regex.search(_shown(outcome.output)) is None:
            how = f"waited {outcome.limit or outcome.duration:g}s" if outcome.timed_out else \
                f"it ended (status {outcome.status}) after {outcome.duration:.1f}s"
            tail = tuple(outcome.output.splitlines()[-10:])
            return outcome, Verdict(Status.FAIL, f"{step.loc}: @wait-for {self.pattern}: {how} and its output "
                                    "never matched", tail)
        output = _cut(outcome.output, found.end() if found else None, self.line)
        own = outcome.recovery == "interrupted" and 0 < outcome.status < 128
        if (outcome.recovery == "interrupted" and not own) or (outcome.timed_out and self.matched):
            outcome = dataclasses.replace(outcome, status=0, timed_out=False, stopped=True, recovery=None)
        return dataclasses.replace(outcome, output=output), None


def _shown(text: str) -> str:
    """Output as the terminal shows it, colours and other escapes gone, as `##` blocks compare it."""
    return "\n".join(normalise(text, tabs=True)) + ("\n" if text.endswith("\n") else "")


def _cut(output: str, end: int | None, line: str) -> str:
    """The output up to the end of the line where the match ended, without the interrupt's `^C`.

    `line` is that line as it came: the terminal's echo of Ctrl-C can overwrite the newline after
    it, leaving the interrupted program's last words on the same line."""
    if end is not None and line:
        start = output.rfind("\n", 0, max(end - 1, 0)) + 1
        if output.startswith(line, start):
            return output[:start + len(line)] + "\n"
    if end is None:  # matched as it came, not in the output as kept (a line redrawn): up to the interrupt
        end = output.find("^C")
        end = len(output) if end < 0 else end
    newline = output.find("\n", max(end - 1, 0))
    kept = output if newline < 0 else output[:newline + 1]
    lines = kept.split("\n")
    for at in (-1, -2):
        if len(lines) >= -at and lines[at].endswith("^C"):
            lines[at] = lines[at][:-2]
    return "\n".join(lines)


@dataclass(frozen=True)
class EndlessLimit:
    """What happens to a command that never ends by itself and that its author did not bound."""

    limit: float
    advice: str
    fails: bool  # fail before it runs (check --strict)


class EndlessGuard:
    """The policy for never-ending commands (runner/parse/endless.py has the table of their shapes)."""

    def __init__(self, limit: float | None, fail: bool):
        self.limit = limit
        self.fail = fail

    def judge(self, step: Step, run_limit: float | None = None) -> EndlessLimit | None:
        """The limit of a never-ending command; `run_limit`, the one it has without this guard."""
        if self.limit is None and not self.fail:
            return None
        m = step.modifiers
        if m.stop_after is not None or m.wait_for or m.timeout is not None or m.retry:
            return None
        endless = never_ends(step.text)
        if endless is None:
            return None
        if self.fail:
            return EndlessLimit(0.0, f"`{endless.reason}` never ends by itself, and --strict does not wait "
                                f"for it: {fix_for(endless.reason)}", True)
        limit = self.limit or 0.0
        if run_limit is not None and run_limit <= limit:  # the user's own limit is the shorter: say that one
            return EndlessLimit(run_limit, f"`{endless.reason}` never ends by itself, so it ran to the "
                                f"{run_limit:g}s limit: {fix_for(endless.reason)}", False)
        return EndlessLimit(limit, f"`{endless.reason}` never ends by itself, so it was given {limit:g}s, "
                            f"not the default limit: {fix_for(endless.reason)}", False)


class SectionNeeds:
    """@requires of one section: a section whose tools are missing is skipped, with preflight's words."""

    def __init__(self, listener: Listener):
        self.listener = listener
        self.known: dict[tuple, str | None] = {}

    def missing(self, step: Step) -> str | None:
        key = step.requires
        if key not in self.known:
            from ..cluster.preflight import shortfall

            short = shortfall(Plan(step.loc.file, (), requires=key))
            title = step.section or "(untitled)"
            self.known[key] = None if short is None else short.summary()
            if short is not None:
                self.listener.on_notice(key[0].loc, f"section {title!r} is skipped: {short.message()}")
        said = self.known[key]
        return None if said is None else f"{step.loc}: section {step.section or '(untitled)'!r} skipped: {said}"


STOP_WORD = "demorun_stop"  # typed in the shell at a failure: stop the run there (`exit` goes on)
_STOP_VAR = "__demorun_stop"


def shell_at_failure(session: Session, say: Callable[[str], None]) -> Callable[[Step], bool]:
    """--pause-on-failure: at a failed command, the person gets the workshop's own shell, its
    variables, directory and jobs as the command left them; `exit` goes on with the next command,
    `demorun_stop` ends the run there. Whether to stop."""
    def pause(step: Step) -> bool:
        say(f"{step.loc} failed: this is the workshop's shell, as the command left it; "
            f"`exit` goes on, `{STOP_WORD}` stops the run here")
        session.run(f"{STOP_WORD}() {{ {_STOP_VAR}=1; exit; }}", timeout=10)
        session.interact_shell()
        if not session.alive:
            return True
        stop = session.getvar(_STOP_VAR) == "1"
        session.run(f"unset -f {STOP_WORD}; unset {_STOP_VAR}", timeout=10)
        return stop

    return pause


def no_terminal_reason() -> str | None:
    """Why nobody can be handed the shell here: standard input or output is not a terminal."""
    import sys

    for name, stream in (("input", sys.stdin), ("output", sys.stdout)):
        try:
            if stream is None or not os.isatty(stream.fileno()):
                return f"standard {name} is not a terminal"
        except (OSError, ValueError, AttributeError):
            return f"standard {name} is not a terminal"
    return None
