"""Sections side by side under one heading are each about one thing: a question naming one is
not answered by a sentence of another."""

from __future__ import annotations

from substrate.context import pack_context
from substrate.context.compress import terms
from substrate.extractive import ExtractiveAnswerer
from substrate.item import SubstrateItem
from substrate.siblings import SiblingSections


def _section(path: str, text: str) -> SubstrateItem:
    return SubstrateItem("text", text, provenance={"section": path})


SERVICES = [
    _section("Services > indexer", "## indexer\nThe indexer runs on port 7700."),
    _section(
        "Services > query-gateway",
        "## query-gateway\nThe query-gateway listens on port 7701 and is deployed to the EU "
        "region only.",
    ),
]


def test_a_sibling_of_the_section_asked_of_speaks_of_another() -> None:
    siblings = SiblingSections(terms("Which region is the indexer deployed to?"), SERVICES)
    assert siblings.speaks_of_another(SERVICES[1], "deployed to the EU region")
    assert not siblings.speaks_of_another(SERVICES[1], "unlike the indexer")
    assert not siblings.speaks_of_another(SERVICES[0], "runs on port 7700")
    assert not siblings.speaks_of_another(_section("Elsewhere > regions", ""), "EU region")
    nothing_named = SiblingSections(terms("Which region is it deployed to?"), SERVICES)
    assert not nothing_named.speaks_of_another(SERVICES[1], "EU region")


def test_the_answer_is_not_taken_from_a_sibling_section() -> None:
    answerer = ExtractiveAnswerer()
    question = "Which region is the indexer deployed to?"
    assert answerer.answer_packet(question, pack_context(question, SERVICES, [1.0, 1.0])) == ""
    other = "Which region is the query-gateway deployed to?"
    answer = answerer.answer_packet(other, pack_context(other, SERVICES, [1.0, 1.0]))
    assert answer.endswith("deployed to the EU region only. [2]")
