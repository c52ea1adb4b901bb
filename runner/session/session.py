"""One persistent bash for a whole workshop: each command's output, status and time, as in a terminal."""
from __future__ import annotations

import dataclasses
import os
import re
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from ..errors import CommandRejected, SessionError
from ..model import DEFAULT_TIMEOUT
from ..results import Escalation, Outcome
from . import framing, processes
from .bash import QUERY_TIMEOUT, Bash
from .exchange import KeysFilter, Reply, Request
from .pty_io import raw_terminal, window_size
from .read_ahead import queueable

UNATTENDED_ENV = {
    "PAGER": "cat", "GIT_PAGER": "cat", "BAT_PAGING": "never", "SYSTEMD_PAGER": "cat",
    "MANPAGER": "cat", "GH_PAGER": "cat", "AWS_PAGER": "",
}
EXIT_TIMEOUT = 60.0  # leaving a nested shell: time for its EXIT trap (a workshop's cleanup)
VISIBLE_PS1 = r"\u@\h:\w\$ "
KILLED_STATUS = 128 + signal.SIGKILL  # bash's status for a command killed; also one whose reply has none
_RECOVERY = {Escalation.INTERRUPTED: "interrupted", Escalation.KILLED: "killed", Escalation.REPLACED: "restarted"}
_EXIT_WORD = re.compile(r"\b(exit|logout)\b")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_REFERENCE = re.compile(
    r"\\\$|\$(?:\{([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[#?$!*@-])\}|([A-Za-z_][A-Za-z0-9_]*|[0-9#?$!*@-]))")
# How to ask for each special parameter without tripping `set -u` (plain `${#-}` is a length).
_SPECIAL_PARAMETER = {"?": '"$__dr_q"', "*": '"$*"', "@": '"$*"', "#": '"$#"', "$": '"$$"',
                      "!": '"${!:-}"', "-": '"$-"'}
_JOB_STATE_WIDTH = 24  # bash prints a job's state padded to this width, then its command


def _without_notices(output: str, jobs: Mapping[str, str]) -> str:
    """output less bash's notices that a job from before the command ended ("[1]+  Done  sleep 9")."""
    kept = []
    for line in output.splitlines(keepends=True):
        number = line[:line.find("]") + 1]
        start = len(number) + 2
        if (number in jobs and line[start + _JOB_STATE_WIDTH:].rstrip("\n") == jobs[number]
                and line[start:start + _JOB_STATE_WIDTH].strip() not in ("", "Running")):
            continue
        kept.append(line)
    return "".join(kept)


def _stdin_fd() -> int | None:
    try:
        return sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return None


def _stdout_fd() -> int:
    try:
        sys.stdout.flush()
        return sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        return 1


