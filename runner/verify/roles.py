"""What a key or a column title says its values are: a setting, a measurement, or neither (docs/matching.md).

A value's meaning comes from what names it. `cpu: 500m` is a limit someone
set; `CPU(cores)  500m` is what `kubectl top` measured; `500m` alone is read
by its shape (a duration). The name is cut into words (`restartCount` ->
restart, count) and read from its last word back, as English compounds are:
the head noun decides, units (`seconds`, `bytes`, `%`) are skipped over, and
the words before it only say whether a resource (`cpu`, `memory`) is a
configured amount (`CPU Requests`, `targetCPU...`) or a use (`CPU(cores)`).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache


class Role(str, Enum):
    """How the values under a key or a column are compared."""

    PLAIN = "plain"  # by their shape: the value kinds decide (timestamps, generated names... forgiven)
    SETTING = "setting"  # what the workshop configured: literal, but for points in time
    MEASURED = "measured"  # what a run measured: any value of the same shape (its numbers may change)
    IDENTIFIER = "identifier"  # what a run handed out (an id, a token, a session): any one opaque value
    LITERAL = "literal"  # pinned with @literal: compared as written


@dataclass(frozen=True)
class Pins:
    """Names an author pinned for one command's output (`@literal`, `@volatile`), and the project's volatile columns.

    Names compare without regard to case: column titles, keys, and for
    `literal` also the rule names of value kinds and masks.
    """

    literal: frozenset[str] = frozenset()
    volatile: frozenset[str] = frozenset()

    @classmethod
    def of(cls, literal: Iterable[str] = (), volatile: Iterable[str] = ()) -> Pins:
        return cls(frozenset(n.casefold() for n in literal), frozenset(n.casefold() for n in volatile))

    def __bool__(self) -> bool:
        return bool(self.literal or self.volatile)


NO_PINS = Pins()

# Head nouns of measurements: when something happened, how long it took, how often, how much was used,
# and ids a run hands out.
MEASURED_WORDS = frozenset({
    "age", "uptime", "elapsed", "duration", "took", "latency", "latencies", "p50", "p75", "p90", "p95", "p99",
    "p999", "rps", "qps", "rate", "success", "count", "restarts", "seen", "time", "timestamp", "date",
    "created", "updated", "started", "finished", "modified", "deployed", "since", "ago", "usage", "used",
    "conn", "conns", "connection", "connections", "stream", "best", "worst", "last", "pids", "io", "received",
    "sent", "rx", "tx", "hits", "misses", "epoch", "monotonic", "throughput",
})
# Head nouns of what a run hands out: ids, tokens, sessions.
IDENTIFIER_WORDS = frozenset({"id", "ids", "uid", "uuid", "pid", "token", "nonce", "session", "serial", "etag",
                              "digest", "ticket", "identifier"})
# Head nouns of settings: limits, targets, counts and periods someone chose.
SETTING_WORDS = frozenset({
    "timeout", "timeouts", "delay", "period", "interval", "wait", "ttl", "deadline", "grace", "retry",
    "retries", "backoff", "lifetime", "validity", "maxage", "resync", "refresh", "renew", "renewal",
    "cooldown", "window", "frequency", "poll", "keepalive", "idle", "sleep", "every", "threshold",
    "schedule", "budget", "rotation", "expiry", "expiration", "expire", "expires", "replicas", "weight",
    "weights", "target", "targets", "minpods", "maxpods", "quota", "burst", "concurrency", "parallelism",
    "completions", "cidr", "cidrs", "subnet", "limit", "limits", "request", "requests", "desired",
})
# Amounts of a resource: a setting, unless the name says it is a use (`CPU(cores)`, `CPU%`, `currentCPU...`).
RESOURCE_WORDS = frozenset({"cpu", "cpus", "memory", "mem", "storage", "ephemeral", "gpu", "hugepages"})
# Words before a resource or a setting that make it one (`targetCPU`, `CPU Requests`) or a reading (`LAST SCHEDULE`).
SETTING_QUALIFIERS = frozenset({"target", "desired", "min", "max", "minimum", "maximum", "request", "requests",
                                "requested", "limit", "limits", "initial", "default", "configured"})
MEASURED_QUALIFIERS = frozenset({"current", "observed", "actual", "last", "next"})
# Units and modifiers between a head noun and the end of the name.
UNIT_WORDS = frozenset({
    "s", "sec", "secs", "second", "seconds", "ms", "millis", "milliseconds", "us", "ns", "bytes", "byte", "b",
    "kb", "mb", "gb", "kib", "mib", "gib", "cores", "core", "millicores", "percent", "percentage", "pct", "%",
    "num", "total", "avg", "average", "mean", "value", "values", "in", "out", "at", "per",
})
# Heads that end the search: what they name is read by its shape, whatever words stand before.
PLAIN_WORDS = frozenset({
    "status", "state", "phase", "ready", "reason", "version", "type", "kind", "name", "names", "namespace",
    "image", "mode", "message", "node", "reference", "chart", "app", "revision", "exit", "code", "result",
    "secured", "meshed", "available", "class", "selector", "port", "ports", "address", "ip", "ips",
})
# Whole names whose words mislead: a count of replicas that ends in "date", a counter the API server hands out.
WHOLE_NAMES = {"up-to-date": Role.PLAIN, "resource version": Role.IDENTIFIER, "resourceversion": Role.IDENTIFIER}

_WORD = re.compile(r"[A-Z]?[a-z]+\d*|[A-Z]+\d*(?![a-z])|\d+|%")
_IO = re.compile(r"\bI/O\b", re.IGNORECASE)
_USE_SIGNS = re.compile(r"[(%]")  # `CPU(cores)`, `MEMORY(bytes)`, `CPU%`


def words(name: str) -> list[str]:
    """A key or a title cut into lower-case words: `targetCPUUtilizationPercentage` -> target, cpu, ..."""
    return [w.lower() for w in _WORD.findall(_IO.sub("IO", name))]


@lru_cache(maxsize=4096)
def name_role(name: str) -> Role:
    """The role the words of a key or a column title give its values (no pins)."""
    whole = WHOLE_NAMES.get(name.casefold())
    if whole is not None:
        return whole
    found = words(name)
    use = bool(_USE_SIGNS.search(name)) or any(w in UNIT_WORDS and w not in ("at", "in", "out") for w in found)
    for at in range(len(found) - 1, -1, -1):
        word = found[at]
        before = found[:at]
        if word in UNIT_WORDS:
            continue
        if word in PLAIN_WORDS:
            return Role.PLAIN
        if word in MEASURED_WORDS:
            return Role.MEASURED
        if word in IDENTIFIER_WORDS:
            return Role.IDENTIFIER
        if word in RESOURCE_WORDS:
            if any(w in SETTING_QUALIFIERS for w in before):
                return Role.SETTING
            return Role.MEASURED if use or any(w in MEASURED_QUALIFIERS for w in before) else Role.SETTING
        if word in SETTING_WORDS:
            return Role.MEASURED if any(w in MEASURED_QUALIFIERS for w in before) else Role.SETTING
    return Role.PLAIN


def pinned_role(name: str, pins: Pins) -> Role | None:
    """What an author pinned `name` to, if they did."""
    if not pins:
        return None
    folded = name.casefold()
    if folded in pins.literal:
        return Role.LITERAL
    if folded in pins.volatile:
        return Role.MEASURED
    return None


def role_of(name: str, pins: Pins = NO_PINS) -> Role:
    """The role of the values under `name`: the author's pin first, then the name's words."""
    pinned = pinned_role(name, pins)
    return pinned if pinned is not None else name_role(name)


# Column titles holding `measured/setting` pairs: an autoscaler's current use over its target.
PAIRED_COLUMNS = {"TARGETS": (Role.MEASURED, Role.SETTING), "TARGET": (Role.MEASURED, Role.SETTING)}


def column_roles(title: str, pins: Pins = NO_PINS, volatile_columns: frozenset[str] = frozenset()
                 ) -> tuple[Role, ...]:
    """How a column's cells compare: one role, or one per `/`-separated part (`TARGETS`, `MEM USAGE / LIMIT`)."""
    pinned = pinned_role(title, pins)
    if pinned is not None:
        return (pinned,)
    if title in volatile_columns or title.upper() in volatile_columns:
        return (Role.MEASURED,)
    paired = PAIRED_COLUMNS.get(title.upper())
    if paired is not None:
        return paired
    if " / " in title:
        return tuple(name_role(part) for part in title.split(" / "))
    return (name_role(title),)
