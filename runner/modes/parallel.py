"""Work on files in worker processes, handing results back in the files' order.

Processes, not threads: each file gets a bash session on its own pty, and the
session handles SIGINT and SIGTERM, which Python delivers to the main thread
only. Workers sit in process groups of their own so that a terminal's Ctrl-C
reaches the main process alone, which passes every signal on: one Ctrl-C
interrupts the running commands, a second one or SIGTERM stops the workers,
each cleaning up its session. Only the main process writes output.
"""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import TypeVar

from ..errors import Aborted, DemorunError

T = TypeVar("T")
# A stopped worker ends its session, whose EXIT traps get a minute (a cluster to delete), then its
# own cleanup of clusters; only then is it killed. Another Ctrl-C or SIGTERM kills at once.
STOP_GRACE = 120.0
_PR_SET_PDEATHSIG = 1


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    item: int | None = None  # the index it is working on


def ordered_map(work: Callable[[T], object], items: Sequence[T], jobs: int,
                on_lost: Callable[[T, str], object]) -> Iterator[object]:
    """work(item) for every item in up to `jobs` processes, yielded in the items' order.

    A worker that dies without an answer yields on_lost(item, why) in its place.
    A DemorunError, Aborted or other exception in a worker is raised here, after
    every worker has been stopped. Closing the iterator early stops the workers.
    """
    context = multiprocessing.get_context("fork")  # the work function need not be importable
    workers: list[_Worker] = []
    todo = list(range(len(items)))
    todo.reverse()
    done: dict[int, object] = {}
    yielded = 0
    with _passing_signals_on(workers) as signals:
        try:
            for _ in range(min(jobs, len(items))):
                ours, theirs = context.Pipe()
                process = context.Process(target=_serve, args=(work, items, theirs, os.getpid()), daemon=True)
                process.start()
                theirs.close()
                workers.append(_Worker(process, ours))
            for worker in workers:
                _give(worker, todo)
            while yielded < len(items):
                while yielded in done:
                    yield done.pop(yielded)
                    yielded += 1
                if yielded == len(items):
                    break
                busy = [w for w in workers if w.item is not None]
                for conn in wait([w.conn for w in busy]):
                    worker = next(w for w in busy if w.conn is conn)
                    index, worker.item = worker.item, None
                    try:
                        kind, payload = conn.recv()
                    except (EOFError, OSError):
                        worker.process.join(1.0)
                        code = worker.process.exitcode
                        done[index] = on_lost(items[index], f"its worker process ended unexpectedly "
                                                           f"(exit code {code})")
                        workers.remove(worker)
                        _replace(workers, context, work, items, todo)
                        continue
                    if kind != "ok":
                        _raise(kind, payload)
                    done[index] = payload
                    _give(worker, todo)
        finally:
            signals["stopping"] = True
            _stop(workers)


def _give(worker: _Worker, todo: list[int]) -> None:
    """Send the next item, or tell an idle worker to finish."""
    if todo:
        worker.item = todo.pop()
        try:
            worker.conn.send(worker.item)
        except OSError:
            pass  # it died: waiting on it reads the end of its pipe, and its item is reported lost
    else:
        try:
            worker.conn.send(None)
        except OSError:
            pass


def _replace(workers: list[_Worker], context, work, items, todo: list[int]) -> None:
    """Keep the pool at strength after a worker died, while there is work left."""
    if not todo:
        return
    ours, theirs = context.Pipe()
    process = context.Process(target=_serve, args=(work, items, theirs, os.getpid()), daemon=True)
    process.start()
    theirs.close()
    worker = _Worker(process, ours)
    workers.append(worker)
    _give(worker, todo)


def _raise(kind: str, payload) -> None:
    if kind == "aborted":
        raise Aborted(payload)  # the signal's number
    if kind == "user":
        error_type, message, exit_code = payload
        error = error_type(message)
        error.exit_code = exit_code
        raise error
    raise RuntimeError(f"a worker process failed:\n{payload}")


def _stop(workers: list[_Worker]) -> None:
    """Finish idle workers, stop busy ones with SIGTERM so they clean up, kill what lingers."""
    for worker in workers:
        if worker.item is not None and worker.process.is_alive():
            _signal(worker, signal.SIGTERM)
        # Also to a busy one: a SIGTERM landing as its file ends can be lost (CPython drops a
        # signal whose handler was reset before it ran), and it would then wait for work.
        try:
            worker.conn.send(None)
        except OSError:
            pass
    deadline = time.monotonic() + STOP_GRACE
    for worker in workers:
        worker.process.join(max(0.0, deadline - time.monotonic()))
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.conn.close()


def _kill_all(workers: list[_Worker]) -> None:
    """Asked again while stopping: no more waiting for cleanups."""
    for worker in workers:
        _signal(worker, signal.SIGKILL)


def _signal(worker: _Worker, signum: int) -> None:
    if worker.process.exitcode is not None:  # reaped: its pid may be another process's by now
        return
    try:
        os.kill(worker.process.pid, signum)
    except (ProcessLookupError, TypeError):
        pass


@contextmanager
def _passing_signals_on(workers: list[_Worker]) -> Iterator[dict]:
    """SIGINT goes on to the workers (a second within 5 s also stops this process); SIGTERM or SIGHUP stop all.

    Once the workers are being stopped (each has had its SIGTERM and cleans up), any of them
    kills them instead of cutting this process's wait short and leaving them behind.
    """
    state = {"last": 0.0, "stopping": False}

    def on_int(signum, frame):
        if state["stopping"]:
            _kill_all(workers)
            return
        for worker in workers:
            if worker.item is not None:
                _signal(worker, signal.SIGINT)
        now = time.monotonic()
        if now - state["last"] < 5.0:
            raise Aborted(signal.SIGINT)
        state["last"] = now

    def on_end(signum, frame):
        if state["stopping"]:
            _kill_all(workers)
        else:
            raise Aborted(signum)

    saved = {signal.SIGINT: signal.signal(signal.SIGINT, on_int)}
    saved.update((sig, signal.signal(sig, on_end)) for sig in (signal.SIGTERM, signal.SIGHUP))
    try:
        yield state
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def _serve(work: Callable, items: Sequence, conn: Connection, parent: int) -> None:
    """A worker: take an index, answer (kind, payload), until told to finish."""
    os.setpgid(0, 0)  # out of the terminal's reach: the main process decides what reaches us
    # A handler, not SIG_IGN, which bash would inherit and could not undo. The session
    # installs its own while a file runs.
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _end_with(parent)
    while True:
        try:
            index = conn.recv()
        except (EOFError, OSError):
            return
        if index is None:
            return
        try:
            answer = ("ok", work(items[index]))
        except DemorunError as exc:
            answer = ("user", (type(exc), str(exc), exc.exit_code))
        except Aborted as exc:
            answer = ("aborted", int(exc.signum))
        except KeyboardInterrupt:
            answer = ("aborted", int(signal.SIGINT))
        except Exception:
            answer = ("crash", traceback.format_exc())
        try:
            conn.send(answer)
        except OSError:
            return
        # A result that says a signal stopped it (check's FileCheck.stopped) ends the worker too.
        if answer[0] != "ok" or getattr(answer[1], "stopped", None):
            return


def _end_with(parent: int) -> None:
    """Have the kernel send SIGTERM when the main process dies, so no session outlives a killed run."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: workers end when their pipe closes
        pass
    if os.getppid() != parent:  # it died before we asked
        os._exit(1)
