"""Periods that end no sentence: shared by the chunker and the context compressor."""

from __future__ import annotations

import re

# A period after a title, an initial or a Latin abbreviation ends no sentence: "Dr. Smith",
# "H. pylori", "e.g. this". ("etc." ends sentences as often as not, and is left out.)
_ABBREVIATION = re.compile(
    r"(?:^|[\s(])(?:[A-Z]|Dr|Mr|Mrs|Ms|Prof|Sr|Jr|St|Mt|Fig|Figs|No|Nos|Vol|approx|vs|cf"
    r"|e\.g|i\.e|et al|Inc|Ltd|Corp|Co|(?:[A-Z]\.)+[A-Z])\.$"  # and dotted: U.S., U.S.A.
)


def ends_in_abbreviation(text: str) -> bool:
    """Whether ``text`` ends with the period of an abbreviation or an initial."""
    return _ABBREVIATION.search(text) is not None
