"""Standard error with secrets masked: a last guard for messages mixle did not compose.

The argument parser's usage errors repeat what was typed ("Got unexpected extra argument(s)
(... ghp_...)" for an unquoted `mixle add`), and a library warning may quote a value. Every
message mixle writes itself is masked already; this wrapper masks whatever reaches stderr, so
that a secret typed on the command line is not printed back. The secret rules are loaded on
the first write only: a command that writes nothing to stderr pays nothing.

Writing to stderr is best effort: when it fails (`2>>log` on a full disk), the rest of what
would be said there is dropped, and the command goes on to its own end and exit code: a note
that cannot be printed must not stop a write, nor turn a success into a failure. (A reader
that left, `2>&1 | head -1`, still ends the run, as SIGPIPE would.)
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, TextIO


class MaskedStream:
    """A text stream that masks secrets in what is written and passes the rest through."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from substrate import safe_text

        self.write_unmasked(safe_text(text) if text else text)
        return len(text)

    def write_unmasked(self, text: str) -> int:
        try:
            self._stream.write(text)
        except BrokenPipeError:  # the reader left (`2>&1 | head -1`): ended as SIGPIPE ends
            raise
        except OSError:
            self._lost()
        return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError:
            self._lost()

    def _lost(self) -> None:
        """Send what is left, and what comes, to /dev/null: what is still buffered would
        fail again when the interpreter flushes it at exit, with a traceback."""
        devnull = os.open(os.devnull, os.O_WRONLY)
        with contextlib.suppress(OSError, ValueError):  # ValueError: not a file (a test's)
            os.dup2(devnull, self._stream.fileno())
        os.close(devnull)
        with contextlib.suppress(OSError):
            self._stream.flush()

    @property
    def unmasked(self) -> _Unmasked:
        """The stream without the masking, for a line whose parts were masked one by one:
        joined, a file name and a message can read as ``key: value`` ("password.txt:
        Permission denied") and lose the message to the mask."""
        return _Unmasked(self)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding...
        return getattr(self._stream, name)


class _Unmasked:
    """Writes to a ``MaskedStream``'s stream as they are, failing as quietly."""

    def __init__(self, masked: MaskedStream) -> None:
        self._masked = masked

    def write(self, text: str) -> int:
        return self._masked.write_unmasked(text)

    def flush(self) -> None:
        self._masked.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._masked, name)