class Session:
    """One bash for the whole workshop; variables, cd, functions and jobs persist as in a terminal."""

    def __init__(self, *, cwd: str | None = None, env: Mapping[str, str] | None = None,
                 argv0: str = "demorun", args: Sequence[str] = (), cols: int = 80, rows: int = 24,
                 default_timeout: float = DEFAULT_TIMEOUT, unattended: bool = True, read_ahead: bool = False):
        self.default_timeout = default_timeout
        self._unattended = unattended  # pagers off: nobody is there to page
        self._read_ahead = read_ahead  # commands wait in bash's input (a socket): no interactive ones
        self.cols, self.rows = cols, rows
        self._argv0, self._args = argv0, tuple(args)
        self._cwd = os.path.abspath(cwd or os.getcwd())
        if not os.path.isdir(self._cwd):
            raise SessionError(f"cannot start bash in {self._cwd!r}: not a directory")
        self._mark = secrets.token_hex(8)
        self._env = self._environment(env or {})
        self._running = self._interrupted = False
        self._lost = False  # replaced outside a command: the next outcome says so
        # What the presenter's keys become while an interactive command runs: given the keys and
        # a question "does the command read the terminal now?", the bytes it gets (default: all).
        self.keys_filter: KeysFilter | None = None
        processes.become_subreaper()  # so cleanup can still find daemons that dropped every tie
        self._shells: list[tuple[int, int]] = []  # nested bashes (@$SHELL): (scope, pid), innermost last
        self._ended: list[int] = []  # scopes whose nested bash exited by itself, not yet asked for
        self._bash = Bash(env=self._env, cwd=self._cwd, rows=self.rows, cols=self.cols, argv0=self._argv0,
                          args=self._args, mark=self._mark, feed=self._read_ahead)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        return self._bash.alive

    @property
    def read_ahead(self) -> bool:
        """Whether commands can wait in bash's input behind the running one (Session.run's `ahead`)."""
        return self._read_ahead

    @property
    def queued(self) -> bool:
        """Commands wait in bash's input, or ended before they were asked for."""
        return self._bash.queued

    @property
    def waiting(self) -> int:
        """How many commands wait in bash's input, or ended before they were asked for, that bash
        may have begun: none while demorun waits for bash to print more of the running one."""
        return self._bash.waiting

    @property
    def exit_status(self) -> int | None:
        """bash's own exit status once it has exited (`exit 3`, `set -e`)."""
        return self._bash.exit_status

    def _environment(self, extra: Mapping[str, str]) -> dict[str, str]:
        env = dict(os.environ)
        env.update(extra)
        # No COLUMNS or LINES: exported, they override the pty's size, which programs read for
        # themselves, and outlive a resize (bash would keep them exported and update them only
        # between commands).
        for name in ("PS0", "PS1", "PS2", "PROMPT_COMMAND", "COLUMNS", "LINES"):
            env.pop(name, None)
        if self._unattended:
            env.update(UNATTENDED_ENV)
        env["TERM"] = env.get("TERM") or "xterm-256color"
        env["HISTFILE"] = ""  # no history file is read at start; the shell then unsets it
        if not any(env.get(name) for name in ("LC_ALL", "LC_CTYPE", "LANG")):
            env["LANG"] = "C.UTF-8"
        env[processes.MARK_VARIABLE] = self._mark
        return env

    def _restart(self) -> None:
        """A fresh bash in the old one's working directory; variables and functions are gone.

        Commands that ended in the old one before they were asked for keep their replies."""
        self._shells.clear()
        self._bash = self._bash.replace()

    def close(self) -> None:
        """Ends background jobs and every process the workshop started, then bash. Idempotent.

        Nested shells are left first, so each one's EXIT trap runs, then the session's own.
        """
        try:
            while self._shells and self._bash.alive:
                self.leave_shell()
        except SessionError:
            pass  # a nested bash that will not leave is ended with everything else
        except BaseException:
            self._bash.close(graceful=False)  # asked to stop meanwhile: still end every process
            raise
        self._bash.close(graceful=True)

    # Nested shells: `@$SHELL FILE` runs FILE in a bash of its own, inside this one.

    @property
    def nested(self) -> tuple[int, ...]:
        """The scopes (numbers of @$SHELL calls) of the nested bashes open now, outermost first."""
        return tuple(scope for scope, _ in self._shells)

    def enter_shell(self, scope: int, argv0: str) -> None:
        """Starts a nested bash for `scope`: it sees the variables and functions set so far,
        and nothing it sets, no `cd`, option or `exit` of its own, reaches the caller."""
        bash = self._ready()
        pid = bash.start_nested(argv0, QUERY_TIMEOUT)
        self._shells.append((scope, pid))

    def leave_shell(self) -> None:
        """Ends the innermost nested bash with `exit`, so its EXIT trap runs; killed if it refuses."""
        bash = self._ready()
        if not self._shells:  # getting to a prompt took a fresh shell: the nested ones are gone
            return
        _, pid = self._shells[-1]
        for _attempt in range(2):  # bash refuses the first `exit` while it has stopped jobs
            try:
                bash.query("\\builtin exit 0", EXIT_TIMEOUT)
            except SessionError:
                if not bash.alive:
                    raise
            if processes.gone(pid):
                break
        else:
            processes.kill_all([pid])
            bash.sync()
        self._pop_shell()

    def shells_ended(self) -> tuple[int, ...]:
        """The scopes whose nested bash ended by itself (`exit`, `set -e`, a kill) since the last ask."""
        ended, self._ended = tuple(self._ended), []
        return ended

    def _pop_shell(self) -> int:
        """The innermost nested bash is gone: its caller is the shell at the prompt again."""
        scope, _ = self._shells.pop()
        self._bash.end_nested()
        return scope

    def _left_shells(self) -> bool:
        """After a command: pops the nested bashes it ended (their callers reap them before their
        own prompt, so they are gone by now); whether it ended any."""
        count = len(self._ended)
        while self._shells and self._bash.alive and processes.gone(self._shells[-1][1]):
            self._ended.append(self._pop_shell())
        return len(self._ended) > count

    def _ready(self) -> Bash:
        """The shell, alive and at its prompt; replaced (and the loss reported) if it cannot get there.

        What the session is asked next comes after every queued command; a command stopped
        mid-way (an exception), or a queued one that had to be killed, is interrupted."""
        if not self._bash.alive:
            raise SessionError(f"the shell has exited (status {self._bash.exit_status})")
        try:
            self._bash.settle()
        except SessionError:
            if not self._bash.alive:
                raise
            self._restart()
            self._lost = True
        return self._bash

    # Running commands.

    def run(self, command: str, *, timeout: float | None = None, stop_after: float | None = None,
            on_output: Callable[[bytes], None] | None = None, interactive: bool = False,
            ahead: Sequence[str] = ()) -> Outcome:
        """Runs one complete command: what the terminal showed, the exit status, the time it took.

        `ahead` are the commands the caller will run next, in order, with nothing else asked of
        the session in between, unless this one fails: with `read_ahead`, the one-line ones are
        queued in bash's input behind it, and bash runs them without waiting for demorun.
        """
        text = command.rstrip("\n")
        if framing.is_blank(text):
            if not self._bash.alive:
                raise SessionError(f"the shell has exited (status {self._bash.exit_status})")
            return Outcome(output="", status=0, duration=0.0)
        if framing.defines_builtin(text):
            raise CommandRejected(f"{text!r} defines a function named builtin, which demorun needs for "
                                  "its own lines in the shell; give the function another name")
        if interactive and self._bash.reads_ahead:
            raise SessionError("an interactive command needs a session that reads no commands ahead")
        limit = self.default_timeout if timeout is None else timeout
        stopping = stop_after is not None and stop_after <= limit
        seconds = stop_after if stop_after is not None and stopping else limit
        outcome = None if interactive else self._run_queued(text, seconds, stopping, on_output)
        if outcome is None:
            outcome = self._run_sent(text, seconds, limit, stopping, on_output, interactive, ahead)
        # The limit it ran out of is said here, where it was kept: the reports quote it.
        return dataclasses.replace(outcome, limit=seconds) if outcome.timed_out else outcome

    def _run_queued(self, text: str, seconds: float, stopping: bool,
                    on_output: Callable[[bytes], None] | None) -> Outcome | None:
        """The outcome of `text` if it was queued behind an earlier command; None if it was not."""
        self._interrupted = False
        self._running = True
        try:
            reply = self._bash.take_queued(text, time.monotonic() + seconds, on_output)
        finally:
            self._running = False
        if reply is None:
            return None
        if reply.early:  # it ended while an earlier one was asked about, in the shell of then
            self._interrupted = False  # a Ctrl-C meanwhile came too late for it
            return self._finish(text, reply, reply.began, False, False, {}, on_output)
        lost, self._lost = self._lost, False
        return self._finish(text, reply, reply.began, stopping, lost, {}, on_output)

    def _run_sent(self, text: str, seconds: float, limit: float, stopping: bool,
                  on_output: Callable[[bytes], None] | None, interactive: bool, ahead: Sequence[str]) -> Outcome:
        """Sends `text` now, with the next plain commands of `ahead` queued behind it when they can be."""
        bash = self._ready()
        jobs = self._jobs() if bash.guard else {}
        lost, self._lost = self._lost, False
        guard = bash.guard or framing.needs_guard(text)
        chunks = framing.frame(text, interactive, guard)
        queued = queueable(text, chunks, ahead) if (
            ahead and bash.reads_ahead and not (interactive or guard or stopping or self._shells)) else ()
        stdin_fd = _stdin_fd() if interactive else None
        self._interrupted = False
        start = time.monotonic()
        request = Request(tuple(chunks), start + seconds, on_output=on_output, interactive=interactive,
                          keys=stdin_fd, keys_filter=self.keys_filter, ahead=queued, ahead_limit=limit,
                          watch_idle=not interactive)
        self._running = True
        try:
            if interactive:
                with raw_terminal(stdin_fd), self._follow_window():
                    reply = bash.command(request)
            else:
                reply = bash.command(request)
        finally:
            self._running = False
        return self._finish(text, reply, start, stopping, lost, jobs, on_output)

    def _finish(self, text: str, reply: Reply, start: float, stopping: bool, lost: bool,
                jobs: Mapping[str, str], on_output: Callable[[bytes], None] | None) -> Outcome:
        """The outcome of a reply, after what it tells of the shell: replaced, rejected the command, left."""
        duration = time.monotonic() - start
        if reply.note and on_output is not None:  # what watches the output learns it too
            on_output(f"\r\ndemorun: {reply.note}\r\n".encode())
        if reply.stage is Escalation.REPLACED:
            self._restart()
        if reply.stuck or not (reply.started or reply.stage or reply.died or self._interrupted):
            self._reject(text, reply)
        left_nested = bool(self._shells) and self._left_shells()
        return self._outcome(text, reply, duration, stopping, lost, jobs, reply.died or left_nested)

    def _outcome(self, text: str, reply: Reply, duration: float, stopping: bool, lost: bool,
                 jobs: Mapping[str, str], shell_ended: bool) -> Outcome:
        output = _without_notices(reply.output, jobs) if jobs else reply.output
        if shell_ended and output.endswith("exit\n") and _EXIT_WORD.search(text):
            output = output[:-5]  # bash's farewell on `exit`, not the command's output
        if reply.note:
            output += ("" if not output or output.endswith("\n") else "\n") + f"demorun: {reply.note}\n"
        stage = reply.stage
        status = KILLED_STATUS if reply.status is None else reply.status
        if not (stage or lost or self._interrupted):  # the usual end: the command ran to its prompt
            return Outcome(output, status, duration)
        stopped = bool(stage) and stopping
        status = 0 if stopped else status
        recovery = "restarted" if lost else _RECOVERY.get(stage) or ("interrupted" if self._interrupted else None)
        return Outcome(output=output, status=status, duration=duration, timed_out=bool(stage) and not stopping,
                       stopped=stopped, recovery=recovery, state_lost=stage is Escalation.REPLACED or lost)

    def _reject(self, text: str, reply: Reply) -> None:
        """bash would not take the command and ran none of it; quote bash's own words.

        The engine's syntax check (runner/parse/bash_syntax.py) says more precisely why.
        """
        if self._bash.alive and reply.stage is not Escalation.REPLACED:
            self._bash.sync()
        said = reply.said.strip().splitlines()
        reason = said[0].split(": ", 1)[-1] if said and not reply.stuck else \
            "incomplete: bash is waiting for more input (an unclosed quote, heredoc or block)"
        raise CommandRejected(f"bash rejects {text!r}: {reason}")

    @contextmanager
    def _follow_window(self) -> Iterator[None]:
        """While a person uses the shell, the pty has their terminal's size and follows resizes."""
        stdin_fd = _stdin_fd()
        if stdin_fd is None or not os.isatty(stdin_fd):
            yield
            return
        bash = self._bash

        def resize(*_args: object) -> None:
            size = window_size(stdin_fd)
            if size and bash.alive:
                bash.resize(*size)

        resize()
        previous = None
        if threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGWINCH, resize)
        try:
            yield
        finally:
            if previous is not None:
                signal.signal(signal.SIGWINCH, previous)
            if bash.alive:
                bash.resize(self.rows, self.cols)

    def _jobs(self) -> dict[str, str]:
        """The shell's jobs before a command, `[N]` to command line: bash tells of their end in
        the middle of the next command's output (after each program it runs)."""
        found = {}
        for line in self._bash.query("\\builtin jobs", QUERY_TIMEOUT).splitlines():
            number = line[:line.find("]") + 1]
            if number[:1] == "[":
                found[number] = line[len(number) + 2 + _JOB_STATE_WIDTH:].removesuffix(" &")
        return found

    @property
    def interrupt_pending(self) -> bool:
        """A Ctrl-C was sent to the command that is still running."""
        return self._running and self._interrupted

    def interrupt(self) -> None:
        """Ctrl-C for the running command; a single write, so safe from a signal handler."""
        if self._running:
            self._interrupted = True
            self._bash.request_interrupt()

    # The session's own queries: one round trip each; $?, `set -x` and `set -e` are left alone.

    def _values(self, expressions: Sequence[str]) -> list[str]:
        line = "\\builtin printf '%s\\0' " + " ".join(expressions)
        return self._ready().query(line, QUERY_TIMEOUT).split("\0")[:len(expressions)]

    def getvar(self, name: str) -> str | None:
        """The value of a shell variable, or None when it is unset."""
        if not _NAME.match(name):
            raise ValueError(f"not a variable name: {name!r}")
        flag, value = self._values([f'"${{{name}+1}}"', f'"${{{name}-}}"'])
        return value if flag else None

    def variables(self) -> dict[str, str]:
        """Every shell and exported variable (an array by its first element)."""
        # One listing of the names: each `${!A@}` lists every variable, so a prefix per letter cost
        # bash 53 listings (over 10 s for 10,000 variables, past the time a query is given).
        body = ("\\builtin compgen -v | while IFS= \\builtin read -r __dr_v; do [[ $__dr_v == __dr_* ]] || "
                "\\builtin printf '%s\\0%s\\0' \"$__dr_v\" \"${!__dr_v-}\"; done")
        fields = self._ready().query(body, QUERY_TIMEOUT).split("\0")
        return dict(zip(fields[0:-1:2], fields[1::2]))

    def functions(self) -> list[str]:
        """The names of the shell functions defined now (a workshop's, or a sourced file's), not
        the session's own (`__dr_*`)."""
        names = self._ready().query("compgen -A function || :", QUERY_TIMEOUT).split()
        return [name for name in names if not name.startswith("__dr_")]

    def expand(self, text: str) -> str:
        """text with $VAR, ${VAR}, $1 and the like filled in from the session; nothing in it is run."""
        found = [m.group(1) or m.group(2) for m in _REFERENCE.finditer(text) if m.group(0) != "\\$"]
        if not found:
            return text.replace("\\$", "$")
        names = list(dict.fromkeys(found))
        values = dict(zip(names, self._values([_SPECIAL_PARAMETER.get(n, f'"${{{n}-}}"') for n in names])))
        return _REFERENCE.sub(lambda m: "$" if m.group(0) == "\\$" else values[m.group(1) or m.group(2)], text)

    # Handing the shell to the presenter.

    def interact_shell(self, stdin_fd: int | None = None, stdout_fd: int | None = None,
                       on_output: Callable[[bytes], None] | None = None) -> None:
        """The presenter types into this very bash, with a visible prompt, until `exit` or Ctrl-D.

        Variables, functions and the directory they change stay for the rest of the workshop;
        `exit` and Ctrl-D only hand control back. `on_output` also gets what is shown (recordings).
        """
        stdin_fd = _stdin_fd() if stdin_fd is None else stdin_fd
        stdout_fd = _stdout_fd() if stdout_fd is None else stdout_fd
        if stdin_fd is None:
            raise SessionError("there is no terminal to hand the shell to")
        if self._bash.reads_ahead:
            raise SessionError("the shell reads its commands ahead (run, check): it cannot be handed to a person")
        bash = self._ready()

        def show(data: bytes) -> None:
            os.write(stdout_fd, data)
            if on_output:
                on_output(data)

        with raw_terminal(stdin_fd), self._follow_window():
            bash.hand_over(stdin_fd, show, VISIBLE_PS1)
