"""JSON output compared as data: key order is free, values follow the volatile rules (docs/matching.md)."""
from __future__ import annotations

import json
import re
from collections.abc import Sequence

from .structure import section
from .values import Mismatch
from .volatile import Canon

MAX_DETAILS = 50
_DECODER = json.JSONDecoder()


def json_documents(lines: Sequence[str]) -> list | None:
    """The JSON documents the lines hold one after another (`jq` prints several), or None when they are not JSON."""
    first = next((line.lstrip() for line in lines if line.strip()), "")
    if not first or first[0] not in "{[":  # most output is no JSON: said without joining it
        return None
    text = "\n".join(lines).strip()
    docs, at = [], 0
    try:
        while at < len(text):
            doc, at = _DECODER.raw_decode(text, at)
            docs.append(doc)
            while at < len(text) and text[at] in " \t\n":
                at += 1
    except (ValueError, RecursionError):  # not JSON, or nested deeper than a parser should follow
        return None
    return docs


def compare_json(expected: list, actual: list, canon: Canon, exp_canon: Canon) -> Mismatch | None:
    """None when the documents hold the same data; else each path that differs.

    Raises RecursionError for documents nested deeper than the stack allows; compare them as text.
    """
    found: list[str] = []
    _compare_docs(expected, actual, canon, exp_canon, found)
    if not found:
        return None
    summary = f"JSON differs at {found[0]}" if len(found) == 1 else f"JSON differs in {len(found)} places"
    if len(found) > MAX_DETAILS:
        found[MAX_DETAILS:] = [f"... and {len(found) - MAX_DETAILS} more"]
    return Mismatch(summary, tuple(found))


def _compare_docs(expected: list, actual: list, canon: Canon, exp_canon: Canon, found: list[str]) -> None:
    if len(expected) != len(actual):
        found.append(f"expected {len(expected)} JSON documents, got {len(actual)}")
    for n, (e, a) in enumerate(zip(expected, actual)):
        _walk(e, a, f"[{n}]" if len(expected) > 1 else "", None, canon, exp_canon, found, False)


def _walk(e, a, path: str, key: str | None, canon: Canon, exp_canon: Canon, found: list[str],
          declared: bool) -> None:
    """`declared`: whether the value sits where someone declared it (structure.py), read without forgiving."""
    here = _short(path) or "."
    if isinstance(e, dict) and isinstance(a, dict):
        for k in e:
            if k not in a:
                found.append(f"{_short(path + _step(k))}: missing")
            else:
                _walk(e[k], a[k], path + _step(k), k, canon, exp_canon, found,
                      section(k, declared, _ROOT.fullmatch(path) is not None))
        found.extend(f"{_short(path + _step(k))}: unexpected" for k in a if k not in e)
    elif isinstance(e, list) and isinstance(a, list):
        if len(e) != len(a):
            found.append(f"{here}: expected {len(e)} items, got {len(a)}")
        for i, (x, y) in enumerate(zip(e, a)):
            _walk(x, y, f"{path}[{i}]", None, canon, exp_canon, found, declared)
    elif isinstance(e, str) and isinstance(a, str) or _number(e) and _number(a) and key is not None:
        # A number is read with its key too: `"restartCount": 3` is a measurement, `"replicas": 3` a setting.
        if declared:
            exp_canon, canon = exp_canon.declared(), canon.declared()
        if _canonical(e, key, exp_canon) != _canonical(a, key, canon):
            found.append(f"{here}: expected {json.dumps(e, ensure_ascii=False)}, "
                         f"got {json.dumps(a, ensure_ascii=False)}")
    elif type(e) is not type(a) or e != a:
        found.append(f"{here}: expected {json.dumps(e, ensure_ascii=False)}, got {json.dumps(a, ensure_ascii=False)}")


_ROOT = re.compile(r"(?:\[\d+\])?")  # the path of a document itself, alone or among several
_PLAIN_KEY = re.compile(r"[A-Za-z_][\w-]*")


def _step(key: str) -> str:
    """A key as jq writes it in a path: `.name`, or `["app.kubernetes.io/name"]`."""
    return f".{key}" if _PLAIN_KEY.fullmatch(key) else f"[{json.dumps(key, ensure_ascii=False)}]"


def _short(path: str) -> str:
    return path if len(path) <= 120 else f"{path[:50]}…{path[-60:]}"


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _canonical(value: str | float, key: str | None, canon: Canon) -> str:
    """A value read with its key in front, so `"timeout": "30s"` stays a setting."""
    text = json.dumps(value, ensure_ascii=False)
    if key is not None:
        text = f"{json.dumps(key, ensure_ascii=False)}: {text}"
    return canon.one(text.replace("\n", " "))
