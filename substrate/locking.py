"""An exclusive advisory lock that serializes writers of one shard across processes."""

from __future__ import annotations

import errno
import fcntl
import logging
import math
import os
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from substrate.errors import InvalidInputError, ShardError
from substrate.replacing import take_folder_group

log = logging.getLogger(__name__)
_held = threading.local()  # the lock files this thread holds: a nested request passes


class LockBusy(ShardError):
    """Another process holds the lock, and the caller would not wait for it."""


class SharedFolderError(ShardError):
    """A shard refused in a folder anyone may write to (``refuse_shared_folder``): running
    again is refused again."""


def shard_lock(path: Path, *, wait: bool = True) -> AbstractContextManager[None]:
    """``exclusive_lock`` of a shard's writers' lock file ``path``, in a folder that is no
    shared one (``refuse_shared_folder``)."""
    refuse_shared_folder(path.parent)
    return exclusive_lock(path, wait=wait)


def refuse_shared_folder(folder: Path) -> None:
    """Refuse to write a shard in a folder anyone may write to that is shared (``/tmp``
    itself, ``/dev/shm``: sticky) or another user's (a folder of mode 777 someone made): there
    another user could plant the shard's files before they are made, or replace them, and
    read what it holds. (A folder of the user's own, or of root's, that shows mode 777 is
    written: a FAT or NTFS drive mounted without an owner, and Windows' drives under WSL, show
    every folder so, and no other user made it so.)"""
    try:
        info = os.stat(folder)
    except OSError:  # not there yet: the caller makes it, with the umask's bits
        return
    shared = info.st_mode & stat.S_ISVTX or info.st_uid not in (os.getuid(), 0)
    if info.st_mode & stat.S_IWOTH and shared:
        raise SharedFolderError(
            f"{folder} may be written by anyone: another user could replace the shard's files "
            f"or read them; keep the shard in a folder of its own (--shard {folder / 'kb'})"
        )


def planted(path: Path) -> bool:
    """Whether ``path`` (the link itself, when it is one) lies in a folder anyone may write to
    (``/tmp``) and belongs to neither the user running this nor root: anyone may have put it
    there. (A group's share is its members' to change, each other's files too, so nothing
    there can be told apart; a checkout someone else owns, read as root in a container, is
    trusted as it is.)"""
    try:
        shared = os.stat(path.parent).st_mode & stat.S_IWOTH
        owner = os.lstat(path).st_uid
    except OSError:  # gone since: nothing to read
        return False
    return bool(shared) and owner not in (os.getuid(), 0)


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
    another writer, or a stuck one, tells why), and ends as ``wait_for_locks_at_most`` sets.
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
            # never through a link: a dangling one would make a file wherever it points; the
            # umask decides its bits and the folder its group (a team's share, umask 002:
            # every member may lock it)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
            take_folder_group(fd, path.parent)
            return fd
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
    if _locked(fd):
        return
    if not wait:
        raise LockBusy(f"{path} is held by another writer")
    _waiting.add(threading.get_ident())  # before the wait is told: a stop told of it ends it
    try:
        if _patience != 0:  # (no wait to tell of)
            _tell_waiting(path)
        if _patience is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        elif not _locked_within(fd, _patience):
            raise LockBusy(
                f"{path} is still held by another process after {_patience:g} s of waiting"
            )
    finally:
        _waiting.discard(threading.get_ident())


# The locks this process was told waiting for: a run saving in several batches waits for a
# writer at each, and the user learns nothing new from the second telling
_told_waiting: set[str] = set()


def _tell_waiting(path: Path) -> None:
    if str(path) in _told_waiting:
        log.debug("waiting again for another process to release %s", path)
        return
    _told_waiting.add(str(path))
    log.warning("waiting for another process to release %s", path)


def _locked(fd: int) -> bool:
    """Whether the lock was taken at once (False: another process holds it)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _locked_within(fd: int, seconds: float) -> bool:
    """Whether the lock was taken within ``seconds``: tried again and again, at growing
    intervals (flock itself waits for ever or not at all)."""
    deadline = time.monotonic() + seconds
    pause = 0.02
    while not _locked(fd):
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(pause, left))
        pause = min(pause * 2, 0.5)
    return True


# How long a writer waits for another process's lock (None: for as long as it takes)
_patience: float | None = None


def wait_for_locks_at_most(seconds: float | None) -> None:
    """Make every later wait for another process's lock, in this process, give up after
    ``seconds`` (``LockBusy``); None waits for as long as it takes. A job run from cron
    should not pile up behind a stuck writer."""
    global _patience
    if seconds is not None and not 0 <= seconds < math.inf:  # (nor NaN)
        raise InvalidInputError(f"a wait is a number of seconds, 0 or more: {seconds}")
    _patience = seconds


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
