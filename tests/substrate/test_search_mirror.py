"""Memory-mapped mirrors of the index: packs, packed strings, and when a mirror is trusted."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from substrate.item import SubstrateItem
from substrate.search import engine
from substrate.search.coverage import Coverage
from substrate.search.filters import SearchFilters
from substrate.search.index_files import MANIFEST, write_state
from substrate.search.layout import MANIFEST_PACK
from substrate.search.mirror import read_mirrored
from substrate.search.packs import PackError, open_pack, read_meta, write_pack
from substrate.search.params import DEFAULT_PARAMS, SearchParams
from substrate.search.ranker import rank
from substrate.search.state import IndexState, build_state
from substrate.search.strings import PackedStrings
from substrate.search.tokenize import Analyzer
from substrate.store import Substrate

AN = Analyzer()
REPO = Path(__file__).resolve().parents[2]


def items(n: int, seed: int = 1) -> list[SubstrateItem]:
    rng = random.Random(seed)
    vocab = [f"w{j}" for j in range(300)] + ["café", "naïve", "日本語"]
    return [
        SubstrateItem(
            "text" if i % 3 else "record",
            " ".join(rng.sample(vocab, 12)),
            id=f"i{i:04d}",
            tags=[f"t{i % 4}"] + (["ünïcode"] if i % 5 == 0 else []),
            scope="local" if i % 2 else "team",
            provenance={"source": f"docs/{i % 3}/f.md"},
            created_at=1000.0 + i,
        )
        for i in range(n)
    ]


def ranking(state: IndexState, query: str, **kw: object) -> list[tuple[str, float]]:
    return [(r.item_id, r.score) for r in rank(state, AN, query, 20, **kw)]  # type: ignore[arg-type]


@pytest.fixture
def written(tmp_path: Path) -> tuple[Path, IndexState]:
    state = build_state(AN, items(120), DEFAULT_PARAMS, Coverage("gen1", 99))
    state = state.with_changes(AN, items(6, seed=5), ["i0003"], coverage=state.coverage)
    write_state(tmp_path, state)
    return tmp_path, state


# -- packed strings and packs ------------------------------------------------------------------


def test_packed_strings_behave_like_a_list() -> None:
    words = ["pear", "", "apple", "日本", "Zebra", "apple pie", "ünï"]
    packed = PackedStrings.from_strings(words)
    assert list(packed) == words and len(packed) == len(words)
    assert packed[np.int32(3)] == "日本" and packed[-1] == "ünï" and packed[1:3] == ["", "apple"]
    for i, word in enumerate(words):
        assert packed.find(word) == i and packed.index(word) == i and word in packed
    assert packed.find("banana") == -1 and "banana" not in packed
    with pytest.raises(ValueError):
        packed.index("banana")
    with pytest.raises(IndexError):
        packed[len(words)]
    empty = PackedStrings.from_strings([])
    assert list(empty) == [] and empty.find("x") == -1


def test_pack_round_trip_and_damage(tmp_path: Path) -> None:
    path = tmp_path / "x.pack"
    arrays: dict[str, np.ndarray] = {
        "a": np.arange(10, dtype=np.int64),
        "b": np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4),
        "empty": np.zeros(0, dtype=np.int32),
        "bytes": np.frombuffer(b"hello", dtype=np.uint8),
    }
    write_pack(path, {"kind": "test", "n": 3}, arrays)
    pack = open_pack(path)
    assert pack.meta == {"kind": "test", "n": 3} and read_meta(path) == pack.meta
    for name, array in arrays.items():
        got = pack.array(name)
        assert got.dtype == array.dtype and got.shape == array.shape
        assert np.array_equal(got, array)
    assert pack.array("a").ctypes.data % 64 == 0  # aligned: safe to view as wider types
    with pytest.raises(PackError):
        pack.array("missing")
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(PackError):
        open_pack(path)
    path.write_bytes(b"not a pack at all, not even close")
    with pytest.raises(PackError):
        read_meta(path)
    with pytest.raises(PackError):
        open_pack(tmp_path / "absent.pack")


def _flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x04
    path.write_bytes(bytes(data))


def test_a_damaged_array_fails_its_checksum(tmp_path: Path) -> None:
    path = tmp_path / "x.pack"
    write_pack(path, {}, {"a": np.arange(1000, dtype=np.int64), "b": np.ones(8, np.float32)})
    _flip(path, path.stat().st_size - 4000)  # inside "a"
    with pytest.raises(PackError, match="'a' is damaged"):
        open_pack(path)
    large = open_pack(path, verify_up_to=0)  # too large to check on opening: opens
    with pytest.raises(PackError, match="'a' is damaged"):
        large.verify()


def _indexed(root: Path) -> list[tuple[str, float]]:
    """Index 80 items in a shard at ``root``; returns the ranking of one query."""
    shard = Substrate(root)
    for item in items(80):
        shard.put(item)
    shard.save()
    engine.reindex(shard)
    return _ranking(shard)


def _ranking(shard: Substrate) -> list[tuple[str, float]]:
    """A query restricted by scope: it reads both the arrays and the header of a segment."""
    only_team = SearchFilters(scopes=frozenset({"team"}))
    return [(h.item.id, h.score) for h in engine.search(shard, "w1 w2", 10, filters=only_team)]


@pytest.mark.parametrize("where", ["array", "header"])
def test_search_reads_past_a_damaged_mirror_and_rewrites_it(tmp_path: Path, where: str) -> None:
    root = tmp_path / "shard"
    before = _indexed(root)
    assert before
    segment = next((root / "index").glob("search-seg-*.pack"))
    at = segment.stat().st_size - 100
    if where == "header":  # the scope names listed in the header's meta
        at = segment.read_bytes().index(b'"team"') + 2
    _flip(segment, at)
    with pytest.raises(PackError):
        open_pack(segment)
    assert _ranking(Substrate(root)) == before
    open_pack(segment)  # rewritten whole


# -- mirrors -----------------------------------------------------------------------------------


def test_mirror_round_trip_ranks_as_the_original(written: tuple[Path, IndexState]) -> None:
    directory, state = written
    loaded = read_mirrored(directory, DEFAULT_PARAMS)
    assert loaded is not None
    assert isinstance(loaded.segments[0].postings.terms, PackedStrings)
    assert loaded.coverage == Coverage("gen1", 99) and loaded.n_live == state.n_live
    assert loaded.next_seq == state.next_seq and len(loaded.segments) == 2
    assert loaded.model is not None and state.model is not None
    assert loaded.model.model_id == state.model.model_id
    for query in ("w1 w2 w3", "w10", "café naïve", "日本語", "w299 w5"):
        assert ranking(loaded, query) == ranking(state, query)
    from substrate.search.filters import SearchFilters

    for filters in (
        SearchFilters(tags=("ünïcode",)),
        SearchFilters(scopes=frozenset({"team"})),
        SearchFilters(source_prefix="docs/1"),
        SearchFilters(kind="record", since=1050.0),
    ):
        assert ranking(loaded, "w1 w2 w3 w4", filters=filters) == ranking(
            state, "w1 w2 w3 w4", filters=filters
        )
    seg = loaded.segments[0]
    assert seg.docs.ids[0] == "i0000" and seg.docs.tags_of(0) == ["t0", "ünïcode"]
    assert seg.vectors is not None and not seg.vectors.flags.writeable  # a view of the file


def test_loaded_state_takes_changes_and_merges(written: tuple[Path, IndexState]) -> None:
    directory, state = written
    loaded = read_mirrored(directory, DEFAULT_PARAMS)
    assert loaded is not None
    grown = loaded.with_changes(AN, items(40, seed=9), ["i0010"], coverage=None).maintained()
    expected = state.with_changes(AN, items(40, seed=9), ["i0010"], coverage=None).maintained()
    assert len(grown.segments) == 1
    assert ranking(grown, "w7 w8") == ranking(expected, "w7 w8")


@pytest.mark.parametrize(
    "change", ["manifest-rewritten", "segment-deleted", "pack-garbage", "other-params"]
)
def test_a_mirror_is_trusted_only_while_its_sources_are_unchanged(
    written: tuple[Path, IndexState], change: str
) -> None:
    directory, _ = written
    params = DEFAULT_PARAMS
    if change == "manifest-rewritten":
        import pyarrow.parquet as pq

        from substrate.search.index_files import META_KEY

        manifest = directory / MANIFEST
        table = pq.read_table(manifest)
        meta = json.loads(table.schema.metadata[META_KEY])
        meta["next_seq"] += 1  # what another writer would change; size and mtime may not
        pq.write_table(table.replace_schema_metadata({META_KEY: json.dumps(meta)}), manifest)
        os.utime(manifest, ns=(1, 1))
    elif change == "segment-deleted":
        next(directory.glob("search-seg-*.terms.parquet")).unlink()
    elif change == "pack-garbage":
        (directory / MANIFEST_PACK).write_bytes(b"garbage")
    else:
        params = SearchParams(k1=2.0)
    assert read_mirrored(directory, params) is None


def test_a_mirror_stays_trusted_for_a_copy_of_its_files_made_at_another_time(
    written: tuple[Path, IndexState],
) -> None:
    # a clone or a tar copy gives the Parquet files new times: the first search wrote every
    # mirror again (a change `git status` showed), and a read-only copy read Parquet each time
    directory, _ = written
    for path in directory.glob("search-*.parquet"):
        os.utime(path, ns=(1_600_000_000_000_000_000,) * 2)
    assert read_mirrored(directory, DEFAULT_PARAMS) is not None


def test_search_heals_missing_mirrors_and_then_skips_pyarrow(tmp_path: Path) -> None:
    root = tmp_path / "shard"
    before = _indexed(root)
    packs = sorted(p.name for p in (root / "index").glob("search-*.pack"))
    assert len(packs) == 3  # manifest, model, one segment
    for name in packs:
        (root / "index" / name).unlink()
    healed = Substrate(root)
    assert _ranking(healed) == before
    assert sorted(p.name for p in (root / "index").glob("search-*.pack")) == packs
    meta = json.loads(json.dumps(read_meta(root / "index" / MANIFEST_PACK)))
    assert meta["live"] == 80 and meta["format"] == engine.index_status(healed)["format"]
    script = textwrap.dedent(
        """
        import sys
        from substrate.store import Substrate
        from substrate.search import engine
        hits = engine.search(Substrate(sys.argv[1]), "w1 w2", 10)
        assert hits
        status = engine.index_status(Substrate(sys.argv[1]))
        print("pyarrow" in sys.modules, status["state"])
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(root)], capture_output=True, text=True, cwd=REPO
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "fresh"]


