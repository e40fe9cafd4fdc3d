"""The engine glued to the store: in-memory and on-disk shards, overlays, rebuilds, status."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from substrate.errors import InvalidInputError, ShardFormatError
from substrate.item import SubstrateItem
from substrate.search import engine
from substrate.search.engine import Hit, SearchFilters
from substrate.search.index_files import MANIFEST
from substrate.search.params import FORMAT_VERSION
from substrate.store import Substrate

REPO = Path(__file__).resolve().parents[2]


def fill(shard: Substrate, n: int = 80, seed: int = 2) -> list[str]:
    rng = random.Random(seed)
    words = [f"w{j}" for j in range(200)]
    return [
        shard.add("text", " ".join(rng.sample(words, 10)), tags=[f"t{i % 3}"]) for i in range(n)
    ]


def index_files(root: Path) -> set[str]:
    return {p.name for p in (root / "index").glob("search-*.parquet")}


def test_in_memory_shard_search_and_updates() -> None:
    shard = Substrate()
    a = shard.add("text", "The refund policy allows returns within 30 days.")
    b = shard.add("text", "Refunds for defective items are processed quickly.")
    shard.add("record", payload={"owner": "alice"})
    hits = shard.search("refund policy", k=5)
    assert [item.id for item, _ in hits][:2] == [a, b]
    assert hits[0][0] is shard.get(a)  # live objects, as the reference returns
    shard.remove(a)
    assert a not in [item.id for item, _ in shard.search("refund policy")]
    shard.put(SubstrateItem("text", "now about zeppelins", id=b))
    assert shard.search("refund") == []
    assert [item.id for item, _ in shard.search("zeppelins")] == [b]
    assert [item.payload for item, _ in shard.search("alice")] == [{"owner": "alice"}]


def test_items_changed_in_place_are_searched_as_they_are_now(tmp_path: Path) -> None:
    shard = Substrate(tmp_path / "s")
    a = shard.add("text", "alpha beta")
    assert shard.search("alpha")
    held = shard.get(a)
    assert held is not None
    held.text = "gamma delta"  # put, not saved yet
    assert shard.search("alpha") == []
    assert [item.text for item, _ in shard.search("gamma")] == ["gamma delta"]
    shard.save()
    kept = shard.get(a)  # read back from the log, and kept
    assert kept is not None
    kept.text = "epsilon zeta"
    assert [item.id for item, _ in shard.search("epsilon")] == [a]
    assert shard.search("gamma") == []
    shard.save()
    assert [item.id for item, _ in Substrate(tmp_path / "s").search("epsilon")] == [a]
    broken = shard.get(a)
    assert broken is not None
    broken.payload = {"tags": {"a set"}}  # no log line holds it: the search passes it over
    assert [item.id for item, _ in shard.search("epsilon")] == [a]
    with pytest.raises(InvalidInputError):
        shard.save()  # ... and the save says so


def test_kind_and_scope_arguments_of_the_seed_api() -> None:
    shard = Substrate()
    shard.add("text", "budget plan", scope="team")
    rec = shard.add("record", "budget numbers", scope="local")
    assert [i.id for i, _ in shard.search("budget", kind="record")] == [rec]
    assert [i.id for i, _ in shard.search("budget", scope="local")] == [rec]
    assert shard.search("budget", kind="image") == []


@pytest.mark.parametrize("k", ["3", 2.5, True, None])
def test_bad_k_is_rejected(k: object) -> None:
    with pytest.raises(InvalidInputError):
        engine.search(Substrate(), "x", k)  # type: ignore[arg-type]


def test_bad_filters_are_rejected() -> None:
    with pytest.raises(InvalidInputError):
        engine.search(Substrate(), "x", 3, filters={"kind": "text"})  # type: ignore[arg-type]


def test_empty_query_and_zero_k() -> None:
    shard = Substrate()
    fill(shard, 5)
    assert engine.search(shard, "", 5) == []
    assert engine.search(shard, "the and of", 5) == []
    assert engine.search(shard, "w1", 0) == []


def test_hits_explain_and_serialise() -> None:
    shard = Substrate()
    fill(shard)
    hits = engine.search(shard, "w1 w2", 3, explain=True)
    assert hits and isinstance(hits[0], Hit)
    data = hits[0].as_dict()
    assert set(data) == {"item", "score", "explain"}
    assert json.dumps(data)
    assert data["explain"]["fused"] >= 0


def test_on_disk_shard_persists_and_folds_deltas(tmp_path: Path) -> None:
    root = tmp_path / "shard"
    shard = Substrate(root)
    fill(shard)
    shard.save()
    first = engine.search(shard, "w5", 5)
    assert first
    files = index_files(root)
    base = {f for f in files if f.endswith(".docs.parquet")}
    assert len(base) == 1 and any(f.startswith("search-model-") for f in files)
    assert engine.index_status(shard)["state"] == "fresh"

    other = Substrate(root)  # another process adds an item and saves
    new = other.add("text", "a zeppelin over the harbour")
    other.save()
    assert engine.index_status(shard)["state"] == "behind"
    assert [i.id for i, _ in shard.search("zeppelin")] == [new]
    after = index_files(root)
    assert base <= after, "the base segment was kept: no full rebuild"
    assert len([f for f in after if f.endswith(".docs.parquet")]) == 2
    status = engine.index_status(shard)
    assert status["state"] == "fresh" and status["segments"] == 2 and status["items"] == 81


def test_the_status_of_an_index_without_its_mirror_reads_the_manifest_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.search import index_read

    root = tmp_path / "shard"
    shard = Substrate(root)
    fill(shard)
    shard.save()
    engine.search(shard, "w5", 5)
    (root / "index" / "search-manifest.pack").unlink()  # the mirror: the Parquet file stands
    real, calls = index_read.read_manifest_meta, []

    def counted(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(index_read, "read_manifest_meta", counted)
    status = engine.index_status(shard)
    assert status["state"] == "fresh" and status["segments"] == 1 and len(calls) == 1


def test_a_query_term_whose_items_were_all_removed_is_no_error(tmp_path: Path) -> None:
    # the merge that follows a removal keeps the term in a segment with no posting left
    root = tmp_path / "shard"

    def saved(change: Callable[[Substrate], object]) -> object:
        shard = Substrate(root)  # one process per step, as from the command line
        result = change(shard)
        shard.save()
        return result

    saved(lambda s: s.add("text", "gamma delta"))
    gone = saved(lambda s: s.add("text", "alpha beta"))
    assert Substrate(root).search("gamma")
    saved(lambda s: s.remove(gone))
    saved(lambda s: s.add("text", "gamma epsilon"))
    found = [item.text for item, _ in Substrate(root).search("alpha gamma")]
    assert sorted(found) == ["gamma delta", "gamma epsilon"], found


def test_unsaved_changes_are_searchable_but_never_written(tmp_path: Path) -> None:
    root = tmp_path / "shard"
    shard = Substrate(root)
    ids = fill(shard)
    shard.save()
    shard.search("w1")
    pending = shard.add("text", "unsaved zeppelin note")
    shard.remove(ids[0])
    assert [i.id for i, _ in shard.search("zeppelin")] == [pending]
    first_text = Substrate(root).get(ids[0])
    assert first_text is not None
    assert ids[0] not in [i.id for i, _ in shard.search(first_text.text, k=100)]
    for path in (root / "index").glob("search-seg-*.docs.parquet"):
        assert pending not in pq.read_table(path, columns=["id"]).column("id").to_pylist()
    assert engine.index_status(shard)["pending_changes"] is True
    fresh = Substrate(root)
    assert fresh.search("zeppelin") == []
    assert ids[0] in [i.id for i, _ in fresh.search(first_text.text, k=100)]


def test_deleting_the_index_loses_nothing(tmp_path: Path) -> None:
    root = tmp_path / "shard"
    shard = Substrate(root)
    fill(shard)
    shard.save()
    before = [(i.id, s) for i, s in shard.search("w3 w4", 10)]
    for path in (root / "index").glob("search-*"):
        path.unlink()
    assert engine.index_status(Substrate(root))["state"] == "missing"
    assert [(i.id, s) for i, s in Substrate(root).search("w3 w4", 10)] == before


def test_index_of_another_log_generation_is_rebuilt(tmp_path: Path) -> None:
    root = tmp_path / "shard"
    shard = Substrate(root)
    ids = fill(shard)
    shard.save()
    shard.search("w1")
    shard.remove(ids[0])
    shard.save()
    shard.compact()  # rewrites the log: a new generation
    reopened = Substrate(root)
    assert engine.index_status(reopened)["state"] == "missing"  # deleted: the next search builds it
    assert ids[0] not in [i.id for i, _ in reopened.search("w1 w2 w3", 100)]
    assert engine.index_status(reopened)["state"] == "fresh"


def test_compact_leaves_no_index_holding_the_words_of_what_it_reclaimed(tmp_path: Path) -> None:
    # an item stored unredacted, then replaced: its words stayed in the index files on disk
    root = tmp_path / "shard"
    shard = Substrate(root)
    old = shard.add("text", "deploy token zq8xw2rk5vn1lp7tb4hcx")
    kept = shard.add("text", "quarterly report")
    shard.save()
    assert [i.id for i, _ in shard.search("zq8xw2rk5vn1lp7tb4hcx", 5)] == [old]
    shard.remove(old)
    shard.save()
    shard.compact()
    on_disk = b"".join(p.read_bytes() for p in (root / "index").glob("search-*"))
    assert (
        b"zq8xw2rk5vn1lp7tb4hcx" not in on_disk
        and b"zq8xw2rk5vn1lp7tb4hcx" not in (root / "items.jsonl").read_bytes()
    )
    assert [i.id for i, _ in Substrate(root).search("quarterly", 5)] == [kept]


def test_newer_index_format_raises(tmp_path: Path, rewrite_index_meta: Callable[..., None]) -> None:
    root = tmp_path / "shard"
    shard = Substrate(root)
    fill(shard, 5)
    shard.save()
    shard.search("w1")
    rewrite_index_meta(root / "index" / MANIFEST, format=FORMAT_VERSION + 1)
    with pytest.raises(ShardFormatError):
        Substrate(root).search("w1")
    assert engine.index_status(Substrate(root))["state"] == "unsupported"


def test_reindex_reports_and_calls_progress(tmp_path: Path) -> None:
    shard = Substrate(tmp_path / "shard")
    fill(shard)
    shard.save()
    calls: list[tuple[int, int]] = []
    stats = engine.reindex(shard, progress=lambda done, total: calls.append((done, total)))
    assert stats.items == 80 and stats.segments == 1
    assert stats.mode == "lexical+semantic" and stats.dim > 0
    assert calls and calls[-1] == (80, 80)
    assert set(stats.as_dict()) >= {"items", "segments", "mode", "seconds"}
    memory = Substrate()
    fill(memory, 10)
    assert engine.reindex(memory).mode == "lexical"
    assert engine.index_status(memory)["state"] == "fresh"


def test_filters_through_the_engine(tmp_path: Path) -> None:
    shard = Substrate()
    fill(shard, 30)
    hits = engine.search(shard, "w1 w2 w3 w4", 50, filters=SearchFilters(tags=("t1",)))
    assert hits and all(h.item.tags == ["t1"] for h in hits)


def test_search_process_never_imports_scikit_learn(tmp_path: Path) -> None:
    root = tmp_path / "shard"
    shard = Substrate(root)
    fill(shard)
    shard.save()
    engine.reindex(shard)
    extra = Substrate(root)
    extra.add("text", "w1 appears in a later delta")
    extra.save()
    script = textwrap.dedent(
        """
        import sys
        import substrate
        before = set(sys.modules)
        import substrate.search
        eager = {m.split(".")[0] for m in set(sys.modules) - before}
        assert not eager & {"numpy", "pyarrow", "sklearn", "scipy"}, eager
        from substrate.store import Substrate
        from substrate.search.filters import SearchFilters
        store = Substrate(sys.argv[1])
        assert store.search("w1", 5), "no hits"
        tagged = store.search("w1", 5, filters=SearchFilters(tags=("t1",)))
        assert tagged and all("t1" in item.tags for item, _ in tagged)
        print("sklearn" in sys.modules, "scipy" in sys.modules, "numpy.ma" in sys.modules)
        """
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", script, str(root)],
            capture_output=True,
            text=True,
            cwd=REPO,
            check=True,
        ).stdout.split()
        for _ in range(2)
    ]
    # the first search after the save writes the delta segment (pyarrow, which pulls in
    # numpy.ma); the second is a plain query, filters included
    assert runs[0][:2] == ["False", "False"] and runs[1] == ["False", "False", "False"]


def test_in_memory_search_sees_a_payload_changed_and_put_again() -> None:
    store = Substrate()
    item_id = store.add("record", "ticket 42", payload={"owner": "alice"})
    assert [i.id for i, _ in store.search("alice")] == [item_id]
    item = store.get(item_id)
    assert item is not None
    item.payload["owner"] = "bob"
    store.put(item)  # the same object, put again: only its payload changed
    assert [i.id for i, _ in store.search("bob")] == [item_id]
    assert store.search("alice") == []


def test_a_search_writing_its_index_while_compact_runs_leaves_no_reclaimed_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the index a search built from the old log was written after compact deleted the files
    import os
    import time

    from substrate.search import sync

    root = tmp_path / "shard"
    shard = Substrate(root)
    gone = shard.add("text", "deploy token zq8xw2rk5vn1lp7tb4hcx")
    shard.add("text", "quarterly report")
    shard.save()
    shard.search("quarterly", 5)
    shard.remove(gone)
    shard.save()
    shard.close()
    real_persist, children = sync.persist, []
    log = root / "items.jsonl"

    def persist_while_compacting(directory: Path, state: Any, **kw: Any) -> Any:
        before = os.stat(log).st_ino
        compact = f"from substrate import Substrate; Substrate({str(root)!r}).compact()"
        children.append(subprocess.Popen([sys.executable, "-c", compact]))
        deadline = time.monotonic() + 60
        while os.stat(log).st_ino == before and time.monotonic() < deadline:
            time.sleep(0.02)  # until the other process has replaced the log
        return real_persist(directory, state, **kw)

    monkeypatch.setattr(sync, "persist", persist_while_compacting)
    Substrate(root).search("quarterly", 5)
    monkeypatch.setattr(sync, "persist", real_persist)
    assert children and children[0].wait(timeout=60) == 0
    on_disk = b"".join(p.read_bytes() for p in (root / "index").glob("search-*"))
    assert b"zq8xw2rk5vn1lp7tb4hcx" not in on_disk


def test_an_item_moved_to_another_scope_in_place_is_not_found_under_its_old_one() -> None:
    from substrate.search.engine import first_items, search
    from substrate.search.filters import SearchFilters

    store = Substrate()  # in memory: get() hands out the stored object itself
    moved = store.add("text", "quarterly revenue forecast", scope="teamA")
    store.add("text", "revenue of the other team", scope="teamB")
    assert len(search(store, "revenue", filters=SearchFilters(scopes={"teamA"}))) == 1
    item = store.get(moved)
    assert item is not None
    item.scope, item.kind = "secret", "record"  # not put again: the index still says teamA
    for filters in (SearchFilters(scopes={"teamA"}), SearchFilters(kind="text")):
        found = [h.item.id for h in search(store, "revenue", filters=filters)]
        assert moved not in found
        assert moved not in [i.id for i in first_items(store, filters, 10)]
    assert store.search("revenue", scope="teamA") == []


def test_reindex_of_a_shard_never_saved_writes_nothing(tmp_path: Path) -> None:
    # it made index/ and its files where a search makes nothing: a mistyped root became a shard
    store = Substrate(tmp_path / "never")
    assert store.reindex().items == 0
    store.add("text", "hello world")
    store.reindex()
    assert store.search("hello")
    assert not (tmp_path / "never").exists()


def test_skip_leaves_ids_out_unread_and_gives_the_k_best_of_the_others() -> None:
    from substrate.store import Substrate

    store = Substrate()
    ids = [store.add("text", f"refund policy note {n} " + "refund " * (10 - n)) for n in range(8)]
    ranked = [item.id for item, _ in store.search("refund policy", 8)]
    assert sorted(ranked) == sorted(ids)
    met = set(ranked[:3]) | {"f" * 16}  # an id no item has only makes the ranking go deeper
    got = [item.id for item, _ in store.search("refund policy", 2, skip=met)]
    assert got == ranked[3:5]
    with pytest.raises(InvalidInputError, match="not one string"):
        store.search("refund policy", 2, skip=ranked[0])


def test_a_subclass_s_own_search_serves_retrieval_with_the_met_items_left_out() -> None:
    from substrate.retrieval import ranked
    from substrate.store import Substrate

    class Tagged(Substrate):
        def search(self, query: str, k: int = 5, **kw: Any) -> Any:  # as the seed's callers
            assert "skip" not in kw and "keep" not in kw  # (its own: no new arguments)
            return [(item, 1.0) for item in self.all()][:k]

    store = Tagged()
    ids = [store.add("text", f"note {n}") for n in range(5)]
    got = ranked(store, "note", 2, skip={ids[0], ids[1]})
    assert [item.id for item, _ in got] == ids[2:4]
