"""What a reader cannot see never moves what they get.

A search confined to some scopes must return the same ids with the same scores (and the same
explanations) whatever the shard holds outside those scopes: otherwise a reader comparing the
scores of their own items could learn that other teams' items exist, and what words they use.
The hidden items here share the reader's query words on purpose, are longer or shorter, and are
interleaved differently, so that any statistic taken over them (document frequency, average
length, document count, score normalisation, query coverage, feedback documents, the learned
embedding) would show.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from substrate.item import SubstrateItem
from substrate.search import engine
from substrate.search.filters import SearchFilters
from substrate.store import Substrate

READER = SearchFilters(scopes=frozenset({"alpha", "public"}))
WORDS = [f"w{j}" for j in range(300)]
QUERIES = [
    "w1 w2",
    "w5",
    "w10 w11 w12 w13",
    "w299 w3 w150",
    "hiddenonly w7",  # a word only hidden items use: it used to lower the coverage factor
    "w1 w1 w40 hiddenonly",
    "alphaword w20",
]


def visible_items() -> list[SubstrateItem]:
    rng = random.Random(11)
    out = []
    for i in range(90):
        words = rng.sample(WORDS, rng.randint(6, 20))
        if i % 9 == 0:
            words.append("alphaword")
        out.append(
            SubstrateItem(
                "text" if i % 4 else "record",
                " ".join(words),
                id=f"v{i:03d}",
                scope="alpha" if i % 3 else "public",
                created_at=1_000.0 + i,
            )
        )
    return out


def hidden_items(seed: int, n: int, length: tuple[int, int]) -> list[SubstrateItem]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = rng.sample(WORDS[:60], rng.randint(*length)) + ["hiddenonly"] * rng.randint(0, 3)
        out.append(SubstrateItem("text", " ".join(words), id=f"h{seed}-{i:03d}", scope="bravo"))
    return out


def build(hidden: list[SubstrateItem], seed: int, root: Path | None = None) -> Substrate:
    """The visible items in their fixed order, the hidden ones slipped in at random places."""
    rng = random.Random(seed)
    shard = Substrate(root)
    queue = list(hidden)
    for item in visible_items():
        while queue and rng.random() < 0.5:
            shard.put(queue.pop())
        shard.put(item)
    for item in queue:
        shard.put(item)
    if root is not None:
        shard.save()
    return shard


def results(
    shard: Substrate, query: str, filters: SearchFilters | None = READER
) -> list[tuple[object, ...]]:
    hits = engine.search(shard, query, 30, filters=filters, explain=True)
    return [(h.item.id, h.score, h.explain) for h in hits]


@pytest.fixture(scope="module")
def shards() -> list[Substrate]:
    return [
        build([], seed=1),
        build(hidden_items(2, 40, (3, 8)), seed=2),
        build(hidden_items(3, 120, (20, 40)), seed=3),
    ]


@pytest.mark.parametrize("query", QUERIES)
def test_confined_results_do_not_depend_on_hidden_items(
    shards: list[Substrate], query: str
) -> None:
    expected = results(shards[0], query)
    assert expected, "the query should find visible items"
    for other in shards[1:]:
        assert results(other, query) == expected


def test_the_test_has_teeth(shards: list[Substrate]) -> None:
    """Unconfined, the hidden items do change scores: the comparison above can fail."""
    differs = [results(shards[0], q, None) != results(shards[2], q, None) for q in QUERIES[:4]]
    assert any(differs)


def test_confined_search_expands_from_visible_items_without_the_embedding(
    shards: list[Substrate],
) -> None:
    hits = engine.search(shards[2], "w10 w11", 5, filters=READER, explain=True)
    assert hits
    for hit in hits:
        assert hit.item.scope in {"alpha", "public"}
        assert hit.explain is not None
        assert hit.explain["feedback"] == 1.0  # expansion ran, from allowed items only
        assert hit.explain["semantic_weight"] == 0.0 and hit.explain["semantic_part"] == 0.0
        assert hit.explain["filtered_statistics"] == 1.0
        assert hit.explain["live_items"] == 0.0  # the shard's count is no reader's to see
    unconfined = engine.search(shards[2], "w10 w11", 5, explain=True)
    assert unconfined[0].explain is not None and unconfined[0].explain["semantic_weight"] > 0
    assert unconfined[0].explain["live_items"] == len(shards[2])


def test_a_word_only_hidden_items_use_finds_nothing(shards: list[Substrate]) -> None:
    assert engine.search(shards[2], "hiddenonly", 10, filters=READER) == []
    assert engine.search(shards[2], "hiddenonly", 10)  # it exists, for a reader of everything


def test_on_disk_index_gives_the_same_confined_results(tmp_path: Path) -> None:
    """Loaded from its files (memory-mapped mirrors), a shard answers as the in-memory one."""
    on_disk = build(hidden_items(4, 70, (10, 30)), seed=4, root=tmp_path / "shard")
    engine.reindex(on_disk)
    reopened = Substrate(tmp_path / "shard")
    in_memory = build([], seed=1)
    for query in QUERIES:
        assert results(reopened, query) == results(in_memory, query)


def test_filters_define_the_corpus_of_a_small_shard() -> None:
    """Filtered by kind, a search scores as if the shard held only that kind."""
    rng = random.Random(5)
    records = [
        SubstrateItem("record", " ".join(rng.sample(WORDS[:40], 6)), id=f"r{i}", created_at=1.0)
        for i in range(12)
    ]
    texts = [
        SubstrateItem("text", " ".join(rng.sample(WORDS[:40], 15)), id=f"t{i}", created_at=1.0)
        for i in range(20)
    ]
    mixed, alone = Substrate(), Substrate()
    for item in records + texts:
        mixed.put(item)
    for item in records:
        alone.put(item)
    only_records = SearchFilters(kind="record")
    for query in ("w1 w2", "w3", "w5 w6 w7"):
        expected = [(h.item.id, h.score) for h in engine.search(alone, query, 20)]
        got = [(h.item.id, h.score) for h in engine.search(mixed, query, 20, filters=only_records)]
        assert got == expected


def test_a_reader_view_looks_at_link_targets_without_keeping_them(tmp_path: Path) -> None:
    from substrate.visibility import reader_view

    store = Substrate(tmp_path / "shard")
    theirs = store.put(SubstrateItem("text", "their note", scope="bravo"))
    ours = store.put(SubstrateItem("text", "our note", scope="alpha", links=[theirs]))
    store.save()
    reader = Substrate(tmp_path / "shard")
    mine = reader.get(ours)
    assert mine is not None
    assert reader_view(reader, mine, {"alpha"}).links == []
    assert reader.peek(theirs) is not reader.peek(theirs)  # read each time: never kept


def test_a_team_reader_sees_the_model_an_artifact_derives_from(tmp_path: Path) -> None:
    from substrate.ingest import ingest_artifacts
    from substrate.visibility import reader_view

    model = tmp_path / "registry" / "churn-v3"
    model.mkdir(parents=True)
    (model / "manifest.json").write_text('{"kind": "classifier", "parent": "churn-v2"}')
    store = Substrate(tmp_path / "shard")
    [artifact_id] = ingest_artifacts(store, tmp_path / "registry", scope="ml")
    artifact = store.get(artifact_id)
    assert artifact is not None
    assert reader_view(store, artifact, {"ml"}).provenance["parent"] == "churn-v2"
