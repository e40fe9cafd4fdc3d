"""Words naming one of several alternatives: a question or claim about staging is not
answered or supported by a sentence about production."""

from __future__ import annotations

import pytest

from substrate.alternatives import alternatives_named, names_other_alternative
from substrate.context.compress import terms
from substrate.extractive import ExtractiveAnswerer
from substrate.factuality import content_overlap

NOTES = (
    "Employees in the EU may expense up to 50 euros per day for meals. "
    "Employees in the US may expense up to 75 dollars per day for meals. "
    "The HR department is on the third floor. The IT department is on the fifth floor. "
    "Production databases are backed up every 6 hours. "
    "Staging databases are backed up once a day."
)


def test_which_alternatives_a_text_names() -> None:
    assert alternatives_named("let us know if it works") == {}  # everyday words, not US or IT
    staging = alternatives_named("Who approves staging migrations?")
    asked = terms("Who approves staging migrations?")
    assert names_other_alternative(staging, "She approves production migrations.", asked)
    assert not names_other_alternative(staging, "Staging and production need Priya.", asked)
    assert not names_other_alternative(staging, "Migrations need two approvals.", asked)
    # another one named in passing, not of what is asked
    deploys = terms("Who approves production deploys?")
    production = alternatives_named("Who approves production deploys?")
    assert not names_other_alternative(
        production,
        "Dana approves all deploys once they pass through the checks in staging.",
        deploys,
    )
    saturday = alternatives_named("Is the office open on Saturdays?")  # a day of the weekend
    opens = terms("Is the office open on Saturdays?")
    assert names_other_alternative(saturday, "It opens at 8:00 on weekdays.", opens)
    assert names_other_alternative(saturday, "On Sundays it opens at noon.", opens)
    assert not names_other_alternative(saturday, "It is closed on weekends.", opens)
    sandboxes = alternatives_named("How often are sandboxes backed up?")
    backed = terms("How often are sandboxes backed up?")
    assert names_other_alternative(sandboxes, "Staging databases are backed up once a day.", backed)
    assert not names_other_alternative(sandboxes, "Developers back up their sandbox.", backed)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("How much may US employees expense per day for meals?", "75 dollars"),
        ("How much may EU employees expense per day for meals?", "50 euros"),
        ("Which floor is the IT department on?", "fifth floor"),
        ("How often are staging databases backed up?", "once a day"),
        ("How often are sandbox databases backed up?", ""),
    ],
)
def test_the_answer_speaks_of_the_alternative_asked_of(question: str, answer: str) -> None:
    said = ExtractiveAnswerer()(question, NOTES)
    assert (answer in said) if answer else said == "", said


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        ("Staging databases are backed up once a day.", True),
        ("Development databases are backed up once a day.", False),
        ("Employees in the UK may expense up to 75 dollars per day for meals.", False),
    ],
)
def test_a_claim_about_one_alternative_is_not_supported_by_another(
    claim: str, supported: bool
) -> None:
    assert content_overlap(NOTES, claim) is supported


def test_only_one_alternative_is_named_by_only() -> None:
    text = "Only staging has the new retry policy enabled; production still uses three retries."
    assert alternatives_named(text) == alternatives_named("staging")
    assert alternatives_named("It is deployed in the EU only.") == alternatives_named("EU")
    assert not content_overlap(text, "Production has the new retry policy enabled.")
    assert content_overlap(text, "Staging has the new retry policy enabled.")


@pytest.mark.parametrize(
    ("evidence", "claim"),
    [
        (
            "Failover to the replica in us-east-1 is manual.",
            "Failover to the replica is automatic.",
        ),
        (
            "Internal clients are exempt from the rate limit.",
            "Internal clients are subject to the rate limit.",
        ),
    ],
)
def test_an_opposite_word_is_no_support(evidence: str, claim: str) -> None:
    assert not content_overlap(evidence, claim)
