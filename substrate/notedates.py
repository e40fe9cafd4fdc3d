"""The date a Markdown note gives itself in its front matter as its last update or review.

A file's modification time is often not when its content was written: a clone, a checkout or
a copy sets it to the moment the file landed. A note that says when it was last updated or
reviewed (``updated: 2024-03-01``) is taken at its word. Only front matter counts: a record's
``updated`` column says when something happened, not when the row was written. A ``date:``
alone (a post's publication) says nothing of later edits, so it is not read.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from substrate.item import place_value

# When the content was last touched: the latest of these a note gives is its date.
DATE_FIELDS = frozenset(
    {"last_reviewed", "reviewed", "lastmod", "last_modified", "modified", "last_updated", "updated"}
)
# Front matter is read from these formats (``provenance.format``).
NOTE_FORMATS = frozenset({"markdown"})
# A date this far past the item's creation is a slip (a year typed wrong), not a date.
_SLACK_S = 86_400.0


def is_date_field(key: Any) -> bool:
    """Whether a payload key is one ``declared_time`` reads."""
    return str(key).lower() in DATE_FIELDS


def declared_time(item: Any) -> float | None:
    """When a note's front matter says its content was last updated or reviewed (a POSIX
    time); None when it does not say, or nothing readable as a date."""
    if not (isinstance(item.payload, dict) and isinstance(item.provenance, dict)):
        return None
    if place_value(item.provenance.get("format")) not in NOTE_FORMATS or not item.payload:
        return None
    fields = {str(k).lower(): v for k, v in item.payload.items()}
    latest = float(item.created_at) + _SLACK_S
    found = (_as_time(fields.get(name)) for name in DATE_FIELDS)
    dates = [when for when in found if when is not None and when <= latest]
    return max(dates, default=None)


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
