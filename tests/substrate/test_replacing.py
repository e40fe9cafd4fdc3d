"""Writing a file through a temporary beside it: all of the new content, or none of it."""

from __future__ import annotations

import errno
import os
import stat
import threading
from pathlib import Path

import pytest

from substrate.errors import ShardError
from substrate.replacing import replace_file, replacing
from substrate.settings import Settings


def test_the_new_content_replaces_the_file_when_the_block_ends(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    target = folder / "data.bin"
    target.write_bytes(b"old")
    with replacing(target) as tmp:
        tmp.write_bytes(b"new")
        assert target.read_bytes() == b"old"  # nothing is seen before the block ends
    assert target.read_bytes() == b"new"
    assert [p.name for p in folder.iterdir()] == ["data.bin"]


@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left"), KeyboardInterrupt()])
def test_a_block_that_fails_leaves_the_file_and_no_temporary(
    tmp_path: Path, error: BaseException
) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    target = folder / "data.bin"
    target.write_bytes(b"old")
    with pytest.raises(type(error)), replacing(target) as tmp:
        tmp.write_bytes(b"half of the ne")
        raise error
    assert target.read_bytes() == b"old"
    assert [p.name for p in folder.iterdir()] == ["data.bin"]


def test_a_settings_write_on_a_full_disk_is_a_shard_error_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shard = tmp_path / "shard"
    shard.mkdir()
    settings = Settings.load(shard)
    settings.save()
    before = (shard / "mixle.toml").read_bytes()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("os.fsync", full)
    with pytest.raises(ShardError, match="No space left"):
        settings.save()
    assert (shard / "mixle.toml").read_bytes() == before
    assert sorted(p.name for p in shard.iterdir()) == ["mixle.toml"]


def test_the_sweep_of_one_files_temporaries_takes_its_name_literally(tmp_path: Path) -> None:
    from substrate.replacing import remove_abandoned_temporaries

    mine = tmp_path / ".base[1].json.99999999.tmp"  # a process long gone
    other = tmp_path / ".base1.json.99999999.tmp"  # what "[1]" would match as a pattern
    for leftover in (mine, other):
        leftover.write_text("half")
    remove_abandoned_temporaries(tmp_path, "base[1].json")
    assert not mine.exists() and other.exists()


def test_two_threads_replacing_one_file_at_once_each_write_their_own_copy(
    tmp_path: Path,
) -> None:
    target = tmp_path / "mixle.toml"
    both_open = threading.Barrier(2, timeout=10)
    errors: list[BaseException] = []

    def write(text: str) -> None:
        try:
            with replacing(target) as tmp:
                tmp.write_text(text)
                both_open.wait()  # the two temporary files exist side by side
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(t,)) for t in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert errors == [] and target.read_text() in ("a", "b")
    assert list(tmp_path.glob("*.tmp")) == []


