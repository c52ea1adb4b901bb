"""What passed only by the rules: values of real output that differ from the `##` block, each with its rule.

Two lines (or cells) that matched have one canonical form, so the values
each side's canonical form forgave pair up one to one, in order; a pair whose
texts differ is a forgiven value. A reader sees it with the rule's name
(`duration`, `column AGE`, `key restartCount`), which is also what
`@literal` takes to stop forgiving it.
"""
from __future__ import annotations

from ..results import Forgiven
from .roles import Role
from .volatile import Canon

MAX_FORGIVEN = 200  # per command: enough to see what a rule does, bounded for outputs of many thousand lines


class Forgiveness:
    """Collects the forgiven values of one command's output, the first `limit` of them."""

    def __init__(self, limit: int = MAX_FORGIVEN):
        self.found: list[Forgiven] = []
        self.limit = limit

    @property
    def full(self) -> bool:
        return len(self.found) >= self.limit

    def add(self, line: int, start: int, end: int, rule: str, expected: str) -> None:
        """One forgiven value, at 0-based `line` of the output."""
        if not self.full:
            self.found.append(Forgiven(line + 1, start, end, rule, expected))

    def line(self, expected: str, actual: str, line: int, canon: Canon, exp_canon: Canon, *,
             role: Role = Role.PLAIN, offset: int = 0, rule: str = "") -> None:
        """The values `actual` holds where `expected` held others, read in `role`.

        `offset` is where `actual` starts in its output line (a table cell);
        `rule` names what forgave a measurement (`column AGE`).
        """
        if self.full or expected == actual or role is Role.LITERAL:
            return
        if role in (Role.MEASURED, Role.IDENTIFIER):
            self.add(line, offset, offset + len(actual), rule, expected)
            return
        exp_spans, act_spans = exp_canon.spans(expected, role), canon.spans(actual, role)
        if len(exp_spans) == len(act_spans):
            for (es, ee, _), (start, end, said) in zip(exp_spans, act_spans):
                if expected[es:ee] != actual[start:end]:
                    self.add(line, offset + start, offset + end, said or rule, expected[es:ee])
            return
        # A line matched through `...`: its values cannot be paired, those not written in it were forgiven.
        for start, end, said in act_spans:
            if actual[start:end] not in expected:
                self.add(line, offset + start, offset + end, said or rule, "")
