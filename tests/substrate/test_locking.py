from __future__ import annotations

import fcntl
import logging
import os
import threading
from pathlib import Path

import pytest

from substrate.errors import ShardError
from substrate.locking import exclusive_lock


def test_a_writer_held_up_by_another_says_it_waits(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    lock = tmp_path / ".lock"
    other = os.open(lock, os.O_RDWR | os.O_CREAT)  # another holder (its own open file)
    fcntl.flock(other, fcntl.LOCK_EX)
    with (
        pytest.raises(ShardError, match="held by another writer"),
        exclusive_lock(lock, wait=False),
    ):
        pass
    threading.Timer(0.2, os.close, (other,)).start()  # released a moment later
    with caplog.at_level(logging.WARNING), exclusive_lock(lock):
        pass
    assert [r.getMessage() for r in caplog.records] == [
        f"waiting for another process to release {lock}"
    ]
    caplog.clear()
    with exclusive_lock(lock):  # free: nothing to say
        pass
    assert caplog.records == []
    fcntl.flock(other := os.open(lock, os.O_RDWR), fcntl.LOCK_EX)  # held up again: a run
    threading.Timer(0.2, os.close, (other,)).start()  # saving in batches is told once
    with caplog.at_level(logging.WARNING), exclusive_lock(lock):
        pass
    assert caplog.records == []


def test_a_waiter_whose_lock_file_was_replaced_waits_for_the_new_one(tmp_path: Path) -> None:
    import time

    path = tmp_path / ".lock"
    entered = threading.Event()

    def waiter() -> None:
        with exclusive_lock(path):
            entered.set()

    with exclusive_lock(path):
        thread = threading.Thread(target=waiter)
        thread.start()
        time.sleep(0.2)  # waiting on the first file
        path.unlink()  # removed as "stale"; a writer that came since locks a new one
        newcomer = os.open(path, os.O_RDWR | os.O_CREAT)
        fcntl.flock(newcomer, fcntl.LOCK_EX)
    try:
        assert not entered.wait(0.3)  # the old file's lock is no lock any more
    finally:
        os.close(newcomer)  # the newcomer is done
    assert entered.wait(5)
    thread.join()


def test_a_wait_limited_gives_up_or_takes_the_lock_freed_in_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from substrate.locking import LockBusy, wait_for_locks_at_most

    lock = tmp_path / ".lock"
    other = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(other, fcntl.LOCK_EX)
    wait_for_locks_at_most(0)
    try:
        with caplog.at_level(logging.WARNING), pytest.raises(LockBusy), exclusive_lock(lock):
            pass
        assert caplog.records == []  # no wait, so none is told of
        wait_for_locks_at_most(0.1)
        with (
            pytest.raises(LockBusy, match="still held by another process after 0.1 s"),
            exclusive_lock(lock),
        ):
            pass
        threading.Timer(0.1, os.close, (other,)).start()  # freed before the wait runs out
        wait_for_locks_at_most(10)
        with exclusive_lock(lock):
            pass
        for wrong in (-1, float("nan"), float("inf")):
            with pytest.raises(ValueError):
                wait_for_locks_at_most(wrong)
    finally:
        wait_for_locks_at_most(None)


def test_an_index_writer_whose_wait_ran_out_does_not_write_unlocked(tmp_path: Path) -> None:
    from substrate.locking import LockBusy, wait_for_locks_at_most
    from substrate.search.sync import _LOCK_NAME, index_lock

    index = tmp_path / "index"
    index.mkdir()
    other = os.open(index / _LOCK_NAME, os.O_RDWR | os.O_CREAT)
    fcntl.flock(other, fcntl.LOCK_EX)  # another process writing the index
    wait_for_locks_at_most(0.05)
    try:
        with pytest.raises(LockBusy), index_lock(index):
            pass  # (the read-only way on: without the lock)
    finally:
        wait_for_locks_at_most(None)
        os.close(other)
