"""`demorun check`: run workshops in CI, check statuses and `##` output, report, update."""
from __future__ import annotations

import dataclasses
import functools
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager, nullcontext, suppress
from dataclasses import dataclass, field

import click

from ..cluster.guard import ClusterGuard, ClusterOptions, parallel_sweep
from ..config import Config, load_config
from ..discover import find_workshops, scripts_below
from ..discover import shard as shard_files
from ..engine.core import Engine, Policy
from ..engine.listener import Listener
from ..engine.signals import interrupts
from ..errors import Aborted, ConfigError, DemorunError, ParseError
from ..model import Kind, Plan
from ..printable import visible
from ..report.plain import kept_for_reports
from ..report.progress import Progress
from ..report.summary import file_progress_lines, file_status, render_summary
from ..results import FileReport, RunReport, Status, StepResult, Verdict
from ..secrets import UNREAD, Redactor, masked_as_shown, withhold_unread
from ..terminal.screen import color_wanted
from ..verify.command import verify_command
from ..verify.normalise import normalise
from ..verify.values import VerifyOptions
from .setup import (
    effective_timeout,
    load_plan,
    missing_requirements,
    open_session,
)
from .update import OutputEdit, read_fingerprints, update_outputs, update_roots


@dataclass(frozen=True)
class FileCheck:
    """One file checked: its report, the secret values its session held, and its configuration."""

    report: FileReport
    secrets: frozenset[str] = frozenset()
    config: Config | None = None  # None when it could not be read
    fingerprints: dict[str, str] = field(default_factory=dict)  # of the files parsed, when updating
    stopped: int | None = None  # the signal that stopped the run while this file ran


def check_file(file: str, *, no_init: bool, fail_fast: bool, timeout: float | None,
               update: bool = False, cluster: ClusterOptions | None = None, verbose: bool = False,
               progress: bool = True) -> FileCheck:
    """Parse, configure and check one workshop in a session of its own.

    The one unit the serial loop, the parallel workers and the pytest plugin share.
    A file that cannot be parsed or configured becomes a report in error, so it
    never stops the others. With `update`, the files parsed are fingerprinted
    right away, so --update never writes over an edit made during the run.
    `progress` shows which command runs (off in worker processes: only the main one writes).
    """
    try:
        plan = load_plan(file, no_init=no_init)
        config = load_config(file)
        fingerprints = read_fingerprints({s.loc.file for s in plan.steps}) if update else {}
    except (ParseError, ConfigError) as exc:
        return FileCheck(FileReport(file, (), 0.0, error=str(exc)))
    started = time.monotonic()
    cluster = cluster or ClusterOptions()
    skipped = requirement_skips(plan, cluster.requires, config)
    if skipped is not None:
        return FileCheck(skipped, config=config, fingerprints=fingerprints)
    shown = Progress(verbose=verbose) if progress else None
    # Progress ends before the cluster cleanup in `checking` starts, so their lines never mix.
    stopped = None
    live: dict[str, Engine] = {}  # for the signal handlers, once there is an engine
    # The handlers cover the session's closing too: its EXIT traps get their time after a stop.
    with interrupts(lambda: live["engine"].session if live else None, where=lambda: _running(live)), \
            checking(plan, config, fail_fast=fail_fast, timeout=timeout, cluster=cluster,
                     listeners=[shown] if shown else []) as engine, \
            shown or nullcontext():
        live["engine"] = engine
        if shown:
            shown.mask_with(engine.secrets)  # seen so far; asks nobody mid-command
        try:
            results = engine.run_all()
        except Aborted as exc:  # still a report: what ran, the stopped command, the rest skipped
            stopped = exc
            results = engine.skip_rest(str(exc))
        redactor = engine.redactor()
        results = withhold_unread(results, engine.secrets)
    if not update:  # what reports show is all that is kept of each output (--update needs it whole)
        results = [kept_for_reports(result, redactor.spans) for result in results]
    report = FileReport(plan.file, tuple(results), time.monotonic() - started, None, plan,
                        notices=tuple(engine.notices), interrupted=str(stopped) if stopped else None)
    return FileCheck(report, redactor.secrets, config, fingerprints, stopped.signum if stopped else None)


def _running(live: dict[str, Engine]) -> str | None:
    """file:line of the command running now, for the Ctrl-C message."""
    engine = live.get("engine")
    return engine.running() if engine else None


