"""One bash with salted prompts, as the session sees it: commands sent or queued, the session's
own lines, nested shells and the terminal handed to a person; the parts do the work."""
from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shlex
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence

from ..errors import Aborted, SessionError
from ..results import Escalation
from . import exchange
from .bash_process import BashProcess
from .exchange import Events, Exchange, Reply, Request, gone
from .pty_io import CANONICAL_LINE_MAX, ENDED, LEFT, OUTPUT, STARTED, Markers, Output, Scanner, ansi_c, drained
from .read_ahead import ReadAhead
from .tty_attrs import TtyAttrs

EXIT_GRACE = 60.0  # `exit` at close: time for EXIT traps, a workshop's cleanup (deleting its cluster, say)
START_TIMEOUT = 10.0
QUERY_TIMEOUT = 10.0  # the session's own short lines (set-up of the handed-over shell)

_B = "\\builtin "  # a workshop's functions and aliases never stand in for the session's own words
# Variables a nested bash must not take from its caller: bash's own, and the prompts.
_OWN_VARIABLES = ("BASH*|EUID|PPID|UID|SHELLOPTS|SHLVL|RANDOM|SRANDOM|SECONDS|LINENO|HISTCMD|FUNCNAME|"
                  "GROUPS|DIRSTACK|PIPESTATUS|EPOCHREALTIME|EPOCHSECONDS|PWD|OLDPWD|_|COMP_*|HIST*|OPT*|"
                  "PS0|PS1|PS2|PROMPT_COMMAND|MAILCHECK|COLUMNS|LINES|__dr_q|__dr_n")


def _shell_settings(argv0: str, args: Sequence[str]) -> str:
    """What every bash of a session sets up after its definitions: quiet history, the marker
    prompts, the protected helpers, `$0` and the arguments."""
    b = _B
    return "; ".join([
        f"{b}unset PROMPT_COMMAND MAILCHECK HISTFILE", f"{b}set +o histexpand +o history", f"{b}history -c",
        "PS0=$__dr_p0 PS1=$__dr_p1 PS2=$__dr_p2", f"{b}export -n PS0 PS1 PS2",
        f"{b}readonly -f __dr_ret __dr_g __dr_drain",
        f"BASH_ARGV0={shlex.quote(argv0)}", f"{b}set -- " + " ".join(shlex.quote(a) for a in args),
    ])


def internal_line(body: str) -> bytes:
    """A line of the session's own: silent under `set -x`, and $? survives it (even under `set -e`)."""
    return ('{ __dr_q=$?; ' + body + '; __dr_ret "$__dr_q" && \\builtin :; } 2>/dev/null </dev/null\n').encode()


def _token() -> tuple[str, str]:
    """A token to wait for, and the printf that prints it. The line never holds the token as
    written, so an echo of the line (`set -v`, a terminal echoing keys typed ahead) never
    passes for its output."""
    token = secrets.token_hex(8)
    return token, f"{_B}printf %s%s {token[:8]} {token[8:]}"


def _drain_definition() -> str:
    """`__dr_drain`, run by the fed shell's PS1 in a subshell after a failure: reads away the
    lines queued in its input, unrun, and prints `D` and how many. Each line is one message of
    the input socket, and reading one byte of a message takes all of it."""
    b = _B
    return (f"__dr_drain() {{ {b}local __dr_n=0 __dr_l; "
            f"while {b}read -r -t 0 && {b}read -r -N 1 __dr_l; do __dr_n=$((__dr_n + 1)); done; "
            f"{b}printf 'D%s' \"$__dr_n\"; }}")


