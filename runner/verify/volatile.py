"""Volatile values (names, times, addresses, ids) as data, and the canonical form that forgives them.

Each kind is a regex with its own boundaries. Canonicalising replaces every
value of a kind by one private-use character for that kind, so two texts
match when their canonical forms are equal: both sides then hold a value of
the same kind at the same place, and everything else is literally equal.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..errors import ParseError


@dataclass(frozen=True)
class ValueKind:
    """One kind of value that differs from run to run without meaning anything."""

    name: str
    pattern: str
    keep: str = ""  # literal text kept in front of the marker (the `-` before a name suffix)
    accept: Callable[[str], bool] | None = None  # a finer test than the regex can say
    may_hold: Callable[[str], bool] | None = None  # a cheap test that skips strings without the kind


_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _random_token(text: str) -> bool:
    """Short case-mixed pieces: a secret or an id, not a CamelCase word, a path or a name."""
    if text.startswith("/"):
        return False
    inner_capitals = sum(1 for a, b in zip(text, text[1:]) if b.isupper() and a.isalnum())
    if inner_capitals < 2 or not any(c.islower() for c in text):
        return False
    words = _WORDS.findall(text)
    return sum(map(len, words)) < 3 * len(words)


_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_WEEKDAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_DATE = r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
_CLOCK = r"(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:[.,]\d+)?"
_HHMM = r"(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d+)?)?"
_ZONE_NAME = r"(?:UTC|GMT|[A-Z]{1,3}[SD]?T)(?![\w])"
_OFFSET = r"[+-](?:[01]\d):?[0-5]\d"
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_HEX4 = r"[0-9a-fA-F]{1,4}"
_SAFE = "bcdfghjklmnpqrstvwxz2456789"  # the alphabet Kubernetes draws generated suffixes from
_HASH = "4-9bcdf"  # a pod-template-hash: decimal digits mapped into that alphabet
_UNIT = r"(?:second|minute|hour|day|week|month|year)s?"

# Order matters: longer forms first, so a timestamp is not read as a date and a time.
KINDS: tuple[ValueKind, ...] = (
    ValueKind("timestamp",
         rf"(?<![0-9A-Za-z]){_DATE}[T_ ]{_HHMM}(?:Z|(?: ?{_OFFSET})(?: {_ZONE_NAME})?| UTC| GMT)?(?![0-9A-Za-z])"
         rf"|(?<![0-9A-Za-z])\d{{2}}/{_MONTH}/\d{{4}}:{_CLOCK}(?: [+-]\d{{4}})?(?![0-9A-Za-z])"
         rf"|(?<![0-9A-Za-z])(?:{_WEEKDAY},? )?{_MONTH} +\d{{1,2}},? (?:\d{{4}} )?{_CLOCK}"
         rf"(?: (?:UTC|GMT|[+-]\d{{4}}|[A-Z]{{1,3}}[SD]?T))?(?: \d{{4}})?(?![0-9A-Za-z])"
         rf"|(?<![0-9A-Za-z])(?:{_WEEKDAY}, )?\d{{1,2}} {_MONTH} \d{{4}} {_CLOCK}(?: (?:UTC|GMT|[+-]\d{{4}}))?(?![0-9A-Za-z])"
         # klog: the letter before the date is the severity and stays.
         rf"|(?<=(?<![0-9A-Za-z])[IWEF])(?:0[1-9]|1[0-2])(?:[0-2]\d|3[01]) {_CLOCK}(?![0-9A-Za-z])",
         may_hold=lambda s: ":" in s),
    ValueKind("uuid", r"(?<![0-9A-Za-z])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Za-z])",
         may_hold=lambda s: "-" in s),
    ValueKind("ipv6", rf"(?<![\w:.])(?:(?:{_HEX4}:){{7}}{_HEX4}|(?:{_HEX4}(?::{_HEX4})*)?::(?:{_HEX4}(?::{_HEX4})*)?)(?![\w:]|\.\d)", may_hold=lambda s: "::" in s or s.count(":") >= 7),
    # Not after `v` or a dot, not before `.digit`: versions like v2.14.1 or 1.2.3.4.5 are not addresses.
    ValueKind("ipv4", rf"(?<![\w.]){_OCTET}(?:\.{_OCTET}){{3}}(?![\w]|\.\d)", may_hold=lambda s: "." in s),
    ValueKind("date",
         rf"(?<![0-9A-Za-z])(?:{_DATE}|\d{{4}}/(?:0[1-9]|1[0-2])/(?:0[1-9]|[12]\d|3[01])|\d{{2}}/\d{{2}}/\d{{4}}"
         rf"|{_MONTH} \d{{1,2}}, \d{{4}}|\d{{1,2}} {_MONTH} \d{{4}})(?![0-9A-Za-z])",
         may_hold=lambda s: "-" in s or "/" in s or " " in s),
    ValueKind("time", rf"(?<![\w:.]){_CLOCK}(?![\w:])", may_hold=lambda s: ":" in s),
    ValueKind("hex", r"(?<![0-9A-Za-z])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{12,}(?![0-9A-Za-z])"
                r"|(?<![0-9A-Za-z])(?=[0-9A-F]*[A-F])(?=[0-9A-F]*[0-9])[0-9A-F]{12,}(?![0-9A-Za-z])",
         may_hold=lambda s: len(s) >= 12),
    # web-68cc8bc689-j4ph2: Deployment pod. The stable prefix stays; StatefulSet ordinals (web-0) are not volatile.
    # Real hashes use only _HASH; older clusters and stand-ins use more, and the suffix after it is signal enough.
    # A suffix may be all digits (one in a thousand is) when a real template hash stands before it.
    ValueKind("pod", rf"(?<=[a-z0-9])-(?:[{_SAFE}013]{{6,10}}-(?=[2-9]*[b-z])|[{_HASH}]{{8,10}}-)[{_SAFE}]{{5}}(?![\w-])",
         keep="-",
         may_hold=lambda s: "-" in s),
    ValueKind("replicaset", rf"(?<=[a-z0-9])-(?=[bcdf]*[4-9])(?=[4-9]*[bcdf])[{_HASH}]{{8,10}}(?![\w-])", keep="-",
         may_hold=lambda s: "-" in s),
    # Job, DaemonSet and generateName suffixes: five characters with at least one letter.
    ValueKind("suffix", rf"(?<=[a-z0-9])-(?=[2-9]*[b-z])[{_SAFE}]{{5}}(?![\w-])", keep="-",
         may_hold=lambda s: "-" in s),
    ValueKind("token", r"(?<![\w+/=-])[\w+/-]{16,}={0,2}(?![\w+/=-])", accept=_random_token,
         may_hold=lambda s: len(s) >= 16),
    ValueKind("duration",
         r"(?<![\w.])(?:\d+(?:\.\d+)?(?:ms|us|µs|ns|[smhdwy]))+(?![\w])"
         rf"|(?<![\w.])(?:\d+|[Aa]bout an?|[Ll]ess than an?) {_UNIT}(?![\w])"),
)

# Markers come from a private-use plane that terminal output (icon fonts included) leaves alone.
_KIND_MARK = {name: chr(0x100000 + i) for i, name in enumerate(dict.fromkeys(k.name for k in KINDS))}
_MASK_BASE = 0x100100
_RESTARTS = re.compile(rf"(?<![\w.])\d+ \({_KIND_MARK['duration']} ago\)")
_RESTARTS_MARK = chr(0x1000FF)
_LETTERS = re.compile(r"[^\W\d_]+")
_DIGITS = re.compile(r"\d+")
_NAME_SUFFIX = re.compile("|".join(k.pattern for k in KINDS if k.keep))

# Columns whose every value differs between runs; a cell there need only keep its shape.
VOLATILE_COLUMNS = frozenset({"AGE", "RESTARTS", "CREATED", "LAST SEEN", "UPDATED", "DURATION"})


# pattern, replacement, a cheap pre-test (None: always run), whether to run on each string alone
_Step = tuple[re.Pattern[str], "str | Callable[[re.Match[str]], str]", "Callable[[str], bool] | None", bool]


class Canon:
    """Rewrites strings to canonical form under masks and the built-in kinds."""

    def __init__(self, masks: Sequence[str], *, builtin: bool = True):
        self._steps: list[_Step] = []
        for i, regex in enumerate(masks):
            # A mask could match across the newline that joins strings, so it runs on each alone.
            self._steps.append((_compile_mask(regex), chr(_MASK_BASE + i), None, True))
        if builtin:
            for kind in KINDS:
                mark = kind.keep + _KIND_MARK[kind.name]
                repl = _checked(kind.accept, mark) if kind.accept else mark
                self._steps.append((re.compile(kind.pattern), repl, kind.may_hold, False))
            self._steps.append((_RESTARTS, _RESTARTS_MARK, lambda s: "(" in s, False))

    def all(self, items: Sequence[str]) -> list[str]:
        """Canonical forms of strings without newlines.

        Each distinct string is rewritten once, and each kind runs as one regex
        pass over the joined strings that may hold it: tables repeat cells a lot.
        """
        originals = list(dict.fromkeys(items))
        distinct = list(originals)
        for pattern, repl, may_hold, per_item in self._steps:
            chosen = range(len(distinct)) if may_hold is None else [
                i for i, s in enumerate(distinct) if may_hold(s)]
            if not chosen:
                continue
            if per_item:
                done = [pattern.sub(repl, distinct[i]) for i in chosen]
            else:
                done = pattern.sub(repl, "\n".join([distinct[i] for i in chosen])).split("\n")
            for i, s in zip(chosen, done):
                distinct[i] = s
        canonical = dict(zip(originals, distinct))
        return [canonical[s] for s in items]


def _checked(accept: Callable[[str], bool], mark: str) -> Callable[[re.Match[str]], str]:
    return lambda m: mark if accept(m.group()) else m.group()


def _compile_mask(regex: str) -> re.Pattern[str]:
    try:
        return re.compile(regex)
    except re.error as exc:
        raise ParseError(f"invalid @mask regex {regex!r}: {exc}") from None


@lru_cache(maxsize=64)
def canon_for(masks: tuple[str, ...], *, builtin: bool = True) -> Canon:
    """A compiled canonicaliser, shared between calls with the same masks."""
    return Canon(masks, builtin=builtin)


def shape(canonical: str) -> str:
    """What a volatile column keeps of a canonical cell: `3 (29s ago)`, `0` and `12` look alike.

    Runs of digits and runs of letters each count as one; punctuation and the
    kinds of volatile values stay, so `<unknown>` and `0` still differ.
    """
    return _LETTERS.sub("a", _DIGITS.sub("0", canonical.replace(_RESTARTS_MARK, "0")))


def star_names(text: str) -> str:
    """`shop-api-6d9f8c7b54-qz7xk` as a reader names it in a message: `shop-api-*`."""
    return _NAME_SUFFIX.sub("-*", text)
