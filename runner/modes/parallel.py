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
    finished: bool = False  # told there is no more work


def ordered_map(work: Callable[[T], object], items: Sequence[T], jobs: int,
                on_lost: Callable[[T, str], object], *, clash: Callable[[int, int], bool] | None = None,
                on_wait: Callable[[int, int], object] | None = None) -> Iterator[object]:
    """work(item) for every item in up to `jobs` processes, yielded in the items' order.

    Items that `clash` (by index) never run at the same time: a free worker takes the first
    item in order that clashes with no running one, and waits while there is none;
    on_wait(index, running_index) says, once per item, what it waited for. A worker that
    dies without an answer yields on_lost(item, why) in its place. A DemorunError or other
    exception in a worker is raised here, after every worker has been stopped. Stopped by a
    signal (Aborted), every result there is is yielded first, in order (what had finished,
    and what the stopped workers answered: the files they were on, interrupted), then
    Aborted is raised. Closing the iterator early stops the workers.
    """
    context = multiprocessing.get_context("fork")  # the work function need not be importable
    pool = _Pool(context, work, items, clash or (lambda a, b: False), on_wait)
    done: dict[int, object] = {}
    yielded = 0
    stopped: Aborted | None = None
    with _passing_signals_on(pool.workers) as signals:
        try:
            for _ in range(min(jobs, len(items))):
                pool.start_worker()
            pool.assign()
            while yielded < len(items):
                while yielded in done:
                    yield done.pop(yielded)
                    yielded += 1
                if yielded == len(items):
                    break
                for index, lost, answer in pool.answers(signals):
                    done[index] = on_lost(items[index], str(answer)) if lost else answer
                pool.assign()
        except Aborted as exc:
            stopped = exc
        finally:
            signals["stopping"] = True
            finished = _stop(pool.workers, stopped.signum if stopped else signal.SIGTERM)
    if stopped is None:
        return
    done.update((index, answer) for index, answer in finished.items() if index >= yielded)
    for index in sorted(done):
        if index >= yielded:
            yield done[index]
    raise stopped


class _Pool:
    """The workers, what each works on, and which item goes next."""

    def __init__(self, context, work: Callable, items: Sequence, clash: Callable[[int, int], bool],
                 on_wait: Callable[[int, int], object] | None):
        self.context, self.work, self.items, self.clash, self.on_wait = context, work, items, clash, on_wait
        self.workers: list[_Worker] = []
        self.todo = list(range(len(items)))
        self.told: set[int] = set()  # items whose wait was said

    def start_worker(self) -> None:
        ours, theirs = self.context.Pipe()
        process = self.context.Process(target=_serve, args=(self.work, self.items, theirs, os.getpid()),
                                       daemon=True)
        process.start()
        theirs.close()
        self.workers.append(_Worker(process, ours))

    def assign(self) -> None:
        """Give every idle worker the first item it may start; finish the idle ones when nothing is left."""
        for worker in self.workers:
            if worker.item is not None or worker.finished:
                continue
            index = self._next()
            if index is None and self.todo:
                continue  # everything left waits for a running item: this worker waits too
            _send(worker, index)
            worker.item, worker.finished = index, index is None

    def _next(self) -> int | None:
        running = [w.item for w in self.workers if w.item is not None]
        for at, index in enumerate(self.todo):
            blocking = next((i for i in running if self.clash(index, i)), None)
            if blocking is None:
                return self.todo.pop(at)
            if self.on_wait and index not in self.told:
                self.told.add(index)
                self.on_wait(index, blocking)
        return None

    def answers(self, signals: dict) -> Iterator[tuple[int, bool, object]]:
        """Wait for busy workers: (index, False, result) for each answer, (index, True, why) for one lost."""
        busy = [w for w in self.workers if w.item is not None]
        if signals["pending"]:
            raise Aborted(signals["pending"])
        signals["waiting"] = True
        try:
            ready = wait([w.conn for w in busy])
        finally:
            signals["waiting"] = False
        for conn in ready:
            worker = next(w for w in busy if w.conn is conn)
            index, worker.item = worker.item, None
            assert index is not None
            try:
                kind, payload = worker.conn.recv()
            except (EOFError, OSError):
                worker.process.join(1.0)
                self.workers.remove(worker)
                if self.todo:  # keep the pool at strength while there is work left
                    self.start_worker()
                yield index, True, f"its worker process ended unexpectedly (exit code {worker.process.exitcode})"
                continue
            if kind != "ok":
                _raise(kind, payload)
            yield index, False, payload


