"""Knowledge-graph retrieval: entity linking, typed triple retrieval, the reasoner action."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from substrate import Reasoner, kg_action, link_entities, retrieve_triples
from substrate.errors import InvalidInputError

TRIPLES = [
    ("New York", "located_in", "USA"),
    ("York", "located_in", "England"),
    ("aspirin", "treats", "headache"),
    ("ibuprofen", "treats", "headache"),
    ("headache", "is_a", "symptom"),
]


def test_longer_names_claim_their_words_first() -> None:
    assert link_entities("Flights to new-york from York?", ["York", "New York"]) == [
        "New York",
        "York",
    ]
    assert link_entities("a trip to New York", ["York", "New York"]) == ["New York"]
    assert link_entities("nothing here", ["York"]) == []


def test_names_match_whole_words_in_any_case_and_punctuation() -> None:
    assert link_entities("Does ASPIRIN help?", ["aspirin", "asp", "spirin"]) == ["aspirin"]
    assert link_entities("yorkshire tea", ["York"]) == []
    assert link_entities("the C++ book", ["c++", "!!!"]) == ["c++"]  # "!!!" has no word: never
    assert link_entities("route 66 west", [66, "west"]) == ["66", "west"]


def test_entities_come_in_the_order_the_question_names_them() -> None:
    question = "headache: aspirin or ibuprofen?"
    names = ["ibuprofen", "aspirin", "headache"]
    assert link_entities(question, names) == ["headache", "aspirin", "ibuprofen"]
    assert link_entities(question, list(reversed(names))) == link_entities(question, names)


def test_retrieve_triples_returns_the_facts_touching_linked_entities() -> None:
    out = retrieve_triples(TRIPLES, "what treats a headache?")
    assert out["entities"] == ["headache"]
    assert out["facts"] == [
        ("aspirin", "treats", "headache"),
        ("ibuprofen", "treats", "headache"),
        ("headache", "is_a", "symptom"),
    ]
    assert out["rejected"] == []
    assert retrieve_triples(TRIPLES, "what treats a headache?", k=1)["facts"] == [
        ("aspirin", "treats", "headache")
    ]
    assert retrieve_triples(TRIPLES, "unrelated question") == {
        "entities": [],
        "facts": [],
        "rejected": [],
    }
    with pytest.raises(InvalidInputError, match="head, relation, tail"):
        retrieve_triples([("a", "b")], "a")


class Schema:
    """A stand-in ontology: ``treats`` needs a drug as its head."""

    def filter_triples(
        self, triples: list[tuple[Any, ...]], types: dict[str, str]
    ) -> tuple[list[tuple[Any, ...]], list[dict[str, Any]]]:
        kept, rejected = [], []
        for triple in triples:
            if triple[1] == "treats" and types.get(triple[0]) != "drug":
                rejected.append({"triple": triple, "problems": ["head is not a drug"]})
            else:
                kept.append(triple)
        return kept, rejected


def test_an_ontology_keeps_schema_breaking_facts_out() -> None:
    types = {"aspirin": "drug", "ibuprofen": "food"}
    out = retrieve_triples(TRIPLES, "headache", ontology=Schema(), types=types, k=1)
    assert out["facts"] == [("aspirin", "treats", "headache")]
    assert out["rejected"] == [
        {"triple": ("ibuprofen", "treats", "headache"), "problems": ["head is not a drug"]}
    ]


def test_kg_action_fragments_and_description() -> None:
    action = kg_action(TRIPLES, k=2)
    assert action.kind == "retrieve" and action.base_score == 0.0 and action.name == "kg"
    assert action.description == (
        "knowledge graph facts about England New York USA York aspirin headache ibuprofen symptom"
    )
    assert list(action.run("what treats headache")) == [
        "aspirin treats headache",
        "ibuprofen treats headache",
    ]
    assert list(action.run("the weather")) == []
    named = kg_action(TRIPLES, name="graph", cost=2.0, description="drugs")
    assert (named.name, named.cost, named.description) == ("graph", 2.0, "drugs")


def test_a_reasoner_answers_from_the_graph() -> None:
    def answerer(question: str, evidence: str) -> str:
        return evidence.splitlines()[0] if evidence else ""

    reasoner = Reasoner(answerer, actions=[kg_action(TRIPLES)])
    inv = reasoner.ask("what does aspirin treat?", min_confidence=0.0)
    assert "aspirin treats headache" in inv.evidence


def test_linking_does_not_depend_on_the_hash_seed() -> None:
    code = (
        "from substrate import retrieve_triples\n"
        "t = [('ab', 'r', 'cd'), ('cd', 'r', 'ef'), ('ef', 'r', 'ab')]\n"
        "print(retrieve_triples(t, 'ef cd ab')['entities'])\n"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert runs == {"['ef', 'cd', 'ab']\n"}


def test_facts_about_another_spelling_of_an_entity_are_found() -> None:
    facts = [("New York", "in", "USA"), ("new-york", "population", "8m")]
    out = retrieve_triples(facts, "new york?")
    assert out["entities"] == ["New York"] and out["facts"] == facts


def test_bad_input_is_refused_clearly() -> None:
    for question in (None, 5, b"x"):
        with pytest.raises(InvalidInputError, match="a question is text"):
            retrieve_triples(TRIPLES, question)  # type: ignore[arg-type]
    for k in (None, 2.5, "3"):
        with pytest.raises(InvalidInputError, match="whole number"):
            retrieve_triples(TRIPLES, "headache", k=k)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="head, relation, tail"):
        retrieve_triples(["abc"], "a")  # type: ignore[list-item]


def test_linking_costs_the_question_s_length_not_the_graph_s_size() -> None:
    # 50,000 names sharing their first word: a first-word index would try each at each "the"
    names = [f"the thing{i}" for i in range(50_000)]
    question = " ".join(["the"] * 2000) + " the thing42"
    assert link_entities(question, names) == ["the thing42"]
    action = kg_action([(f"e{i}", "r", f"f{i}") for i in range(50_000)])
    assert list(action.run("what about e42")) == ["e42 r f42"]
