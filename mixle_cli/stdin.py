"""Reading standard input: all of its bytes, or a clear usage error when the caller closed it."""

from __future__ import annotations

import sys

from mixle_cli.errors import usage


def stdin_bytes() -> bytes:
    """Everything on standard input (``mixle add - <&-`` is a usage error, not a crash)."""
    if sys.stdin is None:
        usage("standard input is closed")
    buffer = getattr(sys.stdin, "buffer", None)  # a test's stand-in may be text only
    return bytes(buffer.read()) if buffer is not None else sys.stdin.read().encode()


def refuse_a_terminal(message: str) -> None:
    """A usage error when standard input is a terminal: reading it would wait, silently, for
    the user to type (``message`` says what to give instead)."""
    if sys.stdin is not None and sys.stdin.isatty():
        usage(message)


def stdin_text() -> str:
    """Standard input as UTF-8 text (anything else is a usage error)."""
    data = stdin_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        usage(f"standard input is not valid UTF-8 (byte {exc.start})")
