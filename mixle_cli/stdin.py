"""Reading standard input: as a stream, whole, or up to a limit; a clear usage error when the
caller closed it. And a file named instead, read as standard input is."""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
from collections.abc import Iterator
from typing import BinaryIO

from mixle_cli.errors import FOUND, OPERATIONAL, fail, usage


def stdin_stream() -> BinaryIO:
    """Standard input as bytes (``mixle add - <&-`` is a usage error, not a crash)."""
    if sys.stdin is None:
        usage("standard input is closed")
    buffer = getattr(sys.stdin, "buffer", None)  # a test's stand-in may be text only
    return buffer if buffer is not None else io.BytesIO(sys.stdin.read().encode())


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


_RAISE_FILE_SIZE = "raise max_file_size in the [ingest] table of the shard's mixle.toml"


def stdin_within(limit: int, hint: str) -> bytes:
    """Standard input whole, when it holds at most ``limit`` bytes; more is an error of the
    input (exit 1, with ``hint``), found without reading on: an endless stream (``yes |``,
    ``< /dev/zero``) must not take all the memory there is."""
    with _readable():
        return read_limited(stdin_stream(), limit, "standard input", hint)


def stdin_lines(limit: int, what: str) -> Iterator[bytes]:
    """Standard input a line at a time (``stdin_stream``), a stream that cannot be read
    refused as ``stdin_within`` refuses it. A line longer than ``limit`` bytes is bad usage
    (``what`` says what a line should be), found without reading on: ``< /dev/zero`` holds no
    line end, and must neither take all the memory there is nor keep Ctrl-C waiting."""
    with _readable():
        stream = stdin_stream()
        for number, line in enumerate(iter(lambda: stream.readline(limit + 1), b""), start=1):
            if len(line) > limit:
                usage(f"standard input line {number} is longer than {limit} bytes: not {what}")
            yield line


@contextlib.contextmanager
def _readable() -> Iterator[None]:
    """A read of standard input failing (nohup's, opened for writing only) is bad usage, as a
    closed one is: it is as good as closed."""
    try:
        yield
    except OSError as exc:
        usage(f"standard input cannot be read ({exc.strerror or exc})")


def read_limited(stream: BinaryIO, limit: int, name: str, hint: str) -> bytes:
    """``stream`` whole, or the error ``stdin_within`` gives for ``name`` when it holds more
    than ``limit`` bytes."""
    from substrate import read_within

    data = read_within(stream, limit)
    if len(data) > limit:
        fail(f"{name} holds more than {limit} bytes, the size limit", FOUND, hint)
    return data


def stdin_text(limit: int, hint: str = _RAISE_FILE_SIZE) -> str:
    """Standard input as UTF-8 text (anything else is a usage error) of at most ``limit``
    bytes (``stdin_within``)."""
    data = stdin_within(limit, hint)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        usage(f"standard input is not valid UTF-8 (byte {exc.start})")


def file_within(path: str, limit: int, hint: str) -> bytes:
    """The file ``path`` whole (a named pipe or a device too, read as a stream), refused as
    ``stdin_within`` refuses standard input past ``limit`` bytes; one that cannot be read is
    an operational error."""
    from substrate import shown_path

    try:
        with open(path, "rb") as fh:
            return read_limited(fh, limit, shown_path(path), hint)
    except OSError as exc:
        fail(f"cannot read {shown_path(path)}: {exc.strerror or exc}", OPERATIONAL)
