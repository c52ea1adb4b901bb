"""pytest plugin: `pytest --demorun DIR...` checks workshops as tests, one per command, one session per file.

Loaded by every pytest where demorun is installed, so it does nothing without
`--demorun` and imports demorun's heavier modules only when it collects.
"""
from __future__ import annotations

import os
from contextlib import ExitStack
from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("demorun", "demorun workshops")
    group.addoption("--demorun", action="store_true", default=False,
                    help="Check the workshops in pytest's paths (a folder's Markdown workshops, or a file; "
                         "the current folder when none is given): one test per command, one bash session "
                         "per file.")
    group.addoption("--demorun-shard", metavar="K/N", default=None,
                    help="Keep only the workshops of shard K of N (the split `demorun check --shard` makes).")
    group.addoption("--demorun-timeout", metavar="D", default=None,
                    help="Default per-command timeout, like 90s or 5m (default 10m, or the configuration's).")
    group.addoption("--demorun-no-init", action="store_true", default=False,
                    help="Do not read ~/.demoshrc and ~/.demoshrc.md first.")


class _Options:
    """The plugin's settings, checked once: bad values are usage errors before anything runs."""

    def __init__(self, config: pytest.Config):
        from .arguments import shard as parse_shard
        from .parse.durations import parse_duration

        # pytest's own paths (it says which do not exist), node ids cut to their file.
        given = config.args if config.args_source is pytest.Config.ArgsSource.ARGS else [os.curdir]
        self.roots = [os.path.abspath(str(a).split("::")[0]) for a in given]
        shard = config.getoption("demorun_shard")
        try:
            self.shard = parse_shard(shard) if shard else None
        except ValueError as exc:
            raise pytest.UsageError(f"--demorun-shard: {exc}") from None
        timeout = config.getoption("demorun_timeout")
        try:
            self.timeout = parse_duration(timeout) if timeout else None
        except ValueError as exc:
            raise pytest.UsageError(f"--demorun-timeout: {exc}") from None
        self.no_init = config.getoption("demorun_no_init")
        # The folders' workshops, chosen now: a bad include/exclude is a usage error before collecting.
        self.chosen = _folders_workshops([r for r in self.roots if os.path.isdir(r)])

    def wants(self, path: Path) -> bool:
        """Whether pytest's walk reached a workshop this run should check: a file named (but pytest's
        own Python tests), as `demorun check FILE` takes any file it is given, or one of a folder's
        workshops as `check DIR` chooses them (include, exclude; scripts run when named)."""
        full = os.path.abspath(path)
        if full in self.roots:
            return not full.endswith(".py")
        return full in self.chosen


def _folders_workshops(folders: list[str]) -> set[str]:
    """The workshops `demorun check` would take from each folder (docs/ci.md#which-files)."""
    from .discover import find_workshops
    from .errors import ConfigError, ParseError

    chosen: set[str] = set()
    for folder in folders:
        try:
            chosen.update(os.path.abspath(file) for file, _ in find_workshops([folder], scripts=False))
        except ParseError:
            continue  # no workshop in it: pytest says it collected nothing
        except ConfigError as exc:
            raise pytest.UsageError(str(exc)) from None
    return chosen


_OPTIONS = pytest.StashKey[_Options]()


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("demorun"):
        return
    config.stash[_OPTIONS] = _Options(config)
    config.addinivalue_line("markers", "demorun: a command of a demorun workshop")
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        # No paths given: the workshops of the current folder, not the project's usual test paths.
        config.args = [os.curdir]


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    options = parent.config.stash.get(_OPTIONS, None)
    if options is not None and options.wants(file_path):
        return WorkshopFile.from_parent(parent, path=file_path)
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    options = config.stash.get(_OPTIONS, None)
    if options is None or options.shard is None:
        return
    from .discover import shard

    ours = [item for item in items if isinstance(item.parent, WorkshopFile)]  # broken ones too
    kept = set(shard(list(dict.fromkeys(str(item.path) for item in ours)), *options.shard))
    deselected = [item for item in ours if str(item.path) not in kept]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        dropped = set(map(id, deselected))
        items[:] = [item for item in items if id(item) not in dropped]


class DemorunWarning(pytest.PytestWarning):
    """What `demorun check` says before it runs a workshop: a lint error, or that it has nothing to run.

    A warning, so pytest's summary shows it without `-rs`; `-W error::runner.pytest_plugin.DemorunWarning`
    makes it fail the run, as `check --strict` does."""


