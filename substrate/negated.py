"""Words negated by a prefix: "non-defective items" are not "defective items".

"non" is too short for the index to keep, so to the terms "refunds for non-defective items"
and "refunds for defective items" read alike. A question about the one is not answered by a
sentence about the other, nor a claim about the one supported by it: ``other_side`` tells.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from substrate.context.compress import terms

_NON = re.compile(r"\bnon-(\w+)", re.IGNORECASE)


class Sides(NamedTuple):
    """The terms a text says plainly, and those it says negated with ``non-``."""

    plain: frozenset[str]
    negated: frozenset[str]


def sides(text: str) -> Sides:
    """The terms of ``text`` said plainly and with ``non-`` (a term may be said both ways)."""
    if "non-" not in text.lower():
        return Sides(terms(text), frozenset())
    return Sides(terms(_NON.sub(" ", text)), terms(" ".join(_NON.findall(text))))


def other_side(asked: Sides, text: str) -> bool:
    """Whether ``text`` says only plainly a term ``asked`` negates, or only negated one it says
    plainly (a text saying both, "defective and non-defective items", may answer either)."""
    if not asked.negated and "non-" not in text.lower():
        return False
    said = sides(text)
    if any(t in said.plain and t not in said.negated for t in asked.negated):
        return True
    return any(t in said.negated and t not in said.plain for t in asked.plain - asked.negated)