def _init_line(markers: Markers, feed: bool, argv0: str, args: Sequence[str], printf_token: str) -> bytes:
    m, b = markers, _B
    init = "; ".join([
        "__dr_i=", f"__dr_p0={ansi_c(m.ps0)}", f"__dr_p2={ansi_c(m.ps2)}",
        f"__dr_p1={ansi_c(m.ps1_draining if feed else m.ps1)}",
        f'__dr_ret() {{ {b}return "$1"; }}',
        # After a guarded command: the DONE marker, and demorun's prompts back if it set its own.
        f'__dr_g() {{ [[ $PS0 == "$__dr_p0" && $PS1 == "$__dr_p1" && $PS2 == "$__dr_p2" ]] || '
        f'{{ PS0=$__dr_p0 PS1=$__dr_p1 PS2=$__dr_p2; {b}export -n PS0 PS1 PS2; }}; '
        f'{m.printf_done()} >&2; {b}return "$1"; }}',
        # What the fed shell's PS1 runs after a failure (ps1_draining); defined in every shell alike.
        _drain_definition(), f"{b}declare -A __dr_d; __dr_d[0]= __dr_dc='$({{ __dr_drain; }} 2>/dev/null)'",
        f"{b}readonly __dr_p0 __dr_p1 __dr_p2 __dr_d __dr_dc", _shell_settings(argv0, args),
    ])
    return (init + f"; {printf_token}\n").encode("utf-8", "surrogateescape")


