"""Which workshops must not run at the same time, and so share a shard: those that create the same cluster.

Two files that both run `k3d cluster create demo` collide on one container
engine: the second fails with "a cluster with that name already exists". Each
file holds a lock per cluster it creates (`k3d cluster demo`); files whose locks
meet never run at once. A file that creates a cluster whose name cannot be read
before it runs is treated conservatively: it holds every name any file creates,
and one lock of its own that all such files share, so it runs alongside no
other file that creates clusters. Pure: claims in, locks, groups and words out.
"""
from __future__ import annotations

from collections.abc import Sequence

from .planned import ClusterClaims

UNREADABLE = "a cluster whose name cannot be read before it runs"


def cluster_locks(claims: Sequence[ClusterClaims]) -> list[frozenset[str]]:
    """For each file, the locks it holds while it runs; an empty set for files that create no cluster."""
    every = frozenset(_lock(tool, name) for claim in claims for tool, name in claim.names)
    locks = []
    for claim in claims:
        held = frozenset(_lock(tool, name) for tool, name in claim.names)
        locks.append(held | every | {UNREADABLE} if claim.unreadable else held)
    return locks


def _lock(tool: str, name: str) -> str:
    return f"{tool} cluster {name}"


def groups(locks: Sequence[frozenset[str]]) -> list[list[int]]:
    """The files linked by shared locks (directly or through others), each group in index order, the
    groups in the order of their first file: a union-find over lock names."""
    parent = list(range(len(locks)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    holder: dict[str, int] = {}
    for index, held in enumerate(locks):
        for lock in held:
            if lock in holder:
                a, b = root(holder[lock]), root(index)
                parent[max(a, b)] = min(a, b)
            else:
                holder[lock] = index
    found: dict[int, list[int]] = {}
    for index in range(len(locks)):
        found.setdefault(root(index), []).append(index)
    return list(found.values())


def serialised(labels: Sequence[str], claims: Sequence[ClusterClaims]) -> list[str]:
    """Why files were kept from running at once, one line per reason, for `-v` and the summary."""
    by_name: dict[str, list[str]] = {}
    for label, claim in zip(labels, claims):
        for tool, name in sorted(claim.names):
            by_name.setdefault(_lock(tool, name), []).append(label)
    lines = [f"{', '.join(files)}: one at a time, each creates {lock}"
             for lock, files in sorted(by_name.items()) if len(files) > 1]
    creating = sum(1 for claim in claims if claim.creates)
    for label, claim in zip(labels, claims):
        if claim.unreadable and creating > 1:
            lines.append(f"{label}: alone among the files that create clusters, since the name at "
                         f"{claim.unreadable[0].loc} cannot be read before it runs")
    return lines


def waits_for(index: int, locks: Sequence[frozenset[str]], running: Sequence[int]) -> tuple[int, str] | None:
    """The running file that keeps file `index` waiting, and why; None when nothing does."""
    for other in running:
        shared = locks[index] & locks[other]
        if not shared:
            continue
        if UNREADABLE in locks[index] | locks[other]:
            return other, f"one of them creates {UNREADABLE}"
        return other, f"both create {', '.join(sorted(shared))}"
    return None
