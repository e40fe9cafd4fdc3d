"""The combined integrity sweep: lineage, log, index and secrets, each reported on its own."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

from substrate.audit import AuditReport, audit_shard
from substrate.errors import LostCommitsError, ShardError
from substrate.store import Substrate


def saved(tmp_path: Path, n: int = 4, **kw: Any) -> tuple[Substrate, list[str]]:
    store = Substrate(tmp_path / "s")
    ids = [store.add("text", f"note number {i}", **kw) for i in range(n)]
    store.save()
    return store, ids


def test_clean_shard(tmp_path: Path) -> None:
    store, _ = saved(tmp_path)
    report = audit_shard(store)
    assert report.ok and report.problems() == []
    data = report.as_dict()
    assert data["ok"] is True
    assert data["lineage"]["n_items"] == 4 and data["lineage"]["checked"] is True
    assert data["log"] == {"ok": True, "uncommitted_bytes": 0, "problems": []}


def test_in_memory_shard_is_audited_without_an_index() -> None:
    store = Substrate()
    store.add("text", "x")
    report = audit_shard(store)
    assert report.ok and report.index["checked"] is False


def test_dangling_links_are_problems(tmp_path: Path) -> None:
    store, ids = saved(tmp_path)
    store.add("text", "cites a ghost", links=[ids[0], "feedfacefeedface"])
    store.save()
    report = audit_shard(store)
    assert not report.ok
    assert report.lineage["n_broken"] == 1
    assert any("feedfacefeedface" in p for p in report.problems())


def test_unfinished_write_is_a_problem(tmp_path: Path) -> None:
    store, _ = saved(tmp_path)
    with (tmp_path / "s" / "items.jsonl").open("ab") as fh:
        fh.write(b'{"id": "torn')
    report = audit_shard(Substrate(tmp_path / "s"))
    assert report.log["uncommitted_bytes"] == 12
    assert not report.ok and "unfinished write" in report.problems()[0]
    assert report.lineage["checked"]  # the committed items are still audited


def test_corrupt_line_is_reported_not_raised(tmp_path: Path) -> None:
    saved(tmp_path)
    path = tmp_path / "s" / "items.jsonl"
    path.write_bytes(path.read_bytes().replace(b'number 2"', b"number 2 ", 1))
    report = audit_shard(Substrate(tmp_path / "s"))
    assert not report.ok
    assert report.log["ok"] is False and "items.jsonl:" in report.log["error"]
    assert report.problems()[0].startswith("corrupt log:")
    assert report.lineage["checked"] is False


def test_a_corrupt_line_of_a_superseded_item_is_reported(tmp_path: Path) -> None:
    store, ids = saved(tmp_path)
    store.remove(ids[1])  # its line is dead: reads skip it, a compaction must read it
    store.save()
    assert store.checkpoint()
    store.close()
    path = tmp_path / "s" / "items.jsonl"
    with path.open("r+b") as fh:  # in place, every length kept
        fh.write(path.read_bytes().replace(b'number 1"', b"number 1}", 1))
    reader = Substrate(tmp_path / "s")
    assert len(reader.all()) == 3  # reads do not notice it
    report = audit_shard(reader)
    assert not report.ok and "items.jsonl:3" in report.log["error"]
    assert report.problems()[0].startswith("corrupt log:")


def test_a_secret_quoted_by_a_damaged_line_is_masked(tmp_path: Path) -> None:
    token = "ghp_Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1"
    saved(tmp_path)
    path = tmp_path / "s" / "items.jsonl"
    path.write_bytes(path.read_bytes().replace(b'"kind":"text"', f'"kind":"{token}"'.encode(), 1))
    report = audit_shard(Substrate(tmp_path / "s"))
    assert not report.ok and "'kind' is none of" in report.log["error"]
    assert token not in str(report.as_dict())  # the kind a line holds is never quoted


def test_index_state_is_reported(tmp_path: Path) -> None:
    pytest.importorskip("substrate.search.engine")
    store, _ = saved(tmp_path)
    store.reindex()
    report = audit_shard(Substrate(tmp_path / "s"))
    assert report.index["checked"] and report.index["state"] == "fresh" and report.ok
    store.remove(store.add("text", "to reclaim"))
    store.save()
    store.compact()  # a rewritten log takes the index files with it
    report = audit_shard(Substrate(tmp_path / "s"))
    # expected, and built by the next search: no problem (a cron job stays quiet)
    assert report.index["state"] == "missing" and report.ok


def linked_notes(tmp_path: Path) -> None:
    """Two notes, one linking the other and a file that is not there, ingested into a shard at
    ``tmp_path / "s"`` (no search index yet)."""
    from substrate.ingest import ingest_path

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nSee [the plan](plan.md) and [b](b.md).\n")
    (notes / "b.md").write_text("# B\n\nThe second note.\n")
    ingest_path(Substrate(tmp_path / "s"), notes)


def test_the_index_is_told_as_the_link_check_leaves_it(tmp_path: Path) -> None:
    pytest.importorskip("substrate.search.engine")
    from substrate.search.engine import index_status

    linked_notes(tmp_path)
    assert index_status(Substrate(tmp_path / "s"))["state"] == "missing"
    report = audit_shard(Substrate(tmp_path / "s"))
    assert report.notes["checked"] and report.notes["unresolved"]
    assert report.index["state"] == index_status(Substrate(tmp_path / "s"))["state"] == "fresh"


def test_damage_the_link_check_s_search_repairs_is_told(tmp_path: Path) -> None:
    pytest.importorskip("substrate.search.engine")
    linked_notes(tmp_path)
    Substrate(tmp_path / "s").reindex()
    for path in (tmp_path / "s" / "index").glob("search-*.parquet"):
        path.write_text("junk\n")  # a failing disk: the audit's search rebuilds the index
    report = audit_shard(Substrate(tmp_path / "s"))
    assert report.index["state"] == "fresh" and not report.ok
    assert any("was damaged" in p and "rebuilt" in p for p in report.index["problems"])
    again = audit_shard(Substrate(tmp_path / "s"))  # told once: the index is whole again
    assert not any("damaged" in p for p in again.index["problems"])


def test_a_damaged_parquet_footer_is_said_on_one_line(tmp_path: Path) -> None:
    pytest.importorskip("substrate.search.engine")
    store, _ = saved(tmp_path, n=50)
    store.reindex()
    damaged = next((tmp_path / "s" / "index").glob("search-seg-*.docs.parquet"))
    data = bytearray(damaged.read_bytes())
    for back in range(12, 60):  # the footer's metadata, before its length and magic
        data[-back] ^= 0x5A
    damaged.write_bytes(bytes(data))
    (problem,) = [p for p in audit_shard(Substrate(tmp_path / "s")).problems() if damaged.name in p]
    assert "\n" not in problem  # pyarrow's reason ends with a line break


@pytest.mark.parametrize("suffix", [".pack", ".docs.parquet"])
def test_a_damaged_index_file_is_named_until_a_reindex(tmp_path: Path, suffix: str) -> None:
    pytest.importorskip("substrate.search.engine")
    store, _ = saved(tmp_path, n=200)
    store.reindex()
    damaged = next((tmp_path / "s" / "index").glob(f"search-seg-*{suffix}"))
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0x01
    damaged.write_bytes(bytes(data))
    report = audit_shard(Substrate(tmp_path / "s"))
    assert any(damaged.name in p and "damaged" in p for p in report.problems())
    scoped = audit_shard(Substrate(tmp_path / "s"), scopes={"local"})
    assert "the search index is damaged; run `mixle reindex`" in scoped.problems()
    Substrate(tmp_path / "s").reindex()
    assert audit_shard(Substrate(tmp_path / "s")).ok


@pytest.mark.parametrize(
    "pattern",
    [
        "search-seg-*.docs.parquet",
        "search-seg-*.terms.parquet",
        "search-seg-*.pack",
        "search-manifest.parquet",
        "search-manifest.pack",
    ],
)
def test_reindex_removes_a_folder_standing_in_the_place_of_an_index_file(
    tmp_path: Path, pattern: str
) -> None:
    pytest.importorskip("substrate.search.engine")
    store, ids = saved(tmp_path)
    store.reindex()
    store.close()
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("not the index's")
    (path,) = (tmp_path / "s" / "index").glob(pattern)
    path.unlink()
    path.mkdir()
    (path / "inner").mkdir()
    (path / "inner" / "file").write_text("x")
    (path / "link").symlink_to(outside)
    report = audit_shard(Substrate(tmp_path / "s"))
    assert any(path.name in p and "damaged" in p for p in report.problems())
    log_before = (tmp_path / "s" / "items.jsonl").read_bytes()
    reindexed = Substrate(tmp_path / "s")
    reindexed.reindex()
    assert not path.is_dir() and audit_shard(Substrate(tmp_path / "s")).ok
    assert [item.id for item, _ in reindexed.search("number 2", k=1)] == [ids[2]]
    assert outside.read_text() == "not the index's"  # the link inside was not followed
    assert (tmp_path / "s" / "items.jsonl").read_bytes() == log_before


DERIVED_NAMES = [
    "offsets.bin",
    "log-end.json",
    "sources.json",
    "source-items.json",
    "sources.journal",
]


@pytest.mark.parametrize("name", DERIVED_NAMES)
def test_a_folder_in_the_place_of_a_derived_file_is_told_until_reindex_removes_it(
    tmp_path: Path, name: str
) -> None:
    # no part of the search index, yet as surely kept from being written by a folder
    pytest.importorskip("substrate.search.engine")
    store, ids = saved(tmp_path)
    store.checkpoint()  # the catalog
    store.close()
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("not the index's")
    folder = tmp_path / "s" / "index" / name
    folder.unlink(missing_ok=True)
    (folder / "inner").mkdir(parents=True)
    (folder / "link").symlink_to(outside)
    (problem,) = audit_shard(Substrate(tmp_path / "s")).problems()
    assert problem.startswith(f"index/{name} is a folder where a file belongs: ")
    assert problem.endswith("; run `mixle reindex` to remove it")
    log_before = (tmp_path / "s" / "items.jsonl").read_bytes()
    Substrate(tmp_path / "s").reindex()
    assert not folder.is_dir() and outside.read_text() == "not the index's"
    assert audit_shard(Substrate(tmp_path / "s")).ok
    assert (tmp_path / "s" / "items.jsonl").read_bytes() == log_before
    reopened = Substrate(tmp_path / "s")
    assert [item.id for item in reopened.iter_items()] == ids
    assert reopened.checkpoint() == (name == "offsets.bin")  # the catalog is written again


def test_a_link_to_a_folder_at_an_index_file_s_name_is_damage_and_no_file(tmp_path: Path) -> None:
    pytest.importorskip("substrate.search.engine")
    from substrate.search.engine import index_status

    store, _ = saved(tmp_path)
    store.reindex()
    store.close()
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "kept").mkdir(parents=True)
    link = tmp_path / "s" / "index" / "search-seg-000000000000.docs.parquet"
    link.symlink_to(elsewhere)
    reopened = Substrate(tmp_path / "s")
    assert index_status(reopened)["segments"] == 1
    assert f"index file {link.name} is damaged (not a regular file); run `mixle reindex`" in (
        audit_shard(reopened).problems()
    )
    reopened.reindex()  # the link goes, and what it leads to stays
    assert not link.is_symlink() and (elsewhere / "kept").is_dir()
    assert audit_shard(Substrate(tmp_path / "s")).ok


def manifest_replaced_by_a_folder(tmp_path: Path) -> Path:
    """A saved, indexed shard at ``tmp_path / "s"`` whose search manifest is now a folder."""
    store, _ = saved(tmp_path)
    store.reindex()
    store.close()
    manifest = tmp_path / "s" / "index" / "search-manifest.parquet"
    manifest.unlink()
    manifest.mkdir()
    return manifest


def test_reindex_names_a_folder_in_the_place_of_an_index_file_it_cannot_remove(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("substrate.search.engine")
    import errno
    import shutil

    manifest = manifest_replaced_by_a_folder(tmp_path)

    def busy(path: object, *args: object, **kwargs: object) -> None:
        raise OSError(errno.EBUSY, "Device or resource busy", str(path))  # a mount point

    monkeypatch.setattr(shutil, "rmtree", busy)
    with pytest.raises(ShardError, match=f"cannot remove {manifest}, a folder .* remove it"):
        Substrate(tmp_path / "s").reindex()


@pytest.mark.parametrize("shown_by", ["device", "mount table"])
def test_reindex_leaves_a_folder_holding_a_mounted_file_system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shown_by: str
) -> None:
    # another device shows in stat; a bind mount, on the same device, in the mount table alone
    pytest.importorskip("substrate.search.engine")
    from types import SimpleNamespace

    from substrate import indexnames

    manifest = manifest_replaced_by_a_folder(tmp_path)
    mounted = manifest / "mnt"
    mounted.mkdir()
    (mounted / "on-the-mount.txt").write_text("not the index's")
    if shown_by == "mount table":
        points = ["/", os.path.realpath(mounted)]
        monkeypatch.setattr(indexnames, "_mount_points", lambda: points)
    else:
        real_lstat = os.lstat

        def lstat(path: object) -> object:
            found = real_lstat(path)  # type: ignore[arg-type]
            if str(path).endswith("mnt"):
                return SimpleNamespace(st_dev=found.st_dev + 1, st_mode=found.st_mode)
            return found

        monkeypatch.setattr(indexnames.os, "lstat", lstat)
    with pytest.raises(ShardError, match="another file system is mounted in it.*remove it"):
        Substrate(tmp_path / "s").reindex()
    assert (mounted / "on-the-mount.txt").read_text() == "not the index's"


def test_the_mount_table_is_read_with_its_escapes(tmp_path: Path) -> None:
    from substrate import indexnames

    table = tmp_path / "mountinfo"
    table.write_text(
        "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
        "61 27 8:1 /data /srv/my\\040notes rw,relatime - ext4 /dev/sda1 rw\n"
    )
    assert indexnames._mount_points(str(table)) == ["/proc", "/srv/my notes"]
    assert indexnames._mount_points(str(tmp_path / "none")) == []


def flip_in_footer(path: Path, where: str) -> None:
    """Flip one bit of a Parquet index file's footer: in the first digit of the log offset of
    the index metadata's ``key`` copy or ``embedded`` copy (in the Arrow schema, base64), in
    the Parquet schema's name of the ``column`` id, or in the file's ``row count``."""
    import base64
    import re

    data = bytearray(path.read_bytes())
    footer = len(data) - 8 - int.from_bytes(data[-8:-4], "little")  # then its length, PAR1
    offset_digit = re.compile(rb'"watermark": \["[0-9a-f]+", (\d)')
    if where == "key":
        found = offset_digit.search(data)
        assert found is not None
        data[found.start(1)] ^= 0x01
    elif where == "embedded":
        run = re.compile(rb"[A-Za-z0-9+/]{64,}={0,2}").search(data, data.rindex(b"ARROW:schema"))
        assert run is not None
        schema = bytearray(base64.b64decode(run.group()))
        found = offset_digit.search(schema)
        assert found is not None
        schema[found.start(1)] ^= 0x01
        data[run.start() : run.end()] = base64.b64encode(bytes(schema))
    elif where == "column":
        data[data.index(b"\x18\x02id", footer) + 3] ^= 0x01  # (Thrift: a string of 2 bytes)
    else:  # the file's row count follows the schema's last element (Thrift: i64, zigzag)
        found = re.compile(rb"\x00\x16\x08\x19").search(data, footer)  # 4 rows
        assert found is not None
        data[found.start() + 2] ^= 0x02
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("where", ["key", "embedded", "column", "row count"])
def test_a_flipped_byte_in_a_segments_footer_is_named_until_a_reindex(
    tmp_path: Path, where: str
) -> None:
    pytest.importorskip("substrate.search.engine")
    from substrate.search.index_files import StaleIndex
    from substrate.search.index_read import read_state
    from substrate.search.params import DEFAULT_PARAMS

    store, _ = saved(tmp_path)
    store.reindex()
    store.close()
    index = tmp_path / "s" / "index"
    (damaged,) = index.glob("search-seg-*.docs.parquet")
    flip_in_footer(damaged, where)
    # a search reads the Parquet files again (the pack mirrors another version of this one
    # now), finds the damage and rebuilds the index: an audit must not call it sound
    with pytest.raises(StaleIndex):
        read_state(index, DEFAULT_PARAMS)
    report = audit_shard(Substrate(tmp_path / "s"))
    (problem,) = report.problems()
    assert problem.startswith(f"index file {damaged.name} is damaged (")
    assert problem.endswith("); run `mixle reindex`")
    scoped = audit_shard(Substrate(tmp_path / "s"), scopes={"local"})
    assert scoped.problems() == ["the search index is damaged; run `mixle reindex`"]
    Substrate(tmp_path / "s").reindex()
    assert audit_shard(Substrate(tmp_path / "s")).ok


def test_a_flipped_byte_in_the_footer_of_the_model_is_named_until_a_reindex(
    tmp_path: Path,
) -> None:
    pytest.importorskip("substrate.search.engine")
    import random

    store = Substrate(tmp_path / "s")
    words = [f"w{j}" for j in range(200)]
    rng = random.Random(2)
    for _ in range(80):  # enough items and words for an embedding
        store.add("text", " ".join(rng.sample(words, 10)))
    store.save()
    store.reindex()
    store.close()
    (model,) = (tmp_path / "s" / "index").glob("search-model-*.parquet")
    data = bytearray(model.read_bytes())
    data[data.index(b'"fitted_docs": 80') + 15] ^= 0x01  # in the copy readers do not take
    model.write_bytes(bytes(data))
    (problem,) = audit_shard(Substrate(tmp_path / "s")).problems()
    assert problem.startswith(f"index file {model.name} is damaged")
    # the refit finds a model of the same name, hence file, on disk: it must not be kept
    Substrate(tmp_path / "s").reindex()
    assert audit_shard(Substrate(tmp_path / "s")).ok


def test_a_model_damaged_in_its_body_is_written_again_by_a_reindex(tmp_path: Path) -> None:
    pytest.importorskip("substrate.search.engine")
    import random

    store = Substrate(tmp_path / "s")
    words = [f"w{j}" for j in range(200)]
    rng = random.Random(3)
    for _ in range(80):
        store.add("text", " ".join(rng.sample(words, 10)))
    store.save()
    store.reindex()
    store.close()
    (model,) = (tmp_path / "s" / "index").glob("search-model-*.parquet")
    with model.open("r+b") as fh:  # its footer, which names it current, left as it was
        fh.write(b"\0" * 4096)
    assert not audit_shard(Substrate(tmp_path / "s")).ok
    Substrate(tmp_path / "s").reindex()
    assert audit_shard(Substrate(tmp_path / "s")).ok


def test_an_index_of_a_log_since_edited_by_hand_is_named_so(tmp_path: Path) -> None:
    pytest.importorskip("substrate.search.engine")
    from substrate.log import LogFile

    store, _ = saved(tmp_path)
    store.reindex()
    store.close()
    log = LogFile(tmp_path / "s")
    log.renew_generation(log.generation())  # as a hand edit found by a reader leaves it
    problems = audit_shard(Substrate(tmp_path / "s")).problems()
    assert any("before the log was rewritten (compacted, or edited by hand)" in p for p in problems)


def test_index_metadata_written_without_a_checksum_still_audits_clean(tmp_path: Path) -> None:
    pytest.importorskip("substrate.search.engine")
    import json

    import pyarrow.parquet as pq

    from substrate.search.layout import META_KEY

    store, _ = saved(tmp_path)
    store.reindex()
    store.close()
    for path in (tmp_path / "s" / "index").glob("search-*.parquet"):
        table = pq.read_table(path)  # as an older mixle wrote it: no "crc"
        meta = json.loads(table.schema.metadata[META_KEY])
        del meta["crc"]
        pq.write_table(table.replace_schema_metadata({META_KEY: json.dumps(meta)}), path)
    report = audit_shard(Substrate(tmp_path / "s"))
    assert report.ok and report.index["state"] == "fresh"


def test_a_damaged_log_end_note_or_an_index_that_is_no_folder_is_a_problem(
    tmp_path: Path,
) -> None:
    store, _ = saved(tmp_path)
    store.close()
    index = tmp_path / "s" / "index"
    (index / "log-end.json").write_bytes(b"\x8f" * 96)
    assert any(
        "log-end.json is damaged" in p for p in audit_shard(Substrate(tmp_path / "s")).problems()
    )
    store = Substrate(tmp_path / "s")
    store.add("text", "one more")
    store.save()  # the next write notes the end again
    store.close()
    assert audit_shard(Substrate(tmp_path / "s")).ok
    for name in list(index.iterdir()):
        name.unlink()
    index.rmdir()
    index.write_text("not a folder")
    assert any(
        "index/ is not a folder" in p for p in audit_shard(Substrate(tmp_path / "s")).problems()
    )


def test_a_file_in_the_catalogs_place_that_is_no_catalog_is_rebuilt(tmp_path: Path) -> None:
    from substrate.catalog import Catalog

    store, ids = saved(tmp_path)
    store.checkpoint()
    store.close()
    catalog = tmp_path / "s" / "index" / "offsets.bin"
    catalog.write_bytes(b"\x01" * 300)
    assert Catalog(catalog).damaged
    reopened = Substrate(tmp_path / "s")  # the next command rewrites it
    assert [reopened.get(i) is not None for i in ids] == [True] * 4
    reopened.close()
    rebuilt = Catalog(catalog)
    assert not rebuilt.damaged and rebuilt.header is not None
    rebuilt.close()
    catalog.write_bytes(b"MXCAT999" + bytes(292))  # a newer mixle's: not damage
    assert not Catalog(catalog).damaged
    catalog.write_bytes(b"MXCAT00\0" + bytes(292))  # bit rot in the marker: damage
    assert Catalog(catalog).damaged


def test_index_item_count_hidden_from_scoped_readers(tmp_path: Path) -> None:
    pytest.importorskip("substrate.search.engine")
    store, _ = saved(tmp_path)
    store.reindex()
    assert "items" in audit_shard(store).index
    assert "items" not in audit_shard(store, scopes={"ops", "public"}).index


def test_secret_findings_are_limited_to_the_reader(tmp_path: Path) -> None:
    store = Substrate(tmp_path / "s")
    token = "ghp_" + "Zq3xV9mK2pL8wR4tY6uB1nC5dF7gH0jE2sA4"
    mine = store.add("text", f"token {token}", scope="ops", redact=False)
    theirs = store.add("text", "aws AKIA" + "ZXCVBNMQWERTYUIO", scope="dev", redact=False)
    store.add("text", "nothing secret here", scope="ops")
    store.save()
    report = audit_shard(store, scopes={"ops", "public"})
    # items scanned and items holding a secret, as scan-secrets --items counts them
    assert (report.secrets["n_items"], report.secrets["n_dirty"]) == (2, 1)
    assert [(f["item_id"], f["rule"]) for f in report.secrets["findings"]] == [
        (mine, "github_token")
    ]
    assert not report.ok
    text = repr(report.as_dict())
    assert theirs not in text and "aws" not in text and token not in text
    assert audit_shard(store).secrets["n_dirty"] == 2


def test_real_secret_scanner_finds_a_stored_key(tmp_path: Path) -> None:
    store = Substrate(tmp_path / "s")
    item = store.add("text", "aws key AKIA" + "ZXCVBNMQWERTYUIO and secret", redact=False)
    store.save()
    report = audit_shard(store)
    assert not report.ok
    assert "ZXCVBNMQWERTYUIO" not in repr(report.as_dict())
    assert item in {f.get("item_id") for f in report.secrets["findings"]}


def test_report_problems_collect_every_section() -> None:
    report = AuditReport(
        lineage={"problems": ["b"]},
        log={"problems": ["a"]},
        index={"problems": ["c"]},
        secrets={"problems": ["d"]},
    )
    assert report.problems() == ["a", "b", "c", "d"] and not report.ok


def test_a_line_deleted_inside_a_committed_batch_is_a_problem(tmp_path: Path) -> None:
    # every other line still reads: the item was gone without a word, "log ok"
    store = Substrate(tmp_path / "s")
    store.add("text", "one")
    store.save()
    many = [store.add("text", f"batch note {i}") for i in range(3)]
    store.save()
    store.close()
    assert audit_shard(Substrate(tmp_path / "s")).ok
    log = tmp_path / "s" / "items.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    kept = [line for line in lines if many[1].encode() not in line]
    log.write_bytes(b"".join(kept))
    report = audit_shard(Substrate(tmp_path / "s"))
    assert not report.ok
    assert report.log["problems"] == [
        "the batch committed at line 6 lost or gained lines by hand (written with 3 line(s), "
        "2 now): an item may be missing; restore items.jsonl from a backup to recover it"
    ]
    scoped = audit_shard(Substrate(tmp_path / "s"), scopes={"local"})
    assert scoped.log["problems"][0].startswith("a committed batch lost or gained lines by hand:")
    with pytest.raises(ShardError, match="before the end noted"):
        Substrate(tmp_path / "s").compact()  # a rewrite would make the loss for good
    (tmp_path / "s" / "index" / "log-end.json").unlink()  # the end's loss accepted
    with pytest.raises(LostCommitsError, match="--accept-loss"):
        Substrate(tmp_path / "s").compact()  # the batch's loss is not accepted yet
    Substrate(tmp_path / "s").compact(accept_loss=True)  # the rewritten log is whole again
    assert audit_shard(Substrate(tmp_path / "s")).ok


def test_compact_refuses_a_batch_whose_line_was_replaced_by_its_neighbour(tmp_path: Path) -> None:
    # the log is as long as noted, or longer: only the batch's count tells an item is gone
    store = Substrate(tmp_path / "s")
    many = [store.add("text", f"batch note {i}") for i in range(3)]
    store.save()
    store.close()
    log = tmp_path / "s" / "items.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if many[1].encode() in line)
    lines[at - 1 : at] = [lines[at], lines[at]]  # many[0] gone, many[1] in its place too
    log.write_bytes(b"".join(lines))
    before = log.read_bytes()
    with pytest.raises(LostCommitsError, match="1 committed batch") as refused:
        Substrate(tmp_path / "s").compact()
    assert many[0] not in str(refused.value)
    assert log.read_bytes() == before  # the evidence kept for audit and a restore
    assert not audit_shard(Substrate(tmp_path / "s")).ok
    stats = Substrate(tmp_path / "s").compact(accept_loss=True)
    assert stats.live_items == 2 and audit_shard(Substrate(tmp_path / "s")).ok


def test_a_line_written_over_with_a_copy_of_its_neighbour_is_a_problem(tmp_path: Path) -> None:
    """The batch kept its count of lines: audit said all clean, and compact made the loss of
    the item written over for good."""
    store = Substrate(tmp_path / "s")
    many = [store.add("text", t) for t in ("a longer batch note 0", "batch note 1", "note 2")]
    store.save()
    store.close()
    log = tmp_path / "s" / "items.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if many[1].encode() in line)
    # many[0] gone, many[1] twice: padded to the length written over (a log shorter than
    # noted is told otherwise), as a copy with blanks after it is a copy still
    copy = lines[at].rstrip(b"\n")
    lines[at - 1] = copy + b" " * max(0, len(lines[at - 1]) - len(lines[at])) + b"\n"
    log.write_bytes(b"".join(lines))
    report = audit_shard(Substrate(tmp_path / "s"))
    assert not report.ok and "(written with 3 line(s), 2 now)" in report.log["problems"][0]
    with pytest.raises(LostCommitsError, match="1 committed batch"):
        Substrate(tmp_path / "s").compact()


def test_a_log_cut_at_a_batch_boundary_is_a_problem(tmp_path: Path) -> None:
    # every batch left is whole, so nothing else tells the loss apart from a smaller shard
    store = Substrate(tmp_path / "s")
    for text in ("one", "two", "three"):
        store.add("text", text)
        store.save()
    store.close()
    log = tmp_path / "s" / "items.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-2]))  # the last batch: its item and its commit line
    report = audit_shard(Substrate(tmp_path / "s"))
    assert not report.ok and len(report.log["problems"]) == 1
    assert report.log["problems"][0].startswith("the log ends before the end noted at its last")
    assert (
        "bytes)" not in audit_shard(Substrate(tmp_path / "s"), scopes={"local"}).log["problems"][0]
    )
    from substrate.shard import shard_status

    assert not shard_status(Substrate(tmp_path / "s"))["healthy"]  # status says so too
    store = Substrate(tmp_path / "s")
    store.add("text", "four")
    with pytest.raises(ShardError, match="before the end noted at its last commit"):
        store.save()  # a write would note the new end: the loss would be history
    assert len(log.read_bytes().splitlines()) == len(lines) - 2  # nothing written
    (tmp_path / "s" / "index" / "log-end.json").unlink()  # the log as it is, accepted
    store = Substrate(tmp_path / "s")
    store.add("text", "four")
    store.save()
    assert audit_shard(Substrate(tmp_path / "s")).ok
    assert shard_status(Substrate(tmp_path / "s"))["healthy"]


def test_status_of_a_shard_in_memory_read_by_a_team_is_healthy() -> None:
    # the log's health of a shard in memory lacked the keys a team's status copies: KeyError
    from substrate.shard import shard_status

    s = Substrate()
    s.add("text", "in memory")
    report = shard_status(s, scopes={"local"})
    assert report["healthy"] and report["log"] == {
        "unfinished_write": False,
        "older_copy": False,
        "header_lost": False,
    }


def test_a_link_s_line_is_found_where_it_stands_as_a_whole_name() -> None:
    """Read as the regular expression it replaced (built and compiled per link) read it."""
    from substrate.audit import _standing_alone

    rng = random.Random(7)
    pieces = ["a.md", "ba.md", "a.mdx", "a.md.bak", "-a.md", "a.md-", "_a.md", "é", ".", " ", "\n"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(6)))
        oracle = re.search(r"(?<![\w.-])a\.md(?![\w-]|\.\w)", text)
        assert _standing_alone(text, "a.md") == (oracle.start() if oracle else None), text
