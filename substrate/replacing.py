"""Replacing a file atomically without widening who may read it."""

from __future__ import annotations

import contextlib
import errno
import glob
import logging
import os
import shutil
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


@contextlib.contextmanager
def replacing(path: Path, *, follow: bool = False, durable: bool = False) -> Iterator[Path]:
    """A temporary path beside ``path`` to write the new content to: it replaces ``path``
    (``replace_file``, with ``follow`` and ``durable``) when the block ends, and is removed if
    the block raises (a full disk, Ctrl-C), so that no half-written file is left behind.

    The name, ``.NAME.PID-THREAD.tmp``, lets ``remove_abandoned_temporaries`` find the file
    should the process be killed outright; two threads writing the same file at once (a
    library host's) each have their own.
    """
    tmp = path.with_name(temporary_name(path.name))
    try:
        create_new(tmp)
        yield tmp
        replace_file(tmp, path, follow=follow, durable=durable)
    except BaseException:
        with contextlib.suppress(OSError):  # the folder itself may be what went wrong
            tmp.unlink(missing_ok=True)
        raise


def create_new(tmp: Path) -> None:
    """Create ``tmp`` as a new, empty file of this process's own, of its folder's group
    (``take_folder_group``). A file or a link found at the name (another user who may write
    to the folder can foresee it: it names the process) is removed, never written through:
    opened through a link, the write would go to any file of this user's, and the permission
    bits given to it after would open that file up."""
    for _ in range(2):
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
        except FileExistsError:
            os.unlink(tmp)  # (a link is removed itself, not what it leads to)
            continue
        try:
            take_folder_group(fd, tmp.parent)
        finally:
            os.close(fd)
        return
    raise FileExistsError(errno.EEXIST, "made again as it was removed", str(tmp))


def take_folder_group(fd: int, folder: str | os.PathLike[str]) -> None:
    """Give what ``fd`` opens, which this process made in ``folder``, the folder's group where
    the two differ and this user may (a member of it). A team's shard in a folder of the
    team's group but without the setgid bit (which does this itself) kept each file a member
    made in that member's own group: another member could not read the index's record of
    what was ingested, passed it over, and an ingest gave back the items removed since."""
    with contextlib.suppress(OSError):
        group = os.stat(folder).st_gid
        if os.fstat(fd).st_gid != group:
            os.fchown(fd, -1, group)


def make_folder(path: Path) -> None:
    """``path.mkdir(parents=True, exist_ok=True)``; a folder made takes its parent's group
    (``take_folder_group``), so that the files made in it do too."""
    if path.is_dir():
        return
    path.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            take_folder_group(fd, path.parent)
        finally:
            os.close(fd)


def open_temporary(tmp: str | os.PathLike[str], mode: str = "wb") -> Any:
    """``tmp`` (which ``replacing`` made) opened to write, never through a link: one put in
    its place since fails the write (ELOOP) instead of writing to where it leads, and so does
    anything but a file of its own (``_open_own``)."""
    fd = _open_own(tmp, os.O_WRONLY)
    os.ftruncate(fd, 0)  # (after it is known to be its own: O_TRUNC would empty another)
    return os.fdopen(fd, mode, encoding="utf-8" if "b" not in mode else None)


def _open_own(path: str | os.PathLike[str], flags: int) -> int:
    """``os.open`` of a temporary this process made, refusing what another user may have put
    in its place meanwhile: a link (ELOOP), a FIFO (opened without waiting on it, then
    refused: a write would hang with the shard's lock held), a hard link to another file (a
    file of its own has no other name)."""
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1 or info.st_uid != os.getuid():
        os.close(fd)
        raise OSError(errno.EPERM, "replaced by another file while it was written", str(path))
    return fd


