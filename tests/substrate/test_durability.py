"""Crashes, interruptions, failed writes and concurrent writers never cost acknowledged items."""

from __future__ import annotations

import errno
import logging
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from substrate import CorruptShardError, LostCommitsError, ShardError, Substrate, SubstrateItem
from substrate import log as log_module
from substrate.catalog import Catalog
from substrate.log import LogFile, Watermark

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


@pytest.mark.parametrize("torn", [b"", b"x" * 3000])  # shorter and longer than the next batch
def test_torn_final_line_is_skipped_reported_and_repaired(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, torn: bytes
) -> None:
    s = Substrate(tmp_path)
    ids = [s.add("text", f"t{i}") for i in range(3)]
    s.save()
    cut = b'{"id":"0123456789abcdef","kind":"text","text":"TORN' + torn
    with (tmp_path / "items.jsonl").open("ab") as fh:
        fh.write(cut)
    reader = Substrate(tmp_path)
    assert [i.id for i in reader.all()] == ids
    assert reader.log_health()["uncommitted_bytes"] > 0
    reader.add("text", "t3")
    reader.save()
    assert f"discarded {len(cut)} bytes after the last commit line" in caplog.text
    log = (tmp_path / "items.jsonl").read_bytes()
    assert b"TORN" not in log and b"x" * 100 not in log  # nothing of the cut line after it
    assert len(Substrate(tmp_path)) == 4
    assert Substrate(tmp_path).log_health()["uncommitted_bytes"] == 0


def _cataloged(root: Path, batches: int) -> Substrate:
    s = Substrate(root)
    for b in range(batches):
        for i in range(100):
            s.add("text", f"batch {b} item {i}")
        s.save()
    assert s.checkpoint()
    return s


def test_a_log_cut_inside_the_first_line_of_a_committed_batch_says_what_is_lost(
    tmp_path: Path,
) -> None:
    # "the 0 whole line(s) ... would be lost" read as nothing lost
    _cataloged(tmp_path, 2).close()
    path = tmp_path / "items.jsonl"
    data = path.read_bytes()
    second = data.index(b'{"commit"') + data[data.index(b'{"commit"') :].index(b"\n") + 1
    path.write_bytes(data[: second + 20])  # 20 bytes of the second batch's first item
    with pytest.raises(CorruptShardError, match="cut short") as refused:
        len(Substrate(tmp_path))
    message = str(refused.value)
    assert "0 whole line" not in message and "the part of a line from here on" in message
    assert "the items of that batch would be lost" in message


def test_a_log_cut_inside_a_committed_batch_is_corruption_not_a_torn_write(
    tmp_path: Path,
) -> None:
    # a bad restore or a sync tool cut the file: its last batch lost its commit line, and the
    # next writer must not cut off the complete, acknowledged lines before it as a torn write
    _cataloged(tmp_path, 3).close()
    path = tmp_path / "items.jsonl"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 1000])
    size = path.stat().st_size
    writer = Substrate(tmp_path)
    writer.add("text", "more")
    with pytest.raises(CorruptShardError, match="cut short"):
        writer.save()
    with pytest.raises(CorruptShardError, match="removing .*index") as refused:
        len(Substrate(tmp_path))
    # how much removing index/ would lose is said: the whole lines of the batch cut short
    committed = data[: len(data) - 1000].rsplit(b'{"commit"', 1)[0]
    whole = data[len(committed) : len(data) - 1000].split(b"\n", 1)[1].count(b"\n")
    assert f"the {whole} whole line(s) from this line on" in str(refused.value)
    assert f"those {whole} line(s) and the rest of their batch would be lost" in str(refused.value)
    assert path.stat().st_size == size
    (tmp_path / "index" / "offsets.bin").unlink()  # the catalog alone is not the evidence
    with pytest.raises(CorruptShardError, match="cut short"):
        len(Substrate(tmp_path))
    shutil.rmtree(tmp_path / "index")  # the user keeps the complete batches
    assert len(Substrate(tmp_path)) == 200


def test_a_log_cut_after_its_last_catalog_or_without_one_is_noticed(tmp_path: Path) -> None:
    # a small shard has no catalog, and a large one's catalog lags its last batches: what the
    # writer notes after each commit is the evidence then
    s = Substrate(tmp_path)
    ids = [s.add("text", f"note {i}") for i in range(3)]
    s.save()
    last = s.add("text", "the last note, acknowledged")
    s.save()
    s.close()
    assert not (tmp_path / "index" / "offsets.bin").exists()
    path = tmp_path / "items.jsonl"
    path.write_bytes(path.read_bytes()[:-20])  # its commit line cut
    with pytest.raises(CorruptShardError, match="cut short"):
        Substrate(tmp_path).get(ids[0])
    writer = Substrate(tmp_path)
    writer.add("text", "more")
    with pytest.raises(CorruptShardError):
        writer.save()
    assert b"the last note, acknowledged" in path.read_bytes() and last


def test_a_reader_that_saw_a_batch_before_its_commit_is_not_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # readers take no lock: one may see a batch without its commit line, then find the
    # catalog the writer wrote after committing it; that is a race, not a cut log
    writer = _cataloged(tmp_path, 3)
    assert writer.last_append is not None
    batch_start = writer.last_append[0].offset
    writer.close()
    size = (tmp_path / "items.jsonl").stat().st_size
    real = LogFile.tail_state
    calls: list[int] = []

    def seen_mid_batch(self: LogFile, *head: Any) -> log_module.TailState:
        calls.append(1)
        if len(calls) == 1:
            return log_module.TailState(batch_start, size)
        return real(self, *head)

    monkeypatch.setattr(LogFile, "tail_state", seen_mid_batch)
    assert len(Substrate(tmp_path)) == 300 and len(calls) > 1


