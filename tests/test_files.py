"""Reports, recordings and timings never replace a device: written into a character device, refused for the rest."""
from __future__ import annotations

import os
import socket
import stat

import pytest

from runner.errors import DemorunError
from runner.files import check_writable, special_kind, write_atomic

# A workshop whose check passes; the reports are all that is looked at.
PASSING = "```bash\necho hi\n## hi\n```\n"


pytestmark = pytest.mark.usefixtures("no_hang")  # tests/conftest.py: fail, never block


@pytest.fixture
def device(tmp_path) -> str:
    """A character device like /dev/null that the test may lose: a node of its own where that can be
    made (root), else a link to /dev/null, which only root could replace."""
    node = tmp_path / "null-device"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # the same device as /dev/null
        return str(node)
    except PermissionError:
        if os.geteuid() == 0:
            pytest.skip("cannot make a device node here")
    link = tmp_path / "null-link"
    link.symlink_to("/dev/null")
    return str(link)


def _still_a_device(path: str) -> bool:
    return stat.S_ISCHR(os.stat(path).st_mode)


def test_a_character_device_is_written_in_place(device, tmp_path):
    check_writable(device)
    write_atomic(device, "<report/>")
    assert _still_a_device(device)
    link = tmp_path / "report.xml"
    link.symlink_to(device)
    write_atomic(str(link), b"<report/>")
    assert link.is_symlink() and _still_a_device(str(link))
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".demorun-tmp")]


def test_other_special_files_are_refused_with_a_message(tmp_path):
    fifo, sock = tmp_path / "fifo", tmp_path / "sock"
    os.mkfifo(fifo)
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(sock))
        link = tmp_path / "to-fifo"
        link.symlink_to(fifo)
        for path, kind in ((fifo, "FIFO"), (sock, "socket"), (link, "FIFO"), (tmp_path, "folder")):
            assert special_kind(str(path)) == kind
            for attempt in (check_writable, lambda p: write_atomic(p, "x")):
                with pytest.raises(DemorunError, match=f"cannot write .*it is a {kind}"):
                    attempt(str(path))
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and link.is_symlink()


def test_check_writes_reports_into_a_device_and_refuses_a_fifo_before_running(demorun, workshop, device, tmp_path):
    file = workshop(PASSING)
    result = demorun("check", "--junit", device, "--html", device, file)
    assert result.exit_code == 0, result.output
    assert _still_a_device(device)
    os.mkfifo(tmp_path / "fifo.xml")
    refused = demorun("check", "--junit", str(tmp_path / "fifo.xml"), file)
    assert refused.exit_code == 2 and "it is a FIFO" in refused.output and "PASS" not in refused.output


def test_run_records_and_times_into_a_device(demorun, workshop, device, tmp_path):
    file = workshop("<!-- @SHOW -->\n# One\n" + PASSING)
    timings = tmp_path / "timings.json"  # the name says JSON; the file is the device
    timings.symlink_to(device)
    result = demorun("run", "--no-init", "--record", device, "--timings", str(timings), file)
    assert result.exit_code == 0, result.output
    assert _still_a_device(device) and _still_a_device(str(timings)) and timings.is_symlink()


def test_timings_refuse_a_fifo(demorun, workshop, tmp_path):
    os.mkfifo(tmp_path / "t.json")
    result = demorun("run", "--no-init", "--timings", str(tmp_path / "t.json"), workshop(PASSING))
    assert result.exit_code == 2 and "it is a FIFO" in result.output


def test_a_report_naming_a_file_that_is_not_utf8_is_written(tmp_path):
    import subprocess
    import sys

    name = os.fsencode(tmp_path) + b"/w\xff.md"
    with open(name, "wb") as f:
        f.write(PASSING.encode())
    done = subprocess.run([sys.executable, "-m", "runner", "check", "--junit", str(tmp_path / "j.xml"),
                           "--html", str(tmp_path / "r.html"), name], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "w?.md" in (tmp_path / "r.html").read_text() and "w\ufffd.md" in (tmp_path / "j.xml").read_text()
