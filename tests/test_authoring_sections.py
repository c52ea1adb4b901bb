"""run and check on part of a workshop (--from, --to, --section) and @requires for one section."""
from __future__ import annotations

import shutil

import pytest

SECTIONS = """
    # Sections

    <!-- @SHOW -->

    ## Setup

    ```bash
    export GREETING=hello
    echo set up
    ## something that is never compared
    ```

    ## Middle

    ```bash
    echo "$GREETING middle"
    ## hello middle
    ```

    ### Inside the middle

    ```bash
    echo inside
    ## inside
    ```

    ## End

    ```bash
    echo end
    ## this would fail
    ```
    """


def test_check_section_runs_earlier_commands_as_setup_and_leaves_later_ones_out(demorun, workshop):
    path = workshop(SECTIONS)
    result = demorun("check", "--section", "middle", path)
    assert result.exit_code == 0, result.output  # the setup's wrong block and End's are not compared
    assert "4 passed, 0 failed, 0 skipped" in result.output  # the setup's two by their status, middle, inside
    assert "2 commands before 'middle' ran hidden as setup" in result.output
    assert f"1 command after 'middle' left out ({path}:30)" in result.output


def test_check_from_runs_to_the_end(demorun, workshop):
    result = demorun("check", "--from", "End", workshop(SECTIONS))
    assert result.exit_code == 1 and "this would fail" in result.output


def test_check_to_stops_after_the_section_and_its_subsections(demorun, workshop):
    result = demorun("check", "--to", "Middle", workshop(SECTIONS))
    assert result.exit_code == 1  # Setup's block is compared: nothing before it was left out
    assert "1 command after 'Middle' left out" in result.output


def test_run_from_shows_only_the_sections_asked_for(demorun, workshop):
    result = demorun("run", "--from", "Inside", "--to", "Inside", workshop(SECTIONS))
    assert result.exit_code == 0, result.output
    shown = result.output.split("ran hidden as setup")[0]
    assert "inside" in shown and "set up" not in shown and "echo end" not in result.output
    assert "3 commands before 'Inside' ran hidden as setup" in result.output


@pytest.mark.parametrize("mode", ["run", "check"])
def test_a_section_that_is_not_there_is_an_error_naming_the_sections(demorun, workshop, mode):
    result = demorun(mode, "--section", "nowhere", workshop(SECTIONS))
    assert result.exit_code == 2
    assert "--section 'nowhere': no such section; sections: 'Setup', 'Middle', 'Inside the middle'" in result.output


def test_section_goes_alone(demorun, workshop):
    result = demorun("check", "--section", "End", "--from", "Setup", workshop(SECTIONS))
    assert result.exit_code == 2 and "--section is --from and --to in one" in result.output


REQUIRES = """
    # Tools

    <!-- @requires bash -->
    <!-- @SHOW -->

    ## Everywhere

    ```bash
    echo everywhere
    ## everywhere
    ```

    ## Only with a tool

    <!-- @requires no-such-tool-for-demorun -->

    ```bash
    no-such-tool-for-demorun --version
    ```

    ## Everywhere again

    ```bash
    echo again
    ## again
    ```
    """


def test_requires_in_a_section_skips_only_that_section(demorun, workshop):
    path = workshop(REQUIRES)
    result = demorun("check", path)
    assert result.exit_code == 0, result.output
    assert "2 passed, 0 failed, 1 skipped" in result.output
    assert (f"skipped {path}:18: section 'Only with a tool' skipped: missing tool no-such-tool-for-demorun "
            f"(@requires at {path}:15)") in result.output


def test_requires_in_a_section_fails_under_strict(demorun, workshop):
    assert demorun("check", "--strict", workshop(REQUIRES)).exit_code == 1


def test_run_says_what_the_section_lacks_with_preflight_s_words(demorun, workshop):
    path = workshop(REQUIRES)
    result = demorun("run", path)
    assert result.exit_code == 0, result.output
    assert "this machine lacks what the workshop needs" in result.output
    assert f"no-such-tool-for-demorun: not on PATH (@requires at {path}:15)" in result.output
    assert "again" in result.output


