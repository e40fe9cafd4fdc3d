"""Replacing a file atomically without widening who may read it."""

from __future__ import annotations

import contextlib
import os
import stat


def replace_file(tmp: str | os.PathLike[str], path: str | os.PathLike[str]) -> None:
    """``os.replace(tmp, path)``, first giving ``tmp`` the permission bits ``path`` has.

    The temporary file was created with the umask: renamed over a file its owner had locked
    down (``chmod 600 items.jsonl``), it would quietly open it up again. A new ``path`` keeps
    the umask's bits.
    """
    with contextlib.suppress(FileNotFoundError):
        os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
    os.replace(tmp, path)
