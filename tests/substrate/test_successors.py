"""The successors replaced notes name are brought into the evidence, and an answer that quotes
neither them nor anything matching as well as the old notes did is withheld."""

from __future__ import annotations

from pathlib import Path

from substrate.answer import REPLACED_UNSAID, answer_from_substrate
from substrate.extractive import ExtractiveAnswerer
from substrate.ingest import ingest_path
from substrate.retrieval import retrieve
from substrate.store import Substrate
from substrate.successors import in_force

QUESTION = "What database does the ledger use?"
OLD = (
    "---\nsuperseded_by: adr-004\n---\n# ADR-002: Ledger database\n\n"
    "The ledger database is PostgreSQL 15 with logical replication.\n"
)
NEW = (
    "---\nsupersedes: adr-002\n---\n# ADR-004: Multi-region writes\n\n"
    "We moved the ledger to CockroachDB for multi-region writes.\n"
)
RUNBOOK = (
    "# Runbook: ledger-api\n\n"
    "If the database connection pool is exhausted, restart the ledger-api pods.\n"
)


# Notes of other things, so that the words of the question are rare, as in a real shard
OTHERS = {
    f"team-{n}.md": f"# Team {n}\n\nTeam {n} runs the {thing} service on weekdays.\n"
    for n, thing in enumerate(["search", "billing", "mail", "auth", "export", "import"] * 3)
}


def _shard(tmp_path: Path, files: dict[str, str], scope: str = "local") -> Substrate:
    folder = tmp_path / "notes"
    folder.mkdir(exist_ok=True)
    for name, text in {**OTHERS, **files}.items():
        (folder / name).write_text(text, encoding="utf-8")
    store = Substrate(tmp_path / "shard")
    ingest_path(store, folder, scope=scope)
    return store


def test_the_successor_a_replaced_note_names_takes_its_place(tmp_path: Path) -> None:
    store = _shard(tmp_path, {"adr-002.md": OLD, "adr-004.md": NEW, "runbook.md": RUNBOOK})
    found = retrieve(store, "ledger database PostgreSQL", k=2)
    assert [i.provenance["source"] for i in found.items] == ["adr-002.md", "runbook.md"]
    kept = in_force(store, QUESTION, found.items, found.scores, scopes=None)
    assert [i.provenance["source"] for i in kept.items] == ["adr-004.md", "runbook.md"]
    assert kept.scores[0] == found.scores[0]  # in the place of the note it replaced
    assert [i.provenance["source"] for i in kept.passed_over] == ["adr-002.md"]
    assert kept.replaced == {found.items[0].id}
    assert kept.successors == {kept.items[0].id}
    # a successor the reader may not see is not brought in
    assert [i.provenance["source"] for i in in_force(
        store, QUESTION, found.items, found.scores, scopes=frozenset({"elsewhere"})
    ).items] == ["runbook.md"]  # fmt: skip


def test_an_answer_from_a_side_match_of_what_was_replaced_is_withheld(tmp_path: Path) -> None:
    # "If the database connection pool is exhausted, ..." was the answer, at confidence 0.96
    store = _shard(tmp_path, {"adr-002.md": OLD, "adr-004.md": NEW, "runbook.md": RUNBOOK})
    answer = answer_from_substrate(store, QUESTION, ExtractiveAnswerer())
    assert answer.abstained and REPLACED_UNSAID in answer.note
    assert [e["source"] for e in answer.as_dict()["passed_over"]] == ["adr-002.md"]
    # the newer note saying it in the question's words answers
    said = NEW.replace("the ledger to CockroachDB", "the ledger database to CockroachDB")
    (tmp_path / "notes" / "adr-004.md").write_text(said, encoding="utf-8")
    ingest_path(store, tmp_path / "notes")
    answer = answer_from_substrate(store, QUESTION, ExtractiveAnswerer())
    assert answer.answer is not None and "CockroachDB" in answer.answer


def test_with_nothing_replaced_a_weaker_match_still_answers(tmp_path: Path) -> None:
    old = OLD.replace("superseded_by: adr-004", "status: accepted")
    new = NEW.replace("supersedes: adr-002", "status: accepted")
    store = _shard(tmp_path, {"adr-002.md": old, "adr-004.md": new, "runbook.md": RUNBOOK})
    answer = answer_from_substrate(store, QUESTION, ExtractiveAnswerer())
    assert answer.answer is not None and "PostgreSQL 15" in answer.answer


def test_a_packet_of_what_ask_takes_holds_the_note_in_force(tmp_path: Path) -> None:
    # the packet opened with the replaced record, and held no word of the one in force
    from substrate.context import ContextBudget, assemble_context

    store = _shard(tmp_path, {"adr-002.md": OLD, "adr-004.md": NEW, "runbook.md": RUNBOOK})
    packet = assemble_context(store, QUESTION, relevant_only=True)
    assert [s for s in packet.sources][:1] == ["adr-004.md"]
    assert "adr-002.md" not in packet.sources
    assert [e["source"] for e in packet.as_dict()["passed_over"]] == ["adr-002.md"]
    records = assemble_context(store, QUESTION, relevant_only=True, kind="record")
    assert records.items == [] and records.passed_over == []  # (no note is a record)
    every = assemble_context(store, QUESTION, budget=ContextBudget(max_chars=4000))
    # without ask's floor, still not the replaced record: packed unmarked, it read as current
    assert "adr-002.md" not in every.sources
    assert [e["source"] for e in every.as_dict()["passed_over"]] == ["adr-002.md"]


def test_a_replaced_note_a_link_led_to_withholds_nothing(tmp_path: Path) -> None:
    # a chain's link hop scores 1.0: the runbook linking to the old record could not answer
    runbook = (
        "# Runbook: ledger\n\n## Pool exhausted\n\nIf the database connection pool is "
        "exhausted, restart the ledger pods one at a time. See [ADR-2](adr-002.md).\n"
    )
    store = _shard(tmp_path, {"adr-002.md": OLD, "adr-004.md": NEW, "runbook.md": runbook})
    asked = "What should I do if the database connection pool is exhausted?"
    answer = answer_from_substrate(store, asked, ExtractiveAnswerer(), hops=2)
    assert answer.answer is not None and "restart the ledger pods" in answer.answer


def test_a_successor_brings_its_decision_not_only_its_status(tmp_path: Path) -> None:
    # the one passage brought in was "## Status / Accepted", which says nothing decided
    from substrate.context import assemble_context

    new = (
        "---\nsupersedes: adr-002\n---\n# ADR-004: Multi-region writes\n\n## Status\n\nAccepted"
        "\n\n## Decision\n\nPayments moved to CockroachDB for multi-region writes.\n"
    )  # (no word of the question: none of its passages is found by it)
    store = _shard(tmp_path, {"adr-002.md": OLD, "adr-004.md": new})
    packet = assemble_context(store, QUESTION, relevant_only=True)
    assert "CockroachDB" in packet.render()


def test_an_abstention_tells_the_items_it_matched_were_each_replaced(tmp_path: Path) -> None:
    store = _shard(tmp_path, {"adr-002.md": OLD})  # its successor is nowhere to be read
    answer = answer_from_substrate(store, QUESTION, answerer=ExtractiveAnswerer())
    assert answer.abstained
    assert answer.note.startswith(
        "abstained: 1 matching item(s), each replaced by a newer one, at confidence"
    )
    assert [e["source"] for e in answer.as_dict()["passed_over"]] == ["adr-002.md"]
