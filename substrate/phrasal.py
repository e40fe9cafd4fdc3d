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

# The verbs and particles that technical writing also spells as one word, each compound with
# where its particle begins: a list, as a word that only ends like a particle (cabin, season,
# robin) is none, nor is "we back" in "do we back up"
_COMPOUNDS: dict[str, int] = {
    verb + particle: len(verb)
    for particle, verbs in {
        "back": "roll fall fail call",
        "up": "back set clean look start warm spin write pop",
        "in": "log sign plug check",
        "on": "log add",
        "out": "roll log sign check time scale lock",
        "down": "shut tear break drop push",
        "off": "hand kick log cut sign",
        "over": "fail take cut",
    }.items()
    for verb in verbs.split()
}
# "roll back", "log-in": each pair of words, overlapping ("back up" in "we back up")
_APART = re.compile(r"(?=\b([^\W\d_]{2,})[\s-]+([^\W\d_]{2,})\b)")
# "rollback", "logins"
_JOINED = re.compile(r"\b([^\W\d_]{4,}?)s?\b")


def _phrases(text: str) -> Iterator[tuple[tuple[int, int], str, str]]:
    """Each verb and particle of ``text`` (the span, as written) with its other spelling
    ("roll back": "rollback", "rollback": "roll back")."""
    for found in _APART.finditer(text):
        joined = (found[1] + found[2]).lower()
        if _COMPOUNDS.get(joined) == len(found[1]):
            end = found.end(2)
            yield (found.start(1), end), text[found.start(1) : end], joined
    for found in _JOINED.finditer(text):
        word = found[1].lower()
        if word in _COMPOUNDS:
            at = _COMPOUNDS[word]
            yield found.span(), found[0], f"{word[:at]} {word[at:]}"


def other_spellings(text: str) -> dict[str, frozenset[str]]:
    """Each term of ``text``'s verbs and particles with the terms of the other spelling:
    "roll" and "back" of "roll back" -> {"rollback"}; "rollback" -> {"roll", "back"}. Only
    the compounds listed (``_COMPOUNDS``) are read so."""
    table: dict[str, frozenset[str]] = {}
    for _, written, other in _phrases(text):
        own, others = _terms(written), _terms(other)
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
    for (start, end), written, other in sorted(_phrases(text)):
        own, others = _terms(written), _terms(other)
        if start < at or not own or not others:
            continue
        if not all(term in unseen for term in own) or any(term in unseen for term in others):
            continue
        out += [text[at:start], other]
        at = end
    return "".join([*out, text[at:]])


@functools.lru_cache(maxsize=4096)
def _terms(text: str) -> frozenset[str]:
    return terms(text.lower())
