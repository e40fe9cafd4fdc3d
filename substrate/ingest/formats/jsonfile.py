"""A JSON file: an array gives one item per element, anything else one item.

Invalid JSON rejects the file, with the line and column of the error, and a hint when its first
lines are a JSON document each (JSON Lines, misnamed). An empty file (or one of white space
alone) is no document, but gives nothing, as an empty file of any other format does: it is
skipped for having no content, not failed with the parser's words.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from substrate.ingest.formats.context import ParseContext
from substrate.ingest.formats.jsonl import TooDeep, loads, value_segments
from substrate.ingest.segment import FileRejected, Parsed


def load_json(text: str) -> Any:
    """Parse a whole JSON document.

    Raises:
        FileRejected: the text is not valid JSON (with the line of the error).
    """
    try:
        return loads(text)
    except orjson.JSONDecodeError as exc:
        hint = _LINES_HINT if exc.lineno > 1 and _json_lines(text) else ""
        raise FileRejected(
            f"invalid JSON: {exc.msg} (column {exc.colno}){hint}", line=exc.lineno
        ) from None
    except TooDeep as exc:
        raise FileRejected(str(exc)) from None


_LINES_HINT = "; looks like JSON Lines: rename it .jsonl or use --as jsonl"


def _json_lines(text: str) -> bool:
    """Whether ``text`` opens with two lines that are JSON documents each: JSON Lines (a JSON
    document on one line would end the file)."""
    lines = [line for line in text.split("\n", 8)[:8] if line.strip()][:2]
    try:
        for line in lines:
            loads(line)
    except (orjson.JSONDecodeError, TooDeep):
        return False
    return len(lines) == 2


def parse_json(text: str, ctx: ParseContext) -> Parsed:
    """Parse a JSON array (one item per element, on the lines it spans) or a single value."""
    parsed = Parsed("json")
    if not text.strip():
        return parsed  # no content (see the module docstring)
    value = load_json(text)
    if isinstance(value, list):
        spans = element_lines(text) if value else []
        for ordinal, element in enumerate(value):
            segments = value_segments(element, ordinal, ctx)
            for seg in segments:
                seg.line_start, seg.line_end = spans[ordinal]
            parsed.segments.extend(segments)
    else:
        segments = value_segments(value, 0, ctx)
        last = text.count("\n") + (0 if text.endswith("\n") else 1)
        for seg in segments:  # a scalar too ("42"): it spans the file as an object does
            if seg.kind == "record" or seg.line_start is None:
                seg.line_start, seg.line_end = 1, max(1, last)
        parsed.segments.extend(segments)
    return parsed


_SPACE = re.compile(r"[ \t\n\r]*")
# C: a value and the offset where it ends. Only the offset counts: numbers stay text, as
# int() refuses one of thousands of digits.
_DECODE = json.JSONDecoder(parse_int=str, parse_float=str).raw_decode


def element_lines(text: str) -> list[tuple[int, int]]:
    """The first and last line of each element of the JSON array ``text`` (valid JSON: it
    was parsed already; this second pass only finds where each element lies)."""
    lines: list[tuple[int, int]] = []
    line, seen = 1, 0
    at = _past_space(text, _past_space(text, 0) + 1)  # past "["
    while text[at] != "]":
        _, end = _DECODE(text, at)
        line += text.count("\n", seen, at)
        first = line
        line += text.count("\n", at, end)
        lines.append((first, line))
        seen = end
        at = _past_space(text, end)
        if text[at] == ",":
            at = _past_space(text, at + 1)
    return lines


def _past_space(text: str, at: int) -> int:
    space = _SPACE.match(text, at)
    assert space is not None  # it matches the empty string too
    return space.end()