def test_a_link_in_place_of_a_derived_file_is_replaced_not_written_through(
    tmp_path: Path,
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "offsets.bin"
    link.symlink_to(victim)
    with replacing(link) as tmp:
        tmp.write_bytes(b"derived")
    assert not link.is_symlink() and link.read_bytes() == b"derived"
    assert victim.read_text() == "precious"
    # what a user keeps elsewhere on purpose is written where the link points
    kept = tmp_path / "items.jsonl"
    kept.symlink_to(victim)
    with replacing(kept, follow=True) as tmp:
        tmp.write_bytes(b"log")
    assert kept.is_symlink() and victim.read_bytes() == b"log"
    # ... when it is a regular file: a link to a pipe or device is replaced itself
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    odd = tmp_path / "mixle.toml"
    odd.symlink_to(fifo)
    with replacing(odd, follow=True) as tmp:
        tmp.write_bytes(b"settings")
    assert not odd.is_symlink() and odd.read_bytes() == b"settings"


def test_a_file_written_in_place_never_goes_through_a_link(tmp_path: Path) -> None:
    from substrate.replacing import open_derived

    victim, nowhere = tmp_path / "victim.txt", tmp_path / "nowhere"
    victim.write_text("precious")
    for target in (victim, nowhere):  # a dangling link must not make a file where it points
        note = tmp_path / "note.json"
        note.unlink(missing_ok=True)
        note.symlink_to(target)
        fd = open_derived(note, os.O_WRONLY | os.O_CREAT)
        os.write(fd, b"note")
        os.close(fd)
        assert not note.is_symlink() and note.read_bytes() == b"note"
    assert victim.read_text() == "precious" and not nowhere.exists()


def test_a_shard_whose_derived_files_are_links_leaves_their_targets_alone(
    tmp_path: Path,
) -> None:
    # a shard from elsewhere (a cloned repository's .mixle) may point them at the user's files
    from substrate.ingest import ingest_path
    from substrate.store import Substrate

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nalpha words\n")
    shard = tmp_path / "shard"
    s = Substrate(shard)
    ingest_path(s, notes)
    s.search("alpha", 3)
    s.close()
    victims = {}
    for path in sorted((shard / "index").iterdir()):
        victim = tmp_path / f"victim-{path.name}"
        victim.write_text("precious")
        path.unlink()
        path.symlink_to(victim)
        victims[path.name] = victim
    (notes / "b.md").write_text("# B\n\nbeta words\n")
    s = Substrate(shard)
    ingest_path(s, notes)
    assert [item.text for item, _ in s.search("beta", 3)] == ["# B\n\nbeta words"]
    s.add("text", "gamma")
    s.save()
    s.close()
    assert all(victim.read_text() == "precious" for victim in victims.values()), victims
    (shard / ".lock").unlink()
    (shard / ".lock").symlink_to(tmp_path / "made-by-a-lock")
    s = Substrate(shard)
    s.add("text", "delta")
    with pytest.raises(ShardError, match="symbolic link"):
        s.save()
    assert not (tmp_path / "made-by-a-lock").exists()


def test_a_log_linked_to_nothing_or_a_linked_index_folder_is_refused(tmp_path: Path) -> None:
    from substrate.shard import init_shard
    from substrate.store import Substrate

    shard = tmp_path / "clone"
    shard.mkdir()
    (tmp_path / "kept").mkdir()
    (shard / "items.jsonl").symlink_to(tmp_path / "kept" / "items.jsonl")
    init_shard(shard)  # the link is left as it is, its target not made
    s = Substrate(shard)
    s.add("text", "hi")
    with pytest.raises(ShardError, match="not a regular file"):
        s.save()
    assert not (tmp_path / "kept" / "items.jsonl").exists()
    other = tmp_path / "other"
    s = Substrate(other)
    s.add("text", "x")
    s.save()
    s.close()
    (tmp_path / "folder").mkdir()
    for path in (other / "index").iterdir():
        path.rename(tmp_path / "folder" / path.name)
    (other / "index").rmdir()
    (other / "index").symlink_to(tmp_path / "folder")
    with pytest.raises(ShardError, match="index is a symbolic link"):
        Substrate(other).search("x", 1)


def test_a_folder_reached_through_a_link_is_locked(tmp_path: Path) -> None:
    from substrate.locking import exclusive_lock

    (tmp_path / "real").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    with exclusive_lock(tmp_path / "linked"):
        pass


def test_a_search_lock_that_is_a_link_is_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from substrate.store import Substrate

    s = Substrate(tmp_path / "shard")
    s.add("text", "alpha words")
    s.save()
    s.search("alpha", 1)
    s.close()
    index = tmp_path / "shard" / "index"
    lock = index / ".search.lock"
    lock.unlink()
    lock.symlink_to(tmp_path / "elsewhere")
    s = Substrate(tmp_path / "shard")
    s.add("text", "beta words")
    s.save()
    assert s.search("beta", 1)
    assert "without its lock" in caplog.text and not (tmp_path / "elsewhere").exists()


def _victim(tmp_path: Path) -> Path:
    """A file of the user's own elsewhere, that no write of mixle's may touch."""
    victim = tmp_path / "elsewhere" / "id_key"
    victim.parent.mkdir()
    victim.write_text("KEY\n")
    victim.chmod(0o600)
    return victim


def test_a_link_put_at_the_temporary_s_name_is_not_written_through(tmp_path: Path) -> None:
    """Another user who may write to the folder can foresee the name (it names the process):
    the write went to the file the link led to, and its mode was opened up after it."""
    from substrate.replacing import open_temporary, temporary_name

    target = tmp_path / "index" / "offsets.bin"
    target.parent.mkdir()
    target.write_bytes(b"old")
    target.chmod(0o666)
    victim = _victim(tmp_path)
    (target.parent / temporary_name(target.name)).symlink_to(victim)
    with replacing(target) as tmp, open_temporary(tmp) as fh:
        fh.write(b"new")
    assert target.read_bytes() == b"new" and not target.is_symlink()
    assert victim.read_text() == "KEY\n" and (victim.stat().st_mode & 0o777) == 0o600


def test_a_link_swapped_in_while_writing_fails_the_write_and_touches_nothing(
    tmp_path: Path,
) -> None:
    from substrate.replacing import open_temporary

    target = tmp_path / "catalog.bin"
    target.write_bytes(b"old")
    victim = _victim(tmp_path)
    with pytest.raises(OSError) as failed, replacing(target) as tmp:
        tmp.unlink()
        tmp.symlink_to(victim)
        with open_temporary(tmp) as fh:
            fh.write(b"new")
    assert failed.value.errno == errno.ELOOP
    assert victim.read_text() == "KEY\n" and target.read_bytes() == b"old"


def test_the_files_a_shard_makes_take_the_umask_s_bits(tmp_path: Path) -> None:
    """A team's share (umask 002): `.lock`, `items.jsonl` and `index/log-end.json` were made
    0644 whatever the umask, and the next member could not take the lock."""
    from substrate.store import Substrate

    old = os.umask(0o002)
    try:
        store = Substrate(tmp_path / "kb")
        store.add("text", "team note")
        store.save()
    finally:
        os.umask(old)
    for name in (".lock", "items.jsonl", "index/log-end.json", "mixle.toml"):
        assert (tmp_path / "kb" / name).stat().st_mode & 0o777 == 0o664, name


def test_a_shard_is_not_written_in_a_shared_folder_anyone_may_write_to(tmp_path: Path) -> None:
    """`--shard /dev/shm`, `/tmp` itself: another user may plant or replace the shard's files
    there before they are made (the index, the lock), and read what it holds. A folder of
    the user's own showing mode 777 (a FAT drive, Windows' drives under WSL) is theirs."""
    from substrate.store import Substrate

    shared = tmp_path / "shm"
    shared.mkdir()
    shared.chmod(0o1777)
    store = Substrate(shared)
    store.add("text", "a note")
    with pytest.raises(ShardError, match="may be written by anyone"):
        store.save()
    assert os.listdir(shared) == []
    own = tmp_path / "fat"
    own.mkdir()
    own.chmod(0o777)
    mine = Substrate(own)
    mine.add("text", "a note")
    mine.save()
    assert Substrate(own).all()
    if os.getuid() == 0:  # (only root can give a folder to another user)
        theirs = tmp_path / "theirs"
        theirs.mkdir()
        theirs.chmod(0o777)
        os.chown(theirs, 65534, 65534)  # a folder of mode 777 another user made: not sticky
        store = Substrate(theirs)
        store.add("text", "a note")
        with pytest.raises(ShardError, match="may be written by anyone"):
            store.save()
        assert os.listdir(theirs) == []


@pytest.mark.parametrize("name", ["items.jsonl", "mixle.toml"])
def test_a_shard_s_own_file_linked_to_a_file_of_another_name_is_refused(
    tmp_path: Path, name: str
) -> None:
    """A cloned repository's `.mixle/mixle.toml` linked to `~/.cargo/credentials.toml`: mixle
    read it as its settings, and `grant` wrote its approvers into it."""
    from substrate.store import Substrate

    victim = tmp_path / "elsewhere" / "credentials.toml"
    victim.parent.mkdir()
    victim.write_text('[registry]\ntoken = "abc"\n')
    shard = tmp_path / "clone" / ".mixle"
    shard.mkdir(parents=True)
    (shard / name).symlink_to(victim)
    with pytest.raises(ShardError, match=f"not to a file named {name}"):
        store = Substrate(shard)
        store.add("text", "hi")
        store.save()
    assert victim.read_text() == '[registry]\ntoken = "abc"\n'


@pytest.mark.parametrize("put", ["fifo", "hard link"])
def test_what_is_put_in_a_temporary_s_place_while_it_is_written_is_refused(
    tmp_path: Path, put: str
) -> None:
    """Made exclusively, then opened again by its name: a FIFO put there hung the write with
    the shard's lock held, and a hard link to a file had it written over and chmodded."""
    from substrate.replacing import open_temporary

    target = tmp_path / "pack.bin"
    target.write_bytes(b"old")
    victim = _victim(tmp_path)
    with pytest.raises(OSError), replacing(target) as tmp:
        tmp.unlink()
        if put == "fifo":
            os.mkfifo(tmp)
        else:
            os.link(victim, tmp)
        with open_temporary(tmp) as fh:
            fh.write(b"new")
    assert victim.read_text() == "KEY\n" and (victim.stat().st_mode & 0o777) == 0o600


def test_a_copy_to_another_file_system_is_not_written_through_a_link(tmp_path: Path) -> None:
    """A log kept on another file system is replaced by a copy made beside it, whose name
    another user may foresee there too."""
    from substrate.replacing import _replace_across_devices, temporary_name

    tmp = tmp_path / "new.jsonl"
    tmp.write_bytes(b"new log")
    kept = tmp_path / "elsewhere" / "items.jsonl"
    victim = _victim(tmp_path)  # (in "elsewhere" too)
    kept.write_bytes(b"old log")
    (kept.parent / temporary_name(kept.name)).symlink_to(victim)
    _replace_across_devices(tmp, str(kept))
    assert kept.read_bytes() == b"new log" and not kept.is_symlink()
    assert victim.read_text() == "KEY\n" and (victim.stat().st_mode & 0o777) == 0o600


def test_a_log_kept_in_a_shared_folder_through_a_link_is_refused(tmp_path: Path) -> None:
    """Its name is right, but another user may replace it there, or have made it."""
    from substrate.store import Substrate

    shared = tmp_path / "shm"
    shared.mkdir()
    shared.chmod(0o1777)
    (shared / "items.jsonl").write_bytes(b"")
    shard = tmp_path / "clone"
    shard.mkdir()
    (shard / "items.jsonl").symlink_to(shared / "items.jsonl")
    with pytest.raises(ShardError, match="may be written by anyone"):
        Substrate(shard)


def test_a_replaced_file_keeps_the_group_it_had(tmp_path: Path) -> None:
    # a member of a group sharing a shard compacted it: the new log took that member's own
    # group, and the others could no longer read it
    target, tmp = tmp_path / "items.jsonl", tmp_path / "items.jsonl.tmp"
    target.write_text("old\n")
    other = next(gid for gid in (65534, 1, 2) if gid != os.getgid())
    try:
        os.chown(target, -1, other)
    except PermissionError:
        pytest.skip("this user may not give a file another group")
    target.chmod(0o660)
    tmp.write_text("new\n")
    replace_file(tmp, target)
    assert (target.stat().st_gid, stat.S_IMODE(target.stat().st_mode)) == (other, 0o660)


def test_a_shard_made_in_a_team_s_folder_is_the_team_s_throughout(tmp_path: Path) -> None:
    # without the folder's setgid bit, each file a member made took that member's own group:
    # another member could not read index/sources.json, and an ingest gave back removed items
    from substrate.ingest import ingest_path
    from substrate.store import Substrate

    team = tmp_path / "team"
    team.mkdir()
    other = next(gid for gid in (65534, 1, 2) if gid != os.getgid())
    try:
        os.chown(team, -1, other)
    except PermissionError:
        pytest.skip("this user may not give a folder another group")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nThe VPN moved to vpn2.\n")
    store = Substrate(team / "shard")
    ingest_path(store, notes)
    store.add("text", "The wiki moved too.")
    store.save()
    assert store.search("vpn", k=1)
    made = [team / "shard", *(team / "shard").rglob("*")]
    assert {path: path.stat().st_gid for path in made if path.stat().st_gid != other} == {}
