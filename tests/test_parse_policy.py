"""Only what makes a run impossible blocks it: lint's other errors are said first, and run and check go on."""
from __future__ import annotations


def test_lint_errors_demosh_would_accept_are_said_run_goes_on_and_check_fails(demorun, workshop):
    path = workshop("""
        # Setup
        @import helpers.sh -->
        <!-- @import no-such-helpers.sh -->
        <!-- @SHOW -->
        ```bash
        echo still runs
        ```
        """)
    linted = demorun("lint", "--no-init", path)
    assert linted.exit_code == 1
    assert f"{path}:2: error:" in linted.output and f"{path}:3: error:" in linted.output
    for mode, code in (("run", 0), ("check", 1)):
        result = demorun(mode, "--no-init", path)
        assert result.exit_code == code, result.output
        assert f"{path}:2: error: " in result.output and "[directive-outside-comment]" in result.output
        assert f"{path}:3: error: cannot import 'no-such-helpers.sh'" in result.output
    assert "still runs" in demorun("run", "--no-init", path).output


def test_a_runaway_file_is_still_refused(demorun, workshop):
    lines = ["<!-- @macro m0 -->", "```bash", "true", "```", "<!-- @end -->"]
    for n in range(1, 20):
        lines += [f"<!-- @macro m{n} -->", f"<!-- @m{n - 1} -->", f"<!-- @m{n - 1} -->", "<!-- @end -->"]
    path = workshop("\n".join(lines + ["<!-- @m19 -->"]) + "\n")
    result = demorun("run", "--no-init", path)
    assert result.exit_code == 2
    assert "nothing was run" in result.output and "[too-many-steps]" in result.output


def test_an_unknown_name_is_one_warning_and_never_a_failure(demorun, workshop):
    path = workshop("""
        <!-- @show_5 -->
        ```bash
        echo between
        ```
        <!-- @show_5 -->
        """)
    ran = demorun("run", "--no-init", path)
    assert ran.exit_code == 0 and ran.output.count("show_5") == 1, ran.output
    checked = demorun("check", "--no-init", path)
    assert checked.exit_code == 0 and "1 passed, 0 failed" in checked.output, checked.output
