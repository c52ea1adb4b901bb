"""Values that differ between runs without meaning anything, as data: one regex and one rule name each.

Each kind is a regex with its own boundaries; `volatile.Canon` replaces what
they match by one marker per kind. What is configuration rather than noise
(bind addresses, CIDRs, values of settings) is left out on purpose: keys and
column titles decide that (roles.py, docs/matching.md).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice, pairwise


@dataclass(frozen=True)
class ValueKind:
    """One kind of value that differs from run to run without meaning anything.

    A named group `keep` in the pattern is literal text kept in front of the
    marker (the `-` before a name suffix, the `pod-template-hash=` before a hash).
    """

    rule: str  # what a reader is told forgave it, and what `@literal` turns off (docs/matching.md)
    name: str  # one marker each
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


_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_WEEKDAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_DATE = r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
_CLOCK = r"(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:[.,]\d+)?"
_HHMM = r"(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d+)?)?"
_ZONE_NAME = r"(?:UTC|GMT|[A-Z]{1,3}[SD]?T)(?![\w])"
_OFFSET = r"[+-](?:[01]\d):?[0-5]\d"
OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_HEX4 = r"[0-9a-fA-F]{1,4}"
SAFE = "bcdfghjklmnpqrstvwxz2456789"  # the alphabet Kubernetes draws generated suffixes from
HASH = "4-9bcdf"  # a pod-template-hash: decimal digits mapped into that alphabet
_UNIT = r"(?:second|minute|hour|day|week|month|year)s?"
# Ports the kernel, Docker, k3d and kind hand out: the ephemeral range and Kubernetes NodePorts.
_EPHEMERAL = r"(?:3276[89]|327[7-9]\d|32[89]\d\d|3[3-9]\d{3}|[45]\d{4}|6[0-4]\d{3}|65[0-4]\d\d|655[0-2]\d|6553[0-5])"
_NODEPORT = r"(?:3[01]\d{3}|32[0-6]\d\d|327[0-5]\d|3276[0-7])"
# Addresses a service is told to bind to are configuration, never noise (0.0.0.0, 127.x, ::, ::1).
NOT_BIND4 = r"(?!0\.0\.0\.0(?![\d.])|127\.)"
_NOT_BIND6 = r"(?!::1?(?![\w:.]))"
# Markers are control characters that normalised output never holds and that are neither word
# characters nor whitespace to a regex, so canonical text stays one character a value.
MARKS = [chr(c) for c in (*range(0x01, 0x09), *range(0x0E, 0x1C), *range(0x80, 0x85), *range(0x86, 0xA0))]
_MARK_CLASS = "\x01-\x08\x0e-\x1b\x80-\x84\x86-\x9f"
_HEXBYTES = r"[0-9a-f]{2}(?:(?: {1,2}|-)[0-9a-f]{2}){3,15}"
_HEXWORDS = r"[0-9a-f]{4}(?: [0-9a-f]{2,4}){1,7}"

# Order matters: longer forms first, so a timestamp is not read as a date and a time.
KINDS: tuple[ValueKind, ...] = (
    ValueKind("timestamp", "timestamp",
         rf"(?<![0-9A-Za-z]){_DATE}[T_ ]{_HHMM}(?:Z|(?: ?{_OFFSET})(?: {_ZONE_NAME})?| UTC| GMT)?(?![0-9A-Za-z])"
         rf"|(?<![0-9A-Za-z])\d{{2}}/{_MONTH}/\d{{4}}:{_CLOCK}(?: [+-]\d{{4}})?(?![0-9A-Za-z])"
         rf"|(?<![0-9A-Za-z])(?:{_WEEKDAY},? )?{_MONTH} +\d{{1,2}},? (?:\d{{4}} )?{_CLOCK}"
         rf"(?: (?:UTC|GMT|[+-]\d{{4}}|[A-Z]{{1,3}}[SD]?T))?(?: \d{{4}})?(?![0-9A-Za-z])"
         rf"|(?<![0-9A-Za-z])(?:{_WEEKDAY}, )?\d{{1,2}} {_MONTH} \d{{4}} {_CLOCK}"
         rf"(?: (?:UTC|GMT|[+-]\d{{4}}))?(?![0-9A-Za-z])"
         # klog: the letter before the date is the severity and stays.
         rf"|(?<=(?<![0-9A-Za-z])[IWEF])(?:0[1-9]|1[0-2])(?:[0-2]\d|3[01]) {_CLOCK}(?![0-9A-Za-z])",
         may_hold=lambda s: ":" in s),
    # Response headers that time the request (`curl -v`, `curl -I`): a measurement, not content.
    ValueKind("timing-header", "measured",
              r"(?P<keep>(?m:^)<? ?(?i:x-envoy-upstream-service-time|x-response-time|x-runtime|age"
                          r"|x-request-duration): )\d+(?:\.\d+)?(?:ms)?(?m:$)",
              may_hold=lambda s: ": " in s),
    # Elapsed-time counters in log prefixes: logrus `INFO[0012]` (the level stays), dmesg `[  12.345678]`.
    ValueKind("elapsed", "elapsed", r"(?P<keep>(?<![\w])(?:INFO|WARN|ERRO|DEBU|TRAC|FATA|PANI)\[)\d{4,}(?=\])"
                         r"|(?<![\w\]])\[ *\d+\.\d{3,}\](?= )",
              may_hold=lambda s: "[" in s),
    # Go's monotonic clock reading after a time.Time (`m=+3827.270451`): seconds since the process started.
    ValueKind("monotonic-clock", "monotonic", r"(?P<keep>(?<![\w.])m=)[+-]\d+(?:\.\d+)?(?![\w.])",
              may_hold=lambda s: "m=" in s),
    # Ids a client numbers its connections and streams by: curl's `(#0)`, `[HTTP/2] [1]`.
    ValueKind("connection-id", "stream", r"(?P<keep>\[HTTP/[23]\] \[)\d+(?=\])|(?P<keep2>\(#)\d+(?=\))",
              may_hold=lambda s: "#" in s or "[HTTP/" in s),
    # A line of a hex dump with its ASCII column (xxd, hexdump -C, openssl's session tickets): the offset stays.
    ValueKind("hexdump", "hexdump", rf"(?P<keep>(?m:^)(?:[0-9a-f]{{8}}: |[0-9a-f]{{8}}  | *[0-9a-f]{{4}} - ))"
                                    rf"(?:{_HEXBYTES}|{_HEXWORDS})(?: {{2,}}[^\n]*| *\|[^\n]*\|)?(?m:$)",
              may_hold=lambda s: "  " in s or ": " in s or " - " in s),
    # Rules a tool pads to the terminal's width around a centred text (pytest's `=== 1 passed in 0.12s ===`).
    ValueKind("rule-line", "rule", r"(?<!\S)(?:={3,}|-{3,}|─{3,}|━{3,}|\*{3,}|~{3,})(?!\S)",
              may_hold=lambda s: "===" in s or "---" in s or "───" in s or "━━━" in s or "***" in s or "~~~" in s),
    ValueKind("uuid", "uuid",
              r"(?<![0-9A-Za-z])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Za-z])",
         may_hold=lambda s: "-" in s),
    # Certificate serials and key ids: `0x` hex, colon-separated hex bytes, decimal serials, `step`'s `2875...1234`.
    # MAC addresses (six bytes) count too; a line of a hex dump (`step`, `openssl`) may be shorter.
    # `0x` and eight hex digits or more: a serial, or an address in memory (`read from 0x6000005ec360`).
    ValueKind("serial", "serial", r"(?<![\w:])0x[0-9a-fA-F]{8,}(?![\w])"
                        r"|(?<![\w:])(?:[0-9a-fA-F]{2}:){5,}[0-9a-fA-F]{2}(?![\w])"
                        r"|(?m:^) +(?:[0-9a-f]{2}:)+[0-9a-f]{2}:?(?m:$)"
                        r"|(?<![\w.])\d{16,}(?![\w.])"
                        r"|(?<![\w.])\d{3,}\.\.\.\d{3,}(?![\w.])",
              may_hold=lambda s: len(s) >= 11),
    ValueKind("address", "ipv6",
              rf"(?<![\w:.]){_NOT_BIND6}(?:(?:{_HEX4}:){{7}}{_HEX4}|(?:{_HEX4}(?::{_HEX4})*)?::(?:{_HEX4}(?::{_HEX4})*)?)"
                      # A colon after it ends a sentence's clause (`fail for 2a00::1: unreachable`).
                      rf"(?![\w/]|\.\d|:[0-9A-Fa-f:])", may_hold=lambda s: "::" in s or s.count(":") >= 7),
    # Not after `v` or a dot, not before `.digit`: versions like v2.14.1 or 1.2.3.4.5 are not addresses.
    # Not before `/prefix`: a CIDR is configuration.
    ValueKind("address", "ipv4", rf"(?<![\w.]){NOT_BIND4}{OCTET}(?:\.{OCTET}){{3}}(?![\w/]|\.\d)",
              may_hold=lambda s: "." in s),
    # Host ports assigned at random (k3d and kind API servers, `docker run -P`, port-forward to `:80`)
    # and NodePorts in `80:31234/TCP`; ports below 30000 are chosen by someone and stay.
    # After `::` too: IPv6's any address in `:::32768` (netstat, docker).
    # After `port` and a few words: `port 39841`, k3d's `Got free port for API: '57988'`.
    ValueKind("port", "port",
              rf"(?P<keep>(?<=[\w\]{_MARK_CLASS}]):|(?<=::):|\bport\b[^\d\n]{{0,16}}){_EPHEMERAL}(?![\w.])"
                      rf"|(?P<keep2>(?<=\d):|(?<=[\s,])){_NODEPORT}(?=/(?:TCP|UDP|SCTP)(?!\w))",
              may_hold=lambda s: ":" in s or "port " in s or "/" in s),
    # Seconds (or milliseconds) since 1970 between 2017 and 2033: `Start Time: 1700000000`, `date +%s`.
    ValueKind("epoch", "epoch", r"(?<![\w.:/-])1[5-9]\d{8}(?:\d{3})?(?:\.\d+)?(?![\w.])",
              may_hold=lambda s: len(s) >= 10),
    ValueKind("date", "date",
         rf"(?<![0-9A-Za-z])(?:{_DATE}|\d{{4}}/(?:0[1-9]|1[0-2])/(?:0[1-9]|[12]\d|3[01])|\d{{2}}/\d{{2}}/\d{{4}}"
         rf"|{_MONTH} \d{{1,2}}, \d{{4}}|\d{{1,2}} {_MONTH} \d{{4}})(?![0-9A-Za-z])",
         may_hold=lambda s: "-" in s or "/" in s or " " in s),
    ValueKind("time", "time", rf"(?<![\w:.]){_CLOCK}(?![\w:])", may_hold=lambda s: ":" in s),
    # Generated hashes in labels and object data, whatever segment they sit in.
    ValueKind("generated-hash", "labelhash",
              r"(?P<keep>(?:pod-template|controller-revision)-hash(?:=|\"?: ?\"?)(?:[a-z0-9][a-z0-9.-]*-)?)"
                           r"[a-z0-9]{5,10}(?![\w-])"
                           r"|(?P<keep2>resourceVersion\"?: ?\")\d+(?=\")"
                           # k3s names its load balancers `svclb-<service>-<8 hex>` (DaemonSet, app label).
                           r"|(?P<keep3>(?<![\w-])svclb-[a-z0-9-]+?-)(?=[a-f]*\d)[0-9a-f]{8}(?![\w-])",
              may_hold=lambda s: "-hash" in s or "resourceVersion" in s or "svclb-" in s),
    # Never an image's digest (`nginx@sha256:...`, `docker://sha256:...`): another digest is another image,
    # whatever its tag.
    ValueKind("hex-id", "hex", r"(?<![0-9A-Za-z])(?<!@sha256:)(?<!/sha256:)"
                r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{12,}(?![0-9A-Za-z])"
                r"|(?<![0-9A-Za-z])(?<!@sha256:)(?<!/sha256:)"
                r"(?=[0-9A-F]*[A-F])(?=[0-9A-F]*[0-9])[0-9A-F]{12,}(?![0-9A-Za-z])",
         may_hold=lambda s: len(s) >= 12),
    # web-68cc8bc689-j4ph2: Deployment pod. The stable prefix stays; StatefulSet ordinals (web-0) are not volatile.
    # Real hashes use only HASH; older clusters and stand-ins use more, and the suffix after it is signal enough.
    # A suffix may be all digits (one in a thousand is) when a real template hash stands before it.
    # svclb-traefik-3e5a7f1c-x7k2p: k3s load balancer pods carry an 8-digit hex hash before the suffix.
    # Before Kubernetes 1.8 the template hash was decimal and suffixes could hold any letter or digit
    # (my-nginx-3800858182-e9ihh): after 8 to 10 digits, five such characters with a letter are generated too.
    ValueKind("generated-name", "pod",
              rf"(?P<keep>(?<=[a-z0-9])-)(?:(?:[{SAFE}013]{{6,10}}-(?=[2-9]*[b-z])|[{HASH}]{{8,10}}-"
                     rf"|(?=[a-f]*[0-9])(?=[0-9]*[a-f])[0-9a-f]{{8}}-(?=[2-9]*[b-z]))[{SAFE}]{{5}}"
                     rf"|\d{{8,10}}-(?=[0-9]*[a-z])[a-z0-9]{{5}})(?![\w-])",
         may_hold=lambda s: "-" in s),
    ValueKind("generated-name", "replicaset",
              rf"(?P<keep>(?<=[a-z0-9])-)(?=[bcdf]*[4-9])(?=[4-9]*[bcdf])[{HASH}]{{8,10}}(?![\w-])",
         may_hold=lambda s: "-" in s),
    # Job, DaemonSet and generateName suffixes: five characters with at least one letter.
    ValueKind("generated-name", "suffix", rf"(?P<keep>(?<=[a-z0-9])-)(?=[2-9]*[b-z])[{SAFE}]{{5}}(?![\w-])",
         may_hold=lambda s: "-" in s),
    # Names an author typed by hand in a `##` block (`web-5d7f8b9c6-abcde`, `job-xxxxx`): outside the
    # alphabet, but with a digit or a placeholder run so that words (`web-alpha`) are never taken.
    ValueKind("generated-name", "pod",
              r"(?P<keep>(?<=[a-z0-9])-)(?:(?=[a-z]*\d)[a-z0-9]{6,10}|(?P<rep>[a-z])(?P=rep){5,9})-[a-z0-9]{5}(?![\w-])",
              may_hold=lambda s: "-" in s, loose=True),
    ValueKind("generated-name", "suffix",
              r"(?P<keep>(?<=[a-z0-9])-)(?:(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{5}|(?P<rep>[a-z])(?P=rep){4})(?![\w-])",
              may_hold=lambda s: "-" in s, loose=True),
    # Names generated from the time: `release-1612624192` (epoch seconds), a CronJob's `backup-28391520` (minutes).
    ValueKind("generated-name", "timename", r"(?P<keep>(?<=[a-z0-9])-)(?:1[5-9]\d{8}|2[6-9]\d{6})(?![\w-])",
              may_hold=lambda s: "-" in s),
    ValueKind("token", "token", r"(?<![\w+/=-])[\w+/-]{16,}={0,2}(?![\w+/=-])", accept=_random_token,
         may_hold=lambda s: len(s) >= 16),
    # A unit after a space too: `0.12 seconds`, webpack's `in 1934 ms`, and ping's summary of several times
    # with one unit (`min/avg/max = 0.085/0.087/0.090 ms`).
    ValueKind("duration", "duration",
         r"(?<![\w.])(?:\d+(?:\.\d+)?(?:ms|us|µs|ns|[smhdwy]))+(?![\w])"
         r"|(?<![\w./])\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)* (?:ms|us|µs|ns)(?![\w])"
         rf"|(?<![\w.])(?:\d+(?:\.\d+)?|[Aa]bout an?|[Ll]ess than an?) {_UNIT}(?![\w])"),
)

KIND_MARK = {name: MARKS[i] for i, name in enumerate(dict.fromkeys(k.name for k in KINDS))}
MASK_BASE = 0x100100
RESTARTS = re.compile(rf"(?<![\w.])\d+ \({KIND_MARK['duration']} ago\)")
RESTARTS_MARK = MARKS[-1]
_NAMED = MARKS[-2]  # a word a volatile column may change: weekdays and months
IDENTIFIER_MARK = MARKS[-3]  # a value under a key that names an id
_CALENDAR = re.compile(rf"\b(?:{_WEEKDAY}|{_MONTH})\b")
_NAME_SUFFIX = re.compile("|".join(k.pattern.replace("(?P<keep>", "(?:") for k in KINDS
                                   if k.name in ("pod", "replicaset", "suffix") and not k.loose))
_LOOSE_SUFFIX = re.compile("|".join(
    k.pattern.replace("(?P<keep>", "(?:").replace("(?P<rep>", f"(?P<rep{n}>").replace("(?P=rep)", f"(?P=rep{n})")
    for n, k in enumerate(KINDS) if k.loose))



def shape(canonical: str) -> str:
    """What a measurement keeps of a canonical value: its words, not its numbers or their units.

    Amounts count as one (`3`, `12Mi`, `1.5GiB`, `45%`) and weekday or month
    names as one another, so `3 (29s ago)`, `0` and `12` look alike, but
    `deployed` and `failed` beside a timestamp, or `<unknown>` and `0`, still differ.
    """
    canonical = canonical.replace(RESTARTS_MARK, "0")
    if canonical.isdigit():
        return "0"
    return _CALENDAR.sub(_NAMED, _AMOUNT.sub("0", canonical))


_AMOUNT = re.compile(r"\d+(?:\.\d+)?(?:(?:[KMGTPE]i|[kKMGTPE])B?|B|m|%)?(?![A-Za-z])|\d+")
RULES = frozenset(k.rule for k in KINDS) | {"restarts"}  # what a forgiven value may be forgiven by, as a kind
RULE_OF_MARK = {KIND_MARK[k.name]: k.rule for k in KINDS} | {RESTARTS_MARK: "restarts", _NAMED: "name",
                                                               IDENTIFIER_MARK: "identifier"}


def describe(canonical: str) -> str:
    """A canonical string for a reader: each forgiven value shown as its rule, `<timestamp>`."""
    return "".join(f"<{RULE_OF_MARK[c]}>" if c in RULE_OF_MARK else "<mask>" if c >= "\U00100100" else c
                   for c in canonical)


def star_names(text: str, *, loose: bool = False) -> str:
    """`shop-api-6d9f8c7b54-qz7xk` as a reader names it in a message: `shop-api-*`.

    `loose` also stars the names an author typed by hand (expected rows).
    """
    text = _NAME_SUFFIX.sub("-*", text)
    return _LOOSE_SUFFIX.sub("-*", text) if loose else text
