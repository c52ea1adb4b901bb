"""Setting up a workshop for any mode: plan, configuration, requirements and session."""
from __future__ import annotations

import gc
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..errors import ParseError

# The session and the engine are imported where they are used: `present` shows its first prose
# before it needs them (runner/modes/present/start.py).
if TYPE_CHECKING:
    from ..cluster.preflight import Shortfall
    from ..config import Config
    from ..model import Plan
    from ..session.session import Session


def load_plan(file: str, *, no_init: bool, parsed: Plan | None = None) -> Plan:
    """The parsed workshop (`parsed`: read already, as check's layout reads it). Only what makes a
    run impossible stops it (parse.BLOCKING); lint's other errors are the modes' to show
    (runner/modes/preamble.py), and the run goes on as demosh's would."""
    from ..parse.workshop import blocking_findings, parse_workshop

    plan = parse_workshop(file, no_init=no_init) if parsed is None else parsed
    blocking = blocking_findings(plan)
    if blocking:
        listing = "\n".join(str(f) for f in blocking)
        raise ParseError(f"{file} has {len(blocking)} error(s); nothing was run\n{listing}")
    # The plan lives as long as the run: the collector need not walk it again and again
    # (docs/performance.md, measured choices).
    gc.freeze()
    return plan


def missing_requirements(plan: Plan, extra: Sequence[str] = (), config: Config | None = None) -> Shortfall | None:
    """What @requires and --requires ask for that this machine lacks: tools, a running container engine."""
    if not plan.requires and not extra:
        return None  # nothing asked for: no need to load the preflight
    from ..cluster.preflight import shortfall

    return shortfall(plan, extra, {**os.environ, **(config.env if config else {})})


def open_session(file: str, args: list[str], config: Config, *, timeout: float,
                 cols: int = 80, rows: int = 24, unattended: bool = True, read_ahead: bool | None = None,
                 extra_env: Mapping[str, str] | None = None) -> Session:
    """One bash for the workshop, started in the workshop's own folder so relative paths work.

    A live show keeps the presenter's pagers; unattended runs turn them off, and their commands
    can wait in bash's input behind the running one (nobody types into the shell), unless
    `read_ahead` is False (a replay paced for an audience, or timed section by section).
    `extra_env` is what the run adds on top of the configuration (an isolated KUBECONFIG).
    """
    from ..session.session import Session

    env = {**config.env, **(extra_env or {})}
    return Session(cwd=os.path.dirname(os.path.realpath(file)), env=env, argv0=file, args=args, cols=cols,
                   rows=rows, default_timeout=timeout, unattended=unattended,
                   read_ahead=unattended if read_ahead is None else read_ahead)