class WorkshopFile(pytest.File):
    """A workshop: its commands are the tests; its one session opens at the first and closes after the last."""

    _run: _Run | None = None

    def collect(self):
        from .config import load_config
        from .errors import DemorunError
        from .model import Kind
        from .modes.preamble import check_findings, nothing_to_run, said_before
        from .modes.setup import load_plan

        options = self.config.stash[_OPTIONS]
        try:
            self.plan = load_plan(self._display_path(), no_init=options.no_init)
            self.demorun_config = load_config(str(self.path))
        except DemorunError as exc:
            # Reported as an error, as `check` does, without stopping the other workshops.
            yield BrokenWorkshop.from_parent(self, name="workshop", message=str(exc))
            return
        # A folder's files with nothing to run are not workshops; one named is said to be empty.
        empty = nothing_to_run(self.plan) if os.path.abspath(self.path) in options.roots else None
        findings = check_findings(self.plan)
        for line in said_before(self.plan.file, (), empty, goes_on=""):
            self.warn(DemorunWarning(line))
        if findings:  # as `check` does: the file fails on them, and its commands run all the same
            lines = said_before(self.plan.file, findings, None, goes_on="its commands run all the same")
            yield LintErrors.from_parent(self, name="lint", message="\n".join(lines))
        names: set[str] = set()
        for index, step in enumerate(self.plan.steps):
            if step.kind is Kind.COMMAND:
                name = _unique(_item_name(step, self.plan.file), names)
                yield WorkshopItem.from_parent(self, name=name, index=index)

    def _display_path(self) -> str:
        """The path as `demorun check` would print it: relative to where pytest runs when below it."""
        relative = os.path.relpath(self.path)
        return relative if not relative.startswith("..") else str(self.path)

    def run(self) -> _Run:
        if self._run is None:
            options = self.config.stash[_OPTIONS]
            self._run = _Run(self.plan, self.demorun_config, timeout=options.timeout)
            # Also at the very end: an interrupted pytest may skip teardowns, never its cleanups.
            self.config.add_cleanup(self._run.close)
        return self._run

    def teardown(self) -> None:
        if self._run is not None:
            self._run.close()
            self._run = None

    def mask(self, text: str) -> str:
        """Text with the secrets this workshop's run knows masked (before it, those its commands spell out)."""
        from .secrets import SecretTracker

        engine = self._run.engine if self._run is not None else None
        tracker = engine.secrets if engine is not None else SecretTracker(self.plan.steps,
                                                                           self.demorun_config.secrets)
        return tracker.redactor(text)


def _item_name(step, workshop: str) -> str:
    """`line-N` for a command written where it runs; one from an import or a macro is named by
    its call site in the workshop and where it is written: `line-3[helpers.sh:5]`."""
    site = next((s for s in step.called_from if s.file == workshop), None)
    if site is None and step.loc.file == workshop:
        return f"line-{step.loc.line}"
    return f"line-{site.line if site else 0}[{os.path.basename(step.loc.file)}:{step.loc.line}]"


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}[{n}]"
    taken.add(candidate)
    return candidate


class _Run:
    """One bash session working through a plan as far as the tests asked, in order."""

    def __init__(self, plan, config, *, timeout: float | None):
        from .modes.check import checking, requirement_skips

        self.plan = plan
        self.skipped = requirement_skips(plan, config=config)
        self.position = 0
        self.error: str | None = None
        self._stack = ExitStack()
        self.engine = None
        if self.skipped is None:
            from .errors import DemorunError

            try:
                # keep_going: a command after a failed one still runs, unless the shell ended.
                self.engine = self._stack.enter_context(
                    checking(plan, config, fail_fast=False, timeout=timeout))
            except DemorunError as exc:
                self.error = str(exc)

    def result(self, index: int):
        """The result of the command at `index`, running the commands before it that have not run."""
        from .engine.walk import Action
        from .modes.missing_tools import explained
        from .secrets import withhold_unread

        if self.skipped is not None:
            return next(r for r in self.skipped.results if r.index == index)
        engine = self.engine
        assert engine is not None, "asked for a result of a session that did not start"
        produced = None
        for i, step, action in engine.walk(self.position, index + 1):
            if action is Action.RUN:
                result = engine.execute(i, step)
                if i == index:
                    produced = result
            elif action is Action.HOOK:
                engine.run_hook(step)
        self.position = max(self.position, index + 1)
        result = produced or next(r for r in reversed(engine.results) if r.index == index)
        return explained(withhold_unread([result], engine.secrets)[0], self.plan)

    def redact(self, text: str) -> str:
        return self.engine.redactor()(text) if self.engine is not None else text

    def close(self) -> None:
        self._stack.close()


