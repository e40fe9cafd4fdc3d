"""Sources saying the same but for one value (``disagreement``)."""

from __future__ import annotations

import pytest

from substrate.disagreement import differ_in_one_value, disagreements


@pytest.mark.parametrize(
    ("one", "other", "differ"),
    [
        (
            "The staging database host is db-stage-1.",
            "The staging database host is db-stage-2.",
            True,
        ),
        ("Deploys run on Mondays.", "Deploys run on Fridays.", True),
        # the minutes of two meetings: labels differing only in their dates are set aside
        (
            "Meeting 2026-09-14: Retention for logs is 30 days.",
            "Meeting 2026-10-12: Retention for logs is 90 days.",
            True,
        ),
        ("billing-api: The port is 8443.", "billing-worker: The port is 9000.", False),
        # a day and its time, one shared word apart, are one value
        ("The deploy window is Tuesday at 10:00.", "The deploy window is Monday at 09:00.", True),
        ("The team meets on Monday at the office.", "The team eats on Friday at the cafe.", False),
        (
            "Alice owns billing and Bob owns search.",
            "Carol owns billing and Dan owns search.",
            False,
        ),
        ("The staging host is db-1.", "The production host is db-2.", False),  # two places
        ("It is 5.", "It is 6.", False),  # too little said to be one statement
        ("Refunds take 5 days.", "Refunds take 5 days.", False),  # the same
        ("Dana Kim leads the Payments team.", "Dana Kim is on call every fourth week.", False),
        # two subjects, one statement each, which may both hold
        (
            "The checkout service is owned by the Payments team.",
            "The billing service is owned by the Payments team.",
            False,
        ),
        ("Alice is on call on Monday.", "Bob is on call on Monday.", False),
        # one value, said in other words
        (
            "The staging database host is db-stage-1.",
            "The staging database host was db-stage-1.",
            False,
        ),
        ("The API timeout is 30 seconds.", "The API timeout is 30 s.", False),
        ("The rotation is every fourth week.", "The rotation is every 4th week.", False),
        ("The API timeout is 30 seconds.", "The API timeout is 45 seconds.", True),
        # the value, with more said after it
        (
            "The limit is 100 requests per minute per user.",
            "The limit is 500 requests per minute per user.",
            True,
        ),
        (
            "Deploys run on Mondays at 10:00 UTC from the main branch.",
            "Deploys run on Fridays at 10:00 UTC from the main branch.",
            True,
        ),
        ("The owner of billing is Alice.", "The owner of billing is Bob.", True),
    ],
)
def test_the_same_sentence_with_another_value(one: str, other: str, differ: bool) -> None:
    assert differ_in_one_value(one, other) is differ


def test_an_answer_quoting_sources_that_disagree() -> None:
    answer = "The host is db-stage-2 today. [1] The host is db-stage-1 today. [2]"
    assert disagreements(answer, 2) == [(1, 2)]
    assert disagreements(answer, 1) == []  # [2] names no source
    assert disagreements("The host is db-2 today. [1] The host is db-1 today. [1]", 1) == []
    # a bracketed number inside code cites nothing, and cuts no sentence apart
    code = "The port is `a[1]` 5432. [1] The port is `a[1]` 5433. [2]"
    assert disagreements(code, 2) == [(1, 2)]
