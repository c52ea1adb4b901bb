"""present, run and check read a command's output with one policy: the project's masks and
volatile columns forgive the same drift in all three (runner/modes/engine_setup.py).

The engine runs on test_engine's stand-in session: no bash, the output is what it answers.
"""
from __future__ import annotations

import pytest
from test_engine import Do, FakeSession, no_syntax_errors

from runner.config import Config
from runner.engine.core import Engine
from runner.modes.engine_setup import CHECK, PRESENT, RUN, Mode, policy_for
from runner.modes.run import DriftListener
from runner.parse.builder import build_plan
from runner.results import Status

WORKSHOP = """\
```bash
./release.sh
## published build-1042 to staging
kubectl get shards
## NAME  READY  SHARD
## web   1/1    12
## db    1/1    4
```
"""
# What a second run prints: another build, another shard for web.
LATER = [Do("published build-2077 to staging\n"), Do("NAME  READY  SHARD\nweb   1/1    47\ndb    1/1    4\n")]
PROJECT = Config(masks=(("build", r"build-[0-9]+"),), volatile_columns=("SHARD",))


def _judged(mode: Mode, config: Config, tmp_path) -> list[bool]:
    """Whether `mode` takes each of LATER for its `##` block: a passing verdict, and for run no drift said."""
    path = tmp_path / "w.md"
    path.write_text(WORKSHOP)
    drift = DriftListener()
    engine = Engine(build_plan(str(path), WORKSHOP, no_init=True, home="/nonexistent"), FakeSession(*LATER),
                    policy=policy_for(mode, config, timeout=None), listeners=[drift], syntax=no_syntax_errors)
    results = engine.run_all()
    if mode is RUN:
        assert [r.verdict.status for r in results] == [Status.PASS] * 2  # a replay fails on statuses only
        return [r.step.loc not in drift.drifted for r in results]
    return [r.verdict.passed for r in results]


@pytest.mark.parametrize("mode", [CHECK, RUN, PRESENT], ids=["check", "run", "present"])
def test_every_mode_forgives_what_the_project_masks(mode, tmp_path):
    assert _judged(mode, PROJECT, tmp_path) == [True, True]


@pytest.mark.parametrize("mode", [CHECK, RUN, PRESENT], ids=["check", "run", "present"])
def test_every_mode_marks_the_same_drift_without_them(mode, tmp_path):
    assert _judged(mode, Config(), tmp_path) == [False, False]


def test_the_modes_differ_only_in_what_they_judge_and_run():
    policies = [policy_for(mode, PROJECT, timeout=7) for mode in (CHECK, RUN, PRESENT)]
    assert {(p.default_timeout, p.verify, p.secret_names) for p in policies} == \
        {(7, policies[0].verify, PROJECT.secrets)}
    assert [(p.check_output, p.run_hooks) for p in policies] == [(True, False), (False, True), (True, True)]
