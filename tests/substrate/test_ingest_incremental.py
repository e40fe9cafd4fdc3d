"""Re-ingest: unchanged files untouched, changed files replaced atomically, deleted pruned."""

from __future__ import annotations

import io
import logging
import os
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import orjson
import pytest

from substrate.errors import InvalidInputError
from substrate.ingest import IngestReport, ingest_artifacts, ingest_path
from substrate.ingest.formats import PARSERS
from substrate.ingest.report import BINARY
from substrate.ingest.sourcefile import ITEMS_FILE, JOURNAL_FILE, STATS_FILE
from substrate.item import SubstrateItem
from substrate.secrets.engine import find_secrets
from substrate.spaces import merge_versions, publish
from substrate.store import Substrate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"

GUIDE = """# Install

Download the archive.

## Linux

Run the installer.

## macOS

Use the package.
"""


def _settle(*paths: Path) -> None:
    """Date files 10 s back, so their mtime is trusted (not within the racy window)."""
    when = time.time() - 10
    for path in paths:
        for p in [path, *path.rglob("*")] if path.is_dir() else [path]:
            if p.is_file():
                os.utime(p, (when, when))


def _write(path: Path, text: str) -> None:
    path.write_text(text)
    _settle(path)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    _write(root / "guide.md", GUIDE)
    _write(root / "notes.txt", "first note\n\nsecond note\n")
    (root / "sub").mkdir()
    _write(root / "sub" / "data.jsonl", '{"text": "row one"}\n{"text": "row two"}\n')
    return root


@pytest.fixture
def shard(tmp_path: Path) -> Path:
    return tmp_path / "shard"


class _Saves:
    """Counts the saves (``save()`` and ``save_encoded()`` calls) of one store."""

    def __init__(self, store: Substrate) -> None:
        self.count = 0
        for name in ("save", "save_encoded"):
            setattr(store, name, self._counted(getattr(store, name)))

    def _counted(self, original: Any) -> Any:
        def counted(*args: Any, **kw: Any) -> Any:
            self.count += 1
            return original(*args, **kw)

        return counted


def _ids_by_section(store: Substrate) -> dict[str | None, str]:
    return {
        i.provenance["section"]: i.id
        for i in store.iter_items()
        if i.kind == "text" and i.provenance["source"] == "guide.md"
    }


