"""What every parser is told about the file it parses."""

from __future__ import annotations

from dataclasses import dataclass

from substrate.limits import DEFAULT_CHUNK_CHARS


@dataclass(slots=True)  # not frozen: one is built per file, and frozen ones build slower
class ParseContext:
    """Parser options and the file's location.

    Attributes:
        chunk_chars: the largest chunk of prose, in characters.
        path: the absolute path of the file being parsed (None for a stream).
        name: the source name used in messages.
        redact: secrets will be masked: a text cut into chunks is scanned whole for them.
        forced: the user chose the format (``--as``): a parser that would read some files of
            its name as another format (a ``manifest.json`` of no artifact) keeps to it.
    """

    chunk_chars: int = DEFAULT_CHUNK_CHARS
    path: str | None = None
    name: str = ""
    redact: bool = True
    forced: bool = False
