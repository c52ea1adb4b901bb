"""`demorun check`: run workshops in CI, check statuses and `##` output, report, update."""
from __future__ import annotations

import dataclasses
import functools
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager, nullcontext, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import click

from ..cluster.guard import ClusterGuard, ClusterOptions, parallel_sweep
from ..cluster.planned import with_called_tools
from ..config import Config, load_config
from ..discover import Choice, find_workshops, not_workshops, scripts_below
from ..engine.authoring import ENDLESS_LIMIT, shell_at_failure
from ..engine.core import Engine
from ..engine.listener import Listener
from ..engine.sections import left_out_line, narrow
from ..engine.signals import interrupts
from ..errors import Aborted, ConfigError, DemorunError, ParseError
from ..model import Finding, Kind, Plan, SourceLoc
from ..printable import visible
from ..report.plain import kept_for_reports
from ..report.progress import Progress
from ..report.summary import file_progress_lines, file_status, render_summary
from ..results import FileReport, RunReport, Status, StepResult, Verdict
from ..secrets import UNREAD, Redactor, masked_as_shown, withhold_unread
from ..terminal.screen import color_wanted
from ..verify.command import verify_command
from ..verify.normalise import normalise
from ..verify.roles import Pins
from ..verify.values import VerifyOptions
from .engine_setup import CHECK, announce, policy_for, verify_options
from .missing_tools import explained
from .preamble import check_findings, nothing_to_run, said_before
from .setup import (
    load_plan,
    missing_requirements,
    open_session,
)
from .units import Layout, check_units, lay_out
from .update import OutputEdit, read_fingerprints, update_outputs, update_roots

if TYPE_CHECKING:
    from .accept import Asker


@dataclass(frozen=True)
class FileCheck:
    """One file checked: its report, the secret values its session held, and its configuration."""

    report: FileReport
    secrets: frozenset[str] = frozenset()
    config: Config | None = None  # None when it could not be read
    fingerprints: dict[str, str] = field(default_factory=dict)  # of the files parsed, when updating
    stopped: int | None = None  # the signal that stopped the run while this file ran
    said: bool = False  # its lint errors were shown as it started


def check_file(file: str, *, no_init: bool, fail_fast: bool, timeout: float | None,
               update: bool = False, cluster: ClusterOptions | None = None, verbose: bool = False,
               progress: bool = True, strict: bool = False, explain: bool = True,
               plan: Plan | None = None, sections: tuple[str | None, str | None] = (None, None),
               pause: bool = False) -> FileCheck:
    """Parse, configure and check one workshop in a session of its own.

    The one unit the serial loop, the parallel workers and the pytest plugin share.
    A file that cannot be parsed or configured becomes a report in error, so it
    never stops the others. With `update`, the files parsed are fingerprinted
    right away, so --update never writes over an edit made during the run.
    `progress` shows which command runs and lint's errors as it starts (off in worker
    processes: only the main one writes). `strict` counts skips and an empty file as
    failures (lint errors fail a file always). `explain` collects the values forgiven, for the reports that show them.
    `plan`: the file as check's layout read it, parsed once (not with `update`: what is written
    must be what is fingerprinted now). `sections`: --from and --to headings (runner/engine/sections.py).
    `pause`: the workshop's shell at each failure, for the person at the terminal (--pause-on-failure).
    """
    narrowed = None
    try:
        plan = load_plan(file, no_init=no_init, parsed=None if update else plan)
        config = load_config(file)
        fingerprints = read_fingerprints({s.loc.file for s in plan.steps}) if update else {}
        if any(sections) and not (cluster and cluster.hold):  # a setup (@needs) runs whole
            narrowed = narrow(plan, *sections)
            plan = narrowed.plan
    except (ParseError, ConfigError) as exc:
        return FileCheck(FileReport(file, (), 0.0, error=str(exc), strict=strict))
    except DemorunError as exc:  # a section asked for that the file does not have
        return FileCheck(FileReport(file, (), 0.0, error=str(exc), strict=strict))
    findings = check_findings(plan)
    empty = nothing_to_run(plan)
    if empty is not None:  # nothing to start a session for; the caller says so, or leaves it out of a folder
        return FileCheck(FileReport(plan.file, (), 0.0, plan=plan, empty=empty, findings=findings, strict=strict),
                         config=config)
    if progress and findings:
        _say_before(plan.file, findings)
    checked = _check_plan(plan, config, fingerprints, fail_fast=fail_fast, timeout=timeout, cluster=cluster,
                          verbose=verbose, progress=progress, explain=explain, update=update,
                          strict=strict, pause=pause)
    report = dataclasses.replace(checked.report, findings=findings, strict=strict)
    narrowing = left_out_line(narrowed, report.results) if narrowed else None
    if narrowing:
        report = dataclasses.replace(report, notices=(*report.notices, (SourceLoc(plan.file, 1), narrowing)))
    return dataclasses.replace(checked, report=skips_failed(report) if strict else report,
                               said=progress or not findings)


