"""check's files as units of work: a shared setup with the workshops that need it, kept apart by cluster names.

A workshop that says `<!-- @needs CREATE.md -->` is checked after CREATE.md, in the
same process, starting from a copy of the kubeconfig CREATE.md left. CREATE.md runs
once for every workshop of the check that needs it, before the first of them; the
clusters it created are deleted once, after the last, also when the check is stopped.
A setup that fails (or is skipped, or cannot be read) skips its dependants with the
reason. Each unit holds the cluster names its files create (runner/cluster/schedule.py):
`-j` never runs two units that share one at a time, and `--shard` keeps them together.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from ..cluster.guard import ClusterOptions, SetupHold
from ..cluster.planned import NO_CLAIMS, ClusterClaims, planned_clusters
from ..cluster.schedule import clash, groups, serialised
from ..config import load_config
from ..discover import shard
from ..engine.signals import interrupts
from ..errors import Aborted, ConfigError, ParseError
from ..model import Kind, Plan
from ..parse.workshop import parse_workshop
from ..results import FileReport, Status, StepResult, Verdict


class Checked(Protocol):
    """check.py's FileCheck, as far as units need it."""

    @property
    def report(self) -> FileReport: ...

    @property
    def stopped(self) -> int | None: ...


C = TypeVar("C", bound=Checked)
Check = Callable[..., C]  # check_file(file, cluster=...), handed in by check.py
Wrap = Callable[[FileReport], C]  # FileCheck(report)


@dataclass(frozen=True)
class Unit:
    """Files checked one after the other in one process: a setup first, then what needs it; or one file."""

    files: tuple[str, ...]
    setup: str | None = None
    claims: ClusterClaims = NO_CLAIMS  # the clusters its files create, together
    problem: str | None = None  # why its files cannot be checked (a setup that needs another)
    plans: tuple[Plan | None, ...] = ()  # what lay_out read of each file, so a file is parsed once

    def plan(self, file: str) -> Plan | None:
        return dict(zip(self.files, self.plans)).get(file)


@dataclass(frozen=True)
class UnitCheck:
    """A unit checked: one FileCheck per file, in order; `stopped`: the signal that cut it short."""

    checks: tuple[Checked, ...]
    stopped: int | None = None


@dataclass(frozen=True)
class Layout:
    """The units of a check, in the order their files were given, and what keeps them apart."""

    units: tuple[Unit, ...]

    @property
    def files(self) -> list[str]:
        return [file for unit in self.units for file in unit.files]

    def clash(self, a: int, b: int) -> str | None:
        """Why units a and b may not run at the same time; None when they may."""
        return clash(self.units[a].claims, self.units[b].claims)

    def shard(self, k: int, n: int) -> Layout:
        """Shard K of N: units that share a cluster name land in one shard, the same on every machine."""
        every = [unit.files[0] for unit in self.units]
        together = [[every[i] for i in group] for group in groups([unit.claims for unit in self.units])]
        mine = set(shard(every, k, n, together=together))
        return Layout(tuple(unit for unit in self.units if unit.files[0] in mine))

    def serialised(self) -> list[str]:
        """Why units were kept from running at once, one line each (for `-v` and the summary)."""
        return serialised([_label(unit) for unit in self.units], [unit.claims for unit in self.units])

    def waiting(self, index: int, running: int) -> str:
        """What `-v` says when unit `index` waits for unit `running`."""
        return f"{_label(self.units[index])} waits for {_label(self.units[running])}: {self.clash(index, running)}"


def _label(unit: Unit) -> str:
    return unit.files[0] if len(unit.files) == 1 else f"{unit.files[0]} (with {len(unit.files) - 1} more)"


def lay_out(files: Sequence[str], *, no_init: bool) -> Layout:
    """Read every file's plan (quietly: check_file reports the problems) and group the files into units."""
    claims: dict[str, ClusterClaims] = {}
    plans: dict[str, Plan | None] = {}
    setup_of: dict[str, str] = {}
    pending = list(files)
    while pending:  # the files given, then the setups they need (which may not be among them)
        file = pending.pop(0)
        if file in claims:
            continue
        plans[file], claims[file] = _read(file, no_init)
        plan = plans[file]
        if plan is not None and plan.needs:
            setup_of[file] = _shown(plan.needs[0].path, file)
            pending.append(setup_of[file])
    units = _units(list(files), setup_of, claims)
    return Layout(tuple(replace(unit, plans=tuple(plans.get(f) for f in unit.files)) for unit in units))


def _units(files: list[str], setup_of: dict[str, str], claims: dict[str, ClusterClaims]) -> Iterator[Unit]:
    done: set[str] = set()
    setups = set(setup_of.values())
    for file in files:
        if file in done:
            continue
        setup = setup_of.get(file) or (file if file in setups else None)
        if setup is None:
            done.add(file)
            yield Unit((file,), None, claims[file])
            continue
        dependants = [f for f in files if setup_of.get(f) == setup and f != setup]
        if setup in setup_of:  # a chain, or a file that needs itself: not run, said why
            why = ("it names itself in @needs" if setup_of[setup] == setup else
                   f"its setup {setup} itself needs {setup_of[setup]}; a setup cannot need another")
            members = [f for f in [setup, *dependants] if f not in done and (f != setup or setup_of[f] == f)]
            done.update(members)
            yield Unit(tuple(members), None, NO_CLAIMS, why)
            continue
        members = [setup, *dependants]
        done.update(members)
        merged = ClusterClaims(frozenset().union(*(claims[f].names for f in members)),
                               tuple(u for f in members for u in claims[f].unreadable))
        yield Unit(tuple(members), setup, merged)


