"""Escaped dots: `\\...` is text, so what `--update` writes never reads back as a pattern."""
from __future__ import annotations

import pytest

from runner.verify.compare import compare_output
from runner.verify.wildcards import escape, split, unescape

OUTPUTS = [
    "Checking config... ok",
    "...",
    "   ...",
    "Loading.... done",
    "a\\...b",
    "serial 1839...0871 and ...",
    "hex 0000 ...... ..",
    "\\\\...",
]


@pytest.mark.parametrize("line", OUTPUTS)
def test_an_escaped_line_reads_back_as_exactly_itself(line):
    written = escape(line)
    assert split(written) == [line]
    assert unescape(written) == line


@pytest.mark.parametrize("expected, actual, ok", [
    ("Checking config\\... ok", "Checking config... ok", True),
    ("Checking config\\... ok", "Checking config... not ok", False),
    ("\\...", "...", True),
    ("\\...", "anything", False),
    ("Checking ... ok", "Checking config... ok", True),  # an unescaped `...` is still a wildcard
    ("step\\... ...", "step... done", True),  # escaped dots and a wildcard in one line
    ("step\\... ...", "stepX done", False),
])
def test_escaped_dots_are_text_and_plain_dots_a_wildcard(expected, actual, ok):
    assert (compare_output([expected], actual) is None) is ok


def test_escaped_dots_in_a_table_cell_are_text():
    expected = ["NAME   STATUS", "web    wait\\..."]
    assert compare_output(expected, "NAME   STATUS\nweb    wait...") is None
    assert compare_output(expected, "NAME   STATUS\nweb    waiting") is not None


WORKSHOP = "# T\n\n```bash\nprintf '%s\\n' \"$(cat {out})\"\n```\n"


@pytest.mark.parametrize("first, same", [
    ("Checking config... ok", True),
    ("...", True),
    ("Loading.... done", True),
])
def test_update_then_changed_output_fails_and_same_output_passes(demorun, tmp_path, first, same):
    out = tmp_path / "out.txt"
    path = tmp_path / "w.md"
    path.write_text(WORKSHOP.format(out=out))
    out.write_text(first + "\n")
    assert demorun("check", "--update", str(path)).exit_code == 0
    assert demorun("check", str(path)).exit_code == 0
    out.write_text("Checking config... not ok\n")
    assert demorun("check", str(path)).exit_code != 0
    out.write_text(first + "\n")
    assert demorun("check", str(path)).exit_code == 0
