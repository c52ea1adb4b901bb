"""The protocol demorun and its bash speak, both sides in one place: what bash is sent (its
set-up, the session's own lines, the guard after a command, the repair of a lost prompt) and
what it answers (salted prompt markers). Every name of the session's own in bash starts with
OWN_PREFIX; a change to a marker or a helper is an edit here."""
from __future__ import annotations

import functools
import secrets
import shlex
from collections.abc import Sequence

# Marker kinds bash prints: S when a command starts (PS0), C when it wants another line
# (PS2), E with $? when it is back at the prompt (PS1), D with $? when a guarded command is
# done (before bash's job notices and PROMPT_COMMAND), L when the presenter leaves the shell
# handed to them.
STARTED, CONTINUE, ENDED, DONE, LEFT = b"S", b"C", b"E", b"D", b"L"
OUTPUT = b""
KIND_BYTES = frozenset((STARTED, CONTINUE, ENDED, DONE, LEFT))
OPEN, SPLIT, CLOSE = b"\x1e", b"\x1f", b"\x1e"
_MAX_PAYLOAD = 64  # a DONE marker carries PIPESTATUS
MARKER_SPAN = _MAX_PAYLOAD + 2  # a marker's kind, payload and closing byte fit in less
OWN_PREFIX = "__dr_"  # the session's own variables and functions in bash: never the workshop's
B = "\\builtin "  # a workshop's functions and aliases never stand in for the session's own words
# Variables a nested bash must not take from its caller: bash's own, and the prompts.
_OWN_VARIABLES = ("BASH*|EUID|PPID|UID|SHELLOPTS|SHLVL|RANDOM|SRANDOM|SECONDS|LINENO|HISTCMD|FUNCNAME|"
                  "GROUPS|DIRSTACK|PIPESTATUS|EPOCHREALTIME|EPOCHSECONDS|PWD|OLDPWD|_|COMP_*|HIST*|OPT*|"
                  "PS0|PS1|PS2|PROMPT_COMMAND|MAILCHECK|COLUMNS|LINES|__dr_q|__dr_u|__dr_n")
STATUS = '"$__dr_q"'  # $? of the last workshop command, inside one of the session's own lines


def is_own(name: str) -> bool:
    """A variable or function of the session's, not the workshop's."""
    return name.startswith(OWN_PREFIX)


def ansi_c(text: str) -> str:
    """Quote text as bash $'...' so control characters survive one line of input."""
    out = []
    for ch in text:
        if ch in "\\'":
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


class Markers:
    """The prompts that tell a command's start, continuation and end apart from its output.

    Each prints as 0x1E 0x1F salt kind payload 0x1E. In the variables the two opening
    bytes are kept apart (by `\\]\\[`, or an empty expansion in PS0, which readline does
    not filter), so printing $PS1 never fakes one.
    """

    def __init__(self, salt: str | None = None):
        self.salt = salt or secrets.token_hex(8)
        self.prefix = OPEN + SPLIT + self.salt.encode()

    def _prompt(self, kind: str, payload: str = "") -> str:
        return "\\[\x1e\\]\\[\x1f" + self.salt + kind + payload + "\x1e\\]"

    @property
    def ps0(self) -> str:
        return "\x1e${__dr_e-}\x1f" + self.salt + "S\x1e"

    @property
    def ps1(self) -> str:
        """$?, `g` when PROMPT_COMMAND is set, then `j` and the number of jobs (`\\j`)."""
        return "${__dr_i@P}" + self._prompt("E", "$?${PROMPT_COMMAND:+g}j\\j")

    @property
    def ps1_draining(self) -> str:
        """PS1 for a shell fed lines ahead (feed.SocketInput): after a failure, the lines still
        queued are read away unrun (`__dr_drain`, in the command substitution `__dr_dc` holds, so
        it is not parsed at every prompt), and the marker says how many: `D` and the count. Only
        then does the prompt cost a subshell.

        A failure is a status with no entry in the associative array `__dr_d` (only 0 has one):
        a lookup by the status as a string, where `${__dr_d[$? > 0]+...}` evaluated arithmetic.
        No `${__dr_i@P}` either: a fed shell is never handed to a person. Together 6.8 against
        7.4 us of bash's CPU a `true` (20,000 read from a file, PS0 and PS1 to /dev/null)."""
        return self._prompt("E", "$?${PROMPT_COMMAND:+g}${__dr_d[$?]-${__dr_dc@P}}j\\j")

    @property
    def ps2(self) -> str:
        return self._prompt("C")

    def printf_done(self) -> str:
        """A printf command that prints the DONE marker with the status in $1 and PIPESTATUS in
        $2 up to the last argument, joined by spaces whatever the workshop's IFS."""
        return (f"\\builtin local IFS=' '; \\builtin printf '\\x1e\\x1f%sD%s|%s\\x1e' {self.salt} "
                '"$1" "${*:2:$#-2}"')

    def printf_left(self) -> str:
        """A printf command that prints the LEFT marker without spelling it out in its source."""
        return f"\\builtin printf '\\x1e\\x1f%sL\\x1e' {self.salt}"


