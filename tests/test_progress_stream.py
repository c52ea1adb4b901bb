"""`-v` streams any output in time linear in its size, and masks secrets across the pieces it shows."""
from __future__ import annotations

import io
import time

from runner.model import Kind, SourceLoc, Step, Visibility
from runner.report.progress import LINE_HELD, LINE_KEPT, Progress
from runner.results import Outcome, Status, StepResult, Verdict
from runner.secrets import SecretTracker

STEP = Step(Kind.COMMAND, SourceLoc("w.md", 3), "cat big.json", Visibility.HIDE, end_line=3)
SECRET = "tok-9f8e7d6c5b4a-secret"


class _Shell:
    alive = True

    def variables(self) -> dict[str, str]:
        return {"API_TOKEN": SECRET}

    def functions(self) -> list[str]:
        return []


def _streamed(output: bytes, piece: int = 4096) -> bytes:
    out = io.BytesIO()
    tracker = SecretTracker([STEP])
    tracker.read(_Shell())  # known from an earlier command
    with Progress(err=io.StringIO(), out=out, verbose=True) as progress:
        progress.mask_with(tracker)
        progress.on_step_start(0, STEP)
        for at in range(0, len(output), piece):
            progress.on_output(STEP, output[at:at + piece])
        progress.on_step_done(StepResult(STEP, Verdict(Status.PASS), Outcome("", 0, 1.0), 0))
    return out.getvalue()


def test_a_line_longer_than_held_is_shown_whole_in_parts_with_its_secrets_masked():
    first_cut = (LINE_HELD // 4096 + 1) * 4096 - LINE_KEPT  # where the first part ends, pieces of 4 KiB
    for at in range(first_cut - len(SECRET), first_cut + 1, 3):  # a secret across where a part ends
        line = b"x" * at + SECRET.encode() + b"y" * (3 * LINE_HELD)
        shown = _streamed(line + b"\r\n")
        assert shown == b"$ cat big.json\n  [w.md:3]\n" + b"x" * at + b"***" + b"y" * (3 * LINE_HELD) + b"\r\n"


def test_one_long_line_streams_in_linear_time():
    def seconds(size: int) -> float:
        started = time.perf_counter()
        _streamed(b"z" * size)
        return time.perf_counter() - started

    small = min(seconds(4_000_000) for _ in range(3))
    large = min(seconds(16_000_000) for _ in range(3))
    assert large < 8 * small  # 4x the size; joining each piece to all before it made this 16x


def test_binary_output_with_no_line_streams_in_linear_time_too():
    def seconds(size: int) -> float:
        started = time.perf_counter()
        assert len(_streamed(b"\x80" * size)) > size  # every byte shown, as a replacement character
        return time.perf_counter() - started

    small = min(seconds(1_000_000) for _ in range(3))
    large = min(seconds(4_000_000) for _ in range(3))
    assert large < 8 * small
