"""The one timeout policy: each command's time limit, stop-after and retry budget.

The default (10 minutes, or `--timeout`, or the configuration's) applies to
every command without `@timeout`. Under `@retry D`, no attempt may outlive
what is left of D: a hanging command retried for 30 s is stopped after 30 s,
not after the default on each attempt.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..model import DEFAULT_TIMEOUT, Modifiers

# An attempt under @retry gets at least this long, however little of the budget is left.
MIN_ATTEMPT = 1.0


def effective_timeout(cli_timeout: float | None, configured: float | None) -> float:
    """The default limit of a run: `--timeout`, else the configuration's, else 10 minutes."""
    return cli_timeout or configured or DEFAULT_TIMEOUT


@dataclass(frozen=True)
class Limits:
    """How long one command may take, resolved once from its directives and the run's default."""

    timeout: float  # fail (interrupt) an attempt after this long
    stop_after: float | None  # interrupt after this long and count it a success
    retry: float | None  # keep trying until this long has passed since the first attempt
    retry_every: float  # pause between attempts

    def attempt_timeout(self, retry_deadline: float | None, now: float) -> float:
        """This attempt's limit: the command's own, capped by what is left of the retry budget."""
        if retry_deadline is None:
            return self.timeout
        return min(self.timeout, max(retry_deadline - now, MIN_ATTEMPT))

    def retry_deadline(self, started: float) -> float | None:
        return None if self.retry is None else started + self.retry

    def may_retry(self, retry_deadline: float | None, now: float) -> bool:
        """Whether another attempt, after the pause, still starts inside the budget."""
        return retry_deadline is not None and now + self.retry_every <= retry_deadline


def resolve(modifiers: Modifiers, default_timeout: float) -> Limits:
    """A command's limits: its own @timeout, else the run's default."""
    return Limits(timeout=modifiers.timeout or default_timeout, stop_after=modifiers.stop_after,
                  retry=modifiers.retry or None, retry_every=modifiers.retry_every)
