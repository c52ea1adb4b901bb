"""Commands that never end by themselves: a watch, a follow, a port-forward, a dashboard, a pager,
a server or listener, a loop without a way out, `yes` into nothing that ends, a sleep past any limit.

One table for every mode: `present` skips or bounds them while catching up, `lint` warns about
them, `check` fails them early or gives them a short limit (docs/format.md).
"""
from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

# Programs that run until someone stops them or presses keys: whatever their arguments.
_ENDLESS_PROGRAMS = frozenset({"watch", "k9s", "stern", "top", "htop", "btop", "less", "more", "most",
                               "vi", "vim", "nvim", "nano", "emacs", "man", "tig"})
# Words that only introduce the command that follows them.
_PREFIXES = frozenset({"sudo", "exec", "command", "builtin", "time", "env", "nice", "nohup", "stdbuf"})
_BOUNDED = frozenset({"timeout"})  # `timeout 10 kubectl logs -f` ends by itself
_OPERATORS = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "(", ")", "{", "}"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")
_FOLLOW = re.compile(r"-[A-Za-z]*[fF][A-Za-z]*|--follow(=.*)?")
_WATCH_FLAG = re.compile(r"--watch(-only)?(=(true|1))?")
# Verbs after which `dashboard` is a name (`helm install dashboard ./chart`), not the program's own page.
_NAMING = frozenset({"install", "upgrade", "create", "apply", "delete", "get", "describe", "uninstall",
                     "rm", "run", "logs", "edit", "pull", "push", "build", "tag"})


# A piece of every shape below: a command without any of them never matches one.
_CANDIDATE = re.compile("|".join(sorted(_ENDLESS_PROGRAMS)) + r"|read|infinity|port-forward|dashboard|proxy|-w|tap"
                        r"|-[A-Za-z]*[fF]|--follow|sleep|yes|http\.server|nc|socat|attach|while|until|for")
# A loop with no way out: `while true`, `while :`, `until false`, `for ((;;))`, and no break/exit/return in it.
_FOREVER = re.compile(r"(?:^|[;&|({\s])(?:while\s+(?:true|:|\[\s*1\s*\]|\(\(\s*1\s*\)\))|until\s+false"
                      r"|for\s*\(\(\s*;\s*;\s*\)\))\s*;?\s*do\b")
_WAY_OUT = re.compile(r"\b(?:break|exit|return)\b")
_SLEEP = re.compile(r"(\d+(?:\.\d*)?|\.\d+)([smhd]?)")
_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
LONG_SLEEP = 600.0  # seconds: a `sleep` longer than the run's default limit outlasts any run
_PAGER_QUITS = re.compile(r"-[A-Za-z]*F[A-Za-z]*|--quit-if-one-screen")  # `less -F`: ends on one screen
_LISTEN = re.compile(r"-[A-Za-z]*l[A-Za-z]*|--listen")  # `nc -l 8080`, `ncat -lk`


@dataclass(frozen=True)
class Endless:
    """Why a command would not end by itself, and whether that is the first thing it does."""

    reason: str  # "watch", "logs -f", "port-forward", "waits for keys (read)"...
    first: bool  # nothing runs before it in the command: skipping it loses nothing


def never_ends(text: str) -> Endless | None:
    """Whether a command runs until stopped: a program that watches, follows or waits for keys, in
    the foreground (a `&` at its end puts it in the background, where it belongs in setup)."""
    if not _CANDIDATE.search(text):  # most commands: no word below can match (1 us instead of 60)
        return None
    forever = _FOREVER.search(text)
    if forever and not _WAY_OUT.search(text, forever.end()) and not text.rstrip().endswith("&") \
            and not re.match(r"\s*timeout\s", text):
        return Endless("a loop without a way out", forever.start() == 0 or not text[:forever.start()].strip())
    words = _words(text)
    if words is None:
        return None
    for segment, background, first, piped in _segments(words):
        reason = None if background else _endless_segment(segment, piped)
        if reason:
            return Endless(reason, first)
    return None


