"""What held once and holds no more backs no claim of the present, nor answers a question of it."""

from __future__ import annotations

import pytest

from substrate.answer import answer_from_substrate
from substrate.context.compress import terms
from substrate.extractive import ExtractiveAnswerer
from substrate.factuality import check_factuality
from substrate.nolonger import no_longer_so, of_the_past
from substrate.store import Substrate

PEOPLE = (
    "# People\n\n## Dana Kim\n- Role: Staff engineer, Ledger team\n- Former on-call lead "
    "(handed over to Erik Lund in May 2026).\n\n## Farah Aziz\n- Previously approved security "
    "exceptions; Gina Park approves them now.\n"
)
HANDBOOK = (
    "# Handbook\n\nBob Chen was on-call lead until March 2026. He is no longer on-call.\n\n"
    "The Payments team was led by Priya Nair until 2025; Tom Berg leads it now.\n"
)


@pytest.mark.parametrize(
    ("sentence", "names", "past"),
    [
        ("Former on-call lead (handed over in May 2026).", "on-call lead", True),
        ("The team was led by Priya Nair until 2025; Tom Berg leads it now.", "Priya Nair", True),
        ("The team was led by Priya Nair until 2025; Tom Berg leads it now.", "Tom Berg", False),
        ("The office is open until 6 pm.", "office", False),  # (a time of day, not a change)
        ("The signing key is valid until 2090.", "signing key", False),  # (a time to come)
        ("Bob Chen is the on-call lead.", "Bob Chen", False),
        ("He ran the billing-api until 2024.", "billing-api", True),
        ("Eggs used to passage the virus were tested.", "virus", False),
    ],
)
def test_a_clause_of_what_no_longer_holds(sentence: str, names: str, past: bool) -> None:
    assert no_longer_so(sentence, terms(names)) is past


def test_a_claim_or_question_of_the_past_may_be_answered_so() -> None:
    assert not of_the_past("Dana Kim is the on-call lead.")
    assert of_the_past("Who was the on-call lead?") and of_the_past("Bob was lead until 2026.")


def _store() -> Substrate:
    store = Substrate()
    store.add("text", PEOPLE)
    store.add("text", HANDBOOK)
    return store


@pytest.mark.parametrize(
    ("claim", "backed"),
    [
        ("Dana Kim is the on-call lead.", False),
        ("Farah Aziz approves security exceptions.", False),
        ("Bob Chen is the on-call lead.", False),
        ("Priya Nair leads the Payments team.", False),
        ("Tom Berg leads the Payments team.", True),
        ("Gina Park approves security exceptions.", True),
        ("Bob Chen was on-call lead until March 2026.", True),
    ],
)
def test_verify_backs_no_claim_of_the_present_by_what_no_longer_holds(
    claim: str, backed: bool
) -> None:
    # each was "supported", as was a model's answer saying it
    receipt = check_factuality(_store(), claim)
    assert (not receipt.unsupported()) is backed


def test_a_question_of_the_present_is_not_answered_by_what_no_longer_holds() -> None:
    store, answerer = _store(), ExtractiveAnswerer()
    assert answer_from_substrate(store, "Who is the on-call lead?", answerer).abstained
    was = answer_from_substrate(store, "Who was the on-call lead?", answerer)
    assert not was.abstained
    # quoted whole, a sentence telling what holds now as well answers
    now = answer_from_substrate(store, "Who leads the Payments team?", answerer)
    assert "Tom Berg leads it now" in (now.answer or "")
