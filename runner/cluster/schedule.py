"""Which workshops must not run at the same time, and so share a shard: those that create the same cluster.

Two files that both run `k3d cluster create demo` collide on one container
engine: the second fails with "a cluster with that name already exists". So
two files clash when they create a cluster of the same name (`k3d cluster
demo`; a kind cluster `demo` is another). A file that creates a cluster whose
name cannot be read before it runs is treated conservatively: it clashes with
every other file that creates clusters, and runs alongside only those that
create none. Pure: claims in, clashes, groups and words out.
"""
from __future__ import annotations

from collections.abc import Sequence

from .planned import ClusterClaims

UNREADABLE = "a cluster whose name cannot be read before it runs"


def clash(a: ClusterClaims, b: ClusterClaims) -> str | None:
    """Why two files may not run at the same time; None when they may."""
    if not (a.creates and b.creates):
        return None
    if a.unreadable or b.unreadable:
        return f"one of them creates {UNREADABLE}"
    shared = sorted(a.names & b.names)
    return f"both create {', '.join(_name(tool, name) for tool, name in shared)}" if shared else None


def _name(tool: str, name: str) -> str:
    return f"{tool} cluster {name}"


def groups(claims: Sequence[ClusterClaims]) -> list[list[int]]:
    """The files linked by clashes (directly or through others), each group in index order, the groups
    in the order of their first file: a union-find over cluster names, linear in the claims."""
    parent = list(range(len(claims)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    def join(a: int, b: int) -> None:
        a, b = root(a), root(b)
        parent[max(a, b)] = min(a, b)

    holder: dict[tuple[str, str], int] = {}
    for index, claim in enumerate(claims):
        for name in claim.names:
            join(holder.setdefault(name, index), index)
    if any(claim.unreadable for claim in claims):
        creating = [index for index, claim in enumerate(claims) if claim.creates]
        for index in creating[1:]:
            join(creating[0], index)
    found: dict[int, list[int]] = {}
    for index in range(len(claims)):
        found.setdefault(root(index), []).append(index)
    return list(found.values())


def serialised(labels: Sequence[str], claims: Sequence[ClusterClaims]) -> list[str]:
    """Why files were kept from running at once, one line per reason, for the summary."""
    by_name: dict[tuple[str, str], list[str]] = {}
    for label, claim in zip(labels, claims):
        for name in sorted(claim.names):
            by_name.setdefault(name, []).append(label)
    lines = [f"{', '.join(files)}: one at a time, each creates {_name(*name)}"
             for name, files in sorted(by_name.items()) if len(files) > 1]
    creating = sum(1 for claim in claims if claim.creates)
    for label, claim in zip(labels, claims):
        if claim.unreadable and creating > 1:
            lines.append(f"{label}: alone among the files that create clusters, since the name at "
                         f"{claim.unreadable[0].loc} cannot be read before it runs")
    return lines