def test_a_write_removes_the_copy_a_killed_compaction_left(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    s.add("text", "a")
    s.save()
    dead = tmp_path / ".items.jsonl.999999999.tmp"  # no such process
    live = tmp_path / f".items.jsonl.{os.getpid()}.tmp"  # a compaction still running
    for leftover in (dead, live):
        leftover.write_bytes(b"x" * 1000)
    s.close()
    again = Substrate(tmp_path)  # the next run: its first write sweeps
    again.add("text", "b")
    again.save()
    assert not dead.exists() and live.exists()


def test_a_missing_log_beside_its_catalog_is_not_an_empty_shard(tmp_path: Path) -> None:
    _cataloged(tmp_path, 1).close()
    (tmp_path / "items.jsonl").unlink()
    with pytest.raises(ShardError, match="missing or empty, but items were committed"):
        Substrate(tmp_path).all()


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


def test_a_corrupt_line_is_named_though_a_torn_write_follows_it(tmp_path: Path) -> None:
    # the edit made the log shorter than the end noted after the last commit; that, with the
    # torn tail, read as a log cut short (naming the torn line, suggesting to remove index/)
    s = Substrate(tmp_path)
    for name in "abc":
        s.add("text", f"item {name}")
        s.save()
    path = tmp_path / "items.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = b"{garbage}\n"
    path.write_bytes(b"".join(lines) + b'{"id":"torn')
    for attempt in ("read", "write"):
        with pytest.raises(CorruptShardError) as info:
            shard = Substrate(tmp_path)
            if attempt == "read":
                shard.all()
            else:
                shard.add("text", "more")
                shard.save()
        assert info.value.line == 2, attempt
        assert "invalid JSON" in str(info.value) and "cut short" not in str(info.value)


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
        ("kind", "nokind", "'kind' is none of text, record"),  # the value is not shown
        ("kind", ["text"], "'kind' is none of"),
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


@pytest.mark.parametrize("field", ["scope", "text", "payload", "provenance", "tags", "links"])
def test_a_damaged_key_is_corruption_not_a_default(tmp_path: Path, field: str) -> None:
    # "scoop" for "scope": read by default, a team's item moved to scope "local" silently
    # ("payloda": a record's values gone, and lost for good at the next compaction)
    s = Substrate(tmp_path)
    s.add("record", "teamA private salary plan", scope="teamA", payload={"total": 412})
    s.save()
    path = tmp_path / "items.jsonl"
    damaged = path.read_bytes().replace(f'"{field}":'.encode(), f'"{field[:-1]}X":'.encode())
    path.write_bytes(damaged)
    with pytest.raises(CorruptShardError, match=f"'{field}' is missing") as info:
        Substrate(tmp_path).all()
    assert info.value.line == 2
    minimal = tmp_path / "minimal"  # a record written with only some fields is read as it is
    minimal.mkdir()
    (minimal / "items.jsonl").write_bytes(b'{"id": "a1", "kind": "text", "text": "hi"}\n')
    assert [(i.text, i.scope) for i in Substrate(minimal).all()] == [("hi", "local")]
    (minimal / "items.jsonl").write_bytes(b'{"id": "a1", "text": "hi"}\n')
    with pytest.raises(CorruptShardError, match="'kind' is missing"):
        Substrate(minimal).all()


# -- hand edits of the log -------------------------------------------------------------------
# The docs tell users to fix a corrupt line by editing items.jsonl. Offsets into the log (the
# catalog's, the search index's, a running process's) are then void and must be noticed.


def edited_shard(root: Path) -> list[str]:
    """Three batches of 20 items; the catalog covers the first two (the third is its tail).
    Line 1 is the header, ids[i] is on line i + 2 for the first batch."""
    s = Substrate(root)
    ids = []
    for batch in range(3):
        ids += [s.add("text", f"note {batch} {i}") for i in range(20)]
        s.save()
        if batch == 1:
            assert s.checkpoint()
    s.close()
    return ids


def rewrite(path: Path, edit: Callable[[list[bytes]], None], *, new_file: bool = True) -> None:
    """Edit the lines of ``path``: through a new file renamed over it (as ``sed -i`` does, a
    new inode) or in place (the same inode)."""
    lines = path.read_bytes().splitlines(keepends=True)
    edit(lines)
    if new_file:
        tmp = path.with_name("edited.tmp")
        tmp.write_bytes(b"".join(lines))
        os.replace(tmp, path)
    else:
        with path.open("r+b") as fh:
            fh.write(b"".join(lines))
            fh.truncate()


def catalog_generation(root: Path) -> str:
    catalog = Catalog(root / "index" / "offsets.bin")
    assert catalog.header is not None
    catalog.close()
    return catalog.header.generation


def test_deleting_an_early_line_rebuilds_the_catalog_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ids = edited_shard(tmp_path)
    path = tmp_path / "items.jsonl"
    before = LogFile(tmp_path).generation()

    def delete_line_10(lines: list[bytes]) -> None:
        del lines[9]

    rewrite(path, delete_line_10)  # sed -i 10d
    with caplog.at_level(logging.WARNING, logger="substrate.view"):
        reader = Substrate(tmp_path)
        assert [i.id for i in reader.all()] == ids[:8] + ids[9:]
    assert "cut short (an older copy put back, or lines removed by hand?)" in caplog.text
    assert all(reader.get(i) is not None for i in ids if i != ids[8]) and len(reader) == 59
    # a new generation: every file built on the old log (search index, ingest caches) sees it
    after = LogFile(tmp_path).generation()
    assert after != before and catalog_generation(tmp_path) == after
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="substrate.view"):
        assert len(Substrate(tmp_path)) == 59  # the rebuilt catalog is trusted again
    assert not caplog.text
    reader.add("text", "after the edit")
    with pytest.raises(ShardError, match="before the end noted"):  # an item went with it
        reader.save()
    (tmp_path / "index" / "log-end.json").unlink()  # the loss accepted
    reader.save()
    with pytest.raises(LostCommitsError, match="--accept-loss"):  # not yet by the compaction,
        reader.compact()  # which would leave no trace of it
    assert reader.compact(accept_loss=True).live_items == 60
    assert len(Substrate(tmp_path)) == 60


