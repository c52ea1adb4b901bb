"""Volatile values (names, times, addresses, ids) as data, and the canonical form that forgives them.

Each kind is a regex with its own boundaries. Canonicalising replaces every
value of a kind by one private-use character for that kind, so two texts
match when their canonical forms are equal: both sides then hold a value of
the same kind at the same place, and everything else is literally equal.
What is configuration rather than noise (bind addresses, CIDRs, durations
given as settings) is left out of the kinds on purpose (docs/matching.md,
"Refinements from real tool output").
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice, pairwise

from ..errors import ParseError


@dataclass(frozen=True)
class ValueKind:
    """One kind of value that differs from run to run without meaning anything.

    A named group `keep` in the pattern is literal text kept in front of the
    marker (the `-` before a name suffix, the `pod-template-hash=` before a hash).
    """

    name: str
    pattern: str
    accept: Callable[[re.Match[str]], bool] | None = None  # a finer test than the regex can say
    may_hold: Callable[[str], bool] | None = None  # a cheap test that skips strings without the kind
    loose: bool = False  # only on the expected side: what an author typed by hand


_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_LOWER = re.compile(r"[a-z]")
_INNER_CAPITAL = re.compile(r"(?<=[A-Za-z0-9])[A-Z]")


def _random_token(m: re.Match[str]) -> bool:
    """Short case-mixed pieces: a secret or an id, not a CamelCase word, a path or a name."""
    text = m.group()
    if text.startswith("/"):
        return False
    if text.isascii():  # the test below, in C: a token can be megabytes long
        if len(list(islice(_INNER_CAPITAL.finditer(text), 2))) < 2 or not _LOWER.search(text):
            return False
    elif sum(1 for a, b in pairwise(text) if b.isupper() and a.isalnum()) < 2 or not any(c.islower() for c in text):
        return False
    words = _WORDS.findall(text)
    return sum(map(len, words)) < 3 * len(words)


# Keys whose durations are settings an author chose (`delay=30s`, `timeout: 10s`, `--wait=60s`).
# Any other key (`duration=`, `latency=`, `took`) holds a measurement and stays forgiven.
_SETTING = re.compile(r"(?P<key>[A-Za-z][\w.-]*)\"?(?:=|: *)[\"']?$|(?:^|\s)--(?P<flag>[A-Za-z][\w-]*) $")
_SETTING_WORDS = re.compile(
    r"timeout|delay|period|interval|wait|ttl|deadline|grace|retr(?:y|ies)|backoff|expir|lifetime|valid|"
    r"maxage|max-age|resync|refresh|renew|cooldown|window|frequency|poll|keepalive|idle|sleep|every|"
    r"threshold|schedule|budget|rotat|cache", re.IGNORECASE)


def _measured(m: re.Match[str]) -> bool:
    """A duration is noise unless it is the value of a setting whose key says so."""
    start = m.start()
    if start == 0 or m.string[start - 1] not in "=: \"'":
        return True
    line_start = m.string.rfind("\n", 0, start) + 1
    before = m.string[max(line_start, start - 60) : start]
    setting = _SETTING.search(before)
    return setting is None or _SETTING_WORDS.search(setting.group("key") or setting.group("flag")) is None


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
# Ports the kernel, Docker, k3d and kind hand out: the ephemeral range and Kubernetes NodePorts.
_EPHEMERAL = r"(?:3276[89]|327[7-9]\d|32[89]\d\d|3[3-9]\d{3}|[45]\d{4}|6[0-4]\d{3}|65[0-4]\d\d|655[0-2]\d|6553[0-5])"
_NODEPORT = r"(?:3[01]\d{3}|32[0-6]\d\d|327[0-5]\d|3276[0-7])"
# Addresses a service is told to bind to are configuration, never noise (0.0.0.0, 127.x, ::, ::1).
_NOT_BIND4 = r"(?!0\.0\.0\.0(?![\d.])|127\.)"
_NOT_BIND6 = r"(?!::1?(?![\w:.]))"

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
    # Response headers that time the request (`curl -v`, `curl -I`): a measurement, not content.
    ValueKind("measured", r"(?P<keep>(?m:^)<? ?(?i:x-envoy-upstream-service-time|x-response-time|x-runtime|age"
                          r"|x-request-duration): )\d+(?:\.\d+)?(?:ms)?(?m:$)",
              may_hold=lambda s: ": " in s),
    # Elapsed-time counters in log prefixes: logrus `INFO[0012]` (the level stays), dmesg `[  12.345678]`.
    ValueKind("elapsed", r"(?P<keep>(?<![\w])(?:INFO|WARN|ERRO|DEBU|TRAC|FATA|PANI)\[)\d{4,}(?=\])"
                         r"|(?<![\w\]])\[ *\d+\.\d{3,}\](?= )",
              may_hold=lambda s: "[" in s),
    ValueKind("uuid", r"(?<![0-9A-Za-z])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Za-z])",
         may_hold=lambda s: "-" in s),
    # Certificate serials and key ids: `0x` hex, colon-separated hex bytes, decimal serials, `step`'s `2875...1234`.
    # MAC addresses (six bytes) count too; a line of a hex dump (`step`, `openssl`) may be shorter.
    ValueKind("serial", r"(?<![\w:])0x[0-9a-fA-F]{12,}(?![\w])"
                        r"|(?<![\w:])(?:[0-9a-fA-F]{2}:){5,}[0-9a-fA-F]{2}(?![\w])"
                        r"|(?m:^) +(?:[0-9a-f]{2}:)+[0-9a-f]{2}:?(?m:$)"
                        r"|(?<![\w.])\d{16,}(?![\w.])"
                        r"|(?<![\w.])\d{3,}\.\.\.\d{3,}(?![\w.])",
              may_hold=lambda s: len(s) >= 11),
    ValueKind("ipv6", rf"(?<![\w:.]){_NOT_BIND6}(?:(?:{_HEX4}:){{7}}{_HEX4}|(?:{_HEX4}(?::{_HEX4})*)?::(?:{_HEX4}(?::{_HEX4})*)?)"
                      rf"(?![\w:/]|\.\d)", may_hold=lambda s: "::" in s or s.count(":") >= 7),
    # Not after `v` or a dot, not before `.digit`: versions like v2.14.1 or 1.2.3.4.5 are not addresses.
    # Not before `/prefix`: a CIDR is configuration.
    ValueKind("ipv4", rf"(?<![\w.]){_NOT_BIND4}{_OCTET}(?:\.{_OCTET}){{3}}(?![\w/]|\.\d)", may_hold=lambda s: "." in s),
    # Host ports assigned at random (k3d and kind API servers, `docker run -P`, port-forward to `:80`)
    # and NodePorts in `80:31234/TCP`; ports below 30000 are chosen by someone and stay.
    ValueKind("port", rf"(?P<keep>(?<=[\w\]\x01-\x08\x0e-\x1b]):|\bport ){_EPHEMERAL}(?![\w.])"
                      rf"|(?P<keep2>(?<=\d):|(?<=[\s,])){_NODEPORT}(?=/(?:TCP|UDP|SCTP)(?!\w))",
              may_hold=lambda s: ":" in s or "port " in s or "/" in s),
    ValueKind("date",
         rf"(?<![0-9A-Za-z])(?:{_DATE}|\d{{4}}/(?:0[1-9]|1[0-2])/(?:0[1-9]|[12]\d|3[01])|\d{{2}}/\d{{2}}/\d{{4}}"
         rf"|{_MONTH} \d{{1,2}}, \d{{4}}|\d{{1,2}} {_MONTH} \d{{4}})(?![0-9A-Za-z])",
         may_hold=lambda s: "-" in s or "/" in s or " " in s),
    ValueKind("time", rf"(?<![\w:.]){_CLOCK}(?![\w:])", may_hold=lambda s: ":" in s),
    # Generated hashes in labels and object data, whatever segment they sit in.
    ValueKind("labelhash", r"(?P<keep>(?:pod-template|controller-revision)-hash(?:=|\"?: ?\"?)(?:[a-z0-9][a-z0-9.-]*-)?)"
                           r"[a-z0-9]{5,10}(?![\w-])"
                           r"|(?P<keep2>resourceVersion\"?: ?\")\d+(?=\")"
                           # k3s names its load balancers `svclb-<service>-<8 hex>` (DaemonSet, app label).
                           r"|(?P<keep3>(?<![\w-])svclb-[a-z0-9-]+?-)(?=[a-f]*\d)[0-9a-f]{8}(?![\w-])",
              may_hold=lambda s: "-hash" in s or "resourceVersion" in s or "svclb-" in s),
    ValueKind("hex", r"(?<![0-9A-Za-z])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{12,}(?![0-9A-Za-z])"
                r"|(?<![0-9A-Za-z])(?=[0-9A-F]*[A-F])(?=[0-9A-F]*[0-9])[0-9A-F]{12,}(?![0-9A-Za-z])",
         may_hold=lambda s: len(s) >= 12),
    # web-68cc8bc689-j4ph2: Deployment pod. The stable prefix stays; StatefulSet ordinals (web-0) are not volatile.
    # Real hashes use only _HASH; older clusters and stand-ins use more, and the suffix after it is signal enough.
    # A suffix may be all digits (one in a thousand is) when a real template hash stands before it.
    # svclb-traefik-3e5a7f1c-x7k2p: k3s load balancer pods carry an 8-digit hex hash before the suffix.
    ValueKind("pod", rf"(?P<keep>(?<=[a-z0-9])-)(?:[{_SAFE}013]{{6,10}}-(?=[2-9]*[b-z])|[{_HASH}]{{8,10}}-"
                     rf"|(?=[a-f]*[0-9])(?=[0-9]*[a-f])[0-9a-f]{{8}}-(?=[2-9]*[b-z]))[{_SAFE}]{{5}}(?![\w-])",
         may_hold=lambda s: "-" in s),
    ValueKind("replicaset", rf"(?P<keep>(?<=[a-z0-9])-)(?=[bcdf]*[4-9])(?=[4-9]*[bcdf])[{_HASH}]{{8,10}}(?![\w-])",
         may_hold=lambda s: "-" in s),
    # Job, DaemonSet and generateName suffixes: five characters with at least one letter.
    ValueKind("suffix", rf"(?P<keep>(?<=[a-z0-9])-)(?=[2-9]*[b-z])[{_SAFE}]{{5}}(?![\w-])",
         may_hold=lambda s: "-" in s),
    # Names an author typed by hand in a `##` block (`web-5d7f8b9c6-abcde`, `job-xxxxx`): outside the
    # alphabet, but with a digit or a placeholder run so that words (`web-alpha`) are never taken.
    ValueKind("pod", r"(?P<keep>(?<=[a-z0-9])-)(?:(?=[a-z]*\d)[a-z0-9]{6,10}|(?P<rep>[a-z])(?P=rep){5,9})-[a-z0-9]{5}(?![\w-])",
              may_hold=lambda s: "-" in s, loose=True),
    ValueKind("suffix", r"(?P<keep>(?<=[a-z0-9])-)(?:(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{5}|(?P<rep>[a-z])(?P=rep){4})(?![\w-])",
              may_hold=lambda s: "-" in s, loose=True),
    ValueKind("token", r"(?<![\w+/=-])[\w+/-]{16,}={0,2}(?![\w+/=-])", accept=_random_token,
         may_hold=lambda s: len(s) >= 16),
    ValueKind("duration",
         r"(?<![\w.])(?:\d+(?:\.\d+)?(?:ms|us|µs|ns|[smhdwy]))+(?![\w])"
         rf"|(?<![\w.])(?:\d+|[Aa]bout an?|[Ll]ess than an?) {_UNIT}(?![\w])",
         accept=_measured),
)

# Markers come from a private-use plane that terminal output (icon fonts included) leaves alone.
# Markers are control characters that normalised output never holds (and that are neither word
# characters nor whitespace to a regex), so canonical text stays one byte a character; masks, which
# a project may have many of, take characters from a private-use plane.
_MARKS = [chr(c) for c in (*range(0x01, 0x09), *range(0x0E, 0x1C))]
_KIND_MARK = {name: _MARKS[i] for i, name in enumerate(dict.fromkeys(k.name for k in KINDS))}
_MASK_BASE = 0x100100
_RESTARTS = re.compile(rf"(?<![\w.])\d+ \({_KIND_MARK['duration']} ago\)")
_RESTARTS_MARK = _MARKS[-1]
_NAMED = _MARKS[-2]  # a word a volatile column may change: weekdays and months
_DIGITS = re.compile(r"\d+")
_CALENDAR = re.compile(rf"\b(?:{_WEEKDAY}|{_MONTH})\b")
_NAME_SUFFIX = re.compile("|".join(k.pattern.replace("(?P<keep>", "(?:") for k in KINDS
                                   if k.name in ("pod", "replicaset", "suffix") and not k.loose))
_LOOSE_SUFFIX = re.compile("|".join(
    k.pattern.replace("(?P<keep>", "(?:").replace("(?P<rep>", f"(?P<rep{n}>").replace("(?P=rep)", f"(?P=rep{n})")
    for n, k in enumerate(KINDS) if k.loose))

# Columns whose every value differs between runs: a cell there may change its digits and its
# volatile values, never its words. Measured resource use (kubectl top, linkerd viz) counts too.
VOLATILE_COLUMNS = frozenset({"AGE", "RESTARTS", "CREATED", "LAST SEEN", "FIRST SEEN", "UPDATED", "DURATION",
                              "CPU(cores)", "MEMORY(bytes)", "CPU%", "MEMORY%", "RPS", "LATENCY_P50",
                              "LATENCY_P95", "LATENCY_P99", "TCP_CONN"})

# A whole cell that is one common value, canonicalised without running every kind (tables are mostly these).
# Each form is one the kinds above rewrite the same way; tests/test_verify_properties.py checks it. One
# regex holds them all, so a cell costs one match: the first alternative that takes the whole cell names
# its form. A generated name keeps its stable part (words and numbers, never a date or a UUID the kinds
# would read first) in front of the marker.
_FAST_DURATION = r"(?:\d+(?:\.\d+)?(?:ms|us|µs|ns|[smhdwy]))+"
_FAST_PREFIX = r"[a-z]+(?:-(?:[a-z]+|(?!\d{4}-\d\d-\d\d(?!\d)|\d{8}-\d{4}-)\d{1,15}))*"
_QUICK = re.compile(
    rf"(?P<same>\d{{1,3}}(?:/\d{{1,3}})?|[A-Za-z]{{1,15}}|<none>|<unknown>|<pending>)"
    rf"|(?P<ipv4>{_NOT_BIND4}{_OCTET}(?:\.{_OCTET}){{3}})"
    # Twelve digits and `d`s in a row read as hex before they read as a duration.
    rf"|(?P<duration>(?!.*[0-9d]{{12}}){_FAST_DURATION})"
    rf"|(?P<restarts>\d+ \({_FAST_DURATION} ago\))"
    rf"|(?P<pod>{_FAST_PREFIX})-(?:[{_SAFE}013]{{6,10}}-(?=[2-9]*[b-z])|[{_HASH}]{{8,10}}-)[{_SAFE}]{{5}}"
    rf"|(?P<suffix>{_FAST_PREFIX})-(?=[2-9]*[b-z])[{_SAFE}]{{5}}"
    rf"|(?P<replicaset>{_FAST_PREFIX})-(?=[bcdf]*[4-9])(?=[4-9]*[bcdf])[{_HASH}]{{8,10}}")
_QUICK_LONGEST = 256  # a longer cell is no common value, and the names' regex would go back over all of it
# What each form becomes: the cell itself (None), a marker, or the stable part, a dash and a marker.
_QUICK_MARK = {"same": None, "ipv4": _KIND_MARK["ipv4"], "duration": _KIND_MARK["duration"],
               "restarts": _RESTARTS_MARK}
_QUICK_NAME = {kind: "-" + _KIND_MARK[kind] for kind in ("pod", "suffix", "replicaset")}


def _quick(item: str) -> str | None:
    """The canonical form of a cell that is one common value, or None to run every kind."""
    m = _QUICK.fullmatch(item) if len(item) <= _QUICK_LONGEST else None
    if m is None:
        return None if item else item
    kind = m.lastgroup
    return m[kind] + _QUICK_NAME[kind] if kind in _QUICK_NAME else _QUICK_MARK[kind] or item


# The fast forms that rarely repeat (addresses, generated names), as passes over many cells joined by
# newlines, in the order _QUICK tries them: each replaces what it matches by a constant, so re.sub stays
# in C. A name's pass takes the tail after its stable part; `_BAD_STEM` then marks with NUL the cells
# whose stable part is not one. A column runs the passes its cells' forms need (a suffix column also
# the pod pass, which _QUICK tries first); a cell no pass rewrote goes through `Canon.one`.
_BULK_PASSES = (
    ("ipv4", re.compile(rf"\n{_NOT_BIND4}{_OCTET}(?:\.{_OCTET}){{3}}(?=\n)"), "\n" + _KIND_MARK["ipv4"]),
    ("pod", re.compile(rf"-(?:[{_SAFE}013]{{6,10}}-(?=[2-9]*[b-z])|[{_HASH}]{{8,10}}-)[{_SAFE}]{{5}}(?=\n)"),
     "-" + _KIND_MARK["pod"]),
    ("suffix", re.compile(rf"-(?=[2-9]*[b-z])[{_SAFE}]{{5}}(?=\n)"), "-" + _KIND_MARK["suffix"]),
    ("replicaset", re.compile(rf"-(?=[bcdf]*[4-9])(?=[4-9]*[bcdf])[{_HASH}]{{8,10}}(?=\n)"),
     "-" + _KIND_MARK["replicaset"]),
)
_PASSES_FOR = {"ipv4": {"ipv4"}, "pod": {"pod"}, "suffix": {"pod", "suffix"}, "replicaset": {"replicaset"}}
_NAME_MARKS = "".join(_KIND_MARK[kind] for kind in ("pod", "suffix", "replicaset"))
# Every cell but a stable part, a dash and a name's marker: names whose stable part is not one, and cells
# no pass took (which go through `Canon.one` anyway).
_BAD_STEM = re.compile(rf"\n(?!\Z|{_FAST_PREFIX}-[{_NAME_MARKS}]\n)")
_PASS_MARKS = (*_NAME_MARKS, _KIND_MARK["ipv4"], "\0")
_BULK = 64  # fresh cells from which passes over all of them beat a match per cell
_SAMPLE = 8  # cells whose forms choose the passes


# pattern, replacement, a cheap pre-test (None: always run), whether to run on each string alone
_Step = tuple[re.Pattern[str], "str | Callable[[re.Match[str]], str]", "Callable[[str], bool] | None", bool]
_UNIQUE = {_KIND_MARK[k] for k in ("ipv4", "pod", "replicaset", "suffix")}
_CACHED_LONGEST = 4096
_CACHE_LIMIT = 20_000  # distinct cells remembered per canonicaliser (then forgotten all at once): bounded memory


class Canon:
    """Rewrites strings to canonical form under masks and the built-in kinds.

    `loose` adds the forms an author types by hand; it is for the expected side only.
    """

    def __init__(self, masks: Sequence[str], *, builtin: bool = True, loose: bool = False):
        self._steps: list[_Step] = []
        self._cache: dict[str, str] = {}
        self._shapes: dict[str, str] = {}  # a volatile column's cells by their text
        self._fast = builtin and not masks
        for i, regex in enumerate(masks):
            # A mask could match across the newline that joins strings, so it runs on each alone.
            self._steps.append((_compile_mask(regex), chr(_MASK_BASE + i), None, True))
        if builtin:
            for kind in KINDS:
                if kind.loose and not loose:
                    continue
                self._steps.append((re.compile(kind.pattern), _replacement(kind), kind.may_hold, False))
            self._steps.append((_RESTARTS, _RESTARTS_MARK, lambda s: "(" in s, False))

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
            return out
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
            return out
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
            return out
        fresh = [s for s in dict.fromkeys(cells) if s not in known]
        canonical = self.column(fresh)
        by_canonical = {c: shape(c) for c in dict.fromkeys(canonical)}
        found = dict(zip(fresh, map(by_canonical.__getitem__, canonical)))
        out = [done if done is not None else found[cell] for done, cell in zip(out, cells)]
        if len(known) + len(found) > _CACHE_LIMIT:
            known.clear()
        if len(found) <= _CACHE_LIMIT:
            known.update(found)
        return out

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
        forms = {m.lastgroup for cell in cells[::step] if len(cell) <= _QUICK_LONGEST and (m := _QUICK.fullmatch(cell))}
        wanted = set().union(*(_PASSES_FOR.get(form, ()) for form in forms))
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
        together, each kind as one regex pass over the joined strings that may hold it.
        """
        cache = self._cache
        fresh = [s for s in dict.fromkeys(items) if s not in cache]
        if len(fresh) < 8:
            return [self.one(s) for s in items]
        done = list(fresh)
        for pattern, repl, may_hold, per_item in self._steps:
            chosen = range(len(done)) if may_hold is None else [i for i, s in enumerate(done) if may_hold(s)]
            if not chosen:
                continue
            if per_item:
                new = [pattern.sub(repl, done[i]) for i in chosen]
            else:
                new = pattern.sub(repl, "\n".join([done[i] for i in chosen])).split("\n")
            for i, s in zip(chosen, new):
                done[i] = s
        found = dict(zip(fresh, done))
        if len(cache) + len(found) <= _CACHE_LIMIT:
            cache.update(found)
        return [found[s] if s in found else cache[s] for s in items]

    def _rewrite(self, item: str) -> str:
        for pattern, repl, may_hold, _ in self._steps:
            if may_hold is None or may_hold(item):
                item = pattern.sub(repl, item)
        return item


