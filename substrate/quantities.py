"""Amounts with their units, and the periods rates are given in, as a text states them.

"Tokens expire after 15 minutes" does not support "Tokens expire after 15 hours", though
both hold the words "15" and "hours" when the source also says "refresh tokens last 8 hours":
a number is read with the unit written after it, and a rate with the period it is per
("4,200 EUR per month" is not "4,200 EUR per year").
"""

from __future__ import annotations

import re

from substrate.questions import NUMBER_WORDS

# Each unit's spellings, the canonical name first.
_UNIT_NAMES = (
    "millisecond milliseconds ms msec",
    "second seconds sec secs s",
    "minute minutes min mins",
    "hour hours hr hrs h",
    "day days d",
    "week weeks wk wks",
    "month months mo",
    "year years yr yrs",
    "byte bytes b",
    "kilobyte kilobytes kb kib",
    "megabyte megabytes mb mib",
    "gigabyte gigabytes gb gib",
    "terabyte terabytes tb tib",
    "percent %",
)
_UNITS = {name: names.split()[0] for names in _UNIT_NAMES for name in names.split()}
_NUMBER = rf"\d+(?:[.,]\d+)*|\b(?:{'|'.join(NUMBER_WORDS.split())})\b"
# a number, then its unit: "15 minutes", "15-minute", "120ms", "99.9 %"
_AMOUNT = re.compile(rf"(?P<n>{_NUMBER})[\s-]*(?P<u>%|[a-z]+\b)", re.IGNORECASE)
_PERIODS = {
    "second": "second",
    "minute": "minute",
    "hour": "hour",
    "hourly": "hour",
    "day": "day",
    "daily": "day",
    "night": "day",
    "nightly": "day",
    "week": "week",
    "weekly": "week",
    "month": "month",
    "monthly": "month",
    "quarter": "quarter",
    "quarterly": "quarter",
    "year": "year",
    "yearly": "year",
    "annually": "year",
    "annum": "year",
}
# ("a month" is left out: "a month ago" gives no rate)
_PERIOD = re.compile(
    r"\b(?:(?:per|each|every)\s+(?P<unit>second|minute|hour|day|night|week|month|quarter|"
    r"year|annum)|(?P<adverb>hourly|daily|nightly|weekly|monthly|quarterly|yearly|annually))\b",
    re.IGNORECASE,
)


def amounts(text: str) -> dict[str, set[str]]:
    """Each number of ``text`` that a unit follows, with the units it is given in
    (``{"15": {"minute"}}``); numbers are written without separators, units by one name."""
    found: dict[str, set[str]] = {}
    for match in _AMOUNT.finditer(text):
        canonical = _UNITS.get(match["u"].lower())
        if canonical is not None:
            found.setdefault(match["n"].lower().replace(",", ""), set()).add(canonical)
    return found


def periods(text: str) -> set[str]:
    """The periods ``text`` gives rates in ("per month", "every year", "weekly"), by one name."""
    return {_PERIODS[(m["unit"] or m["adverb"]).lower()] for m in _PERIOD.finditer(text)}


def other_units(claim: str, sentence: str) -> bool:
    """Whether ``sentence`` gives a number of ``claim`` in another unit only, or its rates
    per other periods only: then it states another amount, whatever words they share."""
    theirs = amounts(sentence)
    for number, units in amounts(claim).items():
        given = theirs.get(number)
        if given and not units & given:
            return True
    wanted, stated = periods(claim), periods(sentence)
    return bool(wanted and stated and not wanted & stated)