def _read(file: str, no_init: bool) -> tuple[Plan | None, ClusterClaims]:
    """The plan and its clusters; None and no claims for a file check_file will report as broken.

    Only a regular file is read here: reading a pipe (`<(...)`) or a FIFO would take what the
    check itself must read, or wait for a writer.
    """
    if not os.path.isfile(file):
        return None, NO_CLAIMS
    try:
        plan = parse_workshop(file, no_init=no_init)
        env = {**os.environ, **load_config(file).env}
    except (ParseError, ConfigError, OSError):
        return None, NO_CLAIMS
    return plan, planned_clusters(plan, env)


def _shown(path: str, beside: str) -> str:
    """A setup's path as the files given spell theirs: relative when they are."""
    return path if os.path.isabs(beside) else os.path.relpath(path)


def check_units(layout: Layout, jobs: int, *, check: Check[C], wrap: Wrap[C], cluster: ClusterOptions,
                announce: Callable[[str], None], no_init: bool,
                on_wait: Callable[[str], None] | None = None) -> Generator[C, None, None]:
    """Every file's FileCheck, in the layout's order: here one unit after the other, or in worker processes."""
    units = layout.units
    if jobs <= 1 or len(units) <= 1:
        for unit in units:
            yield from _unit_checks(unit, check=check, wrap=wrap, cluster=cluster, announce=announce,
                                    no_init=no_init)
        return
    from .parallel import ordered_map

    def work(unit: Unit) -> UnitCheck:
        return unit_check(unit, check=check, wrap=wrap, cluster=cluster, announce=announce, no_init=no_init)

    def lost(unit: Unit, why: str) -> UnitCheck:
        return UnitCheck(tuple(wrap(FileReport(file, (), 0.0, error=f"{file}: {why}")) for file in unit.files))

    def clashes(a: int, b: int) -> bool:
        return layout.clash(a, b) is not None

    waited = (lambda index, running: on_wait(layout.waiting(index, running))) if on_wait else None
    for done in ordered_map(work, units, jobs, lost, clash=clashes, on_wait=waited):
        yield from done.checks  # type: ignore[attr-defined]  # ordered_map hands back what work returns


def unit_check(unit: Unit, *, check: Check[C], wrap: Wrap[C], cluster: ClusterOptions,
               announce: Callable[[str], None], no_init: bool) -> UnitCheck:
    """A unit checked in a worker process: its FileChecks together, and what stopped it, if anything."""
    checks: list[C] = []
    stopped: Aborted | None = None
    try:
        with interrupts(lambda: None):  # between its files, too, a stop still cleans up
            for done in _unit_checks(unit, check=check, wrap=wrap, cluster=cluster, announce=announce,
                                     no_init=no_init):
                checks.append(done)
                if done.stopped:
                    stopped = Aborted(done.stopped)
                    break
    except Aborted as exc:
        stopped = exc
    if stopped:
        checks += [wrap(FileReport(file, (), 0.0, f"not run: {stopped}")) for file in unit.files[len(checks):]]
    return UnitCheck(tuple(checks), stopped.signum if stopped else None)


def _unit_checks(unit: Unit, *, check: Check[C], wrap: Wrap[C], cluster: ClusterOptions,
                 announce: Callable[[str], None], no_init: bool) -> Iterator[C]:
    """Check a unit's files in order: the setup once, its dependants, then the setup's cleanup once."""
    if unit.problem:
        for file in unit.files:
            yield wrap(FileReport(file, (), 0.0, error=f"{file}: {unit.problem}"))
        return
    if unit.setup is None:
        yield check(unit.files[0], cluster=cluster, plan=unit.plan(unit.files[0]))
        return
    with SetupHold(announce) as hold:
        first = check(unit.setup, cluster=cluster._replace(hold=hold), plan=unit.plan(unit.setup))
        yield first
        if first.stopped:
            return
        reason = setup_failed(unit.setup, first.report)
        seeded = cluster._replace(kubeconfig=hold.kubeconfig) if hold.kubeconfig else cluster
        for file in unit.files[1:]:
            done = wrap(skipped(file, reason, no_init)) if reason else check(file, cluster=seeded,
                                                                             plan=unit.plan(file))
            yield done
            if done.stopped:
                return


def setup_failed(setup: str, report: FileReport) -> str | None:
    """Why the workshops that need `setup` cannot run after it; None when it passed."""
    if report.error:
        return f"its setup {setup} could not be checked: {report.error}"
    if report.skipped_reason and not report.count(Status.PASS):
        return f"its setup {setup} was skipped: {report.skipped_reason}"
    failed = next((r for r in report.results if r.verdict.status is Status.FAIL), None)
    if failed:
        said = failed.verdict.message
        return f"its setup {setup} failed: " + (said if str(failed.step.loc) in said else f"{failed.step.loc}: {said}")
    return None


def skipped(file: str, reason: str, no_init: bool) -> FileReport:
    """The report of a dependant whose setup failed: every command skipped with the reason."""
    try:
        plan = parse_workshop(file, no_init=no_init)
    except ParseError as exc:
        return FileReport(file, (), 0.0, error=str(exc))
    results = tuple(StepResult(s, Verdict(Status.SKIP, reason), None, i)
                    for i, s in enumerate(plan.steps) if s.kind is Kind.COMMAND)
    return FileReport(plan.file, results, 0.0, reason, plan)