def _replacement(kind: ValueKind) -> Callable[[re.Match[str]], str]:
    mark = _KIND_MARK[kind.name]
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
def canon_for(masks: tuple[str, ...], *, builtin: bool = True, loose: bool = False) -> Canon:
    """A compiled canonicaliser, shared between calls with the same masks."""
    return Canon(masks, builtin=builtin, loose=loose)


def shape(canonical: str) -> str:
    """What a volatile column keeps of a canonical cell: its words, not its numbers.

    Runs of digits count as one and weekday or month names as one another, so
    `3 (29s ago)`, `0` and `12` look alike, but `deployed` and `failed` beside
    a timestamp, or `<unknown>` and `0`, still differ.
    """
    canonical = canonical.replace(_RESTARTS_MARK, "0")
    if canonical.isdigit():
        return "0"
    return _CALENDAR.sub(_NAMED, _DIGITS.sub("0", canonical))


_KIND_NAME = {mark: name for name, mark in _KIND_MARK.items()} | {_RESTARTS_MARK: "restarts", _NAMED: "name"}


def describe(canonical: str) -> str:
    """A canonical string for a reader: each forgiven value shown as its kind, `<timestamp>`."""
    return "".join(f"<{_KIND_NAME[c]}>" if c in _KIND_NAME else "<mask>" if c >= "\U00100100" else c
                   for c in canonical)


def star_names(text: str, *, loose: bool = False) -> str:
    """`shop-api-6d9f8c7b54-qz7xk` as a reader names it in a message: `shop-api-*`.

    `loose` also stars the names an author typed by hand (expected rows).
    """
    text = _NAME_SUFFIX.sub("-*", text)
    return _LOOSE_SUFFIX.sub("-*", text) if loose else text
