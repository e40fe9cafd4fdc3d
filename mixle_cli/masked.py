"""Standard error with secrets masked: a last guard for messages mixle did not compose.

The argument parser's usage errors repeat what was typed ("Got unexpected extra argument(s)
(... ghp_...)" for an unquoted `mixle add`), and a library warning may quote a value. Every
message mixle writes itself is masked already; this wrapper masks whatever reaches stderr, so
that a secret typed on the command line is not printed back. The secret rules are loaded on
the first write only: a command that writes nothing to stderr pays nothing.
"""

from __future__ import annotations

from typing import Any, TextIO


class MaskedStream:
    """A text stream that masks secrets in what is written and passes the rest through."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from substrate.secrets import safe_text

        self._stream.write(safe_text(text) if text else text)
        return len(text)

    @property
    def unmasked(self) -> TextIO:
        """The stream underneath, for a line whose parts were masked one by one: joined, a
        file name and a message can read as ``key: value`` ("password.txt: Permission
        denied") and lose the message to the mask."""
        return self._stream

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, flush, encoding...
        return getattr(self._stream, name)
