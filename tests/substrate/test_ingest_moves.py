"""A file moved or renamed, then ingested where it is now: the shard holds its content once."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from substrate.ingest import IngestReport, disklook, ingest_path
from substrate.ingest import session as ingest_session
from substrate.spaces import publish
from substrate.store import Substrate

GUIDE = "# Install\n\nDownload the archive.\n\n## Linux\n\nRun the installer.\n"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "sub").mkdir(parents=True)
    (root / "guide.md").write_text(GUIDE)
    (root / "todo.txt").write_text("buy milk\n")
    (root / "sub" / "plan.md").write_text("# Plan\n\nShip it on Friday.\n")
    return root


def _texts(shard: Path) -> Counter[str]:
    return Counter(item.text for item in Substrate(shard).iter_items())


def _ingested_then_moved(notes: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A shard of ``notes``, which is then renamed: the shard, and the folder's new path."""
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), notes)
    archive = tmp_path / "archive"
    notes.rename(archive)
    return shard, archive


def _moved(report) -> list[tuple[str, str, int]]:  # type: ignore[no-untyped-def]
    return [(f.source, f.reason, f.items_removed) for f in report.files if f.status == "removed"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_folder_moved_and_ingested_under_its_new_name_replaces_its_old_items(
    notes: Path, tmp_path: Path, jobs: int
) -> None:
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), notes)
    before = _texts(shard)
    archive = tmp_path / "archive"
    notes.rename(archive)
    report = ingest_path(Substrate(shard), archive, jobs=jobs)
    assert report.ok and report.files_added == 3 and report.files_moved == 3
    assert sorted(_moved(report)) == [
        (str(notes / "guide.md"), "moved to guide.md", 2),
        (str(notes / "sub" / "plan.md"), "moved to sub/plan.md", 1),
        (str(notes / "todo.txt"), "moved to todo.txt", 1),
    ]
    assert report.items_removed == report.items_added == 4
    assert _texts(shard) == before  # each text once, not twice
    paths = {item.provenance["path"] for item in Substrate(shard).iter_items()}
    assert all(path.startswith(str(archive) + os.sep) for path in paths)
    again = ingest_path(Substrate(shard), archive)
    assert again.files_unchanged == 3 and not again.files  # the old names are forgotten


def test_a_file_renamed_in_its_folder_is_told_moved_once(notes: Path, tmp_path: Path) -> None:
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), notes)
    (notes / "guide.md").rename(notes / "sub" / "install.md")
    report = ingest_path(Substrate(shard), notes)
    assert _moved(report) == [("guide.md", "moved to sub/install.md", 2)]
    assert (report.files_added, report.files_removed, report.files_moved) == (1, 1, 1)
    assert report.items_removed == 2 and len(Substrate(shard)) == 4


def test_a_copy_removes_nothing_while_the_original_is_there(notes: Path, tmp_path: Path) -> None:
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), notes)
    copy = tmp_path / "copy"
    shutil.copytree(notes, copy)
    report = ingest_path(Substrate(shard), copy)
    assert report.files_added == 3 and report.files_removed == 0
    assert set(_texts(shard).values()) == {2}


def test_of_two_copies_of_a_gone_file_one_takes_its_place(notes: Path, tmp_path: Path) -> None:
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), notes / "todo.txt")
    (notes / "todo.txt").rename(notes / "a.txt")
    shutil.copy(notes / "a.txt", notes / "b.txt")
    report = ingest_path(Substrate(shard), notes)
    assert _moved(report) == [("todo.txt", "moved to a.txt", 1)]
    assert _texts(shard)["buy milk"] == 2  # a.txt and b.txt: both there now


def test_no_prune_keeps_the_items_of_a_moved_file(notes: Path, tmp_path: Path) -> None:
    shard, archive = _ingested_then_moved(notes, tmp_path)
    report = ingest_path(Substrate(shard), archive, prune=False)
    assert report.files_added == 3 and report.files_removed == 0
    assert set(_texts(shard).values()) == {2}


def test_a_changed_file_is_no_move(notes: Path, tmp_path: Path) -> None:
    shard, archive = _ingested_then_moved(notes, tmp_path)
    (archive / "todo.txt").write_text("buy milk and bread\n")
    report = ingest_path(Substrate(shard), archive)
    assert report.files_moved == 2 and _texts(shard)["buy milk"] == 1