def _send(worker: _Worker, index: int | None) -> None:
    """Send an item, or None to tell the worker to finish."""
    try:
        worker.conn.send(index)
    except OSError:
        pass  # it died: waiting on it reads the end of its pipe, and its item is reported lost


def _raise(kind: str, payload) -> None:
    if kind == "aborted":
        raise Aborted(payload)  # the signal's number
    if kind == "user":
        error_type, message, exit_code = payload
        error = error_type(message)
        error.exit_code = exit_code
        raise error
    raise RuntimeError(f"a worker process failed:\n{payload}")


def _stop(workers: list[_Worker], signum: int) -> dict[int, object]:
    """Finish idle workers, stop busy ones so they clean up, kill what lingers.

    Busy ones get the signal that stopped this process, so their reports name it as a serial
    run's would; after Ctrl-C, which they had twice already, SIGTERM (a third Ctrl-C would cut
    their cleanup short). What they answer (their item's result, cut short) is returned by index.
    """
    for worker in workers:
        if worker.item is not None and worker.process.is_alive():
            _signal(worker, signal.SIGTERM if signum == signal.SIGINT else signum)
        # Also to a busy one: a SIGTERM landing as its item ends can be lost (CPython drops a
        # signal whose handler was reset before it ran), and it would then wait for work.
        _send(worker, None)
    answers: dict[int, object] = {}
    deadline = time.monotonic() + STOP_GRACE
    busy = [w for w in workers if w.item is not None]
    while busy and time.monotonic() < deadline:
        for conn in wait([w.conn for w in busy], max(0.0, deadline - time.monotonic())):
            worker = next(w for w in busy if w.conn is conn)
            busy.remove(worker)
            try:
                kind, payload = worker.conn.recv()
            except (EOFError, OSError):
                continue  # killed, or it ended without a word: its item counts as not run
            if kind == "ok" and worker.item is not None:
                answers[worker.item] = payload
    for worker in workers:
        worker.process.join(max(0.0, deadline - time.monotonic()))
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.conn.close()
    return answers


def _kill_all(workers: list[_Worker]) -> None:
    """Asked again while stopping: no more waiting for cleanups."""
    for worker in workers:
        _signal(worker, signal.SIGKILL)


def _signal(worker: _Worker, signum: int) -> None:
    pid = worker.process.pid
    if pid is None or worker.process.exitcode is not None:  # reaped: its pid may be another process's by now
        return
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


@contextmanager
def _passing_signals_on(workers: list[_Worker]) -> Iterator[dict]:
    """SIGINT goes on to the workers (a second within 5 s also stops this process); SIGTERM or SIGHUP stop all.

    A stop is raised as Aborted only while this process waits for the workers; elsewhere (while
    the caller handles a result) it is kept in state["pending"] and raised at the next wait, so
    the results are never lost between the two. Once the workers are being stopped (each has
    had its SIGTERM and cleans up), any signal kills them instead of leaving them behind.
    """
    state: dict = {"last": 0.0, "stopping": False, "waiting": False, "pending": None}

    def stop(signum: int) -> None:
        if state["waiting"]:
            raise Aborted(signum)
        state["pending"] = state["pending"] or signum

    def on_int(signum, frame):
        if state["stopping"]:
            _kill_all(workers)
            return
        for worker in workers:
            if worker.item is not None:
                _signal(worker, signal.SIGINT)
        now = time.monotonic()
        if now - state["last"] < 5.0:
            stop(signal.SIGINT)
        state["last"] = now

    def on_end(signum, frame):
        if state["stopping"]:
            _kill_all(workers)
        else:
            stop(signum)

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
