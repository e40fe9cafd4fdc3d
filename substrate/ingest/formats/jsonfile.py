"""A JSON file: an array gives one item per element, anything else one item.

Invalid JSON rejects the file, with the line and column of the error.
"""

from __future__ import annotations

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
        raise FileRejected(
            f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno
        ) from None
    except TooDeep as exc:
        raise FileRejected(str(exc)) from None


def parse_json(text: str, ctx: ParseContext) -> Parsed:
    """Parse a JSON array (one item per element) or a single JSON value."""
    parsed = Parsed("json")
    value = load_json(text)
    if isinstance(value, list):
        for ordinal, element in enumerate(value):
            parsed.segments.extend(value_segments(element, ordinal, ctx))
    else:
        segments = value_segments(value, 0, ctx)
        last = text.count("\n") + (0 if text.endswith("\n") else 1)
        for seg in segments:
            if seg.kind == "record":
                seg.line_start, seg.line_end = 1, max(1, last)
        parsed.segments.extend(segments)
    return parsed