def _check_plan(plan: Plan, config: Config, fingerprints: dict[str, str], *, fail_fast: bool,
                timeout: float | None, cluster: ClusterOptions | None, verbose: bool, progress: bool,
                explain: bool, update: bool, strict: bool = False, pause: bool = False) -> FileCheck:
    """Run the commands of a parsed, configured workshop (or skip them, when the machine lacks a tool)."""
    started = time.monotonic()
    cluster = cluster or ClusterOptions()
    skipped = requirement_skips(with_called_tools(plan) if cluster.auto_requires else plan, cluster.requires, config)
    if skipped is not None:
        return FileCheck(skipped, config=config, fingerprints=fingerprints)
    shown = Progress(verbose=verbose) if progress else None
    # Progress ends before the cluster cleanup in `checking` starts, so their lines never mix.
    stopped = None
    live: dict[str, Engine] = {}  # for the signal handlers, once there is an engine
    # The handlers cover the session's closing too: its EXIT traps get their time after a stop.
    with interrupts(lambda: live["engine"].session if live else None, where=lambda: _running(live)), \
            checking(plan, config, fail_fast=fail_fast, timeout=timeout, cluster=cluster,
                     listeners=[shown] if shown else [], explain=explain, strict=strict,
                     read_ahead=False if pause else None) as engine, \
            shown or nullcontext():
        live["engine"] = engine
        if pause:
            engine.pause_on_failure = shell_at_failure(engine.session, lambda text: _echo(f"demorun: {text}"))
        try:
            results = engine.run_all()
        except Aborted as exc:  # still a report: what ran, the stopped command, the rest skipped
            stopped = exc
            results = engine.skip_rest(str(exc))
        redactor = engine.redactor()
        results = withhold_unread(results, engine.secrets)
    results = [explained(result, plan) for result in results]
    if not update:  # what reports show is all that is kept of each output (--update needs it whole)
        results = [kept_for_reports(result, redactor.spans) for result in results]
    report = FileReport(plan.file, tuple(results), time.monotonic() - started, None, plan,
                        notices=tuple(engine.notices), interrupted=str(stopped) if stopped else None)
    return FileCheck(report, redactor.secrets, config, fingerprints, stopped.signum if stopped else None)


def _say_before(file: str, findings: Sequence[Finding], *, done: bool = False) -> None:
    """A file's lint errors on stderr, as it starts, or (`done`) with its result when they were not said then."""
    goes_on = f"the check {'ran' if done else 'runs'} the file and fails it on them (run and present go on)"
    for line in said_before(file, findings, None, goes_on=goes_on):
        _echo(line, err=True)


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
    return FileReport(plan.file, skipped, 0.0, reason, plan, hints=tuple(gap.line() for gap in missing.gaps))


@contextmanager
def checking(plan: Plan, config: Config, *, fail_fast: bool, timeout: float | None,
             listeners: Sequence[Listener] = (), cluster: ClusterOptions | None = None,
             explain: bool = True, strict: bool = False, read_ahead: bool | None = None) -> Iterator[Engine]:
    """An engine with check's policy on a fresh session for `plan`, closed on the way out.

    The session has its own KUBECONFIG, and clusters it creates are deleted after it has ended.
    A command that never ends by itself gets ENDLESS_LIMIT (or fails at once, `strict`).
    """
    policy = policy_for(CHECK, config, timeout=timeout, keep_going=not fail_fast, collect_forgiven=explain,
                        endless_limit=ENDLESS_LIMIT, endless_fail=strict)
    with ClusterGuard(plan, cluster or ClusterOptions(), config_env=config.env, announce=announce) as guard, \
            open_session(plan.file, [], config, timeout=policy.default_timeout, extra_env=guard.env,
                         read_ahead=read_ahead) as session:
        guard.attach(session)
        yield Engine(plan, session, policy=policy, listeners=[*listeners, *guard.listeners])


