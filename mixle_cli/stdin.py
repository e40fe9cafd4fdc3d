"""Reading standard input: as a stream, whole, or up to a limit; a clear usage error when the
caller closed it."""

from __future__ import annotations

import io
import os
import stat
import sys
from typing import BinaryIO

from mixle_cli.errors import FOUND, fail, usage


def stdin_stream() -> BinaryIO:
    """Standard input as bytes (``mixle add - <&-`` is a usage error, not a crash)."""
    if sys.stdin is None:
        usage("standard input is closed")
    buffer = getattr(sys.stdin, "buffer", None)  # a test's stand-in may be text only
    return buffer if buffer is not None else io.BytesIO(sys.stdin.read().encode())


def stdin_bytes() -> bytes:
    """Everything on standard input."""
    return bytes(stdin_stream().read())


def refuse_a_terminal(message: str) -> None:
    """A usage error when standard input is a terminal: reading it would wait, silently, for
    the user to type (``message`` says what to give instead)."""
    if sys.stdin is not None and sys.stdin.isatty():
        usage(message)


def stdin_piped() -> bool:
    """Whether standard input is a pipe or a file (something was meant to be read from it)."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode if sys.stdin is not None else 0
    except (OSError, ValueError, io.UnsupportedOperation):  # closed, or a test's stand-in
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def stdin_text(limit: int | None = None) -> str:
    """Standard input as UTF-8 text (anything else is a usage error); with ``limit``, more
    than ``limit`` bytes is an error of the input (exit 1), found without reading on."""
    if limit is None:
        data = stdin_bytes()
    else:
        from substrate.ingest.textio import read_within

        data = read_within(stdin_stream(), limit)
        if len(data) > limit:
            fail(
                f"standard input holds more than {limit} bytes, the size limit",
                FOUND,
                "raise max_file_size in the [ingest] table of the shard's mixle.toml",
            )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        usage(f"standard input is not valid UTF-8 (byte {exc.start})")
