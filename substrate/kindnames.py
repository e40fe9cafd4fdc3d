"""Teams, services and their like told apart by a word of their name: "the Media team" is not
"the Media Ops team", which the terms of a sentence naming only the second say as well.

An answer about the Media team quoted what the Media Ops team does, and ``verify`` found a claim
about the one supported by a sentence about the other: ``names_a_longer_one`` tells of such a
sentence.
"""

from __future__ import annotations

import re

# The kinds of things a capitalised name before them names: "the Media team", "Billing service"
KIND_WORDS = frozenset(
    """team teams squad group department office committee unit board channel service services
    project app application product library database queue cluster pipeline""".split()
)
# A word, and what comes before it since the word before: a name's words are only blanks apart
_WORD = re.compile(r"(?P<gap>[^A-Za-z]*)(?P<word>[A-Za-z][\w-]*)")
# Capitalised words that open a sentence or a phrase rather than a name
_NOT_NAMES = frozenset(
    """the a an our their its this that these those your my every each today yesterday now
    currently since then also however meanwhile recently previously finally next so and or but
    in on at for from by with of to as if when while after before until""".split()
)


def kind_names(text: str) -> frozenset[tuple[tuple[str, ...], str]]:
    """Each ``(name's words, kind)`` ``text`` names: the capitalised words right before a kind
    word ("Media Ops" of "The Media Ops team"), blanks apart, lower-cased; read in one pass."""
    found: set[tuple[tuple[str, ...], str]] = set()
    run: list[str] = []  # the capitalised words just read, blanks apart
    for m in _WORD.finditer(text):
        word, low = m["word"], m["word"].lower()
        if m["gap"].strip():  # punctuation between: "Since March, Media team" names "Media"
            run = []
        if low in KIND_WORDS and run:
            kind = "service" if low == "services" else low.removesuffix("s")
            found.add((tuple(run), kind))
            run = []
        elif word[0].isupper() and low not in _NOT_NAMES and low not in KIND_WORDS:
            run.append(low)
        else:
            run = []
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