@functools.lru_cache(maxsize=1024)
def prompt_status(payload: bytes) -> tuple[int | None, bool, bool]:
    """From an E marker's payload: $?; whether output may follow a command after it is done
    (job notices, PROMPT_COMMAND), so the next command needs a DONE marker of its own; and
    whether the prompt read queued lines away (see `drained`).

    Payloads repeat (a status and a job count, mostly `0j0`), and every command ends with one:
    each is parsed once and then looked up, 0.06 against 0.31 us."""
    head, _, jobs = payload.partition(b"j")
    head, drain, _ = head.partition(b"D")
    status = head.rstrip(b"g")
    return (int(status) if status.isdigit() else None), (head.endswith(b"g") or jobs not in (b"", b"0")), bool(drain)


def drained(payload: bytes) -> int | None:
    """From an E marker's payload: how many queued lines bash read away unrun; None when its
    prompt did not drain (ps1_draining: only after a failure)."""
    head = payload.partition(b"j")[0]
    if b"D" not in head:
        return None
    count = head.partition(b"D")[2]
    return int(count) if count.isdigit() else 0




# What bash is sent.

def token() -> tuple[str, str]:
    """A token to wait for, and the printf that prints it. The line never holds the token as
    written, so an echo of the line (`set -v`, a terminal echoing keys typed ahead) never
    passes for its output."""
    value = secrets.token_hex(8)
    return value, f"{B}printf %s%s {value[:8]} {value[8:]}"


def _shell_settings(argv0: str, args: Sequence[str]) -> str:
    """What every bash of a session sets up after its definitions: quiet history, the marker
    prompts, the protected helpers, `$0` and the arguments."""
    b = B
    return "; ".join([
        f"{b}unset PROMPT_COMMAND MAILCHECK HISTFILE", f"{b}set +o histexpand +o history", f"{b}history -c",
        "PS0=$__dr_p0 PS1=$__dr_p1 PS2=$__dr_p2", f"{b}export -n PS0 PS1 PS2",
        f"{b}readonly -f __dr_ret __dr_g __dr_drain",
        f"BASH_ARGV0={shlex.quote(argv0)}", f"{b}set -- " + " ".join(shlex.quote(a) for a in args),
    ])


def internal_line(body: str) -> bytes:
    """A line of the session's own: silent under `set -x`; $? and $_ survive it (even under
    `set -e`); its variables are never exported (`set -a`); its output goes to the terminal,
    never where the workshop sent bash's stdout (`exec >log`)."""
    return ('{ __dr_q=$? __dr_u=$_; \\builtin export -n __dr_q __dr_u; ' + body
            + '; __dr_ret "$__dr_q" "$__dr_u" && \\builtin : "$__dr_u"; } >/dev/tty 2>/dev/null </dev/null\n').encode()


def _drain_definition() -> str:
    """`__dr_drain`, run by the fed shell's PS1 in a subshell after a failure: reads away the
    lines queued in its input, unrun, and prints `D` and how many. Each line is one message of
    the input socket, and reading one byte of a message takes all of it."""
    b = B
    return (f"__dr_drain() {{ {b}local __dr_n=0 __dr_l; "
            f"while {b}read -r -t 0 && {b}read -r -N 1 __dr_l; do __dr_n=$((__dr_n + 1)); done; "
            f"{b}printf 'D%s' \"$__dr_n\"; }}")


def init_line(markers: Markers, feed: bool, argv0: str, args: Sequence[str], printf_token: str) -> bytes:
    """The first line bash reads: the session's helpers and prompts, then `printf_token`."""
    m, b = markers, B
    init = "; ".join([
        "__dr_i=", f"__dr_p0={ansi_c(m.ps0)}", f"__dr_p2={ansi_c(m.ps2)}",
        f"__dr_p1={ansi_c(m.ps1_draining if feed else m.ps1)}",
        f'__dr_ret() {{ {b}return "$1"; }}',
        # After a guarded command: the DONE marker, and demorun's prompts back if it set its own.
        f'__dr_g() {{ [[ $PS0 == "$__dr_p0" && $PS1 == "$__dr_p1" && $PS2 == "$__dr_p2" ]] || '
        f'{{ PS0=$__dr_p0 PS1=$__dr_p1 PS2=$__dr_p2; {b}export -n PS0 PS1 PS2; }}; '
        f'{m.printf_done()} >&3; {b}return "$1"; }}',
        # What the fed shell's PS1 runs after a failure (ps1_draining); defined in every shell alike.
        _drain_definition(), f"{b}declare -A __dr_d; __dr_d[0]= __dr_dc='$({{ __dr_drain; }} 2>/dev/null)'",
        f"{b}readonly __dr_p0 __dr_p1 __dr_p2 __dr_d __dr_dc", _shell_settings(argv0, args),
    ])
    return (init + f"; {printf_token}\n").encode("utf-8", "surrogateescape")