class Bash:
    """An interactive bash whose prompts are markers, as one session uses it.

    Fed (`feed=True`, unattended), bash reads its commands from a socket while the pty stays its
    terminal: the commands after the running one can wait in its input (`Request.ahead`), where
    nothing the command runs can read them, and bash goes from one to the next without a round
    trip. What the session uses: `alive`, `exit_status`, `reads_ahead`, `queued`, `waiting`,
    `guard`, `command`, `take_queued`, `settle`, `sync`, `query`, `start_nested`, `end_nested`,
    `hand_over`, `resize`, `request_interrupt`, `replace` and `close`.
    """

    def __init__(self, *, env: Mapping[str, str], cwd: str, rows: int, cols: int, argv0: str,
                 args: Sequence[str], mark: str, feed: bool = False):
        self._again = functools.partial(Bash, env=env, rows=rows, cols=cols, argv0=argv0, args=args, mark=mark,
                                        feed=feed)  # the same bash, anew (replace)
        self._cwd = cwd
        self._process = process = BashProcess(env=env, cwd=cwd, rows=rows, cols=cols, mark=mark, feed=feed)
        self.pid = process.pid
        self._markers = Markers()
        self._scanner = Scanner(self._markers)
        self._queue = ReadAhead(process.input, (lambda: process.held(still=True)) if feed else contextlib.nullcontext)
        self._early: deque[tuple[str, Reply]] = deque()  # queued commands that ended before being asked for
        self._stash: Events = []  # events read past the end of the last command
        self._nested: list[int] = []  # the nested bashes (@$SHELL) started, innermost last
        self._clean = True  # at a prompt with nothing of ours pending
        self.guard = False  # output can follow the next command (jobs, PROMPT_COMMAND): frame it guarded
        token, printf_token = _token()
        line = _init_line(self._markers, feed, argv0, args, printf_token)
        try:
            long_or_odd = len(line) > CANONICAL_LINE_MAX or len(line.translate(None, process.special)) != len(line)
            if long_or_odd:
                process.set_tty(process.baseline.raw_input())  # byte for byte
            process.input.send(line)
            self._await(token, START_TIMEOUT, "bash did not start")
            process.set_tty(process.baseline)
        except (SessionError, OSError) as exc:
            self.close(graceful=False)
            raise SessionError(str(exc)) from None

    @property
    def alive(self) -> bool:
        return self._process.alive

    @property
    def exit_status(self) -> int | None:
        return self._process.exit_status

    @property
    def reads_ahead(self) -> bool:
        """bash reads its commands from the socket, so commands can be queued behind the running one."""
        return self._process.fed

    @property
    def queued(self) -> bool:
        """Commands wait in bash's input, or ended before they were asked for."""
        return bool(self._queue) or bool(self._early)

    @property
    def waiting(self) -> int:
        """How many queued commands bash may have begun: none while demorun waits for bash to
        print more of the running one."""
        return 0 if self._queue.caught_up and not self._early else len(self._queue) + len(self._early)

    def request_interrupt(self) -> None:
        """Asks the running exchange to interrupt its command: one write, safe in a signal handler."""
        self._process.request_interrupt()

    def resize(self, rows: int, cols: int) -> None:
        self._process.setwinsize(rows, cols)

    # Commands.

    def command(self, request: Request) -> Reply:
        """A command sent now (whatever was queued is settled first), the pty's attributes set for
        it: echoing for a person, byte for byte while a long or odd line is read."""
        process = self._process
        tty = process.baseline.echoing() if request.interactive else process.baseline
        # A canonical pty would act on control characters and cut lines past 4 KB; a socket would not.
        raw = not process.fed and _needs_raw(request.chunks, process.special)
        process.set_tty(tty)
        if raw:
            process.set_tty(tty.raw_input())
        try:
            return self._exchange(request, tty_after=tty if raw else None)
        finally:
            if process.alive and (raw or request.interactive):
                process.set_tty(process.baseline)

    def take_queued(self, text: str, deadline: float, on_output: Callable[[bytes], None] | None) -> Reply | None:
        """The reply of `text` if it was queued: it ended already (its output is passed to
        on_output now, and the reply is `early`), or it is read now. None if it was not queued."""
        if self._early:
            command, reply = self._early.popleft()
            if command == text:  # it ended while an earlier one was asked about
                if on_output is not None and reply.output:
                    on_output(reply.output.replace("\n", "\r\n").encode("utf-8", "surrogateescape"))
                return reply._replace(early=True)
            self._early.clear()  # the caller went another way: those replies are nobody's
        line = self._queue.take_if(text) if self._process.alive else None
        if line is None:
            return None
        return self._exchange(Request((line,), deadline, on_output=on_output, watch_idle=True, sent=True))

    def _exchange(self, request: Request, tty_after: TtyAttrs | None = None) -> Reply:
        if not request.sent and self._queue:
            self._settle_queue()  # whatever was queued is settled before anything new is sent
        self._clean = False
        events, self._stash = self._stash, []
        turn = Exchange(self._process, self._queue, self._scanner, events, request, tty_after)
        reply = turn.run()
        if not turn.at_prompt:
            return reply
        self._clean, self._stash, self.guard = True, turn.rest, turn.guard
        if (reply.stage or turn.interrupted) and not reply.stuck and not self._sound_after_interrupt():
            return reply._replace(stage=Escalation.REPLACED)
        return reply

    def _sound_after_interrupt(self) -> bool:
        """After an interrupted command: bash still owns its terminal and reads its input.

        With lines queued behind it, bash printed this prompt and went on to them: that is proof
        enough, and the next exchange sees what the interrupt did to them."""
        if self._queue:
            return True
        try:
            if os.tcgetpgrp(self._process.fd) != self._process.shell_pid:
                return False
            self._sync(interrupt=False)
        except (OSError, SessionError):
            return False
        return True

    def settle(self) -> None:
        """At a prompt with nothing pending: what was queued is settled, a command still running
        (an exception stopped its exchange) is interrupted. SessionError if bash will not get there."""
        if self._clean:
            self._settle_queue()
        if not self._clean:
            self._sync(interrupt=True)

    def _settle_queue(self) -> None:
        """Nothing queued any more: the lines bash has begun end and go to `early`, the rest are
        taken back unrun. Before anything else is sent to bash."""
        if not self._queue or not self.alive:
            return
        self._queue.withdraw()
        while self._queue:
            command, line = self._queue.take()
            reply = self._exchange(Request((line,), time.monotonic() + self._queue.limit, watch_idle=True,
                                           sent=True))
            if not self.alive:
                break
            self._early.append((command, reply))
            if reply.stage is Escalation.REPLACED:  # past every escalation: this shell must go
                self._queue.forget()
                self._clean = False
                return

    # The session's own lines.

    def _await(self, token: str, timeout: float, what: str, line: bytes | None = None) -> None:
        """Reads until the prompt that follows `token`, dropping everything before it.

        `line`, sent while bash was still at a failed command, may be read away by the fed
        shell's drain (ps1_draining): it is sent again.
        """
        needle = token.encode()
        text = bytearray()
        deadline = time.monotonic() + timeout
        process = self._process
        while (left := deadline - time.monotonic()) > 0:
            ready = process.wait_output(left)
            data = process.read() if process.fd in ready else None
            if data == b"" or process.pidfd in ready:
                gone(process, self._scanner, Output())
                raise SessionError(f"{what}: the shell exited (status {process.exit_status})")
            for kind, payload in self._scanner.feed(data) if data else ():
                if kind == OUTPUT:
                    text += payload
                elif kind == ENDED and needle in text:
                    return
                elif kind in (STARTED, ENDED):
                    if kind == ENDED and line is not None and drained(payload):
                        process.input.send(line)
                    text.clear()
        self._clean = False
        raise SessionError(f"{what} within {timeout:g}s")

    def sync(self, body: str = ":") -> None:
        """Back to a known prompt after anything unexpected (a rejected command, a shell ended),
        running `body` on the way."""
        self._sync(interrupt=False, body=body)

    def _sync(self, interrupt: bool, body: str = ":") -> None:
        token, printf_token = _token()
        if interrupt:  # nothing queued may run after it; a line bash already began is interrupted too
            self._queue.forget()
            if self._process.interrupt() == self._process.shell_pid:
                self._process.took_interrupt(exchange.INTERRUPT_GRACE)
        else:
            self._settle_queue()
        self._stash = []
        line = internal_line(f"{body}; {printf_token}")
        self._process.input.send(line)
        try:
            self._await(token, exchange.INTERRUPT_GRACE, "bash did not come back to its prompt", line)
        except SessionError:
            grace = exchange.kill_step(self._process) if interrupt and self.alive else None
            if grace is None:
                raise
            self._await(token, grace, "bash did not come back to its prompt", line)
        self._clean = True

    def query(self, body: str, timeout: float) -> str:
        """Output of one of the session's own lines; nothing of the workshop's runs."""
        reply = self._exchange(Request((internal_line(body),), time.monotonic() + timeout, escalate=False))
        if reply.died:
            raise SessionError(f"the shell exited (status {reply.status})")
        if not reply.started:
            raise SessionError(f"bash did not run the line {body!r}")
        return reply.output

    # Nested shells (`@$SHELL FILE`).

    def start_nested(self, argv0: str, timeout: float) -> int:
        """A bash of its own, run by this one at its prompt, as `$SHELL FILE` ran a second demosh.

        It gets the caller's variables and functions (demosh passed every assignment on) and
        starts with bash's default options; what it sets, its `cd`, `set -e` and `exit` stay in
        it. Returns its pid; from now on it is the shell at the prompt.
        """
        b = _B
        token, printf_token = _token()
        definitions = (f"{b}compgen -v | while IFS= {b}read -r __dr_n; do case $__dr_n in {_OWN_VARIABLES}) ;; "
                       f'*) {b}declare -p -- "$__dr_n" ;; esac; done 2>/dev/null; {b}declare -f')
        settings = _shell_settings(argv0, ()) + f"; {printf_token}"
        try:
            program = os.readlink(f"/proc/{self.pid}/exe")
        except OSError:
            program = "bash"
        line = (f"{b}command {shlex.quote(program)} --noprofile --noediting --rcfile "
                f"<({definitions}; {b}printf '%s\\n' {shlex.quote(settings)}) -i\n")
        self._settle_queue()
        self._clean = False
        self._process.input.send(line.encode("utf-8", "surrogateescape"))
        self._await(token, timeout, "the nested bash did not start")
        self._clean, self.guard = True, False
        pid = int(self.query(f"{b}printf %s $$", timeout) or 0)
        if pid in (0, self._process.shell_pid):
            raise SessionError("the nested bash did not start")
        self._nested.append(pid)
        self._process.shell_pid = pid
        return pid

    def end_nested(self) -> None:
        """The innermost nested bash is gone: its caller is the shell at the prompt again."""
        self._nested.pop()
        self._process.shell_pid = self._nested[-1] if self._nested else self.pid

    # Handing the terminal to a person.

    def hand_over(self, stdin_fd: int, show: Callable[[bytes], None], prompt: str) -> None:
        """The presenter types into this bash, with `prompt` shown, until `exit` or Ctrl-D; then the
        shell is as it was, less what they changed (variables, functions, the directory)."""
        process = self._process
        process.set_tty(process.baseline.echoing())
        try:
            shown = self.query(
                f"__dr_i={ansi_c(prompt)}; {_B}set -o emacs -o history -o ignoreeof; "
                f"{_B}bind 'set enable-bracketed-paste off'; exit() {{ {self._markers.printf_left()}; }}; "
                "logout() { exit; }", QUERY_TIMEOUT)
            show(shown.encode("utf-8", "replace"))
            at_prompt = self._copy_keys(stdin_fd, show)
            if self.alive:
                process.flush_keys()  # what was typed after leaving is for nobody
                self._sync(interrupt=not at_prompt, body=f"{_B}history -d -1; {_B}set +o emacs +o history "
                                                         f"+o ignoreeof; __dr_i=; {_B}unset -f exit logout")
        finally:
            if process.alive:
                process.set_tty(process.baseline)

    def _copy_keys(self, stdin_fd: int, show: Callable[[bytes], None]) -> bool:
        """Keys to bash and its output to `show` until the person has left: `exit` (its marker,
        then the prompt after the rest of its line), or Ctrl-D at a prompt where nothing was typed
        (bash would only say "Use exit"). Whether bash is back at its prompt: the rest of the
        line `exit` was in gets a grace, then is interrupted."""
        self._clean = False
        process = self._process
        at_prompt, last_key, typed = True, b"", False
        left: float | None = None  # when `exit` ran
        source: int | None = stdin_fd
        while True:
            wait = None if left is None else left + exchange.INTERRUPT_GRACE - time.monotonic()
            if wait is not None and wait <= 0:
                return False
            ready = process.wait_output(wait, keys=source if left is None else None)
            if source is not None and source in ready:
                keys = os.read(source, 4096)
                if not keys:  # no more keys will come: leave as Ctrl-D would
                    source, keys = None, b"\x04"
                if keys == b"\x04" and at_prompt and not typed:
                    return True
                process.input.send(keys)
                last_key, typed = keys[-1:], True
            data = process.read() if process.fd in ready else None
            if data == b"" or process.pidfd in ready:
                gone(process, self._scanner, Output())
                return False
            for kind, payload in self._scanner.feed(data) if data else ():
                if kind == OUTPUT and left is None:
                    show(payload)
                elif kind == STARTED:
                    at_prompt = False
                elif kind == LEFT:
                    left = time.monotonic()
                elif kind == ENDED and (left is not None or (at_prompt and last_key == b"\x04")):
                    return True
                elif kind == ENDED:
                    at_prompt, last_key, typed = True, b"", False

    # The end.

    def replace(self) -> Bash:
        """A fresh bash in this one's working directory, this one ended; variables and functions
        are gone. Commands that ended in this one before they were asked for keep their replies."""
        cwd = self._process.cwd()
        self.close(graceful=False)
        fresh = self._again(cwd=cwd if cwd and os.path.isdir(cwd) else self._cwd)
        fresh._early = self._early
        return fresh

    def close(self, graceful: bool) -> None:
        """Ends every process the workshop started, then bash; gracefully, with `exit` first, so
        EXIT traps run. Idempotent."""
        if not self._process.alive:
            return
        stop: BaseException | None = None
        if graceful:
            try:
                if not self._clean or self._queue:  # a run aborted mid-command: interrupt it, as Ctrl-C would
                    self._sync(interrupt=True)
                self._exit_gracefully()
            except SessionError:
                pass  # bash would not come back to its prompt: no traps, end everything
            except (KeyboardInterrupt, Aborted) as exc:
                stop = exc  # asked to stop while the traps ran: end everything now, then stop
        self._process.end()
        if stop is not None:
            raise stop

    def _exit_gracefully(self) -> None:
        """`exit`, so EXIT traps run; bash refuses while jobs are stopped, and is then killed."""
        process = self._process
        self._queue.forget()
        try:
            process.input.send(b"exit\n")
        except OSError:
            return
        deadline = time.monotonic() + EXIT_GRACE
        while (left := deadline - time.monotonic()) > 0:
            ready = process.wait_output(left)
            data = process.read() if process.fd in ready else None
            if data == b"" or process.pidfd in ready:
                return
            if data and any(kind == ENDED for kind, _ in self._scanner.feed(data)):
                return


def _needs_raw(chunks: tuple[bytes, ...], special: bytes) -> bool:
    """A command a canonical pty would change: a control character it acts on, or a line past its limit."""
    payload = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    return (len(payload.translate(None, special)) != len(payload)
            or (len(payload) > CANONICAL_LINE_MAX
                and any(len(line) > CANONICAL_LINE_MAX for line in payload.split(b"\n"))))

