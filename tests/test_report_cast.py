"""Recordings are asciinema v2 casts with real timing that the real asciinema plays back."""
from __future__ import annotations

import io
import json
import shutil
import subprocess
import time

import pexpect
import pytest

from runner.errors import DemorunError
from runner.report.cast import CastRecorder
from runner.secrets import Redactor


def _read(path) -> tuple[dict, list[list]]:
    header, *events = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    return header, events


def _asciinema() -> str:
    found = shutil.which("asciinema")
    if found is None:
        pytest.skip("asciinema is not installed")
    return found


def test_header_and_events(tmp_path):
    path = tmp_path / "demo.cast"
    with CastRecorder(str(path), width=100, height=30, title="Quickstart") as rec:
        rec.output("$ ")
        time.sleep(0.2)
        rec.output(b"ls\r\n")
    header, events = _read(path)
    assert header["version"] == 2
    assert (header["width"], header["height"], header["title"]) == (100, 30, "Quickstart")
    assert abs(header["timestamp"] - time.time()) < 60
    assert set(header["env"]) == {"SHELL", "TERM"}
    assert [e[1:] for e in events] == [["o", "$ "], ["o", "ls\r\n"]]
    assert events[1][0] - events[0][0] >= 0.19


def test_no_title_no_title_key(tmp_path):
    path = tmp_path / "demo.cast"
    CastRecorder(str(path), width=80, height=24).close()
    header, events = _read(path)
    assert "title" not in header and events == []


def test_character_split_across_chunks_stays_whole(tmp_path):
    path = tmp_path / "demo.cast"
    text = "naïve café → ✓ 🙂\r\n".encode()
    with CastRecorder(str(path), width=80, height=24) as rec:
        for i in range(len(text)):
            rec.output(text[i:i + 1])
        rec.output(b"bad \xff byte, cut \xe2\x9c")
    _, events = _read(path)
    assert "".join(e[2] for e in events) == "naïve café → ✓ 🙂\r\nbad \ufffd byte, cut \ufffd"


def test_bare_newlines_become_what_the_screen_shows(tmp_path):
    path = tmp_path / "demo.cast"
    with CastRecorder(str(path), width=80, height=24) as rec:
        rec.output("one\ntwo\r\nthree\r")
        rec.output("\nfour\n")
    _, events = _read(path)
    assert "".join(e[2] for e in events) == "one\r\ntwo\r\nthree\r\nfour\r\n"


def test_secret_split_across_chunks_is_masked_where_it_began(tmp_path):
    path = tmp_path / "demo.cast"
    rec = CastRecorder(str(path), width=80, height=24)
    for chunk in ("token: ab", "cd-12", "34-ef and ", "abcd-1234-ef\r\n", "abcd-1234-ef"):
        rec.output(chunk)
    rec.close(Redactor(["abcd-1234-ef"]))
    _, events = _read(path)
    assert [e[2] for e in events] == ["token: ***", " and ", "***\r\n", "***"]
    assert "abcd" not in path.read_text()


def test_any_callable_masks_event_by_event(tmp_path):
    path = tmp_path / "demo.cast"
    rec = CastRecorder(str(path), width=80, height=24)
    rec.output("Password: hunter22\r\n")
    rec.close(lambda s: s.replace("hunter22", "***"))
    _, events = _read(path)
    assert events[0][2] == "Password: ***\r\n"


def test_close_is_idempotent_and_late_output_dropped(tmp_path):
    path = tmp_path / "demo.cast"
    rec = CastRecorder(str(path), width=80, height=24, redact=Redactor(["s3cr3t!"]))
    rec.output("say s3cr3t!\r\n")
    rec.close()
    first = path.read_text()
    rec.output("late\r\n")
    rec.close(lambda s: s)
    assert path.read_text() == first
    assert "s3cr3t!" not in first


def test_recording_survives_an_exception(tmp_path):
    path = tmp_path / "demo.cast"
    with pytest.raises(KeyboardInterrupt):
        with CastRecorder(str(path), width=80, height=24) as rec:
            rec.output("before the interrupt\r\n")
            raise KeyboardInterrupt
    assert _read(path)[1][0][2] == "before the interrupt\r\n"


def test_unwritable_path_fails_before_recording(tmp_path):
    with pytest.raises(DemorunError, match="does not exist"):
        CastRecorder(str(tmp_path / "missing" / "demo.cast"), width=80, height=24)


def _sample(path) -> str:
    shown = "$ echo $API_TOKEN\r\n\x1b[1;32mtok-0987-zyx\x1b[0m ✓\r\n$ exit\r\n"
    with CastRecorder(str(path), width=80, height=24, title="sample") as rec:
        for piece in (shown[:12], shown[12:25], shown[25:]):
            rec.output(piece.encode())
            time.sleep(0.01)
        rec.close(Redactor(["tok-0987-zyx"]))
    return shown.replace("tok-0987-zyx", "***")


def test_asciinema_cat_reproduces_the_output(tmp_path):
    path = tmp_path / "demo.cast"
    shown = _sample(path)
    played = subprocess.run([_asciinema(), "cat", str(path)], capture_output=True, timeout=60, check=True).stdout
    assert played.decode() == shown
    times = [event[0] for event in _read(path)[1]]
    assert times == sorted(times) and times[0] >= 0


def test_asciinema_play_in_a_terminal(tmp_path):
    path = tmp_path / "demo.cast"
    _sample(path)
    screen = io.StringIO()
    child = pexpect.spawn(_asciinema(), ["play", "-i", "0.01", str(path)], dimensions=(24, 80),
                          encoding="utf-8", timeout=30)
    child.logfile_read = screen
    try:
        child.expect_exact("$ exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, screen.getvalue()
    assert "\x1b[1;32m***\x1b[0m ✓" in screen.getvalue()
    assert "tok-0987-zyx" not in screen.getvalue()