def made_read_only(path: Path) -> bool:
    """Whether ``path`` (followed when a link) exists and may not be written: by this user, or
    by anyone, as its mode says (root may write any file, but one made read-only by ``chmod
    a-w`` was set so to be kept). A rename would replace it all the same."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not os.access(path, os.W_OK) or not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)


def replace_file(
    tmp: str | os.PathLike[str],
    path: str | os.PathLike[str],
    *,
    follow: bool = False,
    durable: bool = False,
) -> None:
    """``os.replace(tmp, path)``, first giving ``tmp`` the permission bits ``path`` has.

    The temporary file was created with the umask: renamed over a file its owner had locked
    down (``chmod 600 items.jsonl``), it would quietly open it up again. A new ``path`` keeps
    the umask's bits.

    A symbolic link at ``path`` is itself replaced, never written through: a shard made
    elsewhere (one a cloned repository holds) could point a file mixle derives at any file of
    its user's. With ``follow``, for the files a user may keep elsewhere on purpose (the log,
    ``mixle.toml``, a baseline), the regular file a link points to is replaced and the link
    kept: renamed over the link, the file would part from the one the link points to, and the
    two would differ from then on without a word. A link to anything else (a device) is
    replaced itself.

    With ``durable``, for files that cannot be rebuilt (the log, settings, a baseline), the
    folder is synced too once the rename is done: until then a power cut may bring back the
    old file, though the new one's content was synced. The caller syncs that content.
    """
    target = _followed(path) if follow else os.fspath(path)
    with contextlib.suppress(FileNotFoundError):
        # ... but always readable by its owner: a file mixle writes and cannot read back (an
        # index someone made mode 000) would be rebuilt on every run, and never read
        st = os.lstat(target)
        if stat.S_ISREG(st.st_mode):
            _chmod_own(tmp, stat.S_IMODE(st.st_mode) | stat.S_IRUSR, st.st_gid)
    try:
        os.replace(tmp, target)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        _replace_across_devices(tmp, target)
    if durable:
        sync_name(target)


def _chmod_own(path: str | os.PathLike[str], mode: int, group: int) -> None:
    """Give the file at ``path`` these permission bits, and the ``group`` of the file it
    replaces where its owner may (a member of it): a shard a group shares stays the group's
    when one member rewrites a file (``compact``), which was made with that member's own
    group and locked the others out. Through a descriptor opened without following a link:
    a link put in its place is refused (ELOOP), not given them."""
    fd = _open_own(path, os.O_RDONLY)
    try:
        if os.fstat(fd).st_gid != group:
            with contextlib.suppress(PermissionError):  # (not a member: its own group stays)
                os.fchown(fd, -1, group)
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def sync_name(path: str | os.PathLike[str]) -> None:
    """Sync the folder of a file just created or renamed into place, so that its new name is
    on disk too; a folder that cannot be synced (some file systems refuse) is warned of: the
    file is there, only when it reaches the disk is uncertain."""
    try:
        _sync_folder(os.path.dirname(path) or os.curdir)
    except OSError as exc:
        log.warning("%s is written, but its folder could not be synced (%s)", path, exc)


def _sync_folder(path: str | os.PathLike[str]) -> None:
    """Sync a folder, so that the names created, renamed or removed in it are on disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _replace_across_devices(tmp: str | os.PathLike[str], target: str) -> None:
    """Replace ``target``, on another file system than ``tmp``, by a durable copy of ``tmp``
    made beside it (a rename cannot cross file systems)."""
    folder, name = os.path.split(target)
    near = Path(folder, temporary_name(name))
    try:
        create_new(near)  # (beside the file: its folder may be anyone's to write to as well)
        with open(tmp, "rb") as source, open_temporary(near) as copy:
            shutil.copyfileobj(source, copy)
            copy.flush()
            os.fchmod(copy.fileno(), stat.S_IMODE(os.stat(tmp).st_mode))
            os.fsync(copy.fileno())
        os.replace(near, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(near)
        raise
    os.unlink(tmp)


def refuse_link_to_another_file(path: Path) -> None:
    """Refuse a shard's own file (``items.jsonl``, ``mixle.toml``) that is a symbolic link to
    a file of another name: one kept elsewhere on purpose keeps its name, where a shard from
    elsewhere (a cloned repository's ``.mixle/``) could lead it to any file of its user's
    (``~/.cargo/credentials.toml``), which mixle would read as its own and write over.

    Raises:
        ShardError: it is such a link.
    """
    if not os.path.islink(path):
        return
    target = os.path.realpath(path)
    from substrate.locking import refuse_shared_folder  # (locking imports none of this)

    refuse_shared_folder(Path(target).parent)  # (where it is kept must be no shared folder)
    if os.path.basename(target) != path.name:
        from substrate.errors import ShardError  # (errors imports nothing of this module)

        raise ShardError(
            f"{path} is a symbolic link to {target}, not to a file named {path.name}: mixle "
            "reads and writes a shard's own files through a link only to a file of the same "
            "name; remove the link if this shard is not yours"
        )


def _followed(path: str | os.PathLike[str]) -> str:
    """The regular file ``path`` leads to through links; ``path`` itself when it leads to
    anything else (nothing, a device, a folder)."""
    target = os.path.realpath(path)
    return target if os.path.isfile(target) else os.fspath(path)


def open_derived(path: str | os.PathLike[str], flags: int, mode: int = 0o666) -> int:
    """``os.open`` of a file mixle derives and writes in place (a note, a journal), never
    through a symbolic link: one found at ``path`` is removed and the file made anew; one
    made takes its folder's group (``take_folder_group``)."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW, mode)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        log.warning("%s was a symbolic link; replaced by a file of its own", path)
        os.unlink(path)
        fd = os.open(path, flags | os.O_NOFOLLOW, mode)
    take_folder_group(fd, os.path.dirname(os.path.abspath(path)))
    return fd


def temporary_name(name: str) -> str:
    """The name of a temporary beside the file ``name``, as ``remove_abandoned_temporaries``
    finds it."""
    return f".{name}.{os.getpid()}-{threading.get_ident()}.tmp"


def remove_abandoned_temporaries(directory: Path, name: str = "*") -> None:
    """Delete the temporaries in ``directory`` whose writing process is gone
    (``abandoned_temporaries``): nothing else would, and a half-written index file can be
    large. ``name`` keeps to the temporaries of one file (in a folder that is not mixle's
    own)."""
    for path in abandoned_temporaries(directory, name):
        with contextlib.suppress(OSError):
            path.unlink()
            log.info("removed %s, left by a process that did not finish writing it", path)


def abandoned_temporaries(directory: Path, name: str = "*") -> list[Path]:
    """The ``.NAME.PID-THREAD.tmp`` files in ``directory`` whose writing process is gone (a
    kill -9, a power cut)."""
    pattern = name if name == "*" else glob.escape(name)  # a file named "base[1].json"
    found = []
    for path in directory.glob(f".{pattern}.*.tmp"):
        pid = path.name.rsplit(".", 2)[-2].split("-", 1)[0]  # older ones: .NAME.PID.tmp
        if pid.isdigit() and not _alive(int(pid)):
            found.append(path)
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True
