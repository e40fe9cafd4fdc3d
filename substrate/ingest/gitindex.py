"""The paths a git repository tracks, read from its index (``.git/index``).

git never ignores a tracked file: a rule added after a file was committed, or a file added
with ``git add -f``, leaves it in the repository, and ``git status`` watches it. A walk that
read the ignore rules alone left such files out, and removed the items they gave. Reading the
index (formats 2, 3 and 4, as git writes them; SHA-1 or SHA-256 object names) tells which
paths are tracked without running git, which a machine may not have.

An index this module cannot read (another format, damage, or one written without its checksum,
which tells the length of its object names) tracks nothing: the rules decide, as they did
before.
"""

from __future__ import annotations

import hashlib
import logging
import os
import struct
from functools import lru_cache
from pathlib import Path

from substrate.ingest.ignore import work_tree_top

log = logging.getLogger(__name__)

_HEADER = struct.Struct(">4sII")
_STAT_BYTES = 40  # ctime, mtime (seconds, nanoseconds), dev, ino, mode, uid, gid, size
_EXTENDED = 0x4000  # the entry's flags are followed by two more bytes (version 3 and up)


class Tracked:
    """The files a repository tracks, and the folders holding one, by their paths from the
    top of its work tree (``/`` separators, as written in the index)."""

    def __init__(self, files: frozenset[str]) -> None:
        self.files = files
        folders: set[str] = set()
        for path in files:
            cut = path.rfind("/")
            while cut > 0 and (folder := path[:cut]) not in folders:
                folders.add(folder)
                cut = path.rfind("/", 0, cut)
        self.folders = frozenset(folders)

    def holds(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` is a tracked file, or (``is_dir``) a folder holding one."""
        return rel in (self.folders if is_dir else self.files)


def tracked_in(top: Path) -> Tracked | None:
    """What the repository whose work tree is at ``top`` tracks; None when it has no index
    mixle can read."""
    index = _index_path(top)
    if index is None:
        return None
    try:
        info = os.stat(index)
    except OSError:
        return None
    return _read(str(index), info.st_size, info.st_mtime_ns)


def tracked_by_git(path: os.PathLike[str] | str, *, unread: bool = False) -> bool:
    """Whether the file at ``path`` is tracked by the git repository whose work tree holds it,
    as named or where its links lead (a tracked ``.mixle`` link to ``data/.mixle``); ``unread``
    when that repository has an index mixle cannot read (a split one, or one written without
    its checksum)."""
    named, real = os.path.abspath(path), os.path.realpath(path)
    return any(_tracked_at(Path(where), unread) for where in dict.fromkeys((named, real)))


def _tracked_at(where: Path, unread: bool) -> bool:
    top = work_tree_top(where.parent)
    index = _index_path(top) if top is not None else None
    if top is None or index is None or not index.exists():
        return False  # (a repository of no commit yet has no index: it tracks nothing)
    tracked = tracked_in(top)
    if tracked is None:
        return unread
    return tracked.holds(where.relative_to(top).as_posix(), False)


def _index_path(top: Path) -> Path | None:
    """The index of the repository at ``top``: in ``.git``, or in the folder a ``.git`` file
    names (a linked work tree, a submodule)."""
    dot_git = top / ".git"
    if dot_git.is_dir():
        return dot_git / "index"
    try:
        line = dot_git.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    folder = Path(line.removeprefix("gitdir:").strip())
    return (folder if folder.is_absolute() else top / folder) / "index"


def _hash_bytes(data: bytes) -> int:
    """How long the index's object names are, told by the checksum that ends it: SHA-1's 20
    bytes, or SHA-256's 32 in a repository made with it.

    Raises:
        ValueError: the checksum is neither (damage; or git told to skip it, index.skipHash).
    """
    for digest in (hashlib.sha1, hashlib.sha256):
        size = digest().digest_size
        if len(data) > size and digest(data[:-size]).digest() == data[-size:]:
            return size
    raise ValueError("its checksum does not match (or was not written)")


@lru_cache(maxsize=4)
def _read(path: str, size: int, mtime_ns: int) -> Tracked | None:
    """The index at ``path`` (its size and time key the cache: a commit changes them)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        return Tracked(frozenset(_paths(data, _hash_bytes(data))))
    except (OSError, ValueError, struct.error) as exc:
        log.debug("git index %s not read: %s", path, exc)
        return None


def _paths(data: bytes, hash_bytes: int) -> list[str]:
    """The paths of the index ``data``'s entries."""
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3, 4):
        raise ValueError(f"not an index of a format read here ({signature!r}, {version})")
    at = _HEADER.size
    fixed = _STAT_BYTES + hash_bytes
    paths: list[str] = []
    previous = b""
    for _ in range(count):
        entry = at
        (flags,) = struct.unpack_from(">H", data, entry + fixed)
        at = entry + fixed + 2
        if version >= 3 and flags & _EXTENDED:
            at += 2
        if version == 4:  # the previous path less some bytes of its end, then the rest
            cut, at = _offset_varint(data, at)
            end = data.index(b"\0", at)
            if cut > len(previous):
                raise ValueError("a path cuts more than the one before it holds")
            name = previous[: len(previous) - cut] + data[at:end]
            at = end + 1
        else:  # the path, then NULs padding the entry to a multiple of eight bytes
            end = data.index(b"\0", at)
            name = data[at:end]
            at = entry + ((end - entry + 8) & ~7)
        previous = name
        paths.append(name.decode("utf-8", "surrogateescape").rstrip("/"))
    return paths


def _offset_varint(data: bytes, at: int) -> tuple[int, int]:
    """git's variable-length number (each byte past the first adds one before shifting)."""
    byte = data[at]
    at += 1
    value = byte & 0x7F
    while byte & 0x80:
        byte = data[at]
        at += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, at