def test_requires_above_the_second_heading_is_for_the_whole_file(demorun, workshop):
    path = workshop("""
        # Title
        <!-- @requires no-such-tool-for-demorun -->

        ```bash
        echo x
        ```
        """)
    assert demorun("check", path).exit_code == 3


def test_a_setup_named_by_needs_runs_whole_under_section(demorun, workshop):
    workshop("""
        ```bash
        echo setting up
        ```
        """, name="setup.md")
    path = workshop("""
        <!-- @needs setup.md -->
        ## Only this

        ```bash
        echo only
        ## only
        ```
        """)
    result = demorun("check", "--section", "Only this", path)
    assert result.exit_code == 0, result.output
    assert "ERROR" not in result.output


def test_a_tool_a_section_requires_is_not_undeclared(demorun, workshop):
    path = workshop("""
        # Title

        ## Mesh

        <!-- @requires linkerd -->

        ```bash
        linkerd version
        ```
        """)
    assert "undeclared-tools" not in demorun("lint", path).output
    if shutil.which("linkerd"):
        pytest.skip("linkerd is installed here: the section runs")
    result = demorun("check", "--requires-auto", path)
    assert "skipped: missing tool linkerd" in result.output and "section 'Mesh'" in result.output


ENDLESS_SETUP = """
    # Endless setup

    <!-- @SHOW -->

    ## Setup

    ```bash
    touch app.log
    tail -f app.log
    ```

    ## Target

    ```bash
    echo target
    ## target
    ```
    """


@pytest.mark.parametrize("mode", ["run", "check"])
@pytest.mark.parametrize("option", ["--from", "--section"])
def test_hidden_setup_skips_a_command_that_only_never_ends(demorun, workshop, mode, option):
    result = demorun(mode, option, "Target", "--timeout", "20m", workshop(ENDLESS_SETUP))
    assert result.exit_code == 0, result.output  # at once: neither 20 minutes nor 30 s of `tail -f`
    assert "setup skipped 1 command that never ends by itself" in result.output
    assert ":9 (tail -f)" in result.output
    assert "1 command before 'Target' ran hidden as setup" in result.output


def test_hidden_setup_stops_a_command_ending_in_a_never_ending_one_as_a_success(demorun, workshop, monkeypatch):
    monkeypatch.setattr("runner.engine.sections.SETUP_ENDLESS_LIMIT", 0.5)
    result = demorun("run", "--from", "Target", workshop("""
        <!-- @SHOW -->
        ## Setup

        ```bash
        export READY=yes; tail -f /dev/null
        ```

        ## Target

        ```bash
        echo "ready=$READY"
        ```
        """))
    assert result.exit_code == 0, result.output
    assert "ready=yes" in result.output


def test_setup_count_says_how_many_ran_when_one_failed(demorun, workshop):
    result = demorun("run", "--from", "Target", workshop("""
        <!-- @SHOW -->
        ## Setup

        ```bash
        false
        echo never
        ```

        ## Target

        ```bash
        echo target
        ```
        """))
    assert result.exit_code == 1
    assert "1 of the 2 commands before 'Target' ran hidden as setup" in result.output


def test_a_section_s_requires_covers_its_subsections_and_commands_above_it(demorun, workshop):
    result = demorun("check", workshop("""
        # Tools

        <!-- @SHOW -->

        ## Only with a tool

        ```bash
        echo before-the-requires
        ## this would fail
        ```

        <!-- @requires no-such-tool-for-demorun -->

        ### A step of it

        ```bash
        no-such-tool-for-demorun --version
        ```

        ## Everywhere

        ```bash
        echo everywhere
        ## everywhere
        ```

        ### A step of everywhere

        <!-- @requires no-such-tool-for-demorun-either -->

        ```bash
        no-such-tool-for-demorun-either
        ```
        """))
    assert result.exit_code == 0, result.output
    assert "1 passed, 0 failed, 3 skipped" in result.output  # the ### steps skipped with their section
    assert "section 'Only with a tool' skipped: missing tool no-such-tool-for-demorun " in result.output
    assert "this would fail" not in result.output  # the command above its @requires is skipped too
