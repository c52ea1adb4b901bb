"""Edges of the authoring directives: hidden setup that fails, file-only workshops, @wait-for's
colours and exit status, sections of the same name, through the command line."""
from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.parametrize("mode", ["run", "check"])
def test_hidden_setup_that_fails_before_its_never_ending_command_fails(demorun, workshop, mode):
    result = demorun(mode, "--from", "Target", workshop("""
        <!-- @SHOW -->
        ## Setup

        ```bash
        ls /nonexistent-demorun && tail -f /dev/null
        ```

        ## Target

        ```bash
        echo target
        ```
        """))
    assert result.exit_code == 1, result.output
    assert "ls /nonexistent-demorun" in result.output


def test_no_setup_line_when_nothing_ran_before_the_section(demorun, workshop):
    result = demorun("check", "--from", "Only", workshop("""
        # Only

        ```bash
        echo hi
        ## hi
        ```
        """))
    assert result.exit_code == 0, result.output
    assert "ran hidden as setup" not in result.output


@pytest.mark.parametrize("mode", ["run", "check"])
def test_a_workshop_of_file_fences_only_writes_its_files(demorun, workshop, mode):
    path = workshop("""
        # Files

        ```yaml file=out/pod.yaml
        kind: Pod
        ```
        """)
    result = demorun(mode, path)
    assert result.exit_code == 0, result.output
    assert "fence is not run" not in result.output
    assert (Path(path).parent / "out" / "pod.yaml").read_text() == "kind: Pod\n"


def test_wait_for_matches_output_printed_in_colour(demorun, workshop):
    result = demorun("check", workshop("""
        # Colour

        <!-- @wait-for Status: Running -->
        ```bash
        printf '\\033[32mStatus:\\033[0m Running\\n'; sleep 600
        ```
        """))
    assert result.exit_code == 0, result.output


def test_wait_for_judges_the_status_of_a_command_that_ended_by_itself(demorun, workshop):
    result = demorun("check", workshop("""
        # Own status

        <!-- @wait-for done -->
        ```bash
        (trap '' INT; echo done; sleep 0.2; exit 3)
        ```
        """))
    assert result.exit_code == 1, result.output
    assert "exit status 3" in result.output


def test_present_shows_a_fence_written_as_a_file_as_the_file_gets_it(tmp_path):
    """The audience reads the manifest the file holds: ${VAR} (a secret, say) is not expanded there."""
    from runner.model import Kind
    from runner.modes.present.opening import braced, writes_file
    from runner.modes.setup import load_plan

    path = tmp_path / "w.md"
    path.write_text("Hi ${A}\n\n```yaml file=a.yaml\nk: ${A}\n```\n\n<!-- @file b.sh -->\n```bash\necho ${A}\n```\n"
                    "\nBye ${A}\n")
    plan = load_plan(str(path), no_init=True)
    shown = [braced(step.text, {"A": "s3cret"}, writes_file(plan, i + 1))
             for i, step in enumerate(plan.steps) if step.kind is Kind.PROSE]
    text = "\n".join(shown)
    assert "Hi s3cret" in text and "Bye s3cret" in text  # prose, as demosh shows it
    assert "k: ${A}" in text and "echo ${A}" in text and text.count("s3cret") == 2, text
