"""The body of each command, called with the values its options and arguments convert to.

runner/cli.py declares the options with click and hands them here; the fast path in
runner/launch.py reads the same options from click's own table and calls the same bodies.
Each ends the process with the command's exit code (runner/exits.py), never returning.
Each command's driver is imported in its own body, so `lint` on every save and `present`
before its first screen load only theirs (tests/test_launch.py); so are the cluster
options, needed by neither unless asked (docs/performance.md, measured choices).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .arguments import tools
from .exits import call

if TYPE_CHECKING:
    from .cluster.guard import ClusterOptions


def present(file: str, args: tuple[str, ...], speed: float | None, start_at: str | None, record: str | None,
            notes: str | None, timings: str | None, timeout: float | None, no_init: bool,
            requires: tuple[str, ...], kubeconfig: str | None, isolate: bool,
            catch_up_timeout: float | None = None, canned: bool = False, marks: bool = False,
            no_blurb: bool = False, debug: bool = False, no_builtins: bool = False) -> None:
    """Present workshop FILE live: type commands, wait for keys (? for help)."""
    from .modes.present.choices import Choices
    from .modes.present.start import run_present

    wanted = tools(requires)
    cluster = None  # nothing for a cluster guard to do
    if wanted or kubeconfig or isolate:
        from .cluster.guard import ClusterOptions

        cluster = ClusterOptions(requires=wanted, isolate=isolate, kubeconfig=kubeconfig, cleanup=False)
    call(run_present, file, list(args), speed=speed, start_at=start_at, record=record, notes=notes,
         timings=timings, timeout=timeout, no_init=no_init, cluster=cluster, catch_up_timeout=catch_up_timeout,
         choices=Choices(canned=canned, marks=marks, blurb=not no_blurb, debug=debug))


def run(file: str, args: tuple[str, ...], keep_going: bool, speed: float | None, quiet: bool, record: str | None,
        timings: str | None, timeout: float | None, no_init: bool, verbose: bool, requires: tuple[str, ...],
        kubeconfig: str | None, no_isolate: bool, keep_clusters: bool, start_at: str | None = None,
        stop_at: str | None = None, pause_on_failure: bool = False) -> None:
    """Replay workshop FILE unattended; ARGS become $1, $2... ($0 is FILE)."""
    from .modes.run import run_replay

    call(run_replay, file, list(args), keep_going=keep_going, speed=speed, quiet=quiet, record=record,
         timings=timings, timeout=timeout, no_init=no_init, verbose=verbose,
         cluster=_cluster(requires, kubeconfig, no_isolate, keep_clusters), start_at=start_at, stop_at=stop_at,
         pause_on_failure=pause_on_failure)


def check(paths: tuple[str, ...], fail_fast: bool, strict: bool, junit: str | None, html: str | None, update: bool,
          show_diff: bool, jobs: int, shard: tuple[int, int] | None, timeout: float | None, no_init: bool,
          verbose: bool, requires: tuple[str, ...], requires_auto: bool, kubeconfig: str | None, no_isolate: bool,
          keep_clusters: bool, json_path: str | None = None, sections: tuple[str | None, str | None] = (None, None),
          interactive: bool = False, pause_on_failure: bool = False, exclude: tuple[str, ...] = ()) -> None:
    """Run workshops and check every exit status and ## output against the real one.

    A folder gives its Markdown workshops; a .sh workshop is checked when named.
    """
    from .modes.check import run_check

    cluster = _cluster(requires, kubeconfig, no_isolate, keep_clusters)._replace(auto_requires=requires_auto)
    call(run_check, list(paths), fail_fast=fail_fast, strict=strict, junit=junit, html=html, update=update,
         show_diff=show_diff, timeout=timeout, no_init=no_init, jobs=jobs, shard=shard, verbose=verbose,
         cluster=cluster, json_path=json_path, sections=sections, interactive=interactive,
         pause_on_failure=pause_on_failure, exclude=exclude)


def list_steps(file: str, as_json: bool, no_init: bool) -> None:
    """Print every step of FILE in order with file:line, kind and visibility."""
    from .modes.listing import run_list

    call(run_list, file, as_json=as_json, no_init=no_init)


def lint(paths: tuple[str, ...], no_init: bool) -> None:
    """Report problems in workshops (files, or folders searched for them)."""
    from .modes.lint import run_lint

    call(run_lint, list(paths), no_init=no_init)


def _cluster(requires: tuple[str, ...], kubeconfig: str | None, no_isolate: bool,
             keep_clusters: bool) -> ClusterOptions:
    """--requires, --kubeconfig and isolation for `run` and `check`, which clean up what they create."""
    from .cluster.guard import ClusterOptions

    return ClusterOptions(requires=tools(requires), isolate=not no_isolate, kubeconfig=kubeconfig,
                          keep_clusters=keep_clusters)
