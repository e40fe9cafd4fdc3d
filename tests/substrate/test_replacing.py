"""Writing a file through a temporary beside it: all of the new content, or none of it."""

from __future__ import annotations

import errno
import threading
from pathlib import Path

import pytest

from substrate.errors import ShardError
from substrate.replacing import replacing
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
