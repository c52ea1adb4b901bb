"""What every command needs to run a plan, built in one place from the configuration and the mode.

check, run and present differ in what they judge and when they stop (`Mode`); the rest of the
engine's policy (the limit per command, the masks and volatile columns `##` blocks are read
with, the variables that count as secrets) comes from the configuration, the same for all
three, so a drift `check` forgives is forgiven on stage and in a replay too.
"""
from __future__ import annotations

from dataclasses import dataclass

import click

from ..config import Config
from ..engine.core import Policy
from ..engine.timeouts import effective_timeout
from ..printable import visible
from ..verify.values import VerifyOptions


@dataclass(frozen=True)
class Mode:
    """What makes a command's engine its own: whether `##` blocks are judged, and @hook calls run."""

    check_output: bool
    run_hooks: bool


CHECK = Mode(check_output=True, run_hooks=False)  # CI: output judged, hooks (livecast scenes) left alone
RUN = Mode(check_output=False, run_hooks=True)  # a replay fails on statuses; drift is said at the end
PRESENT = Mode(check_output=True, run_hooks=True)  # the show marks drift under the command


def policy_for(mode: Mode, config: Config, *, timeout: float | None, keep_going: bool = True,
               collect_forgiven: bool = False, endless_limit: float | None = None,
               endless_fail: bool = False) -> Policy:
    """The engine's policy for `mode`: `timeout` is --timeout (None: the configuration's, or the default).

    `endless_limit` is the short limit of a command that never ends by itself (never above the
    default limit); `endless_fail` fails such a command at once instead (check --strict).
    """
    limit = effective_timeout(timeout, config.timeout)
    return Policy(check_output=mode.check_output, keep_going=keep_going, run_hooks=mode.run_hooks,
                  default_timeout=limit,
                  verify=verify_options(config, collect_forgiven=collect_forgiven), secret_names=config.secrets,
                  endless_limit=None if endless_limit is None else min(endless_limit, limit),
                  endless_fail=endless_fail)


def verify_options(config: Config, collect_forgiven: bool = False) -> VerifyOptions:
    """How `##` blocks are read under the project's configuration; `collect_forgiven` for the reports that show it."""
    return VerifyOptions(masks=config.masks, volatile_columns=config.volatile_columns,
                         collect_forgiven=collect_forgiven)


def announce(message: str) -> None:
    """A cluster guard's message on stderr (cluster names come from workshop commands: made visible)."""
    click.echo(visible(f"demorun: {message}"), err=True)
