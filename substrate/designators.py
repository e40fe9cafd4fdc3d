"""Things told apart by a letter or a number after their name: "Project B", "building D",
"Tier 3", "floor 2", "week 14".

The letter is a one-character word, which no index term keeps, so to the terms "Project A
uses PostgreSQL" and "Project B uses MongoDB" say the same of the same thing. A question about
project B, or a claim about building C, is not answered by a sentence that names another one:
``names_another`` tells which sentences do.
"""

from __future__ import annotations

import re
from functools import lru_cache

from substrate.context.compress import terms

# A noun, then letters (not "a" or "I") or short numbers standing alone: "Project B",
# "building D", "Tier 3", "rooms 101 and 102" (not "version 2.1", "in 2019" or "Q3")
_MARK = r"\b(?:[A-HJ-Z]|[b-hj-z]|\d{1,3})\b(?![.,:/-]?\d)"
_LIST = r"(?:\s*,\s*|\s+(?:and|or|&|to|through|thru)\s+|\s*[-–]\s*)"
_RANGE = re.compile(r"\s(?:to|through|thru)\s|[-–]")
_DESIGNATED = re.compile(
    rf"\b(?P<noun>[A-Za-z][a-z]{{2,}})(?P<label>:)?\s+(?P<marks>{_MARK}(?:{_LIST}{_MARK})*)"
)
_MARK_RE = re.compile(_MARK)
# A number says which one after a name (a capital: "Tier 3") or after these nouns; after
# other words it is a count ("uses 3 servers")
_NUMBERED = frozenset(
    """floor tier level room building phase stage step zone gate platform terminal sprint
    wing ward hall block unit bay dock pier track lane rack row seat table grade class
    section chapter part appendix figure region site plant line route option plan project
    team group squad cluster node server shard release tranche cohort batch lot week""".split()
)


def designators(text: str) -> frozenset[tuple[str, str]]:
    """``(noun term, mark)`` for each thing ``text`` names by a letter or number."""
    found: set[tuple[str, str]] = set()
    for m in _DESIGNATED.finditer(text):
        noun, marks = m.group("noun"), m.group("marks")
        if _RANGE.search(marks):
            continue  # "tiers 1 to 3": which ones lie between is not told here
        labelled = m.group("label") is not None  # "Week: 12", as a table's row says it
        found.update(
            (_noun_term(noun), mark.lower())
            for mark in _MARK_RE.findall(marks)
            if _names_one(noun, mark, labelled=labelled)
        )
    return frozenset(found)


def _names_one(noun: str, mark: str, *, labelled: bool = False) -> bool:
    """Whether ``mark`` after ``noun`` says which one: a capital letter always; a small letter
    or a number after the nouns of ``_NUMBERED`` ("project b", "floor 2"), a number after a
    name too ("Tier 3"); not after other words ("press x", "uses 3 servers"). After a label
    ("Week: 12"), only after a noun of ``_NUMBERED`` in the singular: a label is capitalised
    whatever it names, and most give a count or a measure ("Servers: 3", "Timeout: 30")."""
    if labelled:
        return noun.lower() in _NUMBERED
    listed = noun.lower().removesuffix("s") in _NUMBERED
    if mark.isdigit():
        return listed or noun[0].isupper()
    return mark.isupper() or listed


@lru_cache(maxsize=1024)
def _noun_term(noun: str) -> str:
    return next(iter(terms(noun)), noun.lower())


def numbered_terms(text: str) -> frozenset[str]:
    """The terms of the numbers that say which one ``text`` names ("14" of "week 14", "2" of
    "floor 2"): a sentence naming no such number, or another one, says nothing of that one."""
    return terms(" ".join(mark for _, mark in designators(text) if mark.isdigit()))


def names_another(asked: frozenset[tuple[str, str]], text: str) -> bool:
    """Whether ``text`` names, of a noun ``asked`` gives a letter or number to, only others:
    "Project A uses PostgreSQL" of project B."""
    if not asked:
        return False
    found = designators(text)
    for noun, mark in asked:
        marks = {m for n, m in found if n == noun}
        if marks and mark not in marks:
            return True
    return False
