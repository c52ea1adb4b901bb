"""Canonical forms that forgive what may change: value kinds, masks, and the roles keys and columns give values.

Canonicalising replaces every value of a kind (kinds.py) by one marker for
that kind, so two texts match when their canonical forms are equal: both
sides then hold a value of the same kind at the same place, and everything
else is literally equal. A key or a column title gives its values a role
first (roles.py, keys.py): a setting's value stays as written (but for
points in time), a measurement keeps only its shape.
"""
from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import cast

from ..errors import ParseError
from .keys import Keyed, keyed_values
from .kinds import (
    HASH,
    IDENTIFIER_MARK,
    KIND_MARK,
    KINDS,
    MASK_BASE,
    NOT_BIND4,
    OCTET,
    RESTARTS,
    RESTARTS_MARK,
    SAFE,
    ValueKind,
    shape,
)
from .roles import NO_PINS, Pins, Role, pinned_role

# A whole cell that is one common value, canonicalised without running every kind (tables are mostly these).
# Each form is one the kinds above rewrite the same way; tests/test_verify_properties.py checks it. One
# regex holds them all, so a cell costs one match: the first alternative that takes the whole cell names
# its form. A generated name keeps its stable part (words and numbers, never a date or a UUID the kinds
# would read first) in front of the marker.
_FAST_DURATION = r"(?:\d+(?:\.\d+)?(?:ms|us|µs|ns|[smhdwy]))+"
_FAST_PREFIX = r"[a-z]+(?:-(?:[a-z]+|(?!\d{4}-\d\d-\d\d(?!\d)|\d{8}-\d{4}-)\d{1,15}))*"
_QUICK = re.compile(
    rf"(?P<same>\d{{1,3}}(?:/\d{{1,3}})?|[A-Za-z]{{1,15}}|<none>|<unknown>|<pending>)"
    rf"|(?P<ipv4>{NOT_BIND4}{OCTET}(?:\.{OCTET}){{3}})"
    # Twelve digits and `d`s in a row read as hex before they read as a duration.
    rf"|(?P<duration>(?!.*[0-9d]{{12}}){_FAST_DURATION})"
    rf"|(?P<restarts>\d+ \({_FAST_DURATION} ago\))"
    rf"|(?P<pod>{_FAST_PREFIX})-(?:[{SAFE}013]{{6,10}}-(?=[2-9]*[b-z])|[{HASH}]{{8,10}}-)[{SAFE}]{{5}}"
    rf"|(?P<suffix>{_FAST_PREFIX})-(?=[2-9]*[b-z])[{SAFE}]{{5}}"
    rf"|(?P<replicaset>{_FAST_PREFIX})-(?=[bcdf]*[4-9])(?=[4-9]*[bcdf])[{HASH}]{{8,10}}")
_QUICK_LONGEST = 256  # a longer cell is no common value, and the names' regex would go back over all of it
# What each form becomes: the cell itself (None), a marker, or the stable part, a dash and a marker.
_QUICK_MARK = {"same": None, "ipv4": KIND_MARK["ipv4"], "duration": KIND_MARK["duration"],
               "restarts": RESTARTS_MARK}
_QUICK_NAME = {kind: "-" + KIND_MARK[kind] for kind in ("pod", "suffix", "replicaset")}


def _quick(item: str) -> str | None:
    """The canonical form of a cell that is one common value, or None to run every kind."""
    m = _QUICK.fullmatch(item) if len(item) <= _QUICK_LONGEST else None
    if m is None:
        return None if item else item
    kind = m.lastgroup or ""
    return m[kind] + _QUICK_NAME[kind] if kind in _QUICK_NAME else _QUICK_MARK[kind] or item


