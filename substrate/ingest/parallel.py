"""Preparing many files in worker processes, handed back in file order.

Reading, parsing and gating a file is pure computation on its bytes, and on a first ingest of a
large tree it is most of the work. With several cores, worker processes prepare chunks of
files while this process applies and saves the chunks already done; results come back in the
order the files were given, so the shard ends up the same as with one process.

Each worker is forked with ``os.fork`` (Linux only: elsewhere, and for small runs, files are
prepared in this process), not through ``multiprocessing``, whose start-up in the child touches
standard input (and waits for ever on a lock a host's thread reading it holds). It gets a pipe
that brings it chunks of tickets and one that takes back their results.
This process sends and receives on its main thread, with no helper threads: a chunk goes to
the worker with the least work waiting, and results are read in the order the chunks were
sent. Workers ignore Ctrl-C: the interrupt reaches this process, which stops taking results,
ends the workers and saves what was applied. Should a worker die, the files not yet handed
back are prepared here instead; should this process be killed, the workers end too (Linux sends
them SIGTERM).
"""

from __future__ import annotations

import fcntl
import logging
import multiprocessing
import os
import pickle
import signal
import sys
import threading
from collections import deque
from collections.abc import Generator, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from itertools import chain
from multiprocessing.connection import Connection
from typing import Any

from substrate.cpus import (
    available_cpus,
    capped_workers,
    end_with_parent,
    ready_to_end_with_parent,
)
from substrate.ingest.prepare import IngestOptions, Prepared, Ticket, prepare_many

log = logging.getLogger(__name__)

# Below this many files to read, starting workers costs more than it saves.
MIN_PARALLEL_FILES = 1000
CHUNK_FILES = 64
# ... and at most this many bytes of files per chunk, so that what is held in memory stays
# bounded when files are large (a chunk's files are all parsed before their items are built;
# a chunk holds at least one file).
CHUNK_BYTES = 1 << 20
# Chunks sent ahead of the one being applied, per worker: keeps workers busy while bounding
# the memory held by finished, not yet applied results.
CHUNKS_AHEAD = 4
MAX_AUTO_WORKERS = 4
# Pipes are enlarged to this (Linux allows up to /proc/sys/fs/pipe-max-size, 1 MiB by default)
PIPE_BYTES = 1 << 20
_F_SETPIPE_SZ = 1031
_F_GETPIPE_SZ = 1032


def can_fork() -> bool:
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def worker_count(requested: int | None, n_files: int) -> int:
    """How many worker processes to prepare ``n_files`` with (0: prepare in this process).

    Args:
        requested: the caller's choice (``jobs``); None decides from the CPUs and the number
            of files; 1 or less means no workers. At most ``WORKERS_PER_CPU`` per CPU.
        n_files: how many files must be read.
    """
    if not can_fork():
        return 0
    if requested is None:
        if n_files < MIN_PARALLEL_FILES:
            return 0
        requested = min(available_cpus(), MAX_AUTO_WORKERS)
    return capped_workers(requested) if requested > 1 else 0


class WorkerDied(Exception):
    """A worker could not start, or ended without handing back the chunks it was given."""


def _prepare_chunk(
    tickets: Sequence[Ticket], options: IngestOptions, fingerprint: str, encoded: bool
) -> list[Prepared]:
    return prepare_many(tickets, options, fingerprint, encoded=encoded)


def _serve(
    tickets: Connection,
    results: Connection,
    parent: int,
    options: IngestOptions,
    fingerprint: str,
    encoded: bool,
    *,
    mask: set[int | signal.Signals],
    not_ours: Iterable[Connection],
) -> None:
    """A worker's life, in the forked child: prepare each chunk received and send its
    results back, until None. It never returns: the child must not go on running the
    parent's code, and ends with ``os._exit`` (no clean-up of the parent's objects, no
    traceback of a worker whose parent stopped listening midway). The parent notices a
    worker that ends early by its pipe.

    First it ignores Ctrl-C (the parent's to handle), ends on SIGTERM whatever the parent
    does with it (even blocks it), restores the signal ``mask`` the fork held, and closes the
    pipe ends ``not_ours``: the parent's, and the other workers'.
    """
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler saves; a worker ends
        signal.pthread_sigmask(signal.SIG_SETMASK, mask - {signal.SIGTERM})
        for conn in not_ours:
            conn.close()
        if end_with_parent(parent):  # (else it died before the request took effect)
            _answer(tickets, results, options, fingerprint, encoded)
    finally:
        os._exit(0)