def test_an_edit_that_keeps_every_length_reads_the_edited_line(tmp_path: Path) -> None:
    ids = edited_shard(tmp_path)
    path = tmp_path / "items.jsonl"

    def retext(lines: list[bytes]) -> None:
        lines[9] = lines[9].replace(b'"note 0 8"', b'"NOTE 0 8"')

    rewrite(path, retext, new_file=False)
    reader = Substrate(tmp_path)
    assert [i.id for i in reader.all()] == ids
    assert reader.get(ids[8]).text == "NOTE 0 8" and reader.get(ids[-1]).text == "note 2 19"
    reader.add("text", "after the edit")
    reader.save()
    assert len(Substrate(tmp_path)) == 61


@pytest.mark.parametrize("new_file", [True, False])
def test_an_edit_that_changes_a_line_length_is_noticed_by_search_too(
    tmp_path: Path, new_file: bool
) -> None:
    ids = edited_shard(tmp_path)
    s = Substrate(tmp_path)
    assert [h.id for h, _ in s.search("note 0 8", k=1)] == [ids[8]]  # index built
    old_end = s.log_watermark()
    path = tmp_path / "items.jsonl"

    def lengthen(lines: list[bytes]) -> None:
        lines[9] = lines[9].replace(b'"note 0 8"', b'"note 0 8 corrected by hand"')

    rewrite(path, lengthen, new_file=new_file)
    reader = Substrate(tmp_path)
    assert [i.id for i in reader.all()] == ids
    assert reader.get(ids[8]).text == "note 0 8 corrected by hand"
    # an index covering the old log is rebuilt, not fed lines from a misaligned offset
    assert reader.saved_changes(old_end) is None
    assert [h.id for h, _ in reader.search("corrected by hand", k=1)] == [ids[8]]
    reader.add("text", "after the edit")
    reader.save()
    assert len(Substrate(tmp_path)) == 61


def test_an_edit_under_an_open_shard_is_noticed_on_its_next_read(tmp_path: Path) -> None:
    ids = edited_shard(tmp_path)
    reader = Substrate(tmp_path)
    assert len(reader) == 60  # read up to the end, beyond the catalog

    def lengthen_line_50(lines: list[bytes]) -> None:
        # the 7th line of the batch after the catalog: only the open view's seal covers it
        lines[49] = lines[49].replace(b'"note 2 6"', b'"note 2 6, longer"')

    rewrite(tmp_path / "items.jsonl", lengthen_line_50, new_file=False)
    assert [i.id for i in reader.all()] == ids
    assert reader.get(ids[46]).text == "note 2 6, longer"
    assert reader.get(ids[-1]).text == "note 2 19"


