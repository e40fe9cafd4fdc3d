"""Freshness: moved/changed files, supersession, age, and the one-pass report."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from substrate.durations import format_duration, parse_duration
from substrate.errors import InvalidInputError
from substrate.freshness import (
    Freshness,
    check_freshness,
    content_hash,
    freshness_report,
    reference_of,
)
from substrate.item import SubstrateItem
from substrate.store import Substrate

NOW = 2_000_000_000.0


@pytest.fixture
def store() -> Substrate:
    return Substrate()


def ingested(path: Path, **extra: object) -> dict[str, object]:
    """Provenance as file ingestion records it (hash, size, mtime), ingested long after mtime."""
    st = path.stat()
    return {
        "source": path.name,
        "path": str(path),
        "content_hash": content_hash(path),
        "size": st.st_size,
        "mtime": st.st_mtime,
        "ingested_at": st.st_mtime + 3600,
        **extra,
    }


def age_file(path: Path, seconds_ago: float = 86400) -> None:
    past = path.stat().st_mtime - seconds_ago
    os.utime(path, (past, past))


def test_freshness_as_dict_rounds_age() -> None:
    verdict = Freshness("a", True, [], 12.345)
    assert verdict.as_dict() == {
        "item_id": "a",
        "fresh": True,
        "signals": [],
        "age_s": 12.3,
        "ref": None,
        "ref_type": None,
    }


def test_content_hash(tmp_path: Path) -> None:
    f = tmp_path / "f.txt"
    f.write_bytes(b"hello")
    assert content_hash(f) == "2cf24dba5fb0a30e26e83b2ac5b9e29e"
    assert content_hash(tmp_path) is None
    assert content_hash(tmp_path / "missing") is None


def test_missing_item(store: Substrate) -> None:
    verdict = check_freshness(store, "nope")
    assert not verdict.fresh and verdict.signals == ["missing: item no longer exists"]


def test_fresh_item_and_age_is_clamped(store: Substrate) -> None:
    a = store.add("text", "x", created_at=NOW + 50)
    verdict = check_freshness(store, a, now=NOW, max_age_s=10)
    assert verdict.fresh and verdict.age_s == 0.0


def test_aged_signal(store: Substrate) -> None:
    a = store.add("text", "x", created_at=NOW - 100)
    verdict = check_freshness(store, a, now=NOW, max_age_s=30)
    assert verdict.signals == ["aged: 1m 40s old exceeds the 30s policy (review, not proof)"]
    assert check_freshness(store, a, now=NOW, max_age_s=100).fresh


def test_live_objects_drive_age(store: Substrate) -> None:
    a = store.add("text", "x", created_at=NOW)
    store.get(a).created_at = NOW - 1000  # type: ignore[union-attr]
    assert not check_freshness(store, a, now=NOW, max_age_s=10).fresh


def test_moved_when_ingested_file_is_gone(store: Substrate, tmp_path: Path) -> None:
    f = tmp_path / "doc.md"
    f.write_text("v1")
    a = store.add("text", "v1", provenance=ingested(f))
    assert check_freshness(store, a).fresh
    f.unlink()
    verdict = check_freshness(store, a)
    assert verdict.signals == [f"moved: referenced path '{f}' no longer exists"]
    assert verdict.ref == str(f) and verdict.ref_type == "provenance.path"


def test_a_file_whose_path_was_masked_at_ingest_is_found_and_named_masked(
    tmp_path: Path,
) -> None:
    from substrate.ingest import ingest_path

    token, other = (
        "ghp_" + "Zq3xV9mK2pL8wR4tY6uB1nC5dF7gH0jE2sA4",
        "ghp_" + "Q7mZ2xR9kLp4Vn8Wc3Jd6Ty1Hs5Bf0Ga2Ke7U",
    )
    notes = tmp_path / "notes"
    for name in (token, other):  # two folders whose names mask alike
        (notes / name).mkdir(parents=True)
        (notes / name / "a.md").write_text(f"# A\n\nin {name[-4:]}\n")
        age_file(notes / name / "a.md")
    store = Substrate(tmp_path / "shard")
    ingest_path(store, notes)
    assert freshness_report(store)["n_stale"] == 0  # not "moved" because the name is masked
    (notes / token / "a.md").write_text("# A\n\nedited\n")
    [stale] = freshness_report(store)["stale"]
    masked = str(notes / "[REDACTED:github_token]" / "a.md")
    assert stale["signals"] == [f"changed: content hash of '{masked}' no longer matches ingest"]
    (notes / token / "a.md").unlink()
    [gone] = freshness_report(store)["stale"]
    assert gone["signals"] == [f"moved: referenced path '{masked}' no longer exists"]
    assert token not in str(gone)
    assert freshness_report(store)["n_stale"] == 1  # the other folder's file is found again


def test_a_masked_file_name_is_found_for_the_explicit_ingest_functions_too(
    tmp_path: Path,
) -> None:
    from substrate.ingest import ingest_file

    token = "ghp_" + "Zq3xV9mK2pL8wR4tY6uB1nC5dF7gH0jE2sA4"
    rows = tmp_path / f"rows_{token}.csv"
    rows.write_text("n,v\nx,1\n")
    age_file(rows)
    store = Substrate()
    ingest_file(store, rows)
    assert freshness_report(store)["n_stale"] == 0
    rows.unlink()
    [gone] = freshness_report(store)["stale"]
    assert gone["signals"][0].startswith("moved:") and token not in str(gone)


def test_a_masked_file_name_is_found_among_many_that_mask_alike(tmp_path: Path) -> None:
    from substrate.ingest import ingest_path

    token = "ghp_" + "Zq3xV9mK2pL8wR4tY6uB1nC5dF7gH0jE2sA4"
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(200):  # every one of them matches "[REDACTED:github_token].md" by shape
        (notes / f"note{i:03d}.md").write_text(f"# N\n\nnote {i}\n")
    (notes / f"{token}.md").write_text("# T\n\ntoken file\n")
    for path in notes.iterdir():
        age_file(path)
    store = Substrate(tmp_path / "shard")
    ingest_path(store, notes)
    assert freshness_report(store)["n_stale"] == 0


def test_changed_when_file_edited_after_ingest(store: Substrate, tmp_path: Path) -> None:
    f = tmp_path / "doc.md"
    f.write_text("version one")
    age_file(f)
    a = store.add("text", "version one", provenance=ingested(f))
    assert check_freshness(store, a).fresh
    f.write_text("version two!")
    verdict = check_freshness(store, a)
    assert verdict.signals == [f"changed: content hash of '{f}' no longer matches ingest"]


def test_a_file_made_unreadable_cannot_vouch_for_its_items(
    store: Substrate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # chmod 000 keeps the size and the time: the next ingest fails the file, so freshness
    # must not call its items fresh (os.access stands in for chmod: the tests may run as root)
    f = tmp_path / "doc.md"
    f.write_text("version one")
    age_file(f)
    a = store.add("text", "version one", provenance=ingested(f))
    assert check_freshness(store, a).fresh
    readable = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: p != str(f) and readable(p, mode))
    verdict = check_freshness(store, a)
    assert verdict.signals == [f"changed: '{f}' cannot be read to compare it with ingest"]


def test_same_size_edit_with_new_mtime_is_caught(store: Substrate, tmp_path: Path) -> None:
    f = tmp_path / "doc.md"
    f.write_text("aaaa")
    age_file(f)
    a = store.add("text", "", provenance=ingested(f))
    f.write_text("bbbb")  # same size; the new mtime makes it hash the file
    assert not check_freshness(store, a).fresh


def test_unchanged_stat_skips_hashing(store: Substrate, tmp_path: Path) -> None:
    f = tmp_path / "doc.md"
    f.write_text("aaaa")
    age_file(f)
    prov = ingested(f)
    prov["content_hash"] = "0" * 32  # a hash that would not match, were it computed
    a = store.add("text", "", provenance=prov)
    assert check_freshness(store, a).fresh


def test_rehash_finds_an_edit_that_kept_size_and_mtime(store: Substrate, tmp_path: Path) -> None:
    f = tmp_path / "doc.md"
    f.write_text("aaaa")
    age_file(f)
    a = store.add("text", "", provenance=ingested(f))
    kept = f.stat().st_mtime_ns
    f.write_text("bbbb")  # a restored backup: same size, and the old time put back
    os.utime(f, ns=(kept, kept))
    assert check_freshness(store, a).fresh  # size and time vouch for it
    assert not check_freshness(store, a, rehash=True).fresh
    report = freshness_report(store, rehash=True)
    assert report["n_stale"] == 1 and "changed" in report["stale"][0]["signals"][0]
    assert freshness_report(store)["n_stale"] == 0


def test_recent_ingest_is_hashed_even_when_stat_matches(store: Substrate, tmp_path: Path) -> None:
    f = tmp_path / "doc.md"
    f.write_text("aaaa")
    prov = ingested(f)
    prov["ingested_at"] = f.stat().st_mtime  # written and ingested in the same instant
    prov["content_hash"] = "0" * 32
    a = store.add("text", "", provenance=prov)
    assert not check_freshness(store, a).fresh


def test_mtime_in_nanoseconds_is_understood(store: Substrate, tmp_path: Path) -> None:
    f = tmp_path / "doc.md"
    f.write_text("aaaa")
    age_file(f)
    prov = ingested(f)
    prov["mtime"] = f.stat().st_mtime_ns
    prov["content_hash"] = "0" * 32
    a = store.add("text", "", provenance=prov)
    assert check_freshness(store, a).fresh  # stat matches, so no hash


def test_reference_sources(tmp_path: Path) -> None:
    def ref(**kw: object) -> tuple[str | None, str | None]:
        return reference_of(SubstrateItem(kind="text", **kw))  # type: ignore[arg-type]

    assert ref(payload={"ref": "a", "path": "b"}) == ("a", "payload.ref")
    assert ref(payload={"ref": "", "path": "b"}) == ("b", "payload.path")
    assert ref(provenance={"path": "c", "source": "/d"}) == ("c", "provenance.path")
    assert ref(provenance={"source": "/abs/d.txt"}) == ("/abs/d.txt", "provenance.source")
    # A relative source is a label, not a file to check.
    assert ref(provenance={"source": "notes/d.txt"}) == (None, None)
    assert ref(provenance={"source": "cli"}) == (None, None)


def test_payload_ref_checked_without_hash(store: Substrate, tmp_path: Path) -> None:
    a = store.add("artifact", payload={"ref": str(tmp_path / "model.bin")})
    assert check_freshness(store, a).signals[0].startswith("moved:")


def test_superseded_by_declaration(store: Substrate) -> None:
    old = store.add("text", "old")
    new = store.add("text", "new", provenance={"supersedes": old})
    verdict = check_freshness(store, old)
    assert verdict.signals == [f"superseded: item '{new}' declares supersedes='{old}'"]
    assert check_freshness(store, new).fresh


def test_replaces_needs_same_kind_newer_and_a_link(store: Substrate) -> None:
    old = store.add("text", "old", created_at=NOW)
    good = store.add("text", "v2", created_at=NOW + 1, links=[old], provenance={"replaces": old})
    store.add("record", "other kind", created_at=NOW + 1, links=[old], provenance={"replaces": old})
    store.add("text", "older", created_at=NOW - 1, links=[old], provenance={"replaces": old})
    store.add("text", "unlinked", created_at=NOW + 1, provenance={"replaces": old})
    verdict = check_freshness(store, old, now=NOW)
    assert verdict.signals == [f"superseded: newer linked item '{good}' replaces this one"]


def test_signals_in_order(store: Substrate, tmp_path: Path) -> None:
    old = store.add(
        "text", "old", created_at=NOW - 500, provenance={"path": str(tmp_path / "gone.txt")}
    )
    store.add("text", "new", provenance={"supersedes": [old]})
    verdict = check_freshness(store, old, now=NOW, max_age_s=60)
    assert [s.split(":")[0] for s in verdict.signals] == ["moved", "superseded", "aged"]


def test_superseding_item_outside_scopes_is_not_named(store: Substrate) -> None:
    old = store.add("text", "old", scope="public")
    store.add("text", "dev version", scope="dev", provenance={"supersedes": old})
    assert check_freshness(store, old, scopes={"public", "ops"}).fresh
    assert not check_freshness(store, old).fresh
    hidden = store.add("text", "x", scope="dev")
    assert check_freshness(store, hidden, scopes={"ops"}).signals[0].startswith("missing")


def test_report_counts_and_lists_stale_in_order(store: Substrate, tmp_path: Path) -> None:
    a = store.add("text", "a", created_at=NOW - 10)
    b = store.add("text", "b", created_at=NOW - 1000, scope="ops")
    c = store.add("text", "c", created_at=NOW - 10, provenance={"path": str(tmp_path / "x")})
    report = freshness_report(store, max_age_s=100, now=NOW)
    assert report["n_items"] == 3 and report["n_fresh"] == 1 and report["n_stale"] == 2
    assert [s["item_id"] for s in report["stale"]] == [b, c]
    assert report["stale"][0]["age_s"] == 1000.0
    only_ops = freshness_report(store, max_age_s=100, now=NOW, scope="ops")
    assert only_ops["n_items"] == 1 and only_ops["stale"][0]["item_id"] == b
    assert freshness_report(store, now=NOW, scopes={"local"})["n_items"] == 2
    assert a not in {s["item_id"] for s in report["stale"]}


def test_report_matches_per_item_checks(store: Substrate, tmp_path: Path) -> None:
    f = tmp_path / "shared.md"
    f.write_text("one")
    age_file(f)
    items = [store.add("text", f"chunk {i}", provenance=ingested(f)) for i in range(3)]
    newer = store.add("text", "v2", provenance={"supersedes": items[1]})
    f.write_text("two, longer")
    report = freshness_report(store, now=NOW)
    by_id = {s["item_id"]: s for s in report["stale"]}
    for item_id in [*items, newer]:
        single = check_freshness(store, item_id, now=NOW)
        assert (item_id in by_id) == (not single.fresh)
        if item_id in by_id:
            assert by_id[item_id]["signals"] == single.signals


def test_report_on_disk_with_ingested_files(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    kept, edited, deleted = (docs / n for n in ("kept.md", "edited.md", "deleted.md"))
    for f in (kept, edited, deleted):
        f.write_text(f"contents of {f.name}")
        age_file(f)
    store = Substrate(tmp_path / "s")
    ids = {
        f.name: store.add("text", f.name, provenance=ingested(f)) for f in (kept, edited, deleted)
    }
    store.save()
    edited.write_text("new contents, edited after ingest")
    deleted.unlink()
    report = freshness_report(Substrate(tmp_path / "s"))
    signals = {s["item_id"]: s["signals"][0].split(":")[0] for s in report["stale"]}
    assert signals == {ids["edited.md"]: "changed", ids["deleted.md"]: "moved"}


# -- durations (the --max-age policy) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90),
        ("15m", 900),
        ("12h", 43200),
        ("30d", 2592000),
        ("2w", 1209600),
        ("1d12h", 129600),
        ("1.5h", 5400),
        (" 2D ", 172800),
        ("45", 45),
        ("0", 0),
        (".5m", 30),
        ("15min", 900),
        ("2MIN", 120),
        ("1h30m", 5400),
    ],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    "text", ["", "  ", "d", "30x", "-5", "-5d", "1d-2h", "5dd", "inf", "nan", "1e400", "h30"]
)
def test_bad_durations_are_invalid_input(text: str) -> None:
    with pytest.raises(InvalidInputError, match="duration"):
        parse_duration(text)


@pytest.mark.parametrize("text", ["1d1d", "1s1d", "30m1h", "1h2h30m"])
def test_each_unit_is_given_once_the_largest_first(text: str) -> None:
    # "1d1d" is a slip, as "1s1d" is read otherwise than meant: neither adds up silently
    with pytest.raises(InvalidInputError, match="each unit once, the largest first"):
        parse_duration(text)


@pytest.mark.parametrize("text", ["6M", "1d6M", "1M"])
def test_capital_m_is_refused_as_minutes_or_months(text: str) -> None:
    # '6M' read as six minutes where the user meant six months made everything look fresh
    with pytest.raises(InvalidInputError, match="minutes or months.*m or min.*30d"):
        parse_duration(text)


@pytest.mark.parametrize(("text", "what"), [("1y", "years"), ("2Y", "years"), ("3mo", "months")])
def test_months_and_years_are_written_in_days(text: str, what: str) -> None:
    with pytest.raises(InvalidInputError, match=f"{what} vary in length.*365d"):
        parse_duration(text)


def test_parse_duration_rejects_non_text() -> None:
    with pytest.raises(InvalidInputError):
        parse_duration(30)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0s"),
        (45.4, "45s"),
        (60, "1m"),
        (90, "1m 30s"),  # (a --max-age 90s was told as a "1m" policy)
        (3900, "1h 5m"),
        (90061, "1d 1h"),
        (-5, "0s"),
    ],
)
def test_format_duration(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def test_a_file_that_became_a_directory_or_a_pipe_is_no_longer_fresh(
    store: Substrate, tmp_path: Path
) -> None:
    f, g = tmp_path / "doc.md", tmp_path / "pipe.md"
    for path in (f, g):
        path.write_text("v1")
    a, b = (store.add("text", "v1", provenance=ingested(path)) for path in (f, g))
    f.unlink()
    f.mkdir()
    assert check_freshness(store, a).signals == [f"moved: referenced path '{f}' is now a directory"]
    g.unlink()
    os.mkfifo(g)  # reading it to hash it would wait forever
    piped = check_freshness(store, b).signals
    assert piped == [f"moved: referenced path '{g}' is no longer a file"]


def test_a_file_that_cannot_be_read_is_reported(
    store: Substrate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import substrate.freshness as freshness

    f = tmp_path / "doc.md"
    f.write_text("v1")
    a = store.add("text", "v1", provenance=ingested(f))
    f.write_text("v2 is longer")
    monkeypatch.setattr(freshness, "content_hash", lambda path: None)  # as a chmod 000 file
    assert check_freshness(store, a).signals == [
        f"changed: '{f}' cannot be read to compare it with ingest"
    ]


def test_a_folder_that_cannot_be_entered_is_no_move(
    store: Substrate, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # EACCES was read as "no longer exists", which invites pruning what is still there
    import substrate.freshness as freshness

    f = tmp_path / "sub" / "doc.md"
    f.parent.mkdir()
    f.write_text("v1")
    a = store.add("text", "v1", provenance=ingested(f))

    real = os.stat

    def refused(path: object, **kwargs: object) -> os.stat_result:  # as under a chmod 000 folder
        if str(path) == str(f):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(freshness.os, "stat", refused)
    assert check_freshness(store, a).signals == [
        f"changed: '{f}' cannot be read to compare it with ingest"
    ]


def test_a_name_that_resolves_to_no_file_is_a_move(store: Substrate, tmp_path: Path) -> None:
    # a symbolic link loop and a name too long for the file system were "cannot be read",
    # reported as changed though nothing was recorded of them
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    long = str(tmp_path / ("a" * 5000))
    for ref in (str(loop), long):
        item = store.add("text", "see it", payload={"path": ref})
        assert check_freshness(store, item).signals == [
            f"moved: referenced path '{ref}' no longer exists"
        ]


def test_a_record_s_path_field_is_not_the_file_it_was_ingested_from(tmp_path: Path) -> None:
    # a column named path (or front matter's path) once stood for the file: the table's hash
    # was compared with /etc/hosts, and an edit of the table itself went unseen
    from substrate.ingest import ingest_path

    notes, shard = tmp_path / "notes", tmp_path / "shard"
    notes.mkdir()
    table = notes / "inv.csv"
    table.write_text("host,path\nweb1,/etc/hosts\n")
    (notes / "guide.md").write_text("---\npath: /docs/guide\n---\n# Guide\n\ntext\n")
    for name in ("inv.csv", "guide.md"):
        age_file(notes / name)
    ingest_path(Substrate(shard), notes)
    assert freshness_report(Substrate(shard))["n_stale"] == 0
    table.write_text("host,path\nweb2,/etc/hosts\n")
    [stale] = freshness_report(Substrate(shard))["stale"]
    assert stale["signals"] == [f"changed: content hash of '{table}' no longer matches ingest"]


def test_a_stream_named_like_a_path_is_no_file(store: Substrate) -> None:
    from substrate.ingest import ingest_text

    ingest_text(store, "feed text", source="/var/log/app-feed")
    # a table, a note and a trace piped in: fields naming files are no file of theirs either
    ingest_text(store, "name,path\nbeta,/nowhere/index.html\n", source="tbl", as_format="csv")
    note = "---\nref: OPS-1234\n---\n# Policy\n\nDeploys happen on Tuesdays.\n"
    ingest_text(store, note, source="policy", as_format="markdown")
    trace = '{"input": "q", "answer": "a", "path": "/nope/trace"}\n'
    ingest_text(store, trace, source="run", as_format="traces")
    assert len(store.all()) == 4 and freshness_report(store)["n_stale"] == 0


def test_a_passage_ingested_with_a_ref_refers_to_its_file(store: Substrate, tmp_path: Path) -> None:
    # the reference's way for a passage to name a file; no file was read to make it, so
    # what ingest recorded says nothing of that file's content
    from substrate.ingest import ingest_documents

    card = tmp_path / "card.txt"
    card.write_text("x")
    [a] = ingest_documents(store, [{"text": "model card", "payload": {"ref": str(card)}}])
    card.write_text("edited")
    assert check_freshness(store, a).fresh
    card.unlink()
    assert check_freshness(store, a).signals == [
        f"moved: referenced path '{card}' no longer exists"
    ]


def test_another_tool_s_format_field_does_not_make_an_item_mixle_ingest_s(
    store: Substrate, tmp_path: Path
) -> None:
    gone = tmp_path / "report.pdf"
    a = store.add(
        "text",
        "x",
        payload={"ref": str(gone)},
        provenance={"source": "my-importer", "format": "pdf", "ingested_at": 1.0},
    )
    assert check_freshness(store, a).signals == [
        f"moved: referenced path '{gone}' no longer exists"
    ]


def test_an_item_put_in_by_hand_refers_to_its_payload_s_file_first(
    store: Substrate, tmp_path: Path
) -> None:
    # as the reference does (payload ref, then provenance path): an ingest's rule is for
    # items an ingest made
    model, card = tmp_path / "model.bin", tmp_path / "card.md"
    model.write_text("weights")
    card.write_text("about it")
    a = store.add(
        "artifact",
        "a model",
        payload={"ref": str(model)},
        provenance={"path": str(card), "content_hash": content_hash(str(model))},
    )
    assert check_freshness(store, a).fresh
    model.write_text("other weights")
    assert check_freshness(store, a).signals == [
        f"changed: content hash of '{model}' no longer matches ingest"
    ]


def _artifact(store: Substrate, registry: Path, folder: str, manifest: str) -> tuple[str, Path]:
    """The id of the one artifact ingested from ``registry/folder``, and its manifest."""
    from substrate.ingest import ingest_artifacts

    (registry / folder).mkdir(parents=True)
    path = registry / folder / "manifest.json"
    path.write_text(manifest)
    age_file(path)
    [item_id] = ingest_artifacts(store, registry)
    return item_id, path


def test_an_artifact_in_a_folder_named_after_a_key_is_fresh_until_it_changes(
    store: Substrate, tmp_path: Path
) -> None:
    key = "ghp_Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1"
    a, manifest = _artifact(store, tmp_path / "registry", key, '{"name": "m", "kind": "model"}')
    assert "ghp_" not in str(store.get(a).provenance)  # type: ignore[union-attr]
    assert check_freshness(store, a).fresh  # it was "moved": its masked path is nowhere
    manifest.write_text('{"name": "m2", "kind": "model"}')
    assert check_freshness(store, a).signals[0].startswith("changed: content hash of ")


def test_an_artifact_is_checked_against_its_manifest(store: Substrate, tmp_path: Path) -> None:
    text = '{"name": "model-a", "kind": "model", "metrics": {"f1": 0.8}}'
    a, manifest = _artifact(store, tmp_path / "registry", "model-a", text)
    assert check_freshness(store, a).fresh
    assert freshness_report(store)["n_stale"] == 0  # the report checks the same file
    manifest.write_text('{"name": "model-a", "kind": "model", "metrics": {"f1": 0.9}}')
    changed = f"changed: content hash of '{manifest}' no longer matches ingest"
    assert check_freshness(store, a).signals == [changed]
    assert freshness_report(store)["stale"][0]["signals"] == [changed]
    manifest.unlink()  # the folder stays: its manifest is gone, not turned into something else
    gone = f"moved: referenced path '{manifest}' no longer exists"
    assert check_freshness(store, a).signals == [gone]


def test_age_counts_from_the_last_edit_of_an_ingested_file(tmp_path: Path) -> None:
    # a note last edited long ago and ingested today is due for review today, not in 90 days
    from substrate.ingest import ingest_path

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "vpn.md").write_text("# VPN\n\nConnect with the corporate client.\n")
    edited = time.time() - 400 * 86400
    os.utime(notes / "vpn.md", (edited, edited))
    store = Substrate(tmp_path / "shard")
    ingest_path(store, notes)
    report = freshness_report(store, max_age_s=90 * 86400)
    assert report["n_stale"] == 1 and report["stale"][0]["signals"][0].startswith("aged: ")
    assert abs(report["stale"][0]["age_s"] - 400 * 86400) < 60


def test_age_counts_from_a_last_edit_put_back_after_ingest(tmp_path: Path) -> None:
    # restored with its old modification time (rsync -t): the same text, as old as the file
    from substrate.ingest import ingest_path

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "vpn.md").write_text("# VPN\n\nConnect with the corporate client.\n")
    store = Substrate(tmp_path / "shard")
    ingest_path(store, notes)
    assert freshness_report(store, max_age_s=90 * 86400)["n_stale"] == 0
    edited = time.time() - 400 * 86400
    os.utime(notes / "vpn.md", (edited, edited))
    for _ in range(2):  # and after an ingest that finds the text unchanged
        report = freshness_report(Substrate(tmp_path / "shard"), max_age_s=90 * 86400)
        assert report["n_stale"] == 1 and abs(report["stale"][0]["age_s"] - 400 * 86400) < 60
        ingest_path(Substrate(tmp_path / "shard"), notes)
    (notes / "vpn.md").write_text("# VPN\n\nConnect with the new client.\n")  # edited now
    os.utime(notes / "vpn.md", (edited, edited))
    report = freshness_report(Substrate(tmp_path / "shard"), max_age_s=90 * 86400)
    assert report["stale"][0]["signals"][0].startswith("changed: ")


def test_age_counts_from_the_date_a_notes_front_matter_gives(tmp_path: Path) -> None:
    # a fresh clone: every file modified today, though the runbook was last reviewed long ago
    from substrate.ingest import ingest_path

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "vpn.md").write_text(
        "---\ndate: 2020-01-01\nupdated: 2021-03-04\nreviewed: 2021-06-01T12:00:00+02:00\n"
        "---\n# VPN\n\nConnect with the corporate client.\n\n# Help\n\nAsk ops.\n"
    )
    (notes / "dated.md").write_text("---\ndate: 2022-05-06\n---\nEdited since, maybe.\n")
    (notes / "slip.md").write_text("---\nupdated: 3024-01-01\n---\nA typo in the year.\n")
    (notes / "plain.md").write_text("---\nupdated: last week\n---\nNo date to read.\n")
    (notes / "rows.csv").write_text("date,event\n2001-01-01,launch\n")  # a row's date: data
    store = Substrate(tmp_path / "shard")
    ingest_path(store, notes)
    report = freshness_report(store, max_age_s=365 * 86400)
    ages = {Path(row["ref"]).name: row["age_s"] for row in report["stale"]}
    reviewed = 1622541600.0  # 2021-06-01 10:00 UTC
    assert abs(ages["vpn.md"] - (time.time() - reviewed)) < 60
    assert report["n_stale"] == 2  # both sections of vpn.md (a post's date: not an update)


def test_a_recorded_mtime_later_than_the_item_does_not_make_it_younger(store: Substrate) -> None:
    a = store.add("text", "x", created_at=NOW - 100, provenance={"mtime": NOW - 5})
    assert check_freshness(store, a, now=NOW).age_s == 100.0
    b = store.add("text", "y", created_at=NOW - 100, provenance={"mtime": True})
    assert check_freshness(store, b, now=NOW).age_s == 100.0


def test_content_time_is_the_recorded_modification_time_in_any_of_its_forms() -> None:
    from substrate.freshness import content_time

    made = 1_800_000_000.0
    for prov in ({"mtime": 1_600_000_000.5}, {"mtime_ns": 1_600_000_000_500_000_000}):
        item = SubstrateItem("text", "a", provenance=prov, created_at=made)
        assert content_time(item) == 1_600_000_000.5
    later = SubstrateItem("text", "a", provenance={"mtime": made + 60}, created_at=made)
    assert content_time(later) == made  # a clock ahead: the item's own time


def test_a_successor_named_after_a_secret_is_masked_in_the_signal(tmp_path: Path) -> None:
    from substrate.ingest import ingest_path

    notes = tmp_path / "notes"
    notes.mkdir()
    token = "ghp_R8kPz2mQ7vL4xN9cT1bW6yH3jD5fG0sA2eKq"
    (notes / "old.md").write_text(f"---\nsuperseded_by: adr-{token}\n---\nOld queue notes.\n")
    store = Substrate(tmp_path / "shard")
    ingest_path(store, notes, redact=False)
    [stale] = freshness_report(store)["stale"]
    assert token not in str(stale) and "replaced: by adr-[REDACTED:github_token]" in str(stale)


def test_an_item_whose_link_leads_to_no_item_is_unlinked(store: Substrate) -> None:
    source = store.add("text", "refunds take 5 days")
    note = store.add("text", "my analysis of refunds", links=[source])
    assert freshness_report(store, now=NOW)["n_stale"] == 0
    store.remove(source)  # (as a re-ingest replaces a section that changed)
    (stale,) = freshness_report(store, now=NOW)["stale"]
    assert stale["item_id"] == note
    assert stale["signals"] == [f"unlinked: links to '{source}', removed or replaced"]
    assert check_freshness(store, note, now=NOW).signals == stale["signals"]


def test_a_team_is_told_of_its_own_items_links_to_what_it_cannot_see_without_naming_them(
    store: Substrate,
) -> None:
    hidden = store.add("text", "beta's own note", scope="beta")
    gone = store.add("text", "removed later", scope="alpha")
    mine = store.add("text", "alpha's note", scope="alpha", links=[hidden, gone])
    store.add("text", "a shared note", scope="public", links=[hidden])  # its writer's to mend
    store.remove(gone)
    alpha = {"alpha", "public"}
    (stale,) = freshness_report(store, now=NOW, scopes=alpha, own_scope="alpha")["stale"]
    # removed or another team's, one link or two: alike, so that alpha learns nothing of beta
    assert stale["item_id"] == mine
    assert stale["signals"] == [
        "unlinked: a link leads to (an item removed, or in a scope you cannot read)"
    ]
    assert (
        check_freshness(store, mine, now=NOW, scopes=alpha, own_scope="alpha").signals
        == (stale["signals"])
    )
    assert freshness_report(store, now=NOW, scopes=alpha)["n_stale"] == 0  # no own scope
    (every,) = freshness_report(store, now=NOW)["stale"]  # all scopes: the removed one, named
    assert every["signals"] == [f"unlinked: links to '{gone}', removed or replaced"]


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"max_age_s": "1d"}, r"max_age_s \(in seconds\) must be a number, not str"),
        ({"max_age_s": -1}, r"max_age_s \(in seconds\) must be >= 0"),
        ({"now": "today"}, "now must be a number, not str"),
    ],
)
def test_an_age_limit_or_clock_that_is_not_seconds_is_refused(
    options: dict[str, object], said: str
) -> None:
    """Text failed with a TypeError (for a missing item, not at all); a negative limit called
    every item aged."""
    s = Substrate()
    item = s.add("text", "note")
    for call in (
        lambda: check_freshness(s, item, **options),  # type: ignore[arg-type]
        lambda: check_freshness(s, "no-such-item", **options),  # type: ignore[arg-type]
        lambda: freshness_report(s, **options),  # type: ignore[arg-type]
    ):
        with pytest.raises(InvalidInputError, match=said):
            call()
    assert check_freshness(s, item, max_age_s=parse_duration("1d")).fresh


def test_a_successor_no_readable_note_is_named_after_is_said_to_be_so(tmp_path: Path) -> None:
    # a typo in superseded_by retired a note for a successor that does not exist, unsaid
    from substrate.ingest import ingest_path

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "old.md").write_text("---\nsuperseded_by: ghost.md\n---\n# Old\n\nvpn1.\n")
    (notes / "older.md").write_text("---\nsuperseded_by: new.md\n---\n# Older\n\np1.\n")
    (notes / "new.md").write_text("# New\n\np2.\n")
    (notes / "plain.md").write_text("# Plain\n\nq1.\n")  # named by its successor alone
    (notes / "next.md").write_text("---\nsupersedes: plain.md\n---\n# Next\n\nq2.\n")
    store = Substrate(tmp_path / "shard")
    ingest_path(store, notes)
    signals = {s["ref"].rpartition("/")[2]: s["signals"] for s in freshness_report(store)["stale"]}
    assert signals == {
        "old.md": ["replaced: by ghost.md (a note says so; no note you can read is named so)"],
        "older.md": ["replaced: by new.md (a note says so)"],
        "plain.md": ["replaced: by next.md (a note says so)"],
    }
    [old] = [i for i in store.all() if i.provenance["source"] == "old.md"]
    assert check_freshness(store, old.id).signals == signals["old.md"]