# The fast forms that rarely repeat (addresses, generated names), as passes over many cells joined by
# newlines, in the order _QUICK tries them: each replaces what it matches by a constant, so re.sub stays
# in C. A name's pass takes the tail after its stable part; `_BAD_STEM` then marks with NUL the cells
# whose stable part is not one. A column runs the passes its cells' forms need (a suffix column also
# the pod pass, which _QUICK tries first); a cell no pass rewrote goes through `Canon.one`.
_BULK_PASSES = (
    ("ipv4", re.compile(rf"\n{NOT_BIND4}{OCTET}(?:\.{OCTET}){{3}}(?=\n)"), "\n" + KIND_MARK["ipv4"]),
    ("pod", re.compile(rf"-(?:[{SAFE}013]{{6,10}}-(?=[2-9]*[b-z])|[{HASH}]{{8,10}}-)[{SAFE}]{{5}}(?=\n)"),
     "-" + KIND_MARK["pod"]),
    ("suffix", re.compile(rf"-(?=[2-9]*[b-z])[{SAFE}]{{5}}(?=\n)"), "-" + KIND_MARK["suffix"]),
    ("replicaset", re.compile(rf"-(?=[bcdf]*[4-9])(?=[4-9]*[bcdf])[{HASH}]{{8,10}}(?=\n)"),
     "-" + KIND_MARK["replicaset"]),
)
_PASSES_FOR = {"ipv4": {"ipv4"}, "pod": {"pod"}, "suffix": {"pod", "suffix"}, "replicaset": {"replicaset"}}
_NAME_MARKS = "".join(KIND_MARK[kind] for kind in ("pod", "suffix", "replicaset"))
# Every cell but a stable part, a dash and a name's marker: names whose stable part is not one, and cells
# no pass took (which go through `Canon.one` anyway).
_BAD_STEM = re.compile(rf"\n(?!\Z|{_FAST_PREFIX}-[{_NAME_MARKS}]\n)")
_PASS_MARKS = (*_NAME_MARKS, KIND_MARK["ipv4"], "\0")
_BULK = 64  # fresh cells from which passes over all of them beat a match per cell
_SAMPLE = 8  # cells whose forms choose the passes


_UNIQUE = {KIND_MARK[k] for k in ("ipv4", "pod", "replicaset", "suffix")}
_CACHED_LONGEST = 4096
_CACHE_LIMIT = 20_000  # distinct cells remembered per canonicaliser (then forgotten all at once): bounded memory


# pattern, replacement, a cheap pre-test (None: always run), whether to run on each string alone, rule name
_Step = tuple[re.Pattern[str], "str | Callable[[re.Match[str]], str]", "Callable[[str], bool] | None", bool, str]
# Points in time stay forgiven in a setting's value (`expires: <date>`): when is never what someone set.
_TIMES = frozenset({"timestamp", "date", "time"})
# Kinds that stand for nothing a server fills in: in a declared value they would hide a changed setting.
_NOT_DECLARED = frozenset({"duration", "token", "hex-id", "serial", "epoch"})
Span = tuple[int, int, str]  # start, end and rule of a forgiven value in the text it was found in