def test_appends_by_another_process_or_a_copied_shard_are_not_edits(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ids = edited_shard(tmp_path / "a")
    generation = LogFile(tmp_path / "a").generation()
    with caplog.at_level(logging.WARNING, logger="substrate.view"):
        reader = Substrate(tmp_path / "a")
        assert len(reader) == 60
        writer = Substrate(tmp_path / "a")
        writer.add("text", "appended elsewhere")
        writer.save()
        assert len(reader) == 61
        copy = tmp_path / "b"
        copy.mkdir()
        for name in ("mixle.toml", "items.jsonl", "index/offsets.bin"):
            (copy / name).parent.mkdir(exist_ok=True)
            (copy / name).write_bytes((tmp_path / "a" / name).read_bytes())
        assert Substrate(copy).get(ids[5]) is not None
    assert not caplog.text and LogFile(tmp_path / "a").generation() == generation


@pytest.mark.parametrize("same_size", [True, False])
def test_a_really_corrupt_line_after_the_catalog_names_its_own_line(
    tmp_path: Path, same_size: bool
) -> None:
    ids = edited_shard(tmp_path)

    def corrupt(lines: list[bytes]) -> None:
        lines[9] = b"X" + lines[9][1:] if same_size else b'{"id": broken\n'

    rewrite(tmp_path / "items.jsonl", corrupt, new_file=not same_size)
    reads: list[Callable[[Substrate], object]] = [lambda s: s.all(), lambda s: s.get(ids[8])]
    if not same_size:  # every later offset moved: the whole log is read again, up to line 10
        reads += [lambda s: s.get(ids[-1]), len]
    for read in reads:
        with pytest.raises(CorruptShardError) as info:
            read(Substrate(tmp_path))
        assert info.value.line == 10


@pytest.mark.parametrize("new_file", [True, False])
def test_a_writer_refuses_a_line_damaged_before_its_catalog_and_writes_once_it_is_mended(
    tmp_path: Path, new_file: bool
) -> None:
    ids = edited_shard(tmp_path)
    path = tmp_path / "items.jsonl"
    sound = path.read_bytes()

    def damage(lines: list[bytes]) -> None:  # the same length: every offset stays right
        lines[5] = b"X" + lines[5][1:]

    rewrite(path, damage, new_file=new_file)
    damaged = path.read_bytes()
    for write in (lambda s: s.add("text", "more"), lambda s: s.remove(ids[30])):
        writer = Substrate(tmp_path)
        with pytest.raises(CorruptShardError) as info:
            write(writer)
            writer.save()
        assert info.value.line == 6
        assert path.read_bytes() == damaged  # nothing appended past the damage
    rewrite(path, lambda lines: lines.__setitem__(5, sound.splitlines(keepends=True)[5]))
    writer = Substrate(tmp_path)
    writer.add("text", "after the mend")
    writer.save()
    assert len(Substrate(tmp_path)) == 61


def test_a_writer_parses_the_committed_log_only_when_another_hand_wrote_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate import logend
    from substrate.logend import note_end, read_note

    edited_shard(tmp_path)
    parsed: list[int] = []
    real = logend._refuse_corrupt_lines

    def counted(log_file: LogFile, end: int) -> None:
        parsed.append(end)
        real(log_file, end)

    monkeypatch.setattr(logend, "_refuse_corrupt_lines", counted)

    def write() -> None:
        s = Substrate(tmp_path)
        s.add("text", f"write {len(parsed)}")
        s.save()
        s.close()

    write()
    assert parsed == []  # as the last writer left it: its note answers for what came before
    note = read_note(tmp_path / "index" / "log-end.json")
    assert note is not None and note.mtime_ns == (tmp_path / "items.jsonl").stat().st_mtime_ns
    note_end(tmp_path / "index" / "log-end.json", note.generation, note.end)  # an older note
    write()
    write()
    assert len(parsed) == 1  # parsed once, then noted with the log's time again
    later = note.mtime_ns + 10**9  # touched: same bytes, another time
    os.utime(tmp_path / "items.jsonl", ns=(later, later))
    write()
    assert len(parsed) == 2


def test_a_log_that_cannot_be_marked_is_still_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = edited_shard(tmp_path)

    def refuse(self: LogFile, expected: str) -> str:
        raise ShardError("read-only file system")

    monkeypatch.setattr(LogFile, "renew_generation", refuse)

    def delete_line_10(lines: list[bytes]) -> None:
        del lines[9]

    rewrite(tmp_path / "items.jsonl", delete_line_10)
    assert [i.id for i in Substrate(tmp_path).all()] == ids[:8] + ids[9:]
    assert Substrate(tmp_path).get(ids[-1]).text == "note 2 19"


def test_renewing_the_generation_keeps_the_header_length_and_yields_to_a_newer_one(
    tmp_path: Path,
) -> None:
    edited_shard(tmp_path)
    log_file = LogFile(tmp_path)
    size = log_file.path.stat().st_size
    old = log_file.generation()
    new = log_file.renew_generation(old)
    assert new != old and len(new) == len(old) and log_file.generation() == new
    assert log_file.path.stat().st_size == size
    assert log_file.renew_generation(old) == new  # already renewed (or compacted): left alone
    assert Substrate(tmp_path).log_watermark() == Watermark(new, size)


def test_a_catalog_of_the_previous_format_is_rebuilt_once(tmp_path: Path) -> None:
    ids = edited_shard(tmp_path)
    catalog = tmp_path / "index" / "offsets.bin"
    data = catalog.read_bytes()
    catalog.write_bytes(b"MXCAT002" + data[8:])
    assert Substrate(tmp_path).get(ids[3]) is not None
    assert catalog.read_bytes()[:8] == b"MXCAT003"


def test_only_batch_ends_are_places_a_watermark_can_point_to(tmp_path: Path) -> None:
    ids = edited_shard(tmp_path)
    log_file = LogFile(tmp_path)
    end = Substrate(tmp_path).log_watermark().offset
    assert log_file.ends_batch(0) and log_file.ends_batch(end)
    assert not log_file.ends_batch(end - 1) and not log_file.ends_batch(end + 1)
    item_end = next(r.offset + r.length for r in log_file.records(0, end) if r.id == ids[3])
    assert not log_file.ends_batch(item_end)  # a line boundary, but inside a batch
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "items.jsonl").write_bytes(b'{"id":"a","kind":"text","text":"x"}\n')
    assert LogFile(legacy).ends_batch(36) and not LogFile(legacy).ends_batch(20)


def test_a_reader_that_finds_an_edit_does_not_wait_for_a_writer(tmp_path: Path) -> None:
    import fcntl

    ids = edited_shard(tmp_path)
    log_file = LogFile(tmp_path)
    fd = os.open(log_file.lock_path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a long ingest holds the lock
        with pytest.raises(ShardError, match="held by another writer"):
            log_file.renew_generation(log_file.generation())

        def shorten(lines: list[bytes]) -> None:
            lines[9] = lines[9].replace(b'"note 0 8"', b'"n08"')

        rewrite(tmp_path / "items.jsonl", shorten, new_file=False)
        reader = Substrate(tmp_path)  # reads the edited log whole, without the lock
        assert reader.get(ids[8]).text == "n08" and len(reader) == 60
    finally:
        os.close(fd)


def test_a_batch_removed_by_hand_and_one_of_its_length_added_is_noticed_without_a_catalog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A small shard has no catalog to hold a seal: the files derived from the log hold their
    # own, or a batch of the same length written after the edit looks already covered.
    monkeypatch.setattr(log_module.time, "time", lambda: 1_800_000_000.25)  # fixed commit lines

    def save_one(text: str, item_id: str) -> None:
        s = Substrate(tmp_path)
        s.put(SubstrateItem("text", text, id=item_id, created_at=1.5))
        s.save()

    save_one("alpha words", "a" * 32)
    save_one("bravo words", "b" * 32)
    assert not (tmp_path / "index" / "offsets.bin").exists()
    assert [h.id for h, _ in Substrate(tmp_path).search("bravo", k=1)] == ["b" * 32]
    path = tmp_path / "items.jsonl"
    end = path.stat().st_size

    def drop_last_batch(lines: list[bytes]) -> None:
        del lines[-2:]

    rewrite(path, drop_last_batch)
    (tmp_path / "index" / "log-end.json").unlink()  # else no write is taken (accepted so)
    save_one("delta words", "d" * 32)
    assert path.stat().st_size == end  # the search index's watermark points at the new end
    reader = Substrate(tmp_path)
    from substrate.search.status import index_status

    assert index_status(reader)["state"] == "stale"  # not "fresh": its seal no longer matches
    assert [h.id for h, _ in reader.search("delta", k=1)] == ["d" * 32]
    assert index_status(reader)["state"] == "fresh"
    assert reader.search("bravo", k=1) == []


def test_compaction_is_not_taken_for_a_hand_edit(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from substrate.ingest import ingest_path

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nalpha words\n")
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), notes)
    s = Substrate(shard)
    s.add("text", "bravo words")
    s.save()
    assert s.search("alpha", k=1) and s.search("bravo", k=1)  # the index is written
    s.remove(s.search("bravo", k=1)[0][0].id)
    s.save()
    s.compact()
    with caplog.at_level(logging.WARNING):
        reader = Substrate(shard)
        assert [h.text for h, _ in reader.search("alpha", k=1)] == ["# A\n\nalpha words"]
        assert ingest_path(reader, notes).files_unchanged == 1
    assert "edited" not in caplog.text