def run_check(paths: list[str], *, fail_fast: bool, strict: bool, junit: str | None, html: str | None,
              update: bool, show_diff: bool, timeout: float | None, no_init: bool,
              jobs: int = 1, shard: tuple[int, int] | None = None,
              cluster: ClusterOptions | None = None, verbose: bool = False, json_path: str | None = None,
              sections: tuple[str | None, str | None] = (None, None), interactive: bool = False,
              pause_on_failure: bool = False, exclude: Sequence[str] = ()) -> int:
    """Check every workshop under `paths` (in `jobs` processes, or shard K of N); see the README for exit codes.
    `interactive`: each differing `##` block is shown with its diff and written only if accepted."""
    _writable(junit, html, json_path)
    ask, pause = _asker() if interactive else None, pause_on_failure and _can_pause(jobs)
    update = update or ask is not None
    cluster = cluster or ClusterOptions()
    if jobs > 1:
        # A cluster appearing while several files run may be any one's: only named ones are claimed.
        cluster = cluster._replace(unnamed=False)
    found = _find(paths, exclude, verbose)
    named = {file for file, given in found if given}
    layout = _lay_out([file for file, _ in found], shard, no_init=no_init)
    files = layout.files  # the setups they need too, and only this shard's
    started = time.monotonic()
    checks: list[FileCheck] = []
    secrets: set[str] = set()
    sweep = parallel_sweep(cluster, announce) if jobs > 1 else nullcontext()
    aborted: Aborted | None = None
    # Between files no command runs: a Ctrl-C there, SIGTERM or SIGHUP stop the run at once.
    with interrupts(lambda: None):
        try:
            one = functools.partial(check_file, no_init=no_init, fail_fast=fail_fast, timeout=timeout,
                                    update=update, verbose=verbose, progress=jobs <= 1, strict=strict,
                                    explain=verbose or bool(html or json_path), sections=sections, pause=pause)
            with sweep, closing(check_units(layout, jobs, check=one, wrap=FileCheck, cluster=cluster,
                                            announce=announce, no_init=no_init,
                                            on_wait=announce if verbose else None)) as results:
                for check in results:
                    if check.report.empty is not None and check.report.file not in named:
                        if verbose:
                            _echo(f"demorun: {check.report.file}: not a workshop: {check.report.empty}", err=True)
                        continue
                    checks.append(check)
                    secrets |= check.secrets
                    _progress(check, Redactor(secrets), update)
                    if check.stopped:
                        aborted = Aborted(check.stopped)
                        if jobs <= 1:
                            break  # a parallel check still hands over what its other workers had done
                    if fail_fast and file_status(check.report) is Status.FAIL:
                        break
        except Aborted as exc:
            aborted = exc
        if not checks and files and not aborted:
            raise ParseError(f"no workshops in {', '.join(map(repr, paths))}: the {len(files)} file(s) with a "
                             "bash fence have no command in it (-v says why for each)")
        reports = [c.report for c in checks]
        if aborted:
            done = {r.file for r in reports}
            reports += [FileReport(f, (), 0.0, f"not run: {aborted}") for f in files if f not in done]
            reports.sort(key=lambda r: files.index(r.file) if r.file in files else len(files))
        redact = Redactor(secrets)
        problems: list[DemorunError] = []
        if update and not aborted:
            try:
                reports, problems = _update(reports, checks, redact, show_diff=show_diff, roots=paths, ask=ask)
            except Aborted as exc:  # each file is written whole or not at all; the reports say what was checked
                aborted = exc
        run = RunReport(tuple(reports), time.monotonic() - started)
        # Reports first: after SIGHUP nobody may be reading the terminal.
        _write_artefacts(run, redact, junit=junit, html=html, json_path=json_path)
        _echo(render_summary(run, redact, color=color_wanted(sys.stdout), verbose=verbose), nl=False)
        if jobs > 1 and layout.serialised():
            _echo(redact("\n  ".join(["not run at the same time (docs/ci.md):", *layout.serialised()])))
    if aborted:
        written = ", ".join(a for a in (junit, html, json_path) if a)
        _echo(f"demorun: {aborted}" + (f"; reports written: {written}" if written else ""), err=True)
        return aborted.exit_code
    if problems:
        first = problems[0]
        raise type(first)("\n".join(str(p) for p in problems)) if len(problems) > 1 else first
    return exit_code(reports)


