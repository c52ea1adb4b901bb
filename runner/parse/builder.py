"""Files into one Plan: imports, macros, hooks, init files, visibility and per-command modifiers.

Two passes, as the old tool effectively had: first every file of the workshop
is read and its macros and hooks are collected (so a macro may be called
before the import that defines it, and the built-ins apply only where the
workshop defines none of its own); then the steps are emitted in order with
everything expanded in place.
"""
from __future__ import annotations

import os

from ..errors import ParseError
from ..model import (
    NO_MODIFIERS,
    Finding,
    Kind,
    Modifiers,
    Need,
    NestedShell,
    Plan,
    Requirement,
    Severity,
    SourceLoc,
    Step,
    Visibility,
)
from .directives import (
    AS_COMMAND,
    BUILTIN_HOOKS,
    BUILTIN_MACROS,
    Change,
    Directive,
    interpret,
)
from .items import (
    BlockItem,
    CommandItem,
    CommentItem,
    DirectiveItem,
    FileItem,
    Item,
    OutputItem,
    ProseItem,
)
from .markdown import scan_markdown
from .section_requires import SectionRequires, heading_level
from .shell import split_shell
from .source import is_markdown, read_source, split_lines

# Bounds that keep a small hostile file from expanding without end (20 macros each
# calling the previous twice make a million steps) or nesting past Python's stack.
# Steps and depth alone do not bound the work: macros or imports that expand to nothing
# (a visibility switch, an empty body) can still call each other twice per level, so every item
# visited and every character of text emitted is counted too, and the build stops at the
# first bound it reaches; what it costs grows linearly with the input up to there.
MAX_STEPS = 100_000
MAX_DEPTH = 64  # macro calls, imports, @$SHELL and @ifhook blocks inside one another
MAX_WORK = 500_000  # items visited while expanding, a call of an empty macro included
MAX_TEXT = 32 * 1024 * 1024  # characters read from files, and of step text and `##` lines emitted
MAX_DIRECTIVE_ARGS = 16_384  # characters; splitting them like a shell is not linear


def _realpath(path: str) -> str:
    try:
        return os.path.realpath(path)
    except ValueError:
        return path


def _items(text: str, path: str) -> tuple[list[Item], list[Finding]]:
    lines = split_lines(text)
    if is_markdown(path):
        items, findings = scan_markdown(lines, path)
    else:
        items, findings = split_shell(lines, path), []
    kept = []
    for item in items:
        if isinstance(item, DirectiveItem) and len(item.args) > MAX_DIRECTIVE_ARGS:
            findings.append(Finding(SourceLoc(path, item.line), Severity.ERROR, "directive-too-long",
                                    f"'@{item.name}' has {len(item.args)} characters of arguments "
                                    f"(at most {MAX_DIRECTIVE_ARGS})"))
        else:
            kept.append(item)
    return kept, findings


def _structure(items: list[Item], path: str) -> tuple[list[Item], list[Finding]]:
    """Gather `@macro`...`@end` and `@ifhook`...`@endif` bodies into blocks."""
    findings: list[Finding] = []
    root: list[Item] = []
    stack: list[tuple[str, str, int, list[Item]]] = []
    open_count = {"macro": 0, "ifhook": 0}

    def close(kind: str, name: str, line: int, body: list[Item], end_line: int) -> None:
        open_count[kind] -= 1
        parent = stack[-1][3] if stack else root
        if len(stack) >= MAX_DEPTH:  # already reported: its body stays flat, the stack shallow
            parent.extend(body)
        else:
            parent.append(BlockItem(kind, name, tuple(body), line, end_line))

    for item in items:
        if isinstance(item, DirectiveItem) and item.name in ("macro", "ifhook"):
            if len(stack) == MAX_DEPTH:
                findings.append(Finding(SourceLoc(path, item.line), Severity.ERROR, "too-deep",
                                        f"'@{item.name}' blocks nested more than {MAX_DEPTH} deep"))
            directive, _ = interpret(item.name, item.args)
            stack.append((item.name, directive.words[0] if directive else "", item.line, []))
            open_count[item.name] += 1
            continue
        if isinstance(item, DirectiveItem) and item.name in ("end", "endif"):
            opener = "macro" if item.name == "end" else "ifhook"
            if not open_count[opener]:
                findings.append(Finding(SourceLoc(path, item.line), Severity.ERROR, "stray-end",
                                        f"'@{item.name}' without an open '@{opener}'"))
                continue
            while stack:
                kind, name, line, body = stack.pop()
                close(kind, name, line, body, item.line)
                if kind == opener:
                    break
                findings.append(_unterminated(path, kind, name, line))
            continue
        (stack[-1][3] if stack else root).append(item)
    while stack:
        kind, name, line, body = stack.pop()
        findings.append(_unterminated(path, kind, name, line))
        close(kind, name, line, body, line)
    return root, findings


