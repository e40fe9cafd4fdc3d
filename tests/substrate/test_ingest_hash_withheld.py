"""A file that held a secret leaves no hash of its bytes: with the rest of the file stored, the
hash would confirm a guess of the secret offline (a chosen password falls to a short word
list). Its changes are still found: by ingest, by its size and modification time, and by the
freshness checks."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from substrate.freshness import freshness_report
from substrate.ingest import ingest_path, ingest_text, prepare
from substrate.ingest.adapters import ingest_file, ingest_traces
from substrate.ingest.report import IngestReport
from substrate.store import Substrate

GUESSABLE = "password: Summer2024!\n"


def raw_hash(data: str) -> str:
    return hashlib.sha256(data.encode()).hexdigest()


def settled(*paths: Path) -> None:
    """Date files long before the run: their size and time are trusted (no hash of a file
    holding a secret is kept, so only they can find it unchanged)."""
    for path in paths:
        os.utime(path, ns=(1_600_000_000_000_000_000,) * 2)


def shard_text(shard: Path) -> str:
    return "".join(
        path.read_text(errors="replace") for path in sorted(shard.rglob("*")) if path.is_file()
    )


def test_a_file_holding_a_secret_records_no_hash_of_its_bytes(tmp_path: Path) -> None:
    notes, shard = tmp_path / "notes", tmp_path / "shard"
    notes.mkdir()
    (notes / "db.txt").write_text(GUESSABLE)
    (notes / "ok.md").write_text("# Ok\n\nnothing secret here\n")
    report = ingest_path(Substrate(shard), notes)
    assert report.redactions == 1
    by_source = {item.provenance["source"]: item for item in Substrate(shard).all()}
    assert "content_hash" not in by_source["db.txt"].provenance
    ok = (notes / "ok.md").read_text()
    assert by_source["ok.md"].provenance["content_hash"] == raw_hash(ok)[:32]
    stored = shard_text(shard)
    assert raw_hash(GUESSABLE)[:12] not in stored and raw_hash(ok)[:32] in stored


def test_a_file_holding_a_secret_is_still_skipped_unchanged_and_read_again_when_edited(
    tmp_path: Path,
) -> None:
    notes, shard = tmp_path / "notes", tmp_path / "shard"
    notes.mkdir()
    db = notes / "db.txt"
    db.write_text(GUESSABLE)
    first = ingest_path(Substrate(shard), notes)
    # just written, its time is too close to the ingest to be trusted, but its items record
    # it: each run within that window stored a new copy of them and told the file updated
    lines = (shard / "items.jsonl").read_text().count("\n")
    again = ingest_path(Substrate(shard), notes)
    assert (again.files_unchanged, again.items_rewritten, again.redactions) == (1, 0, 0)
    assert (shard / "items.jsonl").read_text().count("\n") == lines
    settled(db)  # touched: its items are written again with the time freshness compares,
    # but the file is unchanged, and its secret no new redaction (a cron job watching the
    # count saw a new secret at every touch)
    touched = ingest_path(Substrate(shard), notes)
    assert (touched.files_unchanged, touched.files_updated, touched.redactions) == (1, 0, 0)
    assert (shard / "items.jsonl").read_text().count("\n") > lines
    again = ingest_path(Substrate(shard), notes)
    assert (again.files_unchanged, again.items_rewritten, again.redactions) == (1, 0, 0)
    db.write_text("\n\n" + GUESSABLE)  # the same items, but on other lines: an edit
    moved = ingest_path(Substrate(shard), notes)
    assert (moved.files_updated, moved.items_rewritten, moved.redactions) == (1, 1, 1)
    db.write_text("password: Winter2025!\nanother line\n")
    edited = ingest_path(Substrate(shard), notes)
    assert edited.files_updated == 1 and edited.redactions == 1
    [item] = Substrate(shard).all()
    assert item.id not in first.ids and "content_hash" not in item.provenance


def test_the_explicit_forms_withhold_it_too(tmp_path: Path) -> None:
    store = Substrate(tmp_path / "shard")
    notes = tmp_path / "notes.txt"
    notes.write_text(f"first line\n{GUESSABLE}")
    traces = tmp_path / "traces.jsonl"
    traces.write_text(json.dumps({"input": "db login?", "answer": GUESSABLE.strip()}) + "\n")
    clean = tmp_path / "clean.txt"
    clean.write_text("nothing to hide\n")
    ids = ingest_file(store, notes) + ingest_traces(store, traces) + ingest_file(store, clean)
    hashes = {store.get(i).provenance.get("content_hash") for i in ids}  # type: ignore[union-attr]
    assert hashes == {None, raw_hash(clean.read_text())[:32]}
    stored = shard_text(tmp_path / "shard")
    assert not any(raw_hash(p.read_text())[:12] in stored for p in (notes, traces))


def test_an_unnamed_stream_holding_a_secret_is_not_named_by_the_hash_of_its_bytes(
    tmp_path: Path,
) -> None:
    store = Substrate(tmp_path / "shard")
    first = ingest_text(store, GUESSABLE)
    [item] = store.all()
    name = item.provenance["source"]
    assert name.startswith("stdin-") and raw_hash(GUESSABLE)[:12] not in name
    assert "content_hash" not in item.provenance
    again = ingest_text(store, GUESSABLE)  # the same name, found unchanged by its items
    assert (again.files_unchanged, again.items_rewritten, len(store.all())) == (1, 0, 1)
    assert ingest_text(store, "just a note\n").ids != first.ids
    names = {i.provenance["source"] for i in store.all()}
    assert f"stdin-{raw_hash('just a note' + chr(10))[:12]}" in names  # clean: as before


def test_an_unnamed_stream_of_traces_holding_a_secret_is_not_named_by_its_bytes(
    tmp_path: Path,
) -> None:
    # it keeps a digest of its other lines (``linesdigest``): no hash of its bytes
    rows = '{"input": "the db password?", "answer": "password: Summer2024!"}\n'
    rows += '{"input": "hi", "answer": "hello"}\n'
    store = Substrate(tmp_path / "shard")
    ingest_text(store, rows, as_format="traces")
    names = {item.provenance["source"] for item in store.all()}
    assert len(names) == 1 and raw_hash(rows)[:12] not in names.pop()


def test_freshness_tells_a_change_of_such_a_file_by_its_size_and_time(tmp_path: Path) -> None:
    notes, shard = tmp_path / "notes", tmp_path / "shard"
    notes.mkdir()
    db = notes / "db.txt"
    db.write_text(GUESSABLE)
    settled(db)
    ingest_path(Substrate(shard), notes)
    assert freshness_report(Substrate(shard))["n_stale"] == 0
    db.write_text("password: Autumn2026!!\n")
    [stale] = freshness_report(Substrate(shard))["stale"]
    assert stale["signals"] == [
        f"changed: '{db}' has another size or modification time than at ingest"
    ]


def test_rehash_withholds_the_hash_that_items_stored_before_still_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes, shard = tmp_path / "notes", tmp_path / "shard"
    notes.mkdir()
    (notes / "db.txt").write_text(GUESSABLE)
    (notes / "ok.md").write_text("# Ok\n\nnothing secret here\n")
    settled(*notes.iterdir())
    with monkeypatch.context() as before:  # as a shard written before the hash was withheld
        before.setattr(prepare, "_only_in_names", lambda *_: True)
        ingest_path(Substrate(shard), notes)
    assert raw_hash(GUESSABLE)[:32] in (shard / "items.jsonl").read_text()
    assert ingest_path(Substrate(shard), notes).files_unchanged == 2  # size and time kept
    report = ingest_path(Substrate(shard), notes, rehash=True)
    assert (report.files_updated, report.files_unchanged, report.items_rewritten) == (1, 1, 1)
    Substrate(shard).compact()
    assert raw_hash(GUESSABLE)[:12] not in shard_text(shard)


def test_a_stream_whose_secret_only_its_key_tells_is_named_from_what_the_gate_masked(
    tmp_path: Path,
) -> None:
    store = Substrate(tmp_path / "shard")
    rows = "user,pwd\nal,Qm4Zt8Wn2Xr6Kp9Y\n"  # a text scan sees no assignment here
    report = ingest_text(store, rows, as_format="csv")
    [item] = store.all()
    assert report.redactions == 1 and "Qm4Zt8Wn2Xr6Kp9Y" not in str(item.payload)
    assert raw_hash(rows)[:12] not in item.provenance["source"]


def _touched_after(tmp_path: Path, change: Callable[[Substrate, str], object]) -> IngestReport:
    """Ingest a note holding a secret, ``change`` its first item in the shard, touch the note
    and ingest it again: the report of that last run."""
    notes, shard = tmp_path / "notes", tmp_path / "shard"
    notes.mkdir()
    (notes / "db.md").write_text(f"# Setup\n\n{GUESSABLE}\n## Cloud\n\nNothing else.\n")
    first = ingest_path(Substrate(shard), notes)
    store = Substrate(shard)
    change(store, first.ids[0])
    store.save()
    settled(notes / "db.md")
    return ingest_path(Substrate(shard), notes)


def test_a_touched_file_holding_a_secret_whose_item_was_published_is_unchanged(
    tmp_path: Path,
) -> None:
    # the published item lives in another scope now: it was compared as if the file said so
    from substrate.spaces import publish

    touched = _touched_after(tmp_path, lambda store, i: publish(store, [i], to="public"))
    assert (touched.files_unchanged, touched.files_updated, touched.redactions) == (1, 0, 0)


def test_an_item_removed_by_hand_stays_removed_when_its_file_holding_a_secret_is_touched(
    tmp_path: Path,
) -> None:
    # as it does in an unchanged file without a secret: it came back at the touch
    touched = _touched_after(tmp_path, Substrate.remove)
    assert (touched.files_unchanged, touched.items_added) == (1, 0)
    [kept] = Substrate(tmp_path / "shard").all()
    assert kept.provenance["section"] == "Setup > Cloud"


def test_a_secret_on_a_rejected_line_withholds_the_hash_too(tmp_path: Path) -> None:
    """A line left out (invalid JSON, a byte that is not UTF-8) is stored nowhere, but the
    file's hash is of its bytes too: with the other lines stored, it would confirm a guess."""
    rows = b'{"text": "hello world"}\n{"text": "bad \xe9 password = Summer2024!x"}\n'
    broken = b'{"text": "hello world"}\n{"text": oops password = Summer2024!x\n'
    clean = b'{"text": "hello world"}\n{"text": oops\n'
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, data in (("a.jsonl", rows), ("b.jsonl", broken), ("c.jsonl", clean)):
        (notes / name).write_bytes(data)
    ingest_path(Substrate(tmp_path / "shard"), notes)
    hashed = {
        item.provenance["source"]: "content_hash" in item.provenance
        for item in Substrate(tmp_path / "shard").all()
    }
    assert hashed == {"a.jsonl": False, "b.jsonl": False, "c.jsonl": True}
    # and under a folder whose name holds a secret too (the gate masks it in the names)
    token = "ghp_" + "Zq8vLm2Rt9Xw4Ks7Pq3Nb6Yc1Hd5Jf0Ga2Tu"
    (tmp_path / token).mkdir()
    (tmp_path / token / "b.jsonl").write_bytes(broken)
    ingest_path(Substrate(tmp_path / "s2"), tmp_path / token)
    [item] = Substrate(tmp_path / "s2").all()
    assert "content_hash" not in item.provenance
    store = Substrate()
    for name in ("a.jsonl", "b.jsonl"):
        for seed in (ingest_file, ingest_traces):
            ids = seed(store, notes / name)
            assert all("content_hash" not in store.get(i).provenance for i in ids)  # type: ignore[union-attr]
