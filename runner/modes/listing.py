"""`demorun list`: every step of a workshop in order, as text or as the JSON of docs/plan-json.md; a run as JSON."""
from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable

from ..files import write_atomic
from ..model import Kind, Modifiers, Plan, SourceLoc, Step
from ..parse.workshop import blocking_findings, parse_workshop
from ..printable import visible
from ..report.summary import file_label, forgiven_values
from ..results import RunReport, StepResult
from ..secrets import redact_file
from ..streams import echo

JSON_VERSION = 1
_DEFAULT = Modifiers()


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
    write_atomic(path, json.dumps(run_to_json(report, redact), indent=2, ensure_ascii=False) + "\n")


def _seconds(value: float) -> str:
    return f"{value:g}s"


def describe_modifiers(m: Modifiers) -> list[str]:
    """The per-command directives that differ from the defaults, written as directives."""
    words = []
    if m.immediate:
        words.append("@immed")
    else:
        words += ["@nowaitbefore"] * (not m.wait_before) + ["@noshow"] * (not m.show)
    words += ["@waitafter"] * m.wait_after + ["@notypeout"] * (not m.typeout)
    if m.expect != _DEFAULT.expect:
        words.append(f"@expect {m.expect}")
    if m.exit != _DEFAULT.exit:
        words.append(f"@exit {'any' if m.exit is None else m.exit}")
    if m.timeout is not None:
        words.append(f"@timeout {_seconds(m.timeout)}")
    if m.stop_after is not None:
        words.append(f"@stop-after {_seconds(m.stop_after)}")
    if m.retry is not None:
        every = f" every {_seconds(m.retry_every)}" if m.retry_every != _DEFAULT.retry_every else ""
        words.append(f"@retry {_seconds(m.retry)}{every}")
    words += [f"@mask {mask}" for mask in m.masks]
    if m.wait_for is not None:
        words.append(f"@wait-for {m.wait_for}")
    words += [f"@{pin} {shlex.join(names)}" for pin, names in (("literal", m.literal), ("volatile", m.volatile))
              if names]
    if m.optional:
        words.append("(unknown name: runs as a command, may be missing)")
    return words


def _span(loc: SourceLoc, end_line: int) -> str:
    return f"{loc}-{end_line}" if end_line > loc.line else str(loc)


def _text_lines(plan: Plan) -> list[str]:
    out = []
    for step in plan.steps:
        first, *rest = step.text.split("\n") if step.text else [""]
        if step.kind is Kind.HOOK:
            first = f"{first} ($DEMO_HOOK_{step.hook_var})"
        if step.kind is Kind.FILE:
            first = f"writes {step.target}: {first}"
        more = f"  (+{len(rest)} lines)" if rest else ""
        out.append(f"{_span(step.loc, step.end_line):<32} {step.kind.value:<8} "
                   f"{step.visibility.value:<5} {first}{more}".rstrip())
        pad = " " * 4
        if step.expected is not None:
            n = len(step.expected.lines)
            out.append(f"{pad}expects {n} line{'s' if n != 1 else ''} "
                       f"at {_span(step.expected.loc, step.expected.end_line)}")
        if step.kind is Kind.COMMAND and describe_modifiers(step.modifiers):
            out.append(f"{pad}{' '.join(describe_modifiers(step.modifiers))}")
        if step.if_hooks:
            out.append(f"{pad}only if " + " and ".join(f"$DEMO_HOOK_{v}" for v in step.if_hooks)
                       + (" are set" if len(step.if_hooks) > 1 else " is set"))
        if step.requires:
            out.append(f"{pad}section needs " + ", ".join(f"{r.tool} ({r.loc})" for r in step.requires))
        if step.called_from:
            out.append(f"{pad}via " + " < ".join(str(loc) for loc in reversed(step.called_from)))
    if plan.requires:
        out.append("requires: " + ", ".join(f"{r.tool} ({r.loc})" for r in plan.requires))
    out += [str(finding) for finding in plan.findings]
    return out


# JSON escapes C0 controls itself; DEL and the C1 controls (a terminal may obey U+009B as CSI)
# are left raw with ensure_ascii=False, and so are lone surrogates (a file name that is not
# UTF-8), which would print as bytes no JSON reader takes; all can only stand inside strings.
_RAW_IN_JSON = re.compile("[\x7f-\x9f\ud800-\udfff]")


def plan_json_text(plan: Plan) -> str:
    """`list --json` output: UTF-8 as written, no control character a terminal would act on."""
    text = json.dumps(plan_to_json(plan), indent=2, ensure_ascii=False)
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def run_list(file: str, *, as_json: bool, no_init: bool) -> int:
    """Print the plan of `file`; ParseError when it cannot be read, 2 when it runs away.

    A plan cut short (parse.BLOCKING: too many steps, too much work or text, too deep)
    is listed as far as it was built, with the findings that stop run, present and check.
    """
    plan = parse_workshop(file, no_init=no_init)
    if as_json:
        echo(plan_json_text(plan))
    else:
        for line in _text_lines(plan):
            echo(visible(line))
    blocking = blocking_findings(plan)
    if blocking:
        echo(f"demorun: {visible(file)}: the plan is cut short by {len(blocking)} error(s) "
             "that stop run, present and check", err=True)
        return 2
    return 0