def _unterminated(path: str, kind: str, name: str, line: int) -> Finding:
    end = "@end" if kind == "macro" else "@endif"
    return Finding(SourceLoc(path, line), Severity.ERROR, f"unterminated-{kind}",
                   f"'@{kind} {name}' has no '{end}'")


def _item_findings(items: list[Item], path: str) -> list[Finding]:
    """Malformed directives and `##` lines no command owns, wherever they sit."""
    findings = []
    for item in items:
        if isinstance(item, OutputItem):
            findings.append(Finding(SourceLoc(path, item.line), Severity.WARNING, "orphan-output",
                                    "'##' lines in a fence with no command are a sample: never shown "
                                    "nor checked" if item.sample else "'##' lines with no command right "
                                    "above them are shown but never checked"))
        elif isinstance(item, DirectiveItem):
            _, problem = interpret(item.name, item.args)
            if problem:
                findings.append(Finding(SourceLoc(path, item.line), Severity.ERROR,
                                        "malformed-directive", problem))
    return findings


class _Registry:
    """Macros and hooks in scope: name -> (body, file) and name -> VAR."""

    def __init__(self) -> None:
        self.macros: dict[str, tuple[tuple[Item, ...], str] | None] = dict.fromkeys(BUILTIN_MACROS)
        self.hooks: dict[str, str] = dict(BUILTIN_HOOKS)

    def copy(self) -> _Registry:
        other = _Registry()
        other.macros = dict(self.macros)
        other.hooks = dict(self.hooks)
        return other