def test_unchanged_files_are_neither_read_nor_parsed(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest_path(Substrate(shard), tree)

    def boom(*args: Any, **how: Any) -> Any:
        raise AssertionError("an unchanged file was opened")

    monkeypatch.setattr("substrate.ingest.prepare.read_unless_binary", boom)
    store = Substrate(shard)
    saves = _Saves(store)
    report = ingest_path(store, tree)
    assert report.files_unchanged == 3 and report.files_scanned == 3
    assert report.items_added == 0 and report.bytes_read == 0
    assert saves.count == 0  # nothing to write: no save, no fsync


def test_touched_file_with_same_content_is_hashed_not_parsed(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest_path(Substrate(shard), tree)
    later = time.time() - 5
    os.utime(tree / "guide.md", (later, later))
    for fmt in list(PARSERS):
        monkeypatch.setitem(PARSERS, fmt, lambda *a: pytest.fail("parsed"))
    report = ingest_path(Substrate(shard), tree)
    assert report.files_unchanged == 3
    assert report.bytes_read == len(GUIDE)


def test_touched_file_costs_no_read_of_every_source_s_item_ids(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest_path(Substrate(shard), tree)
    later = time.time() - 5
    os.utime(tree / "guide.md", (later, later))

    def everything(*args: Any) -> Any:
        raise AssertionError("the item ids of all sources were read for a touched file")

    with monkeypatch.context() as patch:
        patch.setattr("substrate.ingest.sourcefile.read_items", everything)
        report = ingest_path(Substrate(shard), tree)
    assert report.files_unchanged == 3 and report.bytes_read == len(GUIDE)
    # the new mtime was recorded: the next run does not even hash the file
    again = ingest_path(Substrate(shard), tree)
    assert again.files_unchanged == 3 and again.bytes_read == 0


def test_changed_file_is_replaced_in_one_save_with_stable_ids(tree: Path, shard: Path) -> None:
    store = Substrate(shard)
    ingest_path(store, tree)
    before = _ids_by_section(store)
    assert set(before) == {"Install", "Install > Linux", "Install > macOS"}
    created = {i.id: i.created_at for i in store.iter_items()}
    _write(
        tree / "guide.md",
        "Preamble added.\n\n" + GUIDE.replace("Run the installer.", "Run the new installer."),
    )
    store = Substrate(shard)
    saves = _Saves(store)
    report = ingest_path(store, tree)
    assert saves.count == 1
    assert report.files_updated == 1 and report.files_unchanged == 2
    after = _ids_by_section(Substrate(shard))
    # untouched sections keep their ids (and age) although their lines moved
    assert after["Install"] == before["Install"]
    assert after["Install > macOS"] == before["Install > macOS"]
    assert after["Install > Linux"] != before["Install > Linux"]
    assert None in after  # the new preamble
    reopened = Substrate(shard)
    assert reopened.get(before["Install > Linux"]) is None
    macos = reopened.get(before["Install > macOS"])
    assert macos is not None and macos.provenance["line_start"] == 11
    assert macos.created_at == created[before["Install > macOS"]]
    assert report.items_removed == 1
    (outcome,) = [f for f in report.files if f.source == "guide.md"]
    # the preamble and the edited section are new; the two moved sections are rewritten
    counts = (outcome.items_added, outcome.items_rewritten, outcome.items_removed)
    assert outcome.status == "updated" and counts == (2, 2, 1)
    assert (report.items_added, report.items_rewritten) == (2, 2)
    assert len(after) == len(before) + 2 - 1  # what the counts say


def test_change_is_one_committed_batch_in_the_log(tree: Path, shard: Path) -> None:
    ingest_path(Substrate(shard), tree)
    log_path = shard / "items.jsonl"
    commits = log_path.read_bytes().count(b'{"commit":')
    _write(tree / "guide.md", GUIDE.replace("Use the package.", "Use the bundle."))
    ingest_path(Substrate(shard), tree)
    lines = log_path.read_bytes().splitlines()
    assert log_path.read_bytes().count(b'{"commit":') == commits + 1
    # the batch holds the tombstone and the new version of the file together
    tail = lines[-5:]
    assert b'"tombstone":true' in b"".join(tail) and b"Use the bundle." in b"".join(tail)


def test_deleted_file_is_pruned_unless_no_prune(tree: Path, shard: Path) -> None:
    ingest_path(Substrate(shard), tree)
    (tree / "notes.txt").unlink()
    kept = ingest_path(Substrate(shard), tree, prune=False)
    assert kept.files_removed == 0
    assert any(i.provenance["source"] == "notes.txt" for i in Substrate(shard).iter_items())
    report = ingest_path(Substrate(shard), tree)
    assert report.files_removed == 1 and report.items_removed == 2
    (outcome,) = [f for f in report.files if f.status == "removed"]
    assert (outcome.source, outcome.reason) == ("notes.txt", "no longer present")
    assert all(i.provenance["source"] != "notes.txt" for i in Substrate(shard).iter_items())


def test_only_a_deleted_file_that_gave_items_is_reported_removed(tmp_path: Path) -> None:
    tree = tmp_path / "notes"
    tree.mkdir()
    (tree / "ok.txt").write_text("kept\n")
    (tree / "gone.txt").write_text("gave one item\n")
    (tree / "empty.md").write_text("   \n")  # skipped: nothing to store
    (tree / "image.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")  # skipped: binary
    (tree / "bad.txt").write_bytes(b"caf\xe9\n")  # failed: not UTF-8
    (tree / "data.dat").write_text("not a format ingest reads\n")
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), tree)
    for name in ("gone.txt", "empty.md", "image.txt", "bad.txt", "data.dat"):
        (tree / name).unlink()
    report = ingest_path(Substrate(shard), tree)
    removed = [(f.source, f.items_removed) for f in report.files if f.status == "removed"]
    assert removed == [("gone.txt", 1)] and report.files_removed == 1
    (tree / "empty.md").write_text("now it says something\n")  # forgotten, then read anew
    assert ingest_path(Substrate(shard), tree).files_added == 1


def test_a_folder_found_empty_keeps_its_items_unless_empty_folders_are_pruned(
    tree: Path, shard: Path
) -> None:
    # an unmounted drive leaves an empty folder: its notes were all removed, exit 0
    ingest_path(Substrate(shard), tree)
    before = len(Substrate(shard))
    shutil.rmtree(tree)
    (tree / "share").mkdir(parents=True)  # a mount point inside it, also empty
    _write(tree / ".DS_Store", "hidden: not walked")
    kept = ingest_path(Substrate(shard), tree)
    assert kept.files_removed == 0 and len(Substrate(shard)) == before and not kept.ok
    [issue] = kept.issues
    assert issue.source == str(tree) and "found no file to ingest" in issue.reason
    assert "the items of the 3 file(s) ingested from it before were kept" in issue.reason
    again = ingest_path(Substrate(shard), tree)  # said on every run, not only the first
    assert not again.ok and len(Substrate(shard)) == before
    _write(tree / "new.md", "# New\n\nA file: the folder is in use.\n")
    pruned = ingest_path(Substrate(shard), tree)
    assert pruned.ok and pruned.files_removed == 3 and pruned.files_added == 1
    fresh = tree.parent / "never-ingested"
    fresh.mkdir()
    assert ingest_path(Substrate(shard), fresh).ok  # nothing known under it: nothing to say


def test_prune_empty_prunes_a_folder_found_empty(tree: Path, shard: Path) -> None:
    ingest_path(Substrate(shard), tree)
    shutil.rmtree(tree)
    tree.mkdir()
    report = ingest_path(Substrate(shard), tree, prune_empty=True)
    assert report.ok and report.files_removed == 3 and len(Substrate(shard)) == 0


def test_an_emptied_folder_whose_items_were_published_elsewhere_is_not_said_to_keep_them(
    tree: Path, shard: Path
) -> None:
    store = Substrate(shard)
    ingest_path(store, tree)
    for item in list(store.iter_items()):
        publish(store, [item.id], to="public")  # moved out of the scope the folder fills
    store.save()
    shutil.rmtree(tree)
    tree.mkdir()
    report = ingest_path(Substrate(shard), tree)
    assert report.ok and len(Substrate(shard)) == 7


def test_a_file_with_no_content_is_reported_skipped_on_every_run(tree: Path, shard: Path) -> None:
    _write(tree / "empty.md", "")
    for touch in (False, False, True):  # read, then not read, then read again (same hash)
        if touch:
            os.utime(tree / "empty.md", ns=(1, 1))
        report = ingest_path(Substrate(shard), tree)
        [outcome] = [f for f in report.files if f.source == "empty.md"]
        assert (outcome.status, outcome.reason) == ("skipped", "no content")
    _write(tree / "empty.md", "now with words")
    report = ingest_path(Substrate(shard), tree)
    assert [f.status for f in report.files if f.source == "empty.md"] == ["added"]


def test_newly_ignored_folder_is_pruned(tree: Path, shard: Path) -> None:
    ingest_path(Substrate(shard), tree)
    _write(tree / ".mixleignore", "sub/\n")
    report = ingest_path(Substrate(shard), tree)
    assert report.files_removed == 1
    (outcome,) = [f for f in report.files if f.status == "removed"]
    assert outcome.reason == "no longer walked (ignored or hidden)"  # the file is still there
    assert {i.provenance["source"] for i in Substrate(shard).iter_items()} == {
        "guide.md",
        "notes.txt",
    }


def test_a_removal_says_what_the_file_became(tree: Path, shard: Path, tmp_path: Path) -> None:
    ingest_path(Substrate(shard), tree)
    (tree / "guide.md").unlink()
    (tree / "guide.md").mkdir()  # a folder of the same name
    (tree / "notes.txt").unlink()
    os.mkfifo(tree / "notes.txt")
    (tree / "sub" / "data.jsonl").unlink()
    _write(tmp_path / "outside.jsonl", '{"text": "elsewhere"}\n')
    (tree / "sub" / "data.jsonl").symlink_to(tmp_path / "outside.jsonl")
    _write(tree / "kept.md", "a file the walk still finds")
    report = ingest_path(Substrate(shard), tree)
    removed = {f.source: f.reason for f in report.files if f.status == "removed"}
    assert removed == {  # each read "no longer walked (ignored or hidden)"
        "guide.md": "now a folder",
        "notes.txt": "no longer a regular file",
        "sub/data.jsonl": "now a symbolic link the walk does not follow",
    }


def test_ingesting_a_subfolder_does_not_prune_its_siblings(tree: Path, shard: Path) -> None:
    ingest_path(Substrate(shard), tree)
    report = ingest_path(Substrate(shard), tree / "sub")
    assert report.files_removed == 0 and report.files_unchanged == 1
    assert len(Substrate(shard)) == 7


def sources(shard: Path) -> set[str]:
    return {i.provenance["source"] for i in Substrate(shard).iter_items()}


TREE_SOURCES = {"guide.md", "notes.txt", "sub/data.jsonl"}


def test_a_file_named_from_a_subfolder_first_is_renamed_by_the_tree(
    tree: Path, shard: Path
) -> None:
    # the names stuck: links and citations went by "data.jsonl", whatever ingested the tree
    ingest_path(Substrate(shard), tree / "sub" / "data.jsonl")
    assert sources(shard) == {"data.jsonl"}
    ids = {i.id for i in Substrate(shard).iter_items()}
    report = ingest_path(Substrate(shard), tree)
    assert report.files_updated == 1 and report.files_added == 2
    assert sources(shard) == TREE_SOURCES
    assert ids <= {i.id for i in Substrate(shard).iter_items()}  # renamed, same ids
    assert ingest_path(Substrate(shard), tree).files_unchanged == 3


def test_a_file_or_subfolder_ingested_after_the_tree_keeps_the_trees_names(
    tree: Path, shard: Path
) -> None:
    ingest_path(Substrate(shard), tree)
    _write(tree / "sub" / "data.jsonl", '{"text": "row one"}\n{"text": "row three"}\n')
    assert ingest_path(Substrate(shard), tree / "sub" / "data.jsonl").files_updated == 1
    assert ingest_path(Substrate(shard), tree / "sub").files_unchanged == 1
    assert sources(shard) == TREE_SOURCES
    assert ingest_path(Substrate(shard), tree).files_unchanged == 3


def test_a_file_gone_from_a_subfolder_is_reported_by_the_trees_name(
    tree: Path, shard: Path
) -> None:
    ingest_path(Substrate(shard), tree)
    (tree / "sub" / "data.jsonl").unlink()
    _write(tree / "sub" / "other.md", "still here")
    report = ingest_path(Substrate(shard), tree / "sub")
    assert [(f.source, f.status) for f in report.files] == [
        ("sub/other.md", "added"),
        ("sub/data.jsonl", "removed"),
    ]


def test_named_from_names_files_from_a_folder_around_the_path(tree: Path, shard: Path) -> None:
    ingest_path(Substrate(shard), tree / "sub", named_from=tree)
    assert sources(shard) == {"sub/data.jsonl"}
    # a folder around it that named files before wins
    (tree / "sub" / "deep").mkdir()
    _write(tree / "sub" / "deep" / "x.md", "deep")
    report = ingest_path(Substrate(shard), tree / "sub" / "deep", named_from=tree / "sub")
    assert [f.source for f in report.files] == ["sub/deep/x.md"]
    with pytest.raises(InvalidInputError, match="is not in"):
        ingest_path(Substrate(shard), tree, named_from=tree / "sub")


def test_changed_options_re_ingest_the_file(tree: Path, shard: Path) -> None:
    ingest_path(Substrate(shard), tree)
    report = ingest_path(Substrate(shard), tree, tags=["reviewed"])
    assert report.files_updated == 3
    assert all(i.tags == ["reviewed"] for i in Substrate(shard).iter_items())
    assert len(Substrate(shard)) == 7


def test_each_scope_has_its_own_items_of_a_file_and_one_never_touches_the_other(
    tree: Path, shard: Path
) -> None:
    ingest_path(Substrate(shard), tree, scope="alpha")
    beta = ingest_path(Substrate(shard), tree, scope="beta")
    assert beta.files_added == 3 and beta.items_removed == 0
    by_scope = {
        s: [i for i in Substrate(shard).iter_items() if i.scope == s] for s in ("alpha", "beta")
    }
    assert len(by_scope["alpha"]) == len(by_scope["beta"]) == 7
    # beta edits and deletes files: alpha's items stay, and beta's report names only its own
    guide = tree / "guide.md"
    _write(guide, guide.read_text() + "\n## Added\n\nMore.\n")
    (tree / "notes.txt").unlink()
    again = ingest_path(Substrate(shard), tree, scope="beta")
    assert (again.files_updated, again.files_removed) == (1, 1)
    assert again.items_removed == sum(
        1 for i in by_scope["beta"] if i.provenance["source"] == "notes.txt"
    )
    stored = {i.id for i in Substrate(shard).iter_items() if i.scope == "alpha"}
    assert stored == {i.id for i in by_scope["alpha"]}
    unchanged = ingest_path(Substrate(shard), tree, scope="beta")
    assert unchanged.files_unchanged == 2 and unchanged.files_removed == 0


def test_cache_is_rebuilt_from_provenance_when_index_is_deleted(
    tree: Path, shard: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ingest_path(Substrate(shard), tree)
    assert (shard / "index" / STATS_FILE).exists() and (shard / "index" / ITEMS_FILE).exists()
    shutil.rmtree(shard / "index")
    with caplog.at_level(logging.INFO, logger="substrate.ingest.sources"):
        report = ingest_path(Substrate(shard), tree)
    assert "rebuilding" in caplog.text
    assert report.files_unchanged == 3 and report.bytes_read == 0
    assert (shard / "index" / STATS_FILE).exists()


def test_a_cache_rebuilt_from_the_items_knows_the_folder_that_named_them(
    tree: Path, shard: Path
) -> None:
    # an upgrade rebuilds the cache: nothing may look changed (every item written again)
    ingest_path(Substrate(shard), tree)
    ingest_path(Substrate(shard), tree / "sub" / "data.jsonl")  # named from the tree still
    log = (shard / "items.jsonl").read_bytes()
    shutil.rmtree(shard / "index")
    assert ingest_path(Substrate(shard), tree / "sub").files_unchanged == 1
    assert ingest_path(Substrate(shard), tree).files_unchanged == 3
    assert (shard / "items.jsonl").read_bytes() == log
    assert sources(shard) == TREE_SOURCES


def test_a_file_ingested_from_the_folder_above_renames_no_folder_ingested_before(
    tree: Path, shard: Path
) -> None:
    # "mixle ingest sub" then "mixle ingest README.md" from the tree's top: the next
    # "mixle ingest sub" rewrote every file of sub, named from the top from then on
    ingest_path(Substrate(shard), tree / "sub")
    ingest_path(Substrate(shard), tree / "guide.md")
    log = (shard / "items.jsonl").read_bytes()
    again = ingest_path(Substrate(shard), tree / "sub")
    assert (again.files_unchanged, again.files_updated, again.items_added) == (1, 0, 0)
    assert (shard / "items.jsonl").read_bytes() == log
    assert sources(shard) == {"data.jsonl", "guide.md"}
    ingest_path(Substrate(shard), tree)  # the whole tree: named from its top, as asked
    assert sources(shard) == TREE_SOURCES


@pytest.mark.parametrize("redact", [True, False])  # paths stored masked, or as they are
def test_a_cache_rebuilt_under_a_folder_named_like_a_secret_finds_its_files_unchanged(
    tmp_path: Path, shard: Path, redact: bool
) -> None:
    # the items' paths hold the folder masked: the key the rebuild read from them matched
    # no run's, and every file was read and written again
    folder = tmp_path / ("AKIAZ3MXQ7PL2" + "RTW4KVB")
    (folder / "sub").mkdir(parents=True)
    _write(folder / "a.md", "# A\n\nalpha one.\n")
    _write(folder / "sub" / "b.md", "# B\n\nbeta two.\n")
    ingest_path(Substrate(shard), folder, redact=redact)
    for walked, unchanged in ((folder / "sub", 1), (folder, 2)):
        shutil.rmtree(shard / "index")
        report = ingest_path(Substrate(shard), walked, redact=redact)
        assert (report.files_unchanged, report.items_rewritten) == (unchanged, 0)
    assert sources(shard) == {"a.md", "sub/b.md"}


def test_cache_catches_up_with_other_writers_without_a_rebuild(
    tree: Path, shard: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ingest_path(Substrate(shard), tree)
    other = Substrate(shard)
    other.put(SubstrateItem(kind="text", text="written by someone else"))
    victim = next(i for i in other.iter_items() if i.provenance.get("source") == "notes.txt")
    other.remove(victim.id)
    other.save()
    with caplog.at_level(logging.INFO, logger="substrate.ingest.sources"):
        report = ingest_path(Substrate(shard), tree)
    assert "rebuilding" not in caplog.text
    assert report.files_unchanged == 3
    # the removal done by the other command is respected: the source is unchanged
    assert Substrate(shard).get(victim.id) is None


def test_corrupt_cache_file_is_rebuilt(tree: Path, shard: Path) -> None:
    ingest_path(Substrate(shard), tree)
    (shard / "index" / STATS_FILE).write_text("{not json")
    report = ingest_path(Substrate(shard), tree)
    assert report.files_unchanged == 3


def test_a_secret_scan_of_the_shard_flags_nothing_of_the_cache(tree: Path, shard: Path) -> None:
    # a shard committed to a repository passes the pre-commit scan: the cache's random marks
    # were once a "token" field (a shard of that format has its cache rebuilt)
    ingest_path(Substrate(shard), tree)
    _write(tree / "notes.txt", "Edited.\n")
    ingest_path(Substrate(shard), tree)  # a journal line too
    index = sorted((shard / "index").iterdir())
    assert {STATS_FILE, ITEMS_FILE, JOURNAL_FILE} <= {path.name for path in index}
    assert [p.name for p in index if find_secrets(p.read_text())] == []


def test_recently_modified_file_is_checked_by_hash(tree: Path, shard: Path) -> None:
    fresh = tree / "fresh.md"
    fresh.write_text("# Fresh\n\nJust written.\n")  # mtime within the racy window
    ingest_path(Substrate(shard), tree)
    again = ingest_path(Substrate(shard), tree)
    assert again.files_unchanged == 4
    assert again.bytes_read == fresh.stat().st_size  # hashed, since its mtime proves nothing
    _settle(fresh)
    ingest_path(Substrate(shard), tree)  # records the settled mtime
    last = ingest_path(Substrate(shard), tree)
    assert last.bytes_read == 0


def test_rehash_reads_every_file_and_finds_an_edit_that_kept_size_and_mtime(
    tree: Path, shard: Path
) -> None:
    ingest_path(Substrate(shard), tree)
    notes = tree / "notes.txt"
    kept = notes.stat().st_mtime_ns
    notes.write_text("first note\n\nsecond NOTE\n")  # same size, and the old time put back
    os.utime(notes, ns=(kept, kept))
    shutil.rmtree(shard / "index")  # a cache rebuilt from the items knows no change time
    blind = ingest_path(Substrate(shard), tree)
    assert blind.files_unchanged == 3 and blind.bytes_read == 0
    report = ingest_path(Substrate(shard), tree, rehash=True)
    assert report.files_updated == 1 and report.files_unchanged == 2
    assert report.bytes_read == sum(p.stat().st_size for p in tree.rglob("*") if p.is_file())
    texts = {i.text for i in Substrate(shard).iter_items() if i.provenance["source"] == "notes.txt"}
    assert texts == {"first note", "second NOTE"}
    log = (shard / "items.jsonl").stat().st_size
    again = ingest_path(Substrate(shard), tree, rehash=True)  # the same items: not written
    assert again.files_unchanged == 3 and again.items_added == again.items_rewritten == 0
    assert (shard / "items.jsonl").stat().st_size == log


def test_two_files_of_one_size_and_time_that_swapped_names_are_read_again(tmp_path: Path) -> None:
    # a restore or a generated tree: the same sizes and times, each name another file now (an
    # on-disk shard: an in-memory one works its cache out of its items, which keep no change time)
    tree, shard = tmp_path / "tree", tmp_path / "shard"
    tree.mkdir()
    (tree / "a.md").write_text("# AAA\n\nalpha\n")
    (tree / "b.md").write_text("# BBB\n\nbravo\n")
    for name in ("a.md", "b.md"):
        os.utime(tree / name, ns=(1_700_000_000 * 10**9,) * 2)
    ingest_path(Substrate(shard), tree)
    os.rename(tree / "a.md", tree / "t.md")
    os.rename(tree / "b.md", tree / "a.md")
    os.rename(tree / "t.md", tree / "b.md")
    report = ingest_path(Substrate(shard), tree)
    assert report.files_updated == 2 and report.files_unchanged == 0
    by_source = {i.provenance["source"]: i.text for i in Substrate(shard).iter_items()}
    assert by_source == {"a.md": "# BBB\n\nbravo", "b.md": "# AAA\n\nalpha"}
    again = ingest_path(Substrate(shard), tree)
    assert again.files_unchanged == 2 and again.bytes_read == 0


def test_a_backup_copied_back_over_a_file_with_its_size_and_time_is_read_again(
    tmp_path: Path,
) -> None:
    # ``cp -p`` writes into the file in place (same inode) and puts the old time back: only
    # its change time tells
    tree, shard, backup = tmp_path / "tree", tmp_path / "shard", tmp_path / "backup.md"
    tree.mkdir()
    (tree / "a.md").write_text("# Plan\n\nversion one\n")
    backup.write_text("# Plan\n\nversion two\n")
    for path in (tree / "a.md", backup):
        os.utime(path, ns=(1_700_000_000 * 10**9,) * 2)
    ingest_path(Substrate(shard), tree)
    inode = (tree / "a.md").stat().st_ino
    shutil.copy2(backup, tree / "a.md")
    assert (tree / "a.md").stat().st_ino == inode  # the same file, its size and time as before
    report = ingest_path(Substrate(shard), tree)
    assert report.files_updated == 1
    assert [i.text for i in Substrate(shard).iter_items()] == ["# Plan\n\nversion two"]


def test_a_cache_rebuilt_from_the_items_learns_the_stamps_on_the_next_run(
    tree: Path, shard: Path
) -> None:
    ingest_path(Substrate(shard), tree)
    shutil.rmtree(shard / "index")  # rebuilt from the items, which record no stamp
    assert ingest_path(Substrate(shard), tree).files_unchanged == 3
    stats = orjson.loads((shard / "index" / "sources.json").read_bytes())
    rows = [row for names in stats["dirs"].values() for row in names.values()]
    assert len(rows) == 3 and all(row[4] > 0 for row in rows)  # learnt, and saved
    assert ingest_path(Substrate(shard), tree).files_unchanged == 3


def test_in_memory_store_is_incremental_too(tree: Path) -> None:
    store = Substrate()
    ingest_path(store, tree)
    ids = [i.id for i in store.iter_items()]
    again = ingest_path(store, tree)
    assert again.files_unchanged == 3 and again.items_added == 0
    assert [i.id for i in store.iter_items()] == ids
    _write(tree / "notes.txt", "first note\n\nthird note\n")
    changed = ingest_path(store, tree)
    assert changed.files_updated == 1
    assert sorted(i.text for i in store.iter_items() if i.provenance["source"] == "notes.txt") == [
        "first note",
        "third note",
    ]


def test_binary_file_is_remembered_as_skipped(tree: Path, shard: Path) -> None:
    (tree / "image.txt").write_bytes(b"\x00\x01\x02")
    _settle(tree / "image.txt")
    ingest_path(Substrate(shard), tree)
    report = ingest_path(Substrate(shard), tree)
    assert report.bytes_read == 0
    assert [(f.source, f.reason) for f in report.files if f.status == "skipped"] == [
        ("image.txt", BINARY)
    ]


def test_hashes_and_ids_are_read_only_when_a_file_changed(
    tree: Path, shard: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ingest_path(Substrate(shard), tree)
    before = {i.id for i in Substrate(shard).iter_items() if i.provenance["source"] == "notes.txt"}
    (shard / "index" / ITEMS_FILE).unlink()
    with caplog.at_level(logging.INFO, logger="substrate.ingest.sources"):
        quiet = ingest_path(Substrate(shard), tree)
    assert quiet.files_unchanged == 3 and "rebuilding" not in caplog.text
    _write(tree / "notes.txt", "first note\n\nreplaced note\n")
    with caplog.at_level(logging.INFO, logger="substrate.ingest.sources"):
        changed = ingest_path(Substrate(shard), tree)
    assert "rebuilding" in caplog.text  # the ids had to come from the items' provenance
    assert changed.files_updated == 1 and changed.items_removed == 1
    after = {i.id for i in Substrate(shard).iter_items() if i.provenance["source"] == "notes.txt"}
    assert len(after) == 2 and len(before & after) == 1


def _guide_items(shard: Path) -> list[str]:
    return sorted(
        i.text for i in Substrate(shard).iter_items() if i.provenance["source"] == "guide.md"
    )


def test_a_small_change_is_journaled_and_the_next_runs_rely_on_it(
    tree: Path, shard: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ingest_path(Substrate(shard), tree)
    stats = (shard / "index" / STATS_FILE).read_bytes()
    journal = shard / "index" / JOURNAL_FILE
    assert not journal.exists()
    _write(tree / "guide.md", GUIDE.replace("Use the package.", "Use the disk image."))
    assert ingest_path(Substrate(shard), tree).files_updated == 1
    assert journal.exists() and (shard / "index" / STATS_FILE).read_bytes() == stats
    with caplog.at_level(logging.INFO, logger="substrate.ingest.sources"):
        again = ingest_path(Substrate(shard), tree)
    assert "rebuilding" not in caplog.text
    assert again.files_unchanged == 3 and again.bytes_read == 0
    # the ids the journal recorded are the ones replaced by the next edit
    _write(tree / "guide.md", GUIDE.replace("Use the package.", "Use Homebrew."))
    assert ingest_path(Substrate(shard), tree).files_updated == 1
    texts = _guide_items(shard)
    assert any("Homebrew" in t for t in texts) and not any("disk image" in t for t in texts)
    assert len(texts) == 3


def test_an_interrupted_journal_append_costs_a_parse_not_a_wrong_answer(
    tree: Path, shard: Path
) -> None:
    ingest_path(Substrate(shard), tree)
    _write(tree / "notes.txt", "first note\n\nsecond note, edited\n")
    ingest_path(Substrate(shard), tree)
    journal = shard / "index" / JOURNAL_FILE
    line = journal.read_bytes()
    journal.write_bytes(line[: len(line) // 2])  # the append was cut short
    # the cache folds in the log written since its files, and parses the file once more
    report = ingest_path(Substrate(shard), tree)
    assert report.files_failed == 0 and report.items_removed == 0  # the same ids again
    assert ingest_path(Substrate(shard), tree).bytes_read == 0
    notes = [i.text for i in Substrate(shard).iter_items() if i.provenance["source"] == "notes.txt"]
    assert sorted(notes) == ["first note", "second note, edited"]


def test_a_large_change_rewrites_the_files_and_starts_a_new_journal(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest_path(Substrate(shard), tree)
    _write(tree / "notes.txt", "changed\n")
    ingest_path(Substrate(shard), tree)
    journal = shard / "index" / JOURNAL_FILE
    assert journal.exists()
    monkeypatch.setattr("substrate.ingest.sources.JOURNAL_MIN", 0)  # 3 sources: 0 fit
    _write(tree / "notes.txt", "changed again\n")
    assert ingest_path(Substrate(shard), tree).files_updated == 1
    assert not journal.exists()
    again = ingest_path(Substrate(shard), tree)
    assert again.files_unchanged == 3 and again.bytes_read == 0


def test_a_rewrite_after_only_touches_keeps_the_ids_the_journal_held(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest_path(Substrate(shard), tree)
    _write(tree / "guide.md", GUIDE.replace("Use the package.", "Use the disk image."))
    ingest_path(Substrate(shard), tree)  # the new ids are in the journal alone
    assert (shard / "index" / JOURNAL_FILE).exists()
    monkeypatch.setattr("substrate.ingest.sources.JOURNAL_MIN", 0)  # 3 sources: 0 fit
    _settle(tree)  # every file re-read and found unchanged: only touches, a rewrite
    assert ingest_path(Substrate(shard), tree).files_unchanged == 3
    assert not (shard / "index" / JOURNAL_FILE).exists()
    # the next edit replaces the version the journal recorded, not the one before it
    _write(tree / "guide.md", GUIDE.replace("Use the package.", "Use Homebrew."))
    assert ingest_path(Substrate(shard), tree).files_updated == 1
    texts = _guide_items(shard)
    assert len(texts) == 3 and not any("disk image" in t for t in texts)
    (tree / "guide.md").unlink()  # and a deleted file leaves nothing behind
    assert ingest_path(Substrate(shard), tree).items_removed == 3
    assert _guide_items(shard) == []


def test_two_processes_ingesting_into_one_shard_at_once(tmp_path: Path, shard: Path) -> None:
    import subprocess
    import sys

    folders = []
    for name in ("left", "right"):
        folder = tmp_path / name
        folder.mkdir()
        for i in range(150):
            _write(folder / f"{name}{i}.md", f"# {name} {i}\n\nBody of {name} {i}.\n")
        folders.append(folder)
    script = (
        "import sys\n"
        "from substrate.ingest import ingest_path\n"
        "from substrate.store import Substrate\n"
        "report = ingest_path(Substrate(sys.argv[1]), sys.argv[2], jobs=1)\n"
        "assert report.files_added == 150 and not report.issues, report.as_dict(files=False)\n"
    )
    runs = [
        subprocess.Popen([sys.executable, "-c", script, str(shard), str(folder)])
        for folder in folders
    ]
    assert [run.wait(timeout=120) for run in runs] == [0, 0]
    store = Substrate(shard)
    texts = sorted(i.text for i in store.iter_items())
    assert len(texts) == 300 == len(set(texts))
    for folder in folders:  # each run's cache entries survived the other's saves
        again = ingest_path(Substrate(shard), folder)
        assert again.files_unchanged == 150 and again.items_added == 0
    assert len(Substrate(shard)) == 300


def test_a_journaled_cache_survives_compaction(tree: Path, shard: Path) -> None:
    ingest_path(Substrate(shard), tree)
    _write(tree / "notes.txt", "first note\n\nsecond note, edited\n")
    ingest_path(Substrate(shard), tree)
    assert (shard / "index" / JOURNAL_FILE).exists()
    Substrate(shard).compact()  # a new log generation: the journal's watermarks are stale
    report = ingest_path(Substrate(shard), tree)
    assert report.files_failed == 0 and report.items_added == 0 and report.items_removed == 0
    assert len(Substrate(shard)) == 7
    assert ingest_path(Substrate(shard), tree).bytes_read == 0


def test_a_file_whose_items_were_all_removed_stays_removed_after_compaction(
    tree: Path, shard: Path
) -> None:
    ingest_path(Substrate(shard), tree)
    store = Substrate(shard)
    notes = [i.id for i in store.iter_items() if i.provenance.get("source") == "notes.txt"]
    for item_id in notes:
        store.remove(item_id)
    store.save()
    store.compact()  # the tombstones go; the cache still knows the file was ingested
    report = ingest_path(Substrate(shard), tree)
    assert report.items_added == 0 and report.bytes_read == 0
    assert not set(notes) & {i.id for i in Substrate(shard).iter_items()}
    _write(tree / "notes.txt", "first note\n\nsecond note, edited\n")  # a change gives them back
    assert ingest_path(Substrate(shard), tree).items_added == 2


def test_items_removed_by_hand_stay_removed_when_their_unchanged_file_is_read_again(
    tree: Path, shard: Path
) -> None:
    first = ingest_path(Substrate(shard), tree)
    store = Substrate(shard)
    by_source: dict[str, list[str]] = {}
    for item in store.iter_items():
        by_source.setdefault(str(item.provenance.get("source")), []).append(item.id)
    gone = [by_source["guide.md"][1], *by_source["notes.txt"]]  # one of a file, all of one
    for item_id in gone:
        store.remove(item_id)
    store.save()
    for rehash in (False, True, True):
        report = ingest_path(Substrate(shard), tree, rehash=rehash)
        assert report.items_added == report.items_rewritten == report.items_removed == 0
        assert report.files_unchanged == first.files_scanned
        assert not set(gone) & {i.id for i in Substrate(shard).iter_items()}
    guide = tree / "guide.md"
    _write(guide, guide.read_text() + "\nOne more line.\n")  # a change gives it back
    ingest_path(Substrate(shard), tree, rehash=True)
    assert gone[0] in {i.id for i in Substrate(shard).iter_items()}


def test_an_item_published_since_is_left_where_it_is(tree: Path, shard: Path) -> None:
    from substrate.spaces import publish

    ingest_path(Substrate(shard), tree, scope="alpha")
    store = Substrate(shard)
    linux = next(i for i in store.iter_items() if i.provenance.get("section") == "Install > Linux")
    publish(store, [linux.id], to="public", by="alpha")
    store.save()

    def published() -> SubstrateItem | None:
        return Substrate(shard).get(linux.id)

    guide = tree / "guide.md"
    _write(guide, guide.read_text().replace("Use the package.", "Use the new package."))
    report = ingest_path(Substrate(shard), tree, scope="alpha")  # neither rewritten nor removed
    assert report.files_updated == 1
    assert published() is not None and published().scope == "public"  # type: ignore[union-attr]
    _write(guide, guide.read_text().replace("new package", "newer package"))
    ingest_path(Substrate(shard), tree, scope="alpha")  # a second edit: still left alone
    assert published().scope == "public"  # type: ignore[union-attr]
    ingest_path(Substrate(shard), tree, scope="public")  # public's own items of the file
    text = guide.read_text()
    guide.unlink()
    ingest_path(Substrate(shard), tree, scope="alpha")  # alpha prunes the deleted file
    item = published()
    assert item is not None and item.scope == "public" and item.provenance["version"] == 1
    _write(guide, text)  # restored: its items come back, the published one stays published
    restored = ingest_path(Substrate(shard), tree, scope="alpha")
    assert restored.items_added >= 2 and published().scope == "public"  # type: ignore[union-attr]


def test_an_edit_undone_does_not_write_over_the_item_published_since(
    tree: Path, shard: Path
) -> None:
    from substrate.spaces import publish

    guide = tree / "guide.md"
    first = guide.read_text()
    ingest_path(Substrate(shard), tree, scope="alpha")
    store = Substrate(shard)
    linux = next(i for i in store.iter_items() if i.provenance.get("section") == "Install > Linux")
    publish(store, [linux.id], to="public", by="alpha")
    store.save()
    _write(guide, first.replace("Run the installer.", "Run the new installer."))
    ingest_path(Substrate(shard), tree, scope="alpha")
    _write(guide, first)  # the edit undone: its content gives the published item's id again
    undone = ingest_path(Substrate(shard), tree, scope="alpha")
    item = Substrate(shard).get(linux.id)
    assert item is not None and item.scope == "public" and item.provenance["version"] == 1
    assert linux.id not in undone.ids
    again = ingest_path(Substrate(shard), tree, scope="alpha", rehash=True)
    assert again.items_added == 0 and Substrate(shard).get(linux.id).scope == "public"  # type: ignore[union-attr]


def test_rejected_lines_are_reported_again_while_the_file_is_unchanged(
    tree: Path, shard: Path
) -> None:
    rows = tree / "sub" / "data.jsonl"

    def still_reported(*, where: bool = True) -> None:
        again = ingest_path(Substrate(shard), tree)
        assert "sub/data.jsonl" in again.unchanged and not again.ok
        assert [i.source for i in again.issues] == ["sub/data.jsonl"]
        issue = again.issues[0]
        if where:  # the line and why, as the run that read it told them
            assert issue.line == 2 and issue.reason.startswith("invalid JSON")
            assert "still there" in issue.reason
        else:  # known from the items alone: how many
            assert issue.line is None and "1 line(s) rejected" in issue.reason

    _write(rows, '{"text": "row one"}\n{broken\n')
    first = ingest_path(Substrate(shard), tree)
    assert not first.ok and [i.line for i in first.issues] == [2]
    still_reported()  # from the files written whole
    ingest_path(Substrate(shard), tree)
    _write(rows, '{"text": "row one"}\n{broken again\n')
    ingest_path(Substrate(shard), tree)  # a small change: a journal line
    assert (shard / "index" / JOURNAL_FILE).exists()
    still_reported()
    Substrate(shard).compact()
    still_reported()
    shutil.rmtree(shard / "index")  # a cache rebuilt from the items
    still_reported(where=False)
    _write(rows, '{"text": "row one"}\n{"text": "row two"}\n')
    fixed = ingest_path(Substrate(shard), tree)
    assert fixed.ok and ingest_path(Substrate(shard), tree).ok


def test_only_the_first_rejected_lines_are_kept_to_be_told_again(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("substrate.ingest.session.KEPT_REJECTIONS", 2)
    _write(tree / "sub" / "data.jsonl", '{"text": "ok"}\n{a\n{b\n{c\n')
    assert [i.line for i in ingest_path(Substrate(shard), tree).issues] == [2, 3, 4]
    again = ingest_path(Substrate(shard), tree).issues
    assert [i.line for i in again] == [2, 3, None]
    assert "1 more line(s) rejected when this file was read" in again[2].reason


def test_an_in_memory_shard_reports_rejected_lines_again_too(tree: Path) -> None:
    _write(tree / "sub" / "data.jsonl", '{"text": "row one"}\n{broken\n')
    store = Substrate()
    assert not ingest_path(store, tree).ok
    again = ingest_path(store, tree)
    assert "sub/data.jsonl" in again.unchanged and not again.ok


def _ingested(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    """A folder ``src`` of ``files`` (name -> text) ingested into ``shard``."""
    root, shard = tmp_path / "src", tmp_path / "shard"
    root.mkdir()
    for name, text in files.items():
        _write(root / name, text)
    ingest_path(Substrate(shard), root)
    return root, shard


def test_a_file_that_grows_too_large_loses_its_earlier_items(tmp_path: Path) -> None:
    root, shard = _ingested(tmp_path, {"b.txt": "oldcontent two\n"})
    _write(root / "b.txt", "grown " * 100)
    report = ingest_path(Substrate(shard), root, max_file_size=100)
    reasons = {f.source: (f.status, f.reason, f.items_removed) for f in report.files}
    assert reasons == {
        "b.txt": (
            "skipped",
            "larger than the size limit (600 > 100 bytes); its 1 earlier item(s) removed",
            1,
        ),
    }
    assert report.items_removed == 1 and len(Substrate(shard)) == 0
    again = ingest_path(Substrate(shard), root, max_file_size=100)
    assert [f.reason for f in again.files] == ["larger than the size limit (600 > 100 bytes)"]
    assert again.items_removed == 0
    bigger = ingest_path(Substrate(shard), root)  # a limit that takes it again
    assert bigger.files_added == 1 and "grown" in Substrate(shard).all()[0].text


def test_a_text_file_that_turns_binary_fails_and_keeps_its_items(tmp_path: Path) -> None:
    # a file filled with NUL bytes is what a crash leaves: its items were removed, exit 0
    root, shard = _ingested(tmp_path, {"a.txt": "oldcontent one\n", "new.txt": "x\n"})
    kept = [item.id for item in Substrate(shard).iter_items()]
    _write(root / "a.txt", "\x00" * 4096)
    _write(root / "new.bin.txt", "bin\x00ary")  # binary from the start: skipped
    for _ in range(2):  # and again: still kept, still said
        report = ingest_path(Substrate(shard), root)
        outcomes = {f.source: (f.status, f.reason) for f in report.files if f.status != "unchanged"}
        assert outcomes["new.bin.txt"] == ("skipped", BINARY)
        assert (
            outcomes["a.txt"][0] == "failed"
            and "1 earlier item(s) are kept" in outcomes["a.txt"][1]
        )
        assert report.items_removed == 0
        assert [item.id for item in Substrate(shard).iter_items()] == kept
    _write(root / ".mixleignore", "a.txt\n")  # meant to be binary: let them go
    gone = ingest_path(Substrate(shard), root)
    assert gone.items_removed == 1 and len(Substrate(shard)) == 1


def test_a_file_truncated_to_nothing_fails_and_keeps_its_items(tmp_path: Path) -> None:
    root, shard = _ingested(tmp_path, {"a.md": "# A\n\nText of a.\n", "b.md": "# B\n\nb\n"})
    kept = sorted(item.id for item in Substrate(shard).iter_items())
    _write(root / "a.md", "")
    _write(root / "new.md", "")  # empty from the start: skipped, as before
    for _ in range(2):  # and again: still kept, still said
        report = ingest_path(Substrate(shard), root)
        outcomes = {f.source: (f.status, f.reason) for f in report.files}
        assert outcomes["new.md"] == ("skipped", "no content")
        status, reason = outcomes["a.md"]
        assert status == "failed" and reason.startswith("is empty now (0 bytes)")
        assert "its 1 earlier item(s) are kept" in reason and not report.ok
        assert sorted(item.id for item in Substrate(shard).iter_items()) == kept
    (root / "a.md").unlink()  # meant to go
    assert ingest_path(Substrate(shard), root).items_removed == 1


def test_a_file_empty_a_moment_after_it_was_written_is_told_as_being_saved(
    tmp_path: Path,
) -> None:
    # an editor truncating a note to write it again: a cron run in between exited 1, telling
    # the user to restore the file
    root, shard = _ingested(tmp_path, {"a.md": "# A\n\nText of a.\n"})
    kept = [item.id for item in Substrate(shard).iter_items()]
    (root / "a.md").write_text("")  # (now: within the window a time is not trusted in)
    report = ingest_path(Substrate(shard), root)
    (outcome,) = report.files
    assert outcome.status == "skipped" and "(being saved?)" in outcome.reason and report.ok
    assert [item.id for item in Substrate(shard).iter_items()] == kept
    _write(root / "a.md", "# A\n\nText of a, saved.\n")
    assert ingest_path(Substrate(shard), root).files_updated == 1


def test_a_text_file_zero_filled_past_its_first_bytes_fails_and_keeps_its_items(
    tmp_path: Path,
) -> None:
    note = "# Notes\n\n" + "Some sentence about things.\n\n" * 400
    root, shard = _ingested(tmp_path, {"notes.md": note})
    kept = sorted(item.text for item in Substrate(shard).iter_items())
    _write(root / "notes.md", note[:9000] + "\x00" * (len(note) - 9000))
    report = ingest_path(Substrate(shard), root)
    (outcome,) = report.files
    assert outcome.status == "failed" and "NUL byte" in outcome.reason
    assert outcome.reason.endswith(f"; its {len(kept)} earlier item(s) are kept")
    assert report.items_removed == 0 and not report.ok
    assert sorted(item.text for item in Substrate(shard).iter_items()) == kept


def test_a_file_whose_every_line_is_rejected_fails_and_keeps_its_items(tmp_path: Path) -> None:
    rows = '{"text": "first row"}\n{"text": "second row"}\n'
    root, shard = _ingested(tmp_path, {"rows.jsonl": rows})
    _write(root / "rows.jsonl", "not json\nnor this\n")
    report = ingest_path(Substrate(shard), root)
    (outcome,) = report.files
    reason = "all 2 line(s) or row(s) rejected; its 2 earlier item(s) are kept"
    assert (outcome.status, outcome.reason) == ("failed", reason)
    assert [i.line for i in report.issues] == [1, 2, None]
    assert sorted(i.text for i in Substrate(shard).iter_items()) == ["first row", "second row"]
    assert not report.ok and report.items_removed == 0


@pytest.mark.parametrize(
    ("name", "before", "broken", "mended"),
    [
        (
            "rows.jsonl",
            '{"text": "alpha"}\n{"text": "beta"}\n{"text": "gamma"}\n',
            '{"text": "alpha"}\n{"text": "beta\n{"text": "gamma"}\n',
            '{"text": "alpha"}\n{"text": "beta two"}\n{"text": "gamma"}\n',
        ),
        (
            "rows.csv",
            "word\nalpha\nbeta\ngamma\n",
            "word\nalpha\nbeta,stray\ngamma\n",
            "word\nalpha\nbeta two\ngamma\n",
        ),
    ],
)
def test_a_row_turned_malformed_keeps_its_item_until_it_is_mended(
    tmp_path: Path, name: str, before: str, broken: str, mended: str
) -> None:
    root, shard = _ingested(tmp_path, {name: before})
    _write(root / name, broken)
    report = ingest_path(Substrate(shard), root)
    assert not report.ok and report.items_removed == 0
    assert any("kept as they were" in note.reason for note in report.notices)
    assert sorted(i.text for i in Substrate(shard).iter_items()) == ["alpha", "beta", "gamma"]
    _write(root / name, mended)
    report = ingest_path(Substrate(shard), root)
    assert report.ok and report.items_removed == 1
    assert sorted(i.text for i in Substrate(shard).iter_items()) == ["alpha", "beta two", "gamma"]


def test_a_malformed_row_that_moved_keeps_its_item(tmp_path: Path) -> None:
    rows = '{"text": "alpha one"}\n{"text": "bravo two"}\n'
    root, shard = _ingested(tmp_path, {"rows.jsonl": rows})
    _write(root / "rows.jsonl", '{"text": "alpha one"}\n{"text": "bravo two"\n')
    ingest_path(Substrate(shard), root)
    # a line inserted above it: the broken row is on line 3 now, its item came from line 2
    _write(root / "rows.jsonl", '{"text": "zero"}\n{"text": "alpha one"}\n{"text": "bravo two"\n')
    report = ingest_path(Substrate(shard), root)
    assert report.items_removed == 0
    texts = sorted(i.text for i in Substrate(shard).iter_items())
    assert texts == ["alpha one", "bravo two", "zero"]


def test_a_file_of_rejected_and_empty_lines_says_so(tmp_path: Path) -> None:
    rows = '{"text": "first"}\n{"text": "second"}\n{"text": "third"}\n'
    root, shard = _ingested(tmp_path, {"rows.jsonl": rows})
    _write(root / "rows.jsonl", '{"text": ""}\nnot json\nnull\n')
    (outcome,) = ingest_path(Substrate(shard), root).files
    reason = "1 line(s) or row(s) rejected, and the other 2 empty; its 3 earlier item(s) are kept"
    assert (outcome.status, outcome.reason) == ("failed", reason)
    assert len(Substrate(shard)) == 3  # kept until the file is mended


def test_a_lower_size_limit_alone_removes_nothing(tmp_path: Path) -> None:
    root, shard = _ingested(tmp_path, {"g.txt": "a note of some length\n"})
    os.utime(root / "g.txt")  # touched: its mtime no longer vouches for it
    report = ingest_path(Substrate(shard), root, max_file_size=5)
    assert [(f.status, f.items_removed) for f in report.files] == [("skipped", 0)]
    assert len(Substrate(shard)) == 1


def test_a_lower_size_limit_applies_to_unchanged_files_too(tmp_path: Path) -> None:
    root, shard = _ingested(tmp_path, {"g.txt": "a note of some length\n", "s.txt": "ok\n"})
    report = ingest_path(Substrate(shard), root, max_file_size=5)  # nothing touched
    statuses = {f.source: f.status for f in report.files}
    assert statuses == {"g.txt": "skipped"} and report.unchanged == ["s.txt"]
    assert "larger than the size limit" in report.files[0].reason
    assert len(Substrate(shard)) == 2  # skipped, not changed: its items stay


def test_a_too_large_file_with_published_items_settles_once(tmp_path: Path) -> None:
    from substrate.spaces import publish

    root, shard = _ingested(tmp_path, {"a.txt": "a note to publish\n"})
    store = Substrate(shard)
    publish(store, [i.id for i in store.iter_items()], to="public", by="ann")
    store.save()
    _write(root / "a.txt", "grown " * 100)
    first = ingest_path(Substrate(shard), root, max_file_size=100)
    assert first.items_removed == 0  # the published item stays where it is
    index = shard / "index"
    before = {p.name: p.stat().st_mtime_ns for p in index.glob("source*")}
    again = ingest_path(Substrate(shard), root, max_file_size=100)
    assert [f.reason for f in again.files] == ["larger than the size limit (600 > 100 bytes)"]
    assert {p.name: p.stat().st_mtime_ns for p in index.glob("source*")} == before
    assert [i.scope for i in Substrate(shard).iter_items()] == ["public"]


def test_a_batch_removed_by_hand_is_noticed_though_a_later_one_ends_where_it_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without a catalog (a small shard) only the cache's own seal of the log tells that the
    # watermark it stored now ends another batch: else notes/b.md would stay "unchanged" and
    # its items would never come back.
    from substrate import log as log_module
    from substrate.itemline import encode

    monkeypatch.setattr(log_module.time, "time", lambda: 1_800_000_000.25)
    notes, shard = tmp_path / "notes", tmp_path / "shard"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nalpha words\n")
    _settle(notes)
    ingest_path(Substrate(shard), notes)
    log_path = shard / "items.jsonl"
    before = log_path.read_bytes()
    (notes / "b.md").write_text("# B\n\nbravo words\n")
    _settle(notes)
    ingest_path(Substrate(shard), notes)
    added = log_path.read_bytes()[len(before) :]
    log_path.write_bytes(before)  # the batch of b.md removed by hand, and accepted so
    (shard / "index" / "log-end.json").unlink()  # (else no write is taken)
    commit = added.splitlines(keepends=True)[-1]
    filler = SubstrateItem("text", "", id="e" * 32, created_at=1.5)
    filler.text = "x" * (len(added) - len(commit) - len(encode(filler)))
    s = Substrate(shard)
    s.put(filler)
    s.save()
    assert log_path.stat().st_size == len(before) + len(added)
    report = ingest_path(Substrate(shard), notes)
    assert report.files_added == 1 and report.files_unchanged == 1
    assert [h.text for h, _ in Substrate(shard).search("bravo", k=1)] == ["# B\n\nbravo words"]


def test_ingesting_a_small_folder_imports_no_numpy(tmp_path: Path) -> None:
    # numpy's import costs more than ingesting a few notes: only a catalog needs it
    code = (
        "import sys\n"
        "from substrate.ingest import ingest_path\n"
        "from substrate.store import Substrate\n"
        "for _ in range(2):\n"
        f"    report = ingest_path(Substrate({str(tmp_path / 'shard')!r}), {str(FIXTURES)!r})\n"
        "assert report.files_unchanged and report.files_scanned, report.as_dict(files=False)\n"
        "assert 'numpy' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_of_two_runs_on_one_stream_at_once_the_later_replaces_both(
    shard: Path, another_run_first: Any
) -> None:
    from substrate.ingest import ingest_text

    ingest_text(Substrate(shard), "version zero", source="shared")
    another_run_first(lambda: ingest_text(Substrate(shard), "version A", source="shared"))
    report = ingest_text(Substrate(shard), "version B", source="shared")
    assert [i.text for i in Substrate(shard).iter_items()] == ["version B"]
    # the other run's version A (version zero was removed by the other run, which tells it)
    assert report.items_removed == 1
    ingest_text(Substrate(shard), "version C", source="shared")  # the cache knows it all
    assert [i.text for i in Substrate(shard).iter_items()] == ["version C"]


def _outcomes_add_up(report: IngestReport) -> bool:
    """Whether the report's item counts are the sums of its files' outcomes."""
    files = report.files
    return (report.items_added, report.items_rewritten, report.items_removed) == (
        sum(f.items_added for f in files),
        sum(f.items_rewritten for f in files),
        sum(f.items_removed for f in files),
    )


@pytest.mark.parametrize(
    ("published", "change", "then_compacted"),
    [
        ("## Linux", "edited", False),  # its section changed: the file would remove it
        ("# Install", "edited", False),  # its section did not: the file would write it again
        ("## Linux", "edited", True),  # and the log compacted: known from the item itself
        ("## Linux", "too large", False),  # the file now skipped: its items would go
    ],
)
def test_an_item_published_while_its_file_is_read_again_stays_published(
    tree: Path,
    shard: Path,
    another_run_first: Any,
    published: str,
    change: str,
    then_compacted: bool,
) -> None:
    limit = 4096
    ingest_path(Substrate(shard), tree, max_file_size=limit)
    [item] = [i for i in Substrate(shard).iter_items() if i.text.startswith(published)]
    edited = GUIDE.replace("Run the installer.", "Run the new installer.")
    _write(tree / "guide.md", edited + ("x" * limit if change == "too large" else ""))

    def published_meanwhile() -> None:  # after this run read the guide, before it saves
        store = Substrate(shard)
        publish(store, [item.id], to="public")
        store.save()
        if then_compacted:
            Substrate(shard).compact()

    another_run_first(published_meanwhile)
    report = ingest_path(Substrate(shard), tree, max_file_size=limit)
    assert _outcomes_add_up(report)
    assert item.id not in report.ids
    kept = Substrate(shard).get(item.id)
    assert kept is not None and kept.scope == "public"
    again = ingest_path(Substrate(shard), tree, max_file_size=limit)  # the source knows it
    assert not again.items_added and not again.items_removed
    assert Substrate(shard).get(item.id) is not None


def test_a_proposal_approved_while_its_file_is_read_again_is_not_told_withdrawn(
    tree: Path, shard: Path, another_run_first: Any
) -> None:
    # the ingest told the proposal withdrawn ("propose the new version"), though the item
    # was approved meanwhile and stayed published, its history saying so
    from substrate.governance import Governance, save_governance
    from substrate.proposals import approve, propose

    ingest_path(Substrate(shard), tree)
    store = Substrate(shard)
    [item] = [i for i in store.iter_items() if i.text.startswith("## Linux")]
    save_governance(store, Governance().grant("alice", "public"))
    propose(store, [item.id], to="public", by="ops")
    store.save()
    _write(tree / "guide.md", GUIDE.replace("Run the installer.", "Run the new installer."))

    def approved_meanwhile() -> None:  # after this run read the guide, before it saves
        approver = Substrate(shard)
        assert approve(approver, item.id, by="alice")
        approver.save()

    another_run_first(approved_meanwhile)
    report = ingest_path(Substrate(shard), tree)
    assert not [n for n in report.notices if "withdrawn" in n.reason]
    kept = Substrate(shard).get(item.id)
    assert kept is not None and kept.scope == "public"


def test_a_touched_file_another_run_changed_meanwhile_is_told_updated(
    tmp_path: Path, shard: Path, another_run_first: Any
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    db = notes / "db.txt"
    first = "password: Summer2024!\n\nsecond paragraph\n"  # no hash kept: items tell
    db.write_text(first)
    os.utime(db, ns=(1_500_000_000_000_000_000,) * 2)
    ingest_path(Substrate(shard), notes)
    os.utime(db, ns=(1_600_000_000_000_000_000,) * 2)  # touched only, as this run reads it

    def another_version_first() -> None:
        db.write_text(first + "\nthird paragraph\n")
        os.utime(db, ns=(1_700_000_000_000_000_000,) * 2)
        ingest_path(Substrate(shard), notes)
        db.write_text(first)
        os.utime(db, ns=(1_600_000_000_000_000_000,) * 2)

    another_run_first(another_version_first)
    report = ingest_path(Substrate(shard), notes, jobs=1)
    assert _outcomes_add_up(report) and not report.unchanged
    assert [(f.source, f.status, f.items_removed) for f in report.files] == [
        ("db.txt", "updated", 1)
    ]
    assert not any("third" in i.text for i in Substrate(shard).iter_items())


def test_an_ingest_leaves_another_teams_merged_item_where_it_is(tree: Path, shard: Path) -> None:
    theirs_tree = tree.parent / "theirs"
    theirs_tree.mkdir()
    _write(theirs_tree / "x.md", "# Install\n\nFetch it from the site.\n")
    ingest_path(Substrate(shard), tree)
    ingest_path(Substrate(shard), theirs_tree, scope="t2")
    store = Substrate(shard)
    [mine] = [
        i for i in store.iter_items() if i.text.startswith("# Install") and i.scope == "local"
    ]
    [theirs] = [i for i in store.iter_items() if i.scope == "t2"]
    publish(store, [mine.id, theirs.id], to="public")
    store.save()
    store = Substrate(shard)
    merge_versions(store, mine.id, theirs.id, prefer="other")  # mine now speaks for theirs
    store.save()
    _write(tree / "guide.md", GUIDE.replace("Run the installer.", "Run the new installer."))
    report = ingest_path(Substrate(shard), tree)
    merged = Substrate(shard).get(mine.id)
    assert merged is not None and merged.scope == "public" and "Fetch" in merged.text
    assert mine.id not in report.ids and _outcomes_add_up(report)


def test_an_ingest_leaves_an_item_merged_into_another_files_where_it_is(
    tree: Path, shard: Path
) -> None:
    _write(tree / "setup.md", "# Setup\n\nThe better install text.\n")
    ingest_path(Substrate(shard), tree)
    store = Substrate(shard)
    [install] = [i for i in store.iter_items() if i.text.startswith("# Install")]
    [setup] = [i for i in store.iter_items() if i.text.startswith("# Setup")]
    merge_versions(store, install.id, setup.id, prefer="other")  # setup's text, and origin
    store.save()
    edited = GUIDE.replace("Run the installer.", "Run the new installer.")
    for guide in (edited, edited.replace("Download the archive.", "Download it.")):
        _write(tree / "guide.md", guide)  # then its section changes: it is not the file's
        report = ingest_path(Substrate(shard), tree)
        merged = Substrate(shard).get(install.id)
        assert merged is not None and "better install text" in merged.text
        assert install.id not in report.ids and _outcomes_add_up(report)


def test_an_item_a_merge_kept_the_text_of_keeps_its_versions_when_its_file_changes(
    tree: Path, shard: Path
) -> None:
    _write(tree / "notes.txt", "first paragraph\n\nsecond paragraph\n")
    ingest_path(Substrate(shard), tree)
    store = Substrate(shard)
    texts = {item.text: item.id for item in store.iter_items()}
    kept, other = texts["first paragraph"], texts["second paragraph"]
    merge_versions(store, kept, other, prefer="keep")
    store.save()
    _write(tree / "notes.txt", "first paragraph\n\nsecond paragraph\n\nthird paragraph\n")
    ingest_path(Substrate(shard), tree)  # another part of the file changed: not the kept one
    item = Substrate(shard).get(kept)
    assert item is not None and item.provenance["version"] == 1
    assert [entry["merged_from"] for entry in item.provenance["version_history"]] == [other]


def test_a_file_whose_every_item_was_merged_away_is_unchanged_not_empty(
    tree: Path, shard: Path
) -> None:
    _write(tree / "a.md", "only paragraph of a\n")
    _write(tree / "b.md", "better text\n")
    ingest_path(Substrate(shard), tree)
    store = Substrate(shard)
    texts = {item.text: item.id for item in store.iter_items()}
    merge_versions(store, texts["only paragraph of a"], texts["better text"], prefer="other")
    store.save()
    for text in ("only paragraph of a\n\nsecond paragraph\n", "only paragraph of a\n"):
        _write(tree / "a.md", text)  # an edit, then undone: its one item is the merged one
        told = {f.source: (f.status, f.reason) for f in ingest_path(Substrate(shard), tree).files}
        assert told["a.md"][1] == ""  # it has content: not "no content"
    again = ingest_path(Substrate(shard), tree)
    assert not again.files and "a.md" in again.unchanged
    assert Substrate(shard).get(texts["only paragraph of a"]).text == "better text"


@pytest.mark.parametrize("stream", ["first words\n\nsecond words\n", "its only words\n"])
def test_an_ingest_leaves_an_item_a_stream_gave_merged_away_where_it_is(
    shard: Path, stream: str
) -> None:
    from substrate.ingest import ingest_text

    ingest_text(Substrate(shard), stream, source="notes")  # its only item: merged away whole
    ingest_text(Substrate(shard), "better words\n", source="other")
    store = Substrate(shard)
    texts = {item.text: item.id for item in store.iter_items()}
    first = texts[stream.split("\n", 1)[0]]
    merge_versions(store, first, texts["better words"], prefer="other")
    store.save()
    ingest_text(Substrate(shard), stream + "\nadded words\n", source="notes")
    merged = Substrate(shard).get(first)
    assert merged is not None and merged.text == "better words"


def test_another_teams_item_never_tells_of_secrets_in_this_teams_report(
    tree: Path, shard: Path
) -> None:
    theirs_tree = tree.parent / "theirs"
    theirs_tree.mkdir()
    _write(theirs_tree / "x.md", "# Creds\n\npassword: Summer2024!\n")
    ingest_path(Substrate(shard), tree)
    ingest_path(Substrate(shard), theirs_tree, scope="t2", redact=False)
    store = Substrate(shard)
    [mine] = [i for i in store.iter_items() if i.text.startswith("# Install")]
    [theirs] = [i for i in store.iter_items() if i.scope == "t2"]
    publish(store, [mine.id], to="t2")
    store.save()
    store = Substrate(shard)
    merge_versions(store, mine.id, theirs.id, prefer="other")  # mine holds their secret
    store.save()
    _write(tree / "guide.md", GUIDE + "\n## Login\n\npassword: Winter2025!\n")  # one here
    report = ingest_path(Substrate(shard), tree)
    assert report.redactions == 1 and not report.notices  # nothing said of t2's items


def test_the_prune_of_an_item_published_then_compacted_meanwhile_is_taken_back(
    tree: Path, shard: Path, another_run_first: Any
) -> None:
    _write(tree / "one.txt", "its only paragraph\n")
    ingest_path(Substrate(shard), tree)
    [only] = [i for i in Substrate(shard).iter_items() if i.text == "its only paragraph"]
    (tree / "one.txt").unlink()
    _write(tree / "guide.md", GUIDE + "\nEdited.\n")  # a save for the other run to precede

    def published_then_compacted() -> None:
        store = Substrate(shard)
        publish(store, [only.id], to="public")
        store.save()
        Substrate(shard).compact()

    another_run_first(published_then_compacted)
    report = ingest_path(Substrate(shard), tree, jobs=1)
    assert report.files_removed == 0 and _outcomes_add_up(report)  # nothing of it removed
    kept = Substrate(shard).get(only.id)
    assert kept is not None and kept.scope == "public"


def test_of_two_runs_on_one_folder_at_once_the_later_replaces_both(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch, another_run_first: Any
) -> None:
    ingest_path(Substrate(shard), tree)
    before = {i.id for i in Substrate(shard).iter_items()}
    note = sorted(tree.rglob("*.md"))[0]

    def edited_again() -> None:  # read after this run read the note, saved before it saves
        note.write_text("# Note\n\nThe second edit.\n")
        ingest_path(Substrate(shard), tree)

    note.write_text("# Note\n\nThe first edit.\n")
    another_run_first(edited_again)
    ingest_path(Substrate(shard), tree)
    new = [i.text for i in Substrate(shard).iter_items() if i.id not in before]
    assert len(new) == 1 and new[0].endswith("The first edit.")  # saved last: one version
    monkeypatch.undo()
    ingest_path(Substrate(shard), tree)  # the file changed since this run read it
    new = [i.text for i in Substrate(shard).iter_items() if i.id not in before]
    assert len(new) == 1 and new[0].endswith("The second edit.")


@pytest.mark.parametrize("then_published", [False, True])
def test_items_another_run_gave_a_file_meanwhile_go_with_it_unless_published(
    tree: Path, shard: Path, another_run_first: Any, then_published: bool
) -> None:
    ingest_path(Substrate(shard), tree)
    mac, windows = GUIDE + "\n## Mac\n\nDrag it.\n", GUIDE + "\n## Windows\n\nClick it.\n"
    _write(tree / "guide.md", mac)

    def other_version_first() -> None:  # saved after this run read the guide
        _write(tree / "guide.md", windows)
        ingest_path(Substrate(shard), tree)
        if then_published:
            store = Substrate(shard)
            publish(store, [i.id for i in store.iter_items() if "Windows" in i.text], to="public")
            store.save()
        _write(tree / "guide.md", mac)

    another_run_first(other_version_first)
    report = ingest_path(Substrate(shard), tree, jobs=1)
    [guide] = [f for f in report.files if f.source == "guide.md"]
    assert _outcomes_add_up(report)
    windows_items = [i for i in Substrate(shard).iter_items() if "Windows" in i.text]
    if then_published:  # left where it went
        assert report.items_removed == 0 and [i.scope for i in windows_items] == ["public"]
    else:
        assert guide.items_removed == report.items_removed == 1 and not windows_items


def test_a_save_in_the_middle_of_a_run_does_not_read_the_settings_again(
    tree: Path, shard: Path, another_run_first: Any
) -> None:
    # mixle.toml, edited while an ingest runs and broken meanwhile, stopped its next save
    ingest_path(Substrate(shard), tree)
    note = sorted(tree.rglob("*.md"))[0]
    note.write_text("# Note\n\nEdited.\n")

    def edit_settings() -> None:
        (shard / "mixle.toml").write_text("format = [unclosed\n")

    another_run_first(edit_settings)
    report = ingest_path(Substrate(shard), tree)
    assert report.files_updated == 1
    (shard / "mixle.toml").write_text("format = 1\n")
    assert any(i.text.endswith("Edited.") for i in Substrate(shard).iter_items())


class _CountingStream(io.RawIOBase):
    """A stream of ``size`` bytes of one note repeated, recording the most asked for at once."""

    def __init__(self, size: int) -> None:
        self.left, self.largest_read = size, 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        self.left -= n
        self.largest_read = max(self.largest_read, n)
        return (b"note " * (n // 5 + 1))[:n]


class _Trickle(io.RawIOBase):
    """``data`` given a few bytes a read, as an unbuffered pipe gives what was written."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        part, self.data = self.data[: min(n, 7)], self.data[min(n, 7) :]
        return part


def test_a_stream_is_read_no_further_than_the_size_limit(shard: Path) -> None:
    from substrate.ingest import ingest_text

    stream = _CountingStream(30_000_000)
    tracemalloc.start()
    try:
        report = ingest_text(Substrate(shard), stream, max_file_size=1000)  # type: ignore[arg-type]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert stream.largest_read == 1001 and peak < 1_000_000  # an endless one would end too
    [outcome] = report.files  # failed: a stream cut short is lost, not skipped as a file is
    assert outcome.status == "failed" and "(more than 1000 bytes)" in outcome.reason
    assert not report.ok
    small = ingest_text(Substrate(shard), _CountingStream(40))  # type: ignore[arg-type]
    # a pipe read unbuffered gives what has been written so far: read again to the end
    text = b"first part, then a second part that must not be lost\n"
    trickle = ingest_text(Substrate(shard), _Trickle(text))  # type: ignore[arg-type]
    assert trickle.items_added == 1
    assert ingest_text(Substrate(shard), text).items_added == 0  # the whole of it, stored
    by_bytes = ingest_text(Substrate(shard), b"note " * 8)
    assert small.items_added == 1 and by_bytes.items_added == 0  # the same source, by content


@pytest.mark.parametrize("empty", ["", " \n\n"])
def test_an_empty_stream_keeps_what_its_source_gave_before(shard: Path, empty: str) -> None:
    # "gen_notes | mixle ingest - --source notes" after gen_notes failed removed the notes
    from substrate.ingest import ingest_text

    kept = ingest_text(Substrate(shard), "important meeting notes", source="meeting").ids
    report = ingest_text(Substrate(shard), empty, source="meeting")
    assert report.files_failed == 1 and report.items_removed == 0
    assert "empty input" in report.files[0].reason
    assert [item.id for item in Substrate(shard).iter_items()] == kept
    fresh = ingest_text(Substrate(shard), empty, source="new")  # nothing to keep: skipped
    assert fresh.files_skipped == 1 and fresh.files_failed == 0


@pytest.mark.parametrize("content", ["", "\n\n", " \r\n\t\n"])
def test_an_empty_json_file_is_skipped_as_empty_files_of_other_formats_are(
    tree: Path, shard: Path, content: str
) -> None:
    (tree / "art").mkdir()
    for name in ("empty.json", "art/manifest.json", "empty.md", "empty.jsonl"):
        _write(tree / name, content)
    report = ingest_path(Substrate(shard), tree, prune=False)
    assert report.ok and report.files_failed == 0
    got = {(f.source, f.status, f.reason) for f in report.files if f.source.startswith(("e", "a"))}
    assert got == {
        (name, "skipped", "no content")
        for name in ("empty.json", "art/manifest.json", "empty.md", "empty.jsonl")
    }


def test_ingest_artifacts_skips_an_empty_manifest(tmp_path: Path) -> None:
    (tmp_path / "reg" / "m1").mkdir(parents=True)
    (tmp_path / "reg" / "m1" / "manifest.json").write_text("\n")
    report = IngestReport()
    ingest_artifacts(Substrate(), tmp_path / "reg", report=report)
    assert report.ok
    assert [(f.status, f.reason) for f in report.files] == [("skipped", "no content")]


@pytest.mark.parametrize("inner_first", [True, False])
def test_nested_roots_of_one_run_agree_on_a_folder_found_empty(
    tree: Path, shard: Path, inner_first: bool
) -> None:
    ingest_path(Substrate(shard), tree)
    for path in (tree / "sub").iterdir():
        path.unlink()  # its only file: the inner root now holds none
    report = IngestReport()
    roots = [tree / "sub", tree] if inner_first else [tree, tree / "sub"]
    for root in roots:
        ingest_path(Substrate(shard), root, report=report)
    if inner_first:  # the inner root keeps them, and the outer one leaves them kept
        assert report.items_removed == 0 and not report.ok
    else:  # the outer root found files, and pruned the inner one's as it prunes any
        assert report.items_removed > 0 and report.ok


@pytest.mark.parametrize("shard_exists", [False, True])
def test_a_run_overtaken_by_another_over_the_same_tree_writes_nothing_again(
    tmp_path: Path, shard_exists: bool
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(5):
        (src / f"n{i}.md").write_text(f"# Note {i}\n\nBody of note {i}.\n")
    token = "ghp_" + "x7Kq9mZ2pL4vR8sT1wY6nB3cF5hJ0dG2aE4u"
    (src / "n0.md").write_text(f"# Note 0\n\nBody of note 0. Token {token}\n")
    shard = tmp_path / "shard"
    if shard_exists:
        first = Substrate(shard)
        first.add("text", "already here")
        first.save()
    overtaking: list[IngestReport] = []

    def other_run_first(*_: int) -> None:  # the other run starts and ends while this one reads
        if not overtaking:
            overtaking.append(ingest_path(Substrate(shard), src))

    report = ingest_path(Substrate(shard), src, progress=other_run_first)
    assert overtaking[0].items_added == 5
    assert (report.items_added, report.items_removed, report.ids) == (0, 0, [])
    assert report.files_unchanged == 5 and report.files_scanned == 5
    assert overtaking[0].redactions == 1 and report.redactions == 0  # counted where stored
    assert len(Substrate(shard)) == 5 + shard_exists
    lines = (shard / "items.jsonl").read_text().count("Body of note")
    assert lines == 5  # each item written once, by the run that got there first


def test_a_file_another_run_stored_after_the_walk_passed_its_folder_is_not_pruned(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch, another_run_first: Any
) -> None:
    ingest_path(Substrate(shard), tree)
    _write(tree / "guide.md", GUIDE + "\nEdited.\n")
    _write(tree / "notes.txt", "first note, edited\n")
    monkeypatch.setattr("substrate.ingest.session.BATCH_FILES", 1)  # a save after each file
    new = tree / "new.md"

    def another_run() -> None:  # the walk listed the folder before the file was there
        _write(new, "# New\n\nA note written meanwhile.\n")
        ingest_path(Substrate(shard), new)

    another_run_first(another_run)
    report = ingest_path(Substrate(shard), tree)
    assert report.files_updated == 2 and report.files_removed == 0, report.files
    monkeypatch.undo()
    assert any(i.text.endswith("written meanwhile.") for i in Substrate(shard).iter_items())
    again = ingest_path(Substrate(shard), tree)
    assert again.files_unchanged == 4 and again.items_added == again.items_removed == 0


def test_the_prune_of_a_file_another_run_stored_before_the_last_save_is_taken_back(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.ingest.session import IngestSession

    ingest_path(Substrate(shard), tree)
    gone = tree / "notes.txt"
    gone.unlink()  # pruned by this run, restored and stored by another before it saves
    real = IngestSession.finish
    runs = [lambda: ingest_path(Substrate(shard), gone)]

    def restored_first(self: IngestSession, **kwargs: Any) -> None:
        if runs:
            _write(gone, "first note\n\nsecond note, restored\n")
            runs.pop()()
        real(self, **kwargs)

    monkeypatch.setattr(IngestSession, "finish", restored_first)
    report = ingest_path(Substrate(shard), tree)
    monkeypatch.undo()
    assert report.files_removed == 0 and report.items_removed == 0, report.files
    assert any(i.text.endswith("restored") for i in Substrate(shard).iter_items())
    again = ingest_path(Substrate(shard), tree)
    assert again.items_added == again.items_removed == 0, again.files


def test_a_compaction_during_an_ingest_keeps_the_source_cache(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch, another_run_first: Any
) -> None:
    ingest_path(Substrate(shard), tree)
    store = Substrate(shard)
    notes = [i.id for i in store.iter_items() if i.provenance.get("source") == "notes.txt"]
    for item_id in notes:  # only the cache remembers they were removed
        store.remove(item_id)
    store.save()
    _write(tree / "guide.md", GUIDE + "\nEdited.\n")
    another_run_first(lambda: Substrate(shard).compact())
    ingest_path(Substrate(shard), tree)
    monkeypatch.undo()
    assert (shard / "index" / STATS_FILE).exists()  # the compaction's, not deleted after it
    # the edited file, saved after the compaction, is known by the items it gave: it was read
    # again, its items written once more (the log grew by a copy of every file that run saved)
    report = ingest_path(Substrate(shard), tree)
    assert report.items_added == report.items_removed == report.items_rewritten == 0
    assert report.files_unchanged == 3, report.files
    assert not set(notes) & {i.id for i in Substrate(shard).iter_items()}


def test_files_read_again_only_for_other_options_are_counted(tree: Path, shard: Path) -> None:
    ingest_path(Substrate(shard), tree)
    _write(tree / "notes.txt", "first note\n\nan edited note\n")
    tagged = ingest_path(Substrate(shard), tree, tags=["work"])
    # guide.md and data.jsonl kept their size and time; notes.txt was edited as well
    assert tagged.files_updated == 3 and tagged.files_reoptioned == 2
    assert tagged.as_dict()["files_reoptioned"] == 2
    again = ingest_path(Substrate(shard), tree, tags=["work"])
    assert again.files_unchanged == 3 and again.files_reoptioned == 0
    assert ingest_path(Substrate(shard), tree, tags=["work"], rehash=True).files_reoptioned == 0


def test_an_unchanged_tree_refuses_a_log_line_damaged_by_hand_and_a_mended_log_is_trusted_again(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing to write, the ingest reads no line of the log: only its modification time,
    # other than the last writer noted, tells of the edit (a byte of the same length changed).
    from substrate.errors import CorruptShardError
    from substrate.logend import read_note

    ingest_path(Substrate(shard), tree)
    log_path = shard / "items.jsonl"
    sound = log_path.read_bytes()
    log_path.write_bytes(_damaged(sound))
    with pytest.raises(CorruptShardError, match=r"items\.jsonl:2"):
        ingest_path(Substrate(shard), tree)

    log_path.write_bytes(sound)  # mended: sound, but written since the note
    assert ingest_path(Substrate(shard), tree).files_unchanged == 3
    note = read_note(shard / "index" / "log-end.json")
    assert note is not None and note.mtime_ns == log_path.stat().st_mtime_ns

    def unread(*args: Any) -> Any:
        raise AssertionError("a log as its last writer noted it was parsed")

    monkeypatch.setattr("substrate.logend._refuse_corrupt_lines", unread)
    assert ingest_path(Substrate(shard), tree).files_unchanged == 3


def test_a_log_without_a_header_is_converted_by_an_ingest_not_noted_as_one_that_lost_it(
    tree: Path, shard: Path
) -> None:
    # only a log with a header gets a note: one noted for it would say it lost its header,
    # and every later write would be refused
    import orjson

    shard.mkdir()
    old = [SubstrateItem("text", f"legacy {n}").to_json() for n in range(2)]
    (shard / "items.jsonl").write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in old))
    assert ingest_path(Substrate(shard), tree).files_added == 3
    (tree / "notes.txt").write_text("first note\n\nsecond note\n\nthird note\n")
    _settle(tree / "notes.txt")
    assert ingest_path(Substrate(shard), tree).files_updated == 1
    store = Substrate(shard)
    store.add("text", "added after")
    assert sum(1 for i in Substrate(shard).iter_items() if i.text.startswith("legacy")) == 2


def test_an_edit_while_the_log_is_parsed_is_not_noted_as_sound(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the note's time is the one the parse began at: an edit of the same length made during
    # it leaves the log unlike the note, and the next ingest parses it again
    from substrate import logend
    from substrate.errors import CorruptShardError

    ingest_path(Substrate(shard), tree)
    log_path = shard / "items.jsonl"
    log_path.write_bytes(log_path.read_bytes())  # written since the note: parsed next time
    real = logend._refuse_corrupt_lines

    def edited_meanwhile(*args: Any) -> None:
        real(*args)
        time.sleep(0.01)  # a later modification time, whatever the file system's step
        log_path.write_bytes(_damaged(log_path.read_bytes()))

    with monkeypatch.context() as patch:
        patch.setattr(logend, "_refuse_corrupt_lines", edited_meanwhile)
        ingest_path(Substrate(shard), tree)
    with pytest.raises(CorruptShardError):
        ingest_path(Substrate(shard), tree)


def _damaged(log: bytes) -> bytes:
    """``log`` with a byte of its first item's line changed, keeping its length: that line
    is no JSON any more."""
    damaged = bytearray(log)
    damaged[log.index(b"\n") + 5] = ord("#")
    return bytes(damaged)


def test_the_log_is_checked_under_the_writer_lock(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # else a compaction could replace the log between the reads of its header, its tail and
    # the note, and the check would take the mix for committed lines gone missing
    import fcntl

    from substrate.log import LogFile

    ingest_path(Substrate(shard), tree)
    real = LogFile.header
    held: list[bool] = []

    def header(self: LogFile, *args: Any) -> Any:
        with open(shard / ".lock", "rb") as other:  # another open file: as another process
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held.append(False)
                fcntl.flock(other, fcntl.LOCK_UN)
            except BlockingIOError:
                held.append(True)
        return real(self, *args)

    monkeypatch.setattr(LogFile, "header", header)
    LogFile(shard).refuse_damage_before_a_write()
    assert held and all(held)


def _lock_not_taken(*args: Any, **kwargs: Any) -> Any:
    """``shard_lock`` for a lock another process holds (or one that cannot be opened)."""
    from substrate.locking import LockBusy

    raise LockBusy("held by another writer")


@pytest.mark.parametrize("why", ["another writer holds the lock", "the lock cannot be taken"])
def test_the_log_is_checked_without_the_lock_when_it_cannot_be_taken(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch, why: str
) -> None:
    # a writer at work, or a shard this user may only read: a damaged line is refused all
    # the same, and nothing is noted
    import fcntl

    from substrate.errors import CorruptShardError

    ingest_path(Substrate(shard), tree)
    log_path = shard / "items.jsonl"
    log_path.write_bytes(_damaged(log_path.read_bytes()))
    note = (shard / "index" / "log-end.json").read_bytes()
    with open(shard / ".lock", "rb") as other:
        if why == "another writer holds the lock":
            fcntl.flock(other, fcntl.LOCK_EX)  # another open file: as another process
        else:
            monkeypatch.setattr("substrate.log.shard_lock", _lock_not_taken)
        with pytest.raises(CorruptShardError, match=r"items\.jsonl:2"):
            ingest_path(Substrate(shard), tree)
    assert (shard / "index" / "log-end.json").read_bytes() == note


def test_a_log_replaced_while_it_is_checked_without_the_lock_is_left_to_the_next_check(
    tree: Path, shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a compaction (which holds the lock) swapping the log between the reads would make the
    # check see another log's header beside this one's tail: no refusal for that
    from substrate import log as log_module
    from substrate.errors import LostCommitsError

    ingest_path(Substrate(shard), tree)
    log_path = shard / "items.jsonl"
    generation = log_module.LogFile(shard).generation()
    compacted = [False]

    def refused(*args: Any, **kwargs: Any) -> Any:
        if compacted[0]:  # a new generation meanwhile, as a compaction gives
            renewed = log_path.read_bytes().replace(generation.encode(), b"f" * len(generation))
            log_path.write_bytes(renewed)
        raise LostCommitsError("what was read looks like a log that lost lines")

    monkeypatch.setattr(log_module, "shard_lock", _lock_not_taken)
    monkeypatch.setattr(log_module, "refuse_lost_commits", refused)
    with pytest.raises(LostCommitsError):  # the same log all along: the refusal stands
        log_module.LogFile(shard).refuse_damage_before_a_write()
    compacted[0] = True
    log_module.LogFile(shard).refuse_damage_before_a_write()  # replaced: no refusal


def test_a_file_named_where_a_folder_was_and_the_reverse_replace_its_items(
    tmp_path: Path,
) -> None:
    # ingested by name, a file replaced by a folder of its name (or a folder by a file) kept
    # the items of what was there before, with nothing said
    thing = tmp_path / "thing.txt"
    thing.write_text("gamma\n")
    store = Substrate()
    ingest_path(store, thing)
    thing.unlink()
    thing.mkdir()
    (thing / "inner.txt").write_text("delta\n")
    report = ingest_path(store, thing)
    assert [i.text for i in store.iter_items()] == ["delta"] and report.items_removed == 1
    shutil.rmtree(thing)
    thing.write_text("epsilon\n")
    report = ingest_path(store, thing)
    assert [i.text for i in store.iter_items()] == ["epsilon"] and report.items_removed == 1
    thing.unlink()
    thing.mkdir()
    (thing / "inner.txt").write_text("zeta\n")
    ingest_path(store, thing, prune=False)  # --no-prune keeps what was there
    assert sorted(i.text for i in store.iter_items()) == ["epsilon", "zeta"]
