"""JSON front matter: the object at the top of a Markdown file, as Hugo reads it (``{`` alone
on the first line, ``}`` alone on the line that ends it).

Read with the standard library's parser, whole (orjson would read an integer past 64 bits as a
float, losing its digits): an object that is not valid JSON, or never closed, is no front
matter, and stays the file's text. Its values are made storable as TOML's are
(``storable_fields``): integers past 64 bits as written, nesting past the depth the YAML
reader goes to as its JSON text.
"""

from __future__ import annotations

import json
from typing import Any

from substrate.ingest.formats.tomlfront import storable_fields
from substrate.limits import FRONT_MATTER_LINES


def json_front_matter(lines: list[str]) -> tuple[int, dict[str, Any]] | None:
    """The index of the closing ``}`` line and the fields of the object it closes, or None
    when ``lines`` do not open with a valid JSON object so written."""
    if not lines or lines[0].rstrip() != "{":
        return None
    end = next(
        (i for i in range(1, min(len(lines), FRONT_MATTER_LINES)) if lines[i].rstrip() == "}"), -1
    )
    if end < 0:
        return None
    try:
        fields = json.loads("\n".join(lines[: end + 1]))
    except (ValueError, RecursionError):  # (JSONDecodeError is a ValueError)
        return None
    return (end, storable_fields(fields, -1)) if isinstance(fields, dict) else None