class Builder:
    """Builds the Plan of one workshop; create one per parse."""

    def __init__(self, *, no_init: bool, home: str | None):
        self.no_init = no_init
        self.home = home if home is not None else os.path.expanduser("~")
        self.cache: dict[str, tuple[str, list[Item]] | str] = {}
        self.findings: dict[Finding, None] = {}  # in order, each once: an expansion repeats them
        self.steps: list[Step] = []
        self.requires: dict[str, Requirement] = {}
        self.needs: list[Need] = []
        self.registry = _Registry()
        self.base = self.registry
        self.visibility = Visibility.HIDE
        self.skip_forced = 0
        self.section: str | None = None
        self.headings = 0  # headings met so far: a @requires under the second or a later one is its section's
        self.section_requires = SectionRequires()  # @requires of the sections open where steps are emitted
        self.if_hooks: tuple[str, ...] = ()
        self.called_from: tuple[SourceLoc, ...] = ()
        self.nested: tuple[int, ...] = ()  # the @$SHELL calls being expanded
        self.shells: list[NestedShell] = []
        self.files: list[tuple[str, str]] = []  # (identity, path as shown) being read
        self.macro_stack: list[str] = []
        self.pending: list[Change] = []  # per-command directives waiting for their command
        self.pending_names: list[str] = []
        self.pending_at: SourceLoc | None = None
        self.depth = 0  # macro calls, imports and @ifhook blocks being expanded
        self.work = 0  # items visited so far, against MAX_WORK
        self.text = 0  # characters read and emitted so far, against MAX_TEXT
        self.full = False  # a bound was reached: nothing more is expanded
        self.directives: dict[int, Directive | None] = {}  # interpret() of each item, by id
        # A file imported a million times is looked up once: resolving costs system calls.
        self.keys: dict[str, str] = {}
        self.resolved: dict[tuple[str, str], tuple[str | None, str]] = {}

    # -- reading ------------------------------------------------------------------

    def _key(self, path: str) -> str:
        """The file's identity for caching and cycle detection."""
        key = self.keys.get(path)
        if key is None:
            key = self.keys[path] = _realpath(path)
        return key

    def _load_text(self, path: str, text: str) -> list[Item]:
        items, findings = _items(text, path)
        findings += _item_findings(items, path)
        nodes, more = _structure(items, path)
        self.findings.update(dict.fromkeys(findings + more))
        self.cache[self._key(path)] = (path, nodes)
        return nodes

    def _load(self, path: str, at: SourceLoc) -> list[Item] | str:
        """The items of `path`, read for the line `at`, or why it cannot be read (cached either way).

        What is read counts against MAX_TEXT: a workshop importing thousands of big files
        stops at the bound, not after reading them all."""
        cached = self.cache.get(self._key(path))
        if isinstance(cached, tuple):
            return cached[1]
        if isinstance(cached, str):
            return cached
        try:
            text = read_source(path, regular=True)
        except ParseError as exc:
            self.cache[self._key(path)] = exc.message
            return exc.message
        if not self._charge(at, len(text)):
            return []
        return self._load_text(path, text)

    def _resolve(self, target: str, importer: str) -> tuple[str | None, str]:
        key = (target, os.path.dirname(importer))
        found = self.resolved.get(key)
        if found is None:
            found = self.resolved[key] = self._look_up(target, importer)
        return found

    def _look_up(self, target: str, importer: str) -> tuple[str | None, str]:
        wanted = os.path.expanduser(target)
        here = os.path.normpath(os.path.join(os.path.dirname(importer), wanted))
        if os.path.exists(here):
            return here, ""
        if os.path.exists(wanted):
            return os.path.normpath(wanted), ""
        places = repr(here) if here == os.path.normpath(wanted) else \
            f"{here!r} or {wanted!r} in the working directory"
        return None, f"no such file (looked for {places})"

    def _collect(self, nodes: list[Item] | tuple[Item, ...], path: str, registry: _Registry,
                 seen: set[str], depth: int = 0) -> None:
        """Pass 1: macro and hook definitions, following imports (no deeper than pass 2 goes)."""
        if depth > MAX_DEPTH:
            return
        for node in nodes:
            if not self._spend(SourceLoc(path, node.line)):
                return
            if isinstance(node, BlockItem):
                if node.kind == "macro" and node.name:
                    registry.macros[node.name] = (node.body, path)
                    if node.name in BUILTIN_HOOKS:
                        registry.hooks.pop(node.name, None)
                self._collect(node.body, path, registry, seen, depth + 1)
            elif isinstance(node, DirectiveItem) and node.name in ("hook", "import"):
                directive = self._interpret(node)
                if directive is None:
                    continue
                if directive.kind == "hook":
                    name, var = directive.words
                    registry.hooks[name] = var
                    if name in BUILTIN_MACROS:
                        registry.macros.pop(name, None)
                    continue
                target, _ = self._resolve(directive.words[0], path)
                if target is None or self._key(target) in seen:
                    continue
                loaded = self._load(target, SourceLoc(path, node.line))
                if isinstance(loaded, list):
                    seen.add(self._key(target))
                    self._collect(loaded, target, registry, seen, depth + 1)

    def _interpret(self, node: DirectiveItem) -> Directive | None:
        """The directive an item holds, interpreted once however often a macro or import repeats it."""
        try:
            return self.directives[id(node)]  # items live in self.cache as long as the builder
        except KeyError:
            directive = self.directives[id(node)] = interpret(node.name, node.args)[0]
            return directive

    # -- emitting -------------------------------------------------------------------

    def _visibility(self) -> Visibility:
        return Visibility.SKIP if self.skip_forced else self.visibility

    def _step(self, kind: Kind, loc: SourceLoc, text: str, end_line: int = 0, **extra) -> None:
        if self.full:
            return
        if len(self.steps) >= MAX_STEPS:
            self._overflow(loc, "too-many-steps", f"the workshop expands to more than {MAX_STEPS} "
                           "steps (macros calling macros?); the rest is left out")
            return
        expected = extra.get("expected")
        if not self._charge(loc, len(text) + (sum(map(len, expected.lines)) if expected is not None else 0)):
            return
        requires = self.section_requires.current()
        if requires:
            extra["requires"] = requires
        self.steps.append(Step(kind, loc, text, self._visibility(), end_line or loc.line,
                               self.section, if_hooks=self.if_hooks,
                               called_from=self.called_from, nested=self.nested, **extra))

    def _finding(self, loc: SourceLoc, severity: Severity, code: str, message: str) -> None:
        self.findings[Finding(loc, severity, code, message)] = None

    def _overflow(self, loc: SourceLoc, code: str, message: str) -> None:
        """A bound is reached: nothing more is expanded, and the outermost call expanding is
        blamed (where the reader can act), or the item itself when no call is under way."""
        if not self.full:
            self.full = True
            self._finding(self.called_from[0] if self.called_from else loc, Severity.ERROR, code, message)

    def _charge(self, loc: SourceLoc, chars: int) -> bool:
        """Count `chars` of text read or emitted at `loc`; False once the build is over its bounds."""
        self.text += chars
        if self.text > MAX_TEXT:
            self._overflow(loc, "too-much-text", f"the workshop reads and expands more than "
                           f"{MAX_TEXT // (1024 * 1024)} MiB of text (macros or imports used many "
                           "times?); the rest is left out")
        return not self.full

    def _spend(self, loc: SourceLoc, units: int = 1) -> bool:
        """Count `units` of work at `loc`; False once the build is over its bounds."""
        if self.full:
            return False
        self.work += units
        if self.work > MAX_WORK:
            self._overflow(loc, "too-much-work", f"expanding the workshop visits more than {MAX_WORK:,} "
                           "items (macros or imports calling each other many times?); the rest is left out")
        return not self.full

    def _modifiers(self, forced: Change | None = None) -> Modifiers:
        """The modifiers the pending directives give the next command; the shared default if none."""
        modifiers = NO_MODIFIERS
        for change in self.pending:
            modifiers = change(modifiers)
        self.pending, self.pending_names = [], []
        self.pending_at = None
        return forced(modifiers) if forced else modifiers

    def _deeper(self, loc: SourceLoc, what: str) -> bool:
        """Whether one more level of nesting is allowed; says why not, once per place."""
        if self.full:
            return False
        if self.depth >= MAX_DEPTH:
            self._finding(loc, Severity.ERROR, "too-deep",
                          f"{what} nested more than {MAX_DEPTH} deep (macros, imports and "
                          "@ifhook blocks inside one another)")
            return False
        return True

    def _emit(self, nodes: list[Item] | tuple[Item, ...], path: str) -> None:
        for node in nodes:
            loc = SourceLoc(path, node.line)
            if not self._spend(loc):
                return
            if isinstance(node, ProseItem):
                if node.heading is not None:
                    self.section = node.heading
                    self.headings += 1
                    self.section_requires.heading(heading_level(node.text), len(self.steps))
                self._step(Kind.PROSE, loc, node.text, node.end_line)
            elif isinstance(node, FileItem):
                self._file(node, loc)
            elif isinstance(node, CommentItem):
                self._step(Kind.COMMENT, loc, node.text, node.end_line)
            elif isinstance(node, OutputItem):
                if not node.sample:
                    self._step(Kind.COMMENT, loc, "\n".join(node.lines), node.end_line)
            elif isinstance(node, CommandItem):
                self._command(node, loc)
            elif isinstance(node, DirectiveItem):
                directive = self._interpret(node)
                if directive is not None:
                    self._directive(directive, loc, node.end_line, path)
            elif isinstance(node, BlockItem) and node.kind == "ifhook":
                self._ifhook(node, loc, path)

    def _command(self, node: CommandItem, loc: SourceLoc) -> None:
        word = node.text.strip()
        if word in self.registry.macros:
            self._call(word, loc)
        elif word in self.registry.hooks:
            self._step(Kind.HOOK, loc, word, hook_var=self.registry.hooks[word])
        else:
            self._step(Kind.COMMAND, loc, node.text, node.end_line, expected=node.expected,
                       modifiers=self._modifiers())

    def _directive(self, d: Directive, loc: SourceLoc, end_line: int, path: str) -> None:
        kind = d.kind
        if kind == "visibility" and d.visibility is not None:
            if d.visibility is Visibility.SHOW or self.visibility is not Visibility.SKIP:
                self.visibility = d.visibility
        elif kind == "wait":
            self._step(Kind.WAIT, loc, "")
        elif kind == "clear":
            self._step(Kind.CLEAR, loc, "")
        elif kind == "print":
            self._step(Kind.PRINT, loc, d.args, end_line)
        elif kind == "note":
            self._step(Kind.NOTE, loc, d.args, end_line)
        elif kind == "modifier" and d.change is not None:
            self.pending.append(d.change)
            self.pending_names.append(d.name)
            self.pending_at = self.pending_at or loc
        elif kind in ("import", "shell"):
            self._include(d, loc, path)
        elif kind == "requires" and self.headings > 1:  # under a section's own heading: for that section
            self.section_requires.add(d.words, loc, self.steps)
        elif kind == "requires":
            for tool in d.words:
                self.requires.setdefault(tool, Requirement(tool, loc))
        elif kind == "needs":
            if self.needs and self.needs[0].path != Need(d.words[0], loc).path:
                self._finding(loc, Severity.ERROR, "second-setup",
                              f"a workshop has one setup; @needs {self.needs[0].file} was given at {self.needs[0].loc}")
            elif not self.needs:
                self.needs.append(Need(d.words[0], loc))
        elif kind == "call":
            self._call(d.name, loc, d.args)

    def _file(self, node: FileItem, loc: SourceLoc) -> None:
        """A fence to write: its path must stay inside the folder of the file that holds it."""
        problem = outside_tree(node.path)
        target = _realpath(os.path.join(os.path.dirname(loc.file), node.path))
        if problem is None and target in {self._key(path) for _, path in self.files} | {self._key(loc.file)}:
            problem = "the path is the workshop being read: writing it would replace the workshop"
        if problem:
            self._finding(loc, Severity.ERROR, "file-outside-workshop", f"file={node.path}: {problem}")
            return
        self._step(Kind.FILE, loc, node.text, node.end_line, target=node.path)

    def _call(self, name: str, loc: SourceLoc, args: str = "") -> None:
        if name in self.registry.macros:
            self._macro(name, loc)
        elif name in self.registry.hooks:
            self._step(Kind.HOOK, loc, name, hook_var=self.registry.hooks[name])
        else:
            text = f"{name} {args}".strip()
            self._step(Kind.COMMAND, loc, text, modifiers=self._modifiers(AS_COMMAND))

    def _macro(self, name: str, loc: SourceLoc) -> None:
        if name in self.macro_stack:
            chain = " -> ".join(self.macro_stack[self.macro_stack.index(name):] + [name])
            self._finding(loc, Severity.ERROR, "recursive-macro",
                          f"macro {name!r} calls itself ({chain})")
            return
        if not self._deeper(loc, f"macro {name!r}"):
            return
        saved = (self.visibility, self.section, self.called_from)
        self.called_from += (loc,)
        self.macro_stack.append(name)
        self.depth += 1
        definition = self.registry.macros[name]
        if definition is None:
            guards = self.if_hooks
            builtin = BUILTIN_MACROS[name]
            self.if_hooks += tuple(self._builtin_hook_var(h) for h in builtin.needs_hooks)
            for kind, hook in builtin.steps:
                if hook is not None:
                    self._step(kind, loc, hook, hook_var=self._builtin_hook_var(hook))
                else:
                    self._step(kind, loc, "")
            self.if_hooks = guards
        else:
            body, path = definition
            self._emit(body, path)
        self.depth -= 1
        self.macro_stack.pop()
        self.visibility, self.section, self.called_from = saved

    def _builtin_hook_var(self, hook: str) -> str:
        """The variable of a hook a built-in macro uses: the workshop's own, else the default."""
        return self.registry.hooks.get(hook, BUILTIN_HOOKS[hook])

    def _ifhook(self, node: BlockItem, loc: SourceLoc, path: str) -> None:
        if not self._deeper(loc, f"'@ifhook {node.name}'"):
            return
        var = self.registry.hooks.get(node.name)
        saved = self.if_hooks
        if var is None:
            self._finding(loc, Severity.WARNING, "undefined-hook",
                          f"'@ifhook {node.name}': no hook {node.name!r} is defined, "
                          "so its body never runs")
            self.skip_forced += 1
        else:
            self.if_hooks += (var,)
        self.depth += 1
        self._emit(node.body, path)
        self.depth -= 1
        self.if_hooks = saved
        if var is None:
            self.skip_forced -= 1

    def _include(self, d: Directive, loc: SourceLoc, path: str) -> None:
        """`@import` (same scope, same visibility) or `@$SHELL` (own macros, starts hidden, own bash)."""
        what = "import" if d.kind == "import" else "run"
        if not self._deeper(loc, f"{what} of {d.words[0]!r}"):
            return
        target, problem = self._resolve(d.words[0], path)
        if target is None:
            self._finding(loc, Severity.ERROR, "missing-import",
                          f"cannot {what} {d.words[0]!r}: {problem}")
            return
        real = self._key(target)
        keys = [key for key, _ in self.files]  # no longer than MAX_DEPTH
        if real in keys:
            chain = " -> ".join([shown for _, shown in self.files[keys.index(real):]] + [target])
            self._finding(loc, Severity.ERROR, "import-cycle",
                          f"{what} cycle: {d.words[0]!r} is already being read ({chain})")
            return
        nodes = self._load(target, loc)
        if isinstance(nodes, str):
            self._finding(loc, Severity.ERROR, "unreadable-import",
                          f"cannot {what} {d.words[0]!r}: {nodes}")
            return
        # A nested shell starts from a copy of the macros in scope, as long as the workshop made it.
        if d.kind == "shell" and not self._spend(loc, len(self.base.macros) + len(self.base.hooks)):
            return
        saved = (self.visibility, self.section, self.called_from, self.registry, self.nested)
        saved_pending = self.pending, self.pending_names, self.pending_at
        self.called_from += (loc,)
        if d.kind == "shell":
            self.nested += (len(self.shells),)
            self.shells.append(NestedShell(target, loc))
            self.registry = self.base.copy()
            self._collect(nodes, target, self.registry, {real})
            self.visibility = Visibility.HIDE
            self.pending, self.pending_names, self.pending_at = [], [], None
        self.depth += 1
        self._run_file(nodes, target)
        self.depth -= 1
        self.visibility, self.section, self.called_from, self.registry, self.nested = saved
        if d.kind == "shell":
            self.pending, self.pending_names, self.pending_at = saved_pending

    def _run_file(self, nodes: list[Item], path: str) -> None:
        self.files.append((self._key(path), path))
        self._emit(nodes, path)
        self.files.pop()

    # -- the whole workshop ---------------------------------------------------------

    def _init_files(self) -> list[tuple[str, list[Item]]]:
        found = []
        for name in (".demoshrc", ".demoshrc.md"):
            path = os.path.join(self.home, name)
            if not os.path.isfile(path):
                continue
            nodes = self._load(path, SourceLoc(path, 1))
            if isinstance(nodes, str):
                self._finding(SourceLoc(path, 1), Severity.ERROR, "unreadable-init",
                              f"init file skipped: {nodes}")
            else:
                found.append((path, nodes))
        return found

    def build(self, path: str, text: str) -> Plan:
        self.text += len(text)
        nodes = self._load_text(path, text)
        inits = [] if self.no_init else self._init_files()
        for init_path, init_nodes in inits:
            self._collect(init_nodes, init_path, self.registry, {self._key(init_path)})
        self.base = self.registry.copy()
        self._collect(nodes, path, self.registry, {self._key(path)})
        for init_path, init_nodes in inits:
            self.visibility = Visibility.HIDE
            self._run_file(init_nodes, init_path)
        self.visibility, self.section = Visibility.HIDE, None
        self.pending, self.pending_names = [], []
        self._run_file(nodes, path)
        if self.pending and self.pending_at is not None:
            names = ", ".join(sorted(set(self.pending_names)))
            self._finding(self.pending_at, Severity.WARNING, "dangling-modifier",
                          f"per-command directive ({names}) is followed by no command")
        findings = sorted(self.findings, key=lambda f: (f.loc, f.code, f.message))
        return Plan(path, tuple(self.steps), tuple(self.requires.values()), tuple(findings),
                    tuple(self.shells), tuple(self.needs))


def outside_tree(path: str) -> str | None:
    """Why a fence may not be written to `path` (relative to its workshop's folder); None if it may."""
    if "\0" in path:
        return "a path cannot hold a NUL character"
    if os.path.isabs(path) or path.startswith("~"):
        return "the path must be relative to the workshop's folder"
    normal = os.path.normpath(path)
    if normal == "." or path.endswith(("/", os.sep)):
        return "the path names a folder, not a file"
    if normal == ".." or normal.startswith(".." + os.sep):
        return "the path leads outside the workshop's folder"
    return None


def build_plan(path: str, text: str, *, no_init: bool, home: str | None) -> Plan:
    return Builder(no_init=no_init, home=home).build(path, text)
