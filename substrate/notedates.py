"""The date a Markdown note gives itself in its front matter.

A file's modification time is often not when its content was written: a clone, a checkout or
a copy sets it to the moment the file landed. A note that says when it was last updated or
reviewed (``updated: 2024-03-01``) is taken at its word. Only front matter counts: a record's
``date`` column says when something happened, not when the row was written.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

# When the content was last touched: the latest of these a note gives is its date.
UPDATE_FIELDS = (
    "last_reviewed",
    "reviewed",
    "lastmod",
    "last_modified",
    "modified",
    "last_updated",
    "updated",
)
# Read when none of the above is given: when the note was written.
WRITTEN_FIELDS = ("date", "created")
# Front matter is read from these formats (``provenance.format``).
NOTE_FORMATS = frozenset({"markdown"})
# A date this far past the item's creation is a slip (a year typed wrong), not a date.
_SLACK_S = 86_400.0


def is_date_field(key: Any) -> bool:
    """Whether a payload key is one ``declared_time`` reads."""
    return str(key).lower() in _DATE_FIELDS


_DATE_FIELDS = frozenset((*UPDATE_FIELDS, *WRITTEN_FIELDS))


def declared_time(item: Any) -> float | None:
    """When a note's front matter says its content was last updated or reviewed, else
    written (a POSIX time); None when it says neither, or nothing readable as a date."""
    if not (isinstance(item.payload, dict) and isinstance(item.provenance, dict)):
        return None
    if item.provenance.get("format") not in NOTE_FORMATS or not item.payload:
        return None
    fields = {str(k).lower(): v for k, v in item.payload.items()}
    latest = float(item.created_at) + _SLACK_S

    def dates(names: tuple[str, ...]) -> list[float]:
        found = (_as_time(fields.get(name)) for name in names)
        return [when for when in found if when is not None and when <= latest]

    updated = dates(UPDATE_FIELDS)
    if updated:
        return max(updated)
    written = dates(WRITTEN_FIELDS)
    return written[0] if written else None


def _as_time(value: Any) -> float | None:
    """A front-matter value as a POSIX time: an ISO 8601 date or date and time (UTC when no
    offset is given), or None."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()
