"""Cluster cleanup: notice every k3d and kind cluster a workshop creates and delete it at the end.

Two sources, so neither has to be perfect: names read from the commands
that run (`k3d cluster create NAME`, `--config FILE`, `kind create cluster
--name NAME`), and clusters that appear in `k3d cluster list` / `kind get
clusters` between the start and the end. A cluster listed before the run
started is never deleted, whatever the workshop did to it.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from ..engine.listener import Listener
from ..errors import Aborted, DemorunError
from ..model import Step
from ..results import StepResult
from .names import created_clusters, read_config

LIST_TIMEOUT = 60.0  # listing asks the container engine; a healthy one answers in a second
DELETE_TIMEOUT = 300.0  # deleting a k3d cluster takes seconds; a stuck engine must not hang the end


@dataclass(frozen=True)
class Provider:
    """A tool that makes clusters: how to list them and how to delete some."""

    tool: str
    list_args: tuple[str, ...]
    delete_args: tuple[str, ...]

    def parse_list(self, out: str) -> set[str]:
        if self.tool == "k3d":
            try:
                return {c["name"] for c in json.loads(out or "[]") if isinstance(c, dict) and "name" in c}
            except (ValueError, TypeError):
                pass  # an old k3d without -o json: its table's first column
        lines = [line.split()[0] for line in out.splitlines() if line.strip()]
        return {name for name in lines if name != "NAME"}


PROVIDERS = (Provider("k3d", ("cluster", "list", "-o", "json"), ("cluster", "delete")),
             Provider("kind", ("get", "clusters"), ("delete", "clusters")))
_MENTION = {p.tool: re.compile(rf"(?<![\w.-]){p.tool}(?![\w.-])") for p in PROVIDERS}

_ACTIVE: list[ClusterTracker] = []  # trackers of workshops running now in this process (check -j)
_ACTIVE_LOCK = threading.Lock()


class ClusterTracker(Listener):
    """Listens to a run for clusters it creates; `finish` deletes those still there."""

    def __init__(self, commands: str, origin: str, env: Mapping[str, str], announce: Callable[[str], None], *,
                 keep: bool = False, unnamed: bool = True, required: frozenset[str] = frozenset()):
        """`commands`: the text of every command that may run; `origin`: who created what is found."""
        self.origin = origin
        self.unnamed = unnamed  # also new clusters that no command named
        self.env = dict(env)
        self.announce = announce
        self.keep = keep
        path = self.env.get("PATH", os.defpath)
        text = commands
        # Only tools the workshop names: listing asks the container engine, which costs time.
        self.providers = [p for p in PROVIDERS
                          if (p.tool in required or _MENTION[p.tool].search(text))
                          and _which(p.tool, path)]
        self.before: dict[str, set[str] | None] = {}
        self.claimed: set[tuple[str, str]] = set()  # read from commands
        self.adopted: set[tuple[str, str]] = set()  # new clusters another finished workshop left to us
        self.session = None
        self.kept: list[tuple[str, list[str]]] = []

    # Before and during the run.

    def start(self) -> None:
        for provider in self.providers:
            self.before[provider.tool] = self._list(provider)
        with _ACTIVE_LOCK:
            _ACTIVE.append(self)

    def attach(self, session) -> None:
        """The session, to fill in `$CLUSTER` and find config files as the workshop's shell sees them."""
        self.session = session

    def on_step_start(self, index: int, step: Step) -> None:
        self._claim(step.text)

    def on_step_done(self, result: StepResult) -> None:
        self._claim(result.step.text)  # again: a name may be set by the same command

    def uses_shell(self, step: Step) -> bool:
        return "create" in step.text and any(_MENTION[p.tool].search(step.text) for p in self.providers)

    def _claim(self, text: str) -> None:
        if not any(_MENTION[p.tool].search(text) for p in self.providers) or "create" not in text:
            return
        names = created_clusters(text, self._expand, self._read)
        tools = {p.tool for p in self.providers}
        self.claimed |= {(tool, name) for tool, name in names if tool in tools}

    def _expand(self, word: str) -> str:
        if self.session is None or not self.session.alive:
            return ""
        try:
            return self.session.expand(word)
        except DemorunError:
            return ""

    def _read(self, name: str) -> str | None:
        """A config file's text; only a regular file, since /dev/stdin or a FIFO would block the runner."""
        folder = self._expand("$PWD")
        return read_config(os.path.join(folder, name) if folder else name)

    # At the end.

    def finish(self, ending: str | None = None) -> None:
        """Delete (or, with keep, list) what this run created that still exists."""
        with _ACTIVE_LOCK:
            if self in _ACTIVE:
                _ACTIVE.remove(self)
            others = list(_ACTIVE)
        for provider in self.providers:
            targets = self._targets(provider, others)
            if not targets:
                continue
            if self.keep:
                self.kept.append((provider.tool, targets))
                continue
            self._delete(provider, targets, ending)

    def _targets(self, provider: Provider, others: list[ClusterTracker]) -> list[str]:
        tool = provider.tool
        mine = {name for t, name in self.claimed | self.adopted if t == tool}
        before = self.before.get(tool)
        if before is None:
            if mine:
                self.announce(f"could not list {tool} clusters when the run started, so none are deleted; "
                              f"if {', '.join(sorted(mine))} should go: {_delete_command(provider, sorted(mine))}")
            return []
        now = self._list(provider)
        if now is None:
            if mine:
                self.announce(f"could not list {tool} clusters to clean up; "
                              f"if they still exist: {_delete_command(provider, sorted(mine))}")
            return []
        new = (now - before) | {name for t, name in self.adopted if t == tool and name in now}
        theirs = {name for o in others for t, name in o.claimed if t == tool}
        ours = {name for name in new if name in mine}
        unclaimed = new - ours - theirs if self.unnamed else set()
        if others and unclaimed:
            # Another workshop still running may have made these: the last one to finish decides.
            others[0].adopted |= {(tool, name) for name in unclaimed}
            unclaimed = set()
        return sorted(ours | unclaimed)

    def _list(self, provider: Provider) -> set[str] | None:
        try:
            done = subprocess.run([provider.tool, *provider.list_args], env=self.env, stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=LIST_TIMEOUT, start_new_session=True)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if done.returncode != 0:
            return None
        return provider.parse_list(done.stdout.decode("utf-8", "replace"))

    def _delete(self, provider: Provider, names: list[str], ending: str | None) -> None:
        kind = f"{provider.tool} cluster{'s' if len(names) > 1 else ''}"
        why = f" ({ending})" if ending else ""
        self.announce(f"deleting {kind} {', '.join(names)} created by {self.origin}{why}...")
        started = time.monotonic()
        problem = None
        try:
            # Its own session: a Ctrl-C at the terminal must not cut a deletion in half.
            done = subprocess.run([provider.tool, *provider.delete_args, *names], env=self.env,
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=DELETE_TIMEOUT,
                                  start_new_session=True)
            if done.returncode != 0:
                said = done.stderr.decode("utf-8", "replace").strip().splitlines()
                problem = f"exit status {done.returncode}" + (f": {said[-1]}" if said else "")
        except subprocess.TimeoutExpired:
            problem = f"no answer within {DELETE_TIMEOUT:g}s"
        except OSError as exc:
            problem = exc.strerror or str(exc)
        except BaseException:
            self.announce(f"stopped while deleting {kind} {', '.join(names)}; "
                          f"what is left can be deleted with: {_delete_command(provider, names)}")
            raise
        elapsed = time.monotonic() - started
        if problem:
            self.announce(f"could not delete {kind} {', '.join(names)} ({problem}); "
                          f"delete {'them' if len(names) > 1 else 'it'} with: {_delete_command(provider, names)}")
        else:
            self.announce(f"deleted {kind} {', '.join(names)} in {elapsed:.1f}s")

    def kept_message(self, kubeconfig: str | None) -> str | None:
        """What --keep-clusters left running, and how to reach and delete it."""
        if not self.kept:
            return None
        lines = [f"kept {tool} cluster{'s' if len(names) > 1 else ''} {', '.join(names)} created by {self.origin}; "
                 f"delete with: {_delete_command(_provider(tool), names)}" for tool, names in self.kept]
        if kubeconfig:
            lines.append(f"their kubeconfig: export KUBECONFIG={shlex.quote(kubeconfig)}")
        return "\n".join(lines)


def _provider(tool: str) -> Provider:
    return next(p for p in PROVIDERS if p.tool == tool)


def _delete_command(provider: Provider, names: list[str]) -> str:
    return shlex.join([provider.tool, *provider.delete_args, *names])


def _which(tool: str, path: str) -> bool:
    from shutil import which

    return which(tool, path=path) is not None


@contextmanager
def deferred_signals(announce: Callable[[str], None]) -> Iterator[list[int]]:
    """A Ctrl-C, SIGTERM or SIGHUP while clusters are being deleted waits until they are gone.

    Stopping halfway would leave a cluster running with nobody knowing. The
    signals caught are yielded so the caller can deliver them again once done.
    """
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return

    def hold(signum, frame):
        if caught:  # asked twice: the person means it
            raise Aborted(signum)
        announce("still cleaning up clusters; stopping now would leave them running "
                 "(Ctrl-C again to stop anyway)...")
        caught.append(signum)

    saved = {sig: signal.signal(sig, hold) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield caught
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