# The guard's call: its stderr (where `set -x` traces it) to /dev/null, the marker to fd 3, the
# stderr of before. $? and $_ pass through it.
# PIPESTATUS goes into the marker (`D0|0 1 0`): the next command's frame puts it back (restore_pipestatus).
_GUARD = '{ __dr_g "$?" "${PIPESTATUS[@]}" "$_"; } 3>&2 2>/dev/null'


def done_status(payload: bytes) -> tuple[int | None, tuple[str, ...]]:
    """From a DONE marker's payload: $?, and PIPESTATUS when the command was a pipeline."""
    status, _, pipe = payload.partition(b"|")
    statuses = tuple(pipe.decode("ascii", "replace").split()) if b" " in pipe else ()
    return (int(status) if status.isdigit() else None), statuses


def restore_pipestatus(statuses: tuple[str, ...]) -> str:
    """What puts back a pipeline's PIPESTATUS, which the guard after it replaced: a pipeline of
    the same statuses, before the next command, traced nowhere; $? and $_ unchanged."""
    if not statuses:
        return ""
    return "{ " + " | ".join(f"__dr_ret {status}" for status in statuses) + "; } 2>/dev/null; "


def guard_tail(guard: bool) -> str:
    """What follows a framed command that output may follow (jobs, PROMPT_COMMAND): the guard
    marks where the command's output ends and puts back the session's prompts."""
    return "; " + _GUARD if guard else ""


# A lost prompt (exec 2>..., PS1 replaced): stderr back on the terminal, the guard's marker and prompts.
REPAIR_LINE = b'__dr_q=$?; [[ -t 2 ]] || \\exec 2>/dev/tty; { __dr_g "$__dr_q" "" "$_"; } 3>&2 2>/dev/null\n'

# Every variable as NUL-separated name and value pairs, but the session's own.
VARIABLES_QUERY = ("\\builtin compgen -v | while IFS= \\builtin read -r __dr_v; do [[ $__dr_v == __dr_* ]] || "
                   "\\builtin printf '%s\\0%s\\0' \"$__dr_v\" \"${!__dr_v-}\"; done")

# Leaving a bash whatever its state, so its EXIT trap runs: the builtin, not a workshop's function
# `exit`; right after `jobs`, which is when bash leaves despite stopped jobs or `shopt -s checkjobs`.
EXIT_BODY = f"{B}jobs >/dev/null 2>&1; {B}exit"
EXIT_LINE = f'__dr_q=$?; {EXIT_BODY} "$__dr_q"\n'.encode()


def nested_line(program: str, argv0: str, printf_token: str) -> bytes:
    """The line that starts a nested bash (@$SHELL) with its caller's variables and functions,
    the session's settings, then `printf_token`."""
    b = B
    definitions = (f"{b}compgen -v | while IFS= {b}read -r __dr_n; do case $__dr_n in {_OWN_VARIABLES}) ;; "
                   f'*) {b}declare -p -- "$__dr_n" ;; esac; done 2>/dev/null; {b}declare -f')
    settings = _shell_settings(argv0, ()) + f"; {printf_token}"
    line = (f"{b}command {shlex.quote(program)} --noprofile --noediting --rcfile "
            f"<({definitions}; {b}printf '%s\\n' {shlex.quote(settings)}) -i\n")
    return line.encode("utf-8", "surrogateescape")


def hand_over_body(markers: Markers, prompt: str) -> str:
    """Set-up for a person typing: `prompt` shown, line editing and history on, `exit` and
    `logout` printing the LEFT marker instead of ending bash."""
    return (f"__dr_i={ansi_c(prompt)}; {B}set -o emacs -o history -o ignoreeof; "
            f"{B}bind 'set enable-bracketed-paste off'; exit() {{ {markers.printf_left()}; }}; "
            "logout() { exit; }")


# After the person has left: bash as it was before hand_over_body.
HAND_BACK_BODY = (f"{B}history -d -1; {B}set +o emacs +o history +o ignoreeof; __dr_i=; "
                  f"{B}unset -f exit logout")
