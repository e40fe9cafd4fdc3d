"""Notes replaced by newer ones are passed over as evidence for an answer."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from substrate.answer import answer_from_substrate
from substrate.extractive import ExtractiveAnswerer
from substrate.ingest import ingest_path
from substrate.item import SubstrateItem
from substrate.store import Substrate
from substrate.supersession import current_evidence, replaced_notes

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


@pytest.mark.parametrize(
    "field",
    [
        "supersedes: adr-3-retries",
        "supersedes: adr-3-retries.md",
        "supersedes: '[[adr-3-retries]]'",
        "supersedes: [[adr-3-retries]]",  # unquoted: YAML's list in a list
        "supersedes: '[[adr-3-retries|the old policy]]'",
        "supersedes: '[[adr-3-retries#Decision]]'",
        "replaces: [adr-1, adr-3-retries]",
        "supersedes: ./adr-3-retries.md",
    ],
)
def test_a_note_whose_successor_is_in_the_evidence_is_passed_over(
    tmp_path: Path, field: str
) -> None:
    text, passed_over = ask(notes(tmp_path, supersedes=field))
    assert "5 times" in text and "3 times" not in text
    assert passed_over == ["adr-3-retries.md"]


def test_a_note_naming_its_successor_is_passed_over(tmp_path: Path) -> None:
    store = notes(tmp_path, status="superseded\nsuperseded_by: adr-7-retries")
    text, passed_over = ask(store)
    assert "5 times" in text and "3 times" not in text
    assert passed_over == ["adr-3-retries.md"]


def test_a_deprecated_note_without_its_successor_still_answers(tmp_path: Path) -> None:
    # a question may be about the deprecated thing itself: nothing answers in its place
    text, passed_over = ask(notes(tmp_path, status="deprecated"))
    assert "3 times" in text and passed_over == []


def test_a_bare_name_two_notes_share_names_neither(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    for team, times in (("payments", 3), ("search", 10)):
        (folder / team).mkdir(parents=True)
        (folder / team / "adr-3.md").write_text(
            f"# ADR-3\n\n{team} consumers retry a failed message {times} times.\n", "utf-8"
        )
    (folder / "adr-9.md").write_text(
        "---\nsupersedes: adr-3\n---\n# ADR-9\n\nConsumers retry a failed message 7 times.\n",
        "utf-8",
    )
    store = Substrate()
    ingest_path(store, folder)
    answer = answer_from_substrate(
        store, "How many times do payments consumers retry a failed message?", ExtractiveAnswerer()
    )
    assert "payments consumers retry a failed message 3 times" in (answer.answer or "")
    assert answer.passed_over == []


def test_only_the_front_matter_of_notes_replaces_anything() -> None:
    def row(payload: dict[str, object], source: str) -> SubstrateItem:
        prov = {"source": source, "format": "csv"}
        return SubstrateItem(kind="record", text="r", payload=payload, provenance=prov)

    old, new = row({}, "old.md"), row({"supersedes": "old"}, "new.md")
    assert current_evidence([old, new], [1.0, 0.5]) == ([old, new], [1.0, 0.5], [])


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


def test_with_hops_a_replaced_best_match_leads_to_its_successor(tmp_path: Path) -> None:
    store = notes(tmp_path, status="superseded\nsuperseded_by: adr-7-retries")
    answer = answer_from_substrate(store, QUESTION, ExtractiveAnswerer(), hops=2)
    assert "5 times" in (answer.answer or "") and "3 times" not in (answer.answer or "")
    assert answer.confidence >= 0.5, answer.note


def _note(source: str, payload: dict[str, object]) -> SubstrateItem:
    prov = {"source": source, "format": "markdown"}
    return SubstrateItem(kind="text", text=source, payload=payload, provenance=prov)


def test_a_proposal_replaces_nothing_yet() -> None:
    # an accepted record was passed over for a "Proposed" one that supersedes it
    accepted = _note("adr/0012-redis.md", {"status": "Accepted"})
    for status in ("Proposed", "Draft", "Rejected"):
        proposal = _note("adr/0015-dynamo.md", {"status": status, "supersedes": "0012-redis"})
        assert current_evidence([proposal, accepted], [2.0, 1.0])[2] == [], status
        named = _note("adr/0012-redis.md", {"superseded_by": "0015-dynamo"})
        assert current_evidence([proposal, named], [2.0, 1.0])[2] == [], status
    taken = _note("adr/0015-dynamo.md", {"status": "Accepted", "supersedes": "0012-redis"})
    assert current_evidence([taken, accepted], [2.0, 1.0])[2] == [accepted]


def _in(item: SubstrateItem, scope: str, came_from: str | None = None) -> SubstrateItem:
    item.scope = scope
    if came_from is not None:
        item.provenance["ingest_scope"] = came_from
    return item


def test_read_as_a_team_a_note_replaces_only_notes_of_its_scope_or_of_its_origin() -> None:
    launch = _in(_note("alice/launch.md", {}), "alice", "alice")
    # another team's memo in a shared scope cannot silence the team's own note
    memo = _in(_note("bob/memo.md", {"supersedes": "../alice/launch.md"}), "public", "bob")
    assert current_evidence([memo, launch], [2.0, 1.0], confined=True)[2] == []
    # the team's own memo may, published or not
    for scope in ("alice", "public"):
        own = _in(_note("alice/memo.md", {"supersedes": "launch.md"}), scope, "alice")
        assert current_evidence([own, launch], [2.0, 1.0], confined=True)[2] == [launch], scope
    # within a shared scope, a note replaces another team's note there
    shared = _in(_note("alice/launch.md", {}), "public", "alice")
    assert current_evidence([memo, shared], [2.0, 1.0], confined=True)[2] == [shared]
    # read whole (the shard's owner; scopes one person uses as labels), any note may
    assert current_evidence([memo, launch], [2.0, 1.0])[2] == [launch]


def test_read_as_a_team_a_newer_copy_retires_only_copies_of_its_team() -> None:
    def copy(scope: str, came_from: str, content: str, mtime: int) -> SubstrateItem:
        prov = {"path": "/n/a.md", "section": "A", "chunk": 0, "content_hash": content}
        prov |= {"mtime_ns": mtime, "ingest_scope": came_from}
        return SubstrateItem("text", content, provenance=prov, scope=scope)

    published = copy("public", "alice", "old", 1)
    current = copy("alice", "alice", "new", 2)  # the file, changed since it was published
    assert current_evidence([published, current], [2.0, 1.0], confined=True)[2] == [published]
    # a later "copy" another team stored cannot retire the team's passage
    forged = copy("public", "bob", "forged", 3)
    assert current_evidence([current, forged], [2.0, 1.0], confined=True)[2] == []


def test_a_team_reading_its_answers_is_not_steered_by_another_teams_note(tmp_path: Path) -> None:
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    alice.mkdir()
    bob.mkdir()
    (alice / "launch.md").write_text("# Launch\n\nThe launch date is March 3.\n", "utf-8")
    memo = "---\nsupersedes: ../alice/launch.md\n---\n# Memo\n\nThe launch date is under review.\n"
    (bob / "memo.md").write_text(memo, "utf-8")
    store = Substrate()
    ingest_path(store, alice, scope="alice")
    ingest_path(store, bob, scope="public")  # put in a shared scope, with no approvers
    found = answer_from_substrate(
        store, "What is the launch date?", ExtractiveAnswerer(), scopes={"alice", "public"}
    )
    assert "March 3" in (found.answer or "") and found.passed_over == []


def test_notes_naming_each_other_replace_neither() -> None:
    a, b = _note("adr-3.md", {"supersedes": "adr-7"}), _note("adr-7.md", {"supersedes": "adr-3"})
    other = _note("runbook.md", {})
    assert current_evidence([a, b, other], [3.0, 2.0, 1.0])[2] == []


def test_a_line_of_successors_leaves_its_last_note() -> None:
    a, b = _note("v1.md", {}), _note("v2.md", {"supersedes": "v1"})
    c = _note("v3.md", {"supersedes": "v2"})
    assert current_evidence([a, b, c], [3.0, 2.0, 1.0]) == ([c], [1.0], [a, b])


def test_a_name_is_read_from_the_folder_of_the_note_that_writes_it() -> None:
    new = _note("a/adr-7.md", {"supersedes": "adr-3"})  # a/adr-3.md, not found by the question
    other = _note("b/adr-3.md", {})
    assert current_evidence([new, other], [2.0, 1.0])[2] == []
    old = _note("old/adr-3.md", {})
    relative = _note("a/adr-7.md", {"supersedes": "../old/adr-3.md"})
    assert current_evidence([relative, old], [2.0, 1.0])[2] == [old]


def test_a_record_is_named_by_its_id_or_by_its_number_alone() -> None:
    # adr-tools names files by number and title (0007-use-postgres.md) and the records by
    # kind and number ("supersedes: ADR-0007"): the old record went on answering
    old = _note("adr/0007-use-postgres.md", {})
    new = _note("adr/0009-cockroach.md", {"supersedes": "ADR-0007"})
    assert current_evidence([new, old], [2.0, 1.0])[2] == [old]
    titled = _note("adr/use-postgres.md", {"id": "ADR-0007"})  # its front matter's id
    assert current_evidence([new, titled], [2.0, 1.0])[2] == [titled]
    elsewhere = _note("other/0007-use-postgres.md", {})  # another folder: another record
    assert current_evidence([new, elsewhere], [2.0, 1.0])[2] == []
    for written in ("ADR-7", "adr-007"):
        unpadded = _note("adr/0009-cockroach.md", {"supersedes": written})
        assert current_evidence([unpadded, old], [2.0, 1.0])[2] == [old]
    # asked of by its number, the old record answers (titled "7. Use Postgres", as adr-tools
    # titles one, or "ADR-007")
    for asked in ("ADR-7", "ADR-0007", "adr-07"):
        assert current_evidence([new, old], [2.0, 1.0], asked_of=[asked])[2] == [], asked
    seventy = _note("adr/0009-cockroach.md", {"supersedes": "ADR-70"})
    assert current_evidence([seventy, old], [2.0, 1.0])[2] == []
    rfc = _note("adr/0011-grpc.md", {"supersedes": "RFC-0007"})  # another kind of record
    assert current_evidence([rfc, old], [2.0, 1.0])[2] == []
    layouts = ("docs/decisions", "docs/architecture-decision-record", "docs/decision-tree")
    for folder in layouts:
        decided = _note(f"{folder}/0009-cockroach.md", {"supersedes": "ADR-0007"})
        kept = _note(f"{folder}/0007-use-postgres.md", {})
        replaced = [kept] if folder != "docs/decision-tree" else []  # no decisions' folder
        assert current_evidence([decided, kept], [2.0, 1.0])[2] == replaced


@pytest.mark.parametrize(
    ("status", "supersedes"),
    [("superseded\nsuperseded_by: adr-7-retries", ""), ("accepted", "supersedes: adr-3-retries")],
)
def test_verify_backs_no_claim_with_a_replaced_note(
    tmp_path: Path, status: str, supersedes: str
) -> None:
    from substrate.factuality import check_factuality

    store = notes(tmp_path, status=status, supersedes=supersedes)
    stale = "Consumers retry a failed message 3 times before the dead letter topic."
    (verdict,) = check_factuality(store, stale).verdicts
    assert not verdict.supported  # the record the team replaced said it
    assert verdict.nearest is not None and verdict.nearest["source"] == "adr-3-retries.md"
    assert verdict.nearest["replaced_by"] in ("adr-7-retries", "adr-7-retries.md")
    current = "Consumers retry a failed message 5 times before the dead letter topic."
    assert check_factuality(store, current).verdicts[0].supported
    # a record nothing replaced still backs what it says
    (tmp_path / "b").mkdir()
    assert check_factuality(notes(tmp_path / "b"), stale).verdicts[0].supported


@pytest.mark.parametrize(
    ("status", "supersedes"),
    [("superseded\nsuperseded_by: adr-7-retries", ""), ("accepted", "supersedes: adr-3-retries")],
)
def test_freshness_reports_a_replaced_note(tmp_path: Path, status: str, supersedes: str) -> None:
    from substrate.freshness import check_freshness, freshness_report

    store = notes(tmp_path, status=status, supersedes=supersedes)
    (stale,) = freshness_report(store)["stale"]
    (item,) = [i for i in store.iter_items() if i.id == stale["item_id"]]
    assert item.provenance["source"] == "adr-3-retries.md"
    assert stale["signals"] == ["replaced: by adr-7-retries.md (a note says so)"]
    assert not check_freshness(store, item.id).fresh
    (tmp_path / "b").mkdir()
    assert freshness_report(notes(tmp_path / "b"))["n_stale"] == 0  # nothing replaced


def test_notes_naming_each_other_are_neither_stale_nor_passed_over(tmp_path: Path) -> None:
    from substrate.factuality import check_factuality
    from substrate.freshness import freshness_report

    store = notes(
        tmp_path,
        status="superseded\nsuperseded_by: adr-7-retries",
        supersedes="superseded_by: adr-3-retries",
    )
    assert freshness_report(store)["n_stale"] == 0
    text, passed_over = ask(store)
    assert "3 times" in text and "5 times" in text and passed_over == []
    stale = "Consumers retry a failed message 3 times before the dead letter topic."
    assert check_factuality(store, stale).verdicts[0].supported


def test_a_note_naming_a_successor_out_of_sight_is_passed_over_by_ask_and_verify(
    tmp_path: Path,
) -> None:
    # the successor is in another scope (or folder): the old note is replaced all the same,
    # and ask does not quote what its own grounding then disowned
    from substrate.factuality import check_factuality

    folder = tmp_path / "notes"
    folder.mkdir()
    old = OLD_ADR.format(status="superseded\nsuperseded_by: adr-7-retries")
    (folder / "adr-3-retries.md").write_text(old, "utf-8")
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "adr-7-retries.md").write_text(NEW_ADR.format(supersedes=""), "utf-8")
    store = Substrate()
    ingest_path(store, folder, scope="team-a")
    ingest_path(store, hidden, scope="team-b")
    answer = answer_from_substrate(store, QUESTION, ExtractiveAnswerer(), scopes=["team-a"])
    assert answer.abstained and "3 times" not in (answer.answer or "")
    assert [e["source"] for e in answer.as_dict()["passed_over"]] == ["adr-3-retries.md"]
    stale = "Consumers retry a failed message 3 times before the dead letter topic."
    (verdict,) = check_factuality(store, stale, scopes=["team-a"]).verdicts
    assert not verdict.supported


def _front_note(source: str, **front: str) -> SubstrateItem:
    return SubstrateItem(
        kind="text",
        text=f"note {source}",
        payload=dict(front),
        provenance={"source": source, "path": f"/n/{source}", "format": "markdown"},
    )


def test_a_note_naming_itself_replaces_nothing() -> None:
    from substrate.supersession import replaced_notes

    assert replaced_notes([_front_note("adr-3.md", superseded_by="adr-3")]) == {}
    assert replaced_notes([_front_note("adr-3.md", superseded_by="./adr-3.md, adr-4")]) != {}


def test_every_note_of_a_long_chain_but_the_last_is_replaced() -> None:
    from substrate.supersession import replaced_notes

    chain = [_front_note(f"day-{i}.md", supersedes=f"day-{i - 1}") for i in range(1, 3000)]
    chain.append(_front_note("day-0.md"))
    replaced = replaced_notes(chain)
    assert len(replaced) == 2999 and chain[-2].id not in replaced  # day-2999 is current
    assert replaced[chain[-1].id] == "day-1.md"


def test_a_published_copy_older_than_its_file_is_passed_over(tmp_path: Path) -> None:
    from substrate.factuality import check_factuality
    from substrate.spaces import publish

    folder = tmp_path / "notes"
    folder.mkdir()
    note = folder / "deploys.md"
    note.write_text("# Deploys\n\n## Schedule\n\nWe deploy to production on Tuesdays only.\n")
    store = Substrate()
    ingest_path(store, folder, scope="ops")
    (old,) = store.all()
    publish(store, [old.id], to="public", by="ops")  # a copy of the day, in another scope
    note.write_text("# Deploys\n\n## Schedule\n\nWe deploy to production on Mondays only.\n")
    stat = note.stat()
    os.utime(note, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    ingest_path(store, folder, scope="ops")
    answer = answer_from_substrate(store, "When do we deploy to production?", ExtractiveAnswerer())
    assert answer.answer is not None and "Mondays" in answer.answer
    assert [e["id"] for e in answer.as_dict()["passed_over"]] == [old.id]
    stale = check_factuality(store, "We deploy to production on Tuesdays only.").verdicts[0]
    assert not stale.supported and stale.nearest is not None
    assert stale.nearest["replaced_by"] == "the newer content of deploys.md"
    # copies of the same content are no versions of one another
    same = SubstrateItem("text", "x", provenance={"path": "/n/a.md", "content_hash": "h"})
    again = SubstrateItem("text", "x", provenance={"path": "/n/a.md", "content_hash": "h"})
    assert current_evidence([same, again], [1.0, 0.9])[2] == []


def test_a_successor_is_named_as_its_source_whether_or_not_it_is_at_hand() -> None:
    # "adr-005-kafka.md" as written, or "adr/adr-005-kafka.md" when among the results
    old = _note("adr/adr-001-rabbitmq.md", {"superseded_by": "adr-005-kafka.md"})
    new = _note("adr/adr-005-kafka.md", {})
    assert replaced_notes([old, new]) == {old.id: "adr/adr-005-kafka.md"}
    assert replaced_notes([old]) == {old.id: "adr/adr-005-kafka.md"}
    up = _note("adr/old.md", {"superseded_by": "../decisions/new.md"})
    assert replaced_notes([up]) == {up.id: "decisions/new.md"}


@pytest.mark.parametrize(
    ("old_status", "new_status"),
    [
        ("- Status: Superseded by ADR-7", "- Status: Accepted"),
        ("- Status: **Superseded by [ADR-7](adr-7-retries.md)**", "- Status: Accepted"),
        ("> **Deprecated**: superseded by [the new policy](adr-7-retries.md).", ""),
        ("- Status: Accepted", "- Supersedes: ADR-3"),  # a numbered record, titled
        ("Replaced by: [[adr-7-retries]]", ""),
    ],
)
def test_status_lines_in_the_text_replace_as_front_matter_does(
    tmp_path: Path, old_status: str, new_status: str
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for name, status, times in (("adr-3-retries", old_status, 3), ("adr-7-retries", new_status, 5)):
        (folder / f"{name}.md").write_text(
            f"# {name.upper()}\n\n{status}\n\n## Decision\n"
            f"Consumers retry a failed message {times} times before it goes to the dead letter "
            "topic.\n",
            encoding="utf-8",
        )
    store = Substrate()
    ingest_path(store, folder)
    text, passed_over = ask(store)
    assert "5 times" in text and "3 times" not in text
    assert passed_over == ["adr-3-retries.md"]


def test_a_sentence_that_mentions_a_superseded_thing_replaces_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "adr-3-retries.md").write_text(
        OLD_ADR.format(status="accepted") + "\nThe old scheme was superseded by ADR-2.\n", "utf-8"
    )
    (folder / "adr-7-retries.md").write_text(NEW_ADR.format(supersedes=""), "utf-8")
    store = Substrate()
    ingest_path(store, folder)
    text, passed_over = ask(store)
    assert "3 times" in text and "5 times" in text and passed_over == []


def test_a_note_replaced_by_several_names_each_of_them(tmp_path: Path) -> None:
    from substrate.freshness import freshness_report

    (tmp_path / "multi.md").write_text(
        "---\nreplaced_by:\n  - p.md\n  - q.md\n---\n# Multi\n\nThe old plan.\n"
    )
    (tmp_path / "p.md").write_text("# P\n\nThe first half of the plan.\n")
    (tmp_path / "q.md").write_text("# Q\n\nThe second half of the plan.\n")
    store = Substrate()
    ingest_path(store, tmp_path)
    (stale,) = freshness_report(store)["stale"]
    assert stale["signals"] == ["replaced: by p.md, q.md (a note says so)"]
    (tmp_path / "q.md").unlink()  # one successor not ingested: still named
    alone = Substrate()
    ingest_path(alone, tmp_path)
    (stale,) = freshness_report(alone)["stale"]
    assert stale["signals"] == ["replaced: by p.md, q.md (a note says so)"]


def _titled(source: str, title: str, payload: dict[str, object]) -> SubstrateItem:
    item = _note(source, payload)
    item.provenance["section"] = f"{title} > Decision"
    return item


def test_a_replaced_record_asked_of_by_its_number_stays_and_a_shared_name_keeps_none() -> None:
    old = _titled("adr-002.md", "ADR-002: payments-api queue", {})
    new = _titled("adr-005.md", "ADR-005: payments-api queue", {"supersedes": "adr-002"})
    assert current_evidence([old, new], [2.0, 1.0], asked_of=["ADR-002"])[2] == []
    # a name both titles give, or no number, asks of neither: the old record is passed over
    assert current_evidence([old, new], [2.0, 1.0], asked_of=["payments-api"])[2] == [old]
    renamed = _titled("adr-005.md", "ADR-005: ADR-002 revisited", {"supersedes": "adr-002"})
    assert current_evidence([old, renamed], [2.0, 1.0], asked_of=["ADR-002"])[2] == [old]


def test_an_older_copy_of_the_record_asked_of_is_still_passed_over() -> None:
    prov = {"source": "adr-002.md", "format": "markdown", "section": "ADR-002: Queue"}
    older = SubstrateItem("text", "Queue: RabbitMQ.", provenance={**prov, "content_hash": "a"})
    newer = SubstrateItem("text", "Queue: Kafka.", provenance={**prov, "content_hash": "b"})
    older.provenance["mtime_ns"], newer.provenance["mtime_ns"] = 1, 2
    assert current_evidence([older, newer], [2.0, 1.0], asked_of=["ADR-002"])[2] == [older]


def _replaced_pair_by_pair(items: list[SubstrateItem]) -> dict[str, str]:
    """``replaced_notes`` told pair by pair, as it was before the pairs were grouped by the
    notes they name: every passage of a newer note, with every passage of the older one."""
    from substrate import supersession as s

    notes = [item for item in items if s._note_of(item) is not None]
    by_stem = s._Stems(notes)
    pairs = [
        (new, old)
        for newer, older in s._replacements(notes, by_stem, confined=False)
        for new in newer.items
        for old in older.items
    ]
    # each item a side of its own: the successors of items, with no node for a group
    current = s._replaced(
        [(s._Side(new.id, (new,)), s._Side(old.id, (old,))) for new, old in pairs]
    )
    found: dict[str, dict[str, str]] = {}
    for new, old in pairs:
        if old.id in current:
            found.setdefault(old.id, {}).setdefault(s._stem(new), s._name_of(new))
    paired = {old.id for _, old in pairs}
    return s._with_named_successors(notes, by_stem, current, paired, found).by


def test_notes_are_replaced_as_when_told_pair_by_pair() -> None:
    import random

    rng = random.Random(3)
    files = ["a.md", "b.md", "b.markdown", "adr-1-x.md", "adr-2-y.md", "d/c.md", "d/a.md"]
    names = ["a", "b", "adr-1", "adr-2", "c", "../a", "d/c", "zz", "b.md", "[[a]]"]
    fields = ["supersedes", "replaces", "superseded_by", "replaced-by"]
    replaced_any = 0
    for _ in range(600):
        items = []
        for source in rng.sample(files, rng.randint(2, len(files))):
            front = {f: ", ".join(rng.sample(names, 2)) for f in rng.sample(fields, 1)}
            for passage in range(rng.randint(1, 3)):
                if rng.random() < 0.1:  # a passage of the same note with other fields
                    front = {f: rng.choice(names) for f in rng.sample(fields, 1)}
                where = {"source": source, "path": f"/n/{source}", "format": "markdown"}
                text = f"note {source} {passage}"
                items.append(SubstrateItem(kind="text", text=text, payload=front, provenance=where))
        assert replaced_notes(items) == _replaced_pair_by_pair(items), items
        replaced_any += bool(replaced_notes(items))
    assert replaced_any > 200


def test_a_note_naming_its_own_stem_replaces_only_the_other_files_of_it() -> None:
    def note(source: str, **front: str) -> SubstrateItem:
        where = {"source": source, "path": f"/n/{source}", "format": "markdown"}
        return SubstrateItem(kind="text", text=source, payload=front, provenance=where)

    for order in (1, -1):  # whichever names the stem first
        items = [note("b.md", supersedes="b"), note("c.md", supersedes="b")][::order]
        items.append(note("b.markdown"))
        replaced = replaced_notes(items)
        assert replaced == _replaced_pair_by_pair(items)
        assert {item.text for item in items if item.id in replaced} == {"b.md", "b.markdown"}


def test_freshness_finds_a_record_named_by_its_id(tmp_path: Path) -> None:
    # freshness read the notes without their front matter's id: the record stayed fresh
    from substrate.freshness import freshness_report

    adr = tmp_path / "notes" / "adr"
    adr.mkdir(parents=True)
    (adr / "custom-name.md").write_text("---\nid: ADR-0042\n---\n# Queue\n\nUse RabbitMQ.\n")
    (adr / "0043-sqs.md").write_text("---\nsupersedes: adr-0042\n---\n# Queue\n\nUse SQS.\n")
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path / "notes")
    (stale,) = freshness_report(store)["stale"]
    assert stale["signals"] == ["replaced: by adr/0043-sqs.md (a note says so)"]
