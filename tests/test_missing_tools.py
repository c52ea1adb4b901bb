"""A command that failed with 127: the program bash could not find, and the @requires line that cures it."""
from __future__ import annotations

import time

from conftest import command_step

from runner.model import Plan
from runner.modes.missing_tools import explained, missing_programs
from runner.results import Outcome, Status, StepResult, Verdict


def test_bash_and_its_helpers_name_the_program_they_could_not_find():
    output = ("README.md: kubectl: command not found\n"
              "bash: line 3: helm: command not found\n"
              "env: 'k3d': No such file or directory\n"
              "README.md: ./setup.sh: No such file or directory\n"
              "ls: cannot access 'x': No such file or directory\n"
              "README.md: kubectl: command not found\n")
    assert missing_programs(output) == [("kubectl", False), ("helm", False), ("./setup.sh", True)]


def _failed(output: str, status: int = 127, file: str = "w.md") -> StepResult:
    step = command_step(file, 4, "linkerd check")
    return StepResult(step, Verdict(Status.FAIL, f"{file}:4: exit status {status}, expected 0"),
                      Outcome(output, status, 0.1), 1)


def test_the_verdict_names_the_tool_its_install_hint_and_the_requires_line():
    result = explained(_failed("w.md: linkerd: command not found\n"), Plan("w.md", ()))
    (said,) = result.verdict.details
    assert said.startswith("linkerd is not installed here (install it: curl -sSfL https://run.linkerd.io")
    assert said.endswith("add <!-- @requires linkerd -->")
    script = explained(_failed("w.sh: linkerd: command not found\n", file="w.sh"), Plan("w.sh", ()))
    assert script.verdict.details[0].endswith("add #@requires linkerd")


def test_only_a_failure_with_127_is_explained():
    output = "w.md: linkerd: command not found\n"
    assert explained(_failed(output, status=1), None).verdict.details == ()
    passed = StepResult(command_step("w.md", 4, "linkerd check"), Verdict(Status.PASS), Outcome(output, 127, 0.1), 1)
    assert explained(passed, None) is passed  # @exit 127 said it was meant


def test_a_huge_output_costs_no_more_than_its_end():
    def timed(size: int) -> float:
        output = "a: " * size + "\nw.md: linkerd: command not found\n"
        started = time.perf_counter()
        assert missing_programs(output) == [("linkerd", False)]
        return time.perf_counter() - started

    small, large = min(timed(30_000) for _ in range(3)), min(timed(3_000_000) for _ in range(3))
    assert large < small * 20  # a hundred times the output, about the same time
