"""The command line: present, run, check, list, lint and completion, declared once with click.

Values convert in click's parameter types (runner/arguments.py says what they mean); the
bodies are in runner/commands.py. `fast_table` is what runner/launch.py reads to start
`present` and `lint` before click loads: it is made from the declarations here
(runner/fast_table.py, checked against them by the tests).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from . import __version__, arguments, commands


class _Converted(click.ParamType):
    """A value converted by a function of runner/arguments.py; its ValueError is click's usage error."""

    convert_with: Callable[[str], Any]

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return type(self).convert_with(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


class Duration(_Converted):
    name = "duration"
    convert_with = staticmethod(arguments.duration)


class Speed(_Converted):
    name = "speed"
    convert_with = staticmethod(arguments.speed)


class Jobs(_Converted):
    name = "jobs"
    convert_with = staticmethod(arguments.jobs)


class Shard(_Converted):
    name = "shard"
    convert_with = staticmethod(arguments.shard)


class TimingsFile(_Converted):
    """`--timings` alone prints; `--timings FILE.json` also writes. Anything else was meant as the workshop."""

    name = "timings"

    @staticmethod
    def convert_with(value: str) -> str:
        if value and not value.lower().endswith(".json"):
            raise ValueError(f"{value}: the file to write must end in .json; to print the timings only, "
                             "put --timings after the workshop file")
        return value


_WRITTEN = click.Path(dir_okay=False)  # a report or recording: a file, made if missing

# Every option, declared once; each command takes the ones it names.
OPTIONS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "no_init": click.option("--no-init", is_flag=True, help="Do not read ~/.demoshrc and ~/.demoshrc.md first."),
    "timeout": click.option("--timeout", type=Duration(), metavar="D",
                            help="Default per-command timeout, like 90s or 5m (default 10m, or the configuration's)."),
    "timings": click.option("--timings", is_flag=False, flag_value="", default=None, type=TimingsFile(),
                            metavar="[FILE.json]", help="At the end, print how long each section took (commands vs "
                                                        "waiting); with FILE.json, write it too."),
    "record": click.option("--record", type=_WRITTEN, metavar="FILE.cast",
                           help="Record what the audience sees as an asciinema v2 cast."),
    "verbose": click.option("-v", "--verbose", is_flag=True,
                            help="Print each command and stream its output as it runs."),
    "requires": click.option("--requires", multiple=True, metavar="TOOL",
                             help="Also require TOOL on PATH (repeatable, or comma-separated); "
                                  "k3d or kind also need a container engine that answers."),
    "requires_auto": click.option("--requires-auto", is_flag=True,
                                  help="Also require the cluster tools the commands call without @requires (k3d, "
                                       "kind, kubectl, helm, linkerd, docker): a file skips where one is missing."),
    "kubeconfig": click.option("--kubeconfig", type=click.Path(dir_okay=False, exists=True), metavar="PATH",
                               help="The workshop's KUBECONFIG; when isolated, a copy of PATH (which is then only "
                                    "read)."),
    "isolate": click.option("--isolate", is_flag=True, help="Give the workshop its own KUBECONFIG in a temporary "
                                                             "folder."),
    "no_isolate": click.option("--no-isolate", is_flag=True,
                               help="Let the workshop use and change your KUBECONFIG (by default it gets its own)."),
    "from": click.option("--from", "start_at", metavar="HEADING",
                         help="Start at this section; earlier commands run hidden, as setup, their output unchecked."),
    "to": click.option("--to", "stop_at", metavar="HEADING",
                       help="End with this section (and its subsections); later commands are left out."),
    "section": click.option("--section", metavar="HEADING", help="Only this section: --from and --to HEADING."),
    "pause_on_failure": click.option("--pause-on-failure", is_flag=True,
                                     help="At a failure, open the workshop's shell here: `exit` goes on, "
                                          "`demorun_stop` stops (needs a terminal)."),
    "keep_clusters": click.option("--keep-clusters", is_flag=True,
                                  help="Keep the k3d/kind clusters the workshop created; print how to delete them."),
}


