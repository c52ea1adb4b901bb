"""Where a value sits says what it is: declared (spec, data, labels...), or assigned and observed by a server.

In YAML, JSON and `kubectl describe` output a value under `spec:`, `data:`,
`labels:`, `args:`, `env:` or a Certificate's settings is what someone wrote
down: it must come back as written, durations, tokens and hashes included.
A value under `status:`, `metadata.uid`, `managedFields` or `Events:` is what
the server assigned or observed, read by the value kinds as any other text.
The nearest section a line sits in decides (docs/matching.md, "By structure").
"""
from __future__ import annotations

import re
from collections.abc import Sequence

# Sections whose values someone declared (YAML and JSON keys, `describe` titles; case does not matter).
DECLARED = frozenset({
    "spec", "data", "stringdata", "binarydata", "config", "args", "command", "env", "environment", "labels",
    "annotations", "selector", "node-selectors", "nodeselector", "tolerations", "template", "limits", "requests",
    "liveness", "readiness", "startup", "image", "trafficpolicy", "outlierdetection",
})
# Sections that are declared only at the top of an object: `data:` nested elsewhere is a certificate's, a log's.
ROOT_ONLY = frozenset({"spec", "data", "stringdata", "binarydata", "config"})
# Sections the server fills in or observes, even inside a declared one (`spec.nodeName`, `spec.clusterIP`).
ASSIGNED = frozenset({
    "status", "managedfields", "uid", "resourceversion", "creationtimestamp", "generation", "selflink",
    "ownerreferences", "clusterip", "clusterips", "nodeport", "nodename", "volumename", "podip", "podips",
    "hostip", "events", "conditions", "state", "last state", "image id", "imageid", "container id",
    "containerid", "pod-template-hash", "controller-revision-hash", "kubectl.kubernetes.io/restartedat",
    "deployment.kubernetes.io/revision", "kubectl.kubernetes.io/last-applied-configuration",
})
# `key:` at the start of a line (YAML, `describe`), after list dashes; the value may follow.
_KEY = re.compile(r"(?P<indent> *(?:- +)*)\"?(?P<key>[A-Za-z][\w./ -]{0,62}?)\"?:(?: |$)")
# A cheap test that a text has a declared section at all (most output has none).
_ANY_DECLARED = re.compile(r"(?im)^[ -]*\"?(?:" + "|".join(re.escape(k) for k in sorted(DECLARED)) + r")\"?:")


def section(key: str, declared: bool, root: bool = True) -> bool:
    """Whether the values under `key` are declared, given whether its parent's are and whether it is at the top."""
    folded = key.casefold()
    if folded in ASSIGNED:
        return False
    return declared or folded in DECLARED and (root or folded not in ROOT_ONLY)


def declared_lines(lines: Sequence[str]) -> frozenset[int]:
    """The lines whose values were declared: inside a declared section and in no assigned one under it."""
    if len(lines) > 1 and not _ANY_DECLARED.search("\n".join(lines)):
        return frozenset()
    found: set[int] = set()
    stack: list[tuple[int, bool]] = []  # (indent, declared) of the sections the line may sit in
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        m = _KEY.match(line)
        indent = len(m["indent"]) if m else len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else False
        if m is None:
            if parent:
                found.add(i)
            continue
        here = section(m["key"].strip(), parent, not stack)
        stack.append((indent, here))
        if here:
            found.add(i)
    return frozenset(found)
