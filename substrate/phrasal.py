"""A verb and its particle, written apart or as one word: "roll back" and "rollback", "log in"
and "login", "set up" and "setup". A question written one way is answered by a note written
the other ("How do I roll back?" by "Rollback with `make rollback`"), though the index holds
them as other terms ("rollback"; "roll" and "back"; "log", as "in" is a stopword).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Container, Iterator

from substrate.context.compress import terms

_PARTICLES = r"(?:back|up|in|out|down|off|over|on)"
# "roll back", "log-in" (the verb a word of its own: two letters at least)
_APART = re.compile(rf"\b([^\W\d_]{{2,}})[\s-]+({_PARTICLES})\b", re.IGNORECASE)
# "rollback", "logins": a word ending in a particle after two letters at least
_JOINED = re.compile(rf"\b([^\W\d_]{{2,}}?)({_PARTICLES})s?\b", re.IGNORECASE)


def _phrases(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Each verb and particle of ``text`` with its other spelling ("roll back": "rollback",
    "rollback": "roll back")."""
    for found in _APART.finditer(text):
        yield found, found[1] + found[2]
    for found in _JOINED.finditer(text):
        yield found, f"{found[1]} {found[2]}"


def other_spellings(text: str) -> dict[str, frozenset[str]]:
    """Each term of ``text``'s verbs and particles with the terms of the other spelling:
    "roll" and "back" of "roll back" -> {"rollback"}; "rollback" -> {"roll", "back"}. A word
    that only ends like a particle ("person", "begin") gives terms no note spells apart, so
    they find nothing."""
    table: dict[str, frozenset[str]] = {}
    for found, other in _phrases(text):
        own, others = _terms(found[0]), _terms(other)
        for term in own:
            if others - own:
                table[term] = table.get(term, frozenset()) | (others - own)
    return table


def spelt_otherwise(text: str) -> frozenset[str]:
    """The terms ``text`` says by its verbs and particles written the other way."""
    return frozenset().union(*other_spellings(text).values())


def respelt(text: str, unseen: Container[str]) -> str:
    """``text`` with each verb and particle whose terms are all ``unseen`` written the other
    way, where none of that spelling's terms is: "roll back" as "rollback" for notes that say
    "rollback" only, so a search weighs the word they use, not two they never do."""
    out, at = [], 0
    for found, other in sorted(_phrases(text), key=lambda phrase: phrase[0].start()):
        own, others = _terms(found[0]), _terms(other)
        if found.start() < at or not own or not others:
            continue
        if not all(term in unseen for term in own) or any(term in unseen for term in others):
            continue
        out += [text[at : found.start()], other]
        at = found.end()
    return "".join([*out, text[at:]])


@functools.lru_cache(maxsize=4096)
def _terms(text: str) -> frozenset[str]:
    return terms(text.lower())
