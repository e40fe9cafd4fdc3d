"""Bridging: following a question through what it does not name.

"Who leads the team that owns the billing-worker?" names neither the team nor its lead. One
sentence answers the inner part ("Payments owns invoicing, the billing-worker, ...") and names
the bridge (Payments); another, about the bridge, answers the rest ("Priya Raman: Payments
lead."). A multi-hop retrieval searches from the first with the bridge's names and the
question's words it leaves unsaid; the extractive answer quotes both sentences.
"""

from __future__ import annotations

import re

from substrate.context.compress import sentences, terms
from substrate.questions import asked_terms, identifier_terms, words_for

# Where a question goes through something it describes rather than names: a relative clause
# ("the team that owns"), a participle ("the runbook used to fix", "the service owned by") or
# a possessive "of" ("the primary owner of eta-service"). Never its first word.
_RELATIONAL = re.compile(
    r"\s(?:that|which|who|whom|whose|where|of)\s|\s[a-z]+(?:ed|en|wn)\s+(?:by|in|to|for|at)\s",
    re.IGNORECASE,
)
_CAPITALISED = re.compile(r"(?<![\w'’-])[A-Z][\w'’-]*")


def relational(question: str) -> bool:
    """Whether ``question`` describes something it asks about instead of naming it."""
    return _RELATIONAL.search(question.strip()) is not None


def names_in(text: str) -> frozenset[str]:
    """The terms of what ``text`` names: its capitalised words (the one opening a sentence
    too, which is often the name it is about: "Payments owns ...") and its hyphenated
    identifiers ("tracker-api")."""
    capitalised = " ".join(m.group() for m in _CAPITALISED.finditer(text))
    return terms(capitalised) | identifier_terms(text)


def best_sentence(text: str, wanted: frozenset[str]) -> str | None:
    """The first of the sentences of ``text`` carrying the most of ``wanted`` (None when none
    carries any)."""
    best, most = None, 0
    for sentence in sentences(text):
        said = len(terms(sentence) & wanted)
        if said > most:
            best, most = sentence, said
    return best


def bridge_query(question: str, text: str) -> str:
    """What to search for next from an item whose ``text`` says part of ``question``: the
    question's words it leaves unsaid and the names of its sentence that says most of the
    question. Empty when it says all of the question, or none of it, or names nothing new."""
    wanted = asked_terms(question)
    missing = wanted - terms(text)
    if not missing or missing == wanted:
        return ""
    sentence = best_sentence(text, wanted)
    if sentence is None:
        return ""
    bridge = names_in(sentence) - wanted
    if not bridge:
        return ""
    return " ".join([*words_for(question, missing), *words_for(sentence, bridge)])