def exit_code(reports: Sequence[FileReport]) -> int:
    """2 for a file in error, 1 for a failing one, 3 when the machine could run none, else 0 (README)."""
    if any(f.error for f in reports):
        return 2
    if any(file_status(f) is Status.FAIL for f in reports):
        return 1
    skipped = [f for f in reports if f.skipped_reason]
    if skipped and len(skipped) == len(reports):
        return 3
    return 0


def _lay_out(files: list[str], shard: tuple[int, int] | None, *, no_init: bool) -> Layout:
    """Setups with their dependants, and who creates which cluster; only shard K of N's, with --shard."""
    layout = lay_out(files, no_init=no_init)
    if shard is not None:
        every = len(layout.files)
        layout = layout.shard(*shard)
        click.echo(f"shard {shard[0]}/{shard[1]}: {len(layout.files)} of {every} file(s)")
    return layout


def _find(paths: list[str], exclude: Sequence[str], verbose: bool) -> list[tuple[str, bool]]:
    """The workshops to check (docs/ci.md#which-files); with -v, each file a folder gave and why."""
    chosen: list[Choice] = []
    try:
        found = find_workshops(paths, scripts=False, exclude=exclude, said=chosen)
        _say_left_out(paths, verbose, {file for file, _ in found})
    except ParseError:  # no workshop in a folder: -v says why for each file, before the error
        _say_left_out(paths, verbose, set())
        raise
    finally:
        if verbose:
            for choice in chosen:
                _echo(visible(f"demorun: {choice.file}: {'taken' if choice.taken else 'left out'}: {choice.why}"),
                      err=True)
    return found


def _say_left_out(paths: list[str], verbose: bool, taken: set[str]) -> None:
    """What the folders hold besides workshops: scripts, counted; with -v, Markdown with nothing to run."""
    left_out = [file for file in scripts_below(paths) if file not in taken]
    if left_out:
        click.echo(f"demorun: {len(left_out)} .sh file(s) below the folders given are not run "
                   f"(helpers and setup scripts, mostly); name a script to check it", err=True)
    if verbose:
        from ..parse.empty import nothing_to_run as why
        from ..parse.source import read_source, split_lines

        for file in not_workshops(paths):
            try:
                reason = why(split_lines(read_source(file, regular=True)), markdown=True)
            except ParseError as exc:
                reason = exc.message
            _echo(f"demorun: {file}: not a workshop: {reason}", err=True)


def _progress(check: FileCheck, redact: Redactor, update: bool) -> None:
    """A file's line as it finishes, after its lint errors when they were not said as it started;
    with --update, how many of its blocks are to be written once every file is checked."""
    report = check.report
    if not check.said and report.findings:
        _say_before(report.file, report.findings, done=True)
    fixable: list[StepResult] = []
    if update and check.config is not None:
        options = verify_options(check.config)
        fixable = [r for r in report.results if _edit_for(r, options, redact) is not None]
    # The blocks to be written count as updated, not failed, as the summary counts them once written.
    shown = report
    if fixable:
        fixed = {id(r) for r in fixable}
        shown = dataclasses.replace(report, results=tuple(
            dataclasses.replace(r, verdict=dataclasses.replace(r.verdict, status=Status.UPDATED))
            if id(r) in fixed else r for r in report.results))
    lines = file_progress_lines(shown)
    if fixable:
        lines[0] += f"  ({len(fixable)} ## block(s) out of date)"
        if file_status(shown) is not Status.FAIL:  # its word comes once written: UPDATED, or FAIL if refused
            lines[0] = "checked " + lines[0].split(" ", 1)[1]
    _echo(redact("\n".join(lines)))


def skips_failed(report: FileReport) -> FileReport:
    """--strict: every skipped command is a failure, so the console, the reports and the exit code agree."""
    results = tuple(
        dataclasses.replace(r, verdict=Verdict(
            Status.FAIL, f"{r.verdict.message} (skipped: --strict counts this as a failure)", r.verdict.details))
        if r.verdict.status is Status.SKIP else r
        for r in report.results)
    return dataclasses.replace(report, results=results)


