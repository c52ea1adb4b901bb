"""Setting up a workshop for any mode: plan, configuration, requirements and session."""
from __future__ import annotations

import shutil
from pathlib import Path

from ..config import Config
from ..engine.timeouts import effective_timeout as _effective
from ..errors import ParseError
from ..model import Plan, Requirement
from ..session import Session


def load_plan(file: str, *, no_init: bool) -> Plan:
    """The parsed workshop; its errors stop every mode before anything runs."""
    from ..parse import parse_workshop

    plan = parse_workshop(file, no_init=no_init)
    if plan.errors:
        listing = "\n".join(str(f) for f in plan.errors)
        raise ParseError(f"{file} has {len(plan.errors)} error(s); nothing was run\n{listing}")
    return plan


def missing_requirements(plan: Plan) -> list[Requirement]:
    """@requires tools that are not on PATH."""
    return [req for req in plan.requires if shutil.which(req.tool) is None]


def requirement_message(missing: list[Requirement]) -> str:
    tools = ", ".join(sorted({req.tool for req in missing}))
    return f"missing tool{'s' if len(missing) > 1 else ''} {tools} (@requires at {missing[0].loc})"


def effective_timeout(cli_timeout: float | None, config: Config) -> float:
    """The run's default limit per command (engine.timeouts decides)."""
    return _effective(cli_timeout, config.timeout)


def open_session(file: str, args: list[str], config: Config, *, timeout: float,
                 cols: int = 80, rows: int = 24, unattended: bool = True) -> Session:
    """One bash for the workshop, started in the workshop's own folder so relative paths work.

    A live show keeps the presenter's pagers; unattended runs turn them off.
    """
    return Session(cwd=str(Path(file).resolve().parent), env=config.env, argv0=file,
                   args=args, cols=cols, rows=rows, default_timeout=timeout, unattended=unattended)

