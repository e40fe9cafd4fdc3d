"""Preparing many files in worker processes, handed back in file order.

Reading, parsing and gating a file is pure computation on its bytes, and on a first ingest of a
large tree it is most of the work. With several cores, worker processes prepare chunks of
files while this process applies and saves the chunks already done; results come back in the
order the files were given, so the shard ends up the same as with one process.

Workers are forked (Linux only: elsewhere, and for small runs, files are prepared in this
process). They ignore Ctrl-C: the interrupt reaches this process, which stops taking results,
cancels the chunks not yet started and saves what was applied. Should a worker die, the files
it had not finished are prepared here instead; should this process be killed, the workers end
too (Linux sends them SIGTERM).
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import signal
import sys
from collections import deque
from collections.abc import Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import chain

from substrate.ingest.prepare import IngestOptions, Prepared, Ticket, prepare

log = logging.getLogger(__name__)

# Below this many files to read, starting workers costs more than it saves.
MIN_PARALLEL_FILES = 1000
CHUNK_FILES = 64
# ... and at most this many bytes of files per chunk, so that the results held in memory stay
# bounded when files are large (a chunk holds at least one file).
CHUNK_BYTES = 8 << 20
# Chunks submitted ahead of the one being applied, per worker: keeps workers busy while
# bounding the memory held by finished, not yet applied results.
CHUNKS_AHEAD = 4
MAX_AUTO_WORKERS = 4


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def worker_count(requested: int | None, n_files: int) -> int:
    """How many worker processes to prepare ``n_files`` with (0: prepare in this process).

    Args:
        requested: the caller's choice (``jobs``); None decides from the CPUs and the number
            of files; 1 or less means no workers.
        n_files: how many files must be read.
    """
    if not can_fork():
        return 0
    if requested is None:
        if n_files < MIN_PARALLEL_FILES:
            return 0
        requested = min(available_cpus(), MAX_AUTO_WORKERS)
    return requested if requested > 1 else 0


def _start_worker(parent: int) -> None:
    """Worker set-up: Ctrl-C is the parent's to handle, and the worker ends with the parent.

    A parent killed outright (SIGKILL, or SIGTERM from a timeout) runs no clean-up; without
    this its workers would live on, blocked on results nobody reads, holding the caller's
    stdout and stderr open.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end_with_parent()
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _end_with_parent() -> None:
    """Ask Linux to send SIGTERM to this process when its parent ends (PR_SET_PDEATHSIG)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # not glibc-like: the pool's own checks remain
        log.debug("cannot ask to end with the parent process")


_PR_SET_PDEATHSIG = 1


def _prepare_chunk(
    tickets: Sequence[Ticket], options: IngestOptions, fingerprint: str, encoded: bool
) -> list[Prepared]:
    return [prepare(ticket, options, fingerprint, encoded=encoded) for ticket in tickets]


def _chunks(tickets: Iterable[Ticket]) -> Iterator[list[Ticket]]:
    """Consecutive groups of at most ``CHUNK_FILES`` tickets and ``CHUNK_BYTES`` bytes."""
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


def prepared_in_workers(
    tickets: Iterable[Ticket],
    options: IngestOptions,
    fingerprint: str,
    workers: int,
    *,
    encoded: bool = False,
) -> Generator[tuple[Ticket, Prepared], None, None]:
    """Prepare ``tickets`` in ``workers`` processes; yield the results in ticket order.

    ``tickets`` is read lazily, a chunk at a time: while the caller still walks and plans,
    the workers already prepare the first chunks. A finished chunk is handed back as soon as
    the one before it was, and at most ``CHUNKS_AHEAD`` chunks per worker are in flight.
    With ``encoded``, workers send items back as log lines (``prepare``'s ``encoded``), for
    a shard on disk.
    """
    pool = ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_start_worker,
        initargs=(os.getpid(),),
    )
    chunks = _chunks(tickets)
    ahead: deque[tuple[list[Ticket], Future[list[Prepared]]]] = deque()
    limit = workers * CHUNKS_AHEAD
    unsent: list[list[Ticket]] = []  # a chunk being submitted
    try:
        try:  # a dead worker breaks the pool: submit raises then as well as result
            for chunk in chunks:
                unsent = [chunk]
                future = pool.submit(_prepare_chunk, chunk, options, fingerprint, encoded)
                ahead.append((chunk, future))
                unsent = []
                while ahead and (len(ahead) >= limit or ahead[0][1].done()):
                    yield from _finished(ahead)
            while ahead:
                yield from _finished(ahead)
        except BrokenProcessPool:
            log.warning("a worker process died; preparing the remaining files here")
            for chunk in chain([chunk for chunk, _ in ahead], unsent, chunks):
                for ticket in chunk:
                    yield ticket, prepare(ticket, options, fingerprint)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _finished(
    ahead: deque[tuple[list[Ticket], Future[list[Prepared]]]],
) -> Iterator[tuple[Ticket, Prepared]]:
    """The results of the oldest chunk in flight (waiting for it), which leaves the queue."""
    chunk, future = ahead[0]
    done = future.result()
    ahead.popleft()
    return zip(chunk, done, strict=True)
