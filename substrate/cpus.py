"""How many worker processes a run may start."""

from __future__ import annotations

import os

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
