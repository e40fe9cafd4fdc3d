"""A JSON file: an array gives one item per element, an object of objects one per object, and
anything else one item.

Invalid JSON rejects the file, with the line and column of the error, and a hint when its first
lines are a JSON document each (JSON Lines, misnamed). An empty file (or one of white space
alone) is no document, but gives nothing, as an empty file of any other format does: it is
skipped for having no content, not failed with the parser's words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

import orjson

from substrate.ingest.formats.context import ParseContext
from substrate.ingest.formats.jsonl import TooDeep, loads, value_segments
from substrate.ingest.segment import FileRejected, Parsed
from substrate.item import MAP_KEY


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


def parse_json(text: str, ctx: ParseContext, *, envelopes: bool = False) -> Parsed:
    """Parse a JSON array (one item per element, on the lines it spans) or a single value.

    With ``envelopes``, an object holding arrays of objects (an API's export: ``{"results":
    [...], "count": 2}``) gives one item per element of each, its key as the section, and
    one for the rest of the object, if any: as one item, the records could not be told
    apart by a search, nor quoted by an answer."""
    parsed = Parsed("json")
    if not text.strip():
        return parsed  # no content (see the module docstring)
    value = load_json(text)
    if isinstance(value, list):
        _add_elements(parsed, value, element_lines(text) if value else [], ctx)
        return parsed
    if envelopes and _keyed_objects(value):
        _add_keyed(parsed, value, text, ctx)
        return parsed
    enveloped = _enveloped(value) if envelopes else {}
    rest = {k: v for k, v in value.items() if k not in enveloped} if enveloped else value
    if rest or not enveloped:
        segments = value_segments(rest, 0, ctx)
        last = text.count("\n") + (0 if text.endswith("\n") else 1)
        for seg in segments:  # a scalar too ("42"): it spans the file as an object does
            if seg.kind == "record" or seg.line_start is None:
                seg.line_start, seg.line_end = 1, max(1, last)
        parsed.segments.extend(segments)
    for key, (start, line) in _value_places(text, enveloped).items():
        spans = element_lines(text, start, line)
        _add_elements(parsed, value[key], spans, ctx, section=key, first=len(parsed.segments))
    return parsed


def parse_json_data(text: str, ctx: ParseContext) -> Parsed:
    """Parse a ``.json`` file met by ``ingest``: ``parse_json`` with its envelopes opened."""
    return parse_json(text, ctx, envelopes=True)


def _add_elements(
    parsed: Parsed,
    elements: list[Any],
    spans: list[tuple[int, int]],
    ctx: ParseContext,
    *,
    section: str | None = None,
    first: int = 0,
) -> None:
    for ordinal, element in enumerate(elements):
        segments = value_segments(element, first + ordinal, ctx)
        for seg in segments:
            seg.line_start, seg.line_end = spans[ordinal]
            seg.section = section
        parsed.segments.extend(segments)


# Fewer objects than this in an array are a field of the object, not records it holds
_ENVELOPED_AT_LEAST = 2


def _enveloped(value: Any) -> dict[str, list[Any]]:
    """The arrays of objects an object holds, by key."""
    if not isinstance(value, dict):
        return {}
    return {
        key: items
        for key, items in value.items()
        if isinstance(items, list)
        and len(items) >= _ENVELOPED_AT_LEAST
        and all(isinstance(item, dict) for item in items)
    }


def _keyed_objects(value: Any) -> bool:
    """Whether ``value`` is an object of objects keyed by name (services by id, settings by
    environment, strings by language) of ``_ENVELOPED_AT_LEAST`` or more: as one item, a
    file of megabytes was quoted whole by answers, and slowly."""
    return (
        isinstance(value, dict)
        and len(value) >= _ENVELOPED_AT_LEAST
        and all(isinstance(inner, dict) and inner for inner in value.values())
    )


def _add_keyed(parsed: Parsed, value: dict[str, Any], text: str, ctx: ParseContext) -> None:
    """One item per object of ``value`` (``_keyed_objects``), its key as the section and the
    head of a record's text, on the lines it spans."""
    for ordinal, (key, (start, line)) in enumerate(_value_places(text, value).items()):
        _, end = _DECODE(text, start)
        for seg in value_segments(value[key], ordinal, ctx):
            seg.line_start, seg.line_end = line, line + text.count("\n", start, end)
            seg.section = key
            if seg.kind == "record":  # (its key names it: "svc42: ann 1")
                seg.text = f"{key}: {seg.text}"
                seg.extra[MAP_KEY] = key
            parsed.segments.append(seg)


def _value_places(text: str, keys: Collection[str]) -> dict[str, tuple[int, int]]:
    """Where the value of each of ``keys`` of the JSON object ``text`` starts: its offset and
    line (the last of a key given twice, as the parser keeps it)."""
    places: dict[str, tuple[int, int]] = {}
    if not keys:
        return places
    line, counted = 1, 0  # (lines counted on from the last place: once over the text)
    at = _past_space(text, _past_space(text, 0) + 1)  # past "{"
    while text[at] != "}":
        key, at = _DECODE(text, at)
        at = _past_space(text, _past_space(text, at) + 1)  # past ":"
        if key in keys:
            line += text.count("\n", counted, at)
            counted = at
            places[key] = (at, line)
        _, at = _DECODE(text, at)
        at = _past_space(text, at)
        if text[at] == ",":
            at = _past_space(text, at + 1)
    return places


_SPACE = re.compile(r"[ \t\n\r]*")
# C: a value and the offset where it ends. Only the offset counts: numbers stay text, as
# int() refuses one of thousands of digits.
_DECODE = json.JSONDecoder(parse_int=str, parse_float=str).raw_decode


def element_lines(text: str, start: int | None = None, line: int = 1) -> list[tuple[int, int]]:
    """The first and last line of each element of the JSON array ``text`` (valid JSON: it
    was parsed already; this second pass only finds where each element lies); or of the
    array at offset ``start``, on line ``line``, within it."""
    lines: list[tuple[int, int]] = []
    opening = _past_space(text, 0) if start is None else start  # its "["
    seen = 0 if start is None else start  # (the newlines before it are counted in ``line``)
    at = _past_space(text, opening + 1)
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
