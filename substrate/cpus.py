"""How many worker processes a run may start, and that they end with the process that
started them."""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import signal
from collections.abc import Callable

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1

# More workers than this per CPU only compete for the same cores; the cap also keeps a
# mistyped count (a thousand, a billion) from starting a process each.
WORKERS_PER_CPU = 4


def available_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def capped_workers(requested: int) -> int:
    """``requested`` workers, at least 1 and at most ``WORKERS_PER_CPU`` per available CPU."""
    return max(1, min(requested, WORKERS_PER_CPU * available_cpus()))


def ready_to_end_with_parent() -> None:
    """Look up what ``end_with_parent`` needs, in the parent, before it forks its workers
    (loading a library in a child forked while another thread held the loader's lock would
    wait for ever)."""
    _prctl()


def end_with_parent(parent: int) -> bool:
    """In a worker forked from ``parent``: ask Linux to send it SIGTERM when the parent ends
    (PR_SET_PDEATHSIG); whether the parent still lives (it may have ended before the request
    took effect). A parent killed outright (SIGKILL, SIGHUP from a closed terminal) runs no
    clean-up: without this its workers lived on, blocked on work that never came, holding
    the caller's stdout and stderr open."""
    prctl = _prctl()
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    return os.getppid() == parent


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """The C library's ``prctl``, or None (not glibc-like: the parent still stops its workers
    when it ends in order)."""
    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        log.debug("cannot ask workers to end with the parent process")
        return None
    return prctl
