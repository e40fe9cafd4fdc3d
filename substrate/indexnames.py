"""Folders standing at the names of the files in a shard's ``index/``.

Each file derived from the log has a name of its own there: the catalog, the note of the
log's end, the ingest source cache, the search index's Parquet files and packs. A folder left
at one of those names (by a sync tool, a restore, a slip of the hand) keeps that file from
ever being written, since no file can be renamed over a folder: the catalog is never written
(every command reads the log whole), the end of the log is never noted (a log cut short
could not be told from a crash), a search index file is never replaced (at the manifest's
name, every search rebuilds the index). Readers take such a folder for a missing file, and
the log stays whole. ``audit`` names it, and ``reindex`` removes it.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import shutil
from pathlib import Path

from substrate.derived import CATALOG_FILE, END_FILE, SOURCE_FILES
from substrate.errors import ShardError
from substrate.search.layout import is_index_file

log = logging.getLogger(__name__)

# What is lost while a folder stands at each name besides the search index's.
CONSEQUENCES = {
    CATALOG_FILE: "the catalog cannot be written, so every command reads the whole log",
    END_FILE: (
        "the end of the log cannot be noted, so a log cut short could not be told from a crash"
    ),
    **dict.fromkeys(
        SOURCE_FILES, "the ingest source cache cannot be kept, so every ingest rebuilds it"
    ),
}


def is_derived_file(name: str) -> bool:
    """Whether ``name`` is that of a file mixle writes in ``index/``."""
    return name in CONSEQUENCES or is_index_file(name)


def folders_in_place(directory: Path) -> list[Path]:
    """The folders in ``directory`` (a shard's ``index/``) at the name of a file mixle writes
    there, sorted by name. A link is no folder here: it is replaced as a file is."""
    try:
        with os.scandir(directory) as entries:
            # (the listing's file types: a link to a folder is told as a link)
            found = [
                Path(entry.path)
                for entry in entries
                if is_derived_file(entry.name) and entry.is_dir(follow_symlinks=False)
            ]
    except OSError:  # no index/ yet, or no folder: nothing stands in it
        return []
    return sorted(found)


def remove_folders_in_place(directory: Path) -> None:
    """Remove every folder in ``directory`` (a shard's ``index/``) that stands at the name of
    a file mixle writes there (see ``is_derived_file``).

    Such a name belongs to mixle alone, in a folder that holds only what the log rebuilds, so
    what stands there is removed, not kept; a link in it is not followed. A folder holding a
    mount point is left: what is mounted there is no part of the index.

    Raises:
        ShardError: a folder cannot be removed; the message names it.
    """
    for path in folders_in_place(directory):
        try:
            if _holds_a_mount(path, directory.stat().st_dev):
                raise OSError(errno.EBUSY, "another file system is mounted in it")
            shutil.rmtree(path)
        except FileNotFoundError:  # removed meanwhile: nothing stands in the way
            continue
        except OSError as exc:
            raise ShardError(
                f"cannot remove {path}, a folder in the place of an index file "
                f"({exc.strerror or exc}); remove it: {path.parent.name}/ holds only files "
                "rebuilt from the log"
            ) from exc
        log.warning("removed %s, a folder in the place of an index file", path)


def _holds_a_mount(folder: Path, device: int) -> bool:
    """Whether a file system is mounted at ``folder`` or in it: what is mounted there is no
    part of the index, and removing the tree would empty it. A mount of the same device (a
    bind mount) shows only in the mount table; another device shows in ``stat`` too, where
    there is no table to read."""
    real = os.path.realpath(folder)
    if any(point == real or point.startswith(real + os.sep) for point in _mount_points()):
        return True
    # (os.walk does not follow links to folders)
    return any(os.lstat(root).st_dev != device for root, _dirs, _files in os.walk(folder))


def _mount_points(table: str = "/proc/self/mountinfo") -> list[str]:
    """The mount points this process sees (Linux's mount table; none elsewhere)."""
    try:
        with open(table, encoding="utf-8", errors="surrogateescape") as fh:
            rows = [line.split(" ") for line in fh.read().splitlines()]
    except OSError:
        return []
    # the fifth field, its spaces and other such characters written in octal ("\040")
    octal = re.compile(r"\\([0-7]{3})")
    return [octal.sub(lambda m: chr(int(m.group(1), 8)), row[4]) for row in rows if len(row) > 4]
