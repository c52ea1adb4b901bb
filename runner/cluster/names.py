"""Which clusters a command creates, read from its text: `k3d cluster create NAME`, `kind create cluster`.

Pure text in, names out; the session supplies variable values and the
working directory. A name this cannot read (a command substitution, a
config piped on stdin) is still found by listing clusters before and after.
"""
from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable

K3D_DEFAULT = "k3s-default"
KIND_DEFAULT = "kind"
_SEPARATORS = frozenset({";", "&", "&&", "|", "||", "|&", "(", ")", ";;"})
# Flags of `k3d cluster create` and `kind create cluster` that take no value.
_K3D_SWITCHES = frozenset({"--wait", "--no-lb", "--no-rollback", "--no-image-volume", "--no-hostip",
                           "--kubeconfig-update-default", "--kubeconfig-switch-context", "--verbose",
                           "--trace", "--timestamps", "-h", "--help", "--registry-create"})
_KIND_SWITCHES = frozenset({"--retain", "-q", "--quiet", "-h", "--help"})
# `<<'EOF'`, `2>/dev/null`, `>out`, `&>log`: never a cluster's name.
_REDIRECTION = re.compile(r"""(?:(?<=\s)\d+|&)?(?:<<<|<<-?|>>|<>|>&|<&|>\||[<>])\s*(?:'[^']*'|"[^"]*"|[^\s;&|()]+)""")
_TOP_NAME = re.compile(r"^name:\s*(.*)$")
_META_NAME = re.compile(r"^\s+name:\s*(.*)$")

Expand = Callable[[str], str]  # "$CLUSTER" -> its value in the session
Reader = Callable[[str], str | None]  # a config file's text, relative to the session's folder


def created_clusters(command: str, expand: Expand, read: Reader) -> set[tuple[str, str]]:
    """(tool, name) for every cluster `command` asks k3d or kind to create."""
    found: set[tuple[str, str]] = set()
    for words in _simple_commands(command):
        for at, word in enumerate(words):
            tool = os.path.basename(word)
            rest = words[at + 1:]
            if tool == "k3d" and _verbs(rest, 2) == ["cluster", "create"]:
                name = _k3d_name(_after_verbs(rest, 2), expand, read)
            elif tool == "kind" and _verbs(rest, 2) == ["create", "cluster"]:
                name = _kind_name(_after_verbs(rest, 2), expand, read)
            else:
                continue
            if name:
                found.add((tool, name))
    return found


def _simple_commands(command: str) -> list[list[str]]:
    """The words of each simple command, continuation lines joined, comments dropped."""
    commands: list[list[str]] = []
    for line in command.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(_REDIRECTION.sub(" ", line), posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        try:
            tokens = list(lexer)
        except ValueError:  # an unbalanced quote: bash would not run this line as such
            continue
        current: list[str] = []
        for token in tokens:
            if token in _SEPARATORS:
                commands.append(current)
                current = []
            else:
                current.append(token)
        commands.append(current)
    return [c for c in commands if c]


def _verbs(words: list[str], count: int) -> list[str]:
    """The first `count` words that are not flags (global flags may precede the subcommand)."""
    return [w for w in words if not w.startswith("-")][:count]


def _after_verbs(words: list[str], count: int) -> list[str]:
    seen = 0
    for index, word in enumerate(words):
        if not word.startswith("-"):
            seen += 1
            if seen == count:
                return words[index + 1:]
    return []


def _options(words: list[str], switches: frozenset[str]) -> tuple[list[str], dict[str, str]]:
    """Positional words and `--flag value` / `--flag=value` pairs, as the CLI would read them."""
    positional: list[str] = []
    values: dict[str, str] = {}
    index = 0
    while index < len(words):
        word = words[index]
        if word.startswith("-") and word != "-":
            flag, eq, value = word.partition("=")
            if eq:
                values.setdefault(flag, value)
            elif flag not in switches and index + 1 < len(words):
                values.setdefault(flag, words[index + 1])
                index += 1
        else:
            positional.append(word)
        index += 1
    return positional, values


def _value(word: str | None, expand: Expand) -> str | None:
    """A word with its variables filled in; None when only running it could tell (`$(...)`)."""
    if not word or "`" in word or "$(" in word:
        return None
    value = expand(word) if "$" in word else word
    return value if value and "$" not in value else None


def _k3d_name(words: list[str], expand: Expand, read: Reader) -> str | None:
    positional, values = _options(words, _K3D_SWITCHES)
    if positional:
        return _value(positional[0], expand)
    config = _value(values.get("--config") or values.get("-c"), expand)
    if config:
        return config_name(read(config) or "") or K3D_DEFAULT
    return K3D_DEFAULT


def _kind_name(words: list[str], expand: Expand, read: Reader) -> str | None:
    _, values = _options(words, _KIND_SWITCHES)
    if "--name" in values:
        return _value(values["--name"], expand)
    config = _value(values.get("--config"), expand)
    if config:
        named = config_name(read(config) or "")
        if named:
            return named
    return _value("$KIND_CLUSTER_NAME", expand) or KIND_DEFAULT


def config_name(text: str) -> str | None:
    """The cluster name in a k3d or kind config: top-level `name:`, or `name:` under `metadata:`."""
    in_metadata = False
    child_indent = 0  # metadata's own keys, not those of a map inside it
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].rstrip()
        if not line or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if not indent:
            in_metadata, child_indent = line.startswith("metadata:"), 0
            top = _TOP_NAME.match(line)
            if top and _scalar(top.group(1)):
                return _scalar(top.group(1))
        elif in_metadata:
            child_indent = child_indent or indent
            nested = _META_NAME.match(line)
            if indent == child_indent and nested and _scalar(nested.group(1)):
                return _scalar(nested.group(1))
    return None


def _scalar(text: str) -> str | None:
    value = text.strip().strip("'\"")
    return value or None
