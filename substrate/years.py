"""Years a question asks of, and the years a sentence holds for: "employees hired in 2022" are
not "employees hired before 1 January 2020".

A question naming one year is not answered by a sentence whose bounded years ("before",
"after", "since", "until"...) all leave that year out; nor a claim about that year supported by
one. A sentence naming no such bound may hold for any year: one "adopted in March 2021" may
still be so in 2022.
"""

from __future__ import annotations

import re

_YEAR = r"(?:19|20)\d\d(?!\d|\.\d)"  # not 2020.1, a version
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
# A year, perhaps in a date ("1 January 2020", "January 1, 2020"), after the word bounding it
_DATED = re.compile(
    r"(?:\b(?P<bound>before|until|till|by|after|since|from|in|prior\s+to)\s+)?"
    rf"(?P<date>(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\s+|{_MONTH}\s+\d{{1,2}}"
    rf"(?:st|nd|rd|th)?,?\s+|{_MONTH}\s+)?\b(?P<year>{_YEAR})",
    re.IGNORECASE,
)


def year_asked(question: str) -> int | None:
    """The one year ``question`` asks of ("hired in 2022"), unless it bounds it ("hired
    before 2022": a span, not a year) or names several. A number alone is no year ("port
    2003"): only one after "in" is."""
    found = list(_DATED.finditer(question))
    if len(found) != 1:
        return None
    bound = (found[0].group("bound") or "").lower()
    return int(found[0].group("year")) if bound == "in" else None


def leaves_out(year: int, sentence: str) -> bool:
    """Whether every year ``sentence`` bounds ("before 1 January 2020") leaves ``year`` out
    (False when it bounds none)."""
    spans = [
        (" ".join(m.group("bound").lower().split()), int(m.group("year")), bool(m.group("date")))
        for m in _DATED.finditer(sentence)
        if m.group("bound") and m.group("bound").lower() != "in"
    ]
    return bool(spans) and not any(_holds(*span, year) for span in spans)


def _holds(bound: str, limit: int, dated: bool, year: int) -> bool:
    """Whether ``year`` lies (at least in part) within the bound: a date's year itself does
    ("hired before July 2022" holds for some of 2022), a bare year's not ("before 2020")."""
    if bound in ("before", "prior to"):
        return year < limit or (dated and year == limit)
    if bound == "after":
        return year > limit or (dated and year == limit)
    if bound in ("since", "from"):
        return year >= limit
    return year <= limit  # until, till, by
