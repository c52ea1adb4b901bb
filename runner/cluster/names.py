"""Which clusters a command creates, read from its text: `k3d cluster create NAME`, `kind create cluster`.

Pure text in, names out; the session supplies variable values and the
working directory. A name this cannot read (a command substitution, a
config piped on stdin) is still found by listing clusters before and after.
"""
from __future__ import annotations

import os
import re
import shlex
import stat
from collections.abc import Callable
from typing import NamedTuple

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

CONFIG_MAX = 1 << 20  # a cluster config bigger than this is not one

Expand = Callable[[str], str]  # "$CLUSTER" -> its value in the session
Reader = Callable[[str], str | None]  # a config file's text, relative to the session's folder


class Creation(NamedTuple):
    """One `k3d cluster create` or `kind create cluster`, its words as written (variables not filled in)."""

    tool: str  # "k3d" or "kind"
    name: str | None  # the word naming the cluster, if one does
    config: str | None  # the --config word, if any


Values = Callable[[str], frozenset[str] | None]  # a word's possible values; None when only running it tells


def created_clusters(command: str, expand: Expand, read: Reader) -> set[tuple[str, str]]:
    """(tool, name) for every cluster `command` asks k3d or kind to create, as far as the session can tell."""
    def values(word: str) -> frozenset[str] | None:
        value = _value(word, expand)
        return frozenset({value}) if value else None

    found: set[tuple[str, str]] = set()
    for words in simple_commands(command):
        for creation in creations(words):
            found |= {(creation.tool, name) for name in cluster_names(creation, values, read) or ()}
    return found


def creations(words: list[str]) -> list[Creation]:
    """The clusters one simple command asks for (also one named as an argument: `echo k3d cluster create x`)."""
    found = []
    for at, word in enumerate(words):
        tool = os.path.basename(word)
        rest = words[at + 1:]
        if tool == "k3d" and _verbs(rest, 2) == ["cluster", "create"]:
            positional, options = _options(_after_verbs(rest, 2), _K3D_SWITCHES)
            found.append(Creation(tool, positional[0] if positional else None,
                                  options.get("--config") or options.get("-c")))
        elif tool == "kind" and _verbs(rest, 2) == ["create", "cluster"]:
            _, options = _options(_after_verbs(rest, 2), _KIND_SWITCHES)
            found.append(Creation(tool, options.get("--name"), options.get("--config")))
    return found


def cluster_names(creation: Creation, values: Values, read: Reader) -> frozenset[str] | None:
    """The names `creation` may give its cluster; None when they cannot be read without running it.

    k3d: the name, else the config's, else k3s-default; kind: --name, else the config's, else
    $KIND_CLUSTER_NAME, else kind. A config that cannot be read names nothing that can be told.
    """
    if creation.name is not None:
        return values(creation.name)
    default = K3D_DEFAULT if creation.tool == "k3d" else None
    if creation.config is not None:
        paths = values(creation.config)
        if paths is None:
            return None
        names: set[str] = set()
        for path in paths:
            text = read(path)
            if text is None:
                return None
            named = config_name(text) or default
            if named is None:
                break  # a kind config without a name: the environment's or kind's default
            names.add(named)
        else:
            return frozenset(names)
    return frozenset({default}) if default else values(f"${{KIND_CLUSTER_NAME:-{KIND_DEFAULT}}}")


CLUSTER_TOOLS = ("k3d", "kind", "kubectl", "helm", "linkerd", "docker")
# Commands that run the next word as a command: `sudo kubectl ...`, `watch -n1 kubectl ...`.
_WRAPPERS = frozenset({"sudo", "env", "nohup", "exec", "command", "time", "watch", "xargs", "timeout", "!",
                       "then", "else", "elif", "do", "if", "while", "until", "{"})


def called_tools(command: str) -> list[str]:
    """The cluster tools (CLUSTER_TOOLS) a command calls, in order, each once; also inside `$(...)`."""
    called: list[str] = []
    for words in simple_commands(command.replace("`", " ; ")):
        at = 0
        while at < len(words) and (words[at] in _WRAPPERS or words[at].startswith("-")
                                   or re.fullmatch(r"[A-Za-z_]\w*=.*|[\d.]+[smhd]?", words[at], re.S)):
            at += 1
        tool = os.path.basename(words[at]) if at < len(words) else ""
        if tool in CLUSTER_TOOLS and tool not in called:
            called.append(tool)
    return called


def simple_commands(command: str) -> list[list[str]]:
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


def read_config(path: str) -> str | None:
    """A cluster config file's text; only a regular file: /dev/stdin, a FIFO or a device would
    block the run (or its planning) before anything happens."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return fh.read(CONFIG_MAX).decode("utf-8", "replace")
