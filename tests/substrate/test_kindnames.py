"""The Media team is not the Media Ops team: answers and checks keep them apart."""

from __future__ import annotations

import pytest

from substrate.answer import answer_from_substrate
from substrate.extractive import ExtractiveAnswerer
from substrate.factuality import check_factuality
from substrate.kindnames import kind_names, names_a_longer_one
from substrate.store import Substrate


def test_a_name_is_the_capitalised_words_before_its_kind() -> None:
    assert kind_names("The Media Ops team is led by Sam.") == {(("media", "ops"), "team")}
    assert kind_names("Who leads the SRE team?") == {(("sre",), "team")}
    assert kind_names("the billing service and our Payments Platform teams") == {
        (("payments", "platform"), "team")
    }
    assert kind_names("Team members meet on Mondays.") == set()
    # a sentence's first word, or one across a comma, is no word of the name
    assert kind_names("Today Media team is led by Ann Lee.") == {(("media",), "team")}
    assert kind_names("Since March, Media team meets daily.") == {(("media",), "team")}


@pytest.mark.parametrize(
    ("asked", "said", "another"),
    [
        ("Who leads the Media team?", "The Media Ops team is led by Sam Ortiz.", True),
        ("Who leads the Media team?", "The Media team is led by Ann Lee.", False),
        (
            "Who leads the Media team?",
            "The Media Ops team and the Media team share a floor.",
            False,
        ),
        ("Who leads the Media team?", "Sam Ortiz leads a team.", False),  # (no name to tell by)
        ("Who leads the Media Ops team?", "The Media team is led by Ann Lee.", False),
        ("What does the Payments team own?", "The Payments Platform team owns the ledger.", True),
    ],
)
def test_a_sentence_naming_only_a_longer_name_of_the_kind_names_another(
    asked: str, said: str, another: bool
) -> None:
    assert names_a_longer_one(asked, said) is another


def _handbook(*texts: str) -> Substrate:
    store = Substrate()
    for text in texts:
        store.add("text", text)
    return store


def test_an_answer_and_a_check_do_not_take_one_team_for_another() -> None:
    store = _handbook(
        "The image-resizer is owned by the Media team.", "The Media Ops team is led by Sam Ortiz."
    )
    answerer = ExtractiveAnswerer()
    assert answer_from_substrate(store, "Who leads the Media team?", answerer).abstained
    described = "Who leads the team that owns the image-resizer?"
    assert answer_from_substrate(store, described, answerer, hops=2).abstained
    receipt = check_factuality(store, "Sam Ortiz leads the Media team.")
    assert receipt.unsupported()
    store.add("text", "The Media team is led by Ann Lee.")
    found = answer_from_substrate(store, described, answerer, hops=2)
    assert not found.abstained and "Ann Lee" in (found.answer or "")