def requirement_skips(plan: Plan, requires: Sequence[str] = (), config: Config | None = None) -> FileReport | None:
    """The report of a file the machine cannot run (a tool, a container engine): every command skipped."""
    missing = missing_requirements(plan, requires, config)
    if not missing:
        return None
    reason = missing.summary()
    skipped = tuple(StepResult(s, Verdict(Status.SKIP, reason), None, i)
                    for i, s in enumerate(plan.steps) if s.kind is Kind.COMMAND)
    return FileReport(plan.file, skipped, 0.0, reason, plan)


@contextmanager
def checking(plan: Plan, config: Config, *, fail_fast: bool, timeout: float | None,
             listeners: Sequence[Listener] = (), cluster: ClusterOptions | None = None) -> Iterator[Engine]:
    """An engine with check's policy on a fresh session for `plan`, closed on the way out.

    The session has its own KUBECONFIG, and clusters it creates are deleted after it has ended.
    """
    limit = effective_timeout(timeout, config)
    policy = Policy(check_output=True, keep_going=not fail_fast, run_hooks=False, default_timeout=limit,
                    verify=_verify_options(config), secret_names=config.secrets)
    with ClusterGuard(plan, cluster or ClusterOptions(), config_env=config.env, announce=_announce) as guard, \
            open_session(plan.file, [], config, timeout=limit, extra_env=guard.env) as session:
        guard.attach(session)
        yield Engine(plan, session, policy=policy, listeners=[*listeners, *guard.listeners])


def run_check(paths: list[str], *, fail_fast: bool, strict: bool, junit: str | None, html: str | None,
              update: bool, show_diff: bool, timeout: float | None, no_init: bool,
              jobs: int = 1, shard: tuple[int, int] | None = None,
              cluster: ClusterOptions | None = None, verbose: bool = False) -> int:
    """Check every workshop under `paths` (in `jobs` processes, or shard K of N); see the README for exit codes."""
    from ..files import check_writable

    cluster = cluster or ClusterOptions()
    if verbose and jobs > 1:
        raise DemorunError("-v streams one command at a time; it does not go with -j")
    if jobs > 1:
        # A cluster appearing while several files run may be any one's: only named ones are claimed.
        cluster = dataclasses.replace(cluster, unnamed=False)

    for artefact in (junit, html):
        if artefact:
            check_writable(artefact)
    files = [file for file, _ in find_workshops(paths, scripts=False)]
    left_out = scripts_below(paths)
    if left_out:
        click.echo(f"demorun: {len(left_out)} .sh file(s) below the folders given are not run "
                   f"(helpers and setup scripts, mostly); name a script to check it", err=True)
    if shard is not None:
        every = len(files)
        files = shard_files(files, *shard)
        click.echo(f"shard {shard[0]}/{shard[1]}: {len(files)} of {every} file(s)")
    started = time.monotonic()
    checks: list[FileCheck] = []
    secrets: set[str] = set()
    sweep = parallel_sweep(cluster, _announce) if jobs > 1 else nullcontext()
    aborted: Aborted | None = None
    # Between files no command runs: a Ctrl-C there, SIGTERM or SIGHUP stop the run at once.
    with interrupts(lambda: None):
        try:
            with sweep, closing(_checks(files, jobs, no_init=no_init, fail_fast=fail_fast, timeout=timeout,
                                        update=update, cluster=cluster, verbose=verbose,
                                        progress=jobs <= 1)) as results:
                for check in results:
                    if strict:
                        check = dataclasses.replace(check, report=skips_failed(check.report))
                    checks.append(check)
                    secrets |= check.secrets
                    _echo(Redactor(secrets)("\n".join(file_progress_lines(check.report))))
                    if check.stopped:
                        aborted = Aborted(check.stopped)
                        break
                    if fail_fast and file_status(check.report) is Status.FAIL:
                        break
        except Aborted as exc:
            aborted = exc
        reports = [c.report for c in checks]
        if aborted:
            done = {r.file for r in reports}
            reports += [FileReport(f, (), 0.0, f"not run: {aborted}") for f in files if f not in done]
        run = RunReport(tuple(reports), time.monotonic() - started)
        redact = Redactor(secrets)
        # Reports first: after SIGHUP nobody may be reading the terminal.
        _write_artefacts(run, redact, junit=junit, html=html)
        _echo(render_summary(run, redact, color=color_wanted(sys.stdout)), nl=False)
    if aborted:
        written = ", ".join(a for a in (junit, html) if a)
        _echo(f"demorun: {aborted}" + (f"; reports written: {written}" if written else ""), err=True)
        return aborted.exit_code

    unfixed = {(r.step.loc.file, r.step.loc.line) for f in reports for r in f.results
               if r.verdict.status is Status.FAIL}
    if update:
        configs = {c.report.file: c.config for c in checks if c.config is not None}
        fingerprints = {file: print_ for c in checks for file, print_ in c.fingerprints.items()}
        unfixed -= _update([r for r in reports if not r.error], configs, redact, fingerprints,
                           show_diff=show_diff, roots=paths)
    skipped_files = [f for f in reports if f.skipped_reason]
    if any(f.error for f in reports):
        return 2
    if unfixed:
        return 1
    if skipped_files and len(skipped_files) == len(reports):
        return 3
    return 0


