"""Why a file has nothing to run: each fence it has that is not run, with its line and the fix."""
from __future__ import annotations

import time

import pytest

from runner.parse.empty import nothing_to_run


@pytest.mark.parametrize(("text", "said"), [
    ("# T\n\n```console\n$ ls\n```\n", "line 3: ```console fence is not run; use ```bash"),
    ("```\nls\n```\n", "line 1: bare ``` fence is not run; use ```bash"),
    ("~~~shell-session\n$ ls\n~~~\n", "line 1: ~~~shell-session fence is not run; use ~~~bash"),
    ("- step\n\n  ```bash\n  ls\n  ```\n",
     "line 3: indented ```bash fence is not run (a runnable fence starts at column 0)"),
    ("```yaml\na: 1\n```\n", "line 1: ```yaml fence is not run"),
    ("```bash\n# a comment\n## output\n```\n", "line 1: ```bash fence holds no command"),
    ("Run it:\n\n$ kubectl get pods\n", "line 3: '$ kubectl get pods' is prose; commands are run from ```bash fences"),
    ("Only words.\n", "no fence at all; commands are run from ```bash fences"),
])
def test_each_kind_of_fence_is_named_with_its_line(text, said):
    assert nothing_to_run(text.splitlines(), markdown=True) == f"no runnable command: {said}"


def test_many_fences_are_counted_after_the_first_three():
    lines = "\n".join("```console\n$ ls\n```" for _ in range(5)).splitlines()
    said = nothing_to_run(lines, markdown=True)
    assert said.count("fence is not run") == 3 and said.endswith("; 2 more fence(s) like these")


def test_a_script_with_only_comments():
    assert nothing_to_run(["# nothing", ""], markdown=False) == \
        "no runnable command: the script holds only comments and blank lines"


def test_time_grows_linearly_with_the_file():
    def timed(n: int) -> float:
        lines = ("```console\n$ ls\n```\n```bash\n# c\n```\n" * n).splitlines()
        started = time.perf_counter()
        nothing_to_run(lines, markdown=True)
        return time.perf_counter() - started

    timed(200)  # warm up
    small, large = min(timed(2_000) for _ in range(3)), min(timed(20_000) for _ in range(3))
    assert large < small * 10 * 3  # ten times the file, well under thirty times the time