def _answer(
    tickets: Connection,
    results: Connection,
    options: IngestOptions,
    fingerprint: str,
    encoded: bool,
) -> None:
    """Answer each chunk of tickets received with its results; an unexpected error is sent
    back, for the parent to raise, and ends the worker."""
    while (chunk := pickle.loads(tickets.recv_bytes())) is not None:
        try:
            received = [Ticket._make(fields) for fields in chunk]
            reply: object = _prepare_chunk(received, options, fingerprint, encoded)
        except Exception as exc:  # noqa: BLE001 - raised again in the parent
            reply = _Failure(exc)
        results.send_bytes(pickle.dumps(reply, pickle.HIGHEST_PROTOCOL))
        if isinstance(reply, _Failure):
            return


@dataclass
class _Failure:
    """An error raised in a worker, sent back to be raised in the parent."""

    error: Exception

    def __reduce__(self) -> tuple[type[_Failure], tuple[Exception]]:
        try:  # an exception that does not survive pickling is sent as its message
            pickle.dumps(self.error)
        except Exception:  # noqa: BLE001
            return (_Failure, (RuntimeError(f"{type(self.error).__name__}: {self.error}"),))
        return (_Failure, (self.error,))


def _enlarged(conn: Connection) -> int:
    """Enlarge the pipe behind ``conn`` as far as allowed; returns its capacity in bytes."""
    with suppress(OSError):  # a lower system limit: the default size will do
        fcntl.fcntl(conn.fileno(), _F_SETPIPE_SZ, PIPE_BYTES)
    try:
        return int(fcntl.fcntl(conn.fileno(), _F_GETPIPE_SZ))
    except OSError:
        return 1 << 16


class _Worker:
    """A forked worker, the ends of its two pipes this process keeps, and its waiting work.

    ``waiting`` counts the bytes of chunks sent and not yet answered. A chunk is only sent
    when they fit in the pipe (or when nothing is waiting): a send then never blocks on a
    worker that is itself blocked sending results this process has not read yet.
    """

    def __init__(self) -> None:
        self.pid = 0
        self.tickets: Connection | None = None
        self.results: Connection | None = None
        self.capacity = 0
        self.waiting = 0

    def start(
        self, options: IngestOptions, fingerprint: str, encoded: bool, others: list[_Worker]
    ) -> None:
        """Fork the worker (``others``: the workers started before, whose pipe ends it closes).

        Ctrl-C is held back while forking (``_interrupts_held``): the child ignores it before
        it could arrive, and in this process it arrives once the worker is known, so that it
        can be stopped.
        """
        tickets_in, self.tickets = multiprocessing.Pipe(duplex=False)
        self.results, results_out = multiprocessing.Pipe(duplex=False)
        self.capacity = _enlarged(self.tickets)
        _enlarged(results_out)
        parent = os.getpid()
        try:
            with _interrupts_held() as mask:
                try:
                    self.pid = os.fork()  # recorded at once: a worker this process knows is stopped
                    if self.pid == 0:  # the worker: never returns
                        not_ours = chain([self.tickets, self.results], _ends(others))
                        _serve(
                            tickets_in,
                            results_out,
                            parent,
                            options,
                            fingerprint,
                            encoded,
                            mask=mask,
                            not_ours=not_ours,
                        )
                finally:  # in this process (the worker never gets here)
                    tickets_in.close()  # only the worker keeps these ends: its death closes them
                    results_out.close()
        except OSError as exc:  # out of processes or memory
            for conn in (self.tickets, self.results):
                conn.close()
            raise WorkerDied(f"cannot start a worker process ({exc.strerror or exc})") from exc

    def fits(self, size: int) -> bool:
        return self.waiting == 0 or self.waiting + size <= self.capacity

    def send(self, message: bytes) -> None:
        assert self.tickets is not None
        try:
            self.tickets.send_bytes(message)
        except OSError as exc:  # the worker is gone (a broken pipe)
            raise WorkerDied("a worker process died") from exc
        self.waiting += len(message) + 16  # the message and its length header, with margin

    def receive(self, size: int) -> list[Prepared]:
        assert self.results is not None
        try:
            reply = pickle.loads(self.results.recv_bytes())
        except (EOFError, OSError) as exc:
            raise WorkerDied("a worker process died") from exc
        self.waiting -= size + 16
        if isinstance(reply, _Failure):
            raise reply.error
        result: list[Prepared] = reply
        return result

    def ready(self) -> bool:
        """Whether the worker's next answer (or its end) can be read without waiting."""
        return self.results is not None and self.results.poll()

    def stop(self, *, finished: bool) -> None:
        """End the worker: when every chunk was answered, by telling it so; else (an error,
        an interrupt, a dead worker) at once, as what it is preparing is not needed. Stopping
        a stopped worker does nothing."""
        if self.pid > 0:
            if finished and self.tickets is not None:
                try:
                    self.tickets.send_bytes(pickle.dumps(None))
                except OSError:
                    finished = False
            if not finished:
                with suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGTERM)
        # closed before waiting: a worker that SIGTERM cannot reach still ends, at the end
        # of its pipe (waiting for a chunk) or at a broken one (sending results)
        for conn in _ends([self]):
            conn.close()
        if self.pid > 0:
            with suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = -1