def skips_failed(report: FileReport) -> FileReport:
    """--strict: every skipped command is a failure, so the console, the reports and the exit code agree."""
    results = tuple(
        dataclasses.replace(r, verdict=Verdict(
            Status.FAIL, f"{r.verdict.message} (skipped: --strict counts this as a failure)", r.verdict.details))
        if r.verdict.status is Status.SKIP else r
        for r in report.results)
    return dataclasses.replace(report, results=results)


def _checks(files: list[str], jobs: int, **options) -> Iterator[FileCheck]:
    """Each file checked, in the files' order: here one by one, or by worker processes."""
    if jobs <= 1 or len(files) <= 1:
        return (check_file(file, **options) for file in files)
    from .parallel import ordered_map

    def lost(file: str, why: str) -> FileCheck:
        return FileCheck(FileReport(file, (), 0.0, error=f"{file}: {why}"))

    return ordered_map(functools.partial(check_file, **options), files, jobs, lost)


def _announce(message: str) -> None:
    click.echo(visible(f"demorun: {message}"), err=True)  # cluster names come from workshop commands


def _echo(text: str, **kwargs) -> None:
    with suppress(OSError):  # the terminal hung up: the reports are written, the exit code tells
        click.echo(text, **kwargs)


def _verify_options(config: Config) -> VerifyOptions:
    return VerifyOptions(masks=config.masks, volatile_columns=config.volatile_columns)


def _write_artefacts(run: RunReport, redact: Redactor, *, junit: str | None, html: str | None) -> None:
    if junit:
        from ..report.junit import write_junit

        write_junit(run, junit, redact)
    if html:
        from ..report.html import write_html

        write_html(run, html, redact)
    from ..report.annotations import github_annotations, in_github_actions

    if in_github_actions():
        for line in github_annotations(run, redact):
            click.echo(line)


def _update(reports: list[FileReport], configs: dict[str, Config], redact: Redactor,
            fingerprints: dict[str, str], *, show_diff: bool, roots: list[str]) -> set[tuple[str, int]]:
    """Write real output back as `##` lines, secrets as ***; the failures this fixed, as (file, line)."""
    proposed = []
    for report in reports:
        options = _verify_options(configs[report.file])
        for result in report.results:
            edit = _edit_for(result, options, redact)
            if edit is not None:
                proposed.append((result.step, report.file, edit))
    fixed = update_outputs(proposed, fingerprints, roots=update_roots(roots), show_diff=show_diff,
                           echo=lambda text: click.echo(visible(redact(text)), nl=False),
                           refuse=lambda text: click.echo(visible(redact(f"demorun: {text}")), err=True))
    return set() if show_diff else fixed


def _edit_for(result: StepResult, options: VerifyOptions, redact: Redactor) -> OutputEdit | None:
    """An edit for a command that ran with an acceptable status but whose output differs or is unrecorded."""
    step, outcome = result.step, result.outcome
    if outcome is None or step.modifiers.expect == "ignore" or (outcome.timed_out and not outcome.stopped):
        return None
    if outcome.output == UNREAD:  # withheld: what it printed could not be masked
        return None
    if not verify_command(dataclasses.replace(step, expected=None), outcome, options=options).passed:
        return None
    if step.expected is None:
        if not normalise(outcome.output):
            return None
    elif result.verdict.passed:  # its status is fine (above), so only the output can have failed
        return None
    return OutputEdit(step.end_line or step.loc.line, step.expected, masked_as_shown(outcome.output, redact),
                      mode=step.modifiers.expect, masks=step.modifiers.masks)
