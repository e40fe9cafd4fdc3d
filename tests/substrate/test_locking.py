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
