"""Directive names and arguments (docs/format.md): what each means, and whether it is well formed."""
from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable
from typing import NamedTuple

from ..model import Expect, Kind, Modifiers, Visibility
from .durations import parse_duration

# What a per-command directive does to the modifiers of the next command.
Change = Callable[[Modifiers], Modifiers]


def _immediate(m: Modifiers) -> Modifiers:
    return m._replace(immediate=True, show=False, wait_before=False)


VISIBILITIES = {"SHOW": Visibility.SHOW, "HIDE": Visibility.HIDE, "SKIP": Visibility.SKIP}
FLAGS: dict[str, Change] = {
    "waitafter": lambda m: m._replace(wait_after=True),
    "nowaitbefore": lambda m: m._replace(wait_before=False),
    "noshow": lambda m: m._replace(show=False),
    "notypeout": lambda m: m._replace(typeout=False),
    "immed": _immediate,
    "immediate": _immediate,
    "ends-shell": lambda m: m._replace(ends_shell=True),
}
# An unknown `@name args` runs as the immediate command `name args`, warned about if missing.
AS_COMMAND: Change = lambda m: _immediate(m)._replace(optional=True)  # noqa: E731
VALUED = {"expect", "exit", "timeout", "stop-after", "retry", "mask", "literal", "volatile", "wait-for"}
SHELL_NAMES = {"$SHELL", "${SHELL}"}
BUILTIN_HOOKS = {"show_browser": "BROWSER", "show_terminal": "TERMINAL", "show_slides": "SLIDES"}


class BuiltinMacro(NamedTuple):
    """A macro of the old tool's: its steps (a kind, and a hook's name for HOOK steps) and guards."""

    steps: tuple[tuple[Kind, str | None], ...]
    # As in demosh, the scene switches do nothing unless their hooks are set, so a presenter
    # without a livecast setup is not made to press RETURN for nothing.
    needs_hooks: tuple[str, ...] = ()


BUILTIN_MACROS: dict[str, BuiltinMacro] = {
    "wait_clear": BuiltinMacro(((Kind.WAIT, None), (Kind.CLEAR, None))),
    "browser_then_terminal": BuiltinMacro(
        ((Kind.WAIT, None), (Kind.HOOK, "show_browser"), (Kind.WAIT, None), (Kind.CLEAR, None),
         (Kind.HOOK, "show_terminal")),
        needs_hooks=("show_browser", "show_terminal")),
    "start_livecast": BuiltinMacro(
        ((Kind.HOOK, "show_slides"), (Kind.WAIT, None), (Kind.CLEAR, None), (Kind.HOOK, "show_terminal")),
        needs_hooks=("show_slides", "show_terminal")),
}
_BARE = {"wait", "clear", "end", "endif"}
KNOWN_NAMES = (set(VISIBILITIES) | set(FLAGS) | VALUED | SHELL_NAMES | set(BUILTIN_MACROS) | _BARE
               | {"print", "note", "import", "macro", "hook", "ifhook", "requires", "needs", "file"})
_NAME = re.compile(r"[A-Za-z_][\w-]*$")
_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


