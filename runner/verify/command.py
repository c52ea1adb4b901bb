"""verify_command: the verdict on one command, from its exit status and its output."""
from __future__ import annotations

from ..errors import DemorunError
from ..model import Expectation, Step
from ..results import Outcome, Status, Verdict
from .compare import judge_output
from .normalise import normalise
from .roles import Pins
from .values import VerifyOptions

TAIL = 10  # lines of output shown under a failed exit status
_DEFAULT = VerifyOptions()
_PASS = Verdict(Status.PASS)  # one for every passing command: verdicts are immutable


def verify_command(step: Step, outcome: Outcome, *, options: VerifyOptions = _DEFAULT) -> Verdict:
    """Pass, or fail with one line naming file:line and what went wrong."""
    if outcome.timed_out and not outcome.stopped:
        limit = outcome.limit or step.modifiers.timeout or outcome.duration
        how = f", {outcome.recovery}" if outcome.recovery else ""
        return Verdict(Status.FAIL, f"{step.loc}: timed out after the {_limit(limit)} limit "
                                    f"(stopped at {outcome.duration:.2f} s{how})", _tail(outcome.output))
    wanted = step.modifiers.exit
    if not outcome.stopped and wanted is not None and outcome.status != wanted:
        return Verdict(Status.FAIL, f"{step.loc}: exit status {outcome.status}, expected {wanted}",
                       _tail(outcome.output))
    block = step.expected
    if block is None:
        return _PASS
    modifiers = step.modifiers
    try:
        judged = judge_output(block.lines, outcome.output, expect=modifiers.expect, masks=modifiers.masks,
                              options=options, pins=Pins.of(modifiers.literal, modifiers.volatile))
    except DemorunError as exc:  # a bad @mask or @expect: said at the command, a new error, not a patched one
        if exc.loc is not None:
            raise
        raise type(exc)(exc.message, step.loc) from None
    mismatch = judged.mismatch
    if mismatch is None:
        return Verdict(Status.PASS, forgiven=judged.forgiven) if judged.forgiven else _PASS
    return Verdict(Status.FAIL, f"{step.loc}: output differs from ## block at {_where(block)}: {mismatch.summary}",
                   mismatch.details, judged.forgiven)


def _where(block: Expectation) -> str:
    span = f"-{block.end_line}" if block.end_line > block.loc.line else ""
    return f"{block.loc}{span}"


def _tail(output: str) -> tuple[str, ...]:
    return tuple(normalise(output)[-TAIL:])


def _limit(value: float) -> str:
    """90 -> `90 s`, 300 -> `5 min`, 0.5 -> `0.5 s`: a time limit as people say it."""
    if value >= 60 and value % 60 == 0:
        return f"{value / 60:g} min"
    return f"{value:g} s"
