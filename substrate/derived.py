"""The folder of files derived from a shard's items (``index/``), kept no more readable
than the log they are derived from.

Its files hold the items' words (the search index), ids and source paths. Who may not read
``items.jsonl`` (a shard made private with ``chmod 600``) may not enter ``index/`` either:
each writer creates it through ``derived_dir``, which closes it to the group or to others
when the log is closed to them, whatever mode its files were written with.

Each of its files has a name of its own (listed here, and the search index's in
``search.layout``). A folder standing at one keeps the file from being written; what fails
over it says so, and names the command that removes it (``failure``).
"""

from __future__ import annotations

import os
import stat
from contextlib import suppress
from pathlib import Path

from substrate.replacing import make_folder

LOG_FILE = "items.jsonl"
INDEX_DIR = "index"  # the files derived from the log, rebuilt when missing
# The files in it with a name of their own (the search index's names: ``search.layout``).
CATALOG_FILE = "offsets.bin"  # id -> line of each live item (``catalog``)
END_FILE = "log-end.json"  # how far the log was committed (``logend``)
SOURCE_FILES = ("sources.json", "source-items.json", "sources.journal")  # ``ingest.sourcefile``


def derived_dir(directory: Path) -> None:
    """Create ``directory`` (a shard's ``index/``) if need be, and close it to whom the
    shard's log is closed to (raises OSError when it cannot be created)."""
    make_folder(directory)
    try:
        log_mode = (directory.parent / LOG_FILE).stat().st_mode
        dir_mode = directory.stat().st_mode
    except OSError:  # no log yet: nothing to follow
        return
    closed = 0
    if not log_mode & stat.S_IRGRP:
        closed |= stat.S_IRWXG
    if not log_mode & stat.S_IROTH:
        closed |= stat.S_IRWXO
    if dir_mode & closed:
        with suppress(OSError):  # not ours to change: its owner decides
            os.chmod(directory, stat.S_IMODE(dir_mode) & ~closed)


def is_folder(path: Path) -> bool:
    """Whether a folder (not a link to one) stands at ``path``."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def failure(path: Path, exc: BaseException) -> str:
    """What to tell of ``exc``, met reading or writing the derived file at ``path``.

    A folder standing in the file's place is said to be one, with the command that removes it:
    the error alone ("Is a directory") names no cure, and the warning would come back with
    every command. Else the error's own words.
    """
    if is_folder(path):
        return f"{path.name} is a folder; `mixle reindex` removes it"
    if isinstance(exc, OSError):
        return system_words(exc)
    return str(exc)


def system_words(exc: OSError) -> str:
    """The system's words for ``exc`` ("Permission denied"): pyarrow puts its whole message,
    with the name of a temporary file, where ``strerror`` belongs."""
    if exc.errno:
        return os.strerror(exc.errno)
    return exc.strerror or str(exc)
