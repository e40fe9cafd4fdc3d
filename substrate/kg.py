"""Knowledge-graph retrieval: link the entities a question names, return the facts about them.

Facts are ``(head, relation, tail)`` triples. An entity's name and the question are compared as
normalised token sequences (lower case, runs of letters and digits): ``"New York"`` is linked in
"flights to new-york?". Longer names are linked first and claim the words they cover, so
"New York" wins over "York" in the same words; a shorter name still links elsewhere in the
question.

Differences from the reference implementation, on purpose:

* linking indexes the names by their first word and walks the question once, instead of
  searching the question for every name of the graph;
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


def link_entities(question: str, entities: Iterable[Any]) -> list[str]:
    """The entities ``question`` mentions, in the order it mentions them.

    Each entity (compared as ``str``) is linked when its normalised words occur together in
    the question's, in words no longer entity has claimed; a linked entity claims all its
    occurrences. Entities whose name has no letter or digit never link.
    """
    words = normalise(question)
    by_first: dict[str, list[tuple[str, ...]]] = {}
    names: dict[tuple[str, ...], str] = {}
    for entity in entities:
        name = str(entity)
        key = normalise(name)
        if key and key not in names:
            names[key] = name
            by_first.setdefault(key[0], []).append(key)
    # every place some entity occurs, longest first (ties: the order entities were given)
    order = {key: n for n, key in enumerate(names)}
    found = sorted(
        (
            (-len(" ".join(key)), order[key], start, key)
            for start, word in enumerate(words)
            for key in by_first.get(word, ())
            if words[start : start + len(key)] == key
        )
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
    ranked = sorted(first_at, key=lambda key: (first_at[key], -len(key)))
    return [names[key] for key in ranked]


def _as_triples(triples: Iterable[Sequence[Any]]) -> list[tuple[Any, Any, Any]]:
    out = []
    for triple in triples:
        parts = tuple(triple)
        if len(parts) != 3:
            raise InvalidInputError(f"a triple is (head, relation, tail), not {parts!r}")
        out.append((parts[0], parts[1], parts[2]))
    return out


def inventory(triples: Iterable[Sequence[Any]]) -> list[str]:
    """The graph's entities (heads and tails, as ``str``), sorted."""
    return sorted({str(x) for h, _, t in _as_triples(triples) for x in (h, t)})


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
    facts = _as_triples(triples)
    linked = link_entities(question, sorted({str(x) for h, _, t in facts for x in (h, t)}))
    wanted = set(linked)
    hits = [f for f in facts if str(f[0]) in wanted or str(f[2]) in wanted]
    rejected: list[dict[str, Any]] = []
    if ontology is not None:
        kept, rejected = ontology.filter_triples(hits, types or {})
        hits = [tuple(f) for f in kept]
    return {"entities": linked, "facts": hits[: max(k, 0)], "rejected": list(rejected)}


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
    facts = _as_triples(triples)
    if not description:
        description = "knowledge graph facts about " + " ".join(inventory(facts)[:_DESCRIBED])

    def run(question: str) -> list[str]:
        found = retrieve_triples(facts, question, ontology=ontology, types=types, k=k)
        return [f"{h} {r} {t}" for h, r, t in found["facts"]]

    return Action(name, "retrieve", run, cost=cost, description=description, base_score=0.0)
