"""TOML front matter: the ``+++`` block at the top of a Markdown file (Hugo writes it).

The block is read with ``tomllib``, whole: TOML has no lenient subset to fall back on, so a
block that is not valid TOML (or never closed) is no front matter, and stays the file's text,
as a ``---`` block without a ``key:`` line does. Values are made storable as JSON, the way the
YAML subset gives them: dates and times as their ISO text, ``inf``/``nan`` and integers past
64 bits as written (and a NUL, ``\\u0000``, which no text holds), and values nested deeper
than the YAML reader goes as their JSON text.
"""

from __future__ import annotations

import datetime
import math
import tomllib
from typing import Any

from substrate.ingest.formats.records import value_text
from substrate.limits import FRONT_MATTER_DEPTH, FRONT_MATTER_LINES, STORABLE_INTS

FENCE = "+++"


def toml_front_matter(lines: list[str]) -> tuple[int, dict[str, Any]] | None:
    """The index of the closing ``+++`` line and the fields above it, or None when ``lines``
    do not open with a valid TOML block."""
    if not lines or lines[0].rstrip() != FENCE:
        return None
    end = next(
        (i for i in range(1, min(len(lines), FRONT_MATTER_LINES)) if lines[i].rstrip() == FENCE), -1
    )
    if end < 0:
        return None
    try:
        fields = tomllib.loads("\n".join(line.rstrip("\r") for line in lines[1:end]))
        return end, storable_fields(fields, -1)
    # nested past the stack, or an integer of thousands of digits (ValueError): not read
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return None


def storable_fields(value: Any, depth: int) -> Any:
    """``value`` as JSON can store it (see the module docstring; ``depth``: -1 for the
    block's own table)."""
    if isinstance(value, dict | list) and depth == FRONT_MATTER_DEPTH:  # deeper levels: uncapped
        return value_text(storable_fields(value, FRONT_MATTER_DEPTH + 1))
    if isinstance(value, dict):
        return {_without_nul(key): storable_fields(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [storable_fields(item, depth + 1) for item in value]
    if isinstance(value, datetime.date | datetime.time):  # datetime is a date
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool) and value not in STORABLE_INTS:
        return str(value)
    if isinstance(value, str):
        return _without_nul(value)
    return value


def _without_nul(text: str) -> str:
    """``text`` with an escaped NUL as written: no text holds one (a file holding one fails)."""
    return text.replace("\x00", "\\u0000") if "\x00" in text else text
