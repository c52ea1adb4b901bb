"""Preflight: before anything runs, are the workshop's tools on PATH and its container engine up?

A `docker` client without a running engine passes a PATH check and the
workshop then fails minutes later inside `k3d cluster create`; asking the
engine first turns that into one message that says what to do.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..model import Plan, Requirement, SourceLoc

ENGINE_TIMEOUT = 5.0  # seconds `docker info` gets to answer; a healthy engine answers in well under one
ENGINE_USERS = frozenset({"k3d", "kind", "docker", "podman", "nerdctl"})  # tools that need a running engine

# How to get each tool a cluster workshop commonly needs.
HINTS = {
    "k3d": "install it: https://k3d.io/#installation",
    "kind": "install it: https://kind.sigs.k8s.io/docs/user/quick-start/#installation",
    "kubectl": "install it: https://kubernetes.io/docs/tasks/tools/",
    "docker": "install Docker: https://docs.docker.com/get-docker/",
    "podman": "install Podman: https://podman.io/docs/installation",
    "linkerd": "install it: curl -sSfL https://run.linkerd.io/install-edge | sh, then add ~/.linkerd2/bin to PATH",
    "helm": "install it: https://helm.sh/docs/intro/install/",
    "step": "install it: https://smallstep.com/docs/step-cli/installation/",
    "jq": "install it with your package manager (apt-get install jq, brew install jq)",
    "curl": "install it with your package manager (apt-get install curl, brew install curl)",
}
ENGINE_HINT = "start it (Docker Desktop, colima start, or sudo systemctl start docker) and try again"


@dataclass(frozen=True)
class Gap:
    """One thing the machine lacks: a tool not on PATH, or a container engine that does not answer."""

    what: str  # "k3d", or the engine's name ("docker")
    hint: str
    loc: SourceLoc | None  # the @requires that asked for it, or the command that calls it; None for --requires
    engine_problem: str | None = None  # set for an engine that is down: what asking it gave
    called: bool = False  # asked for by a command that calls it (--requires-auto), not by @requires

    @property
    def where(self) -> str:
        if self.loc is None:
            return " (--requires)"
        return f" (called at {self.loc}; --requires-auto)" if self.called else f" (@requires at {self.loc})"

    def line(self) -> str:
        where = self.where
        if self.engine_problem:
            return f"the {self.what} engine is down: {self.engine_problem}{where}; {self.hint}"
        return f"{self.what}: not on PATH{where}; {self.hint}"


@dataclass(frozen=True)
class Shortfall:
    """Everything missing, so one message can list it all."""

    gaps: tuple[Gap, ...]

    def summary(self) -> str:
        """One line for a skipped file: 'missing tools k3d, kubectl; the docker engine is down (...)'."""
        tools = [g.what for g in self.gaps if not g.engine_problem]
        parts = [f"missing tool{'s' if len(tools) > 1 else ''} {', '.join(tools)}"] if tools else []
        parts += [f"the {g.what} engine is down ({g.engine_problem})" for g in self.gaps if g.engine_problem]
        first = next((g for g in self.gaps if g.loc), self.gaps[0])
        return "; ".join(parts) + first.where

    def message(self) -> str:
        """The full account for `run` and `present`: each gap with how to fix it."""
        return "this machine lacks what the workshop needs:\n" + "\n".join(f"  - {g.line()}" for g in self.gaps)


def required_tools(plan: Plan, extra: Sequence[str] = ()) -> dict[str, Requirement | None]:
    """Tools asked for by @requires and --requires, each with where it was asked for (None: --requires)."""
    tools: dict[str, Requirement | None] = {req.tool: req for req in plan.requires}
    for tool in extra:
        tools.setdefault(tool, None)
    return tools


def shortfall(plan: Plan, extra: Sequence[str] = (), env: Mapping[str, str] | None = None) -> Shortfall | None:
    """What is missing for `plan` on this machine, or None when it can run."""
    env = os.environ if env is None else env
    path = env.get("PATH", os.defpath)
    tools = required_tools(plan, extra)
    gaps = [Gap(tool, HINTS.get(tool, "install it or add its folder to PATH"), req.loc if req else None,
                called=bool(req and req.called))
            for tool, req in tools.items() if _which(tool, path) is None]
    users = [tool for tool in tools if tool in ENGINE_USERS]
    if users:
        engine, problem = engine_problem(users, env)
        if problem and not any(g.what == engine for g in gaps):
            # A missing client is already listed; an engine that is down is a gap of its own.
            hint = ENGINE_HINT if engine == "docker" else f"start it ({engine} machine start) and try again"
            asked = tools[users[0]]
            gaps.append(Gap(engine, hint, asked.loc if asked else None, engine_problem=problem,
                            called=bool(asked and asked.called)))
    return Shortfall(tuple(gaps)) if gaps else None


def engine_problem(users: Sequence[str], env: Mapping[str, str]) -> tuple[str, str | None]:
    """The engine these tools drive, and why it cannot be used (None when it answers)."""
    engine = _engine_for(users, env)
    path = env.get("PATH", os.defpath)
    client = _which(engine, path)
    if client is None:
        if engine != "docker":
            return engine, f"`{engine}` is not on PATH ({HINTS.get(engine, 'install it')})"
        return engine, _ping_socket(_docker_socket(env))
    keys = ("DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "CONTAINER_HOST", "HOME")
    return engine, _ask_engine(client, tuple((k, env[k]) for k in keys if k in env))


def _engine_for(users: Sequence[str], env: Mapping[str, str]) -> str:
    """kind can drive podman or nerdctl when told to; k3d and the rest speak the Docker API."""
    for tool in ("podman", "nerdctl"):
        if tool in users:
            return tool
    provider = env.get("KIND_EXPERIMENTAL_PROVIDER", "")
    if "kind" in users and "k3d" not in users and provider in ("podman", "nerdctl"):
        return provider
    return "docker"


@lru_cache(maxsize=8)
def _ask_engine(client: str, env_items: tuple[tuple[str, str], ...]) -> str | None:
    """`CLIENT info`, bounded: asked once per process, since `check` of a folder asks for every file."""
    import subprocess  # here: most workshops need no container engine, and every start would pay

    env = dict(os.environ)
    env.update(env_items)
    try:
        done = subprocess.run([client, "info", "--format", "{{.ServerVersion}}"], env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=ENGINE_TIMEOUT,
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        return f"`{os.path.basename(client)} info` gave no answer within {ENGINE_TIMEOUT:g}s"
    except OSError as exc:
        return f"`{os.path.basename(client)} info` could not start: {exc.strerror or exc}"
    said = [line.strip() for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    if done.returncode != 0 or not done.stdout.strip():
        reason = said[-1] if said else f"exit status {done.returncode}"
        return f"`{os.path.basename(client)} info` said: {reason}"
    return None


def _which(tool: str, path: str | None) -> str | None:
    import shutil  # here: a workshop that requires nothing need not load it before its first screen

    return shutil.which(tool, path=path)


def _docker_socket(env: Mapping[str, str]) -> str | None:
    host = env.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    return host.removeprefix("unix://") if host.startswith("unix://") else None


def _ping_socket(path: str | None) -> str | None:
    """Without a docker client (k3d needs none), ask the engine's socket directly."""
    if path is None:
        return "no docker client on PATH to ask the engine at DOCKER_HOST"
    import socket

    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(ENGINE_TIMEOUT)
            sock.connect(path)
            sock.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
            reply = sock.recv(64)
    except OSError as exc:
        return f"nothing answers at {path} ({exc.strerror or exc})"
    status = reply.split(b"\r\n", 1)[0].decode("latin-1")
    if " 200 " not in status + " ":
        return f"the engine at {path} answered {status!r}"
    return None
