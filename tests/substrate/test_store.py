from __future__ import annotations

import dataclasses
import errno
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest

from substrate import Substrate, SubstrateItem
from substrate.derived import CATALOG_FILE, INDEX_DIR
from substrate.errors import InvalidInputError, ShardError, SubstrateError
from substrate.log import LogFile
from substrate.store import CompactStats
from substrate.view import TAIL_LIMIT


def lines(root: Path) -> list[dict]:
    return [orjson.loads(x) for x in (root / "items.jsonl").read_bytes().splitlines() if x]


def test_in_memory_shard_seed_semantics() -> None:
    s = Substrate()
    a = s.add("text", "alpha", scope="team-a")
    b = s.add("record", "beta")
    assert len(s) == 2 and s.get(a).text == "alpha"
    assert [i.id for i in s.all()] == [a, b]
    assert [i.id for i in s.all(kind="record")] == [b]
    assert [i.id for i in s.all(scope="team-a")] == [a]
    s.put(SubstrateItem("text", "alpha2", id=a))  # replace keeps position
    assert [i.text for i in s.all()] == ["alpha2", "beta"]
    assert s.remove(a) is True and s.remove(a) is False
    assert s.get(a) is None and len(s) == 1
    with pytest.raises(ValueError):
        s.save()


def test_save_appends_only_changes(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    ids = [s.add("text", f"item {i}") for i in range(3)]
    s.save()
    size = (tmp_path / "items.jsonl").stat().st_size
    s.save()  # nothing changed: nothing written
    assert (tmp_path / "items.jsonl").stat().st_size == size
    s.get(ids[1]).text = "edited"  # live object: mutation is persisted by save
    s.remove(ids[0])
    s.save()
    records = lines(tmp_path)
    assert records[0]["mixle_log"] == 1
    assert sum(1 for r in records if "commit" in r) == 2
    last_batch = records[-3:-1]
    assert {r.get("text") for r in last_batch if "kind" in r} == {"edited"}
    assert [r["id"] for r in last_batch if r.get("tombstone")] == [ids[0]]
    fresh = Substrate(tmp_path)
    assert len(fresh) == 2
    assert [i.text for i in fresh.all()] == ["edited", "item 2"]


def test_compacting_a_shard_never_written_does_nothing(tmp_path: Path) -> None:
    assert Substrate(tmp_path / "new").compact() == CompactStats(0, 0, 0)
    assert not (tmp_path / "new").exists()


def test_compacting_an_empty_log_leaves_it_empty(tmp_path: Path) -> None:
    (tmp_path / "items.jsonl").touch()  # as `mixle init` leaves a shard
    assert Substrate(tmp_path).compact() == CompactStats(0, 0, 0)
    assert (tmp_path / "items.jsonl").read_bytes() == b""  # it grew by a header


def test_compacting_a_log_with_nothing_to_reclaim_changes_nothing(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    s.add("text", "kept")
    s.save()
    s.compact()  # one batch of live items, as a compaction leaves it
    log = (tmp_path / "items.jsonl").read_bytes()
    (tmp_path / "index" / "search-kept").write_text("an index file")
    stats = s.compact()
    assert stats.bytes_before == stats.bytes_after == len(log) and stats.live_items == 1
    assert (tmp_path / "items.jsonl").read_bytes() == log  # same generation, index kept
    assert (tmp_path / "index" / "search-kept").exists()


def test_compact_refuses_a_log_it_may_not_write(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    s.remove(s.add("text", "gone"))
    s.save()
    log = tmp_path / "items.jsonl"
    log.chmod(0o444)  # add and rm fail on it: a rename would have replaced it all the same
    before = log.read_bytes()
    with pytest.raises(ShardError, match="not writable"):
        s.compact()
    assert log.read_bytes() == before


def test_reopened_shard_and_insertion_order_survive_compaction(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    ids = [s.add("text", f"n{i}") for i in range(5)]
    s.save()
    s.put(SubstrateItem("text", "n1-v2", id=ids[1]))
    s.remove(ids[3])
    s.save()
    stats = s.compact()
    assert stats.live_items == 4 and stats.bytes_after < stats.bytes_before
    again = Substrate(tmp_path)
    assert [i.text for i in again.all()] == ["n0", "n1-v2", "n2", "n4"]
    assert sum(1 for r in lines(tmp_path) if "id" in r) == 4


def test_save_to_new_root_and_load(tmp_path: Path) -> None:
    s = Substrate()
    a = s.add("text", "one")
    path = s.save(tmp_path / "new")
    assert path.endswith("items.jsonl") and (tmp_path / "new" / "mixle.toml").exists()
    t = Substrate()
    t.load(tmp_path / "new")
    assert t.get(a).text == "one"
    with pytest.raises(FileNotFoundError):  # as the seed API raises ...
        Substrate().load(tmp_path / "missing")
    with pytest.raises(SubstrateError, match="no shard at"):  # ... and one of the library's
        Substrate().load(tmp_path / "missing")


def test_an_in_memory_shard_saved_with_an_item_no_line_holds_makes_no_shard(
    tmp_path: Path,
) -> None:
    s = Substrate()
    s.add("text", "fine")
    spoilt = s.get(s.add("text", "x"))
    assert spoilt is not None
    spoilt.tags = "abc"  # type: ignore[assignment]  # changed in place after it was put
    with pytest.raises(InvalidInputError, match="'tags' must be a list of strings"):
        s.save(tmp_path / "new")
    assert not (tmp_path / "new").exists()  # not a folder holding only mixle.toml
    assert len(s) == 2 and s.root is None  # and the store keeps its items and its place


def test_an_in_memory_shard_pickles_and_copies_after_a_search_too(tmp_path: Path) -> None:
    import copy
    import pickle

    s = Substrate()
    s.add("text", "refunds take fourteen days")
    assert s.search("refunds")
    for other in (copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        assert [i.text for i, _ in other.search("refunds")] == ["refunds take fourteen days"]
    assert repr(s) == "<Substrate in memory>"
    on_disk = Substrate(tmp_path / "shard")
    assert repr(on_disk) == f"<Substrate {tmp_path / 'shard'}>"
    with pytest.raises(InvalidInputError, match="on disk cannot be pickled or copied"):
        pickle.dumps(on_disk)


def test_an_item_changed_in_place_is_written_once(tmp_path: Path) -> None:
    store = Substrate(tmp_path)
    item_id = store.add("text", "x")
    store.save()
    item = store.get(item_id)
    assert item is not None
    item.tags.append("t")
    store.save()
    lines = (tmp_path / "items.jsonl").read_bytes().count(b"\n")
    store.save()
    store.add("text", "another")
    store.save()  # it wrote the changed item again with every save
    assert (tmp_path / "items.jsonl").read_bytes().count(b"\n") == lines + 2
    item.tags.append("u")  # changed again: saved again
    store.save()
    assert Substrate(tmp_path).get(item_id).tags == ["t", "u"]  # type: ignore[union-attr]


def test_an_item_held_across_saves_keeps_saving_when_another_process_writes_between(
    tmp_path: Path,
) -> None:
    store = Substrate(tmp_path)
    item_id = store.add("text", "v0")
    store.save()
    held = store.get(item_id)
    assert held is not None
    held.text = "v1"
    other = Substrate(tmp_path)
    log = store._log
    assert log is not None
    append = log.append

    def another_save_first(lines: Any) -> Any:  # another process saves just before this one
        other.add("text", "written elsewhere meanwhile")
        other.save()
        return append(lines)

    log.append = another_save_first  # type: ignore[method-assign]
    store.save()
    log.append = append  # type: ignore[method-assign]
    assert store.get(item_id) is held  # its own save is no change by another process
    held.text = "v2"
    store.save()
    size = (tmp_path / "items.jsonl").stat().st_size
    store.save()  # nothing left to save: nothing written, nothing reverted
    assert (tmp_path / "items.jsonl").stat().st_size == size
    assert Substrate(tmp_path).get(item_id).text == "v2"  # type: ignore[union-attr]


def test_missing_root_is_an_empty_shard_and_creates_nothing(tmp_path: Path) -> None:
    s = Substrate(tmp_path / "nope")
    assert len(s) == 0 and s.all() == [] and s.get("0123456789abcdef") is None
    assert not (tmp_path / "nope").exists()


def test_catalog_is_rewritten_and_used(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    for i in range(TAIL_LIMIT + 10):
        s.put(SubstrateItem("text", f"x{i}"))
    s.save()
    assert (tmp_path / "index" / "offsets.bin").exists()
    one = s.add("text", "after the catalog")
    s.save()
    fresh = Substrate(tmp_path)
    assert len(fresh) == TAIL_LIMIT + 11
    assert fresh.get(one).text == "after the catalog"


def test_stale_or_missing_catalog_is_rebuilt_not_trusted(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    ids = [s.add("text", f"x{i}") for i in range(TAIL_LIMIT + 5)]
    s.save()
    catalog = tmp_path / "index" / "offsets.bin"
    catalog.write_bytes(b"garbage")
    assert Substrate(tmp_path).get(ids[7]).text == "x7"
    catalog.unlink()
    assert len(Substrate(tmp_path)) == len(ids)
    s.compact()  # new generation: an old catalog must not be trusted
    assert Substrate(tmp_path).get(ids[-1]).text == f"x{len(ids) - 1}"


def test_a_catalog_it_cannot_read_hides_no_item_and_compact_keeps_them_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an outside chmod 000 on offsets.bin: the rewritten catalog kept the mode, could not be
    # read back, and the items folded into it vanished; compact then wrote an empty log
    from substrate import catalog as catalog_module

    s = Substrate(tmp_path)
    ids = [s.add("text", f"x{i}") for i in range(TAIL_LIMIT + 5)]
    s.save()
    s.remove(ids.pop())  # something for compact to reclaim
    s.save()
    s.close()
    real_open = os.open

    def unreadable(path: Any, flags: int, *args: Any) -> int:
        if str(path).endswith("offsets.bin"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return int(real_open(path, flags, *args))

    monkeypatch.setattr(catalog_module.os, "open", unreadable)
    reader = Substrate(tmp_path)
    assert len(reader) == len(ids) and reader.get(ids[3]).text == "x3"  # type: ignore[union-attr]
    with pytest.raises(ShardError, match="cannot read back .*offsets.bin"):
        reader.compact()  # the log is rewritten whole; the catalog it cannot read is named
    reader.close()
    monkeypatch.undo()
    assert len(Substrate(tmp_path)) == len(ids)


def test_a_file_replaced_over_an_unreadable_one_can_be_read_back(tmp_path: Path) -> None:
    from substrate.replacing import replace_file

    target, tmp = tmp_path / "offsets.bin", tmp_path / "new"
    target.write_bytes(b"old")
    target.chmod(0o000)
    tmp.write_bytes(b"new")
    replace_file(tmp, target)
    assert target.stat().st_mode & 0o777 == 0o400  # the owner reads it; no one else gains


def test_non_hex_ids_are_supported(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    for i in range(TAIL_LIMIT + 5):
        s.put(SubstrateItem("text", f"doc {i}", id=f"doc-{i}"))
    s.save()
    fresh = Substrate(tmp_path)
    assert fresh.get("doc-42").text == "doc 42"
    assert fresh.get("doc-x") is None


def test_reads_header_less_legacy_log_and_converts_on_write(tmp_path: Path) -> None:
    old = [SubstrateItem("text", f"legacy {i}") for i in range(3)]
    (tmp_path / "items.jsonl").write_bytes(b"".join(orjson.dumps(i.to_json()) + b"\n" for i in old))
    s = Substrate(tmp_path)
    assert [i.text for i in s.all()] == ["legacy 0", "legacy 1", "legacy 2"]
    s.add("text", "new")
    s.save()
    assert [i.text for i in Substrate(tmp_path).all()][-1] == "new"
    assert lines(tmp_path)[0]["mixle_log"] == 1


def test_a_legacy_log_without_a_last_line_break_keeps_its_last_item(tmp_path: Path) -> None:
    # the reference loader reads every complete line: one without a line break is still one
    old = [orjson.dumps(SubstrateItem("text", f"legacy {i}").to_json()) for i in range(2)]
    (tmp_path / "items.jsonl").write_bytes(old[0] + b"\n" + old[1])
    s = Substrate(tmp_path)
    assert [i.text for i in s.all()] == ["legacy 0", "legacy 1"]
    s.add("text", "new")
    s.save()
    assert [i.text for i in Substrate(tmp_path).all()] == ["legacy 0", "legacy 1", "new"]
    compacted = tmp_path / "compacted"  # compaction copies the lines as they are
    compacted.mkdir()
    (compacted / "items.jsonl").write_bytes(old[0] + b"\n" + old[1])
    assert Substrate(compacted).compact().live_items == 2
    assert [i.text for i in Substrate(compacted).all()] == ["legacy 0", "legacy 1"]
    torn = tmp_path / "torn"  # a cut last line is still no record
    torn.mkdir()
    (torn / "items.jsonl").write_bytes(old[0] + b"\n" + old[1][:-5])
    assert [i.text for i in Substrate(torn).all()] == ["legacy 0"]


def test_converting_a_legacy_log_says_what_it_drops(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    old = [orjson.dumps(SubstrateItem("text", f"legacy {i}").to_json()) for i in range(2)]
    (tmp_path / "items.jsonl").write_bytes(old[0] + b"\n" + old[1][:-5])
    s = Substrate(tmp_path)
    s.add("text", "new")
    s.save()  # the first write converts the log
    assert [i.text for i in Substrate(tmp_path).all()] == ["legacy 0", "new"]
    assert f"discarded {len(old[1]) - 5} bytes of an unfinished last line" in caplog.text


def test_saved_and_pending_changes(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    a = s.add("text", "a")
    s.save()
    mark = s.log_watermark()
    b = s.add("text", "b")
    s.remove(a)
    pending = s.pending_changes()
    assert [i.id for i in pending.upserts] == [b] and pending.removed == [a]
    s.save()
    changes = s.saved_changes(mark)
    assert changes is not None
    assert [i.id for i in changes.upserts] == [b] and changes.removed == [a]
    s.compact()
    assert s.saved_changes(mark) is None  # another generation: rebuild needed


def test_put_rejects_non_items() -> None:
    with pytest.raises(ValueError):
        Substrate().put({"kind": "text"})  # type: ignore[arg-type]


def test_a_store_in_memory_keeps_an_item_as_given_as_the_seed_s_does() -> None:
    store = Substrate()
    item_id = store.put(SubstrateItem("text", "x", tags=("a", "b")))  # type: ignore[arg-type]
    assert store.get(item_id).tags == ("a", "b")  # type: ignore[union-attr]


def test_log_lines_carry_every_field_with_the_id_first() -> None:
    from substrate.item import FIELD_ORDER
    from substrate.itemline import encode

    item = SubstrateItem("text", "x", tags=["t"])
    data = orjson.loads(encode(item))
    assert list(data)[0] == "id" and set(data) == set(FIELD_ORDER)
    assert SubstrateItem.from_json(data) == item


def test_a_first_batch_into_a_new_shard_does_not_load_numpy(tmp_path: Path) -> None:
    # there is no catalog to look ids up in: importing numpy (60 ms) would be for nothing
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import sys
        from substrate.store import Substrate
        s = Substrate(sys.argv[1])
        for i in range(200):
            s.add("text", f"note {i}")
        s.save()
        assert len(Substrate(sys.argv[1])) == 200
        print("numpy" in sys.modules)
        """
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "new")],
        check=True,
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("at_once", [True, False])
def test_large_batch_against_the_catalog_keeps_order_and_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at_once: bool
) -> None:
    import substrate.view as view

    monkeypatch.setattr(view, "_all_at_once", lambda ids: at_once)
    s = Substrate(tmp_path)
    ids = [s.put(SubstrateItem("text", f"v1 {i}")) for i in range(TAIL_LIMIT + 10)]
    s.save()  # the catalog now covers these
    for item_id in ids[:100]:
        s.put(SubstrateItem("text", "v2", id=item_id))  # replaced: keeps its place
    for item_id in ids[100:200]:
        s.remove(item_id)
    fresh = [s.put(SubstrateItem("text", f"new {i}")) for i in range(100)]
    s.save()  # one batch of 300 lines, looked up in the catalog at once or one by one
    again = Substrate(tmp_path)
    listed = [i.id for i in again.iter_items()]
    assert len(again) == len(ids) == len(listed)
    assert listed[:100] == ids[:100] and listed[100:-100] == ids[200:]
    assert listed[-100:] == fresh
    assert again.get(ids[5]).text == "v2" and again.get(ids[150]) is None


def test_a_few_hundred_changes_against_the_catalog_do_not_load_numpy(tmp_path: Path) -> None:
    # looked up one by one, they cost a few milliseconds; importing numpy costs about 0.1 s
    import subprocess
    import sys
    import textwrap

    s = Substrate(tmp_path)
    ids = [s.put(SubstrateItem("text", f"v1 {i}")) for i in range(TAIL_LIMIT + 10)]
    s.save()  # the catalog now covers these
    assert (tmp_path / INDEX_DIR / CATALOG_FILE).exists()
    script = textwrap.dedent(
        """
        import sys
        from substrate.item import SubstrateItem
        from substrate.store import Substrate
        s = Substrate(sys.argv[1])
        ids = sys.stdin.read().split()
        for item_id in ids[:150]:
            s.put(SubstrateItem("text", "v2", id=item_id))
        for item_id in ids[150:]:
            s.remove(item_id)
        s.save()
        print("numpy" in sys.modules)
        """
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        input=" ".join(ids[:300]),
        check=True,
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert out.stdout.strip() == "False"
    again = Substrate(tmp_path)
    listed = [(i.id, i.text) for i in again.iter_items()]
    assert listed[:150] == [(item_id, "v2") for item_id in ids[:150]]
    assert [i for i, _ in listed[150:]] == ids[300:]


def test_folding_many_lines_at_open_agrees_with_one_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import substrate.view as view

    s = Substrate(tmp_path)
    ids = [s.put(SubstrateItem("text", f"v1 {i}")) for i in range(TAIL_LIMIT + 10)]
    s.save()  # the catalog covers these; what follows stays in the log's tail
    for item_id in ids[:1500]:
        s.put(SubstrateItem("text", "v2", id=item_id))
    s.save()
    for item_id in ids[:300]:
        s.put(SubstrateItem("text", "v3", id=item_id))  # the same ids once more
    for item_id in ids[1500:2000]:
        s.remove(item_id)
    new = [s.put(SubstrateItem("text", f"new {i}")) for i in range(500)]
    s.save()

    def opened() -> tuple[int, list[tuple[str, str]]]:
        again = Substrate(tmp_path)
        return len(again), [(i.id, i.text) for i in again.iter_items()]

    monkeypatch.setattr(view, "_VECTOR_FOLD", 10**9)
    one_at_a_time = opened()
    monkeypatch.setattr(view, "_VECTOR_FOLD", 1)
    vectorized = opened()
    assert vectorized == one_at_a_time
    assert vectorized[0] == len(ids) and vectorized[1][-500:] == [
        (i, f"new {n}") for n, i in enumerate(new)
    ]
    assert vectorized[1][0] == (ids[0], "v3") and vectorized[1][400] == (ids[400], "v2")


def test_a_reader_that_cannot_write_the_catalog_still_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate import ShardError
    from substrate import view as view_module

    s = Substrate(tmp_path)
    ids = [s.put(SubstrateItem("text", f"r{i}")) for i in range(TAIL_LIMIT + 10)]
    s.save()
    (tmp_path / "index" / "offsets.bin").unlink()

    def refuse(*args: object, **kwargs: object) -> None:
        raise ShardError("read-only file system")

    monkeypatch.setattr(view_module, "write_catalog", refuse)
    reader = Substrate(tmp_path)
    assert reader.get(ids[-1]).text == f"r{len(ids) - 1}" and len(reader) == len(ids)


def test_a_damaged_catalog_is_rebuilt_instead_of_blaming_the_log(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    ids = [s.put(SubstrateItem("text", f"c{i}")) for i in range(TAIL_LIMIT + 10)]
    s.save()
    catalog = tmp_path / "index" / "offsets.bin"
    data = bytearray(catalog.read_bytes())
    for record in range(50):  # scramble the offsets of some records (keys left intact)
        start = 64 + record * 24 + 8
        data[start : start + 8] = (7 + record).to_bytes(8, "little")
    catalog.write_bytes(bytes(data))
    reader = Substrate(tmp_path)
    texts = {i.text for i in reader.iter_items()}
    assert len(texts) == len(ids)
    again = Substrate(tmp_path)
    catalog.write_bytes(bytes(data))
    assert all(again.get(i) is not None for i in ids[:200])


def test_checkpoint_folds_the_saved_tail_into_the_catalog(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    ids = [s.add("text", f"x{i}") for i in range(300)]
    s.save()
    assert not s.checkpoint(min_lines=300)  # 300 lines wait: not more than asked
    assert s.checkpoint(min_lines=100)
    fresh = Substrate(tmp_path)
    assert not fresh._fresh_view().tail  # nothing left to fold when opening
    assert len(fresh) == 300 and fresh.get(ids[123]).text == "x123"
    assert not Substrate().checkpoint()  # in memory: nothing to write


@pytest.mark.parametrize("first", ["7", "f"])  # keys below and above 2**63
def test_one_change_after_the_catalog_lists_every_item(tmp_path: Path, first: str) -> None:
    s = Substrate(tmp_path)
    ids = [s.put(SubstrateItem("text", f"n{i}", id=f"{first}{i:015x}")) for i in range(5)]
    s.save()
    assert s.checkpoint()
    s.remove(ids[2])
    s.put(SubstrateItem("text", "changed", id=ids[0]))
    s.save()
    listed = {i.id: i.text for i in Substrate(tmp_path).all()}
    assert sorted(listed) == sorted(ids[:2] + ids[3:]) and listed[ids[0]] == "changed"
    assert Substrate(tmp_path).checkpoint()  # the catalog is rewritten from the same records


def test_folding_a_tail_into_the_catalog_leaves_numpy_ma_unimported(tmp_path: Path) -> None:
    import subprocess
    import sys
    import textwrap

    s = Substrate(tmp_path)
    ids = [s.add("text", f"x{i}") for i in range(50)]
    s.save()
    assert s.checkpoint()
    script = textwrap.dedent(
        """
        import sys
        from substrate.store import Substrate
        s = Substrate(sys.argv[1])
        for item in list(s.iter_items())[::2]:
            item.text += " changed"
            s.put(item)
        s.add("text", "new")
        s.save()
        assert s.checkpoint(min_lines=1)
        assert "numpy.ma" not in sys.modules  # np.isin and np.unique import it: 10-25 ms
        """
    )
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=True, cwd=root)
    again = Substrate(tmp_path)
    assert len(again) == 51
    assert again.get(ids[2]).text == "x2 changed" and again.get(ids[3]).text == "x3"


@pytest.mark.parametrize(
    "field, value",
    [("tags", [1]), ("text", None), ("payload", [1]), ("created_at", None), ("id", "")],
)
def test_a_badly_typed_item_is_refused_at_put_and_at_save_and_the_shard_stays_readable(
    tmp_path: Path, field: str, value: object
) -> None:
    s = Substrate(tmp_path)
    good = s.add("text", "good")
    s.save()
    bad = SubstrateItem("text", "bad")
    setattr(bad, field, value)
    with pytest.raises(InvalidInputError, match="cannot be saved"):
        s.put(bad)  # refused at once: it does not stop the saves of the items after it
    changed = SubstrateItem("text", "spoilt after it was put")
    s.put(changed)
    setattr(changed, field, value)
    with pytest.raises(InvalidInputError, match="cannot be saved"):
        s.save()
    again = Substrate(tmp_path)
    assert again.get(good).text == "good" and len(again) == 1


@dataclasses.dataclass
class _Point:
    x: float


@pytest.mark.parametrize(
    "payload",
    [
        {"x": float("nan")},
        {"deep": [1, {"y": float("-inf")}]},
        {"vector": np.array([0.5, np.nan])},
        {"score": np.float32("inf")},
        {"point": _Point(float("nan"))},  # orjson writes a dataclass's fields
    ],
)
def test_a_number_that_is_not_finite_is_refused_not_saved_as_null(
    tmp_path: Path, payload: dict[str, object]
) -> None:
    # orjson writes NaN as null: the item read back had None where the caller put a number
    s = Substrate(tmp_path)
    with pytest.raises(InvalidInputError, match="not finite"):
        s.put(SubstrateItem("text", "measured", payload=payload))
    kept = s.add("text", "kept", payload={"none": None, "vector": np.array([1.0, 2.0])})
    s.save()
    assert Substrate(tmp_path).get(kept).payload == {"none": None, "vector": [1.0, 2.0]}


def test_reading_past_the_end_of_a_shrunken_log_fails_instead_of_spinning(tmp_path: Path) -> None:
    from substrate.errors import ShardError
    from substrate.log import LogFile

    s = Substrate(tmp_path)
    s.add("text", "one")
    s.save()
    log_file = LogFile(tmp_path)
    size = log_file.path.stat().st_size
    with pytest.raises(ShardError, match="became shorter"):
        list(log_file.records(0, size + 10))  # what a reader sees when compaction shrank it


def test_a_corrupt_line_is_named_by_its_line_number(tmp_path: Path) -> None:
    from substrate.errors import CorruptShardError
    from substrate.log import LogFile

    s = Substrate(tmp_path)
    for i in range(3):
        s.add("text", f"n{i}")
        s.save()
    log_file = LogFile(tmp_path)
    lines = log_file.path.read_bytes().split(b"\n")
    start = sum(len(line) + 1 for line in lines[:3])  # after the first batch
    lines[4] = b"{broken"
    log_file.path.write_bytes(b"\n".join(lines))
    with pytest.raises(CorruptShardError) as caught:
        list(log_file.records(start, len(b"\n".join(lines))))
    assert caught.value.line == 5 and "invalid JSON" in str(caught.value)
    lines[4] = b'{"id": "x\xff"}'  # the reader is told what is wrong, not about surrogates
    log_file.path.write_bytes(b"\n".join(lines))
    with pytest.raises(CorruptShardError, match=r"not valid UTF-8 \(byte 10 of the line\)"):
        list(log_file.records(start, len(b"\n".join(lines))))


def test_a_batch_another_writer_commits_right_after_ours_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.log import LogFile

    a = Substrate(tmp_path)
    a.add("text", "first")
    a.save()
    other: list[str] = []
    real_append = LogFile.append

    def append_then_another_writer(self: LogFile, lines: list[bytes]) -> object:
        result = real_append(self, lines)
        if not other:  # B commits between A's append and A noting what it wrote
            b = Substrate(tmp_path)
            other.append(b.add("text", "from B"))
            b.save()
        return result

    monkeypatch.setattr(LogFile, "append", append_then_another_writer)
    a.add("text", "second")
    a.save()
    monkeypatch.undo()
    assert a.get(other[0]) is not None and len(a) == 3


def test_a_failed_save_elsewhere_keeps_the_unsaved_items(tmp_path: Path) -> None:
    from substrate.errors import ShardError

    s = Substrate()
    ids = [s.add("text", f"n{i}") for i in range(2)]
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(ShardError):
        s.save(blocker / "shard")
    assert len(s) == 2 and s.get(ids[0]).text == "n0"
    s.save(tmp_path / "shard")
    assert len(Substrate(tmp_path / "shard")) == 2 and s.root == tmp_path / "shard"


def test_a_save_whose_folder_cannot_be_made_is_a_shard_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As every other failed write is (``/proc/x``, a read-only mount): not the OSError of
    ``mkdir``, which the command line would report as a crash."""

    def refuse(self: Path, *args: Any, **kwargs: Any) -> None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(self))

    s = Substrate()
    s.add("text", "kept")
    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(ShardError, match="cannot create .*No such file or directory"):
        s.save(tmp_path / "nowhere" / "shard")
    monkeypatch.undo()
    assert len(s) == 1 and s.root is None


def test_search_refuses_a_negative_k() -> None:
    """The seed's slice would have dropped the last hit; an empty list hides the slip."""
    s = Substrate()
    s.add("text", "refund policy")
    assert s.search("refund", k=0) == []
    assert len(s.search("refund", k=np.int64(2))) == 1  # numpy's whole numbers are whole
    for k in (-1, 1.5, None):
        with pytest.raises(InvalidInputError, match="k must be a whole number >= 0"):
            s.search("refund", k=k)  # type: ignore[arg-type]


def test_an_item_another_process_changed_is_read_afresh(tmp_path: Path) -> None:
    a = Substrate(tmp_path)
    item_id = a.add("text", "v1")
    a.save()
    assert a.get(item_id).text == "v1"  # now cached in a
    b = Substrate(tmp_path)
    changed = b.get(item_id)
    changed.text = "v2"
    b.save()
    assert a.get(item_id).text == "v2"
    mine = a.get(item_id)
    mine.tags.append("reviewed")  # a's own change to the fresh copy is kept and saved
    a.save()
    again = Substrate(tmp_path).get(item_id)
    assert again.text == "v2" and again.tags == ["reviewed"]


def test_an_item_another_process_removed_is_gone_for_in_and_remove(tmp_path: Path) -> None:
    a = Substrate(tmp_path)
    item_id = a.add("text", "soon removed")
    a.save()
    assert len(a.all()) == 1  # now cached in a
    b = Substrate(tmp_path)
    assert b.remove(item_id)
    b.save()
    assert item_id not in a and not a.remove(item_id) and a.get(item_id) is None


def test_a_catalog_pointing_twice_at_one_line_is_rebuilt_not_trusted(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    ids = [s.put(SubstrateItem("text", f"c{i}")) for i in range(20)]
    s.save()
    assert s.checkpoint()
    catalog = tmp_path / "index" / "offsets.bin"
    data = bytearray(catalog.read_bytes())
    first = data[64 + 8 : 64 + 20]  # offset and length of the first record
    data[64 + 24 + 8 : 64 + 24 + 20] = first  # the second record now points at the same line
    catalog.write_bytes(bytes(data))
    listed = [i.id for i in Substrate(tmp_path).iter_items()]
    assert sorted(listed) == sorted(ids)


def _flip_catalog_bit(catalog: Path, record: int, byte: int) -> None:
    """Flip one bit of one record, leaving the file's size as it was."""
    data = bytearray(catalog.read_bytes())
    data[64 + 24 * record + byte] ^= 0x10
    catalog.write_bytes(bytes(data))


@pytest.mark.parametrize("verified_on_open", [True, False])
@pytest.mark.parametrize("byte", [3, 10, 17])  # in the key, the offset, the length
def test_a_bit_flipped_in_the_catalog_hides_no_item_and_misplaces_no_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, byte: int, verified_on_open: bool
) -> None:
    import substrate.catalog as catalog_module

    if not verified_on_open:  # a catalog too large to check on open: full reads still check
        monkeypatch.setattr(catalog_module, "VERIFY_ON_OPEN_BYTES", 0)
    s = Substrate(tmp_path)
    ids = [s.put(SubstrateItem("text", f"item {i}")) for i in range(40)]
    s.save()
    assert s.checkpoint()
    _flip_catalog_bit(tmp_path / "index" / "offsets.bin", 5, byte)
    fresh = Substrate(tmp_path)
    assert sorted(i.id for i in fresh.iter_items()) == sorted(ids)
    assert all(fresh.get(item_id).text == f"item {n}" for n, item_id in enumerate(ids))
    assert catalog_module.Catalog(tmp_path / "index" / "offsets.bin").header is not None  # replaced


@pytest.mark.parametrize("flipped", [False, True])
def test_a_large_catalog_looked_up_many_times_is_read_whole_and_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flipped: bool
) -> None:
    import substrate.catalog as catalog_module

    monkeypatch.setattr(catalog_module, "VERIFY_ON_OPEN_BYTES", 0)  # too large to read at once
    s = Substrate(tmp_path)
    ids = [s.put(SubstrateItem("text", f"item {i}")) for i in range(100)]
    s.save()
    assert s.checkpoint()
    if flipped:
        _flip_catalog_bit(tmp_path / "index" / "offsets.bin", 90, 10)
    catalog = catalog_module.Catalog(tmp_path / "index" / "offsets.bin")
    for item_id in ids[: catalog_module.WHOLE_AFTER_LOOKUPS - 1]:
        catalog.lookup(catalog_module.id_key(item_id))  # a read per step of each search
    assert catalog._records is None
    if flipped:  # the whole area is checked as it is read: a damaged one is never trusted
        with pytest.raises(catalog_module.StaleCatalogError):
            catalog.lookup(catalog_module.id_key(ids[-1]))
    else:
        assert catalog.lookup(catalog_module.id_key(ids[-1]))
        assert catalog._records is not None  # read whole once: no read per step from here
    fresh = Substrate(tmp_path)
    assert all(fresh.get(item_id).text == f"item {n}" for n, item_id in enumerate(ids))


def test_items_saved_as_encoded_lines_join_the_pending_changes_in_one_append(
    tmp_path: Path,
) -> None:
    from substrate.itemline import decode, encode

    store = Substrate(tmp_path)
    old = SubstrateItem(kind="text", text="old", id="a1")
    gone = SubstrateItem(kind="text", text="gone", id="b2")
    store.put(old)
    store.put(gone)
    store.save()
    assert store.get("a1") is not None  # now cached: the line must replace the cached copy
    store.remove("b2")
    store.put(SubstrateItem(kind="text", text="pending", id="c3"))
    store.put(SubstrateItem(kind="text", text="superseded", id="d4"))
    new = SubstrateItem(kind="record", text="new", payload={"n": 1}, id="a1")
    fresh = SubstrateItem(kind="text", text="fresh", id="d4")
    before = (tmp_path / "items.jsonl").stat().st_size
    count = store.mutation_count
    store.save_encoded([(new.id, encode(new)), (fresh.id, encode(fresh))])
    assert decode(encode(new)) == new
    assert store.mutation_count == count + 2 and store.last_append is not None
    appended = (tmp_path / "items.jsonl").read_bytes()[before:]
    assert appended.count(b"\n") == 5  # tombstone, c3, a1, d4 and the commit line
    for reader in (store, Substrate(tmp_path)):
        assert [(i.id, i.text) for i in reader.iter_items()] == [
            ("a1", "new"),
            ("c3", "pending"),
            ("d4", "fresh"),
        ]
        assert reader.get("a1") == new and reader.get("b2") is None
    with pytest.raises(InvalidInputError):
        Substrate().save_encoded([(new.id, encode(new))])


def test_removals_saved_with_encoded_lines_and_an_interrupted_save_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.itemline import encode

    store = Substrate(tmp_path)
    for name in ("a", "b", "c"):
        store.put(SubstrateItem(kind="text", text=name, id=name))
    store.save()
    store.put(SubstrateItem(kind="text", text="unsaved", id="d"))
    new = SubstrateItem(kind="text", text="new", id="e")

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(store, "_write_batch", interrupted)
    with pytest.raises(KeyboardInterrupt):
        store.save_encoded([(new.id, encode(new))], removed=["a", "b"])
    monkeypatch.undo()
    assert [i.id for i in store.iter_items()] == ["a", "b", "c", "d"]  # as before the call
    store.save_encoded([(new.id, encode(new))], removed=["a", "b", "b", "missing"])
    assert [i.id for i in Substrate(tmp_path).iter_items()] == ["c", "d", "e"]


def test_catalog_keys_of_many_ids_match_one_at_a_time() -> None:
    from substrate.catalog import id_key, id_keys

    hex_ids = ["0123456789abcdef", "ffffffffffffffff", "00000000000000a1"]
    for ids in (
        hex_ids,
        [],
        [*hex_ids, "note-1"],  # any other id is hashed
        ["0123456789ABCDEF", "0123456789abcdeg", "0123456789abcdef0"],
        ["0123456789abcde", "f0123456789abcdef"],  # lengths that add up to 32
    ):
        assert id_keys(ids) == b"".join(id_key(i) for i in ids)


def test_an_item_of_the_wrong_shape_is_refused_in_memory_too(tmp_path: Path) -> None:
    # kept as given, tags=None stopped every later search of the store with a TypeError
    s = Substrate()
    s.add("text", "refund policy is 30 days")
    for field, value in (("tags", None), ("text", 5), ("links", "abc"), ("payload", [1])):
        with pytest.raises(InvalidInputError, match=f"cannot be kept: '{field}' must be"):
            s.add("text", "x", **{field: value}) if field != "text" else s.add("text", value)
    assert [item.text for item, _ in s.search("refund")] == ["refund policy is 30 days"]
    with pytest.raises(InvalidInputError, match="'links' must be a list of strings"):
        Substrate(tmp_path).add("text", "x", links=None)  # not a TypeError


def test_text_that_is_not_utf8_is_refused_at_save_and_nothing_is_written(tmp_path: Path) -> None:
    store = Substrate(tmp_path)
    store.add("text", "kept")
    store.save()
    before = (tmp_path / "items.jsonl").read_bytes()
    with pytest.raises(InvalidInputError, match="cannot be saved"):
        store.add("text", "caf\udce9 from a Latin-1 argument")  # Python's undecodable bytes
    store.save()
    assert (tmp_path / "items.jsonl").read_bytes() == before


@pytest.mark.parametrize(
    "header",
    [
        b'{"mixle_log":"one","generation":"abc"}',
        b'{"mixle_log":1}',
        b'{"mixle_log":1,"generation":["abc"]}',
        b'{"mixle_log":[1],"generation":"abc"}',
    ],
)
def test_a_damaged_log_header_is_named_not_an_internal_error(tmp_path: Path, header: bytes) -> None:
    from substrate.errors import CorruptShardError

    store = Substrate(tmp_path)
    store.add("text", "kept")
    store.save()
    path = tmp_path / "items.jsonl"
    lines = path.read_bytes().split(b"\n", 1)
    path.write_bytes(header + b"\n" + lines[1])
    with pytest.raises(CorruptShardError, match=r"items\.jsonl:1"):
        Substrate(tmp_path).all()


def test_derived_files_replaced_by_something_else_are_worked_around(tmp_path: Path) -> None:
    store = Substrate(tmp_path / "a")
    store.add("text", "kept", id="a1")
    store.save()
    catalog = tmp_path / "a" / "index" / "offsets.bin"
    catalog.unlink(missing_ok=True)
    catalog.mkdir(parents=True)  # a directory where the catalog belongs: rebuilt from the log
    reader = Substrate(tmp_path / "a")
    assert [i.id for i in reader.iter_items()] == ["a1"] and reader.get("a1") is not None
    reader.add("text", "more", id="b2")
    reader.save()  # the catalog cannot be written there: the save stands all the same
    assert reader.checkpoint() is False
    assert [i.id for i in Substrate(tmp_path / "a").iter_items()] == ["a1", "b2"]
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "index").write_text("not a folder")
    other = Substrate(tmp_path / "b")
    for n in range(3):
        other.add("text", f"note {n}")
    other.save()
    assert other.checkpoint() is False and len(Substrate(tmp_path / "b")) == 3


def test_compaction_removes_the_copy_a_killed_compaction_left(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    store = Substrate(tmp_path)
    store.add("text", "kept", id="a1")
    store.save()
    leftover = tmp_path / ".items.jsonl.99999999.tmp"  # the pid of a process long gone
    leftover.write_bytes(b"x" * 4096)
    with caplog.at_level(logging.WARNING, logger="substrate.log"):
        store.compact()
    assert not leftover.exists() and "interrupted compaction" in caplog.text
    assert [i.id for i in Substrate(tmp_path).iter_items()] == ["a1"]


def test_the_first_write_of_a_run_removes_a_catalog_copy_a_killed_writer_left(
    tmp_path: Path,
) -> None:
    store = Substrate(tmp_path)
    store.add("text", "kept")
    store.save()
    (tmp_path / "index").mkdir(exist_ok=True)
    leftover = tmp_path / "index" / ".offsets.bin.99999999.tmp"  # a process long gone
    leftover.write_bytes(b"x" * 4096)
    mine = tmp_path / "index" / f".offsets.bin.{os.getpid()}.tmp"  # a live writer's: kept
    mine.write_bytes(b"x")
    again = Substrate(tmp_path)
    again.add("text", "more")
    again.save()
    assert not leftover.exists() and mine.exists()


def test_a_read_modify_write_may_save_through_another_path_to_the_same_shard(
    tmp_path: Path,
) -> None:
    import signal
    import threading

    real = tmp_path / "real"
    store = Substrate(real)
    store.add("text", "first")
    store.save()
    (tmp_path / "link").symlink_to(real)
    through_link = Substrate(tmp_path / "link")

    def save_through_the_real_path() -> None:
        other = Substrate(real)
        other.add("text", "second")
        other.save()

    def deadlocked(*_: object) -> None:
        raise TimeoutError("saving under the lock waited for the lock itself")

    previous = signal.signal(signal.SIGALRM, deadlocked)
    try:
        with through_link.exclusive():
            saver = threading.Thread(target=save_through_the_real_path)  # another thread
            saver.start()
            saver.join(timeout=0.5)
            assert saver.is_alive()  # it waits: the lock is held
            signal.alarm(10)
            save_through_the_real_path()  # this thread holds it, by whatever path
            signal.alarm(0)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    saver.join(timeout=10)
    assert not saver.is_alive() and len(Substrate(real)) == 3


@pytest.mark.parametrize("created", [float("nan"), float("inf"), float("-inf")])
def test_a_creation_time_json_cannot_hold_is_refused(tmp_path: Path, created: float) -> None:
    store = Substrate(tmp_path)
    store.add("text", "kept")
    store.save()
    with pytest.raises(InvalidInputError, match="finite"):
        store.put(SubstrateItem(kind="text", text="bad time", created_at=created))
    store.save()
    assert [i.text for i in Substrate(tmp_path).iter_items()] == ["kept"]


def test_files_rewritten_in_place_keep_the_permissions_their_owner_gave_them(
    tmp_path: Path,
) -> None:
    from substrate.governance import grant_approver

    s = Substrate(tmp_path)
    ids = [s.add("text", f"private note {i}") for i in range(3)]
    s.save()
    log, settings = tmp_path / "items.jsonl", tmp_path / "mixle.toml"
    for path in (log, settings):
        path.chmod(0o600)
    grant_approver(s, "bob", "research", by=None)  # rewrites mixle.toml
    s.remove(ids[0])
    s.save()
    s.compact()  # rewrites items.jsonl
    assert {path: path.stat().st_mode & 0o777 for path in (log, settings)} == {
        log: 0o600,
        settings: 0o600,
    }
    assert len(Substrate(tmp_path)) == 2


def test_files_kept_behind_a_link_are_rewritten_where_the_link_points(tmp_path: Path) -> None:
    from substrate.governance import grant_approver
    from substrate.replacing import replace_file

    shard, elsewhere = tmp_path / "shard", tmp_path / "elsewhere"
    s = Substrate(shard)
    ids = [s.add("text", f"note {i}") for i in range(3)]
    s.save()
    s.close()
    elsewhere.mkdir()
    for name in ("items.jsonl", "mixle.toml"):
        (shard / name).rename(elsewhere / name)
        (shard / name).symlink_to(elsewhere / name)
    s = Substrate(shard)
    from substrate import replacing

    synced: list[str] = []
    real_sync = replacing._sync_folder
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            replacing, "_sync_folder", lambda path: synced.append(path) or real_sync(path)
        )
        grant_approver(s, "bob", "research", by=None)  # rewrites mixle.toml
        s.remove(ids[0])
        s.save()
        s.compact()  # rewrites items.jsonl
    # each rename is made durable in the folder it happened in
    assert synced == [str(elsewhere), str(elsewhere)]
    for name in ("items.jsonl", "mixle.toml"):
        assert (shard / name).is_symlink(), name  # not replaced by a file of its own
    assert len(Substrate(shard)) == 2 and b"note 0" not in (elsewhere / "items.jsonl").read_bytes()
    assert "bob" in (elsewhere / "mixle.toml").read_text()
    # a target on another file system cannot be renamed onto: it is copied beside it first
    tmp = tmp_path / "new"
    tmp.write_text("fresh")
    real_replace = os.replace

    def across_devices(src: Any, dst: Any) -> None:
        if str(src) == str(tmp):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        real_replace(src, dst)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "replace", across_devices)
        replace_file(tmp, shard / "mixle.toml", follow=True)
    assert (elsewhere / "mixle.toml").read_text() == "fresh" and not tmp.exists()
    assert not list(elsewhere.glob(".*.tmp"))


def test_a_batch_larger_than_one_write_keeps_every_offset(tmp_path: Path) -> None:
    from substrate.log import LogFile

    lines = [
        orjson.dumps({"id": f"{i:016x}", "kind": "text", "text": "x" * (i % 7)}) + b"\n"
        for i in range(10_000)
    ]  # more lines than one write takes
    log = LogFile(tmp_path)
    mark, offsets, start, _ = log.append(lines)
    assert start == 0 and mark.offset == tmp_path.joinpath("items.jsonl").stat().st_size
    records = list(log.records(0, mark.offset))
    assert [r.offset for r in records] == offsets and len(records) == 10_000
    assert records[-1].data == {"id": f"{9_999:016x}", "kind": "text", "text": "xxx"}


def test_a_first_write_under_the_writer_lock_creates_the_shard_and_holds_the_lock(
    tmp_path: Path,
) -> None:
    import fcntl

    shard = tmp_path / "new" / "shard"
    store = Substrate(shard)
    with store.exclusive():  # two first `grant`s must take turns, as on an existing shard
        with open(shard / ".lock", "a+b") as other, pytest.raises(BlockingIOError):
            fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        store.add("text", "first")
        store.save()
    assert [i.text for i in Substrate(shard).all()] == ["first"]


def test_catching_up_with_the_log_reads_its_header_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.log import LogFile

    writer = Substrate(tmp_path)
    writer.add("text", "first")
    writer.save()
    reads: list[int] = []
    real = LogFile.header

    def counted(self: LogFile) -> Any:
        reads.append(1)
        return real(self)

    monkeypatch.setattr(LogFile, "header", counted)
    assert len(Substrate(tmp_path)) == 1
    assert len(reads) == 2  # the catch-up, and the check that the file was not replaced meanwhile


def test_peek_gives_a_copy_the_store_does_not_keep(tmp_path: Path) -> None:
    store = Substrate(tmp_path)
    item_id = store.add("text", "kept as stored")
    store.save()
    reopened = Substrate(tmp_path)
    seen = reopened.peek(item_id)
    assert seen is not None and seen.text == "kept as stored"
    seen.text = "changed on the copy"
    reopened.save()
    assert Substrate(tmp_path).get(item_id).text == "kept as stored"  # type: ignore[union-attr]
    assert reopened.peek("0" * 16) is None
    [copy] = reopened.read_items([item_id, "0" * 16], keep=False).values()  # many, as peek
    assert copy is not seen and copy.text == "kept as stored"
    live = reopened.get(item_id)  # what get hands out is the store's own: peek gives it too
    assert live is not None and reopened.peek(item_id) is live
    assert Substrate().peek(item_id) is None


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 20])
def test_lines_longer_than_a_read_block_are_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    # a line spanning many blocks is gathered and joined once (it was re-copied per block)
    from substrate import log as log_module

    s = Substrate(tmp_path)
    texts = ["a" * 300, "", "b", "c" * 63, "d" * 64, "e" * 1000]
    ids = [s.add("text", t or "-") for t in texts]
    s.save()
    s.close()
    monkeypatch.setattr(log_module, "_BLOCK", block)
    fresh = Substrate(tmp_path)
    assert [fresh.get(i).text for i in ids] == [t or "-" for t in texts]  # type: ignore[union-attr]


def test_the_index_is_closed_to_whom_the_log_is_closed_to(tmp_path: Path) -> None:
    import stat

    store = Substrate(tmp_path)
    store.add("text", "a first note")
    store.save()
    store.search("note", k=1)  # index/ made while the log was readable by all
    os.chmod(tmp_path / "items.jsonl", 0o600)  # the shard made private
    store = Substrate(tmp_path)
    store.add("text", "confidential salary table for Jane")
    store.save()
    assert store.search("salary", k=1)
    mode = stat.S_IMODE((tmp_path / "index").stat().st_mode)
    assert mode & 0o077 == 0 and mode & 0o700 == 0o700
    os.chmod(tmp_path / "items.jsonl", 0o640)  # the group may read the log: index/ stays closed
    store.add("text", "another note")
    store.save()
    assert stat.S_IMODE((tmp_path / "index").stat().st_mode) & 0o077 == 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("name", ["items.jsonl", "mixle.toml"])
def test_a_fifo_in_place_of_a_shard_file_is_refused_not_waited_on(
    tmp_path: Path, name: str
) -> None:
    os.mkfifo(tmp_path / name)  # nobody will ever write to it: opening it would wait for ever
    with pytest.raises(ShardError, match="not a regular file"):
        Substrate(tmp_path)
    if name == "mixle.toml":
        (tmp_path / "items.jsonl").touch()
    kept = Substrate()
    kept.add("text", "unsaved")
    with pytest.raises(ShardError, match="not a regular file"):
        kept.load(tmp_path)
    assert [item.text for item in kept.iter_items()] == ["unsaved"]  # nothing forgotten


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize(
    "name", ["log-end.json", "offsets.bin", "sources.json", "search-manifest.parquet"]
)
def test_a_fifo_among_the_derived_files_is_refused_not_waited_on(tmp_path: Path, name: str) -> None:
    store = Substrate(tmp_path)
    store.add("text", "kept note")
    store.save()
    (tmp_path / "index" / name).unlink(missing_ok=True)
    os.mkfifo(tmp_path / "index" / name)
    with pytest.raises(ShardError, match=f"{name} is not a regular file .remove it"):
        Substrate(tmp_path)
    (tmp_path / "index" / name).unlink()  # as the message says: rebuilt, nothing lost
    assert [item.text for item in Substrate(tmp_path).iter_items()] == ["kept note"]


def test_a_shard_with_a_bad_mixle_toml_refused_by_load_loses_nothing(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "items.jsonl").touch()
    (other / "mixle.toml").write_text("shard = 3\n")  # a table given as a value: refused
    kept = Substrate()
    kept.add("text", "unsaved")
    with pytest.raises(ShardError):
        kept.load(other)
    assert kept.root is None and [item.text for item in kept.iter_items()] == ["unsaved"]
    mine = Substrate(tmp_path / "mine")
    mine.add("text", "pending")
    with pytest.raises(ShardError):
        mine.load(other)
    mine.save()  # still bound to its own shard: the pending item lands there
    assert [item.text for item in Substrate(tmp_path / "mine").iter_items()] == ["pending"]


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"links": ["line1\nline2 fake: item ok"]}, "'links' must hold no control character"),
        ({"id": "a\tb"}, "'id' must hold no control character"),
        ({"scope": ""}, "'scope' must be a non-empty name"),
        ({"scope": "team\x1b[31m"}, "'scope' must be a non-empty name"),
        ({"links": ["real\u2028AUDIT: OK forged line"]}, "'links' must hold no control"),
        ({"id": "  "}, "'id' must be a non-empty string"),
    ],
)
def test_a_name_that_would_forge_a_line_of_a_report_is_refused(
    tmp_path: Path, fields: dict[str, Any], problem: str
) -> None:
    store = Substrate(tmp_path / "shard")
    with pytest.raises(InvalidInputError, match=problem):
        store.put(SubstrateItem("text", "x", **fields))
    store.save()
    assert list(Substrate(tmp_path / "shard").iter_items()) == []


@pytest.mark.parametrize(
    ("triples", "problem"),
    [
        ([[None, "owned_by", "team-x"]], "parts must be names"),
        ([["", "owned_by", "team-x"]], "parts must be names"),
        ([["ledger-svc", "owned_by"]], r"must be \[head, relation, tail\]"),
        ([["a", "b", "c", "d"]], r"must be \[head, relation, tail\]"),
        ("a owns b", r"must be a list of \[head, relation, tail\]"),
        ([["a", "b\nFORGED TRIPLE", "c"]], "parts must be names"),
    ],
)
def test_a_graph_item_whose_triples_state_nothing_is_refused(
    tmp_path: Path, triples: Any, problem: str
) -> None:
    store = Substrate(tmp_path / "shard")
    with pytest.raises(InvalidInputError, match=problem):
        store.put(SubstrateItem("graph", "", payload={"triples": triples}))
    facts = [["svc", "port", 8443], ["svc", "deprecated", True]]
    kept = store.put(SubstrateItem("graph", "", payload={"triples": facts}))
    store.save()
    assert [item.id for item in Substrate(tmp_path / "shard").iter_items()] == [kept]


def test_a_record_written_before_names_and_triples_were_checked_is_read_searched_and_removed(
    tmp_path: Path,
) -> None:
    from substrate.search import engine

    shard = tmp_path / "shard"
    lines = [
        {
            "id": "g1",
            "kind": "graph",
            "text": "payments-api facts",
            "scope": "local",
            "payload": {"triples": [["payments-api", "pci_scope", None], ["a", "b"]]},
        },
        {
            "id": "t\t1",
            "kind": "text",
            "text": "payments-api is written in Go.",
            "scope": "local",
            "links": ["x\ny"],
        },
    ]
    shard.mkdir()
    (shard / "items.jsonl").write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    store = Substrate(shard)
    assert {hit.item.id for hit in engine.search(store, "payments-api", 5)} == {"g1", "t\t1"}
    assert store.remove("g1") and store.remove("t\t1")
    store.save()
    assert list(Substrate(shard).iter_items()) == []


def test_add_masks_secrets_and_put_keeps_the_item_as_given(tmp_path: Path) -> None:
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    shard = Substrate(tmp_path / "shard")
    masked = shard.add("text", f"export GITHUB_TOKEN={token}", tags=["ci"])
    kept = shard.add("text", f"export GITHUB_TOKEN={token}", redact=False)
    raw = shard.put(SubstrateItem("text", f"put {token}", id="raw"))
    shard.save()
    assert shard.get(masked).text == "export GITHUB_TOKEN=[REDACTED:github_token]"  # type: ignore[union-attr]
    assert shard.get(masked).provenance["redactions"]["rules"] == ["github_token"]  # type: ignore[union-attr]
    assert token in shard.get(kept).text  # type: ignore[union-attr]
    assert shard.get(kept).provenance["unredacted_secrets"]["count"] == 1  # type: ignore[union-attr]
    assert token in shard.get(raw).text  # type: ignore[union-attr]  # the raw layer
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    assert stored.count(token) == 2  # the two asked for: never the one added plainly


def test_threads_sharing_one_store_take_turns_a_removal_during_a_save_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Substrate(tmp_path / "s")
    late = store.add("text", "written by the save under way")
    appending = threading.Event()
    append = LogFile.append

    def slow_append(log: LogFile, lines: list[bytes]) -> Any:
        appending.set()
        time.sleep(0.2)  # the other thread's removal comes while the lines are written
        return append(log, lines)

    monkeypatch.setattr(LogFile, "append", slow_append)
    saving = threading.Thread(target=store.save)
    saving.start()
    appending.wait(5)
    assert store.remove(late)  # waits for the save: then removes what it wrote
    saving.join()
    store.save()
    assert late not in Substrate(tmp_path / "s")


@pytest.mark.parametrize("root", ["", b"/tmp/shard", 5])
def test_a_root_that_is_empty_or_no_path_is_refused(root: Any) -> None:
    with pytest.raises(InvalidInputError, match="root"):
        Substrate(root)
    with pytest.raises(InvalidInputError, match="root"):
        Substrate().save(root)


def test_a_shard_file_the_system_will_not_let_it_use_is_a_shard_error(tmp_path: Path) -> None:
    (tmp_path / "items.jsonl").mkdir()  # a folder where the log belongs
    with pytest.raises(ShardError, match="items.jsonl"):
        len(Substrate(tmp_path))


def test_a_save_in_one_thread_waits_for_exclusive_in_another_without_a_deadlock(
    tmp_path: Path,
) -> None:
    store = Substrate(tmp_path / "s")
    store.add("text", "seed")
    store.save()
    inside = threading.Event()

    def read_modify_write() -> None:
        with store.exclusive():  # the shard's lock first, then a save takes the object's
            inside.set()
            time.sleep(0.2)
            store.add("text", "from the block")
            store.save()

    def plain_save() -> None:
        inside.wait(5)
        store.add("text", "from the other thread")
        store.save()

    threads = [threading.Thread(target=f, daemon=True) for f in (read_modify_write, plain_save)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert not any(thread.is_alive() for thread in threads)  # they hung on each other's lock
    assert len(Substrate(tmp_path / "s")) == 3


def test_close_in_one_thread_does_not_pull_the_log_from_under_a_read_in_another(
    tmp_path: Path,
) -> None:
    store = Substrate(tmp_path / "s")
    for n in range(300):
        store.add("text", f"item {n}")
    store.save()
    stop, errors = threading.Event(), []

    def close_again_and_again() -> None:
        while not stop.is_set():
            store.close()

    closer = threading.Thread(target=close_again_and_again, daemon=True)
    closer.start()
    try:
        for _ in range(20):
            assert sum(1 for _ in store.iter_items()) == 300
    except Exception as exc:  # a descriptor closed between its look-up and its read
        errors.append(exc)
    finally:
        stop.set()
        closer.join(5)
    assert not errors


def _appended(tmp_path: Path, depth: int) -> None:
    """A committed record whose payload is nested ``depth`` levels, as a hand may write one."""
    record = {
        "id": "deep",
        "kind": "text",
        "text": "deep lynx note",
        "payload": orjson.loads(b'{"a":' * depth + b"1" + b"}" * depth),
        "provenance": {},
        "scope": "local",
        "tags": [],
        "links": [],
        "created_at": 1.0,
    }
    with open(tmp_path / "items.jsonl", "ab") as log:
        # (orjson writes no deeper than 254 levels)
        log.write(json.dumps(record).encode() + b"\n" + b'{"commit": 1, "at": 1.0}\n')


def test_a_record_nested_too_deep_to_write_again_is_named_as_corrupt_where_it_is_read(
    tmp_path: Path,
) -> None:
    """Read, it could not be kept or indexed (orjson writes 254 levels at most): every search
    failed with an error about saving, and audit found nothing wrong."""
    from substrate.errors import CorruptShardError

    store = Substrate(tmp_path)
    store.add("text", "plain lynx note", id="plain")
    store.save()
    _appended(tmp_path, 150)  # deeper than mixle writes, still kept as it is
    assert Substrate(tmp_path).get("deep") is not None
    _appended(tmp_path, 254)
    with pytest.raises(CorruptShardError, match=r"items\.jsonl:6: .*nested deeper than 200"):
        Substrate(tmp_path).get("deep")


def test_a_thread_waiting_to_save_holds_up_no_reader_of_the_store(tmp_path: Path) -> None:
    # a save waiting for another process's writer held the store's own lock: every search
    # and get of a service's other threads waited with it
    import fcntl

    from substrate import locking

    store = Substrate(tmp_path / "shard")
    kept = store.add("text", "a note about tea")
    store.save()
    other = os.open(tmp_path / "shard" / ".lock", os.O_RDWR)  # another process's hold
    fcntl.flock(other, fcntl.LOCK_EX)
    store.add("text", "a note about coffee")
    saver = threading.Thread(target=store.save)
    saver.start()
    try:
        deadline = time.monotonic() + 10
        while saver.ident not in locking._waiting and time.monotonic() < deadline:
            time.sleep(0.01)
        assert saver.ident in locking._waiting  # it waits for the lock
        found: list[object] = []
        reader = threading.Thread(
            target=lambda: found.extend([store.get(kept), store.search("tea", keep=False)])
        )
        reader.start()
        reader.join(10)
        assert not reader.is_alive() and found[0] is not None and found[1]
        assert saver.is_alive()  # (still waiting: the reads went on beside it)
    finally:
        os.close(other)
        saver.join(10)
    assert len(Substrate(tmp_path / "shard")) == 2


def test_a_save_interrupted_after_its_append_leaves_nothing_unsaved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # committed, the batch stands: the store had it all unsaved still, and a retry wrote it
    # again (over what another process might have written since)
    from substrate.view import LogView

    store = Substrate(tmp_path / "shard")
    store.add("text", "first")
    store.save()
    for n in range(3):
        store.add("text", f"note {n}")

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    import substrate.log as log_module

    for where, name in ((LogView, "apply_batch"), (log_module, "note_end")):
        # (after the append returned; inside it, once the commit line is written)
        monkeypatch.setattr(where, name, interrupted)
        with pytest.raises(KeyboardInterrupt):
            store.save()
        monkeypatch.undo()
        size = (tmp_path / "shard" / "items.jsonl").stat().st_size
        store.save()  # nothing left to write
        assert (tmp_path / "shard" / "items.jsonl").stat().st_size == size
        assert len(Substrate(tmp_path / "shard")) == 4 + (name == "note_end")
        store.add("text", "one more")


def test_a_compaction_and_a_save_waiting_together_both_finish(tmp_path: Path) -> None:
    # compact took the store's lock, then the shard's; a save the other way round: once
    # another process let go, each held one and waited for the other
    import fcntl

    from substrate import locking

    store = Substrate(tmp_path / "shard")
    first = store.add("text", "a note")
    store.add("text", "another")
    store.save()
    store.remove(first)
    store.save()
    other = os.open(tmp_path / "shard" / ".lock", os.O_RDWR)  # another process's hold
    fcntl.flock(other, fcntl.LOCK_EX)
    store.add("text", "unsaved")
    saver = threading.Thread(target=store.save, daemon=True)
    compactor = threading.Thread(target=store.compact, daemon=True)
    try:
        for thread in (saver, compactor):
            thread.start()
            deadline = time.monotonic() + 10
            while thread.ident not in locking._waiting and time.monotonic() < deadline:
                time.sleep(0.01)
    finally:
        os.close(other)
    saver.join(10)
    compactor.join(10)
    assert not saver.is_alive() and not compactor.is_alive()
    assert sorted(i.text for i in Substrate(tmp_path / "shard").all()) == ["another", "unsaved"]


def test_add_refuses_a_field_an_item_does_not_have() -> None:
    # (a bare TypeError of the item's constructor before)
    with pytest.raises(InvalidInputError, match="add\\(\\) has no field foo; an item has"):
        Substrate().add("text", "x", foo=1)