def test_another_scopes_file_is_never_removed(notes: Path, tmp_path: Path) -> None:
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), notes, scope="sales")
    archive = tmp_path / "archive"
    notes.rename(archive)
    report = ingest_path(Substrate(shard), archive, scope="research")
    assert report.files_removed == 0
    scopes = Counter(item.scope for item in Substrate(shard).iter_items())
    assert scopes == {"sales": 4, "research": 4}


def test_a_file_that_cannot_be_looked_at_is_not_taken_as_gone(
    notes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shard, archive = _ingested_then_moved(notes, tmp_path)
    real_lstat = os.lstat

    def lstat(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).startswith(str(notes)):  # as in a folder this user may not enter
            raise PermissionError(13, "Permission denied", str(path))
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(disklook.os, "lstat", lstat)
    report = ingest_path(Substrate(shard), archive)
    assert report.files_added == 3 and report.files_removed == 0


def _ingested_and_published(shard: Path, notes: Path, source: str, scope: str) -> Any:
    """The item of ``source`` once ``notes`` is ingested into ``shard``, published to
    ``scope``."""
    ingest_path(Substrate(shard), notes)
    store = Substrate(shard)
    [item] = [i for i in store.iter_items() if i.provenance["source"] == source][:1]
    publish(store, [item.id], to=scope)
    store.save()
    return item


def test_a_published_item_of_a_moved_file_stays_where_it_was_published(
    notes: Path, tmp_path: Path
) -> None:
    shard = tmp_path / "shard"
    plan = _ingested_and_published(shard, notes, "sub/plan.md", "public")
    archive = tmp_path / "archive"
    notes.rename(archive)
    report = ingest_path(Substrate(shard), archive)
    assert report.files_moved == 2 and report.files_added == 3
    kept = Substrate(shard).get(plan.id)
    assert kept is not None and kept.scope == "public"
    # said, as an edit of its file says it: its text is a new item where it moved to
    said = f"item {plan.id}, published into public, stays there; its file moved to sub/plan.md"
    assert [n.reason for n in report.notices if n.reason.startswith(said)]


def test_a_deleted_files_published_item_is_said_to_stay_once(notes: Path, tmp_path: Path) -> None:
    shard = tmp_path / "shard"
    plan = _ingested_and_published(shard, notes, "sub/plan.md", "public")
    (notes / "sub" / "plan.md").rename(tmp_path / "plan.md")  # away, and the others too:
    (notes / "todo.txt").rename(tmp_path / "todo.txt")  # the walk finds none (a drive not
    (notes / "guide.md").rename(tmp_path / "guide.md")  # mounted looks so): the others kept
    pruned = ingest_path(Substrate(shard), notes)
    said = f"item {plan.id}, published into public, stays there with the text of a file"
    assert [n.source for n in pruned.notices if n.reason.startswith(said)] == ["sub/plan.md"]
    assert pruned.items_removed == 0  # (and the published one stays, whatever is mounted)
    (notes / "guide.md").write_text(GUIDE)  # back, all but the published one's: said once
    assert not ingest_path(Substrate(shard), notes).notices
    # a file holding a secret too, which keeps no hash
    secret = notes / "vault.md"
    secret.write_text("# Vault\n\npassword: Tr0ub4dor&3xQ9\n")
    vault = _ingested_and_published(shard, notes, "vault.md", "public")
    secret.unlink()
    said = f"item {vault.id}, published into public, stays there with the text of a file"
    told = ingest_path(Substrate(shard), notes).notices
    assert [(n.source, n.reason.startswith(said)) for n in told] == [("vault.md", True)]
    assert not ingest_path(Substrate(shard), notes).notices
    # another team's scope is not spoken of
    other = tmp_path / "other"
    (notes / "keep.md").write_text("# Keep\n")  # (a walk that finds none removes nothing)
    _ingested_and_published(other, notes, "guide.md", "board")
    (notes / "guide.md").unlink()
    hidden = ingest_path(Substrate(other), notes)  # (local reads local and public only)
    assert hidden.files_removed == 1 and not [n for n in hidden.notices if "board" in n.reason]


def test_a_move_is_saved_in_one_append(
    notes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the new file and the removal of the gone one: never one saved without the other, as a
    # rerun would find the new file unchanged and leave the gone one's items for ever
    shard, archive = _ingested_then_moved(notes, tmp_path)
    monkeypatch.setattr(ingest_session, "BATCH_FILES", 1)  # a save after every file
    store = Substrate(shard)
    saved: list[tuple[int, int]] = []
    save_encoded = store.save_encoded

    def counted(lines, removed=(), **kwargs):  # type: ignore[no-untyped-def]
        saved.append((len(lines), len(list(removed))))
        return save_encoded(lines, removed, **kwargs)

    monkeypatch.setattr(store, "save_encoded", counted)
    report = ingest_path(store, archive)
    assert report.files_moved == 3 and sorted(saved) == [(1, 1), (1, 1), (2, 2)]


def test_a_ctrl_c_while_the_gone_file_is_looked_for_leaves_no_half_move(
    notes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shard, archive = _ingested_then_moved(notes, tmp_path)

    def interrupted(self, path):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    told = IngestReport()
    with monkeypatch.context() as patched:
        patched.setattr(disklook.DiskLook, "gone", interrupted)
        with pytest.raises(KeyboardInterrupt):
            ingest_path(Substrate(shard), archive, report=told)
    assert told.interrupted and not told.files and not told.items_added  # nothing said saved
    # the new file was not saved without the removal: the rerun still sees a move
    rerun = ingest_path(Substrate(shard), archive)
    assert rerun.files_moved == 3 and set(_texts(shard).values()) == {1}


def test_a_file_whose_drive_is_not_mounted_is_not_taken_as_moved(tmp_path: Path) -> None:
    mount = tmp_path / "mnt" / "usb"
    (mount / "notes").mkdir(parents=True)
    (mount / "notes" / "plan.md").write_text("# Plan\n\nShip it on Friday.\n")
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), mount / "notes")
    copy = tmp_path / "desk" / "plan-copy.md"
    copy.parent.mkdir()
    shutil.copy(mount / "notes" / "plan.md", copy)
    shutil.rmtree(mount / "notes")  # unmounted: the mount point is there, empty
    report = ingest_path(Substrate(shard), copy)
    assert report.files_added == 1 and report.files_removed == 0
    assert len(Substrate(shard)) == 2


def test_a_file_whose_drive_took_its_mount_point_away_is_not_taken_as_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as udisks does in /media/USER, and macOS in /Volumes: the mount point goes with the drive
    volumes = tmp_path / "volumes"
    (volumes / "other").mkdir(parents=True)  # another drive, mounted
    (volumes / "usb" / "notes").mkdir(parents=True)
    (volumes / "usb" / "notes" / "plan.md").write_text("# Plan\n\nShip it on Friday.\n")
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), volumes / "usb" / "notes")
    copy = tmp_path / "desk" / "plan-copy.md"
    copy.parent.mkdir()
    shutil.copy(volumes / "usb" / "notes" / "plan.md", copy)
    shutil.rmtree(volumes / "usb")
    real_ismount = os.path.ismount
    monkeypatch.setattr(
        disklook.os.path,
        "ismount",
        lambda path: str(path) == str(volumes / "other") or real_ismount(path),
    )
    report = ingest_path(Substrate(shard), copy)
    assert report.files_added == 1 and report.files_removed == 0


