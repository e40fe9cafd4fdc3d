"""Reading a stream no further than a limit.

Outside ``substrate.ingest`` on purpose: the commands that read standard input (scan-secrets,
redact, add, ask) would otherwise import the whole ingestion package for this one function,
a fifth of a pre-commit hook's time.
"""

from __future__ import annotations

from typing import BinaryIO


def read_within(stream: BinaryIO, limit: int) -> bytes:
    """``stream`` whole when it holds at most ``limit`` bytes; else its first ``limit + 1``,
    which say it is larger. It is not read on: an endless one (``yes | mixle add -``) would
    never end, and ``cat /dev/zero | mixle ingest -`` must not take all the memory there is.
    A read may return less than asked (an unbuffered pipe): it is read again until the end."""
    held = bytearray()
    while len(held) <= limit:
        asked = limit + 1 - len(held)
        part = stream.read(asked)
        if not part:
            break
        held += part
        if len(part) < asked and _terminal(stream):
            break  # Ctrl-D ended it: a terminal's end of input holds for one read only, and
            # reading on waited for a second Ctrl-D
    return bytes(held)


def _terminal(stream: BinaryIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # (closed, or a stand-in without one)
        return False
