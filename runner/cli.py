"""The command line: present, run, check, list, lint and completion, with exit codes 0/1/2/3.

Heavy modules are imported inside each command so that `demorun --version`
and `demorun lint` start fast enough for editors and pre-commit hooks.
"""
from __future__ import annotations

import click

from . import __version__
from .launch import call as _call
from .launch import cluster_options as _cluster


def _duration(ctx, param, value):
    if value is None:
        return None
    from .parse.durations import parse_duration

    try:
        return parse_duration(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _timings(ctx, param, value):
    """`--timings` alone prints; `--timings FILE.json` also writes. Anything else was meant as the workshop."""
    if value and not value.lower().endswith(".json"):
        raise click.UsageError(f"--timings {value}: the file to write must end in .json; to print the "
                               "timings only, put --timings after the workshop file", ctx)
    return value


no_init_option = click.option(
    "--no-init", is_flag=True, help="Do not read ~/.demoshrc and ~/.demoshrc.md first."
)
timings_option = click.option(
    "--timings", is_flag=False, flag_value="", default=None, callback=_timings, metavar="[FILE.json]",
    help="At the end, print how long each section took (commands vs waiting); with FILE.json, write it too.",
)
timeout_option = click.option(
    "--timeout",
    callback=_duration,
    metavar="D",
    help="Default per-command timeout, like 90s or 5m (default 10m, or the configuration's).",
)


def _jobs(ctx, param, value):
    if value is None:
        return 1
    if value == "auto":
        from .modes.parallel import cpu_count

        return cpu_count()
    if not value.isdigit() or int(value) < 1:
        raise click.BadParameter(f"expected a number of processes (1 or more) or 'auto', got {value!r}")
    return int(value)


def _shard(ctx, param, value):
    if value is None:
        return None
    from .discover import parse_shard

    try:
        return parse_shard(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _cluster_options(mode: str):
    """--requires, --kubeconfig and isolation for run, check and present; --keep-clusters where the runner cleans up."""
    options = [
        click.option("--requires", multiple=True, metavar="TOOL",
                     help="Also require TOOL on PATH (repeatable, or comma-separated); "
                          "k3d or kind also need a container engine that answers."),
        click.option("--kubeconfig", type=click.Path(dir_okay=False, exists=True), metavar="PATH",
                     help="The workshop's KUBECONFIG; when isolated, a copy of PATH (which is then only read)."),
    ]
    if mode == "present":
        options.append(click.option("--isolate", is_flag=True,
                                    help="Give the workshop its own KUBECONFIG in a temporary folder."))
    else:
        options += [
            click.option("--no-isolate", is_flag=True,
                         help="Let the workshop use and change your KUBECONFIG (by default it gets its own)."),
            click.option("--keep-clusters", is_flag=True,
                         help="Keep the k3d/kind clusters the workshop created; print how to delete them."),
        ]

    def decorate(fn):
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


verbose_option = click.option("-v", "--verbose", is_flag=True,
                              help="Print each command and stream its output as it runs.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="demorun")
def main() -> None:
    """Turn a workshop README into a live demo, an unattended replay and a CI test.

    Exit codes: 0 success, 1 a command failed, 2 usage, parse or configuration
    error, 3 a required tool is missing, 129/130/143 stopped by SIGHUP, Ctrl-C
    or SIGTERM; `run` also ends with the status of a workshop's own `exit N`.
    """


@main.command("list")
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@no_init_option
def list_cmd(file: str, as_json: bool, no_init: bool) -> None:
    """Print every step of FILE in order with file:line, kind and visibility."""
    from .modes.listing import run_list

    _call(run_list, file, as_json=as_json, no_init=no_init)


@main.command("lint")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@no_init_option
def lint_cmd(paths: tuple[str, ...], no_init: bool) -> None:
    """Report problems in workshops (files, or folders searched for them)."""
    from .modes.lint import run_lint

    _call(run_lint, list(paths), no_init=no_init)


@main.command("run", context_settings={"ignore_unknown_options": True})
@click.argument("file")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--keep-going", is_flag=True, help="Go on after a failing command.")
@click.option("--speed", type=float, default=None, metavar="CPS",
              help="Type commands out at about CPS characters a second (for recordings).")
@click.option("--quiet", is_flag=True, help="Show only failures.")
@click.option("--record", type=click.Path(dir_okay=False), metavar="FILE.cast",
              help="Record what the audience sees as an asciinema v2 cast.")
@timings_option
@timeout_option
@no_init_option
@verbose_option
@_cluster_options("run")
def run_cmd(file, args, keep_going, speed, quiet, record, timings, timeout, no_init, verbose, **cluster) -> None:
    """Replay workshop FILE unattended; ARGS become $1, $2... ($0 is FILE)."""
    from .modes.run import run_replay

    _call(run_replay, file, list(args), keep_going=keep_going, speed=speed, quiet=quiet,
          record=record, timings=timings, timeout=timeout, no_init=no_init, verbose=verbose,
          cluster=_cluster("run", **cluster))


@main.command("check")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--fail-fast", is_flag=True, help="Stop at the first failure.")
@click.option("--strict", is_flag=True, help="Count skipped files and commands as failures.")
@click.option("--junit", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write a JUnit XML report.")
@click.option("--html", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write a self-contained HTML report.")
@click.option("--update", is_flag=True, help="Write real output back as ## lines.")
@click.option("--diff", "show_diff", is_flag=True,
              help="With --update: print what would change, write nothing.")
@click.option("-j", "--jobs", callback=_jobs, metavar="N|auto",
              help="Check N files at once, each in its own session ('auto': one per core).")
@click.option("--shard", callback=_shard, metavar="K/N",
              help="Check only shard K of N: a stable split of the files for CI matrices.")
@timeout_option
@no_init_option
@verbose_option
@_cluster_options("check")
def check_cmd(paths, fail_fast, strict, junit, html, update, show_diff, jobs, shard, timeout, no_init, verbose,
              **cluster) -> None:
    """Run workshops and check every exit status and ## output against the real one.

    A folder gives its Markdown workshops; a .sh workshop is checked when named.
    """
    if show_diff and not update:
        raise click.UsageError("--diff goes with --update")
    from .modes.check import run_check

    _call(run_check, list(paths), fail_fast=fail_fast, strict=strict, junit=junit, html=html,
          update=update, show_diff=show_diff, timeout=timeout, no_init=no_init, jobs=jobs, shard=shard,
          verbose=verbose, cluster=_cluster("check", **cluster))


@main.command("present", context_settings={"ignore_unknown_options": True})
@click.argument("file")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--speed", type=float, default=None, metavar="CPS",
              help="Typing speed in characters a second (default: a human pace, 10-100 ms a key).")
@click.option("--from", "start_at", metavar="HEADING",
              help="Start at this section; earlier commands run hidden so state is right.")
@click.option("--record", type=click.Path(dir_okay=False), metavar="FILE.cast",
              help="Record what the audience sees as an asciinema v2 cast.")
@click.option("--notes", metavar="TTY",
              help="Another terminal (`tty` prints its name) for the presenter: next command, step, "
                   "notes, times and messages.")
@timings_option
@timeout_option
@no_init_option
@_cluster_options("present")
def present_cmd(file, args, speed, start_at, record, notes, timings, timeout, no_init, **cluster) -> None:
    """Present workshop FILE live: type commands, wait for keys (? for help)."""
    from .present.start import run_present

    _call(run_present, file, list(args), speed=speed, start_at=start_at, record=record,
          notes=notes, timings=timings, timeout=timeout, no_init=no_init, cluster=_cluster("present", **cluster))


@main.command("completion")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion_cmd(shell: str) -> None:
    """Print the completion script for SHELL, e.g. eval "$(demorun completion bash)" in ~/.bashrc."""
    from click.shell_completion import get_completion_class

    # The script calls demorun back with _DEMORUN_COMPLETE set; click answers that itself.
    complete = get_completion_class(shell)(main, {}, "demorun", "_DEMORUN_COMPLETE")
    click.echo(complete.source())
