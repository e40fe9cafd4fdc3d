"""A letter or number after a name tells things apart: project B is not project A."""

from __future__ import annotations

import pytest

from substrate.designators import designators, names_another, numbered_terms
from substrate.extractive import ExtractiveAnswerer
from substrate.factuality import content_overlap

PROJECTS = (
    "Project A uses PostgreSQL for its main store. Project B uses MongoDB for event data. "
    "Project C uses Redis as a cache."
)
BUILDINGS = (
    "Building C has the cafeteria on floor 1. Building D has the library on floor 2. "
    "Building E has the gym on floor 3."
)


def test_what_names_a_thing_by_a_letter_or_number() -> None:
    assert designators("Which database does project B use?") == {("project", "b")}
    assert designators("Tier 3 customers get a call; floor 2 of Building D") == {
        ("tier", "3"),
        ("floor", "2"),
        ("build", "d"),  # the noun as a term: "buildings D and E" name it too
    }
    assert designators("what database does project b use?") == {("project", "b")}
    # a count, a year, a version, a pronoun, a small letter after another word, a range
    for text in (
        "It uses 3 servers",
        "joined in 2019",
        "version 2.1",
        "then I left",
        "Q3",
        "press x to exit",
        "Tiers 1 to 3 include phone support",
    ):
        assert designators(text) == frozenset(), text


def test_a_table_row_names_one_under_its_column_label() -> None:
    # a Markdown table's row reads "Week: 12; On call: ...": the label is the noun
    assert designators("Week: 12; On call: Tomasz Nowak; Backup: Priya Raman.") == {("week", "12")}
    assert designators("Floor: 2; Room: 14") == {("floor", "2"), ("room", "14")}
    # a label is capitalised whatever it names: most give a count or a measure
    for text in ("Servers: 3", "Timeout: 30 seconds", "Priority: B"):
        assert designators(text) == frozenset(), text


def test_the_numbers_that_say_which_one() -> None:
    assert numbered_terms("Who is on call in week 14?") == {"14"}
    assert numbered_terms("What is on floor 3 of building C?") == {"3"}
    assert numbered_terms("Who is on call in 3 weeks?") == frozenset()  # a count
    assert numbered_terms("What does project B use?") == frozenset()


def test_a_sentence_naming_only_another_one_is_told_apart() -> None:
    asked = designators("What does project B use?")
    assert names_another(asked, "Project A uses PostgreSQL.")
    assert not names_another(asked, "Project B uses MongoDB.")
    assert not names_another(asked, "Projects A and B share a cache.")  # no letter after it
    assert not names_another(asked, "It uses MongoDB.")  # names none: may be B's section
    assert not names_another(frozenset(), "Project A uses PostgreSQL.")


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What does project B use?", "Project B uses MongoDB for event data. [1]"),
        ("What is in building E?", "Building E has the gym on floor 3. [1]"),
        ("What is on floor 3 of building C?", ""),  # building C has no floor 3: no answer
    ],
)
def test_the_answer_speaks_of_the_one_asked_of(question: str, answer: str) -> None:
    context = PROJECTS if "project" in question else BUILDINGS
    assert ExtractiveAnswerer()(question, context) == answer


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        ("Building E has the gym on floor 3.", True),
        ("Building C has the gym on floor 3.", False),
        ("Building E has the gym on floor 1.", False),
    ],
)
def test_a_claim_about_one_is_not_supported_by_another(claim: str, supported: bool) -> None:
    assert content_overlap(BUILDINGS, claim) is supported