_STOPS = (signal.SIGINT, signal.SIGTERM)  # Ctrl-C, and a stop a host may handle as one


@contextmanager
def _interrupts_held() -> Iterator[set[int | signal.Signals]]:
    """Hold Ctrl-C (and SIGTERM) back for the block; one that came meanwhile arrives when it
    ends. Yields the signal mask from before, for a child forked in the block to restore: the
    child sets its own handlers first, so that neither runs the parent's in its place.

    Blocking covers this thread. The kernel may hand a Ctrl-C to another thread of the
    process (a progress bar's, a host's) instead, and Python then raises it in the main
    thread at once: in the main thread the handlers are also swapped for one that only notes
    the signal, raised again once the handlers are back. (In another thread no
    ``KeyboardInterrupt`` is ever raised.)
    """
    # Python acts on a Ctrl-C another thread took at its next chance, which may be inside
    # any of the calls below: each change is made where the ``finally`` undoes it, and the
    # mask comes back first (a stop left blocked would keep every later worker from ending).
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    previous: dict[int, Any] = {}
    noted: list[int] = []
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, set(_STOPS))
        if threading.current_thread() is threading.main_thread():
            for signum in _STOPS:
                handler = signal.getsignal(signum)
                if handler is not None:  # None: a handler not set from Python, which stays
                    previous[signum] = handler
                    signal.signal(signum, lambda got, _frame: noted.append(got))
        yield mask
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # one held back is noted now
        with ExitStack() as restore:  # each handler is set back, even when one before raised
            for held, handler in previous.items():
                restore.callback(signal.signal, held, handler)
        if noted:
            _deliver(noted[0], previous[noted[0]])


def _deliver(signum: int, handler: Any) -> None:
    """Run ``handler`` for a signal that was held back, here and now. (Raised again with
    ``signal.raise_signal``, its Python handler would run at some later point, which may be
    inside a finalizer the collector runs, and a ``KeyboardInterrupt`` raised there is
    printed and dropped.)"""
    if callable(handler):
        handler(signum, None)
    elif handler != signal.SIG_IGN:  # the default action: ends the process
        signal.raise_signal(signum)


def _ends(workers: list[_Worker]) -> Iterator[Connection]:
    """The pipe ends this process holds for ``workers``."""
    for worker in workers:
        for conn in (worker.tickets, worker.results):
            if conn is not None and not conn.closed:
                yield conn


