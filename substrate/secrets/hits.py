"""A detection (which rule, where the secret lies), the hits of a text, and how a secret is
masked."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

# How every mask begins, and the mask itself ({rule} is the rule's name)
MASK_LEAD = "[REDACTED:"
DEFAULT_MASK = MASK_LEAD + "{rule}]"
MASK_PATTERN = re.escape(MASK_LEAD) + r"[\w.\-]*\]"  # a default mask in a text


@dataclass(frozen=True, slots=True)
class Hit:
    """One accepted detection: which rule, and where the secret itself lies."""

    rule: str
    start: int
    end: int
    prefix: int
    match_start: int
    match_end: int


def shifted_hit(hit: Hit, by: int) -> Hit:
    """``hit`` moved ``by`` characters on (found in a slice that starts there)."""
    return Hit(
        hit.rule, hit.start + by, hit.end + by, hit.prefix, hit.match_start + by, hit.match_end + by
    )


class Accepted:
    """The hits accepted so far, which never overlap: kept ordered by start, so that whether a
    new span overlaps one of them is two comparisons, not one per hit (a long file of
    ``key = value`` lines holds a hundred thousand)."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._hits: list[Hit] = []

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self._starts, start)
        if i and self._hits[i - 1].end > start:
            return True
        return i < len(self._starts) and self._starts[i] < end

    def take_within(self, start: int, end: int) -> bool:
        """Make room for a hit over ``start..end``: drop the hits that lie wholly inside it (a
        token inside a password's brackets), unless one reaches out of it (then nothing is
        dropped). Whether it is free now."""
        i = bisect.bisect_left(self._starts, start)
        if i and self._hits[i - 1].end > start:
            return False
        j = i
        while j < len(self._starts) and self._starts[j] < end:
            if self._hits[j].end > end:
                return False
            j += 1
        del self._starts[i:j], self._hits[i:j]
        return True

    def add(self, hit: Hit) -> None:
        i = bisect.bisect_right(self._starts, hit.start)
        self._starts.insert(i, hit.start)
        self._hits.insert(i, hit)

    def hits(self) -> list[Hit]:
        """The hits, sorted by start."""
        return self._hits