def test_gc_removes_mirrors_of_dropped_segments(tmp_path: Path) -> None:
    state = build_state(AN, items(60), DEFAULT_PARAMS, Coverage("g", 1))
    write_state(tmp_path, state)
    first = {p.name for p in tmp_path.glob("search-seg-*.pack")}
    merged = state.with_changes(AN, items(40, seed=2), [], coverage=state.coverage).maintained()
    write_state(tmp_path, merged)
    after = {p.name for p in tmp_path.glob("search-seg-*.pack")}
    assert len(after) == 1 and not first & after
    assert read_mirrored(tmp_path, DEFAULT_PARAMS) is not None


def test_a_model_file_of_an_older_format_is_rewritten_not_kept(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from substrate.search.index_files import META_KEY
    from substrate.search.index_read import read_state

    state = build_state(AN, items(80), DEFAULT_PARAMS, Coverage("g", 1))
    write_state(tmp_path, state)
    path = next(tmp_path.glob("search-model-*.parquet"))
    table = pq.read_table(path)
    meta = json.loads(table.schema.metadata[META_KEY])
    meta["format"] -= 1
    pq.write_table(table.replace_schema_metadata({META_KEY: json.dumps(meta).encode()}), path)
    write_state(tmp_path, state)  # same model id: the stale file must not be taken as current
    assert read_state(tmp_path, DEFAULT_PARAMS).model is not None


@pytest.mark.parametrize("field", [b'"format": ', b'"watermark": [', b'"live": '])
def test_a_flipped_digit_in_index_metadata_means_a_rebuild(tmp_path: Path, field: bytes) -> None:
    """The Parquet footer has no checksum of its own: a damaged format number must not read
    as a newer mixle, nor a damaged watermark as another log offset."""
    import pyarrow.parquet as pq

    from substrate.search.layout import META_KEY

    root = tmp_path / "shard"
    before = _indexed(root)
    for pack in (root / "index").glob("search-*.pack"):
        pack.unlink()  # make the search read the Parquet files
    manifest = root / "index" / MANIFEST
    table = pq.read_table(manifest)
    meta = bytearray(table.schema.metadata[META_KEY])
    at = meta.index(field) + len(field)
    if field.endswith(b"["):  # [generation, offset]: the offset's first digit
        at = meta.index(b'", ', at) + 3
    meta[at] = ord("3") if meta[at] != ord("3") else ord("4")
    pq.write_table(table.replace_schema_metadata({META_KEY: bytes(meta)}), manifest)
    assert _ranking(Substrate(root)) == before
