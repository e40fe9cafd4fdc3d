"""Spelling suggestions for words no readable item mentions."""

from __future__ import annotations

import pytest

from substrate.answer import answer_from_substrate
from substrate.extractive import ExtractiveAnswerer
from substrate.search.engine import SearchFilters, spelling_suggestions
from substrate.search.suggest import edit_distance
from substrate.store import Substrate


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [
        ("docker", "docker", 0),
        ("dokcer", "docker", 1),  # two neighbours swapped
        ("pgbouncr", "pgbouncer", 1),
        ("recursivly", "recursively", 1),
        ("compres", "compare", 2),
        ("abc", "xyz", 2),  # more than the limit: limit + 1
    ],
)
def test_edit_distance(a: str, b: str, distance: int) -> None:
    assert edit_distance(a, b, 1) == min(distance, 2)


@pytest.fixture
def store() -> Substrate:
    s = Substrate()
    s.add("text", "Kubernetes runs the pods of the platform.")
    s.add("text", "The migration guide covers the database.")
    s.add("text", "PgBouncer pools the connections.", scope="vault")
    return s


def test_a_word_no_item_mentions_is_spelled_as_items_write_it(store: Substrate) -> None:
    assert spelling_suggestions(store, "kuberentes pods") == {"kuberentes": "Kubernetes"}
    assert spelling_suggestions(store, "migraton plan") == {"migraton": "migration"}
    assert spelling_suggestions(store, "zzzzqqq") == {}
    assert spelling_suggestions(store, "pods migration") == {}  # nothing misspelled


def test_a_word_whose_stem_is_two_edits_from_the_typo_is_still_suggested() -> None:
    s = Substrate()
    s.add("text", "The staging database is restored from backups nightly.")
    # "staging" is kept as "stage", "backups" as "backup": two edits from what was typed
    found = spelling_suggestions(s, "stagng backpus stagin")
    assert found == {"stagng": "staging", "backpus": "backups", "stagin": "staging"}
    assert spelling_suggestions(s, "stgng") == {}  # "staging" as written is two edits away


def test_a_word_only_hidden_items_hold_is_never_suggested(store: Substrate) -> None:
    assert spelling_suggestions(store, "pgbouncr") == {"pgbouncr": "PgBouncer"}
    readable = SearchFilters(scopes={"local"})
    assert spelling_suggestions(store, "pgbouncr", filters=readable) == {}


def test_an_abstention_names_the_word_meant(store: Substrate) -> None:
    answer = answer_from_substrate(
        store, "What does kuberentes run?", ExtractiveAnswerer(), scopes={"local"}
    )
    assert answer.abstained
    assert "no readable item mentions 'kuberentes' (did you mean 'Kubernetes'?)" in answer.note


def test_a_quoted_word_is_suggested_for_and_a_long_text_is_not_scanned_whole(
    store: Substrate,
) -> None:
    from substrate.search.suggest import MAX_WORDS

    assert spelling_suggestions(store, "'kuberentes'") == {"kuberentes": "Kubernetes"}
    unknown = " ".join(f"zzqx{chr(97 + i)}{chr(97 + j)}" for i in range(5) for j in range(5))
    found = spelling_suggestions(store, f"{unknown} kuberentes")
    assert found == {}  # the suggestion for the last word is past the words looked at
    assert spelling_suggestions(store, " ".join(unknown.split()[: MAX_WORDS - 1]) + " kuberentes")


def test_a_text_is_respelled_word_by_word_keeping_its_quotes() -> None:
    from substrate.search.suggest import respelled

    found = {"kuberentes": "Kubernetes"}
    assert (
        respelled("'kuberentes' pods, kuberentes-ish", found) == "'Kubernetes' pods, kuberentes-ish"
    )
