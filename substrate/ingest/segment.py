"""What a format parser produces, and how an item's stable id is derived from it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import orjson

from substrate.errors import InvalidInputError
from substrate.ingest.cutsecrets import ChunkSecrets, secrets_across


@dataclass(slots=True)
class Segment:
    """One future item, before the gate: its text and where in the file it came from.

    Attributes:
        kind: the item kind (``text``, ``record``, ``trace`` or ``artifact``).
        text: the retrievable text surface.
        section: the heading path (``Install > Linux``) for prose, else None.
        line_start: first 1-based line of the text in the file, when known.
        line_end: last 1-based line, when known.
        chunk: index of this chunk within its section (0 when the section fits in one).
        payload: structured content (a record's fields, front-matter fields, a trace row).
        tags: tags implied by the content (front matter, manifest meta keys).
        extra: format-specific provenance fields (``row`` for traces, ``index`` for records).
        secrets: the secrets of the text this chunk was cut from (``cutsecrets``): their parts
            in ``text`` and their copies are masked before the gate sees the item.
    """

    kind: str = "text"
    text: str = ""
    section: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    chunk: int = 0
    payload: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    secrets: ChunkSecrets | None = None


@dataclass(slots=True)
class LineIssue:
    """A line or row a parser had to leave out (the rest of the file is kept)."""

    line: int | None
    reason: str


@dataclass(slots=True)
class Parsed:
    """The segments of one file, the lines left out, and the format finally used."""

    format: str
    segments: list[Segment] = field(default_factory=list)
    issues: list[LineIssue] = field(default_factory=list)
    slices: bool = False  # every segment's text is a slice of the parsed text, unchanged
    dropped: int = 0  # rows left out as empty (a CSV row of blank cells), counted as chunks are


class FileRejected(InvalidInputError):
    """A whole file cannot be ingested (invalid UTF-8, broken JSON or CSV, bad manifest).

    Attributes:
        reason: what is wrong, without the location.
        line: the 1-based line where the problem was found, when known.
        byte: the 0-based byte offset, when known.
    """

    def __init__(self, reason: str, *, line: int | None = None, byte: int | None = None) -> None:
        where = f"line {line}" if line is not None else f"byte {byte}" if byte is not None else ""
        super().__init__(f"{where}: {reason}" if where else reason)
        self.reason = reason
        self.line = line
        self.byte = byte


def canonical(payload: dict[str, Any]) -> bytes:
    """Deterministic bytes for a payload (sorted keys; unknown objects by ``str``)."""
    if not payload:
        return b"{}"
    return orjson.dumps(payload, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=str)


def derive_id(
    origin: str, locator: str, kind: str, scope: str, text: str, payload: bytes = b"{}"
) -> str:
    """A 16-hex id that depends only on where content came from and what it is.

    Re-ingesting unchanged content gives the same ids, so links and citations keep pointing at
    the same item; content that changed gets a new id.

    Args:
        origin: the source key (absolute file path, or a stream or source name).
        locator: where in the source (section and occurrence, or row index).
        kind: the item kind.
        scope: the item scope (the same content in two scopes is two items).
        text: the item text after the gate.
        payload: ``canonical(payload)`` after the gate.
    """
    head = "\x00".join((origin, locator, kind, scope, text, "")).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(head + payload, digest_size=8).hexdigest()


def mark_secrets_across(segments: list[Segment], *, apart: bool = False) -> None:
    """Give each text segment (but a chunk of a longer text, which knows its own) its part of
    the secrets that span several segments, for the gate to mask (``secrets_across``;
    ``apart``: the segments are passages of their own). The gate sees one item at a time: a
    private key stored one line per item would otherwise keep every line but the first
    readable."""
    texts = [seg for seg in segments if seg.kind == "text" and seg.secrets is None]
    if len(texts) > 1:
        found = secrets_across([seg.text for seg in texts], apart=apart)
        for seg, known in zip(texts, found, strict=True):
            seg.secrets = known
