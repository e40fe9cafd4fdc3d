"""A quoted sentence beside a graph's or a record's fact giving another value."""

from __future__ import annotations

from typing import Any

import pytest

from substrate.answer import answer_from_substrate
from substrate.extractive import ExtractiveAnswerer
from substrate.factconflict import fact_conflicts, sources_disagreeing
from substrate.item import SubstrateItem
from substrate.store import Substrate


def _text(text: str) -> SubstrateItem:
    return SubstrateItem("text", text)


def _graph(*triples: list[Any]) -> SubstrateItem:
    return SubstrateItem("graph", "", payload={"triples": [list(t) for t in triples]})


def _record(**fields: Any) -> SubstrateItem:
    return SubstrateItem("record", "", payload=fields)


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("Dan Wu is based in Lisbon.", _graph(["Dan Wu", "based_in", "Berlin"])),
        ("notify-service uses port 9999.", _record(service="notify-service", port=7070)),
        ("The Platform team is led by Carol Diaz.", _graph(["Platform team", "led_by", "Alice"])),
        ("billing-api runs version 2.4.1 today.", _record(name="billing-api", version="2.3.0")),
    ],
)
def test_a_fact_giving_another_value_is_a_disagreement(sentence: str, fact: SubstrateItem) -> None:
    items = [_text(sentence), fact]
    assert fact_conflicts(f"{sentence} [1]", items) == [(1, 2)]
    assert sources_disagreeing(f"{sentence} [1]", items) == [(1, 2)]


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        # the sentence gives the fact's value
        ("Dan Wu is based in Berlin.", _graph(["Dan Wu", "based_in", "Berlin"])),
        (
            "notify-service moved from port 7070 to 9999.",
            _record(service="notify-service", port=7070),
        ),
        # of another subject
        ("Eva Lind is based in Lisbon.", _graph(["Dan Wu", "based_in", "Berlin"])),
        ("search-api uses port 9999.", _record(service="notify-service", port=7070)),
        # the attribute not said
        ("Dan Wu mentors new engineers in Lisbon.", _graph(["Dan Wu", "based_in", "Berlin"])),
        # a relation of many values: the other is a plain word, or of another shape
        ("The Payments team owns the ledger.", _graph(["Payments team", "owns", "billing-api"])),
        ("The Payments team owns Ledger.", _graph(["Payments team", "owns", "billing-api"])),
        # a record's field said, no value after it
        ("Dan Wu joined the team's rota.", _record(name="Dan Wu", team="Search")),
        # the subject is what the sentence's verb is done to
        ("Carol Diaz manages Alice Smith.", _graph(["Alice Smith", "manages", "Bob Jones"])),
        # a state many rows share is no subject, nor is a value beside the row's key
        ("The ticket is open, owner Alice.", _record(status="open", owner="Bob")),
        (
            "incident: INC-103; severity: sev1; commander: Eve Park.",
            _record(incident="INC-101", severity="sev1", commander="Dan Wu"),
        ),
    ],
)
def test_a_fact_the_sentence_does_not_contradict_is_no_disagreement(
    sentence: str, fact: SubstrateItem
) -> None:
    assert fact_conflicts(f"{sentence} [1]", [_text(sentence), fact]) == []


def test_a_pair_found_both_ways_is_told_once() -> None:
    one, other = "The db host is db-stage-1.", "The db host is db-stage-2."
    items = [_text(one), _text(other), _graph(["db", "host", "db-stage-3"])]
    assert sources_disagreeing(f"{one} [1] {other} [2]", items) == [(1, 2), (1, 3), (2, 3)]


def test_an_answer_quoting_a_note_a_triple_contradicts_says_they_disagree() -> None:
    """It quoted the note at confidence 1.00 and passed as settled."""
    shard = Substrate()
    shard.add("text", "Dan Wu is based in Lisbon and mentors new engineers.", id="note")
    shard.add("graph", "", payload={"triples": [["Dan Wu", "based_in", "Berlin"]]}, id="fact")
    result = answer_from_substrate(shard, "Where is Dan Wu based?", ExtractiveAnswerer())
    assert result.answer is not None and "Lisbon" in result.answer
    ids = [item.id for item in result.context.items]
    pair = tuple(sorted((ids.index("note") + 1, ids.index("fact") + 1)))
    assert result.disagreements() == [pair]
    assert f"[{pair[0]}] and [{pair[1]}] disagree" in result.note


def test_verify_calls_a_claim_a_stored_fact_gives_another_value_unsupported() -> None:
    """An agent's trace saying port 9999 backed the claim though the service table says 7070:
    both claims were supported."""
    from substrate.factuality import check_factuality

    shard = Substrate()
    shard.add("record", "", payload={"service": "notify-service", "port": 7070}, id="table")
    shard.add("trace", "notify-service uses port 9999.", id="trace")
    receipt = check_factuality(
        shard, "The notify-service port is 7070. The notify-service uses port 9999."
    )
    told, other = receipt.verdicts
    assert told.supported and not other.supported
    assert other.nearest is not None and other.nearest["contradicted"] == "true"
    assert other.nearest["id"] == "table"
