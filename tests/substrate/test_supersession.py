"""Notes replaced by newer ones are passed over as evidence for an answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from substrate.answer import answer_from_substrate
from substrate.answerers import ExtractiveAnswerer
from substrate.ingest import ingest_path
from substrate.item import SubstrateItem
from substrate.store import Substrate
from substrate.supersession import current_evidence, is_retired

OLD_ADR = """---
status: {status}
---
# ADR-3: Retry policy for consumers

## Decision
Consumers retry a failed message 3 times before it goes to the dead letter topic.
"""
NEW_ADR = """---
status: accepted
{supersedes}
---
# ADR-7: Revised retry policy for consumers

## Decision
Consumers retry a failed message 5 times before it goes to the dead letter topic.
"""
QUESTION = "How many times do consumers retry a failed message before the dead letter topic?"


def notes(tmp_path: Path, *, status: str = "accepted", supersedes: str = "") -> Substrate:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "adr-3-retries.md").write_text(OLD_ADR.format(status=status), encoding="utf-8")
    (folder / "adr-7-retries.md").write_text(NEW_ADR.format(supersedes=supersedes), "utf-8")
    store = Substrate()
    ingest_path(store, folder)
    return store


def ask(store: Substrate, scopes: list[str] | None = None) -> tuple[str, list[str]]:
    answer = answer_from_substrate(store, QUESTION, ExtractiveAnswerer(), scopes=scopes)
    assert answer.answer is not None, answer.note
    return answer.answer, [e["source"] for e in answer.as_dict()["passed_over"]]


def test_both_notes_are_quoted_when_neither_says_it_was_replaced(tmp_path: Path) -> None:
    text, passed_over = ask(notes(tmp_path))
    assert "3 times" in text and "5 times" in text  # the reader sees the sources disagree
    assert passed_over == []


@pytest.mark.parametrize("status", ["superseded", "Deprecated", "outdated (see ADR-7)"])
def test_a_note_whose_status_says_it_no_longer_holds_is_passed_over(
    tmp_path: Path, status: str
) -> None:
    text, passed_over = ask(notes(tmp_path, status=status))
    assert "5 times" in text and "3 times" not in text
    assert passed_over == ["adr-3-retries.md"]


@pytest.mark.parametrize(
    "field",
    [
        "supersedes: adr-3-retries",
        "supersedes: '[[adr-3-retries]]'",
        "replaces: [adr-3-retries.md]",
    ],
)
def test_a_note_another_note_of_the_evidence_supersedes_is_passed_over(
    tmp_path: Path, field: str
) -> None:
    text, passed_over = ask(notes(tmp_path, supersedes=field))
    assert "5 times" in text and "3 times" not in text
    assert passed_over == ["adr-3-retries.md"]


def test_a_replaced_note_is_still_quoted_when_it_is_all_the_evidence() -> None:
    old = SubstrateItem(kind="text", text="a", payload={"status": "superseded"})
    also = SubstrateItem(kind="text", text="b", payload={"superseded_by": "adr-9"})
    assert current_evidence([old, also], [1.0, 0.5]) == ([old, also], [1.0, 0.5], [])


def test_only_a_status_word_or_a_named_successor_retires_a_note() -> None:
    assert is_retired(SubstrateItem(kind="text", text="a", payload={"status": "Superseded"}))
    assert is_retired(SubstrateItem(kind="text", text="a", payload={"replaced_by": ["b"]}))
    for payload in ({"status": "accepted"}, {"status": ""}, {"superseded_by": ""}, {}):
        assert not is_retired(SubstrateItem(kind="text", text="a", payload=payload))


def test_a_note_the_reader_cannot_see_replaces_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "adr-3-retries.md").write_text(OLD_ADR.format(status="accepted"), "utf-8")
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "adr-7-retries.md").write_text(
        NEW_ADR.format(supersedes="supersedes: adr-3-retries"), "utf-8"
    )
    store = Substrate()
    ingest_path(store, folder, scope="team-a")
    ingest_path(store, hidden, scope="team-b")
    text, passed_over = ask(store, scopes=["team-a"])
    assert "3 times" in text and "5 times" not in text
    assert passed_over == []
