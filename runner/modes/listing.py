"""`demorun list`: every step of a workshop in order, as text or as the JSON of docs/plan-json.md."""
from __future__ import annotations

import json
import re
import shlex

from ..model import Kind, Modifiers, Plan, SourceLoc
from ..parse.workshop import blocking_findings, parse_workshop
from ..printable import visible
from ..report.run_json import plan_to_json
from ..streams import echo

_DEFAULT = Modifiers()


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
