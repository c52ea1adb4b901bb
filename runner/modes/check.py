"""`demorun check`: run workshops in CI, check statuses and `##` output, report, update."""
from __future__ import annotations

import dataclasses
import sys
import time

import click

from ..config import Config, load_config
from ..discover import find_workshops
from ..engine import Engine, Policy, interrupts
from ..errors import DemorunError, ParseError
from ..model import FileReport, Kind, Plan, RunReport, Status, StepResult, Verdict
from ..present.screen import color_wanted
from ..report.summary import file_progress_line, render_summary
from ..secrets import Redactor
from ..verify import VerifyOptions, normalise, verify_command
from .setup import (
    effective_timeout,
    load_plan,
    missing_requirements,
    open_session,
    requirement_message,
)
from .update import OutputEdit, apply_updates, read_fingerprints


def run_check(paths: list[str], *, fail_fast: bool, strict: bool, junit: str | None, html: str | None,
              update: bool, show_diff: bool, timeout: float | None, no_init: bool) -> int:
    """Check every workshop under `paths`; see the README for the exit codes."""
    from ..files import check_writable

    for artefact in (junit, html):
        if artefact:
            check_writable(artefact)
    files = [file for file, _ in find_workshops(paths, scripts=False)]
    plans, configs = _load_all(files, no_init=no_init)
    # What was parsed, so --update never writes over an edit made during the run.
    fingerprints = read_fingerprints({s.loc.file for p in plans.values() for s in p.steps}) if update else {}
    started = time.monotonic()
    reports: list[FileReport] = []
    secrets: set[str] = set()
    for file in files:
        report, found = _check_file(plans[file], configs[file], fail_fast=fail_fast, timeout=timeout)
        reports.append(report)
        secrets |= found
        click.echo(Redactor(secrets)(file_progress_line(report)))
        if fail_fast and report.count(Status.FAIL):
            break
    run = RunReport(tuple(reports), time.monotonic() - started)
    redact = Redactor(secrets)

    click.echo(render_summary(run, redact, color=color_wanted(sys.stdout)), nl=False)
    _write_artefacts(run, redact, junit=junit, html=html)

    unfixed = {(r.step.loc.file, r.step.loc.line) for f in reports for r in f.results
               if r.verdict.status is Status.FAIL}
    if update:
        unfixed -= _update(reports, configs, redact, fingerprints, show_diff=show_diff)
    skipped_files = [f for f in reports if f.skipped_reason]
    if unfixed or (strict and skipped_files):
        return 1
    if skipped_files and len(skipped_files) == len(reports):
        return 3
    return 0


def _load_all(files: list[str], *, no_init: bool) -> tuple[dict[str, Plan], dict[str, Config]]:
    """Parse and configure everything first: a broken file stops the run before anything runs."""
    plans: dict[str, Plan] = {}
    configs: dict[str, Config] = {}
    problems: list[str] = []
    for file in files:
        try:
            plans[file] = load_plan(file, no_init=no_init)
            configs[file] = load_config(file)
        except DemorunError as exc:
            problems.append(str(exc))
    if problems:
        raise ParseError("\n".join(problems))
    return plans, configs


def _check_file(plan: Plan, config: Config, *, fail_fast: bool,
                timeout: float | None) -> tuple[FileReport, frozenset[str]]:
    started = time.monotonic()
    missing = missing_requirements(plan)
    if missing:
        reason = requirement_message(missing)
        skipped = tuple(StepResult(s, Verdict(Status.SKIP, reason), None, i)
                        for i, s in enumerate(plan.steps) if s.kind is Kind.COMMAND)
        return FileReport(plan.file, skipped, 0.0, reason, plan), frozenset()
    limit = effective_timeout(timeout, config)
    policy = Policy(check_output=True, keep_going=not fail_fast, run_hooks=False, default_timeout=limit,
                    verify=_verify_options(config), secret_names=config.secrets)
    with open_session(plan.file, [], config, timeout=limit) as session, interrupts(lambda: session):
        engine = Engine(plan, session, policy=policy)
        results = engine.run_all()
        found = engine.redactor().secrets
    return FileReport(plan.file, tuple(results), time.monotonic() - started, None, plan), found


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
            fingerprints: dict[str, str], *, show_diff: bool) -> set[tuple[str, int]]:
    """Write real output back as `##` lines, secrets as ***; the failures this fixed, as (file, line)."""
    edits: dict[str, dict[int, OutputEdit]] = {}
    fixed: set[tuple[str, int]] = set()
    for report in reports:
        options = _verify_options(configs[report.file])
        for result in report.results:
            edit = _edit_for(result, options, redact)
            if edit is not None:
                edits.setdefault(result.step.loc.file, {}).setdefault(edit.command_end_line, edit)
                fixed.add((result.step.loc.file, result.step.loc.line))
    apply_updates({file: list(by_line.values()) for file, by_line in edits.items()}, fingerprints,
                  show_diff=show_diff, echo=lambda text: click.echo(text, nl=False))
    return set() if show_diff else fixed


def _edit_for(result: StepResult, options: VerifyOptions, redact: Redactor) -> OutputEdit | None:
    """An edit for a command that ran with an acceptable status but whose output differs or is unrecorded."""
    step, outcome = result.step, result.outcome
    if outcome is None or step.modifiers.expect == "ignore" or (outcome.timed_out and not outcome.stopped):
        return None
    if not verify_command(dataclasses.replace(step, expected=None), outcome, options=options).passed:
        return None
    if step.expected is None:
        if not normalise(outcome.output):
            return None
    elif result.verdict.passed:  # its status is fine (above), so only the output can have failed
        return None
    return OutputEdit(step.end_line or step.loc.line, step.expected, redact(outcome.output),
                      mode=step.modifiers.expect, masks=step.modifiers.masks)
