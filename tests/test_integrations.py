"""The integrations people look for: shell completion and the pre-commit hook."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

BIN = os.path.dirname(sys.executable)


def _complete(words: str, cword: int) -> list[str]:
    script = (f'eval "$(demorun completion bash)"; COMP_WORDS=({words}); COMP_CWORD={cword}; '
              '_demorun_completion demorun; printf "%s\\n" "${COMPREPLY[@]}"')
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", "--norc", "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completion_completes_commands_and_options():
    assert _complete("demorun ch", 1) == ["check"]
    assert "--shard" in _complete("demorun check --s", 2)


@pytest.mark.parametrize("shell, marker", [("zsh", "#compdef demorun"),
                                           ("fish", "complete --no-files --command demorun")])
def test_zsh_and_fish_scripts(demorun, shell, marker):
    result = demorun("completion", shell)
    assert result.exit_code == 0 and marker in result.output


def test_an_unknown_shell_is_a_usage_error(demorun):
    result = demorun("completion", "tcsh")
    assert result.exit_code == 2 and "bash" in result.output


def test_the_pre_commit_hook_runs_lint_on_markdown(tmp_path):
    hooks = (REPO / ".pre-commit-hooks.yaml").read_text()
    assert "id: demorun-lint" in hooks
    entry = next(line.split(":", 1)[1].split() for line in hooks.splitlines() if line.strip().startswith("entry:"))
    assert entry == ["demorun", "lint"]
    good, bad = tmp_path / "good.md", tmp_path / "bad.md"
    good.write_text("```bash\necho hi\n```\n")
    bad.write_text("```bash\necho 'unclosed\n```\n")
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}
    assert subprocess.run([*entry, str(good)], env=env, capture_output=True, timeout=60).returncode == 0
    failing = subprocess.run([*entry, str(good), str(bad)], env=env, capture_output=True, text=True, timeout=60)
    assert failing.returncode == 1 and f"{bad}:" in failing.stdout
    assert Path(REPO / "docs" / "ci.md").read_text().count("demorun-lint") >= 1
