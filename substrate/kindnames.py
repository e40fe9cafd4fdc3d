"""Teams, services and their like told apart by a word of their name: "the Media team" is not
"the Media Ops team", which the terms of a sentence naming only the second say as well.

An answer about the Media team quoted what the Media Ops team does, and ``verify`` found a claim
about the one supported by a sentence about the other: ``names_a_longer_one`` tells of such a
sentence.
"""

from __future__ import annotations

import re

# The kinds of things a capitalised name before them names: "the Media team", "Billing service"
_KINDS = frozenset(
    """team teams squad group department office service services project app application
    database queue cluster pipeline library product channel board committee unit""".split()
)
# A name's words: capitalised, or all capitals ("SRE"), with hyphens or digits in them
_WORD = re.compile(r"[A-Za-z][\w-]*")
# Capitalised words that open a sentence or a phrase rather than a name
_NOT_NAMES = frozenset("the a an our their its this that these those your my every each".split())


def kind_names(text: str) -> frozenset[tuple[tuple[str, ...], str]]:
    """Each ``(name's words, kind)`` ``text`` names: the capitalised words right before a kind
    word ("Media Ops" of "The Media Ops team"), lower-cased."""
    found: set[tuple[tuple[str, ...], str]] = set()
    words = _WORD.findall(text)
    for at, word in enumerate(words):
        kind = word.lower()
        if kind not in _KINDS or at == 0:
            continue
        name: list[str] = []
        for before in reversed(words[:at]):
            if not before[0].isupper() or before.lower() in _NOT_NAMES:
                break
            if before.lower() in _KINDS:  # "Team Media team" is no name of one
                break
            name.insert(0, before.lower())
        if name:
            found.add((tuple(name), kind.removesuffix("s") if kind != "services" else "service"))
    return frozenset(found)


def names_a_longer_one(asked: str, said: str) -> bool:
    """Whether ``said`` names, of a thing ``asked`` names by a name and its kind ("the Media
    team"), only others of that kind whose names hold that name and more words ("the Media
    Ops team"): a statement about something else."""
    wanted = kind_names(asked)
    if not wanted:
        return False
    found = kind_names(said)
    for name, kind in wanted:
        named = [other for other, other_kind in found if other_kind == kind]
        if name in named:
            continue
        if any(set(name) < set(other) for other in named):
            return True
    return False
