"""Directive names and arguments (FORMAT.md): what each means, and whether it is well formed."""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from ..model import Visibility
from .durations import parse_duration

MODES = {"SHOW": Visibility.SHOW, "HIDE": Visibility.HIDE, "SKIP": Visibility.SKIP}
FLAGS = {
    "waitafter": {"wait_after": True},
    "nowaitbefore": {"wait_before": False},
    "noshow": {"show": False},
    "notypeout": {"typeout": False},
    "immed": {"immediate": True, "show": False, "wait_before": False},
    "immediate": {"immediate": True, "show": False, "wait_before": False},
    "ends-shell": {"ends_shell": True},
}
EXPECT_MODES = ("auto", "exact", "contains", "unordered", "ignore")
VALUED = {"expect", "exit", "timeout", "stop-after", "retry", "mask"}
SHELL_NAMES = {"$SHELL", "${SHELL}"}
BUILTIN_MACROS = {"wait_clear", "browser_then_terminal", "start_livecast"}
BUILTIN_HOOKS = {"show_browser": "BROWSER", "show_terminal": "TERMINAL", "show_slides": "SLIDES"}
_BARE = {"wait", "clear", "end", "endif"}
KNOWN_NAMES = (set(MODES) | set(FLAGS) | VALUED | SHELL_NAMES | BUILTIN_MACROS | _BARE
               | {"print", "import", "macro", "hook", "ifhook", "requires"})
_NAME = re.compile(r"[A-Za-z_][\w-]*$")
_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Directive:
    """One directive, understood: `kind` says what to do, the other fields how."""

    kind: str  # mode wait clear print modifier import shell macro end ifhook endif hook requires call
    name: str
    args: str = ""
    mode: Visibility | None = None
    changes: tuple[tuple[str, object], ...] = ()  # Modifiers fields a modifier sets
    words: tuple[str, ...] = ()  # path, names or tools


def _split(name: str, args: str) -> list[str]:
    try:
        return shlex.split(args.replace("\\\n", " "))
    except ValueError as exc:
        raise ValueError(f"'@{name}' arguments {args!r} cannot be split: {exc}") from None


def _one(name: str, args: str, what: str) -> str:
    words = _split(name, args)
    if len(words) != 1:
        raise ValueError(f"'@{name}' takes one {what}, got {args!r}")
    return words[0]


def _modifier(name: str, args: str) -> tuple[tuple[str, object], ...]:
    value = args.strip()
    if name == "expect":
        if value not in EXPECT_MODES:
            raise ValueError(f"'@expect' takes one of {', '.join(EXPECT_MODES)}; got {value!r}")
        return (("expect", value),)
    if name == "exit":
        if value == "any":
            return (("exit", None),)
        if not re.fullmatch(r"\d{1,3}", value) or int(value) > 255:
            raise ValueError(f"'@exit' takes a status 0-255 or 'any', got {value!r}")
        return (("exit", int(value)),)
    if name in ("timeout", "stop-after"):
        return ((name.replace("-", "_"), parse_duration(value)),)
    if name == "retry":
        parts = value.split()
        if len(parts) not in (1, 3) or (len(parts) == 3 and parts[1] != "every"):
            raise ValueError(f"'@retry' takes D or 'D every D2', got {value!r}")
        changes: tuple[tuple[str, object], ...] = (("retry", parse_duration(parts[0])),)
        if len(parts) == 3:
            changes += (("retry_every", parse_duration(parts[2])),)
        return changes
    if not value:
        raise ValueError("'@mask' needs a regular expression")
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"'@mask' {value!r} is not a regular expression: {exc}") from None
    return (("masks", value),)


def interpret(name: str, args: str) -> tuple[Directive | None, str | None]:
    """The directive `@name args`, and what is wrong with it (it may still apply)."""
    if not name:
        return None, f"empty directive {('@' + args).strip()!r}"
    try:
        if name in MODES or name in FLAGS or name in _BARE:
            kind = "mode" if name in MODES else "modifier" if name in FLAGS else name
            directive = Directive(kind, name, mode=MODES.get(name),
                                  changes=tuple(FLAGS.get(name, {}).items()))
            problem = f"'@{name}' takes no arguments, got {args!r}" if args.strip() else None
            return directive, problem
        if name in VALUED:
            return Directive("modifier", name, args, changes=_modifier(name, args)), None
        if name == "print":
            try:
                text = " ".join(_split(name, args))
            except ValueError as exc:
                return Directive("print", name, args.replace("\\\n", " ").strip()), str(exc)
            return Directive("print", name, text), None
        if name == "import" or name in SHELL_NAMES:
            path = _one(name, args, "file")
            return Directive("import" if name == "import" else "shell", name, args, words=(path,)), None
        if name in ("macro", "ifhook"):
            macro = _one(name, args, "name")
            if not _NAME.match(macro):
                raise ValueError(f"'@{name}' name {macro!r} is not a valid name")
            return Directive(name, name, args, words=(macro,)), None
        if name == "hook":
            words = _split(name, args)
            if len(words) != 2 or not _NAME.match(words[0]) or not _VAR.match(words[1]):
                raise ValueError(f"'@hook' takes a name and a variable name, got {args!r}")
            return Directive("hook", name, args, words=tuple(words)), None
        if name == "requires":
            tools = _split(name, args)
            if not tools:
                raise ValueError("'@requires' names at least one tool")
            return Directive("requires", name, args, words=tuple(tools)), None
    except ValueError as exc:
        return None, str(exc)
    return Directive("call", name, args), None
