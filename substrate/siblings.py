"""Sections side by side under one heading, each about one thing: "Services > indexer" and
"Services > query-gateway".

A question naming one of them ("Which region is the indexer deployed to?") is not answered by
a sentence of the other ("The query-gateway ... is deployed to the EU region only."), unless
that sentence names it too: ``SiblingSections.speaks_of_another`` tells.
"""

from __future__ import annotations

from collections.abc import Sequence

from substrate.context.compress import terms
from substrate.item import SubstrateItem

_SEP = " > "  # how a section's path joins its headings


class SiblingSections:
    """The sections of a packet's items that share a parent heading, and which of them a
    question names."""

    def __init__(self, wanted: frozenset[str], items: Sequence[SubstrateItem]) -> None:
        by_parent: dict[tuple[object, str], set[str]] = {}  # (source, parent heading)
        for item in items:
            section = item.provenance.get("section")
            if isinstance(section, str) and _SEP in section:
                parent, _, title = section.rpartition(_SEP)
                by_parent.setdefault((item.provenance.get("source"), parent), set()).add(title)
        # the titles the question names, by parent: where it names one of two or more
        self.asked: dict[tuple[object, str], list[frozenset[str]]] = {}
        for place, titles in by_parent.items():
            named = [terms(t) for t in titles if terms(t) and terms(t) <= wanted]
            if named and len(titles) > 1:
                self.asked[place] = named

    def speaks_of_another(self, item: SubstrateItem, said: str) -> bool:
        """Whether a sentence of ``item``'s section, which ``said`` with its headings, speaks
        of a sibling of the section the question names (in the same source), and does not
        name it."""
        section = item.provenance.get("section")
        if not self.asked or not isinstance(section, str) or _SEP not in section:
            return False
        parent, _, title = section.rpartition(_SEP)
        named = self.asked.get((item.provenance.get("source"), parent))
        if not named or any(name <= terms(title) for name in named):
            return False
        found = terms(said)
        return not any(name <= found for name in named)
