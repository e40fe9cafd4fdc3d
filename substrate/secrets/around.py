"""The text around a place on a line, as far as the checks of a match look."""

from __future__ import annotations

# How far the checks look along a line: a match on a 200 KB line must not read the
# whole line again (that made a scan of such a line quadratic).
_LOOK = 200


def line_before(text: str, at: int) -> str:
    """The part of ``at``'s line that comes before it (at most ``_LOOK`` characters)."""
    return text[max(text.rfind("\n", max(0, at - _LOOK), at) + 1, at - _LOOK) : at]


def line_after(text: str, at: int) -> str:
    """The part of ``at``'s line from ``at`` on (at most ``_LOOK`` characters)."""
    end = text.find("\n", at, at + _LOOK)
    return text[at : end if end != -1 else at + _LOOK]