def options(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The named options of OPTIONS, in the order given (as --help lists them)."""
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        for name in reversed(names):
            fn = OPTIONS[name](fn)
        return fn

    return decorate


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="demorun")
def main() -> None:
    """Turn a workshop README into a live demo, an unattended replay and a CI test.

    Exit codes: 0 success, 1 a command failed, 2 usage, parse or configuration
    error, 3 a required tool is missing, 129/130/143 stopped by SIGHUP, Ctrl-C
    or SIGTERM; `run` also ends with the status of a workshop's own `exit N`.
    """


@main.command("list", help=commands.list_steps.__doc__)
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@options("no_init")
def list_cmd(**values: Any) -> None:
    commands.list_steps(**values)


@main.command("lint", help=commands.lint.__doc__)
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@options("no_init")
def lint_cmd(**values: Any) -> None:
    commands.lint(**values)


@main.command("run", help=commands.run.__doc__, context_settings={"ignore_unknown_options": True})
@click.argument("file")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--keep-going", is_flag=True, help="Go on after a failing command.")
@click.option("--speed", type=Speed(), default=None, metavar="CPS",
              help="Type commands out at about CPS characters a second (for recordings).")
@click.option("--quiet", is_flag=True, help="Show only failures.")
@options("record", "timings", "timeout", "no_init", "verbose", "requires", "kubeconfig", "no_isolate",
         "keep_clusters", "from", "to", "section", "pause_on_failure")
@click.pass_context
def run_cmd(ctx: click.Context, **values: Any) -> None:
    values["start_at"], values["stop_at"] = _sections(ctx, values.pop("start_at"), values.pop("stop_at"),
                                                      values.pop("section"))
    commands.run(**values)


@main.command("check", help=commands.check.__doc__)
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--fail-fast", is_flag=True, help="Stop at the first failure.")
@click.option("--strict", is_flag=True, help="Count skipped files and commands as failures.")
@click.option("--junit", type=_WRITTEN, metavar="FILE", help="Write a JUnit XML report.")
@click.option("--html", type=_WRITTEN, metavar="FILE", help="Write a self-contained HTML report.")
@click.option("--json", "json_path", type=_WRITTEN, metavar="FILE",
              help="Write the plan and each command's verdict as JSON, forgiven values included.")
@click.option("--update", is_flag=True, help="Write real output back as ## lines.")
@click.option("--diff", "show_diff", is_flag=True, help="With --update: print what would change, write nothing.")
@click.option("-j", "--jobs", type=Jobs(), default="1", metavar="N|auto",
              help="Check N files at once, each in its own session ('auto': one per core).")
@click.option("--shard", type=Shard(), metavar="K/N",
              help="Check only shard K of N: a stable split of the files for CI matrices.")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Leave out the files of a folder given that match GLOB (from here; repeatable).")
@click.option("--interactive", is_flag=True,
              help="Show each differing ## block with its diff and ask: accept (write it), skip or quit.")
@options("timeout", "no_init", "verbose", "requires", "requires_auto", "kubeconfig", "no_isolate", "keep_clusters",
         "from", "to", "section", "pause_on_failure")
@click.pass_context
def check_cmd(ctx: click.Context, **values: Any) -> None:
    if values["show_diff"] and not values["update"]:
        raise click.UsageError("--diff goes with --update", ctx)
    if values["interactive"] and values["update"]:
        raise click.UsageError("--interactive asks for each block that --update would write: give one of them", ctx)
    values["sections"] = _sections(ctx, values.pop("start_at"), values.pop("stop_at"), values.pop("section"))
    commands.check(**values)


def _sections(ctx: click.Context, start: str | None, stop: str | None, section: str | None
              ) -> tuple[str | None, str | None]:
    """--from and --to as given, or both from --section."""
    if section is not None:
        if start is not None or stop is not None:
            raise click.UsageError("--section is --from and --to in one: give either", ctx)
        return section, section
    return start, stop


@main.command("present", help=commands.present.__doc__, context_settings={"ignore_unknown_options": True})
@click.argument("file")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--speed", type=Speed(), default=None, metavar="CPS",
              help="Typing speed in characters a second (default: a human pace, 10-100 ms a key).")
@click.option("--from", "start_at", metavar="HEADING",
              help="Start at this section; earlier commands run hidden so state is right.")
@click.option("--catch-up-timeout", type=Duration(), metavar="D",
              help="Limit for each command run hidden by --from and g (default 60s, or the configuration's).")
@options("record")
@click.option("--notes", metavar="TTY", help="Another terminal (`tty` prints its name) for the presenter: next "
                                             "command, step, notes, times and messages.")
@click.option("--canned", is_flag=True, help="Show a failing command's ## output as its result (c does it for one).")
@click.option("--marks", is_flag=True, help="Drift marks on this terminal too (they go to --notes, and d shows them).")
@click.option("--no-blurb", is_flag=True, help="No start cue before the first command (as demosh's option).")
@click.option("--debug", is_flag=True, help="Say each step on the --notes terminal as the show reaches it.")
@click.option("--no-builtins", is_flag=True, help="Accepted as demosh's: the built-in macros are part of the format.")
@options("timings", "timeout", "no_init", "requires", "kubeconfig", "isolate")
def present_cmd(**values: Any) -> None:
    commands.present(**values)


@main.command("completion")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion_cmd(shell: str) -> None:
    """Print the completion script for SHELL, e.g. eval "$(demorun completion bash)" in ~/.bashrc."""
    from click.shell_completion import get_completion_class

    # The script calls demorun back with _DEMORUN_COMPLETE set; click answers that itself.
    complete = get_completion_class(shell)
    assert complete is not None  # click.Choice admits only the shells click knows
    click.echo(complete(main, {}, "demorun", "_DEMORUN_COMPLETE").source())


# The commands the fast path starts without click.
FAST_COMMANDS = ("lint", "present")


def fast_table() -> dict[str, dict[str, Any]]:
    """click's parameters of the fast commands, as plain data runner/launch.py reads without click.

    Per command: its arguments (name, nargs) and its options by spelling: (name, kind, extra),
    kind being "flag", a type of runner/arguments.py, "text", "path" (extra: must exist) or
    "optional" (a value that may be left out, which only click can tell).
    """
    table: dict[str, dict[str, Any]] = {}
    for name in FAST_COMMANDS:
        command = main.commands[name]
        entry: dict[str, Any] = {"arguments": [], "options": {}}
        for param in command.params:
            if isinstance(param, click.Argument):
                entry["arguments"].append((param.name, param.nargs))
                continue
            assert isinstance(param, click.Option)
            kind, extra = _kind(param)
            for spelling in param.opts:
                entry["options"][spelling] = (param.name, kind, extra, param.multiple)
        table[name] = entry
    return table


def _kind(option: click.Option) -> tuple[str, bool]:
    if option.is_flag:
        return "flag", False
    if getattr(option, "_flag_needs_value", False):
        return "optional", False
    if isinstance(option.type, _Converted):
        return option.type.name, False
    if isinstance(option.type, click.Path):
        return "path", bool(option.type.exists)
    return "text", False
