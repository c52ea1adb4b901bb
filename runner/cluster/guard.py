"""One context manager per workshop run: kubeconfig isolation outside, cluster cleanup at the end.

Drivers enter it before the session and leave it after, so it runs in their
`finally` after success, failure, a timeout, Ctrl-C, SIGTERM or SIGHUP alike.
"""
from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple

from ..errors import Aborted

if TYPE_CHECKING:  # imported when a run isolates or cleans up (cleanup brings the engine), not by every start
    from ..engine.listener import Listener
    from ..model import Plan
    from .cleanup import ClusterTracker
    from .kubeconfig import IsolatedKubeconfig


class ClusterOptions(NamedTuple):
    """The command line's say on clusters; defaults are those of `run` and `check`."""

    requires: tuple[str, ...] = ()  # --requires: tools needed beyond the file's @requires
    isolate: bool = True  # a private KUBECONFIG (--no-isolate; present: --isolate)
    kubeconfig: str | None = None  # --kubeconfig: seed the private one from this file (only read)
    cleanup: bool = True  # delete the clusters the run created (run and check)
    keep_clusters: bool = False  # --keep-clusters: leave them, say how to delete them
    unnamed: bool = True  # also delete new clusters no command named (off while other processes run workshops)
    auto_requires: bool = False  # --requires-auto: also the cluster tools the commands call
    hold: SetupHold | None = None  # a setup's run: its clusters and kubeconfig go to this, for its dependants


class SetupHold:
    """What a setup workshop's run made, kept for the workshops that need it and cleaned up once, after them.

    The setup's guard hands over its cluster tracker and its private kubeconfig instead of
    closing them; leaving the hold deletes the clusters the setup created (or keeps them, with
    --keep-clusters) and removes the kubeconfig, after success, failure or a signal alike.
    """

    def __init__(self, announce: Callable[[str], None]):
        self.announce = announce
        self.trackers: list[ClusterTracker] = []
        self.kubes: list[IsolatedKubeconfig] = []

    @property
    def kubeconfig(self) -> str | None:
        """The setup's private kubeconfig, which its dependants start from; None when it had none, or
        nothing wrote it (a setup that created no cluster)."""
        path = self.kubes[-1].path if self.kubes else None
        return path if path and os.path.isfile(path) else None

    def adopt(self, tracker: ClusterTracker | None, kube: IsolatedKubeconfig | None) -> None:
        if tracker:
            self.trackers.append(tracker)
        if kube:
            self.kubes.append(kube)

    def __enter__(self) -> SetupHold:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        _clean_up(self.trackers, self.kubes, exc, self.announce)


class ClusterGuard:
    """Gives the session its environment and a listener, and cleans up when left."""

    def __init__(self, plan: Plan, options: ClusterOptions, *, config_env: Mapping[str, str],
                 announce: Callable[[str], None]):
        self.plan = plan
        self.options = options
        self.config_env = dict(config_env)
        self.announce = announce
        self.kube: IsolatedKubeconfig | None = None
        self.tracker: ClusterTracker | None = None
        self.env: dict[str, str] = {}  # what the session must have on top of the configuration's

    def __enter__(self) -> ClusterGuard:
        options = self.options
        if "KUBECONFIG" not in self.config_env:  # a project that names its kubeconfig has chosen
            if options.isolate:
                from .kubeconfig import IsolatedKubeconfig

                self.kube = IsolatedKubeconfig(options.kubeconfig).__enter__()
                self.env["KUBECONFIG"] = self.kube.path
            elif options.kubeconfig:
                self.env["KUBECONFIG"] = os.path.abspath(os.path.expanduser(options.kubeconfig))
        if options.cleanup:
            from .cleanup import ClusterTracker

            session_env = {**os.environ, **self.config_env, **self.env}
            commands = "\n".join(step.text for step in self.plan.commands)
            required = frozenset(r.tool for r in self.plan.requires) | frozenset(options.requires)
            self.tracker = ClusterTracker(commands, self.plan.file, session_env, self.announce,
                                          keep=options.keep_clusters, unnamed=options.unnamed, required=required)
            try:
                self.tracker.start()
            except BaseException:
                self._close_kube()
                raise
        return self

    @property
    def listeners(self) -> list[Listener]:
        # A tracker with no cluster tool to watch has nothing to hear from commands.
        return [self.tracker] if self.tracker and self.tracker.providers else []

    def attach(self, session) -> None:
        if self.tracker:
            self.tracker.attach(session)

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.options.hold is not None:  # a setup: cleaned up once its dependants are done
            self.options.hold.adopt(self.tracker, self.kube)
            return
        _clean_up([self.tracker] if self.tracker else [], [self.kube] if self.kube else [], exc, self.announce)

    def _close_kube(self) -> None:
        if self.kube:
            self.kube.__exit__(None, None, None)


def _clean_up(trackers: list[ClusterTracker], kubes: list[IsolatedKubeconfig], exc: BaseException | None,
              announce: Callable[[str], None]) -> None:
    """Delete (or keep) what the runs created, then remove their kubeconfigs unless clusters were kept."""
    from .cleanup import deferred_signals

    with deferred_signals(announce) as caught:
        try:
            kubeconfig = kubes[-1].path if kubes else None
            kept = [_finish(tracker, exc, announce, kubeconfig) for tracker in trackers]
            for kube in kubes:
                kube.keep = any(kept)
        finally:
            for kube in kubes:
                kube.__exit__(None, None, None)
    if caught and exc is None:
        os.kill(os.getpid(), caught[0])  # asked for while cleaning up: end the run as asked


@contextmanager
def parallel_sweep(options: ClusterOptions, announce: Callable[[str], None]) -> Iterator[None]:
    """For `check -j`: workers delete the clusters their commands named, this what else appeared.

    A worker cannot tell whose an unnamed new cluster is while other files
    run; once every worker has finished, whatever is new is this check's.
    """
    if not options.cleanup:
        yield
        return
    from .cleanup import ClusterTracker, deferred_signals

    tracker = ClusterTracker("", "this check", os.environ, announce, keep=options.keep_clusters,
                             required=frozenset({"k3d", "kind"}))
    tracker.start()
    exc: BaseException | None = None
    try:
        yield
    except BaseException as raised:
        exc = raised
        raise
    finally:
        with deferred_signals(announce) as caught:
            _finish(tracker, exc, announce, None)
        if caught and exc is None:
            os.kill(os.getpid(), caught[0])


def _finish(tracker: ClusterTracker, exc: BaseException | None, announce: Callable[[str], None],
            kubeconfig: str | None) -> bool:
    """Delete or keep what the run created; True when clusters were kept."""
    tracker.finish(_ending(exc))
    kept = tracker.kept_message(kubeconfig)
    for line in (kept or "").splitlines():
        announce(line)
    return bool(kept)


def _ending(exc: BaseException | None) -> str | None:
    """How the run ended, when it did not end by itself: said beside the clusters being deleted."""
    if exc is None:
        return None
    if isinstance(exc, KeyboardInterrupt):
        return "after Ctrl-C"
    if isinstance(exc, Aborted):
        return "after Ctrl-C" if exc.signum == signal.SIGINT else f"after {exc.signum.name}"
    return f"after {type(exc).__name__}: {exc}" if str(exc) else f"after {type(exc).__name__}"
