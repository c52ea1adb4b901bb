"""Finding workshops in folders: only regular files are opened, and no more of them than a workshop may hold."""
from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from runner.discover import find_workshops, is_workshop, scripts_below
from runner.parse.source import MAX_BYTES

FENCE = "```bash\necho hi\n```\n"


pytestmark = pytest.mark.usefixtures("no_hang")  # tests/conftest.py: fail, never block


@pytest.fixture
def hostile_folder(tmp_path):
    """A folder with one real workshop among files that block, never end or are not files at all."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "real.md").write_text(FENCE)
    (folder / "helper.sh").write_text("echo helper\n")
    os.mkfifo(folder / "fifo.md")
    os.mkfifo(folder / "fifo.sh")
    (folder / "zero.md").symlink_to("/dev/zero")
    (folder / "null.sh").symlink_to("/dev/null")
    (folder / "to-fifo.md").symlink_to(folder / "fifo.md")
    (folder / "dangling.md").symlink_to(folder / "nowhere.md")
    (folder / "linked.md").symlink_to(folder / "real.md")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(folder / "sock.md"))
    with open(folder / "big.md", "wb") as f:  # sparse: a fence past the size limit, nothing before it
        f.seek(MAX_BYTES + 10)
        f.write(b"\n" + FENCE.encode())
    return folder


def test_only_regular_files_and_links_to_them_are_workshops(hostile_folder):
    found = [os.path.basename(f) for f, named in find_workshops([str(hostile_folder)], scripts=True)]
    assert found == ["helper.sh", "linked.md", "real.md"]
    assert [os.path.basename(f) for f in scripts_below([str(hostile_folder)])] == ["helper.sh"]


def test_no_more_than_the_size_limit_is_read_to_decide(hostile_folder):
    assert not is_workshop(str(hostile_folder / "big.md"), scripts=False)
    with open(hostile_folder / "small.md", "w") as f:
        f.write("x" * (MAX_BYTES - len(FENCE) - 1) + "\n" + FENCE)
    assert is_workshop(str(hostile_folder / "small.md"), scripts=False)


def test_a_file_that_cannot_be_read_is_left_for_the_parser_to_explain(hostile_folder):
    locked = hostile_folder / "locked.md"
    locked.write_text("no fence\n")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("this user reads any file (root)")
        assert is_workshop(str(locked), scripts=False)
    finally:
        locked.chmod(0o644)


@pytest.mark.parametrize("command", ["check", "lint"])
def test_check_and_lint_of_a_folder_never_block_on_what_they_find(hostile_folder, command):
    # A writer that keeps fifo.sh open and silent: reading it would wait for a minute.
    writer = subprocess.Popen(["bash", "-c", f"exec sleep 60 > {hostile_folder / 'fifo.sh'}"])
    try:
        done = subprocess.run([sys.executable, "-m", "runner", command, "--no-init", str(hostile_folder)],
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    finally:
        writer.kill()
        writer.wait()
    assert done.returncode in (0, 1), done.stderr
    out = done.stdout + done.stderr
    assert "real.md" in out
    for name in ("fifo", "zero", "null", "sock", "big", "dangling"):
        assert f"{name}." not in out


def test_a_tree_deeper_than_pythons_stack_is_walked(tmp_path):
    folder = tmp_path / "deep"
    path = folder
    path.mkdir()
    try:
        for _ in range(1200):  # os.walk recursed once per level: a RecursionError, a traceback
            path = path / "a"
            path.mkdir()
        (path / "w.md").write_text(FENCE)
        assert find_workshops([str(folder)], scripts=False) == [(str(path / "w.md"), False)]
    finally:  # bottom up: pytest's own clean-up of old temporary folders recurses too
        (path / "w.md").unlink(missing_ok=True)
        while path != tmp_path:
            path.rmdir()
            path = path.parent


def test_the_order_is_each_folders_files_then_its_folders_sorted(tmp_path):
    for name in ("b/z.md", "b/a/y.md", "a.md", "c/x.md", ".hidden/h.md", "node_modules/n.md", "c/b/w.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(FENCE)
    (tmp_path / "link").symlink_to(tmp_path / "c", target_is_directory=True)  # not followed
    found = [os.path.relpath(f, tmp_path) for f, _ in find_workshops([str(tmp_path)], scripts=False)]
    assert found == ["a.md", "b/z.md", "b/a/y.md", "c/x.md", "c/b/w.md"]
