"""Writing the catalog: the numpy-free sort of a first catalog, and bulk writers' folding."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from substrate import Substrate, SubstrateItem
from substrate.catalog import Catalog, id_key, record_dtype, sorted_array, sorted_records
from substrate.itemline import encode
from substrate.view import TAIL_LIMIT


def _entries(n: int, seed: int) -> list[tuple[str, int, int, int]]:
    rng = random.Random(seed)
    ids = [f"{rng.getrandbits(64):016x}" for _ in range(n)]
    ids += ["custom-id", "another id", "ünïcode"]  # hashed keys, not hex
    ids.insert(3, ids[0].upper())  # not lowercase hex: hashed too
    return [(i, rng.randrange(1 << 40), rng.randrange(1 << 20), seq) for seq, i in enumerate(ids)]


def test_the_plain_sort_lays_out_the_records_as_numpy_does() -> None:
    for seed, n in ((1, 0), (2, 1), (3, 500)):
        entries = _entries(n, seed)
        array = np.zeros(len(entries), dtype=record_dtype())
        for row, (item_id, offset, length, seq) in zip(array, entries, strict=True):
            row["key"] = int.from_bytes(id_key(item_id), "big")
            row["offset"], row["length"], row["seq"] = offset, length, seq
        assert sorted_records(entries) == sorted_array(array)


def test_equal_keys_keep_their_order_in_both_sorts() -> None:
    entries = [("00000000000000ff", 9, 1, 0), ("0000000000000001", 5, 1, 1)]
    entries += [("00000000000000ff", 7, 1, 2)]  # the same key again (as a collision gives)
    body = sorted_records(entries)
    offsets = [int.from_bytes(body[24 * i + 8 : 24 * i + 16], "little") for i in range(3)]
    assert offsets == [5, 9, 7]


def test_a_bulk_writer_folds_its_lines_when_it_is_done(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    catalog = tmp_path / "index" / "offsets.bin"
    items = [SubstrateItem("text", f"b{i}", id=f"{i:016x}") for i in range(TAIL_LIMIT + 10)]
    half = len(items) // 2
    s.save_encoded([(item.id, encode(item)) for item in items[:half]], bulk=True)
    s.save_encoded([(item.id, encode(item)) for item in items[half:]], bulk=True)
    assert not catalog.exists()  # past TAIL_LIMIT, yet left for the checkpoint
    assert s.checkpoint()
    fresh = Substrate(tmp_path)
    assert len(fresh) == len(items) and fresh.get(items[-1].id).text == items[-1].text
    assert Catalog(catalog).header is not None


def test_other_writers_fold_past_the_tail_limit(tmp_path: Path) -> None:
    s = Substrate(tmp_path)
    items = [SubstrateItem("text", f"n{i}") for i in range(TAIL_LIMIT + 10)]
    s.save_encoded([(item.id, encode(item)) for item in items])
    assert (tmp_path / "index" / "offsets.bin").exists()
