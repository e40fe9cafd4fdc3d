"""What a sentence says held once and holds no more: "Former on-call lead", "was on-call lead
until March 2026", "Previously approved security exceptions". A claim or a question in the
present ("Dana Kim is the on-call lead") is not backed, nor answered, by it.
"""

from __future__ import annotations

import re
import time

from substrate.answer_types import MONTHS
from substrate.context.compress import terms

# The words that put what a clause says in the past. "Previously" and "former" only where they
# open it or follow a possessive: within prose they say "earlier" ("has previously been
# shown") or "the first of two" ("the former method"). ("Used to" is not one: "eggs used to
# passage it", "were also used to expand")
_NO_LONGER = re.compile(
    r"(?:^|[;:(]|\s[-–—]\s)\W*(?:previously|former(?:ly)?)\b"
    r"|\b(?:a|an|his|her|their|our|my|your|its)\s+former\b|\bformerly\b"
    r"|\bno\s+longer\b|\bnot\s+any\s*more\b|\bex-(?=\w)|\buntil\s+(?:recently|last)\b",
    re.IGNORECASE,
)
# "until 2025", "until March 2026": past when that time is (not "valid until 2030")
_UNTIL = re.compile(
    r"\buntil\s+(?:\d{1,2}\s+)?(?:(?:early|late|mid-?)\s*)?"
    rf"(?:(?P<month>{'|'.join(MONTHS)})\s+)?(?P<year>\d{{4}})\b",
    re.IGNORECASE,
)
# What makes a claim or a question one of the past itself: what it asks of, it may say
_OF_THE_PAST = re.compile(
    r"\b(?:was|were|had|did|used\s+to|former(?:ly)?|previous(?:ly)?|until|before|no\s+longer|"
    r"ex-(?=\w)|then|once)\b",
    re.IGNORECASE,
)
# What tells the present beside the past: "...; Tom Berg leads it now"
_NOW = re.compile(r"\b(?:now|currently|today|these\s+days|at\s+present)\b", re.IGNORECASE)
# Where a sentence's clauses part: "... until 2025; Tom Berg leads it now"
_CLAUSES = re.compile(r";|\s[-–—]\s|,\s*(?:but|while|whereas|and\s+now)\b|\.\s", re.IGNORECASE)


def of_the_past(text: str) -> bool:
    """Whether ``text`` (a claim, a question) speaks of the past itself."""
    return _OF_THE_PAST.search(text) is not None


def no_longer_so(sentence: str, names: frozenset[str] | set[str], *, quoted: bool = False) -> bool:
    """Whether each clause of ``sentence`` that speaks of ``names`` (terms: the people or
    things a claim or question names) says it no longer holds; False when no clause speaks
    of them, or ``names`` is empty. A sentence ``quoted`` whole as an answer answers when it
    tells what holds now as well ("... led by Priya Nair until 2025; Tom Berg leads it now"),
    which no claim of Priya Nair's leading it may be backed by."""
    if not names or (_NO_LONGER.search(sentence) is None and _UNTIL.search(sentence) is None):
        return False
    if quoted and _NOW.search(sentence):
        return False
    about = [clause for clause in _CLAUSES.split(sentence) if names & terms(clause)]
    return bool(about) and all(_ended(clause) for clause in about)


def _ended(clause: str) -> bool:
    """Whether ``clause`` says what it tells held until a time now past, or no more."""
    if _NO_LONGER.search(clause):
        return True
    now = time.gmtime()
    for until in _UNTIL.finditer(clause):
        month = until["month"]
        when = (int(until["year"]), MONTHS.index(month.lower()) + 1 if month else 12)
        if when < (now.tm_year, now.tm_mon):
            return True
    return False
