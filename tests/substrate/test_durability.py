"""Crashes, interruptions, failed writes and concurrent writers never cost acknowledged items."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest

from substrate import CorruptShardError, ShardError, Substrate, SubstrateItem
from substrate import log as log_module

WRITER = textwrap.dedent(
    """
    import sys
    from substrate import Substrate, SubstrateItem
    root, tag, batches, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    s = Substrate(root)
    for b in range(batches):
        ids = [s.put(SubstrateItem("text", f"{tag} batch {b} item {i} " + "x" * 200))
               for i in range(size)]
        s.save()
        print("acked", " ".join(ids), flush=True)
    """
)


def run_writer(root: Path, tag: str, batches: int, size: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root), tag, str(batches), str(size)],
        stdout=subprocess.PIPE,
        text=True,
    )


def test_sigkill_mid_bulk_write_keeps_every_acknowledged_item(tmp_path: Path) -> None:
    proc = run_writer(tmp_path, "k", batches=100_000, size=500)
    acked: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        acked.extend(line.split()[1:])
        if len(acked) >= 3000:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    shard = Substrate(tmp_path)
    items = {i.id: i for i in shard.all()}
    assert set(acked) <= set(items)
    # batches are all-or-nothing: a half-written batch is never visible
    assert len(items) % 500 == 0
    assert all(i.text.startswith("k batch") and i.text.endswith("x" * 200) for i in items.values())
    # and the next write repairs whatever the kill left behind
    shard.add("text", "after the crash")
    shard.save()
    assert Substrate(tmp_path).log_health()["uncommitted_bytes"] == 0
    assert len(Substrate(tmp_path)) == len(items) + 1


def test_two_processes_writing_at_once(tmp_path: Path) -> None:
    procs = [run_writer(tmp_path, tag, batches=100, size=10) for tag in ("a", "b")]
    for proc in procs:
        proc.communicate()
        assert proc.returncode == 0
    shard = Substrate(tmp_path)
    texts = [i.text for i in shard.all()]
    assert len(texts) == 2000
    assert sum(t.startswith("a batch") for t in texts) == 1000
    for raw in (tmp_path / "items.jsonl").read_bytes().splitlines():
        assert isinstance(orjson.loads(raw), dict)  # no interleaved lines


def test_torn_final_line_is_skipped_reported_and_repaired(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    ids = [s.add("text", f"t{i}") for i in range(3)]
    s.save()
    with (tmp_path / "items.jsonl").open("ab") as fh:
        fh.write(b'{"id":"0123456789abcdef","kind":"text","te')
    reader = Substrate(tmp_path)
    assert [i.id for i in reader.all()] == ids
    assert reader.log_health()["uncommitted_bytes"] > 0
    reader.add("text", "t3")
    reader.save()
    assert not (tmp_path / "items.jsonl").read_bytes().count(b'"te\n')
    assert len(Substrate(tmp_path)) == 4
    assert Substrate(tmp_path).log_health()["uncommitted_bytes"] == 0


def test_corrupt_middle_line_names_file_and_line(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    for i in range(3):
        s.add("text", f"c{i}")
    s.save()
    path = tmp_path / "items.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[2] = b'{"id": broken\n'
    path.write_bytes(b"".join(lines))
    before = path.read_bytes()
    with pytest.raises(CorruptShardError) as info:
        Substrate(tmp_path).all()
    assert info.value.line == 3 and str(path) in str(info.value)
    assert path.read_bytes() == before


def test_disk_full_during_write_keeps_earlier_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = Substrate(tmp_path)
    kept = s.add("text", "kept")
    s.save()
    size = (tmp_path / "items.jsonl").stat().st_size

    real_pwrite = os.pwrite

    def full(fd: int, data: bytes, offset: int) -> int:
        real_pwrite(fd, bytes(data[:10]), offset)  # a partial write, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    s.add("text", "lost")
    with monkeypatch.context() as patch:
        patch.setattr(log_module.os, "pwrite", full)
        with pytest.raises(ShardError, match="No space left"):
            s.save()
    assert (tmp_path / "items.jsonl").stat().st_size == size
    assert [i.id for i in Substrate(tmp_path).all()] == [kept]


def test_interrupt_during_write_keeps_earlier_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = Substrate(tmp_path)
    kept = s.add("text", "kept")
    s.save()

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    s.add("text", "not acknowledged")
    with monkeypatch.context() as patch:
        patch.setattr(log_module.os, "fsync", interrupted)
        with pytest.raises(KeyboardInterrupt):
            s.save()
    assert [i.id for i in Substrate(tmp_path).all()] == [kept]


def test_unwritable_log_is_a_shard_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = Substrate(tmp_path)
    s.add("text", "x")
    s.save()
    real_open = os.open

    def denied(path: object, flags: int, *args: object) -> int:
        if str(path).endswith("items.jsonl") and flags & os.O_WRONLY:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(log_module.os, "open", denied)
    s.put(SubstrateItem("text", "y"))
    with pytest.raises(ShardError, match="Permission denied"):
        s.save()


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("text", 5, "'text' must be a str"),
        ("tags", [{"a": 1}], "'tags' must be a list of strings"),
        ("provenance", "s", "'provenance' must be a dict"),
        ("kind", "nokind", "unknown kind"),
    ],
)
def test_records_of_the_wrong_shape_are_corruption_naming_the_line(
    tmp_path: Path, field: str, value: object, reason: str
) -> None:
    s = Substrate(tmp_path)
    ids = [s.add("text", f"w{i}") for i in range(3)]
    s.save()
    path = tmp_path / "items.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    record = orjson.loads(lines[2])
    record[field] = value
    lines[2] = orjson.dumps(record) + b"\n"
    path.write_bytes(b"".join(lines))
    with pytest.raises(CorruptShardError, match=reason) as info:
        Substrate(tmp_path).all()
    assert info.value.line == 3
    with pytest.raises(CorruptShardError, match=reason):
        Substrate(tmp_path).get(ids[1])
