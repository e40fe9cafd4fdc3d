"""Periods that end no sentence: shared by the chunker and the context compressor."""

from __future__ import annotations

import re

# A period after a title, an initial, a Latin abbreviation, a month or a time of day ends no
# sentence: "Dr. Smith", "H. pylori", "e.g. this", "on Jan. 5 at 3 p.m. sharp". ("etc." ends
# sentences as often as not, and is left out; so is "May", a whole word.)
_ABBREVIATION = re.compile(
    r"(?:^|[\s(])(?:[A-Z]|Dr|Mr|Mrs|Ms|Prof|Sr|Jr|St|Mt|Fig|Figs|No|Nos|Vol|approx|vs|cf"
    r"|e\.g|i\.e|et al|Inc|Ltd|Corp|Co|(?:[A-Z]\.)+[A-Z]"  # and dotted: U.S., U.S.A.
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|a\.m|p\.m"
    # German, French and Spanish ones notes write: "z. B.", "d. h.", "bzw.", "ca.", "Nr.",
    # "Mme.", "Sra."; and "z." and "d." opening "z. B." and "d. h."
    r"|z\. ?B|d\. ?h|u\. ?a|z|d|bzw|ca|Nr|usw|vgl|Hr|Fr|Mme|Mlle|Sra|Srta|Dra|Ud|Uds)\.$"
)
# A day's number before a month, as German and the Nordic languages date ("am 14. Oktober"):
# its period ends no sentence (the splitter looks at the month after it)
MONTH_AFTER_A_DAY = re.compile(
    r"(?:Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November"
    r"|Dezember|januari|februari|maart|mei|juni|juli|augustus|oktober|december|januar"
    r"|februar|mars|april|juni|juli|august|oktober|desember|maj|okt)\b"
)


def ends_in_abbreviation(text: str) -> bool:
    """Whether ``text`` ends with the period of an abbreviation or an initial."""
    return _ABBREVIATION.search(text) is not None