def _words(text: str) -> list[str] | None:
    """The command's words and operators, lines joined; None when it is not plain enough to say."""
    lexer = shlex.shlex(text.replace("\\\n", " ").replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # an unclosed quote: bash would say more; the limit still holds
        return None


def _segments(words: list[str]) -> list[tuple[list[str], bool, bool, bool]]:
    """Simple commands between operators, each with whether `&` sends it to the background,
    whether it is in the first pipeline (nothing has run to its end before it) and whether its
    output goes into a pipe (`yes | head -1` ends when `head` does)."""
    found: list[tuple[list[str], bool, bool, bool]] = []
    current: list[str] = []
    first = True
    for word in words:
        if word in _OPERATORS:
            if current:
                found.append((current, word == "&", first, word in ("|", "|&")))
            current = []
            first = first and word in ("|", "|&", "(", "{")
        else:
            current.append(word)
    if current:
        found.append((current, False, first, False))
    return found


def _endless_segment(words: list[str], piped: bool) -> str | None:
    at = 0
    while at < len(words) and (_ASSIGNMENT.match(words[at]) or words[at] in _PREFIXES
                               or (at and words[at - 1] in _PREFIXES and words[at].startswith("-"))):
        at += 1
    if at == len(words):
        return None
    program, args = os.path.basename(words[at]), words[at + 1:]
    if program in _BOUNDED:
        return None
    if program in _ENDLESS_PROGRAMS:
        quits = program in ("less", "more") and any(_PAGER_QUITS.fullmatch(a) for a in args)
        return None if quits else program
    if program == "read" and "<" not in args and "<<<" not in args:
        return "waits for keys (read)"
    if program == "sleep":
        return _long_sleep(args)
    if program == "yes":
        return None if piped else "yes"  # into a file or /dev/null it runs on
    if re.fullmatch(r"python[0-9.]*", program) and args[:2] == ["-m", "http.server"]:
        return "http.server"
    if program in ("nc", "ncat", "netcat") and any(_LISTEN.fullmatch(a) for a in args):
        return f"{program} -l"
    if program == "socat" and any(a.upper().startswith(("TCP-LISTEN", "TCP4-LISTEN", "TCP6-LISTEN", "UDP-LISTEN"))
                                  for a in args):
        return "socat LISTEN"
    verbs = [word for word in args if not word.startswith("-")][:2]
    return _endless_tool(program, args, verbs)


def _endless_tool(program: str, args: list[str], verbs: list[str]) -> str | None:
    """Commands that stream or serve until stopped, known by their subcommand or flags."""
    if "port-forward" in verbs:
        return "port-forward"
    if program in ("kubectl", "oc", "docker", "podman") and verbs[:1] == ["attach"]:
        return f"{program} attach"
    if verbs[:1] == ["dashboard"] or (verbs[1:2] == ["dashboard"] and verbs[0] not in _NAMING):
        return "dashboard"
    if program in ("kubectl", "oc"):
        if verbs[:1] == ["proxy"]:
            return "proxy"
        if verbs[:1] not in (["rollout"], ["wait"]) and any(a == "-w" or _WATCH_FLAG.fullmatch(a) for a in args):
            return f"{program} -w"
    elif any(_WATCH_FLAG.fullmatch(a) for a in args):
        return "--watch"
    if program == "linkerd" and ({"tap", "top"} & set(verbs)):
        return f"linkerd {'tap' if 'tap' in verbs else 'top'}"
    follows = any(_FOLLOW.fullmatch(a) for a in args)
    if follows and (program in ("tail", "journalctl") or "logs" in verbs):
        return f"{'logs' if 'logs' in verbs else program} -f"
    return None


def _long_sleep(args: list[str]) -> str | None:
    """`sleep infinity`, or a sleep longer than any run's default limit (`sleep 1d`)."""
    if "infinity" in args:
        return "sleep infinity"
    total = 0.0
    for arg in args:
        m = _SLEEP.fullmatch(arg)
        if m is None:
            return None  # `sleep $DELAY`: nobody can say
        total += float(m.group(1)) * _SECONDS[m.group(2)]
    return f"sleep {' '.join(args)}" if total > LONG_SLEEP else None


_KEY_READERS = frozenset({"less", "more", "most", "man", "vi", "vim", "nvim", "nano", "emacs", "tig", "top", "htop",
                          "btop", "k9s", "waits for keys (read)"})


def fix_for(reason: str) -> str:
    """How the author says how a never-ending command of this kind ends, for lint and check."""
    if reason in _KEY_READERS:
        return f"it waits for keys nobody presses unattended: pipe its output to `cat`, or {ENDLESS_FIX}"
    return ENDLESS_FIX


ENDLESS_FIX = ("say how it ends: @stop-after D (stop it after D, a success), @wait-for REGEX (stop it once "
               "its output matches) or `&` at its end (run it in the background)")
