"""JSON Lines / NDJSON: one item per line, in file order.

A malformed line is reported with its line number and left out; the other lines are kept. A file
whose first rows are all traces (``input`` plus ``answer``/``label``/``call``) is read as traces.
An integer past 64 bits, or a number past a float's range (``1e400``), is valid JSON that the log
cannot store as a number: it is kept exactly, as the text of the number.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson

from substrate.ingest.chunk import Chunk, chunk_lines
from substrate.ingest.formats.context import ParseContext
from substrate.ingest.formats.records import document_parts, is_document, record_parts
from substrate.ingest.formats.traces import looks_like_traces, traces_from_rows
from substrate.ingest.segment import LineIssue, Parsed, Segment, mark_secrets_across
from substrate.ingest.textio import bad_byte
from substrate.limits import STORABLE_INTS
from substrate.secrets.fields import MAX_NESTING, nesting_depth
from substrate.widetext import wide_encoding

# orjson reads an integer past 64 bits as a float (its last digits lost), and the log cannot
# store one as a number: such integers are kept exactly, as strings of their digits.
_LONG_NUMBER = re.compile(r"\d{19,}")


def without_a_line_being_written(data: bytes) -> bytes:
    """``data``, a file of a document per line written to moments ago, without its last line
    when that has no line end yet and is no JSON: its writer is still writing it (an agent
    appending a trace). It is read once it ends; read now, it failed the run, and once ended
    made the file no longer one that only grew, so that all its lines were written again.
    A file in UTF-16 or UTF-32 is read whole (no byte ends its lines)."""
    cut = data.rfind(b"\n") + 1
    if cut in (0, len(data)):  # every line ended, or none (a file of no line is no log)
        return data
    if wide_encoding(data) is not None:  # UTF-16 or -32 (as PowerShell writes): its line
        return data  # ends are not single bytes, and a cut at one left half a character
    try:
        loads(data[cut:].decode("utf-8", "replace"))
    except (ValueError, TooDeep):  # (orjson's JSONDecodeError is a ValueError)
        return data[:cut]
    return data


class TooDeep(ValueError):
    """A JSON value nested deeper than the write gate checks (``MAX_NESTING``)."""


def loads(text: str) -> Any:
    """Parse JSON, keeping integers past 64 bits and numbers past a float's range exact.

    Raises:
        orjson.JSONDecodeError: invalid JSON.
        TooDeep: valid, but nested deeper than an item may be.
    """
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        # orjson refuses a number past a float's range (1e400, an integer of 400 digits),
        # which is valid JSON, and NaN or Infinity, which Python's json.dump writes for such
        # floats unless told not to: read again. Other errors keep orjson's words.
        if "number" not in exc.msg and not _CONSTANT.search(text):
            raise
        value = _exact(text, exc)
    if nesting_depth(value) > MAX_NESTING:
        raise TooDeep(f"nested deeper than {MAX_NESTING} levels")
    if _LONG_NUMBER.search(text) is None or not _has_huge_float(value):
        return value
    try:
        return json.loads(text, parse_int=_exact_int, parse_float=_finite_float)
    except (RecursionError, ValueError):  # nested deeper than the standard parser goes
        return value


def _exact(text: str, error: orjson.JSONDecodeError) -> Any:
    """``text`` read by the standard parser, its numbers past a float's range kept as
    written; ``error`` (orjson's) is raised when the text is invalid JSON all the same."""
    try:
        value = json.loads(
            text, parse_int=_exact_int, parse_float=_finite_float, parse_constant=_as_written
        )
        orjson.dumps(value)  # a lone surrogate ("\\ud800"), which orjson refuses to read
    except json.JSONDecodeError as exc:  # the error past the number, as orjson's callers take it
        raise orjson.JSONDecodeError(exc.msg, exc.doc, exc.pos) from None
    except (RecursionError, ValueError, orjson.JSONEncodeError):
        raise error from None
    return value


def _as_written(constant: str) -> str:
    """NaN and Infinity (no JSON, though Python writes them) kept as written, as a number
    past a float's range is: a shard's JSON cannot hold them as numbers."""
    return constant


_CONSTANT = re.compile(r"(?:NaN|Infinity)\b")


def _has_huge_float(value: Any) -> bool:
    """Whether ``value`` holds a float too large for 64 bits: what orjson makes of such an
    integer (a float written so, ``1e30``, is read again to no effect)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if abs(item) >= 2.0**63:
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _exact_int(digits: str) -> int | str:
    if len(digits) > 20:  # past 64 bits (and int() refuses more than 4,300 digits)
        return digits
    number = int(digits)
    return number if number in STORABLE_INTS else digits


def _finite_float(digits: str) -> float | str:
    number = float(digits)
    return number if math.isfinite(number) else digits


def json_rows(text: str, parsed: Parsed) -> list[tuple[int, Any]]:
    """``(0-based line index, value)`` of each non-blank line; bad JSON becomes an issue."""
    rows: list[tuple[int, Any]] = []
    for index, line in enumerate(text.split("\n")):
        if not line.strip():
            continue
        try:
            rows.append((index, loads(line)))
        except orjson.JSONDecodeError as exc:  # (a byte that is no UTF-8 is no JSON either)
            reason = bad_byte(line) or f"invalid JSON: {exc.msg}"
            if not parsed.issues and not rows and _delimited(text):
                reason += _TABLE_HINT  # (said once, of the first line)
            parsed.issues.append(LineIssue(index + 1, reason))
        except TooDeep as exc:
            parsed.issues.append(LineIssue(index + 1, str(exc)))
    return rows


_TABLE_HINT = "; looks like CSV or TSV: name it .csv or .tsv (--source for -) or use --as csv"


def _delimited(text: str) -> bool:
    """Whether ``text`` opens as a table does: its first two lines split alike, into two
    fields or more, at commas or at tabs, and neither opens a JSON value (a comment line
    over JSON rows is no header)."""
    lines = text.lstrip().split("\n", 2)[:2]
    if len(lines) < 2 or any(line.lstrip()[:1] in '{["' for line in lines):
        return False
    return any(lines[0].count(mark) == lines[1].count(mark) > 0 for mark in (",", "\t"))


def value_segments(
    value: Any, ordinal: int, ctx: ParseContext, line: int | None = None
) -> list[Segment]:
    """The segments of one JSON value: a document (chunked when long) or a record.

    ``line`` is the line of a JSON Lines row: every chunk of it is on that line (the line
    breaks in its text are ``\\n`` escapes in the file).
    """
    extra = {"index": ordinal}
    if is_document(value):
        text, tags, payload = document_parts(value)
        chunks = (
            chunk_lines(text, 1, ctx.chunk_chars, secrets=ctx.redact)
            if text.strip()
            else [Chunk(text, 1, 1)]
        )
        return [
            Segment("text", c.text, None, line, line, i, payload, tags, dict(extra), c.secrets)
            for i, c in enumerate(chunks)
        ]
    text, payload = record_parts(value)
    return [Segment("record", text, None, line, line, 0, payload, [], extra)]


def parse_jsonl(text: str, ctx: ParseContext) -> Parsed:
    """Parse JSON Lines into documents and records (or traces), keeping file order."""
    parsed = Parsed("jsonl")
    rows = json_rows(text, parsed)
    if not ctx.forced and looks_like_traces(rows):  # (--as records, --as jsonl: records)
        return traces_from_rows(rows, parsed)
    add_rows(parsed, rows, ctx)
    return parsed


def add_rows(parsed: Parsed, rows: list[tuple[int, Any]], ctx: ParseContext) -> None:
    """Add the segments of JSON Lines ``rows`` (``json_rows``) to ``parsed``, in file order,
    each row a passage of its own: a private key logged a line a row is masked in every row
    (``mark_secrets_across``)."""
    for ordinal, (index, value) in enumerate(rows):
        parsed.segments.extend(value_segments(value, ordinal, ctx, index + 1))
    if ctx.redact:
        mark_secrets_across(parsed.segments, apart=True)
