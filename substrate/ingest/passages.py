"""Reading a passages file (``mixle ingest-docs``): one JSON string or ``{"text": ...}`` object
per line, each bad line reported with its number and left out, the rest kept."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from substrate.ingest.formats.jsonl import loads
from substrate.ingest.formats.records import DOC_KEYS
from substrate.ingest.report import SHARD_FILE, SHARD_LOG, IngestIssue
from substrate.ingest.segment import FileRejected
from substrate.ingest.textio import bad_byte, decode_text, not_text
from substrate.limits import BINARY_PROBE_BYTES
from substrate.log import is_shard_log
from substrate.secrets import safe_repr
from substrate.widetext import wide_encoding


@dataclass
class Passages:
    """What a passages file holds: the passages, the line each came from, and the problems.

    A problem with ``fatal`` set rejected the whole input (a shard's own file, a binary file,
    an invalid UTF-16 file); the others are single lines left out.
    """

    docs: list[Any] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    problems: list[IngestIssue] = field(default_factory=list)


def read_passages(raw: bytes, shown: str, *, shard_file: bool = False) -> Passages:
    """The passages of ``raw``, problems said to be in ``shown`` (the input as the user gave
    it). ``shard_file``: the input is one of the shard's own files, refused unread."""
    read = Passages()
    if shard_file or is_shard_log(raw):
        read.problems.append(
            IngestIssue(shown, SHARD_FILE if shard_file else SHARD_LOG, fatal=True)
        )
        return read
    why = not_text(raw[:BINARY_PROBE_BYTES])  # said once, as `ingest` says it, not by line
    if why is not None:
        read.problems.append(IngestIssue(shown, why, 1, fatal=True))
        return read
    data = raw.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte-order mark, as other inputs
    if wide_encoding(raw) is not None:  # UTF-16 or UTF-32 saying so with its mark: decoded
        try:  # whole, and rejected as a whole when invalid, as other inputs
            data = decode_text(raw).encode()
        except FileRejected as exc:
            read.problems.append(IngestIssue(shown, exc.reason, exc.line, exc.byte, fatal=True))
            return read
    for number, line in enumerate(data.splitlines(), 1):
        if line.strip():
            _read_line(read, line.decode("utf-8", "surrogateescape"), number, shown)
    return read


def _read_line(read: Passages, text: str, number: int, shown: str) -> None:
    try:
        doc = loads(text)
    except orjson.JSONDecodeError as exc:  # a byte that is no UTF-8 is no JSON either: told
        problem = bad_byte(text) or f"invalid JSON: {exc.msg}"  # by the byte
    except ValueError as exc:  # nested too deep
        problem = str(exc)
    else:
        problem = _unknown_keys(doc)  # {"txt": ...}: a mistyped key, not an empty passage
        if not problem and _is_passage(doc):
            read.docs.append(doc)
            read.lines.append(number)
            return
        if not problem:  # 42 or [1, 2] would have become a passage "42"
            problem = f'neither a JSON string nor a {{"text": ...}} object ({_json_kind(doc)})'
    read.problems.append(IngestIssue(shown, problem, number))


def _is_passage(doc: object) -> bool:
    """A string, or an object whose text (if it has one) is a string."""
    return isinstance(doc, str) or (isinstance(doc, dict) and isinstance(doc.get("text", ""), str))


def _unknown_keys(doc: object) -> str:
    """What is wrong with an object that has none of the keys a passage is read from, but
    others (a mistyped "txt"), named (masked, as any text of the input); else ""."""
    if not isinstance(doc, dict) or not doc or any(key in doc for key in DOC_KEYS):
        return ""
    keys = ", ".join(safe_repr(key) for key in list(doc)[:5]) + (", ..." if len(doc) > 5 else "")
    return f"an object with none of the keys text, tags, payload (it has {keys})"


def _json_kind(value: object) -> str:
    if isinstance(value, dict):
        return "an object whose text is not a string"
    names = {bool: "a boolean", int: "a number", float: "a number", list: "an array"}
    return names.get(type(value), "null")
