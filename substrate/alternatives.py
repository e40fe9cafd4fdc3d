"""Words that name one of several alternatives: production or staging, weekdays or weekends,
full-time or part-time, the EU or the US, the HR or the IT department.

To the index terms "Staging databases are backed up once a day" and "Production databases are
backed up every 6 hours" differ in one word, and "US" and "IT" are no terms at all ("us" and
"it" are stopwords). A question about staging is not answered by the sentence about
production, nor a claim about the US supported by one about the EU: ``names_other_alternative``
tells. Words written in capitals (``EU``, ``IT``) count only in capitals: "it" and "us" are
everyday words.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from functools import cache

from substrate.context.compress import terms

# Each group lists alternatives that exclude one another; each alternative, its spellings.
_GROUPS: tuple[tuple[str, ...], ...] = (
    ("production prod", "staging pre-production preprod", "development dev", "sandbox"),
    (
        "weekday weekdays monday tuesday wednesday thursday friday",
        "weekend weekends saturday sunday",
    ),
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    ("full-time", "part-time"),
    ("EU", "US USA U.S.", "UK", "APAC", "EMEA", "LATAM"),
    ("HR", "IT"),
)

_Spelling = tuple[re.Pattern[str], int, int]  # how it is found, its group, its alternative


@cache
def _spellings() -> tuple[_Spelling, ...]:
    found: list[_Spelling] = []
    for g, group in enumerate(_GROUPS):
        for a, alternative in enumerate(group):
            for word in alternative.split():
                flags = 0 if word.isupper() else re.IGNORECASE
                # a plural or possessive is the same word ("sandboxes", "HR's")
                pattern = rf"(?<![\w-]){re.escape(word)}(?:e?s|['’]s)?(?![\w-])"
                found.append((re.compile(pattern, flags), g, a))
    return tuple(found)


def alternatives_named(text: str) -> dict[int, frozenset[int]]:
    """For each group of which ``text`` names alternatives, which ones; "only staging" names
    staging alone, whatever else of the group the text names ("only staging has it enabled;
    production still uses three retries")."""
    named: dict[int, set[int]] = {}
    only: dict[int, set[int]] = {}
    for pattern, g, a in _spellings():
        for m in pattern.finditer(text):
            named.setdefault(g, set()).add(a)
            before = max(0, m.start() - _ONLY_REACH)  # (the words just before, not the text)
            if _ONLY_BEFORE.search(text, before, m.start()) or _ONLY_AFTER.match(text, m.end()):
                only.setdefault(g, set()).add(a)
    named.update(only)
    return {g: frozenset(alts) for g, alts in named.items()}


_ONLY_BEFORE = re.compile(r"\bonly\s+(?:(?:in|on|for|the)\s+)?$", re.IGNORECASE)
_ONLY_REACH = 40  # characters: "only for the " with room for white space
_ONLY_AFTER = re.compile(r"\s+only\b", re.IGNORECASE)


def names_other_alternative(
    asked: dict[int, frozenset[int]], text: str, near: frozenset[str]
) -> bool:
    """Whether ``text`` names, of a group the question names alternatives of (``asked``, from
    ``alternatives_named``), only others, beside a word of what is asked (``near``, its
    terms): "production databases" where staging databases are asked of. A text naming none
    of the group may still answer ("Backups are encrypted."), and so may one naming another
    in passing ("Dana approves all deploys once they pass staging.")."""
    if not asked:
        return False
    said = alternatives_named(text)
    return any(
        said.get(g) and not said[g] & alts and _beside(text, g, near) for g, alts in asked.items()
    )


# "Employees in the EU", "opens at 8:00 on weekdays": the word an alternative qualifies is
# this many words away at most, stopwords and numbers not counted
_NEAR_WORDS = 2


def _beside(text: str, group: int, near: frozenset[str]) -> bool:
    """Whether an alternative of ``group`` stands within ``_NEAR_WORDS`` words (stopwords
    aside) of a term of ``near`` in ``text``."""
    words: list[tuple[int, int, frozenset[str]]] | None = None  # worked out once, if needed
    for pattern, g, _ in _spellings():
        if g != group:
            continue
        for m in pattern.finditer(text):
            if words is None:
                words = _words(text)
                starts, ends = [w[0] for w in words], [w[1] for w in words]
            before = bisect_right(ends, m.start())  # the words that end before the match
            after = bisect_left(starts, m.end())  # ... and those that start after it
            close = (
                words[max(0, before - _NEAR_WORDS) : before] + words[after : after + _NEAR_WORDS]
            )
            if frozenset().union(*(said for *_, said in close)) & near:
                return True
    return False


def _words(text: str) -> list[tuple[int, int, frozenset[str]]]:
    """The start, end and terms of each word of ``text`` that is no stopword and holds no
    digit."""
    found = []
    for m in _WORD.finditer(text):
        said = terms(m.group()) if not any(ch.isdigit() for ch in m.group()) else frozenset()
        if said:
            found.append((m.start(), m.end(), said))
    return found


_WORD = re.compile(r"\S+")