def test_each_file_with_the_content_of_a_new_one_is_looked_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    boilerplate = tmp_path / "a"
    boilerplate.mkdir()
    for n in range(40):
        (boilerplate / f"{n}.txt").write_text("the same text in every file\n")
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), boilerplate)
    shutil.copytree(boilerplate, tmp_path / "b")
    looked_at: Counter[str] = Counter()
    real_lstat = os.lstat

    def lstat(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        looked_at[str(path)] += 1
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(disklook.os, "lstat", lstat)
    report = ingest_path(Substrate(shard), tmp_path / "b")
    assert report.files_added == 40 and report.files_removed == 0
    assert max(looked_at[str(boilerplate / f"{n}.txt")] for n in range(40)) == 1


def test_a_gone_file_is_named_from_the_folder_that_names_the_run(
    notes: Path, tmp_path: Path
) -> None:
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), notes)
    (notes / "sub" / "plan.md").rename(notes / "sub" / "plan-2.md")
    report = ingest_path(Substrate(shard), notes / "sub" / "plan-2.md")  # named from notes
    assert _moved(report) == [("sub/plan.md", "moved to sub/plan-2.md", 1)]


def test_a_removal_another_run_made_meanwhile_is_not_told_twice(
    notes: Path, tmp_path: Path, another_run_first: Any
) -> None:
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), notes)
    archive = tmp_path / "archive"
    archive.mkdir()
    (notes / "todo.txt").rename(archive / "todo.txt")
    others: list[int] = []
    # another run prunes notes
    another_run_first(lambda: others.append(ingest_path(Substrate(shard), notes).files_removed))
    report = ingest_path(Substrate(shard), archive)
    assert others == [1] and report.files_removed == report.items_removed == 0
    assert report.files_added == 1 and _texts(shard)["buy milk"] == 1