def chunks(tickets: Iterable[Ticket]) -> Iterator[list[Ticket]]:
    """Consecutive groups of at most ``CHUNK_FILES`` tickets and ``CHUNK_BYTES`` bytes: a
    worker's share at a time, and what ``prepare_many`` takes in one go."""
    current: list[Ticket] = []
    size = 0
    for ticket in tickets:
        if current and (len(current) >= CHUNK_FILES or size + (ticket.size or 0) > CHUNK_BYTES):
            yield current
            current, size = [], 0
        current.append(ticket)
        size += ticket.size or 0
    if current:
        yield current


@dataclass
class _Sent:
    chunk: list[Ticket]
    worker: _Worker
    size: int


def prepared_in_workers(
    tickets: Iterable[Ticket],
    options: IngestOptions,
    fingerprint: str,
    workers: int,
    *,
    encoded: bool = False,
    cancel: threading.Event | None = None,
) -> Generator[tuple[Ticket, Prepared], None, None]:
    """Prepare ``tickets`` in ``workers`` processes; yield the results in ticket order.

    ``tickets`` is read lazily, a chunk at a time: while the caller still walks and plans,
    the workers already prepare the first chunks. A finished chunk is handed back as soon as
    the one before it was, and at most ``CHUNKS_AHEAD`` chunks per worker are in flight.
    With ``encoded``, workers send items back as log lines (``prepare``'s ``encoded``), for
    a shard on disk. ``cancel``: the caller's stop request, once set (a worker that dies
    then is not warned of).
    """
    pool: list[_Worker] = []
    groups = chunks(tickets)
    sent: deque[_Sent] = deque()
    limit = workers * CHUNKS_AHEAD
    unsent: list[list[Ticket]] = []  # a chunk being sent
    finished = False
    try:
        try:
            ready_to_end_with_parent()  # (before forking)
            for _ in range(workers):
                worker = _Worker()
                pool.append(worker)  # before it starts: however starting ends, it is stopped
                worker.start(options, fingerprint, encoded, pool[:-1])
            for chunk in groups:
                unsent = [chunk]
                # as plain tuples: a named tuple pickles through a Python method, 3x slower
                message = pickle.dumps([tuple(t) for t in chunk], pickle.HIGHEST_PROTOCOL)
                worker = min(pool, key=lambda w: w.waiting)
                while sent and (len(sent) >= limit or not worker.fits(len(message))):
                    yield from _received(sent)
                worker.send(message)
                sent.append(_Sent(chunk, worker, len(message)))
                unsent = []
                while sent and sent[0].worker.ready():
                    yield from _received(sent)
            while sent:
                yield from _received(sent)
            finished = True
        except WorkerDied as exc:
            # no failure once a stop has begun: the SIGTERM that a ``timeout`` or systemd sends
            # the whole process group ends the workers too
            if cancel is None or not cancel.is_set():
                log.warning("%s; preparing the remaining files here", exc)
            _stop_all(pool, finished=False)  # what the others were preparing is done here
            for chunk in chain([s.chunk for s in sent], unsent, groups):
                yield from zip(
                    chunk, prepare_many(chunk, options, fingerprint, encoded=encoded), strict=True
                )
    finally:
        _stop_all(pool, finished=finished)


def _stop_all(pool: list[_Worker], *, finished: bool) -> None:
    """Stop every worker and wait for it, even through more Ctrl-C: an interrupt while one
    is waited for stops the rest at once, then goes on (a worker never waited for would stay
    a zombie of a long-lived host)."""
    interrupt: KeyboardInterrupt | None = None
    for worker in pool:
        while True:
            try:
                worker.stop(finished=finished and interrupt is None)
                break
            except KeyboardInterrupt as exc:
                interrupt = exc
    if interrupt is not None:
        raise interrupt


def _received(sent: deque[_Sent]) -> Iterator[tuple[Ticket, Prepared]]:
    """The results of the oldest chunk in flight (waiting for it), which leaves the queue."""
    oldest = sent[0]
    done = oldest.worker.receive(oldest.size)
    sent.popleft()
    return zip(oldest.chunk, done, strict=True)