class WorkshopItem(pytest.Item):
    """One command of a workshop; passing, failing or skipped exactly as `demorun check` judges it."""

    def __init__(self, *, index: int, **kwargs):
        super().__init__(**kwargs)
        self.index = index
        parent = self.parent
        assert isinstance(parent, WorkshopFile), "a workshop's command belongs to its file"
        self.workshop = parent
        self.step = self.workshop.plan.steps[index]
        self.add_marker("demorun")

    def runtest(self) -> None:
        from .results import Status

        run = self.workshop.run()
        if run.error is not None:
            raise WorkshopError(run.error)
        result = run.result(self.index)
        if result.outcome is not None and result.outcome.output:
            self.add_report_section("call", "output", run.redact(result.outcome.output))
        if result.verdict.status is Status.SKIP:
            hints = run.skipped.hints if run.skipped is not None else ()
            _skip(run.redact("\n  - ".join([result.verdict.message, *hints])))
        if result.verdict.status is Status.FAIL:
            from .report.summary import failure_text

            crash = _crash_line(result, own=self.step.loc.file == self.workshop.plan.file)
            raise WorkshopError(run.redact(f"{crash}\n{failure_text(result)}"))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, WorkshopError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, self.step.loc.line - 1 if self.step.loc.file == self.workshop.plan.file else None, \
            self.headline()

    def headline(self) -> str:
        """file:line and the command's first line, secrets masked with what the run knows now."""
        from .printable import visible

        first = self.step.text.splitlines()[0] if self.step.text else ""
        return visible(f"{self.step.loc}: {self.workshop.mask(first)}")


def _crash_line(result, *, own: bool) -> str:
    """The failure's most telling line, first, for pytest's one-line summary (`-r`), which keeps only
    what fits after the test's id: `alpha: STATUS expected Running, got Pending` for a table, else the
    verdict's message. The id names the file and line already; a command that is not the workshop's
    `own` (from an @import) is placed by its file:line."""
    from .printable import visible

    loc = str(result.step.loc)
    details = [d.strip() for d in result.verdict.details if d.strip()]
    telling = details[0] if details and not details[0].startswith(("---", "+++", "@@", "-", "+")) else None
    said = telling or result.verdict.message.removeprefix(f"{loc}: ")
    return visible(said if own else f"{loc}: {said}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """pytest takes an item's headline once, before it runs; a report's is made again after, so a
    failure's headline is masked with the secrets the run has learned by then."""
    report = yield
    if isinstance(item, WorkshopItem):
        report.location = (*report.location[:2], item.headline())
    return report


def _skip(reason: str) -> None:
    """Skip, reported at the command's line (as a skip marker is) rather than at this module's."""
    from _pytest.outcomes import Skipped

    raise Skipped(reason, allow_module_level=False, _use_item_location=True)


class BrokenWorkshop(pytest.Item):
    """A workshop that cannot be parsed or configured: one test in error, saying why."""

    def __init__(self, *, message: str, **kwargs):
        super().__init__(**kwargs)
        self.message = message

    def setup(self) -> None:
        raise WorkshopError(self.message)

    def runtest(self) -> None:
        """Never reached: setup always fails."""

    def repr_failure(self, excinfo, style=None):
        return str(excinfo.value)

    def reportinfo(self):
        return self.path, None, "workshop"


class LintErrors(pytest.Item):
    """A workshop's lint errors, as `check` says them before it runs the file: one test that fails."""

    def __init__(self, *, message: str, **kwargs):
        super().__init__(**kwargs)
        self.message = message

    def runtest(self) -> None:
        raise WorkshopError(self.message)

    def repr_failure(self, excinfo, style=None):
        return str(excinfo.value)

    def reportinfo(self):
        return self.path, None, "lint"


class WorkshopError(Exception):
    """A command did not do what the workshop says; its message is demorun check's."""
