"""Which clusters a workshop will create, read from its plan before anything runs.

`check -j` and `--shard` need this before any session exists, so variables are
followed through the plan's own text: `CLUSTER=demo` (also with `export`),
`${CLUSTER:-demo}`, `for c in east west`, each resolved from assignments earlier
in the plan, then from the environment the session will start with. A name that
only running the workshop could tell (`$(hostname)`, a variable set by `read`, a
config file made by the workshop) is reported as unreadable, with where it is,
so the scheduler can treat the file conservatively.
"""
from __future__ import annotations

import itertools
import os
import re
from collections.abc import Mapping
from typing import NamedTuple

from ..model import Plan, Requirement, SourceLoc, Visibility
from .names import called_tools, cluster_names, creations, read_config, simple_commands

MAX_VALUES = 64  # more possible names than this for one word: not worth telling apart, call it unreadable

_ASSIGNMENT = re.compile(r"([A-Za-z_]\w*)(\+?)=(.*)", re.S)
_PARAMETER = re.compile(r"\$(?:\{([A-Za-z_]\w*)(?:(:?[-=])([^}]*))?\}|([A-Za-z_]\w*))")
# Words that may stand before a command, which is then the next word.
_PREFIXES = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "time", "fi", "done",
                       "esac", "exec", "command", "builtin", "nohup", "sudo"})
_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
# A step where an assignment may or may not happen: its value joins the earlier ones instead of replacing them.
_CONDITIONAL = re.compile(r"&&|\|\||[{}()]|(?:^|[\s;])(?:if|case|for|while|until|select|function)(?:\s|$)")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][\w.-]*)\1")
_STDIN = frozenset({"-", "/dev/stdin"})
# What a command must hold to matter to the reader: an assignment, a word that sets or unsets
# variables or changes folder, a loop variable, or a `create`. Most commands hold none of these,
# and splitting them into words (shlex) was most of what reading a plan cost.
_RELEVANT = re.compile(r"=|\b(?:read|mapfile|readarray|getopts|unset|cd|pushd|popd|for|create)\b|\bprintf\b.*\s-v")


class Unreadable(NamedTuple):
    """A cluster created where its name cannot be told before the workshop runs."""

    loc: SourceLoc
    command: str  # the create command's first line, as written

    def __str__(self) -> str:
        return f"{self.loc}: {self.command}"


class ClusterClaims(NamedTuple):
    """The clusters a workshop creates: names read from its plan, and creations whose name cannot be read."""

    names: frozenset[tuple[str, str]] = frozenset()  # (tool, name)
    unreadable: tuple[Unreadable, ...] = ()

    @property
    def creates(self) -> bool:
        return bool(self.names or self.unreadable)


NO_CLAIMS = ClusterClaims()
Values = frozenset[str] | None  # a variable's possible values; None: not known before running


def planned_clusters(plan: Plan, env: Mapping[str, str]) -> ClusterClaims:
    """Every cluster the commands of `plan` that may run create; `env`: the session's starting environment."""
    reader = _PlanReader(env, os.path.dirname(os.path.abspath(plan.file)))
    for step in plan.commands:
        if step.visibility is not Visibility.SKIP:
            reader.step(step.text, step.loc)
    return ClusterClaims(frozenset(reader.names), tuple(reader.unreadable))