class Canon:
    """Rewrites strings to canonical form under masks, the built-in kinds and the roles keys give values.

    `loose` adds the forms an author types by hand; it is for the expected
    side only. `pins` are the command's `@literal` and `@volatile` names;
    `mask_names` name the first masks (the project's), for messages and pins.
    """

    def __init__(self, masks: Sequence[str], *, builtin: bool = True, loose: bool = False, pins: Pins = NO_PINS,
                 mask_names: Sequence[str] = ()):
        self.pins = pins
        self._steps: list[_Step] = []
        self._cache: dict[str, str] = {}
        self._shapes: dict[str, str] = {}  # a volatile column's cells by their text
        self._keys = builtin  # keys give roles where the built-in rules apply, never under @expect exact
        for i, regex in enumerate(masks):
            rule = f"mask {mask_names[i]}" if i < len(mask_names) else f"@mask {regex}"
            if i < len(mask_names) and mask_names[i].casefold() in pins.literal:
                continue
            # A mask could match across the newline that joins strings, so it runs on each alone.
            self._steps.append((_compile_mask(regex), chr(MASK_BASE + i), None, True, rule))
        kinds = [k for k in KINDS if (loose or not k.loose) and k.rule not in pins.literal] if builtin else []
        for kind in kinds:
            self._steps.append((re.compile(kind.pattern), _replacement(kind), kind.may_hold, False, kind.rule))
        if builtin and "restarts" not in pins.literal:
            self._steps.append((RESTARTS, RESTARTS_MARK, lambda s: "(" in s, False, "restarts"))
        self._setting_steps = [s for s in self._steps if s[3] or s[4] in _TIMES]
        self._fast = builtin and not masks and not pins.literal
        self._declared: Canon | None = None

    def declared(self) -> Canon:
        """This canonicaliser for values someone declared (structure.py): what only a setting would hide
        (durations, tokens, hashes, serials, epochs) compares as written; generated names, addresses,
        ports and points in time, which a server fills in even there, stay forgiven."""
        if self._declared is None:
            strict = copy.copy(self)
            strict._steps = [s for s in self._steps if s[4] not in _NOT_DECLARED]
            strict._setting_steps = [s for s in self._setting_steps if s[4] not in _NOT_DECLARED]
            strict._cache, strict._shapes, strict._keys, strict._fast = {}, {}, False, False
            strict._declared = strict
            self._declared = strict
        return self._declared

    def one(self, item: str) -> str:
        """The canonical form of one string without newlines, remembered for the cells that repeat."""
        cache = self._cache
        done = cache.get(item)
        if done is None:
            done = _quick(item) if self._fast else None
            if done is None:
                done = self._rewrite(item)
            if len(item) > _CACHED_LONGEST:
                return done  # a line of megabytes is not kept for a next time
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()  # the values seen lately are the ones that come again
            cache[item] = done
        return done

    def many(self, items: Sequence[str]) -> list[str]:
        """Canonical forms of cells (a row, a column): each distinct one worked out once."""
        out = list(map(self._cache.get, items))
        if None not in out:
            return cast(list[str], out)
        distinct = dict.fromkeys(items)
        found = dict(zip(distinct, map(self.one, distinct)))
        return list(map(found.__getitem__, items))

    def column(self, cells: Sequence[str]) -> list[str]:
        """`many` for the cells of one table column (no cell holds a newline).

        Cells that rarely repeat (addresses, generated names) come in the
        thousands in a big table: those are rewritten by passes over all of them.
        """
        out = list(map(self._cache.get, cells))
        missing = out.count(None)
        if not missing:
            return cast(list[str], out)
        if not self._fast or missing < _BULK:
            return self.many(cells)
        if missing == len(out):
            return self._bulk(cells)
        done = iter(self._bulk([cell for cell, found in zip(cells, out) if found is None]))
        return [found if found is not None else next(done) for found in out]

    def shapes(self, cells: Sequence[str]) -> list[str]:
        """`shape` of each cell's canonical form (a volatile column), remembered by the cell's text."""
        known = self._shapes
        out = list(map(known.get, cells))
        if None not in out:
            return cast(list[str], out)
        fresh = [s for s in dict.fromkeys(cells) if s not in known]
        canonical = self.column(fresh)
        by_canonical = {c: shape(c) for c in dict.fromkeys(canonical)}
        found = dict(zip(fresh, map(by_canonical.__getitem__, canonical)))
        shaped = [done if done is not None else found[cell] for done, cell in zip(out, cells)]
        if len(known) + len(found) > _CACHE_LIMIT:
            known.clear()
        if len(found) <= _CACHE_LIMIT:
            known.update(found)
        return shaped

    def shaped(self, cell: str) -> str:
        """`shape` of one cell's canonical form, remembered by the cell's text."""
        shapes = self._shapes
        done = shapes.get(cell)
        if done is None:
            done = shape(self.one(cell))
            if len(shapes) >= _CACHE_LIMIT:
                shapes.clear()
            shapes[cell] = done
        return done

    def _bulk(self, cells: Sequence[str]) -> list[str]:
        """Canonical forms of many cells, the fast forms a sample of them shows found in passes over all.

        Exactly what `one` gives each: a cell a pass rewrote is one `_quick`
        reads the same way (addresses, generated names); any other cell, and
        a name whose stable part is not one, goes through `one`. Cells that
        hold a newline, a marker or NUL themselves (never normalised output's
        cells) all do.
        """
        step = max(1, len(cells) // _SAMPLE)
        forms = {m.lastgroup or "" for cell in cells[::step]
                 if len(cell) <= _QUICK_LONGEST and (m := _QUICK.fullmatch(cell))}
        wanted: set[str] = set().union(*(_PASSES_FOR.get(form, ()) for form in forms))
        if not wanted:
            return self.many(cells)
        text = "\n" + "\n".join(cells) + "\n"
        taken = bad = 0
        for kind, pattern, mark in _BULK_PASSES:
            if kind in wanted:
                text, n = pattern.subn(mark, text)
                taken += n
        if taken and wanted != {"ipv4"}:
            text, bad = _BAD_STEM.subn("\n\0", text)
        done = text[1:-1].split("\n")
        if len(done) != len(cells) or sum(map(text.count, _PASS_MARKS)) != taken + bad:
            return self.many(cells)
        if taken < len(cells) or bad:
            unique = _UNIQUE
            left = [i for i, d in enumerate(done) if not d or d[-1] not in unique or d[0] == "\0"]
            for i, d in zip(left, self.many([cells[i] for i in left])):
                done[i] = d
        return done

    def all(self, items: Sequence[str]) -> list[str]:
        """Canonical forms of strings without newlines.

        Strings seen before come from the cache; the others are rewritten
        together, each kind as one regex pass over the joined strings that may
        hold it. A string with keys that give values a role is cut at them
        first, and its pieces join that batch.
        """
        cache = self._cache
        fresh = [s for s in dict.fromkeys(items) if s not in cache]
        if len(fresh) < 8:
            return [self.one(s) for s in items]
        work: list[str] = []  # what the kinds rewrite, in one batch
        layouts: list[list[tuple[Role, int] | str]] = []  # per string: pieces to take from work, or done
        for s in fresh:
            keyed = keyed_values(s, self.pins) if self._keys else []
            layout: list[tuple[Role, int] | str] = []
            at = 0
            for k in keyed:
                layout.append((Role.PLAIN, len(work)))
                work.append(s[at:k.start])
                value = s[k.start:k.end]
                if k.role is Role.MEASURED:
                    layout.append((Role.MEASURED, len(work)))
                    work.append(value)
                else:
                    layout.append(self.read(value, k.role))
                at = k.end
            layout.append((Role.PLAIN, len(work)))
            work.append(s[at:])
            layouts.append(layout)
        done = self._batch(work)
        found = {s: "".join(piece if isinstance(piece, str) else
                            shape(done[piece[1]]) if piece[0] is Role.MEASURED else done[piece[1]]
                            for piece in layout) for s, layout in zip(fresh, layouts)}
        if len(cache) + len(found) <= _CACHE_LIMIT:
            cache.update(found)
        return [found[s] if s in found else cache[s] for s in items]

    def _batch(self, items: list[str]) -> list[str]:
        """`_plain` of each string: each kind one pass over all of them joined by newlines, in C.

        Masks run on each string alone, since one could match across the newline that joins them.
        """
        text = "\n".join(items)
        for pattern, repl, may_hold, per_item, _ in self._steps:
            if per_item:
                text = "\n".join(pattern.sub(repl, s) for s in text.split("\n"))
            elif may_hold is None or may_hold(text):
                text = pattern.sub(repl, text)
        return text.split("\n")

    def read(self, text: str, role: Role) -> str:
        """The canonical form of a value read in a role: as written, a setting, a measurement, or by its kinds."""
        if role is Role.LITERAL:
            return text
        if role is Role.SETTING:
            return _apply(self._setting_steps, text)
        if role is Role.IDENTIFIER and _OPAQUE.fullmatch(text) and not _DIGEST.search(text):
            return IDENTIFIER_MARK
        done = self._plain(text)
        return shape(done) if role is Role.MEASURED else done

    def paired(self, cell: str, roles: tuple[Role, ...]) -> str:
        """A cell of `measured/setting` pairs (`45%/80%`, `cpu: 12%/50%`, `1.5MiB / 7.7GiB`), each part in its role."""
        first, second = roles[0], roles[-1]
        out, at = [], 0
        for m in _PAIR.finditer(cell):
            out += [self._plain(cell[at:m.start()]), self.read(m["a"], first), m["sep"], self.read(m["b"], second)]
            at = m.end()
        out.append(self._plain(cell[at:]))
        return "".join(out)

    def spans(self, text: str, role: Role = Role.PLAIN) -> list[Span]:
        """Where the canonical form of `text` forgives something: each value's span and rule, in order.

        The markers of the canonical form and these spans come in the same
        order, so two texts with one canonical form pair their values one to one.
        """
        if role is Role.LITERAL:
            return []
        if role is Role.SETTING:
            return _tracked(self._setting_steps, text, 0, len(text))
        if role in (Role.MEASURED, Role.IDENTIFIER):
            return [(0, len(text), "")] if text else []
        keyed = keyed_values(text, self.pins) if self._keys else []
        out: list[Span] = []
        at = 0
        for k in keyed:
            out += _tracked(self._steps, text, at, k.start)
            if k.role in (Role.MEASURED, Role.IDENTIFIER):
                out.append((k.start, k.end, self.key_rule(k.key, "key")))
            elif k.role is Role.SETTING:
                out += _tracked(self._setting_steps, text, k.start, k.end)
            at = k.end
        return out + _tracked(self._steps, text, at, len(text))

    def key_rule(self, name: str, what: str) -> str:
        """How a reader is told a key's or a column's value was forgiven: `key restartCount`, `@volatile RPS`."""
        return f"@volatile {name}" if pinned_role(name, self.pins) is Role.MEASURED else f"{what} {name}"

    def _rewrite(self, item: str) -> str:
        keyed = keyed_values(item, self.pins) if self._keys else []
        return self._pieces(item, keyed) if keyed else self._plain(item)

    def _pieces(self, item: str, keyed: Iterable[Keyed]) -> str:
        out, at = [], 0
        for k in keyed:
            out += [self._plain(item[at:k.start]), self.read(item[k.start:k.end], k.role)]
            at = k.end
        out.append(self._plain(item[at:]))
        return "".join(out)

    def _plain(self, item: str) -> str:
        return _apply(self._steps, item)


# An image's digest is never an id a run handed out: it names what runs (`nginx@sha256:`, `docker://sha256:`).
_DIGEST = re.compile(r"[@/]sha256:")
# One value a run handed out: no spaces, and a digit or the length of something random (`3:0`, a token).
_OPAQUE = re.compile(r"(?=\S*\d|\S{12})\S+")
_PAIR = re.compile(r"(?P<a>[^\s/,]+)(?P<sep> ?/ ?)(?P<b>[^\s/,]+)")


def _apply(steps: Sequence[_Step], item: str) -> str:
    for pattern, repl, may_hold, _, _ in steps:
        if may_hold is None or may_hold(item):
            item = pattern.sub(repl, item)
    return item


def _tracked(steps: Sequence[_Step], text: str, start: int, end: int) -> list[Span]:
    """The steps applied to text[start:end] as `_apply` does, keeping where each marker came from."""
    item = text[start:end]
    origin = [(i, i + 1) for i in range(start, end)]  # the span of `text` each character of `item` stands for
    rules: list[str] = [""] * len(item)  # the rule of each marker, "" for text kept as it was
    for pattern, repl, may_hold, _, rule in steps:
        if may_hold is not None and not may_hold(item):
            continue
        pieces: list[str] = []
        new_origin: list[tuple[int, int]] = []
        new_rules: list[str] = []
        at = 0
        for m in pattern.finditer(item):
            new = repl if isinstance(repl, str) else repl(m)
            if new == m.group():
                continue
            s, e = m.span()
            kept = len(new) - 1  # a kept prefix, then one marker
            pieces += [item[at:s], new]
            new_origin += origin[at : s + kept] + [(origin[s + kept][0], origin[e - 1][1])]
            new_rules += rules[at : s + kept] + [rule]
            at = e
        if pieces:
            item = "".join(pieces) + item[at:]
            origin = new_origin + origin[at:]
            rules = new_rules + rules[at:]
    return [(*origin[i], rule) for i, rule in enumerate(rules) if rule]


def _replacement(kind: ValueKind) -> Callable[[re.Match[str]], str]:
    mark = KIND_MARK[kind.name]
    accept = kind.accept
    keeps = [g for g in ("keep", "keep2", "keep3") if g in re.compile(kind.pattern).groupindex]

    def replace(m: re.Match[str]) -> str:
        if accept is not None and not accept(m):
            return m.group()
        kept = next((m.group(g) for g in keeps if m.group(g) is not None), "")
        return kept + mark

    return replace


def _compile_mask(regex: str) -> re.Pattern[str]:
    try:
        return re.compile(regex)
    except re.error as exc:
        raise ParseError(f"invalid @mask regex {regex!r}: {exc}") from None


@lru_cache(maxsize=64)
def canon_for(masks: tuple[str, ...], *, builtin: bool = True, loose: bool = False, pins: Pins = NO_PINS,
              mask_names: tuple[str, ...] = ()) -> Canon:
    """A compiled canonicaliser, shared between calls with the same masks and pins."""
    return Canon(masks, builtin=builtin, loose=loose, pins=pins, mask_names=mask_names)
