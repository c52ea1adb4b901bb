"""Workshop text is shown, never obeyed: no title, link, cleared screen or cursor move reaches a terminal or a log.

A hostile workshop puts escape sequences in a heading, a command, a directive's
name and an import's path; every command that prints them (list, lint, check,
run, and error messages) must show them as `cat -v` does, in a pipe and on a
terminal alike. Only demorun's own colours and status-line erases may reach a
terminal as escape sequences.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pexpect
import pytest

from runner.printable import guarded, output_shown, visible

# What a terminal would act on: an OSC title and hyperlink (BEL- and ST-ended), clearing the
# screen, moving the cursor, a C1 CSI, a bell and a backspace.
ATTACK = "\x1b]0;PWNED\x07 \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ \x1b[2J\x1b[H\x1b[5A \x9b31m \x07\x08"
HOSTILE = (f"# Deploy {ATTACK}\n\n<!-- @nosuch{ATTACK[:8]} -->\n<!-- @import gone{ATTACK[:8]}.md -->\n\n"
           f"```bash\necho safe # {ATTACK}\n## unsafe\n(exit 4) # {ATTACK}\n```\n")
OWN = re.compile(rb"\x1b\[[0-9;]*m|\r\x1b\[2?K")  # all that demorun itself may send a terminal


def _obeyed(data: bytes) -> list[bytes]:
    """The escape sequences and controls in `data` that a terminal would act on, demorun's own aside."""
    rest = OWN.sub(b"", data).replace(b"\r\n", b"\n")
    return re.findall(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", rest)


@pytest.fixture
def hostile(tmp_path) -> str:
    path = tmp_path / "hostile.md"
    path.write_text(HOSTILE)
    return str(path)


def test_visible_and_guarded_keep_only_what_is_ours():
    assert visible(ATTACK).isprintable() and "^[]0;PWNED^G" in visible(ATTACK) and "M-^[31m" in visible(ATTACK)
    colour = "\x1b[1;31mFAIL\x1b[0m"
    assert guarded(colour + ATTACK, terminal=True) == colour + visible(ATTACK)
    assert guarded("\r\x1b[2K⠋ 1.0s", terminal=True) == "\r\x1b[2K⠋ 1.0s"
    assert guarded(colour, terminal=False) == visible(colour)
    assert output_shown("a\x1b[32mok\x1b[0m\r\n" + ATTACK) == "a\x1b[32mok\x1b[0m\r\n" + visible(ATTACK)


@pytest.mark.parametrize("argv, code", [
    (["list"], 0), (["list", "--json"], 0), (["lint"], 1), (["check"], 1), (["check", "-v"], 1),
    (["run", "--quiet"], 1), (["run"], 1), (["run", "-v", "--quiet"], 1),
])
def test_nothing_a_workshop_says_is_obeyed_in_a_pipe(hostile, argv, code):
    done = subprocess.run([sys.executable, "-m", "runner", *argv, "--no-init", hostile],
                          capture_output=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == code, done.stderr
    assert not _obeyed(done.stdout) and not _obeyed(done.stderr)
    shown = (done.stdout + done.stderr).decode()
    if argv == ["list", "--json"]:
        assert json.loads(done.stdout)["steps"][0]["text"] == f"# Deploy {ATTACK}"
    else:
        assert "^[]0;PWNE" in shown or "\\x1b]0;PWNE" in shown


def test_error_messages_show_a_hostile_path(tmp_path):
    missing = str(tmp_path / f"no{ATTACK[:8]}.md")
    for command in ("check", "run", "list", "lint"):
        done = subprocess.run([sys.executable, "-m", "runner", command, missing], capture_output=True, timeout=60)
        assert done.returncode == 2 and not _obeyed(done.stdout + done.stderr), done.stderr


@pytest.mark.parametrize("argv", [["check"], ["lint"], ["list"], ["run", "--quiet"]])
def test_nothing_a_workshop_says_is_obeyed_on_a_terminal(hostile, argv):
    child = pexpect.spawn(sys.executable, ["-m", "runner", *argv, "--no-init", hostile],
                          env={**os.environ, "TERM": "xterm", "NO_COLOR": ""}, timeout=120)
    data = child.read()
    child.close()
    assert child.exitstatus in (0, 1)
    assert not _obeyed(data)
    assert b"^[]0;PWNE" in data or b"\\x1b]0;PWNE" in data


@pytest.mark.parametrize("argv", [["list"], ["list", "--json"], ["lint"], ["check"], ["check", "-v"]])
def test_the_printers_show_workshop_text_themselves(demorun, hostile, argv):
    """In-process, with no guarded stream behind them: the printers alone must escape."""
    result = demorun(*argv, "--no-init", hostile)
    assert result.exit_code in (0, 1)
    assert not _obeyed(result.stdout.encode()) and "PWNE" in result.stdout


def test_the_process_streams_show_what_a_printer_forgot():
    code = ("from runner.streams import tolerate_closed_readers; tolerate_closed_readers(); import sys; "
            f"print({ATTACK!r}); print({ATTACK!r}, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.stdout.decode() == visible(ATTACK) + "\n" and done.stderr.decode() == visible(ATTACK) + "\n"
    child = pexpect.spawn(sys.executable, ["-c", code.replace(f"print({ATTACK!r})", "print('\\x1b[1mOK\\x1b[0m')")],
                          timeout=60)
    data = child.read()
    child.close()
    assert b"\x1b[1mOK\x1b[0m" in data and not _obeyed(data)
