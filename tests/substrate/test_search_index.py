"""Parquet index files: round trip, stamps, version checks, and incremental maintenance."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from substrate.errors import ShardError, ShardFormatError
from substrate.item import SubstrateItem
from substrate.search.coverage import Coverage
from substrate.search.index_files import MANIFEST, META_KEY, StaleIndex, write_state
from substrate.search.index_read import read_state
from substrate.search.params import DEFAULT_PARAMS, FORMAT_VERSION, SearchParams
from substrate.search.ranker import rank
from substrate.search.state import IndexState, build_state, empty_state
from substrate.search.tokenize import Analyzer
from substrate.store import Substrate

AN = Analyzer()


def items(n: int, seed: int = 1, prefix: str = "i") -> list[SubstrateItem]:
    rng = random.Random(seed)
    vocab = [f"w{j}" for j in range(300)]
    return [
        SubstrateItem(
            "text" if i % 3 else "record",
            " ".join(rng.sample(vocab, 12)),
            id=f"{prefix}{i:04d}",
            tags=[f"t{i % 4}"] + (["extra"] if i % 5 == 0 else []),
            scope="local" if i % 2 else "team",
            provenance={"source": f"docs/{i % 3}/f.md"},
            created_at=1000.0 + i,
        )
        for i in range(n)
    ]


def state_of(n: int) -> IndexState:
    return build_state(AN, items(n), DEFAULT_PARAMS, Coverage("gen1", 1234))


def ranking(state: IndexState, query: str = "w1 w2 w3") -> list[tuple[str, float]]:
    return [(h.item_id, round(h.score, 6)) for h in rank(state, AN, query, 20)]


def test_round_trip_preserves_rankings_and_bookkeeping(tmp_path: Path) -> None:
    state = state_of(120)
    state = state.with_changes(AN, items(5, seed=9, prefix="n"), ["i0003"], coverage=state.coverage)
    write_state(tmp_path, state)
    loaded = read_state(tmp_path, DEFAULT_PARAMS)
    assert loaded.coverage == Coverage("gen1", 1234)
    assert len(loaded.segments) == 2
    assert loaded.n_live == state.n_live
    assert loaded.next_seq == state.next_seq
    assert loaded.model is not None and state.model is not None
    assert loaded.model.model_id == state.model.model_id
    for query in ("w1 w2 w3", "w10", "w299 w5"):
        assert ranking(loaded, query) == ranking(state, query)
    seg = loaded.segments[0]
    assert seg.docs.tags_of(0) == ["t0", "extra"]
    assert seg.docs.scopes[seg.docs.scope_codes[0]] == "team"
    assert seg.vectors is not None and seg.vectors.dtype.name == "float32"


def test_every_file_is_stamped(tmp_path: Path) -> None:
    write_state(tmp_path, state_of(80))
    files = sorted(tmp_path.glob("search-*.parquet"))
    assert {p.name.split(".")[-2] for p in files if "seg-" in p.name} == {"docs", "terms"}
    assert any("model" in p.name for p in files)
    for path in files:
        meta = json.loads(pq.read_schema(path).metadata[META_KEY])
        assert meta["format"] == FORMAT_VERSION
        assert meta["params"]["k1"] == DEFAULT_PARAMS.k1
        assert "watermark" in meta
    manifest = json.loads(pq.read_schema(tmp_path / MANIFEST).metadata[META_KEY])
    assert manifest["watermark"] == ["gen1", 1234, None]  # no seal: the state had none


def test_newer_format_is_refused_clearly(
    tmp_path: Path, rewrite_index_meta: Callable[..., None]
) -> None:
    write_state(tmp_path, state_of(10))
    rewrite_index_meta(tmp_path / MANIFEST, format=FORMAT_VERSION + 1)
    with pytest.raises(ShardFormatError, match="newer mixle"):
        read_state(tmp_path, DEFAULT_PARAMS)


def test_other_parameters_mean_rebuild(tmp_path: Path) -> None:
    write_state(tmp_path, state_of(10))
    with pytest.raises(StaleIndex):
        read_state(tmp_path, SearchParams(k1=2.0))


@pytest.mark.parametrize("damage", ["missing-segment", "garbage-manifest", "no-manifest"])
def test_damaged_index_is_stale(tmp_path: Path, damage: str) -> None:
    write_state(tmp_path, state_of(60))
    if damage == "missing-segment":
        next(tmp_path.glob("search-seg-*.terms.parquet")).unlink()
    elif damage == "garbage-manifest":
        (tmp_path / MANIFEST).write_bytes(b"not parquet at all")
    else:
        (tmp_path / MANIFEST).unlink()
    with pytest.raises(StaleIndex):
        read_state(tmp_path, DEFAULT_PARAMS)


def test_write_removes_files_no_longer_referenced(tmp_path: Path) -> None:
    state = state_of(60)
    write_state(tmp_path, state)
    before = {p.name for p in tmp_path.glob("search-seg-*.parquet")}
    merged = state.with_changes(
        AN, items(40, seed=2, prefix="x"), [], coverage=state.coverage
    ).maintained()
    write_state(tmp_path, merged)
    after = {p.name for p in tmp_path.glob("search-seg-*.parquet")}
    assert len(merged.segments) == 1 and len(after) == 2
    assert not before & after
    assert len(list(tmp_path.glob("search-model-*.parquet"))) == 1  # same model, kept


def test_small_deltas_stay_deltas() -> None:
    state = state_of(200)
    delta = state.with_changes(AN, items(3, seed=4, prefix="d"), [], coverage=None)
    assert len(delta.segments) == 2
    assert delta.maintenance_due() is None
    assert delta.maintained() is delta


def test_many_deltas_are_merged_into_one() -> None:
    state = state_of(400)
    for i in range(DEFAULT_PARAMS.max_segments + 1):
        state = state.with_changes(
            AN, items(2, seed=i, prefix=f"d{i}-"), [], coverage=None, take_locations=True
        )
    assert state.maintenance_due() == "merge-deltas"
    merged = state.maintained()
    assert len(merged.segments) == 2
    assert merged.segments[0] is state.segments[0]
    assert ranking(merged, "w7 w8") == ranking(state, "w7 w8")


def test_large_delta_triggers_full_merge_and_drops_dead_rows() -> None:
    state = state_of(100)
    state = state.with_changes(AN, items(30, seed=7, prefix="z"), ["i0001", "i0002"], coverage=None)
    assert state.maintenance_due() == "merge"
    merged = state.maintained()
    assert len(merged.segments) == 1
    assert merged.segments[0].n_rows == merged.n_live == 128
    assert not merged.dead[0].any()
    assert merged.model is state.model


def test_growth_triggers_a_refit() -> None:
    state = state_of(60)
    grown = state.with_changes(AN, items(80, seed=8, prefix="g"), [], coverage=None)
    assert grown.maintenance_due() == "refit"
    refit = grown.maintained()
    assert refit.fitted_docs == 140
    assert refit.model is not None and state.model is not None
    assert refit.model.model_id != state.model.model_id


def test_corpus_reaching_the_threshold_gets_its_first_model() -> None:
    state = build_state(AN, items(10), DEFAULT_PARAMS, None)
    assert state.model is None
    grown = state.with_changes(AN, items(60, seed=3, prefix="g"), [], coverage=None).maintained()
    assert grown.model is not None and grown.semantic


def test_empty_state_takes_changes() -> None:
    state = empty_state(DEFAULT_PARAMS, None)
    assert rank(state, AN, "anything", 5) == []
    state = state.with_changes(
        AN, [SubstrateItem("text", "hello world", id="h")], [], coverage=None
    )
    assert [h.item_id for h in rank(state, AN, "hello", 5)] == ["h"]
    state = state.with_changes(AN, [], ["h"], coverage=None)
    assert rank(state, AN, "hello", 5) == []


def test_build_streams_in_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    import substrate.search.state as state_module

    monkeypatch.setattr(state_module, "_CHUNK", 7)
    calls: list[tuple[int, int]] = []
    state = build_state(
        AN, items(30), DEFAULT_PARAMS, None, total=30, progress=lambda d, t: calls.append((d, t))
    )
    assert calls[-1] == (30, 30) and len(calls) == 5
    assert ranking(state) == ranking(state_of(30))


def test_reindex_fails_when_the_index_cannot_be_written_but_search_still_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    import substrate.search.index_files as index_files

    store = Substrate(tmp_path)
    store.add("text", "refunds take five business days")
    store.save()

    def full_disk(*args: object, **options: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(index_files, "write_state", full_disk)
    with pytest.raises(ShardError, match="No space left"):
        store.reindex()  # the point of reindex is the files: failing to write them is an error
    fresh = Substrate(tmp_path)
    assert [i.text for i, _ in fresh.search("refunds")] == ["refunds take five business days"]


def test_a_search_that_cannot_write_its_index_warns_in_the_system_s_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import errno

    import substrate.search.index_files as index_files

    store = Substrate(tmp_path)
    store.add("text", "refunds take five business days")
    store.save()

    def read_only(*args: object, **options: object) -> None:  # as pyarrow words it: all strerror
        temporary = tmp_path / "index" / ".search-seg-0.parquet.5240-1402.tmp"
        raise PermissionError(
            errno.EACCES, f"Failed to open local file '{temporary}'. Detail: [errno 13] ..."
        )

    monkeypatch.setattr(index_files, "write_state", read_only)
    with caplog.at_level("WARNING"):
        assert Substrate(tmp_path).search("refunds")  # from memory
    warned = [r.getMessage() for r in caplog.records if "search index" in r.getMessage()]
    assert warned and warned[0].endswith(": Permission denied")
    assert ".tmp" not in " ".join(warned)
    with pytest.raises(ShardError) as refused:  # where writing it is the point
        Substrate(tmp_path).reindex()
    assert str(refused.value).endswith(": Permission denied")


def test_files_written_for_an_index_that_failed_are_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a full disk after the model was written left it behind, taking more of the space
    import errno

    import substrate.search.index_files as index_files

    write_state(tmp_path, state_of(30))
    before = sorted(p.name for p in tmp_path.iterdir())
    real, manifest = index_files.write_segment, index_files._write_manifest

    def full_disk(*args: object, **options: bool) -> list[str]:
        real(*args, **options)  # type: ignore[arg-type]  # the segment's files, then a full disk
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(index_files, "write_segment", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_state(tmp_path, state_of(40))
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert ranking(read_state(tmp_path, DEFAULT_PARAMS)) == ranking(state_of(30))

    # ... and when every part was written but the disk filled with the manifest
    def no_room(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(index_files, "write_segment", real)
    monkeypatch.setattr(index_files, "_write_manifest", no_room)
    with pytest.raises(OSError, match="No space left"):
        write_state(tmp_path, state_of(40))
    assert sorted(p.name for p in tmp_path.iterdir()) == before

    # ... but once the new manifest is in place, the parts it names stay (a Ctrl-C just after)
    def in_place_then_interrupted(*args: object) -> None:
        manifest(*args)  # type: ignore[arg-type]
        raise KeyboardInterrupt

    monkeypatch.setattr(index_files, "_write_manifest", in_place_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_state(tmp_path, state_of(40))
    assert ranking(read_state(tmp_path, DEFAULT_PARAMS)) == ranking(state_of(40))


@pytest.mark.parametrize(
    "meta", [b"not json", b"[1, 2]", b'{"format": "two"}', b'{"format": 2, "avgdl": null}']
)
def test_damaged_index_metadata_is_rebuilt_not_an_error(tmp_path: Path, meta: bytes) -> None:
    store = Substrate(tmp_path)
    store.add("text", "refunds take five business days")
    store.save()
    store.reindex()
    manifest = tmp_path / "index" / MANIFEST
    table = pq.read_table(manifest)
    pq.write_table(table.replace_schema_metadata({META_KEY: meta}), manifest)
    hits = Substrate(tmp_path).search("refunds")
    assert [item.text for item, _ in hits] == ["refunds take five business days"]


def test_coverage_keeps_its_seal_and_reads_watermarks_stored_without_one() -> None:
    sealed = Coverage("g", 5, 77)
    assert Coverage.from_meta(sealed.as_meta()) == sealed
    assert Coverage.from_meta(sealed.as_meta()).seal == 77  # type: ignore[union-attr]
    older = Coverage.from_meta(["g", 5])  # written before seals were kept: trusted as it is
    assert older == Coverage("g", 5) and older is not None and older.seal is None
    assert Coverage.from_meta(None) is None


def test_temporary_files_of_dead_writers_are_removed(tmp_path: Path) -> None:
    import subprocess
    import sys

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    leftover = tmp_path / f".search-seg-0123.docs.parquet.{dead}.tmp"
    ours = tmp_path / f".search-seg-0123.docs.parquet.{os.getpid()}.tmp"
    for path in (leftover, ours):
        path.write_bytes(b"half written")
    write_state(tmp_path, state_of(20))
    assert not leftover.exists() and ours.exists()  # a live writer's file is its own to finish


def _rewrite(root: Path, *steps: tuple[str, str | None]) -> None:
    """Save each step on its own: (id, text) writes the item, (id, None) removes it."""
    for item_id, text in steps:
        shard = Substrate(root)
        if text is None:
            shard.remove(item_id)
        else:
            shard.put(SubstrateItem("text", text, id=item_id))
        shard.save()


@pytest.mark.parametrize(
    "steps",
    [
        # written again with the same text: keeps its place
        [("B", "river"), ("C", "river"), ("B", "river")],
        # removed and written again: takes a new place, after C
        [("B", "river"), ("C", "river"), ("B", None), ("B", "river")],
    ],
)
@pytest.mark.parametrize("indexed_first", [1, 2])
def test_ties_after_folding_rank_as_the_store_lists_them(
    tmp_path: Path, steps: list[tuple[str, str | None]], indexed_first: int
) -> None:
    _rewrite(tmp_path, ("A", "other"), *steps[: indexed_first - 1])
    Substrate(tmp_path).search("river")  # the index now covers the first steps only
    _rewrite(tmp_path, *steps[indexed_first - 1 :])
    shard = Substrate(tmp_path)
    listed = [item.id for item in shard.all() if item.text == "river"]
    folded = [item.id for item, _ in shard.search("river", k=10)]
    shard.reindex()
    assert folded == listed == [item.id for item, _ in shard.search("river", k=10)]


def test_a_failed_write_that_names_no_file_is_told_in_its_own_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from substrate.search import index_files
    from substrate.search.sync import persist

    def full_disk(directory: Path, state: IndexState, **options: bool) -> None:
        raise OSError("[errno 28] No space left on device")  # as pyarrow raises it

    monkeypatch.setattr(index_files, "write_state", full_disk)
    persist(tmp_path, state_of(10))  # a warning: searching goes on from memory
    assert "No space left on device" in caplog.text
    assert "is a folder" not in caplog.text  # (the index's own folder is no culprit)
