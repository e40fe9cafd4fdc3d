from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from substrate.context.compress import terms
from substrate.store import Substrate


@pytest.fixture
def workers_left_by_a_killed_parent() -> Callable[[list[str], Path, str], list[int]]:
    """Start ``command`` (a process whose two workers each make a file named by their pid in
    ``marks``, then wait), send it ``signum`` once both work, and return the workers still
    alive ten seconds after it ended. No process is left behind, whatever happens."""

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    def run(command: list[str], marks: Path, signum: str) -> list[int]:
        parent = subprocess.Popen(command)
        try:
            deadline = time.monotonic() + 30
            workers: list[int] = []
            while len(workers) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
                workers = [int(p.name) for p in marks.iterdir()]
            assert len(workers) == 2
            parent.send_signal(getattr(signal, signum))  # no clean-up runs in the parent
            parent.wait(timeout=30)
            deadline = time.monotonic() + 10
            while any(map(alive, workers)) and time.monotonic() < deadline:
                time.sleep(0.05)
            return [pid for pid in workers if alive(pid)]
        finally:
            parent.kill()
            for pid in [int(p.name) for p in marks.iterdir()]:
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)

    return run


@pytest.fixture
def lexical_search(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Replace ranking by a transparent scorer (the share of query terms an item holds), so
    tests of retrieval, answers and hops control scores exactly. Returns the queries asked."""
    asked: list[str] = []

    def search(
        self: Substrate, query: str, k: int = 5, *, filters: Any = None, skip: Any = (), **_: Any
    ) -> Any:
        asked.append(query)
        wanted = terms(query)
        scopes = filters.scopes if filters is not None else None
        hits = []
        for item in self.iter_items():
            if scopes is not None and item.scope not in scopes:
                continue
            score = len(wanted & terms(item.text)) / len(wanted) if wanted else 0.0
            if score > 0 and item.id not in skip:
                hits.append((item, score))
        hits.sort(key=lambda pair: -pair[1])
        return hits[:k]

    monkeypatch.setattr(Substrate, "search", search)
    return asked


T = TypeVar("T")


def _without_hanging(run: Callable[[], T], what: str, seconds: float = 60) -> T:
    results: list[T] = []
    runner = threading.Thread(target=lambda: results.append(run()), daemon=True)
    runner.start()
    runner.join(timeout=seconds)
    assert not runner.is_alive(), f"{what} blocked"
    return results[0]


@pytest.fixture
def without_hanging() -> Callable[..., Any]:
    """``without_hanging(run, what)``: ``run()``'s result; a call that blocks (a FIFO opened,
    a deadlock) fails the test after a minute instead of hanging the suite."""
    return _without_hanging


@pytest.fixture
def another_run_first(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[], object]], None]:
    """Have ``run`` (another writer) run once, just before an ingest run's first save:
    ``another_run_first(run)``."""
    from substrate.ingest.session import IngestSession

    real = IngestSession.flush

    def before_the_first_save(run: Callable[[], object]) -> None:
        pending = [run]

        def interleaved(self: IngestSession, *, wait: bool = True) -> None:
            if self.pending and pending:
                pending.pop()()
            real(self, wait=wait)

        monkeypatch.setattr(IngestSession, "flush", interleaved)

    return before_the_first_save
