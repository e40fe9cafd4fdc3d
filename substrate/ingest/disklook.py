"""Whether a file the shard knows is gone from the disk, or only out of reach.

A file moved elsewhere takes its old place in the shard (``IngestSession.moved_from``): the
old file's items are removed. That must never happen to the files of a drive or share that
is not mounted now, which look just as gone; nor to a file that cannot be looked at.
"""

from __future__ import annotations

import os

# Folders that hold mount points by custom, and users' folders in them: their mount points may
# go when a drive is unmounted. Anything under /run is made at run time (/run/media/USER, the
# shares of /run/user/UID/gvfs, which come and go inside one mount).
_MOUNT_ROOTS = frozenset({"/Volumes", "/media", "/mnt"})


def gone_from_disk(path: str) -> bool:
    """Whether ``path`` is gone, not out of reach (``DiskLook.gone``): a file ingested
    elsewhere with its content then takes its place in the shard."""
    return DiskLook().gone(path)


class DiskLook:
    """Looks for files on disk for one run; what it found of each folder is kept."""

    def __init__(self) -> None:
        self._mount_places: dict[str, bool] = {}

    def gone(self, path: str) -> bool:
        """Whether nothing is at ``path``, and the nearest folder above it that is there is
        no place a drive or share may be mounted on or in: not empty (an unmounted drive
        leaves its mount point empty), holding no mount point, and not a folder that holds
        them by custom (``/media``, ``/Volumes``: unmounting may remove the mount point
        itself). A path that cannot be looked at is not gone."""
        folder = path
        while True:
            try:
                os.lstat(folder)
            except (FileNotFoundError, NotADirectoryError):
                parent = os.path.dirname(folder)
                if parent == folder:
                    return False
                folder = parent
                continue
            except (OSError, ValueError):  # ValueError: a name the file system cannot hold
                return False
            if folder == path:
                return False
            if folder not in self._mount_places:
                self._mount_places[folder] = _may_be_a_mount_place(folder)
            return not self._mount_places[folder]


def _may_be_a_mount_place(folder: str) -> bool:
    """Whether a drive or share may be mounted on ``folder`` or in it, unmounted now: it is
    empty, holds a mount point, or is where mount points are made (``_MOUNT_ROOTS``). One
    that cannot be read may be."""
    if folder in _MOUNT_ROOTS or os.path.dirname(folder) in _MOUNT_ROOTS:
        return True
    if folder == "/run" or folder.startswith("/run/"):
        return True
    try:
        with os.scandir(folder) as entries:
            empty = True
            for entry in entries:
                empty = False
                if entry.is_dir(follow_symlinks=False) and os.path.ismount(entry.path):
                    return True
            return empty
    except (OSError, ValueError):
        return True