class Directive(NamedTuple):
    """One directive, understood: `kind` says what to do, the other fields how."""

    kind: str  # visibility wait clear print note modifier import shell macro end ifhook endif hook requires needs
    # file call
    name: str
    args: str = ""
    visibility: Visibility | None = None
    change: Change | None = None  # what a per-command directive does to the next command
    words: tuple[str, ...] = ()  # path, names or tools


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known word `word` is most likely a typo of, ignoring case, else None: one letter
    added, dropped, changed or two swapped (`SHWO`, `timout`), two in words over five letters."""
    lowered = word.lower()
    best: tuple[int, str] | None = None
    for name in sorted(known):
        allowed = 1 if len(name) <= 5 else 2
        if abs(len(name) - len(word)) > allowed:
            continue  # also keeps a 16 KiB word from costing a table of its size per name
        distance = _edits(lowered, name.lower())
        if distance <= allowed and (best is None or distance < best[0]):
            best = (distance, name)
    return best[1] if best else None


def _edits(a: str, b: str) -> int:
    """Letters added, dropped, changed or swapped with a neighbour to make `a` into `b`."""
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        before, row = row, current
    return row[len(b)]


def suggest(name: str) -> str | None:
    """The directive an unknown `@name` was probably meant to be; new directives join KNOWN_NAMES."""
    return closest(name, KNOWN_NAMES)


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


def _modifier(name: str, args: str) -> Change:
    """The change `@name args` makes to the next command, once its arguments are checked."""
    value = args.strip()
    if name == "expect":
        try:
            comparison = Expect(value)
        except ValueError:
            near = closest(value, [e.value for e in Expect])
            raise ValueError(f"'@expect' takes one of {', '.join(e.value for e in Expect)}; got {value!r}"
                             + (f" (did you mean {near}?)" if near else "")) from None
        return lambda m: m._replace(expect=comparison)
    if name == "exit":
        if value == "any":
            return lambda m: m._replace(exit=None)
        if not re.fullmatch(r"\d{1,3}", value) or int(value) > 255:
            raise ValueError(f"'@exit' takes a status 0-255 or 'any', got {value!r}")
        status = int(value)
        return lambda m: m._replace(exit=status)
    if name == "timeout":
        timeout = parse_duration(value)
        return lambda m: m._replace(timeout=timeout)
    if name == "stop-after":
        stop_after = parse_duration(value)
        return lambda m: m._replace(stop_after=stop_after)
    if name == "retry":
        parts = value.split()
        if len(parts) not in (1, 3) or (len(parts) == 3 and parts[1] != "every"):
            raise ValueError(f"'@retry' takes D or 'D every D2', got {value!r}")
        retry = parse_duration(parts[0])
        if len(parts) == 1:
            return lambda m: m._replace(retry=retry)
        every = parse_duration(parts[2])
        return lambda m: m._replace(retry=retry, retry_every=every)
    if name in ("literal", "volatile"):
        return _pin(name, args)
    if not value:
        raise ValueError(f"'@{name}' needs a regular expression")
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"'@{name}' {value!r} is not a regular expression: {exc}") from None
    if name == "wait-for":
        return lambda m: m._replace(wait_for=value)
    return lambda m: m._replace(masks=(*m.masks, value))


_PIN_NAME = re.compile(r"[^\s\"'`]+(?: [^\s\"'`]+)*")


def _pin(name: str, args: str) -> Change:
    """`@literal NAME...` or `@volatile NAME...`: names of columns or keys (quoted when they hold spaces).

    A name pinned one way by a later directive is no longer pinned the other way.
    """
    names = tuple(_split(name, args))
    if not names:
        raise ValueError(f"'@{name}' names at least one column or key")
    for pinned in names:
        if not _PIN_NAME.fullmatch(pinned):
            raise ValueError(f"'@{name}' name {pinned!r} is not a column title or a key")
    folded = {n.casefold() for n in names}

    def change(m: Modifiers) -> Modifiers:
        if name == "literal":
            return m._replace(literal=(*m.literal, *names), volatile=_unpinned(m.volatile, folded))
        return m._replace(volatile=(*m.volatile, *names), literal=_unpinned(m.literal, folded))

    return change


def _unpinned(names: tuple[str, ...], folded: set[str]) -> tuple[str, ...]:
    return tuple(n for n in names if n.casefold() not in folded)


def interpret(name: str, args: str) -> tuple[Directive | None, str | None]:
    """The directive `@name args`, and what is wrong with it (it may still apply)."""
    if not name:
        return None, f"empty directive {('@' + args).strip()!r}"
    try:
        if name in VISIBILITIES or name in FLAGS or name in _BARE:
            kind = "visibility" if name in VISIBILITIES else "modifier" if name in FLAGS else name
            directive = Directive(kind, name, visibility=VISIBILITIES.get(name), change=FLAGS.get(name))
            problem = f"'@{name}' takes no arguments, got {args!r}" if args.strip() else None
            return directive, problem
        if name in VALUED:
            return Directive("modifier", name, args, change=_modifier(name, args)), None
        if name == "print":
            try:
                text = " ".join(_split(name, args))
            except ValueError as exc:
                return Directive("print", name, args.replace("\\\n", " ").strip()), str(exc)
            return Directive("print", name, text), None
        if name == "note":  # for the presenter's eyes only: kept as written, quotes and all
            text = args.replace("\\\n", " ").strip()
            return Directive("note", name, text), None if text else "'@note' needs the text of the note"
        if name == "needs":
            return Directive("needs", name, args, words=(_one(name, args, "setup file"),)), None
        if name == "file":  # the fence right below is written to this path (runner/parse/markdown.py)
            return Directive("file", name, args, words=(_one(name, args, "path"),)), None
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