# -- another process compacting while this one reads -----------------------------------------


def _compaction_during(
    method: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Substrate, list[str]]:
    """A reader whose next refresh sees another process compact the log right after the
    reader's ``LogFile.<method>`` read the old file; returns it and the ids left live."""
    s = Substrate(tmp_path)
    ids = [s.add("text", f"note {i}") for i in range(30)]
    s.save()
    reader = Substrate(tmp_path)
    assert len(reader) == 30 and reader.get(ids[0]) is not None  # ids[0] is cached
    other = Substrate(tmp_path)
    more = [other.add("text", f"more {i}") for i in range(5)]
    other.save()
    for item_id in ids[:10]:
        other.remove(item_id)
    other.save()
    real = getattr(LogFile, method)
    compacted: list[bool] = []

    def read_then_compact(self: LogFile, *args: object) -> object:
        value = real(self, *args)
        if not compacted:
            compacted.append(True)
            Substrate(tmp_path).compact()
        return value

    monkeypatch.setattr(LogFile, method, read_then_compact)
    return reader, ids[10:] + more


@pytest.mark.parametrize("method", ["tail_state", "generation"])
def test_a_compaction_between_the_reads_of_a_refresh_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, method: str
) -> None:
    reader, live = _compaction_during(method, tmp_path, monkeypatch)
    with caplog.at_level(logging.WARNING):
        assert sorted(i.id for i in reader.all()) == sorted(live)
    assert "edited" not in caplog.text  # a compaction is no hand edit
    assert len(reader) == 25 and reader.get(live[0]) is not None


