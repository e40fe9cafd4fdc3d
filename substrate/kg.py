"""Knowledge-graph retrieval: link the entities a question names, return the facts about them.

Facts are ``(head, relation, tail)`` triples. An entity's name and the question are compared as
normalised token sequences (lower case, runs of letters and digits): ``"New York"`` is linked in
"flights to new-york?". Longer names are linked first and claim the words they cover, so
"New York" wins over "York" in the same words; a shorter name still links elsewhere in the
question.

Differences from the reference implementation, on purpose:

* linking looks each run of question words up among the names, instead of searching the
  question for every name of the graph, and a KG action indexes its graph once;
* the linked entities come in the order the question names them (then longest first), and the
  graph's inventory is sorted, so results no longer depend on set iteration order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from substrate.act import Action
from substrate.errors import InvalidInputError

_WORD = re.compile(r"[a-z0-9]+")
# How many inventory names the default description of a KG action lists.
_DESCRIBED = 20


def normalise(text: str) -> tuple[str, ...]:
    """The words of ``text`` as linking compares them: lower case, letters and digits."""
    return tuple(_WORD.findall(text.lower()))


class Inventory:
    """A graph's entity names, indexed for linking: normalised words -> the name (the first
    given, when two names normalise alike), and the word counts that occur.

    Linking looks up each run of question words of each such length: its cost grows with the
    question, not with the number of entities.
    """

    def __init__(self, entities: Iterable[Any]) -> None:
        self.names: dict[tuple[str, ...], str] = {}
        for entity in entities:
            name = str(entity)
            key = normalise(name)
            if key and key not in self.names:
                self.names[key] = name
        self.lengths = sorted({len(key) for key in self.names}, reverse=True)
        self.order = {key: n for n, key in enumerate(self.names)}  # ties: as given

    def link(self, question: str) -> list[tuple[str, ...]]:
        """The normalised keys of the entities ``question`` names (see ``link_entities``)."""
        if not isinstance(question, str):
            raise InvalidInputError(f"a question is text, not {type(question).__name__}")
        words = normalise(question)
        # every place some entity occurs, longest first (ties: the order entities were given)
        found = sorted(
            (-len(" ".join(key)), self.order[key], start, key)
            for start in range(len(words))
            for length in self.lengths
            if (key := words[start : start + length]) in self.names
        )
        claimed = [False] * len(words)
        first_at: dict[tuple[str, ...], int] = {}
        for _, _, start, key in found:
            span = range(start, start + len(key))
            if any(claimed[i] for i in span):
                continue
            for i in span:
                claimed[i] = True
            first_at[key] = min(first_at.get(key, start), start)
        return sorted(first_at, key=lambda key: (first_at[key], -len(key)))


def link_entities(question: str, entities: Iterable[Any]) -> list[str]:
    """The entities ``question`` mentions, in the order it mentions them.

    Each entity (compared as ``str``) is linked when its normalised words occur together in
    the question's, in words no longer entity has claimed; a linked entity claims all its
    occurrences. Entities whose name has no letter or digit never link.
    """
    if isinstance(entities, str | bytes):  # (each of its characters would be an entity)
        raise InvalidInputError("entities must be a collection of names, not one string")
    inventory = Inventory(entities)
    return [inventory.names[key] for key in inventory.link(question)]


def _as_triples(triples: Iterable[Sequence[Any]]) -> list[tuple[Any, Any, Any]]:
    out = []
    for triple in triples:
        parts = () if isinstance(triple, str | bytes) else tuple(triple)
        if len(parts) != 3:
            raise InvalidInputError(f"a triple is (head, relation, tail), not {triple!r}")
        out.append((parts[0], parts[1], parts[2]))
    return out


class _Graph:
    """Triples with their entity inventory, built once and asked many questions."""

    def __init__(self, triples: Iterable[Sequence[Any]]) -> None:
        self.facts = _as_triples(triples)
        self.entities = sorted({str(x) for h, _, t in self.facts for x in (h, t)})
        self.inventory = Inventory(self.entities)
        # normalised entity -> the facts naming it (as head or tail), in the order given
        self.about: dict[tuple[str, ...], list[int]] = {}
        for n, (head, _, tail) in enumerate(self.facts):
            for key in {normalise(str(head)), normalise(str(tail))}:
                self.about.setdefault(key, []).append(n)

    def retrieve(self, question: str, ontology: Any, types: Any, k: int) -> dict[str, Any]:
        if isinstance(k, bool) or not isinstance(k, int):
            raise InvalidInputError(f"k is a whole number, not {k!r}")
        keys = self.inventory.link(question)
        # a fact names an entity in any spelling that normalises alike
        numbers = sorted({n for key in keys for n in self.about.get(key, ())})
        hits = [self.facts[n] for n in numbers]
        rejected: list[dict[str, Any]] = []
        if ontology is not None:
            kept, rejected = ontology.filter_triples(hits, types or {})
            hits = [tuple(f) for f in kept]
        linked = [self.inventory.names[key] for key in keys]
        return {"entities": linked, "facts": hits[: max(k, 0)], "rejected": list(rejected)}


def retrieve_triples(
    triples: Iterable[Sequence[Any]],
    question: str,
    *,
    ontology: Any = None,
    types: dict[str, Any] | None = None,
    k: int = 8,
) -> dict[str, Any]:
    """The facts about the entities ``question`` names.

    Args:
        triples: ``(head, relation, tail)`` facts.
        question: the question.
        ontology: an object with ``filter_triples(triples, types) -> (kept, rejected)``; the
            facts that break its schema are left out and reported under ``rejected``.
        types: entity -> class, for the ontology.
        k: the most facts returned (``rejected`` is not capped).

    Returns:
        ``{"entities": [...linked], "facts": [...at most k triples touching them, in the order
        given], "rejected": [{"triple", "problems"}, ...]}``.
    """
    return _Graph(triples).retrieve(question, ontology, types, k)


def kg_action(
    triples: Iterable[Sequence[Any]],
    *,
    ontology: Any = None,
    types: dict[str, Any] | None = None,
    name: str = "kg",
    cost: float = 1.0,
    description: str = "",
    k: int = 8,
) -> Action:
    """A reasoner ``retrieve`` action over a knowledge graph: one ``head relation tail``
    fragment per fact about the entities a question names, none when it names none.

    The default description lists the first entities of the graph's sorted inventory, so a
    question naming one of them makes the action worth firing.
    """
    graph = _Graph(triples)  # indexed once, for every question the reasoner asks
    if not description:
        description = "knowledge graph facts about " + " ".join(graph.entities[:_DESCRIBED])

    def run(question: str) -> list[str]:
        found = graph.retrieve(question, ontology, types, k)
        return [f"{h} {r} {t}" for h, r, t in found["facts"]]

    return Action(name, "retrieve", run, cost=cost, description=description, base_score=0.0)
