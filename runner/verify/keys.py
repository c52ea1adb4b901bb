"""Keys in a line of output and the values they name: `cpu: 500m`, `timeout=10s`, `--wait 60s`, `Start Time:  ...`.

Only keys whose role is not plain (roles.py) are returned: the others leave
their values to the value kinds. A key at the start of a line may be several
words (`kubectl describe`, `openssl s_client`); there a measurement or a pinned
key takes the rest of the line, a setting one word. Anywhere else a key is one
word before `=` or `:`, a `--flag`, or a word before a number (`took 3s`).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .kinds import KINDS
from .normalise import normalise
from .roles import NO_PINS, Pins, Role, name_role, pinned_role, role_of
from .tables import Table, segments

_LEAD = re.compile(r' *(?:- )?"?(?P<key>[A-Za-z][\w./%()#-]*(?P<words>(?: [A-Za-z(][\w./%()#-]*){1,4})?)"?'
                   r' *(?::(?: +|$)|(?(words)(?!)|=))')
_INLINE = r"(?<![\w\"'.#/:$-])(?:--)?\"?(?P<key>[A-Za-z][\w.-]*)\"?(?:=|: +|:(?=[\"'\d]))"
_FLAG = r"(?<!\S)--(?P<flag>[A-Za-z][\w-]*) +(?=[^\s-])"
_BEFORE_NUMBER = r"(?<![\w.#/-])(?P<word>[A-Za-z][\w-]*)(?: +#?| #)(?=\d)"
_KEYS = re.compile(f"{_INLINE}|{_FLAG}|{_BEFORE_NUMBER}")
_VALUE = re.compile(r"\"[^\"]*\"|'[^']*'|[^\s,;]+")
# A value that is a point in time is all of it, spaces included (`start date: Sep 26 22:25:05 2024 GMT`).
_WHEN = re.compile("|".join(k.pattern for k in KINDS if k.name in ("timestamp", "date")))
_MAY_HOLD = re.compile(r"[=:]|--|[A-Za-z] +#?\d")
# Measurements by the form of the whole line, so the words around them stay and only the number may change:
# a Prometheus sample (`name{labels} 12`, with an optional timestamp; `name_total 12`; the `} 12` closing a
# series whose labels span lines), an envoy admin stat (`cluster.x.upstream_rq_200: 62`), the TTL of a DNS
# record as dig prints it (`root.cz.  600  IN  A  91.213.160.188`, counting down in a cache), hyperfine's run
# count (`Range (min … max): ...  187 runs`) and its summary ratio (`1.02 ± 0.06 times faster than`).
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|NaN|Inf)"
_PROM_SUFFIX = r"_(?:total|count|sum|bucket|seconds|bytes|created|ratio|info)"
_FORMS = re.compile(
    rf"(?:(?P<key>[A-Za-z_:][\w:]*)\{{.*\}}|(?P<bare>[A-Za-z_:][\w:]*{_PROM_SUFFIX})|(?P<close> *\}})) "
    rf"(?P<value>{_NUMBER})(?: -?\d+)?"
    rf"|(?P<stat>[A-Za-z][\w-]*(?:\.[\w-]+){{2,}}): (?P<count>\d+(?:\.\d+)?)"
    r"|(?P<record>[\w*.-]*\.)[ \t]+(?P<ttl>\d{1,10})[ \t]+(?:IN|CH|HS)[ \t]+[A-Z][A-Z0-9]*[ \t]+(?P<data>\S.*)"
    r"|(?P<range> *Range \(min … max\):.* )(?P<runs>\d+) runs"
    r"|(?P<summary> *)(?P<ratio>\d+(?:\.\d+)? ± \d+(?:\.\d+)?) times (?:faster|slower) than .*")
_FORM_VALUE = {"key": "value", "bare": "value", "close": "value", "stat": "count", "record": "ttl", "range": "runs",
               "summary": "ratio"}
_FORM_NAME = {"close": "value", "record": "ttl", "range": "runs", "summary": "times faster"}


@dataclass(frozen=True)
class Keyed:
    """A value and the key that names it: its span in the line, the key as written, and its role."""

    start: int
    end: int
    key: str
    role: Role


def keyed_values(line: str, pins: Pins = NO_PINS) -> list[Keyed]:
    """The values in `line` whose key gives them a role other than plain, left to right, none inside another."""
    if sample := _sample(line, pins):
        return sample
    if _MAY_HOLD.search(line) is None:
        return []
    found: list[Keyed] = []
    lead = _LEAD.match(line)
    if lead is not None and lead.end() < len(line):
        role = role_of(lead["key"], pins)
        if role is not Role.PLAIN:
            end = len(line) if role in (Role.MEASURED, Role.LITERAL) else _value_end(line, lead.end())
            found.append(Keyed(lead.end(), end, lead["key"], role))
    taken = found[0].end if found else 0
    for m in _KEYS.finditer(line, taken):
        value_start = m.end()
        if m.start() < taken or value_start >= len(line):
            continue
        key = m.group(m.lastindex or 0)
        role = role_of(key, pins)
        if role is Role.PLAIN:
            continue
        end = _value_end(line, value_start)
        if end > value_start:
            found.append(Keyed(value_start, end, key, role))
            taken = end
    return found


def _sample(line: str, pins: Pins) -> list[Keyed]:
    """The number a line of one of the `_FORMS` measures, unless its name was pinned `@literal`.

    A DNS record's data (the address, the target) is the answer: it compares as written.
    """
    m = _FORMS.fullmatch(line) if line else None
    if m is None:
        return []
    form = next(g for g in _FORM_VALUE if m[g] is not None)
    group = _FORM_VALUE[form]
    name = _FORM_NAME.get(form) or m[form]
    role = Role.LITERAL if pinned_role(name, pins) is Role.LITERAL else Role.MEASURED
    found = [Keyed(m.start(group), m.end(group), name, role)]
    if form == "record":
        found.append(Keyed(m.start("data"), m.end("data"), "data", Role.LITERAL))
    return found


def _value_end(line: str, at: int) -> int:
    m = _VALUE.match(line, at)
    end = m.end() if m is not None else at
    when = _WHEN.match(line, at)
    return max(end, when.end()) if when is not None else end


def pinnable_names(lines: Sequence[str]) -> set[str]:
    """The column titles and keys in expected lines, folded to lower case: what `@literal` and `@volatile` can pin."""
    normal = normalise("\n".join(lines), tabs=True)
    names = {title.casefold() for part in segments(normal) if isinstance(part, Table) for title in part.titles}
    return names | key_names([line.expandtabs(8) for line in normal])


def key_names(lines: Sequence[str]) -> set[str]:
    """Every key the lines name, folded to lower case: what `@literal` and `@volatile` may pin."""
    names: set[str] = set()
    for line in lines:
        names.update(k.key.casefold() for k in _sample(line, NO_PINS))
        lead = _LEAD.match(line)
        if lead is not None:
            names.add(lead["key"].casefold())
        for m in _KEYS.finditer(line):
            # A word before a number is a key only when its words say what it names (`took 3s`, not `web-0  1/1`).
            if m["word"] is None or name_role(m["word"]) is not Role.PLAIN:
                names.add(m.group(m.lastindex or 0).casefold())
    return names
