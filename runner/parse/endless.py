"""Commands that never end by themselves: a watch, a follow, a port-forward, a dashboard, a pager.

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
                        r"|-[A-Za-z]*[fF]|--follow")


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
    words = _words(text)
    if words is None:
        return None
    for segment, background, first in _segments(words):
        reason = None if background else _endless_segment(segment)
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


def _segments(words: list[str]) -> list[tuple[list[str], bool, bool]]:
    """Simple commands between operators, each with whether `&` sends it to the background and
    whether it is in the first pipeline (nothing has run to its end before it)."""
    found: list[tuple[list[str], bool, bool]] = []
    current: list[str] = []
    first = True
    for word in words:
        if word in _OPERATORS:
            if current:
                found.append((current, word == "&", first))
            current = []
            first = first and word in ("|", "|&", "(", "{")
        else:
            current.append(word)
    if current:
        found.append((current, False, first))
    return found


def _endless_segment(words: list[str]) -> str | None:
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
        return program
    if program == "read" and "<" not in args and "<<<" not in args:
        return "waits for keys (read)"
    if program == "sleep" and "infinity" in args:
        return "sleep infinity"
    verbs = [word for word in args if not word.startswith("-")][:2]
    return _endless_tool(program, args, verbs)


def _endless_tool(program: str, args: list[str], verbs: list[str]) -> str | None:
    """Commands that stream or serve until stopped, known by their subcommand or flags."""
    if "port-forward" in verbs:
        return "port-forward"
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


_KEY_READERS = frozenset({"less", "more", "most", "man", "vi", "vim", "nvim", "nano", "emacs", "tig", "top", "htop",
                          "btop", "k9s", "waits for keys (read)"})


def fix_for(reason: str) -> str:
    """How the author says how a never-ending command of this kind ends, for lint and check."""
    if reason in _KEY_READERS:
        return f"it waits for keys nobody presses unattended: pipe its output to `cat`, or {ENDLESS_FIX}"
    return ENDLESS_FIX


ENDLESS_FIX = ("say how it ends: @stop-after D (stop it after D, a success), @wait-for REGEX (stop it once "
               "its output matches) or `&` at its end (run it in the background)")