@pytest.mark.parametrize("meanwhile", ["removed", "published"])
def test_what_another_command_does_to_a_gone_files_items_meanwhile_stands(
    notes: Path, tmp_path: Path, another_run_first: Any, meanwhile: str
) -> None:
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), notes)
    [linux] = [i for i in Substrate(shard).iter_items() if i.text.startswith("## Linux")]
    (notes / "guide.md").unlink()

    def other_command() -> None:
        store = Substrate(shard)
        if meanwhile == "removed":
            store.remove(linux.id)
        else:
            publish(store, [linux.id], to="public")
        store.save()

    another_run_first(other_command)
    report = ingest_path(Substrate(shard), notes)
    kept = Substrate(shard).get(linux.id)
    if meanwhile == "removed":  # counted by the command that removed it, not again here
        assert report.files_removed == report.items_removed == 1 and kept is None
    else:  # stored meanwhile: left to the next run, which leaves the published item be
        assert report.files_removed == 0 and kept is not None and kept.scope == "public"
        again = ingest_path(Substrate(shard), notes)
        assert again.files_removed == again.items_removed == 1
        assert Substrate(shard).get(linux.id) is not None
    assert all(not i.text.startswith("# Install") for i in Substrate(shard).iter_items())


def test_a_file_known_empty_can_take_a_gone_files_place(notes: Path, tmp_path: Path) -> None:
    shard = tmp_path / "shard"
    archive = tmp_path / "archive"
    archive.mkdir()
    (archive / "b.md").write_text("")  # known to the shard, with no item
    ingest_path(Substrate(shard), notes)
    ingest_path(Substrate(shard), archive)
    os.replace(notes / "guide.md", archive / "b.md")
    report = ingest_path(Substrate(shard), archive)
    assert _moved(report) == [(str(notes / "guide.md"), "moved to b.md", 2)]
    assert set(_texts(shard).values()) == {1}


@pytest.mark.parametrize(
    "folder", ["/media", "/media/ann", "/mnt", "/mnt/ann", "/Volumes", "/run/user/1000/gvfs"]
)
def test_the_folders_mount_points_are_made_in_may_be_mount_places(
    folder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "note.md").write_text("a folder in use\n")
    assert not disklook._may_be_a_mount_place(str(tmp_path))

    def looked_into(path: str) -> None:
        raise AssertionError(f"{path} was looked into")

    monkeypatch.setattr(disklook.os, "scandir", looked_into)
    # unmounting may remove the mount point itself there: told by the name alone
    assert disklook._may_be_a_mount_place(folder)


def test_a_file_holding_a_secret_is_known_moved_by_its_look_and_its_items(
    notes: Path, tmp_path: Path
) -> None:
    """Such a file keeps no content hash (it would confirm a guess of the secret): it is
    known by its size, modification time and name, which a move keeps, and by its stored
    items reading as its new ones do. A file that only looks alike is no move."""
    secret = notes / "sub" / "ledger.md"
    secret.write_text("# Ledger\n\nKept seven years.\n\n## Access\n\npassword: Tr0ub4dor&3xQ9\n")
    lookalike = notes / "sub" / "other.md"
    lookalike.write_text("# Ledger\n\nKept eight years.\n\n## Access\n\npassword: Tr0ub4dor&3xQ8\n")
    for path in (secret, lookalike):
        os.utime(path, ns=(1_600_000_000_000_000_000,) * 2)
    shard, archive = _ingested_then_moved(notes, tmp_path)
    (archive / "sub" / "other.md").rename(archive / "sub" / "ledger-2.md")
    (archive / "sub" / "ledger.md").rename(archive / "ledger.md")  # moved up a folder
    report = ingest_path(Substrate(shard), archive)
    moved = {source: reason for source, reason, _ in _moved(report)}
    assert moved[str(notes / "sub" / "ledger.md")] == "moved to ledger.md"
    assert str(notes / "sub" / "other.md") not in moved  # renamed too: no look to know it by
    assert _texts(shard)["# Ledger\n\nKept seven years."] == 1
    # a file of the same name, size and time, but other content, takes no gone file's place
    shard2, archive2 = _ingested_then_moved(archive, tmp_path / "second")
    (archive2 / "ledger.md").write_text(
        "# Ledger\n\nKept seven YEARS.\n\n## Access\n\npassword: Tr0ub4dor&3xQ9\n"
    )
    os.utime(archive2 / "ledger.md", ns=(1_600_000_000_000_000_000,) * 2)
    again = ingest_path(Substrate(shard2), archive2)
    assert str(archive / "ledger.md") not in {source for source, _, _ in _moved(again)}


