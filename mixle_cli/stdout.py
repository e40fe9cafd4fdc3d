"""Standard output that delivers every write whole, or fails.

A blocking write to a pipe whose reader leaves in the middle of it returns a short count, not
an error, and Python's buffered streams take the short count for the whole: the rest of a large
listing was dropped and `mixle ls | head -c 100` exited 0. Here a write goes on until all of it
is out, so the next attempt meets the closed pipe (exit 141, see ``errors.guarded``). A closed
standard output (`mixle ls >&-`) fails the first write with a clear error instead of dropping
the results, and characters the output's encoding cannot show are escaped, not fatal.
"""

from __future__ import annotations

import codecs
import errno
import io
import os
import sys
from typing import Any


class _WholeWrites(io.RawIOBase):
    """A file descriptor whose ``write`` returns only when every byte is written."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        size = view.nbytes
        while view:
            view = view[os.write(self._fd, view) :]
        return size


class _Closed(io.TextIOBase):
    """Standard output when the caller closed it: writing anything is an error."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


def install() -> None:
    """Replace ``sys.stdout`` with a stream of whole writes (for the ``mixle`` process only:
    tests that capture output keep their own streams)."""
    out = sys.stdout
    if out is None:
        sys.stdout = _Closed()
        return
    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):  # not a file descriptor: leave it
        return
    out.flush()
    encoding = out.encoding or "utf-8"
    utf = codecs.lookup(encoding).name.startswith("utf")
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(_WholeWrites(fd)),
        encoding=encoding,
        errors=out.errors if utf else "backslashreplace",
        line_buffering=bool(out.line_buffering),
    )
