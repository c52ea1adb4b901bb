"""`demorun present` refusing bad input before the show starts: one line, file named, exit status."""
from __future__ import annotations

from conftest import REPO

FIXTURES = REPO / "tests" / "fixtures" / "present"


def test_without_a_terminal_it_points_to_run(demorun):
    result = demorun("present", "--no-init", str(FIXTURES / "basics.md"))
    assert result.exit_code == 2
    message = result.output.strip()
    assert "present needs a terminal" in message and "demorun run" in message
    assert len(message.splitlines()) == 1


def test_unknown_heading_names_the_sections_there_are(demorun):
    result = demorun("present", "--no-init", "--from", "No such heading", str(FIXTURES / "sections.md"))
    assert result.exit_code == 2
    assert "'No such heading'" in result.output and "'Part one'" in result.output
    assert "Traceback" not in result.output


def test_missing_file_is_a_parse_error(demorun, tmp_path):
    missing = tmp_path / "nowhere.md"
    result = demorun("present", "--no-init", str(missing))
    assert result.exit_code == 2
    assert str(missing) in result.output


def test_speed_must_be_positive(demorun):
    result = demorun("present", "--no-init", "--speed", "0", str(FIXTURES / "basics.md"))
    assert result.exit_code == 2
    assert "--speed" in result.output


def test_missing_tool_exits_3(demorun, workshop):
    path = workshop("""
        <!-- @requires no-such-tool-for-demorun -->
        <!-- @SHOW -->
        ```bash
        echo hi
        ```
        """)
    result = demorun("present", "--no-init", path)
    assert result.exit_code == 3
    assert "no-such-tool-for-demorun" in result.output
