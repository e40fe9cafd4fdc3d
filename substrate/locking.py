"""An exclusive advisory lock that serializes writers of one shard across processes."""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from substrate.errors import ShardError

log = logging.getLogger(__name__)
_held = threading.local()  # the lock files this thread holds: a nested request passes


class LockBusy(ShardError):
    """Another process holds the lock, and the caller would not wait for it."""


@contextmanager
def exclusive_lock(path: Path, *, wait: bool = True) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (a file, created if missing, or a folder) for
    the block.

    The lock lives in its own file, not on ``items.jsonl``, so that compaction can replace the log
    while the lock is held. The kernel releases it if the process dies. A thread that already
    holds it passes through (a read-modify-write holds the lock around the save that takes it);
    the holder is the thread, so a block holding it must not span an ``await`` that lets
    another task of the same thread write. With ``wait=False`` a lock held by another process
    raises ``ShardError`` at once; else the wait is said (a command that seems to hang behind
    another writer, or a stuck one, tells why).
    """
    held: set[tuple[int, int]] = _held.__dict__.setdefault("files", set())
    while True:
        fd = _open(path)
        try:
            info = os.fstat(fd)
            key = (info.st_dev, info.st_ino)  # the file itself, however the path reached it
            if key in held:
                yield
                return
            _take(fd, path, wait)
            if _still_at(path, key):
                held.add(key)
                try:
                    yield
                finally:
                    held.discard(key)
                return
            # the lock file was removed or replaced while this process waited for it: a
            # writer that came since locks the new one, which must be waited for instead
        finally:
            os.close(fd)  # releases the lock if it was taken through this descriptor


def _open(path: Path) -> int:
    try:
        try:
            # never through a link: a dangling one would make a file wherever it points
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except IsADirectoryError:  # a folder is locked as it is: no lock file in it
            return os.open(path, os.O_RDONLY)
        except OSError as exc:  # ... but a folder is only read: a link to one will do
            if exc.errno != errno.ELOOP or not os.path.isdir(path):
                raise
            return os.open(path, os.O_RDONLY)
    except OSError as exc:
        why = "it is a symbolic link; remove it" if exc.errno == errno.ELOOP else exc.strerror
        raise ShardError(f"cannot open lock file {path}: {why}") from exc


def _take(fd: int, path: Path, wait: bool) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:  # another process holds it
        if not wait:
            raise LockBusy(f"{path} is held by another writer") from None
        _waiting.add(threading.get_ident())  # before the wait is told: a stop told of it ends it
        try:
            log.warning("waiting for another process to release %s", path)
            fcntl.flock(fd, fcntl.LOCK_EX)
        finally:
            _waiting.discard(threading.get_ident())


# The threads waiting for another process's lock, which a stop request may end at once
_waiting: set[int] = set()


def waiting_for_a_lock() -> bool:
    """Whether this thread waits for another process to release a lock (a signal handler
    that stops the process after its work at hand may stop it here instead: no work is at
    hand)."""
    return threading.get_ident() in _waiting


def _still_at(path: Path, key: tuple[int, int]) -> bool:
    """Whether ``path`` still names the file ``key`` is of."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    return (info.st_dev, info.st_ino) == key
