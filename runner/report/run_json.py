"""The JSON of docs/plan-json.md: a plan as `demorun list --json` prints it, a run as `check --json` writes it."""
from __future__ import annotations

import json
from collections.abc import Callable

from ..files import write_atomic
from ..model import Plan, SourceLoc, Step
from ..results import RunReport, StepResult
from ..secrets import redact_file
from .summary import file_label, forgiven_values

JSON_VERSION = 1


def _loc(loc: SourceLoc) -> dict:
    return {"file": loc.file, "line": loc.line}


def step_to_json(step: Step, index: int) -> dict:
    """One step as a JSON object (docs/plan-json.md)."""
    modifiers = step.modifiers._asdict()
    modifiers["masks"] = list(step.modifiers.masks)
    expected = None
    if step.expected is not None:
        expected = {"lines": list(step.expected.lines), **_loc(step.expected.loc),
                    "end_line": step.expected.end_line}
    return {
        "index": index,
        "kind": step.kind.value,
        **_loc(step.loc),
        "end_line": step.end_line,
        "visibility": step.visibility.value,
        "section": step.section,
        "text": step.text,
        "expected": expected,
        "modifiers": modifiers,
        "hook_var": step.hook_var,
        "if_hooks": list(step.if_hooks),
        "called_from": [_loc(loc) for loc in step.called_from],
        "nested": list(step.nested),
        "target": step.target,
        "requires": [{"tool": r.tool, **_loc(r.loc)} for r in step.requires],
    }


def plan_to_json(plan: Plan) -> dict:
    """The whole plan as the JSON object `demorun list --json` prints."""
    return {
        "version": JSON_VERSION,
        "file": plan.file,
        "steps": [step_to_json(step, i) for i, step in enumerate(plan.steps)],
        "requires": [{"tool": r.tool, **_loc(r.loc)} for r in plan.requires],
        "shells": [{"file": shell.file, "call": _loc(shell.loc)} for shell in plan.shells],
        "findings": [{**_loc(f.loc), "severity": f.severity.value, "code": f.code,
                      "message": f.message} for f in plan.findings],
    }


def result_to_json(result: StepResult, raw: StepResult, redact: Callable[[str], str]) -> dict:
    """One command's verdict, in a run's JSON: `result` masked for secrets, `raw` as it ran."""
    outcome, verdict = result.outcome, result.verdict
    return {
        "index": result.index,
        **_loc(result.step.loc),
        "status": verdict.status.value,
        "message": verdict.message,
        "details": list(verdict.details),
        "exit_status": outcome.status if outcome is not None else None,
        "duration": round(outcome.duration, 3) if outcome is not None else None,
        "forgiven": [{"line": v.line, "start": v.start, "end": v.end, "rule": v.rule, "actual": v.actual,
                      "expected": v.expected} for v in forgiven_values(raw, redact)],
    }


def run_to_json(report: RunReport, redact: Callable[[str], str]) -> dict:
    """A run as `demorun check --json` writes it: each file's plan and each command's verdict (docs/plan-json.md)."""
    files = []
    for raw in report.files:
        masked = redact_file(raw, redact)
        files.append({
            "file": raw.file,
            "status": file_label(raw).lower(),
            "duration": round(raw.duration, 3),
            "error": masked.error,
            "skipped_reason": masked.skipped_reason,
            "plan": plan_to_json(masked.plan) if masked.plan is not None else None,
            "results": [result_to_json(r, w, redact) for r, w in zip(masked.results, raw.results)],
        })
    return {"version": JSON_VERSION, "duration": round(report.duration, 3), "files": files}


def write_run_json(report: RunReport, path: str, redact: Callable[[str], str]) -> None:
    """`check --json`: the whole file or none of it."""
    write_atomic(path, json.dumps(run_to_json(report, redact), indent=2, ensure_ascii=False) + "\n")