def _readme(folder: Path, text: str) -> None:
    folder.mkdir(parents=True)
    (folder / "README.md").write_text(text)
    os.utime(folder / "README.md", ns=(1_600_000_000_000_000_000,) * 2)


def test_files_holding_a_secret_of_one_look_each_take_their_own_place(tmp_path: Path) -> None:
    """Two READMEs of one size and time, moved together: one judged for the other first is
    not thereby lost for its own; and of two gone files that read alike (only their masked
    secrets differ), the one whose path ends as the new file's does is its old place."""
    notes = tmp_path / "notes"
    (notes / "keep").mkdir(parents=True)
    (notes / "keep" / "k.md").write_text("# Keep\n")
    _readme(notes / "a", "# Alpha\n\nKept seven years.\n\npassword: Tr0ub4dor&3xQ9\n")
    _readme(notes / "b", "# Bravo\n\nKept eight years.\n\npassword: Tr0ub4dor&3xQ8\n")
    _readme(notes / "p1", "# Deploy\n\nThe staging box.\n\npassword: Tr0ub4dor&3xQ1\n")
    _readme(notes / "p2", "# Deploy\n\nThe staging box.\n\npassword: Zq8#mK2vLp9wRs\n")
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), notes)
    archive = tmp_path / "archive"
    archive.mkdir()
    for old, new in (("a", "z"), ("b", "y"), ("p2", "p2")):
        (notes / old).rename(archive / new)
    report = ingest_path(Substrate(shard), archive)
    moved = sorted((source, reason) for source, reason, _ in _moved(report))
    assert moved == [
        (str(notes / "a" / "README.md"), "moved to z/README.md"),
        (str(notes / "b" / "README.md"), "moved to y/README.md"),
        (str(notes / "p2" / "README.md"), "moved to p2/README.md"),
    ]
    # a copy of a file still there takes no other's place, though it reads as that one too
    _readme(notes / "c", "# Deploy\n\nThe staging box.\n\npassword: Tr0ub4dor&3xQ3\n")
    _readme(notes / "d", "# Deploy\n\nThe staging box.\n\npassword: Tr0ub4dor&3xQ4\n")
    ingest_path(Substrate(shard), notes)
    shutil.copytree(notes / "c", archive / "c")  # (its time kept, as cp -a keeps it)
    (notes / "d").rename(archive / "d")
    again = sorted(
        (source, reason) for source, reason, _ in _moved(ingest_path(Substrate(shard), archive))
    )
    assert again == [(str(notes / "d" / "README.md"), "moved to d/README.md")]


def test_a_malformed_cache_entry_is_no_look_to_find_a_move_by(tmp_path: Path) -> None:
    """As elsewhere, an entry the cache cannot read is passed over, not a crash."""
    from substrate.ingest.sources import SourceCache, committed_watermark, scoped_key

    store = Substrate(tmp_path / "shard")
    cache = SourceCache(store, None, committed_watermark(store), "local")
    cache.states[scoped_key("/notes/a.md", "local")] = [None, 5, 0, ""]
    cache.states[scoped_key("/notes/b.md", "local")] = [12, 1_600_000_000_000_000_000, 0, ""]
    assert cache.hashless_files_by_look() == {
        (12, 1_600_000_000_000_000_000, "b.md"): ["/notes/b.md"]
    }