def _writable(*artefacts: str | None) -> None:
    """Each report asked for can be written, before anything runs."""
    from ..files import check_writable

    for artefact in artefacts:
        if artefact:
            check_writable(artefact)


def _asker() -> Asker:
    """check --interactive's questions at the terminal; a usage error without one: nobody could answer."""
    from .accept import Asker

    return Asker.on_terminal()


def _can_pause(jobs: int) -> bool:
    """Whether --pause-on-failure can hand the shell to someone; if not, says why, and the check goes on without."""
    from ..engine.authoring import no_terminal_reason

    reason = "-j runs files in other processes" if jobs > 1 else no_terminal_reason()
    if reason:
        _echo(f"demorun: --pause-on-failure: {reason}, so there is nobody to hand the shell to; "
              "going on as without it", err=True)
    return reason is None

def _echo(text: str, **kwargs) -> None:
    with suppress(OSError):  # the terminal hung up: the reports are written, the exit code tells
        click.echo(text, **kwargs)


def _write_artefacts(run: RunReport, redact: Redactor, *, junit: str | None, html: str | None,
                     json_path: str | None = None) -> None:
    if junit:
        from ..report.junit import write_junit

        write_junit(run, junit, redact)
    if html:
        from ..report.html import write_html

        write_html(run, html, redact)
    if json_path:
        from ..report.run_json import write_run_json

        write_run_json(run, json_path, redact)
    from ..report.annotations import github_annotations, in_github_actions

    if in_github_actions():
        for line in github_annotations(run, redact):
            click.echo(line)


def _update(reports: list[FileReport], checks: list[FileCheck], redact: Redactor, *,
            show_diff: bool, roots: list[str], ask: Asker | None = None) -> tuple[list[FileReport], list[DemorunError]]:
    """Write real output back as `##` lines, secrets as ***: the reports with what was written as
    UPDATED, and the files that could not be written (each file on its own: one never stops another).

    Only inside the folder trees given (`roots`) and never an init file; a block its command
    filled differently on two runs is said and not written (runner/modes/update.py)."""
    configs = {c.report.file: c.config for c in checks if c.config is not None}
    fingerprints = {file: print_ for c in checks for file, print_ in c.fingerprints.items()}
    proposed = []
    for report in reports:
        if report.error or report.file not in configs:
            continue
        options = verify_options(configs[report.file])
        for result in report.results:
            edit = _edit_for(result, options, redact)
            if edit is not None:
                proposed.append((result.step, report.file, edit))
    if ask is not None:  # check --interactive: only the blocks accepted one by one
        proposed = ask.choose(proposed, redact)
    done, problems = update_outputs(
        proposed, fingerprints, roots=update_roots(roots), show_diff=show_diff,
        echo=lambda text: click.echo(visible(redact(text)), nl=False),
        refuse=lambda text: click.echo(visible(redact(f"demorun: {text}")), err=True))
    if show_diff:
        return reports, problems
    return [dataclasses.replace(r, results=tuple(_updated(x, done) for x in r.results)) for r in reports], problems


def _updated(result: StepResult, done: set[tuple[str, int]]) -> StepResult:
    """UPDATED for a command whose `##` block was written, saying where."""
    step = result.step
    if (step.loc.file, step.end_line or step.loc.line) not in done:
        return result
    said = f"## block at {step.expected.loc} rewritten with the real output" if step.expected \
        else "its output written under it as a ## block"
    return dataclasses.replace(result, verdict=Verdict(Status.UPDATED, f"{step.loc}: {said}"))


def _edit_for(result: StepResult, options: VerifyOptions, redact: Redactor) -> OutputEdit | None:
    """An edit for a command that ran with an acceptable status but whose output differs or is unrecorded."""
    step, outcome = result.step, result.outcome
    if outcome is None or step.modifiers.expect == "ignore" or (outcome.timed_out and not outcome.stopped):
        return None
    if outcome.output == UNREAD:  # withheld: what it printed could not be masked
        return None
    if not verify_command(step._replace(expected=None), outcome, options=options).passed:
        return None
    if step.expected is None:
        if not normalise(outcome.output):
            return None
    elif result.verdict.passed:  # its status is fine (above), so only the output can have failed
        return None
    m = step.modifiers
    return OutputEdit(step.end_line or step.loc.line, step.expected, masked_as_shown(outcome.output, redact),
                      expect=m.expect, masks=m.masks, pins=Pins.of(m.literal, m.volatile))
