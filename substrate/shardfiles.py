"""Shard folders mixle refuses to open: a path that is not UTF-8, special files in it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from substrate.derived import INDEX_DIR, LOG_FILE
from substrate.errors import InvalidInputError, ShardError
from substrate.settings import SETTINGS_FILE


def undecodable_path(root: Path) -> str | None:
    """``root`` as messages show it (its bytes that are not UTF-8 written ``\\xNN``) when it is
    not valid UTF-8 (Python keeps such bytes as lone surrogates), else None. A shard's search
    index is written through pyarrow, which takes UTF-8 paths only."""
    try:
        str(root).encode("utf-8")
    except UnicodeEncodeError:
        from substrate.secrets.sources import shown_path  # (its import costs every command)

        return shown_path(str(root))
    return None


def refuse_undecodable_path(root: Path) -> None:
    """Refuse to make a shard whose path is not valid UTF-8: items could be stored that no
    search would ever find (``undecodable_path``)."""
    shown = undecodable_path(root)
    if shown is None or (root / SETTINGS_FILE).exists() or (root / LOG_FILE).exists():
        return  # (one an earlier mixle made is read as ever: its search says why it cannot)
    raise InvalidInputError(
        f"the shard path '{shown}' is not valid UTF-8 (its search index could not be "
        "written); rename the folder, or choose another shard"
    )


def refuse_special_files(root: Path) -> None:
    """Refuse a shard whose log, settings or derived files (``index/``) include a FIFO, a
    socket or a device: opening one to read waits for a writer that may never come, and every
    command would hang."""
    index = root / INDEX_DIR
    if index.is_symlink():  # a shard from elsewhere could point it at any folder of its user's
        raise ShardError(
            f"{index} is a symbolic link; mixle writes and deletes files there (remove the "
            "link: it holds only files rebuilt from the log)"
        )
    try:  # the listing's file types: no stat of every index file on every open
        with os.scandir(index) as entries:
            odd = [index / e.name for e in entries if not (e.is_file() or e.is_dir())]
    except OSError:  # no index yet, or not a folder: said when it is used
        odd = []
    for path in (root / SETTINGS_FILE, root / LOG_FILE, *odd):
        try:
            mode = os.stat(path).st_mode
        except OSError:  # missing (a shard yet to be written) or unreadable: said when read
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a folder fails when read, as ever
            hint = f" (remove it: {INDEX_DIR}/ holds only files rebuilt from the log)"
            raise ShardError(f"{path} is not a regular file{hint if path.parent == index else ''}")
