"""The reference adapters keep their semantics (and lose their weaknesses)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from substrate.errors import InvalidInputError, NotFoundError
from substrate.ingest import (
    IngestReport,
    ingest_artifacts,
    ingest_documents,
    ingest_file,
    ingest_path,
    ingest_records,
    ingest_traces,
)
from substrate.ingest.textio import content_digest
from substrate.store import Substrate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"


def test_ingest_documents_strings_and_dicts() -> None:
    store = Substrate()
    ids = ingest_documents(
        store,
        ["plain text", {"text": "with meta", "tags": ["t"], "payload": {"k": 1}}, {"tags": ["x"]}],
        source="manual",
        scope="team",
    )
    items = [store.get(i) for i in ids]
    assert [(i.kind, i.text, i.tags, i.payload) for i in items if i] == [
        ("text", "plain text", [], {}),
        ("text", "with meta", ["t"], {"k": 1}),
        ("text", "", ["x"], {}),  # a missing text becomes ""
    ]
    for n, item in enumerate(items):
        assert item is not None and item.scope == "team"
        assert item.provenance["source"] == "manual" and item.provenance["index"] == n
        assert isinstance(item.provenance["ingested_at"], float)
    assert ingest_documents(store, []) == []


def test_tags_found_in_content_are_as_one_types_them(tmp_path: Path) -> None:
    # each could not be given to ls -t or search --tag: listed, never found
    odd = [" policy ", "pol\u200bicy", "", "a\tb", "\x1b[31mred", "Zu\u0308rich", "ok", "ok"]
    store = Substrate()
    (item_id,) = ingest_documents(store, [{"text": "tagged", "tags": odd}])
    tidy = ["policy", "a b", "[31mred", "Z\u00fcrich", "ok"]
    assert store.get(item_id).tags == tidy  # type: ignore[union-attr]
    note = tmp_path / "note.md"
    note.write_text("---\ntags: [' policy', ok\u200b]\n---\n# Note\n\nBody.\n")
    ingest_path(store, note)
    (from_file,) = [i for i in store.iter_items() if i.text.endswith("Body.")]
    assert from_file.tags == ["policy", "ok"]
    # joiners, newer emoji and flags' tag characters are what the tag is: kept
    kept = ["न\u200dम", "mood-\U0001fae8", "\U0001f3f4\U000e0067\U000e0062\U000e0077\U000e007f"]
    assert ingest_documents(store, [{"text": "fine", "tags": [*kept, "a  b", "a\u00a0b "]}])
    assert [i.tags for i in store.iter_items() if i.text == "fine"] == [[*kept, "a b"]]
    # JSON values as they read in JSON, and null as no tag (not Python's "None", "True")
    assert ingest_documents(store, [{"text": "typed", "tags": [1, None, True, 2.5]}])
    assert [i.tags for i in store.iter_items() if i.text == "typed"] == [["1", "true", "2.5"]]


def test_docs_take_their_line_numbers_one_each() -> None:
    store = Substrate()
    (item_id,) = ingest_documents(store, ["a passage"], lines=[4])
    assert store.get(item_id).provenance["line"] == 4  # type: ignore[union-attr]
    with pytest.raises(InvalidInputError, match="fewer line numbers"):
        ingest_documents(store, ["one", "two"], lines=[1])
    assert len(store.all()) == 1  # nothing of the refused call stored


def test_same_input_updates_the_same_items() -> None:
    store = Substrate()
    first = ingest_documents(store, ["a", "b", "a"])
    again = ingest_documents(store, ["a", "b", "a"])
    assert first == again and len(set(first)) == 3  # positions differ, so ids differ
    assert len(store) == 3
    assert ingest_documents(store, ["a"], source="elsewhere") != first[:1]


def test_items_ingested_again_are_counted_as_rewritten_not_added(tmp_path: Path) -> None:
    store = Substrate()
    notes = tmp_path / "notes.txt"
    notes.write_text("alpha\nbeta\n")
    first, again = IngestReport(), IngestReport()
    ingest_file(store, notes, report=first)
    notes.write_text("alpha\ngamma\n")
    ingest_file(store, notes, report=again)
    assert (first.items_added, first.items_rewritten, first.files[0].status) == (2, 0, "added")
    assert (again.items_added, again.items_rewritten, again.files[0].status) == (1, 1, "updated")
    assert len(store) == 3  # the reference adapter adds: beta stays
    docs = IngestReport()
    ingest_documents(store, ["a", "a"], report=docs)
    ingest_documents(store, ["a", "a"], report=docs)  # stored as they are: not written again
    assert (docs.items_added, docs.items_rewritten) == (2, 0)


def _proposed_table(tmp_path: Path, scope: str = "local") -> tuple[Path, Path, list[str]]:
    """A CSV ingested into a shard on disk with its first row proposed for ``public``."""
    from substrate.proposals import propose

    table, shard = tmp_path / "team.csv", tmp_path / "shard"
    table.write_text("name,role\nana,lead\nbo,dev\n")
    store = Substrate(shard)
    ids = ingest_file(store, table, scope=scope)
    propose(store, ids[:1], to="public", by="ana")
    store.save()
    return table, shard, ids


def test_an_unchanged_file_ingested_again_writes_nothing_and_keeps_its_proposals(
    tmp_path: Path,
) -> None:
    from substrate.proposals import pending

    notes, shard, ids = _proposed_table(tmp_path)
    log_size = (shard / "items.jsonl").stat().st_size
    created = {i.id: i.created_at for i in Substrate(shard).iter_items()}

    store, again = Substrate(shard), IngestReport()
    assert ingest_file(store, notes, report=again) == ids
    store.save()
    assert (shard / "items.jsonl").stat().st_size == log_size
    assert (again.items_added, again.items_rewritten, again.unchanged) == (0, 0, [str(notes)])
    assert again.files == [] and again.files_unchanged == 1

    # the file changes (not by rows added at its end: those leave the others as stored)
    notes.write_bytes(b"name,role\r\nana,lead\r\nbo,dev\r\ncy,ops\r\n")
    store, third = Substrate(shard), IngestReport()
    ingest_file(store, notes, report=third)
    store.save()
    assert (third.items_added, third.items_rewritten) == (1, 2)
    assert [i.id for i in pending(Substrate(shard))] == ids[:1]
    assert all(Substrate(shard).get(i).created_at == created[i] for i in ids)  # type: ignore[union-attr]


def test_one_string_is_not_taken_for_a_list_of_its_characters() -> None:
    store = Substrate()
    for ingest in (ingest_documents, ingest_records):
        with pytest.raises(InvalidInputError, match="not one string"):
            ingest(store, "hello world")
    assert len(store) == 0
    (rec_id,) = ingest_records(store, [{"id": 1, "name": "bob"}], text_fields="name")
    assert store.get(rec_id).text == "bob"  # type: ignore[union-attr]


def test_ingest_records_dicts_tuples_and_scalars() -> None:
    store = Substrate()
    ids = ingest_records(
        store,
        [{"name": "ada", "age": 36, "team": "core"}, ("x", 2), 7],
        text_fields=["name", "missing", "team"],
    )
    items = [store.get(i) for i in ids]
    assert [(i.kind, i.text, i.payload) for i in items if i] == [
        ("record", "ada core", {"name": "ada", "age": 36, "team": "core"}),
        ("record", "x 2", {"values": ["x", 2]}),
        ("record", "7", {"values": [7]}),
    ]
    assert [i.provenance["index"] for i in items if i] == [0, 1, 2]
    other = Substrate()
    (rec_id,) = ingest_records(other, [{"a": 1, "b": "two"}])
    rec = other.get(rec_id)
    assert rec is not None and rec.text == "1 two" and rec.provenance["source"] == "records"


def test_record_text_spells_values_as_json_does_not_as_python() -> None:
    store = Substrate()
    record = {"name": "zoë", "age": None, "meta": {"a": "b"}, "ok": True, "n": 1.5}
    ids = ingest_records(store, [record, ("x", None, False, ["é"])])
    texts = [item.text for item in store.read_items(ids).values()]
    assert texts == ['zoë {"a": "b"} true 1.5', 'x false ["é"]']


def test_ingest_file_text_lines(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Title\n\n  first line  \n\nsecond line\n")
    store = Substrate()
    ids = ingest_file(store, str(path))
    items = [store.get(i) for i in ids]
    assert [(i.text, i.provenance["index"], i.provenance["line"]) for i in items if i] == [
        ("# Title", 0, 1),
        ("first line", 1, 3),
        ("second line", 2, 5),
    ]
    prov = items[0].provenance if items[0] else {}
    assert prov["source"] == str(path)
    assert prov["content_hash"] == content_digest(path.read_bytes())
    assert prov["path"] == str(path)


def test_ingest_file_jsonl_keeps_file_order(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    shutil.copy(FIXTURES / "notes" / "mixed.jsonl", path)
    store = Substrate()
    report = IngestReport()
    ids = ingest_file(store, path, source="mixed", report=report)
    items = [store.get(i) for i in ids]
    assert [(i.kind, i.text, i.provenance["index"], i.provenance["line"]) for i in items if i] == [
        ("text", "a document line", 0, 1),
        ("record", "ada en", 1, 2),
        ("text", "a bare string", 2, 3),
        ("text", "after a blank line", 3, 5),
    ]
    assert items[0] is not None and items[0].tags == ["doc"]
    assert report.ok and report.items_added == 4


def test_ingest_file_counts_bad_jsonl_lines(tmp_path: Path) -> None:
    path = tmp_path / "rows.ndjson"
    path.write_text('{"a": 1}\nnope\n{"b": 2}\n')
    report = IngestReport()
    ids = ingest_file(Substrate(), path, report=report)
    assert len(ids) == 2
    assert [(i.line, i.fatal) for i in report.issues] == [(2, False)]


def test_ingest_file_csv_and_kind_as_format(tmp_path: Path) -> None:
    path = tmp_path / "people.data"
    shutil.copy(FIXTURES / "notes" / "people.csv", path)
    store = Substrate()
    ids = ingest_file(store, path, kind="csv")
    items = [store.get(i) for i in ids]
    assert [i.payload for i in items if i] == [
        {"name": "ada", "role": "engineer", "team": "core"},
        {"name": "grace", "role": "admiral", "team": "navy"},
    ]
    assert ingest_file(Substrate(), path, as_format="csv") == ids


def test_ingest_file_reads_a_csv_at_its_own_delimiter(tmp_path: Path) -> None:
    # read at commas, a ";" file's quoted cell over two lines fell apart into two records
    path = tmp_path / "q.csv"
    path.write_text('name;note;n\nalpha;"multi\nline";1\nbeta;"semi;colon";2\n')
    store = Substrate()
    items = [store.get(i) for i in ingest_file(store, path)]
    assert [i.payload for i in items if i] == [
        {"name": "alpha", "note": "multi\nline", "n": "1"},
        {"name": "beta", "note": "semi;colon", "n": "2"},
    ]


def test_ingest_file_missing_unsupported_and_undecodable(tmp_path: Path) -> None:
    assert ingest_file(Substrate(), tmp_path / "missing.txt") == []
    (tmp_path / "x.docx").write_text("?")
    with pytest.raises(InvalidInputError, match="unsupported file format"):
        ingest_file(Substrate(), tmp_path / "x.docx")
    with pytest.raises(ValueError):  # the reference's exception type still matches
        ingest_file(Substrate(), tmp_path / "x.docx")
    (tmp_path / "x.rst").write_text("Title\n=====\n\nText.\n")
    with pytest.raises(InvalidInputError, match=r"`mixle ingest` \(ingest_path\) reads it"):
        ingest_file(Substrate(), tmp_path / "x.rst")  # a format the folder ingest knows
    (tmp_path / "bad.txt").write_bytes(b"fine\n\xff\n")
    report = IngestReport()
    with pytest.raises(InvalidInputError, match=":2: invalid UTF-8"):
        ingest_file(Substrate(), tmp_path / "bad.txt", report=report)
    assert report.issues[0].fatal
    (tmp_path / "image.csv").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff")  # as ingest says it
    with pytest.raises(InvalidInputError, match=":1: binary file, not text"):
        ingest_file(Substrate(), tmp_path / "image.csv")


def test_an_error_about_a_file_masks_the_secrets_of_its_name(tmp_path: Path) -> None:
    """A report masks a token in a file's name; the exception a caller catches and logs
    must not spell it out either."""
    token = "ghp_" + "Zq8fT2kLm9Xw3RbN7yHc4VjD1sGa6PeU0oKi"
    bad = tmp_path / f"pw-{token}.txt"
    bad.write_bytes(b"fine\n\xff\n")
    docx = tmp_path / f"pw-{token}.docx"
    docx.write_text("?")
    binary = tmp_path / f"pw-{token}.jsonl"
    binary.write_bytes(b"\x00\x01PK")
    for call in (
        lambda: ingest_file(Substrate(), bad),
        lambda: ingest_traces(Substrate(), binary),
        lambda: ingest_file(Substrate(), docx),
        lambda: ingest_file(Substrate(), bad, kind=f"x{token}"),
    ):
        with pytest.raises(InvalidInputError) as caught:
            call()
        assert "REDACTED" in str(caught.value) and token not in str(caught.value)
    with pytest.raises(NotFoundError) as missing:
        ingest_path(Substrate(), tmp_path / f"gone-{token}.md")
    assert token not in str(missing.value)


def test_an_empty_path_is_no_path_not_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Path("")`` is ``.``: an unset variable passed as the path must not ingest whatever
    folder the program runs in."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a" / "manifest.json").parent.mkdir()
    (tmp_path / "a" / "manifest.json").write_text('{"kind": "model"}')
    (tmp_path / "notes.md").write_text("# Notes\n\nnot to be taken\n")
    shard = Substrate()
    assert ingest_artifacts(shard, "") == []
    with pytest.raises(NotFoundError, match="empty"):
        ingest_path(shard, "")
    assert ingest_file(shard, "") == [] and ingest_traces(shard, "") == []
    assert len(shard) == 0


def test_an_artifact_folder_that_cannot_be_read_fails_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a", "locked/b"):
        (tmp_path / name).mkdir(parents=True)
        (tmp_path / name / "manifest.json").write_text('{"kind": "model"}')
    listing = os.scandir

    def scandir(path: str) -> object:  # (chmod 0 would not stop a test run as root)
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return listing(path)

    monkeypatch.setattr(os, "scandir", scandir)
    report = IngestReport()
    ids = ingest_artifacts(Substrate(), tmp_path, report=report)
    assert len(ids) == 1 and not report.ok
    assert [(f.status, f.reason) for f in report.files if f.status == "failed"] == [
        ("failed", "unreadable directory: Permission denied")
    ]
    assert report.files_scanned == 2  # the counts add up: one added, one failed


def test_ingest_traces_rows_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text(
        (FIXTURES / "notes" / "traces.jsonl").read_text()
        + '{broken\n[1, 2]\n\n{"input": 5}\n{"nope": 1}\n{"input": null, "answer": ""}\n'
    )
    store = Substrate()
    report = IngestReport()
    ids = ingest_traces(store, path, report=report)
    items = [store.get(i) for i in ids]
    assert [(i.kind, i.text, i.provenance["row"], i.provenance["line"]) for i in items if i] == [
        ("trace", "2+2 => 4", 0, 1),
        ("trace", "capital of France => Paris", 2, 3),
        ("trace", '{"q": "route"} => router', 3, 4),
        ("trace", "5 => null", 7, 8),
    ]
    assert items[0] is not None and items[0].payload == {"input": "2+2", "answer": 4}
    assert items[0].provenance["source"] == str(path)
    assert [(i.line, i.reason.split(":")[0]) for i in report.issues] == [
        (5, "invalid JSON"),
        (6, "trace row is not a JSON object"),
        (9, "trace row has no input and no answer, label, call"),  # not "null => null"
        (10, "trace row has no input and no answer, label, call"),
    ]
    assert ingest_traces(store, tmp_path / "none.jsonl") == []
    other = Substrate()
    named = ingest_traces(other, path, source="harvest")
    assert named == ids  # same file, same rows: same items whatever the label
    first = other.get(named[0])
    assert first is not None and first.provenance["source"] == "harvest"


def test_an_artifact_read_again_unchanged_is_reported_unchanged(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    shutil.copytree(FIXTURES / "registry", registry)
    store = Substrate()
    first, again = IngestReport(), IngestReport()
    ids = ingest_artifacts(store, str(registry), report=first)
    assert [f.status for f in first.files if f.status != "failed"] == ["added"]
    assert ingest_artifacts(store, str(registry), report=again) == ids
    assert [f.status for f in again.files if f.status != "failed"] == []
    assert (again.items_added, again.files_unchanged) == (0, 1)


def test_a_folder_without_a_manifest_is_said_to_hold_no_artifact(tmp_path: Path) -> None:
    (tmp_path / "model.bin").write_bytes(b"weights")
    report = IngestReport()
    assert ingest_artifacts(Substrate(), str(tmp_path), report=report) == []
    assert [n.reason for n in report.notices] == [
        "no artifact folder here (one holds a manifest.json)"
    ]


def test_an_artifacts_path_is_absolute_from_any_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(FIXTURES / "registry", tmp_path / "registry")
    monkeypatch.chdir(tmp_path)
    store = Substrate()
    [item_id] = ingest_artifacts(store, "registry")
    item = store.get(item_id)
    assert item is not None and item.provenance["path"] == str(tmp_path / "registry" / "router")
    assert item.payload["ref"] == item.provenance["path"]
    monkeypatch.chdir(tmp_path / "registry")  # spelt otherwise: the same item
    assert ingest_artifacts(store, str(tmp_path / "registry")) == [item_id]
    assert ingest_artifacts(store, ".") == [item_id] and len(store) == 1
    monkeypatch.chdir(tmp_path / "registry" / "router")
    assert ingest_artifacts(store, "..") == [item_id] and len(store) == 1


def test_ingest_artifacts_reference_not_copy(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    shutil.copytree(FIXTURES / "registry", registry)
    store = Substrate()
    report = IngestReport()
    ids = ingest_artifacts(store, str(registry), scope="models", report=report)
    assert len(ids) == 1
    item = store.get(ids[0])
    assert item is not None and item.kind == "artifact" and item.scope == "models"
    assert item.text == "router solve/v1 solve record"
    assert item.payload == {
        "ref": str(registry / "router"),
        "manifest": {
            "mixle_artifact": "solve/v1",
            "meta": {"solve": {"n": 3}, "parent": "base-7"},
            "io": {"kind": "record"},
        },
    }
    assert item.tags == ["solve", "parent"]
    prov = item.provenance
    assert (prov["source"], prov["path"], prov["artifact_kind"], prov["parent"]) == (
        "registry",
        str(registry / "router"),
        "solve/v1",
        "base-7",
    )
    # the broken and the non-object manifest are reported, not skipped silently or crashing
    reasons = sorted((Path(i.source).parent.name, i.fatal) for i in report.issues)
    assert reasons == [("broken", True), ("listy", True)]
    assert ingest_artifacts(store, str(tmp_path / "nowhere")) == []


def test_adapters_pass_items_through_the_gate() -> None:
    store = Substrate()
    report = IngestReport()
    (item_id,) = ingest_documents(store, ["key AKIAZ7Q3M5X1R9T2K4LB in a note"], report=report)
    item = store.get(item_id)
    assert item is not None and "AKIAZ7Q3M5X1R9T2K4LB" not in item.text
    assert report.redactions >= 1
    (raw_id,) = ingest_documents(store, ["key AKIAZ7Q3M5X1R9T2K4LB"], redact=False, source="r")
    raw = store.get(raw_id)
    assert raw is not None and "AKIAZ7Q3M5X1R9T2K4LB" in raw.text


def test_an_item_approved_into_another_scope_stays_there_when_its_file_is_read_again(
    tmp_path: Path,
) -> None:
    from substrate.governance import grant_approver
    from substrate.proposals import approve

    table, shard, ids = _proposed_table(tmp_path, scope="research")
    store = Substrate(shard)
    grant_approver(store, "boss", "public", by=None)
    assert approve(store, ids[0], by="boss")
    store.save()
    moved = Substrate(shard).get(ids[0])
    assert moved is not None and moved.scope == "public"

    store = Substrate(shard)
    assert ingest_file(store, table, scope="research") == ids[1:]  # as `ingest` reports
    store.save()
    again = Substrate(shard).get(ids[0])
    assert again is not None and again.scope == "public"  # not pulled back into research


def test_trace_and_record_text_keep_non_ascii_readable(tmp_path: Path) -> None:
    rows = tmp_path / "t.jsonl"
    rows.write_text('{"input": {"city": "Zürich"}, "answer": ["café"]}\n', encoding="utf-8")
    store = Substrate()
    (trace_id,) = ingest_traces(store, rows)
    (record_id,) = ingest_records(store, [{"meta": {"city": "Zürich"}}])
    assert store.get(trace_id).text == '{"city": "Zürich"} => ["café"]'  # type: ignore[union-attr]
    assert store.get(record_id).text == '{"city": "Zürich"}'  # type: ignore[union-attr]


def test_as_artifacts_on_a_folder_reads_its_manifests_only(tmp_path: Path) -> None:
    model = tmp_path / "registry" / "m1"
    model.mkdir(parents=True)
    (model / "manifest.json").write_text('{"kind": "classifier", "meta": {"task": "x"}}')
    (model / "README.md").write_text("# Model card\n")  # not JSON: was a failed file, exit 1
    (model / "weights.bin").write_bytes(bytes(range(256)))
    report = ingest_path(Substrate(), tmp_path / "registry", as_format="artifacts")
    assert (report.files_added, report.files_failed, report.files_skipped) == (1, 0, 2)
    assert {f.reason for f in report.files if f.reason} == {"not a manifest.json"}
    shutil.copy(model / "manifest.json", tmp_path / "model.json")
    named = ingest_path(Substrate(), tmp_path / "model.json", as_format="artifacts")
    assert named.files_added == 1  # a file named on its own is read as asked, whatever its name


def test_as_artifacts_makes_an_artifact_of_every_manifest_as_ingest_artifacts_does(
    tmp_path: Path,
) -> None:
    model = tmp_path / "registry" / "m1"
    model.mkdir(parents=True)
    # none of the keys that tell a manifest from a web app's: taken as asked all the same
    (model / "manifest.json").write_text('{"name": "m1", "version": "1.0"}')
    forced, explicit, found = Substrate(), Substrate(), Substrate()
    ingest_path(forced, tmp_path / "registry", as_format="artifacts")
    ingest_artifacts(explicit, tmp_path / "registry")
    ingest_path(found, tmp_path / "registry")
    (item,), (same,) = forced.all(), explicit.all()
    assert item.kind == same.kind == "artifact"
    assert item.payload["ref"] == same.payload["ref"] == str(model)
    assert item.payload["manifest"] == {"name": "m1", "version": "1.0"}
    assert [i.kind for i in found.all()] == ["record"]  # not asked for: plain JSON, as before


def test_ingest_keeps_the_documents_ingest_docs_keeps(tmp_path: Path) -> None:
    rows = [{"payload": {"x": 1}}, {"text": "", "payload": {"y": 2}}, {"tags": ["a"]}, "\u200b"]
    (tmp_path / "docs.jsonl").write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    walked, listed = Substrate(), Substrate()
    report = ingest_path(walked, tmp_path)
    ingest_documents(listed, rows, drop_empty=True)
    assert sorted(list(i.payload.items()) for i in walked.iter_items()) == [[("x", 1)], [("y", 2)]]
    assert sorted(list(i.payload.items()) for i in listed.iter_items()) == [[("x", 1)], [("y", 2)]]
    assert report.items_dropped == 2


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda s: ingest_documents(s, ["z"], scope=5), "scope must be text, not int"),
        (lambda s: ingest_documents(s, ["z"], scope=None), "scope must be text, not NoneType"),
        (lambda s: ingest_documents(s, ["z"], source=None), "source must be text"),
        (lambda s: ingest_documents(s, None), "docs must be a list, not NoneType"),
        (lambda s: ingest_records(s, 5), "records must be a list, not int"),
        (lambda s: ingest_documents(s, {"text": "x"}), r"not one dict \(pass \[doc\]\)"),
        (lambda s: ingest_path(s, ".", tags=5), "tags must be a list, not int"),
        (lambda s: ingest_path(s, ".", tags=b"ab"), "tags must be a list, not bytes"),
        (
            lambda s: ingest_path(s, ".", tags={"k": 1}),
            r"tags must be a list, not one dict \(pass \[tag\]\)",
        ),
        (lambda s: ingest_path(s, ".", tags=["a", None]), "tag must be text, not NoneType"),
        (lambda s: ingest_documents(s, bytearray(b"ab")), "docs must be a list, not bytearray"),
        (lambda s: ingest_traces(s, "t.jsonl", scope=None), "scope must be text"),
        (lambda s: ingest_file(s, "f.txt", source=3), "source must be text, not int"),
        (lambda s: ingest_file(s, "f.txt", source=0), "source must be text, not int"),
        (lambda s: ingest_file(s, "f.txt", source=b""), "source must be text, not bytes"),
        (lambda s: ingest_traces(s, "t.jsonl", source=False), "source must be text, not bool"),
        (lambda s: ingest_artifacts(s, ".", scope=1), "scope must be text, not int"),
        (lambda s: ingest_path(s, ".", scope=None), "scope must be text, not NoneType"),
    ],
)
def test_arguments_of_the_wrong_type_are_refused_in_words(call: Any, said: str) -> None:
    """Not with an AttributeError from deep inside the gate, after part of the work."""
    shard = Substrate()
    with pytest.raises(InvalidInputError, match=said):
        call(shard)
    assert len(shard) == 0


def test_a_run_that_writes_nothing_counts_no_secret(tmp_path: Path) -> None:
    """Counted as ingest counts a file: a run finding every item stored as it is neither
    redacted a secret nor stored one unredacted (no warning to give)."""
    docs = ['password = "hunter2xyz!Q"', "plain"]
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(doc) + "\n" for doc in docs))
    shard = Substrate()
    for redact, counted in ((True, "redactions"), (False, "unredacted_secrets")):
        for expected in (1, 0):
            for seed, given in ((ingest_documents, docs), (ingest_file, tmp_path / "d.jsonl")):
                report = IngestReport()
                seed(shard, given, redact=redact, report=report)
                assert getattr(report, counted) == expected, (redact, seed)


def test_a_json_line_that_is_not_utf8_is_rejected_alone(tmp_path: Path) -> None:
    """Each line of JSON Lines is a document of its own: a byte that is no UTF-8 (a row
    pasted from a Latin-1 file) rejects its line, as invalid JSON does, not the file."""
    trace = b'{"input": "q", "answer": "a"}\n'
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "r.jsonl").write_bytes(b'{"text": "ok1"}\n{"text": "caf\xe9"}\n' + trace)
    (tmp_path / "t.jsonl").write_bytes(b'{"input": "caf\xe9", "answer": "x"}\n' + trace)
    walked = ingest_path(Substrate(), tmp_path / "notes")
    told = IngestReport()
    shard = Substrate()
    assert len(ingest_file(shard, tmp_path / "notes" / "r.jsonl", report=told)) == 2
    assert len(ingest_traces(shard, tmp_path / "t.jsonl", report=told)) == 1
    bad = "invalid UTF-8 (byte 0xe9 at offset 13 of the line)"
    assert [(i.line, i.reason) for i in walked.issues] == [(2, bad)]
    assert [(i.line, i.reason) for i in told.issues] == [
        (2, bad),
        (1, "invalid UTF-8 (byte 0xe9 at offset 14 of the line)"),
    ]
    assert walked.items_added == 2 and walked.files_failed == 0
    # a file of another format still fails whole: its lines are no documents each
    (tmp_path / "notes" / "n.md").write_bytes(b"# T\n\ncaf\xe9\n")
    assert ingest_path(Substrate(), tmp_path / "notes").files_failed == 1


def test_a_folder_given_to_ingest_file_is_refused_and_pointed_to_ingest_path(
    tmp_path: Path,
) -> None:
    """Not taken for a missing file (an empty list), which hid the slip."""
    (tmp_path / "notes.md").write_text("one\n")
    shard = Substrate()
    with pytest.raises(InvalidInputError, match="is a folder, not a file; ingest_path"):
        ingest_file(shard, tmp_path)
    with pytest.raises(InvalidInputError, match="is a folder, not a file; ingest_path"):
        ingest_traces(shard, str(tmp_path))
    with pytest.raises(InvalidInputError, match="path must be a file path, not NoneType"):
        ingest_file(shard, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="jsonl_path must be a file path, not int"):
        ingest_traces(shard, 3)  # type: ignore[arg-type]
    assert ingest_file(shard, tmp_path / "missing.md") == [] and len(shard) == 0


def test_artifacts_are_found_as_ingest_walks_a_folder(tmp_path: Path) -> None:
    # a bad manifest's failure says to leave it out with a line in .mixleignore: it is read
    for name in ("good", "broken", ".trash/old", "build/tmp"):
        (tmp_path / name).mkdir(parents=True)
        (tmp_path / name / "manifest.json").write_text('{"kind": "model"}')
    (tmp_path / "broken" / "manifest.json").write_bytes(b'{"kind": "\xff"}')
    (tmp_path / ".mixleignore").write_text("broken/\n")
    (tmp_path / ".gitignore").write_text("build/\n")
    report = IngestReport()
    ids = ingest_artifacts(Substrate(), tmp_path, report=report)
    assert len(ids) == 1 and report.ok  # not the hidden, ignored or left-out ones
    assert [Path(f.source).parent.name for f in report.files] == ["good"]
    assert (report.entries_hidden, report.entries_ignored) == (1, 2)  # counted, as ingest does
    assert len(ingest_artifacts(Substrate(), tmp_path, hidden=True)) == 2


def test_a_manifest_linked_from_outside_the_registry_is_said_to_be_skipped(
    tmp_path: Path,
) -> None:
    (tmp_path / "elsewhere" / "m").mkdir(parents=True)
    (tmp_path / "elsewhere" / "m" / "manifest.json").write_text('{"kind": "model"}')
    (tmp_path / "registry" / "own").mkdir(parents=True)
    (tmp_path / "registry" / "m").symlink_to(tmp_path / "elsewhere" / "m")
    (tmp_path / "elsewhere" / "weights.bin").write_bytes(b"\0")  # no artifact's to read
    (tmp_path / "registry" / "own" / "weights.bin").symlink_to(
        tmp_path / "elsewhere" / "weights.bin"
    )
    report = IngestReport()
    assert ingest_artifacts(Substrate(), tmp_path / "registry", report=report) == []
    assert [(f.status, f.reason) for f in report.files] == [
        ("skipped", "symlink leads outside the ingest root")
    ]


def test_a_manifest_kind_that_is_no_string_reads_as_json_spells_it(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    manifest = {"kind": {"x": 1}, "meta": {"task": 1}, "io": {"kind": True}}
    (tmp_path / "b" / "manifest.json").write_text(json.dumps(manifest))
    store = Substrate()
    [item_id] = ingest_artifacts(store, tmp_path)
    assert store.get(item_id).text == 'b {"x": 1} task true'  # not Python's {'x': 1} and True
