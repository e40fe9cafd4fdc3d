"""The changes a text tells of ("moved from X to Y", "replaced X with Y", "Y, replacing X"),
for ``factuality``: whether a sentence tells a claim's change the other way round
(``reversed_change``), or of a move away from what the claim names (``moved_away``).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator

from substrate.context.compress import terms


def reversed_change(claim: str, sentence: str) -> bool:
    """Whether ``sentence`` gives a change the other way round from ``claim``: "from 1.28 to
    1.30", "from Kubernetes 1.27 to 1.29", "Kafka, replacing RabbitMQ" against the claim's
    "from 1.30 to 1.28", "from 1.29 to 1.27", "RabbitMQ replaced Kafka" (by what tells the two
    ends apart: Kubernetes is on both sides of the second)."""
    told = changes(claim)
    said = changes(sentence) if told else ()
    for was, now in told:
        only_was, only_now = was - now, now - was
        back = any(only_now & s_was and only_was & s_now - s_was for s_was, s_now in said)
        # (a sentence telling both ways, "upgraded ... and rolled back ...", has the claim's)
        if back and not any(only_was & s_was and only_now & s_now for s_was, s_now in said):
            return True
    return False


def changes(text: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """The changes ``text`` tells of, each as the terms of what was left and of what was
    taken: "from X to Y", "replaced X with Y", "X was replaced by Y", "Y replaced X", and "Y,
    replacing X" (or "instead of X"), where what is taken is told by the rest of the text.
    (Kept for a sentence of common length: each of the evidence is read for each claim.)"""
    return _kept_changes(text) if len(text) <= _KEPT_CHARS else _changes(text)


# The longest text whose changes are kept: sentences, not a megabyte without a full stop
_KEPT_CHARS = 2048


def _changes(text: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    low = text.lower()
    told = _explicit_changes(text, ((("from",), _FROM_TO), *_CHANGES))
    if "rather" in low or "instead" in low or "place" in low or "replacing" in low:
        for taken in _passed_over(text):
            rest = text[: taken.start()] + " " + text[taken.end() :]
            told.append((terms(taken["old"]), terms(rest)))
    return tuple(told)


_kept_changes = functools.lru_cache(maxsize=4096)(_changes)


def moved_away(sentence: str, words: set[str] | frozenset[str], claim: str) -> bool:
    """Whether ``sentence`` tells of a change away from what the claim's ``words`` name, to
    something they do not: "Background jobs move from RabbitMQ to Amazon SQS" says that
    background jobs no longer use RabbitMQ, for all the words the two share. A claim that
    tells of a change itself ("The team migrated from RabbitMQ") is not contradicted so."""
    low = sentence.lower()
    if not any(word in low for word in _CHANGE_WORDS) or _CHANGE_CLAIM.search(claim):
        return False
    for taken in _passed_over(sentence):  # named there alone, not in the choice too
        rest = terms(sentence[: taken.start()] + " " + sentence[taken.end() :])
        if (words & terms(taken["old"])) - rest:
            return True
    # (not a bare "from X to Y": "open from 9 to 17" moves nothing away)
    moves = _explicit_changes(sentence, _CHANGES)
    return any(words & old and not words & new for old, new in moves)


def _explicit_changes(
    text: str, forms: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...]
) -> list[tuple[frozenset[str], frozenset[str]]]:
    """The changes of ``forms`` that ``text`` names both ends of, as the terms of each: the
    first few of each form whose words the text holds."""
    low = text.lower()
    return [
        (terms(change["old"]), terms(change["new"]))
        for words, pattern in forms
        if any(word in low for word in words)
        for change in itertools.islice(pattern.finditer(text), _CHANGES_READ)
    ]


# A few words naming what is left (as few as reach the next word of the pattern) and what is
# taken (as many as there are, up to four): bounded, so that a search stays linear.
_WORDS = r"[\w$£€%:.\-/]+"
_OLD = rf"(?<![\w$£€%:.\-/]){_WORDS}(?:\s+{_WORDS}){{0,3}}?"
_NEW = rf"{_WORDS}(?:\s+{_WORDS}){{0,3}}"
# a change between two short phrases (values, names): "from 12:00 to 15:00 CET"
_FROM_TO = re.compile(rf"(?i)\bfrom\s+(?P<old>{_OLD})\s+to\s+(?P<new>{_NEW})")
_CHANGE_VERB = (
    r"(?:mov(?:e|ed|es|ing)|migrat(?:e|ed|es|ing|ion)|switch(?:ed|es|ing)?|"
    r"chang(?:e|ed|es|ing)|transition(?:s|ed|ing)?)"
)
# Each form of a change, with the words one of which every change of that form holds (a
# text holding none is not searched for it)
_CHANGES: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    # "moved ... from X to Y", "migrating from X to Y", "the switch, in 2023, from X to Y"
    (
        ("from",),
        re.compile(
            rf"(?i)\b{_CHANGE_VERB}\b(?:[\s,]+[\w.\-]+){{0,6}}?[\s,]+from\s+(?P<old>{_OLD})\s+to\s+"
            rf"(?P<new>{_NEW})"
        ),
    ),
    # "replaced X with Y"
    (
        ("replac",),
        re.compile(rf"(?i)\breplac(?:e|ed|es|ing)\s+(?P<old>{_OLD})\s+with\s+(?P<new>{_NEW})"),
    ),
    # "X was replaced by Y", "X was superseded by Y"
    (
        ("replaced", "superseded"),
        re.compile(
            rf"(?i)(?P<old>{_OLD})\s+(?:was|were|is|are|has\s+been|have\s+been|got)\s+"
            rf"(?:replaced|superseded)\s+(?:with|by)\s+(?P<new>{_NEW})"
        ),
    ),
    # "Y replaced X", "Y will replace X", "Y superseded X", "Y took over from X" (not
    # "replaced X with Y", nor "is replaced by Y")
    (
        ("replac", "supersed", "over from"),
        re.compile(
            rf"(?i)(?P<new>{_OLD})(?<!\bwas)(?<!\bwere)(?<!\bis)(?<!\bare)(?<!\bbeen)(?<!\bgot)"
            r"\s+(?:will\s+)?(?:replac(?:e|ed|es)|supersed(?:e|ed|es)|t(?:ook|akes?)\s+over\s+from)"
            rf"\s+(?!(?:with|by)\b)(?!{_WORDS}(?:\s+{_WORDS}){{0,3}}?\s+with\b)(?P<old>{_NEW})"
        ),
    ),
    # "switched to Y from X"
    (
        ("from",),
        re.compile(
            rf"(?i)\b{_CHANGE_VERB}\b(?:[\s,]+[\w.\-]+){{0,6}}?[\s,]+to\s+(?P<new>{_OLD})\s+from\s+"
            rf"(?P<old>{_NEW})"
        ),
    ),
    # "swapped X for Y", "X was swapped for Y"
    (
        ("swap",),
        re.compile(rf"(?i)\bswap(?:s|ped|ping)?\s+(?P<old>{_OLD})\s+for\s+(?P<new>{_NEW})"),
    ),
    (
        ("swap",),
        re.compile(
            rf"(?i)(?P<old>{_OLD})\s+(?:was|were|is|are|got|has\s+been)\s+swapped(?:\s+out)?"
            rf"\s+for\s+(?P<new>{_NEW})"
        ),
    ),
)
# Words after which the sentence goes on about the choice, not the thing passed over ("rather
# than merge for small fixes": merge is passed over, for small fixes; "replacing Jenkins with
# GitHub Actions"); "and" goes on too, but for a name that ends a list of them ("instead of
# MySQL and MongoDB.", not "instead of MySQL and Redis caches sessions")
_STOPS = (
    r"(?:for|in|on|at|during|where|when|while|with|to|from|by|because|since|which|that|but|so"
    r"|as|if|unless)\b"
)
_NAME = r"(?:(?-i:[A-Z0-9])[\w.\-]*|v\d[\w.]*)"  # a word of a name ("New Relic", "Zipkin v2")
_GOES_ON = rf"{_STOPS}|(?:and|or)\b(?!(?:\s+{_NAME}){{1,3}}(?:\s*(?:[,.;:)]|$)|\s+{_STOPS}))"
# What a sentence says is passed over, the rest of it telling what is chosen: "We will use
# CockroachDB for the ledger, replacing PostgreSQL 15", "in place of", "instead of"
_PASSED_OVER = re.compile(
    rf"(?i)\b(?:replacing|instead\s+of|in\s+place\s+of|rather\s+than)\s+(?P<old>{_WORDS}"
    rf"(?:\s+(?!{_GOES_ON}){_WORDS}){{0,3}})"
)
_CHANGE_WORDS = ("from", "replac", "instead", "in place", "rather than", "supersed", "swap")
# A sentence passes over a thing or two: each one read costs a reading of the whole sentence,
# so a text of thousands ("replacing a replacing a ...") is read for its first few only; and
# it tells of a few changes of each form, not of thousands
_PASSED_OVER_READ = 8
_CHANGES_READ = 8


def _passed_over(sentence: str) -> Iterator[re.Match[str]]:
    return itertools.islice(_PASSED_OVER.finditer(sentence), _PASSED_OVER_READ)


# A claim telling of a change itself: "The team migrated from RabbitMQ", "Jenkins was replaced"
_CHANGE_CLAIM = re.compile(
    rf"(?i)\b{_CHANGE_VERB}\b(?:[\s,]+[\w.\-]+){{0,6}}?[\s,]+(?:from|away)\b|\breplac\w*"
    r"|\bno longer\b|\bformerly\b|\binstead\b|\bin place of\b|\brather than\b"
    r"|\bsupersed\w*|\bswap\w*|\bt(?:ook|akes?) over from\b"
)