class _PlanReader:
    """Follows variables and the working folder through a plan's commands, in order."""

    def __init__(self, env: Mapping[str, str], folder: str):
        self.env = env
        self.known: dict[str, Values] = {}
        self.folder: str | None = folder
        self.names: set[tuple[str, str]] = set()
        self.unreadable: list[Unreadable] = []

    def step(self, text: str, loc: SourceLoc) -> None:
        if not _RELEVANT.search(text):
            return
        maybe = bool(_CONDITIONAL.search(re.sub(r"\$\{[^}]*\}|\$\(", "", text)))
        for words in simple_commands(text):
            words = _command_words(words)
            self._assignments(words, maybe)
            if not words or "create" not in words:
                continue
            for creation in creations(words):
                names = cluster_names(creation, self.values, lambda path: self._read(path, text))
                if names is None:
                    first = next(line for line in text.splitlines() if creation.tool in line)
                    self.unreadable.append(Unreadable(loc, first.strip()))
                else:
                    self.names |= {(creation.tool, name) for name in names}

    def _assignments(self, words: list[str], maybe: bool) -> None:
        """What a simple command does to the variables and the folder that later names may use."""
        if not words:
            return
        head = words[0]
        if head == "for" and len(words) > 2 and words[2] == "in":
            values = [self.values(word) for word in words[3:]]
            split = None if None in values else frozenset(v for vs in values for value in vs or ()
                                                           for v in value.split())
            self._set(words[1], split, maybe=False)
        elif head in _DECLARERS:
            for word in words[1:]:
                self._assign(word, maybe)
        elif head in ("read", "mapfile", "readarray", "getopts", "printf"):
            for word in words[1:]:  # each name they may set is unknown from here on
                if re.fullmatch(r"[A-Za-z_]\w*", word):
                    self._set(word, None, maybe=False)
        elif head == "unset":
            for word in words[1:]:
                self._set(word, frozenset({""}), maybe)
        elif head in ("cd", "pushd", "popd"):
            self._cd(words[1] if len(words) > 1 and head != "popd" else None)
        elif all(_ASSIGNMENT.fullmatch(word) for word in words):  # with a command after, they are its own
            for word in words:
                self._assign(word, maybe)

    def _assign(self, word: str, maybe: bool) -> None:
        match = _ASSIGNMENT.fullmatch(word)
        if match:
            name, append, value = match.groups()
            self._set(name, None if append else self.values(value), maybe)

    def _set(self, name: str, values: Values, maybe: bool) -> None:
        if maybe:
            before = self._lookup(name)
            values = None if before is None or values is None else before | values
        self.known[name] = values

    def _lookup(self, name: str) -> Values:
        if name in self.known:
            return self.known[name]
        return frozenset({self.env[name]}) if name in self.env else frozenset({""})

    def _cd(self, target: str | None) -> None:
        paths = self.values(target) if target else None
        if self.folder is None or paths is None or len(paths) != 1:
            self.folder = None  # relative config paths can no longer be told
            return
        self.folder = os.path.normpath(os.path.join(self.folder, os.path.expanduser(next(iter(paths)))))

    def values(self, word: str) -> Values:
        """The values `word` may have once bash has filled in its variables; None if only running tells."""
        if "`" in word or _stray_dollar(word):
            return None
        parts: list[frozenset[str]] = []
        at = 0
        for match in _PARAMETER.finditer(word):
            parts.append(frozenset({word[at:match.start()]}))
            values = self._lookup(match.group(1) or match.group(4))
            if match.group(2):  # ${NAME:-default}: the default where it is unset or empty
                default = self.values(match.group(3)) if match.group(3) else frozenset({""})
                values = None if values is None or default is None else _with_default(values, default)
            if values is None:
                return None
            parts.append(values)
            at = match.end()
        parts.append(frozenset({word[at:]}))
        combos = 1
        for part in parts:
            combos *= len(part)
        if combos > MAX_VALUES:
            return None
        out = frozenset("".join(combo) for combo in itertools.product(*parts))
        return None if "" in out else out  # an empty name: bash would pass nothing, or an empty word

    def _read(self, path: str, text: str) -> str | None:
        """A config's text: a here-document for /dev/stdin, else a regular file from the workshop's folder."""
        if path in _STDIN:
            return _heredoc(text)
        if self.folder is None and not os.path.isabs(path):
            return None
        return read_config(os.path.join(self.folder or "/", os.path.expanduser(path)))


def _with_default(values: frozenset[str], default: frozenset[str]) -> frozenset[str]:
    out: set[str] = set()
    for value in values:
        out |= default if value == "" else {value}
    return frozenset(out)


def _stray_dollar(word: str) -> bool:
    """A `$` the simple reader does not understand: `$(...)`, `$1`, `${#x}`, `${x%y}`."""
    return "$" in _PARAMETER.sub("", word)


def _command_words(words: list[str]) -> list[str]:
    """The words from the command's name on: keywords before it dropped, `for` kept (it assigns)."""
    at = 0
    while at < len(words) and words[at] in _PREFIXES:
        at += 1
    return words[at:]


def _heredoc(text: str) -> str | None:
    match = _HEREDOC.search(text)
    if not match:
        return None
    body = text[text.index("\n", match.end()) + 1:] if "\n" in text[match.end():] else ""
    lines: list[str] = []
    for line in body.splitlines():
        if line.strip() == match.group(2):
            return "\n".join(lines)
        lines.append(line)
    return "\n".join(lines)




def undeclared_tools(plan: Plan) -> tuple[Requirement, ...]:
    """The cluster tools the commands that may run call without an @requires, each where first called
    in the workshop's own file (for a command of an imported file: the line that imports it)."""
    declared = {requirement.tool for requirement in plan.requires}
    found: dict[str, SourceLoc] = {}
    for step in plan.commands:
        if step.visibility is not Visibility.SKIP:
            for tool in called_tools(step.text):
                if tool not in declared and all(r.tool != tool for r in step.requires):  # or its section's
                    outside = step.loc.file != plan.file and step.called_from
                    found.setdefault(tool, step.called_from[0] if outside else step.loc)
    return tuple(Requirement(tool, loc, called=True) for tool, loc in found.items())


def with_called_tools(plan: Plan) -> Plan:
    """The plan as if it said @requires for the cluster tools its commands call (--requires-auto)."""
    called = undeclared_tools(plan)
    return plan._replace(requires=plan.requires + called) if called else plan