def test_an_item_removed_and_compacted_away_by_another_process_is_gone(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    ids = [s.add("text", f"note {i}") for i in range(3)]
    s.save()
    reader = Substrate(tmp_path)
    assert reader.get(ids[0]) is not None  # cached
    other = Substrate(tmp_path)
    other.remove(ids[0])
    other.save()
    other.compact()
    assert reader.get(ids[0]) is None and ids[0] not in reader and not reader.remove(ids[0])
    assert len(reader) == 2


def test_a_log_replaced_at_every_read_ends_in_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = Substrate(tmp_path)
    s.add("text", "note")
    s.save()
    reader = Substrate(tmp_path)
    assert len(reader) == 1
    s.add("text", "another")
    s.save()
    real = LogFile.tail_state
    compacting: list[bool] = []

    def always_compacted(self: LogFile, *head: Any) -> object:
        state = real(self, *head)
        if not compacting:  # the compaction's own reads are left alone
            compacting.append(True)
            other = Substrate(tmp_path)
            other.remove(other.add("text", "passing"))  # so that each compaction rewrites
            other.save()
            other.compact()
            compacting.clear()
        return state

    monkeypatch.setattr(LogFile, "tail_state", always_compacted)
    with pytest.raises(ShardError, match="replaced again and again"):
        reader.all()
    monkeypatch.undo()
    assert len(Substrate(tmp_path)) == 2


def test_a_cut_inside_the_first_batch_names_its_first_line_not_the_header(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    s.add("text", "the only note")
    s.save()
    s.close()
    path = tmp_path / "items.jsonl"
    path.write_bytes(path.read_bytes()[:-20])
    with pytest.raises(CorruptShardError) as caught:
        len(Substrate(tmp_path))
    assert caught.value.line == 2  # line 1 is the header


def test_a_commit_note_that_cannot_be_written_is_warned_of(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # index/ unwritable: every write went on with the guard against a cut log off, silently
    from substrate.logend import note_end

    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "log-end.json").mkdir()  # in the note's place: it cannot be opened
    with caplog.at_level(logging.WARNING):
        note_end(tmp_path / "index" / "log-end.json", "0123456789abcdef", 10)
    assert "could not note the end of the log" in caplog.text
    assert "a log cut short later would not be noticed" in caplog.text


def test_the_commit_note_is_rewritten_in_place_and_a_damaged_one_is_no_evidence(
    tmp_path: Path,
) -> None:
    from substrate.logend import note_end, noted_end, read_note

    note = tmp_path / "index" / "log-end.json"
    for end in (123456789, 7, 4096):  # shorter after longer: nothing of the old one is left
        note_end(note, "0123456789abcdef", end)
        assert noted_end(note) == ("0123456789abcdef", end)
    note_end(note, "g" * 200, 1)  # too long for a note: the last one stays
    assert noted_end(note) == ("0123456789abcdef", 4096)
    note_end(note, "g" * 120, 7, 1796415446723819488)  # no room for the time: the end is kept
    assert read_note(note) == ("g" * 120, 7, None, ("0123456789abcdef",))
    note_end(note, "h" * 150, 7)  # nor for the generations before it
    assert read_note(note) == ("h" * 150, 7, None, ())
    shard = tmp_path / "shard"
    s = Substrate(shard)
    s.add("text", "a")
    s.save()
    (shard / "index" / "log-end.json").write_bytes(b'{"generation": "x", "en')  # cut by a crash
    assert len(Substrate(shard)) == 1


def test_a_commit_note_damaged_past_its_width_is_mended_by_the_next_commit(
    tmp_path: Path,
) -> None:
    note = tmp_path / "index" / "log-end.json"
    s = Substrate(tmp_path)
    s.add("text", "first")
    s.save()
    note.write_bytes(bytes(range(256)) * 2)  # garbage longer than a note
    s = Substrate(tmp_path)
    s.add("text", "second, acknowledged")
    s.save()
    s.close()
    log = tmp_path / "items.jsonl"
    log.write_bytes(log.read_bytes()[:-20])  # cut inside the last committed batch
    with pytest.raises(CorruptShardError):  # not taken for a torn write and cut off
        len(Substrate(tmp_path))


def test_a_catalog_interrupted_while_closing_is_not_closed_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from substrate import catalog

    _cataloged(tmp_path, 1).close()
    opened = Catalog(tmp_path / "index" / "offsets.bin")
    closed: list[int] = []
    real_close = os.close

    def interrupted(fd: int) -> None:  # Ctrl-C arrives just as the file is closed
        closed.append(fd)
        real_close(fd)
        raise KeyboardInterrupt

    monkeypatch.setattr(catalog.os, "close", interrupted)
    with pytest.raises(KeyboardInterrupt):
        opened.close()
    opened.close()  # the clean-up after the interrupt: the number may be another file's now
    assert len(closed) == 1


def _one_batch_each(root: Path, *texts: str) -> Path:
    """A shard at ``root`` holding ``texts``, saved one batch each (folded into a catalog);
    returns its log."""
    store = Substrate(root)
    for text in texts:
        store.add("text", text)
        store.save()
    store.checkpoint()
    return root / "items.jsonl"


def _cut_last_batch(log: Path) -> None:
    log.write_bytes(b"".join(log.read_bytes().splitlines(keepends=True)[:-2]))


def _refused_write(root: Path, match: str) -> None:
    writer = Substrate(root)
    writer.add("text", "one more")
    with pytest.raises(ShardError, match=match):
        writer.save()


def test_a_lost_end_stays_noted_when_a_read_gives_the_log_a_new_generation(
    tmp_path: Path,
) -> None:
    # the catalog covers the batch cut off: a reader renews the generation, and the end
    # noted for the old one must hold for the new, or the next write hides the loss
    log = _one_batch_each(tmp_path, "one", "two", "three")
    assert (tmp_path / "index" / "offsets.bin").exists()  # the catalog
    before = LogFile(tmp_path).generation()
    _cut_last_batch(log)
    assert [i.text for i in Substrate(tmp_path).all()] == ["one", "two"]
    assert LogFile(tmp_path).generation() != before
    for _ in range(2):  # a refused write changes nothing: refused again
        _refused_write(tmp_path, "before the end noted")
        with pytest.raises(ShardError, match="before the end noted"):
            Substrate(tmp_path).compact()


def test_a_log_cut_back_to_its_header_is_read_but_not_written_over(tmp_path: Path) -> None:
    log = _one_batch_each(tmp_path, "one")
    log.write_bytes(log.read_bytes().splitlines(keepends=True)[0])
    assert Substrate(tmp_path).all() == []
    _refused_write(tmp_path, "before the end noted")


def test_a_log_cut_inside_its_header_is_not_written_over(tmp_path: Path) -> None:
    log = _one_batch_each(tmp_path, "one", "two")
    log.write_bytes(log.read_bytes()[:20])  # not even the header line is whole
    _refused_write(tmp_path, "no header line")
    assert len(log.read_bytes()) == 20


def test_a_damaged_header_line_is_named_alike_by_readers_and_writers(tmp_path: Path) -> None:
    """Readers said "line 1 corrupt", writers "no header line" (and to remove the end's note,
    which changed nothing); deleting the line and the note, a compaction loses no item."""
    from substrate.errors import CorruptShardError

    log = _one_batch_each(tmp_path, "one", "two")
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(lines[0][:-2] + b"\n" + b"".join(lines[1:]))  # its closing brace lost
    with pytest.raises(CorruptShardError, match=r":1: .*header line is damaged"):
        Substrate(tmp_path).all()
    _refused_write(tmp_path, "header line is damaged")
    log.write_bytes(b"".join(lines[1:]))
    (tmp_path / "index" / "log-end.json").unlink()
    Substrate(tmp_path).compact()
    assert sorted(item.text for item in Substrate(tmp_path).all()) == ["one", "two"]


def test_removing_the_note_accepts_a_shortened_log_though_a_catalog_covered_it(
    tmp_path: Path,
) -> None:
    _cut_last_batch(_one_batch_each(tmp_path, "one", "two", "three"))
    (tmp_path / "index" / "log-end.json").unlink()  # the log as it is, accepted
    assert [i.text for i in Substrate(tmp_path).all()] == ["one", "two"]  # renews it
    writer = Substrate(tmp_path)
    writer.add("text", "four")
    writer.save()
    assert [i.text for i in Substrate(tmp_path).all()] == ["one", "two", "four"]


def test_compaction_leaves_a_log_written_to_behind_its_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    shard = Substrate(tmp_path / "s")
    kept = shard.add("text", "kept")
    shard.remove(shard.add("text", "removed"))
    shard.save()
    rewrite = LogFile.replace_with
    sneaked: list[str] = []

    def with_a_writer_that_did_not_wait(log: LogFile, *args: Any, **kw: Any) -> Any:
        other = Substrate(tmp_path / "s")  # (this thread holds the lock: it passes)
        sneaked.append(other.add("text", "acknowledged meanwhile"))
        other.save()
        return rewrite(log, *args, **kw)

    monkeypatch.setattr(LogFile, "replace_with", with_a_writer_that_did_not_wait)
    with pytest.raises(ShardError, match="was written to while it was rewritten"):
        shard.compact()
    again = Substrate(tmp_path / "s")
    assert again.get(kept) is not None and again.get(sneaked[0]) is not None


def test_compaction_reports_the_size_it_left_not_what_a_writer_added_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shard = Substrate(tmp_path / "s")
    shard.add("text", "kept")
    for n in range(20):
        shard.remove(shard.add("text", f"removed {n}"))
    shard.save()
    reopen = Substrate._reopen

    def with_a_writer_right_after_the_lock(self: Substrate) -> None:
        other = Substrate(tmp_path / "s")  # the lock is free again: a waiting writer goes on
        other.add("text", "written once the compaction let go of the lock " * 20)
        other.save()
        reopen(self)

    monkeypatch.setattr(Substrate, "_reopen", with_a_writer_right_after_the_lock)
    stats = shard.compact()
    now = (tmp_path / "s" / "items.jsonl").stat().st_size
    assert stats.bytes_after < stats.bytes_before  # reclaimed, though the log grew since:
    assert now - stats.bytes_after > 20 * len("written once the compaction let go of the lock ")


def _synced_folders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders ``os.fsync`` is called on from now on, by their real paths."""
    synced: list[str] = []
    real = os.fsync

    def spy(fd: int) -> None:
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            synced.append(os.path.realpath(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    return synced


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc")
def test_files_that_cannot_be_rebuilt_are_replaced_with_their_folder_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a rename reaches the disk with its folder: synced only in its content, a grant or a
    # baseline could come back as the old file after a power cut
    from substrate.governance import grant_approver
    from substrate.secrets.baseline import Baseline, save_baseline

    shard = Substrate(tmp_path / "shard")
    shard.put(SubstrateItem("text", "kept"))
    shard.save()
    synced = _synced_folders(monkeypatch)
    assert grant_approver(shard, "alice", "public", by="alice")  # mixle.toml, first written
    assert synced == [str(tmp_path / "shard")]
    assert grant_approver(shard, "bob", "public", by="alice")  # and replaced
    assert synced == [str(tmp_path / "shard")] * 2
    (tmp_path / "repo").mkdir()
    save_baseline(tmp_path / "repo" / "baseline.json", Baseline({}))
    assert synced[2:] == [str(tmp_path / "repo")]


def test_a_folder_that_cannot_be_synced_after_a_replace_is_warned_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # some file systems refuse to sync a folder (EINVAL): the file is replaced all the same,
    # and saying the write failed would be wrong
    from substrate.governance import grant_approver

    shard = Substrate(tmp_path / "shard")
    assert grant_approver(shard, "alice", "public", by="alice")
    real = os.fsync

    def refuse_folders(fd: int) -> None:
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            raise OSError(errno.EINVAL, "Invalid argument")
        real(fd)

    monkeypatch.setattr(os, "fsync", refuse_folders)
    with caplog.at_level(logging.WARNING):
        assert grant_approver(shard, "bob", "public", by="alice")
    assert "bob" in (tmp_path / "shard" / "mixle.toml").read_text()
    assert "could not be synced" in caplog.text
    caplog.clear()
    other = Substrate(tmp_path / "other")  # a first save creates the log and mixle.toml
    kept = other.add("text", "a note")
    with caplog.at_level(logging.WARNING):
        other.save()
    assert Substrate(tmp_path / "other").get(kept) is not None
    assert (tmp_path / "other" / "mixle.toml").exists()
    assert caplog.text.count("could not be synced") == 2


def _shard_with_a_backup(path: Path) -> tuple[Substrate, bytes]:
    """A shard of five items, a copy of its log taken then, and one item removed since."""
    s = Substrate(path)
    ids = [s.add("text", f"fact {n}") for n in range(5)]
    s.save()
    backup = (path / "items.jsonl").read_bytes()
    s.remove(ids[0])
    s.save()
    return s, backup


def test_an_older_copy_of_the_same_generation_put_back_is_said_to_be_cut_short(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # a backup from before later appends, restored: blamed on an edit by hand, and its first
    # line renewed with nothing said of it
    s = Substrate(tmp_path)
    for n in range(300):
        s.add("text", f"fact {n}")
    s.save()
    s.checkpoint()
    backup = (tmp_path / "items.jsonl").read_bytes()
    s.add("text", "later")
    s.save()
    s.checkpoint()  # the catalog describes the longer log
    s.close()
    (tmp_path / "items.jsonl").write_bytes(backup)
    with caplog.at_level(logging.WARNING, logger="substrate.view"):
        reader = Substrate(tmp_path)
        assert len(reader) == 300
    assert "was cut short (an older copy put back, or lines removed by hand?)" in caplog.text
    assert "given a new generation" in caplog.text and "edited by hand" not in caplog.text
    assert reader.log_health()["lost_bytes"] > 0  # the loss is still told


def test_a_copy_of_the_log_from_before_its_compaction_put_back_is_known_and_not_written_to(
    tmp_path: Path,
) -> None:
    # a backup from before a compaction, restored, was taken as the log: the items removed
    # before the compaction were back, those added after it gone, and the next write took it
    from substrate.audit import audit_shard
    from substrate.errors import LostCommitsError

    s, before = _shard_with_a_backup(tmp_path)
    assert s.compact().live_items == 4
    s.add("text", "added after the compaction")
    s.save()  # a later commit keeps the compaction noted
    (tmp_path / "items.jsonl").write_bytes(before)
    reader = Substrate(tmp_path)
    assert len(reader) == 5  # read as it is
    assert reader.log_health()["older_copy"]
    assert any("an older copy of the log" in p for p in audit_shard(reader).problems())
    reader.add("text", "one more")
    with pytest.raises(LostCommitsError, match="an older copy of the log"):
        reader.save()
    assert (tmp_path / "items.jsonl").read_bytes() == before
    (tmp_path / "index" / "log-end.json").unlink()  # the copy accepted as it is
    reader.save()
    assert not Substrate(tmp_path).log_health()["older_copy"]
    assert len(Substrate(tmp_path)) == 6


def test_an_older_copy_is_known_after_a_compaction_and_an_edit_by_hand_since(
    tmp_path: Path,
) -> None:
    # the edit gave the log a new generation, and the note forgot the compaction's
    s, backup = _shard_with_a_backup(tmp_path)
    s.compact()
    log = tmp_path / "items.jsonl"
    log.write_bytes(log.read_bytes().replace(b"fact 1", b"fact I"))  # an edit by hand
    edited = Substrate(tmp_path)
    assert len(edited) == 4  # read whole, the log given a new generation
    edited.add("text", "after the edit")
    edited.save()
    log.write_bytes(backup)
    assert Substrate(tmp_path).log_health()["older_copy"]
    again = Substrate(tmp_path)
    again.add("text", "one more")
    with pytest.raises(ShardError, match="an older copy of the log"):
        again.save()


def test_an_older_copy_edited_by_hand_is_not_renewed_by_a_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a reader gave the edited copy a new generation, which wiped out what told it apart
    monkeypatch.setattr("substrate.view.TAIL_LIMIT", 2)  # a catalog written for a small log
    s, backup = _shard_with_a_backup(tmp_path)
    s.compact()
    log = tmp_path / "items.jsonl"
    log.write_bytes(backup)
    assert len(Substrate(tmp_path)) == 5  # its catalog written, by a reader
    edited = backup.replace(b"fact 4", b"fact 4, fixed")  # near the end, longer
    log.write_bytes(edited)
    reader = Substrate(tmp_path)
    assert len(reader) == 5
    assert reader.log_health()["older_copy"]
    assert log.read_bytes() == edited  # left as it was


def test_a_compaction_between_reading_the_note_and_the_log_is_no_older_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the log was read before the note: a compaction in between made it look a copy of old
    s, _ = _shard_with_a_backup(tmp_path)
    reader = Substrate(tmp_path)
    real, compacted = Substrate._fresh_view, []

    def compacted_after(self: Substrate) -> Any:
        view = real(self)  # the log read, then compacted by another process
        if not compacted:
            compacted.append(True)
            Substrate(tmp_path).compact()
        return view

    monkeypatch.setattr(Substrate, "_fresh_view", compacted_after)
    assert reader.log_health()["older_copy"] is False


def test_a_compaction_that_stopped_before_its_note_is_known_by_the_next_commit(
    tmp_path: Path,
) -> None:
    s, backup = _shard_with_a_backup(tmp_path)
    note = tmp_path / "index" / "log-end.json"
    before = note.read_bytes()
    s.compact()
    note.write_bytes(before)  # the note of the old log, as a crash after the rename leaves it
    s.add("text", "after the compaction")
    s.save()
    (tmp_path / "items.jsonl").write_bytes(backup)
    assert Substrate(tmp_path).log_health()["older_copy"]


def test_a_note_naming_one_retired_generation_alone_is_read(tmp_path: Path) -> None:
    from substrate.logend import read_note

    note = tmp_path / "log-end.json"
    note.write_bytes(b'{"generation":"b2","end":9,"retired":"a1"}')  # not in a list
    noted = read_note(note)
    assert noted is not None and noted.of_an_older_copy("a1") and not noted.of_an_older_copy("b2")


def test_a_renewed_generation_is_none_of_those_retired(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a short generation written by hand has few values: one retired again made the sound log
    # look an older copy of itself, and writes were refused
    s = Substrate(tmp_path)
    s.add("text", "one")
    s.save()
    log = LogFile(tmp_path)
    current = log.generation()
    drawn = iter([current, "0123456789abcdef", "fedcba9876543210"])
    note = log.end_path.read_bytes().replace(b'"end"', b'"retired":["0123456789abcdef"],"end"')
    log.end_path.write_bytes(note)
    monkeypatch.setattr("substrate.log.secrets.token_hex", lambda n: next(drawn))
    assert log.renew_generation(current) == "fedcba9876543210"
    s.add("text", "two")
    s.save()  # not refused as an older copy


def test_a_generation_written_by_hand_outside_ascii_is_not_renewed_in_place(
    tmp_path: Path,
) -> None:
    # as many hex digits as it had characters were written over its bytes: what was left of
    # "é" made the header invalid UTF-8, and every command failed on it
    s = Substrate(tmp_path)
    s.add("text", "one")
    s.save()
    log = LogFile(tmp_path)
    head = log.path.read_bytes().split(b"\n", 1)[0]
    hand_made = log.path.read_bytes().replace(head, b'{"mixle_log":1,"generation":"\xc3\xa9"}', 1)
    log.path.write_bytes(hand_made)
    assert log.renew_generation("é") == "é"
    assert log.path.read_bytes() == hand_made
    assert len(Substrate(tmp_path)) == 1
