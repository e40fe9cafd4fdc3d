"""Amounts with their units, and the periods rates are given in, as a text states them.

"Tokens expire after 15 minutes" does not support "Tokens expire after 15 hours", though
both hold the words "15" and "hours" when the source also says "refresh tokens last 8 hours":
a number is read with the unit written after it, and with the period it is given per
("4,200 EUR per month" is not "4,200 EUR a year").
"""

from __future__ import annotations

import re

from substrate.questions import NUMBER_VALUES, NUMBER_WORDS

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


def unit_named(word: str) -> str | None:
    """The unit ``word`` spells, by its first name ("secs": "second"), or None."""
    return _UNITS.get(word.lower())


# A number starts where its digits do: tried from inside them too, a long run of digits cost
# its length squared, and no match is lost, as the whole number has every ending a part has.
_NUMBER = rf"(?<!\d)(?<!\d[.,])\d+(?:[.,]\d+)*|\b(?:{'|'.join(NUMBER_WORDS.split())})\b"
# a number, then its unit: "15 minutes", "15-minute", "120ms", "99.9 %", "one business day"
_QUALIFIER = r"(?:business|working|calendar|full|whole|consecutive|more|extra|additional)"
_AMOUNT = re.compile(
    rf"(?P<n>{_NUMBER})[\s-]*(?:(?P<q>{_QUALIFIER})[\s-]+)?(?P<u>%|[a-z]+\b)", re.IGNORECASE
)
# Days of two kinds: "5 business days" are not "5 calendar days" (a plain "5 days" may be either)
_KINDS_OF_DAY = {"business": "business", "working": "business", "calendar": "calendar"}
# A number word as its digits: "one day" is "1 day"
_DIGITS = {word: str(value) for word, value in NUMBER_VALUES.items()}
# "one" before a unit: a number, not a pronoun ("one business day", not "one from the team")
ONE_BEFORE_A_UNIT = re.compile(
    rf"(?i)\bone(?=[\s-]+(?:{_QUALIFIER}[\s-]+)?"
    rf"(?:{'|'.join(dict.fromkeys(_UNITS.values()))})s?\b)"
)
_PERIODS = {
    "second": "second",
    "sec": "second",
    "minute": "minute",
    "min": "minute",
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
_PERIOD_WORDS = "|".join(sorted(_PERIODS, key=len, reverse=True))
_ADVERBS = "|".join(word for word in _PERIODS if word.endswith("ly"))
_COUNTED = r"(?:[\s-]*[^\W\d]+|\s*[€$£%]){0,2}?"  # its unit, or what it counts: two words at most
_PER = r"(?:\b(?:per|a|an|each|every)\s+|/\s*)"
# a number, what it counts, then the period it is given per: "100 requests a minute", "40
# EUR/month", "4,200 EUR per year", "12 deploys weekly"
_RATE = re.compile(
    rf"(?P<n>{_NUMBER}){_COUNTED}\s*{_PER}(?P<unit>{_PERIOD_WORDS})\b"
    rf"|(?P<n2>{_NUMBER}){_COUNTED}\s+(?P<adverb>{_ADVERBS})\b",
    re.IGNORECASE,
)


def amounts(text: str) -> dict[str, set[str]]:
    """Each number of ``text`` that a unit follows, with the units it is given in
    (``{"15": {"minute"}}``); numbers are written without separators, units by one name."""
    found: dict[str, set[str]] = {}
    for match in _AMOUNT.finditer(text):
        canonical = _UNITS.get(match["u"].lower())
        if canonical is None:
            continue
        kind = _KINDS_OF_DAY.get((match["q"] or "").lower()) if canonical == "day" else None
        number = match["n"].lower().replace(",", "")
        found.setdefault(_DIGITS.get(number, number), set()).add(
            f"{kind} {canonical}" if kind else canonical
        )
    return found


def rates(text: str) -> dict[str, set[str]]:
    """Each number of ``text`` given per a period, with the periods (``{"4200": {"month"}}``
    for "4,200 EUR per month")."""
    found: dict[str, set[str]] = {}
    for match in _RATE.finditer(text):
        number = (match["n"] or match["n2"]).lower().replace(",", "")
        period = _PERIODS[(match["unit"] or match["adverb"]).lower()]
        found.setdefault(_DIGITS.get(number, number), set()).add(period)
    return found


def other_units(claim: str, sentence: str) -> bool:
    """Whether ``sentence`` gives a number of ``claim`` in another unit only, or per another
    period only: then it states another amount, whatever words they share."""
    return _differs(amounts(claim), amounts(sentence)) or _differs(rates(claim), rates(sentence))


def _differs(wanted: dict[str, set[str]], stated: dict[str, set[str]]) -> bool:
    """Whether a number of ``wanted`` is stated, but in none of its units (a day of no kind
    is a day of either)."""
    return any(
        stated.get(number) and not any(_alike(u, v) for u in units for v in stated[number])
        for number, units in wanted.items()
    )


def _alike(unit: str, other: str) -> bool:
    if unit == other:
        return True
    return unit.endswith(" day") and other == "day" or other.endswith(" day") and unit == "day"
