"""A question asking of one year is not answered by a sentence bounded to other years."""

from __future__ import annotations

import pytest

from substrate.extractive import ExtractiveAnswerer
from substrate.factuality import content_overlap
from substrate.years import leaves_out, year_asked

LEAVE = (
    "Employees hired before 1 January 2020 keep 28 days of vacation per year. "
    "Employees hired since 2021 receive 25 days of vacation per year."
)


def test_the_year_a_question_asks_of() -> None:
    assert year_asked("How much vacation do employees hired in 2022 get?") == 2022
    assert year_asked("What did employees hired after 2020 get?") is None  # a span
    assert year_asked("What changed between 2021 and 2022?") is None
    assert year_asked("Which features does release 2020.1 have?") is None  # a version
    assert year_asked("Which service listens on port 2003?") is None  # a number, not "in"


@pytest.mark.parametrize(
    ("sentence", "left_out"),
    [
        ("Employees hired before 1 January 2020 keep 28 days.", True),
        ("Employees hired since 2019 get 30 days.", False),
        ("Employees hired before July 2022 get 25 days.", False),  # some of 2022
        ("Employees hired before 2022 get 25 days.", True),
        ("Until December 31, 2021 the office was in Porto.", True),
        ("Kafka 2.8 was adopted in March 2021.", False),  # may still hold: no bound
        ("Full-time employees receive 25 days.", False),
    ],
)
def test_a_sentence_bounded_to_other_years_leaves_the_year_out(
    sentence: str, left_out: bool
) -> None:
    assert leaves_out(2022, sentence) is left_out


def test_answers_and_claims_keep_to_the_year_asked() -> None:
    answer = ExtractiveAnswerer()("How much vacation do employees hired in 2022 get?", LEAVE)
    assert answer == "Employees hired since 2021 receive 25 days of vacation per year. [1]"
    supported = "Employees hired before 1 January 2020 keep 28 days of vacation per year."
    assert content_overlap(LEAVE, supported)
    assert not content_overlap(LEAVE, "Employees hired in 2022 keep 28 days of vacation per year.")
