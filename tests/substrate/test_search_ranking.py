"""Ranking over index states: fusion, lexical floor, fallback, explain, ties, filters."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from substrate.errors import InvalidInputError
from substrate.ingest import ingest_path
from substrate.item import SubstrateItem
from substrate.search.filters import SearchFilters, source_matcher
from substrate.search.params import DEFAULT_PARAMS, SearchParams
from substrate.search.ranker import rank
from substrate.search.state import IndexState, build_state
from substrate.search.tokenize import Analyzer
from substrate.store import Substrate

TOPICS = {
    "space": "orbit rocket planet astronaut galaxy telescope launch satellite comet nebula "
    "gravity lunar mars jupiter saturn eclipse meteor cosmos shuttle capsule",
    "cooking": "recipe oven flour butter sugar bake simmer garlic onion pepper salad sauce "
    "roast grill kitchen dough pastry spice tomato basil",
    "finance": "invoice refund payment ledger budget tax audit credit debit loan interest "
    "account balance revenue expense payroll dividend equity bond asset",
    "garden": "soil seed compost tulip rose prune weed harvest shovel hedge orchard lawn "
    "mulch sprout bloom fern ivy daisy greenhouse fertilizer",
}


def topic_items(per_topic: int = 20, seed: int = 3) -> list[SubstrateItem]:
    rng = random.Random(seed)
    items = []
    for name, words in TOPICS.items():
        # 20 real words and 20 made-up ones per topic: enough vocabulary to learn from.
        vocab = words.split() + [f"{name}x{j:02d}" for j in range(20)]
        for i in range(per_topic):
            text = " ".join(rng.sample(vocab, 8))
            items.append(SubstrateItem("text", text, id=f"{name}-{i:02d}", tags=[name]))
    return items


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer()


@pytest.fixture(scope="module")
def topics(analyzer: Analyzer) -> IndexState:
    return build_state(analyzer, topic_items(), DEFAULT_PARAMS, None)


def test_corpus_large_enough_learns_an_embedding(topics: IndexState) -> None:
    assert topics.semantic
    assert topics.model is not None and topics.model.dim > 0


def test_small_corpus_falls_back_to_lexical(analyzer: Analyzer) -> None:
    state = build_state(analyzer, topic_items(per_topic=5), DEFAULT_PARAMS, None)
    assert state.model is None and not state.semantic
    hits = rank(state, analyzer, "rocket", 5, explain=True)
    assert hits and all(h.explain and h.explain["cosine"] == 0.0 for h in hits)
    assert all(h.explain and h.explain["bm25"] > 0 for h in hits)


@pytest.mark.parametrize("query", ["", "   ", "the of and which", "?!"])
def test_empty_or_stopword_query_returns_nothing(
    topics: IndexState, analyzer: Analyzer, query: str
) -> None:
    assert rank(topics, analyzer, query, 5) == []


@pytest.mark.parametrize("k", [0, -3])
def test_non_positive_k_returns_nothing(topics: IndexState, analyzer: Analyzer, k: int) -> None:
    assert rank(topics, analyzer, "rocket", k) == []


def test_unknown_words_return_nothing(topics: IndexState, analyzer: Analyzer) -> None:
    assert rank(topics, analyzer, "xylophone zzyzx", 5) == []


def test_results_are_sorted_scored_in_unit_range_and_deterministic(
    topics: IndexState, analyzer: Analyzer
) -> None:
    hits = rank(topics, analyzer, "rocket launch", 15)
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 < s <= 1.0 for s in scores)
    again = rank(topics, analyzer, "rocket launch", 15)
    assert [h.item_id for h in again] == [h.item_id for h in hits]
    assert all(isinstance(h.score, float) for h in hits)


def test_semantic_channel_finds_related_items_without_the_word(
    topics: IndexState, analyzer: Analyzer
) -> None:
    texts = {it.id: it.text for it in topic_items()}
    hits = rank(topics, analyzer, "rocket", 40, explain=True)
    without_word = [h for h in hits if "rocket" not in texts[h.item_id].split()]
    assert without_word, "related items that lack the word are found"
    assert all(h.literal == ("rocket" in texts[h.item_id].split()) for h in hits)
    assert all(h.item_id.startswith("space") for h in without_word)
    assert {h.item_id.split("-")[0] for h in hits[:10]} == {"space"}


def test_unrelated_items_are_not_returned(topics: IndexState, analyzer: Analyzer) -> None:
    hits = rank(topics, analyzer, "rocket", 80)
    assert 0 < len(hits) < 80
    assert not any(h.item_id.startswith(("cooking", "finance")) for h in hits)


def test_explain_reports_each_channel(topics: IndexState, analyzer: Analyzer) -> None:
    hit = rank(topics, analyzer, "butter recipe", 1, explain=True)[0]
    assert hit.explain is not None
    for key in ("bm25", "bm25_norm", "cosine", "fused", "coverage", "lexical_floor", "score"):
        assert isinstance(hit.explain[key], float)
    assert hit.explain["score"] == pytest.approx(hit.score)
    assert hit.explain["bm25_norm"] == pytest.approx(1.0)
    # each figure at six places, not float32's noise (0.4000000059604645)
    assert all(round(value, 6) == value for value in hit.explain.values())
    assert rank(topics, analyzer, "butter recipe", 1)[0].explain is None


def test_coverage_lowers_scores_when_query_words_are_missing(
    topics: IndexState, analyzer: Analyzer
) -> None:
    full = rank(topics, analyzer, "butter", 1)[0].score
    partial = rank(topics, analyzer, "butter qwertyuiop", 1)[0].score
    assert partial < full


def test_lexical_floor_keeps_exact_rare_matches_above_semantic_ones(analyzer: Analyzer) -> None:
    items = topic_items()
    items.append(SubstrateItem("text", "a note mentioning zeppelin once", id="exact"))
    # An overwhelming semantic weight would bury the literal match without the floor.
    params = replace(DEFAULT_PARAMS, semantic_weight=50.0)
    state = build_state(analyzer, items, params, None)
    hits = rank(state, analyzer, "zeppelin rocket", 80, explain=True)
    ids = [h.item_id for h in hits]
    assert "exact" in ids
    exact_at = ids.index("exact")
    for h in hits[:exact_at]:
        assert h.explain is not None and h.explain["bm25"] > 0, "only literal matches may lead"


def test_ties_keep_insertion_order(analyzer: Analyzer) -> None:
    items = [SubstrateItem("text", "same words here", id=f"t{i}") for i in range(6)]
    state = build_state(analyzer, items, DEFAULT_PARAMS, None)
    assert [h.item_id for h in rank(state, analyzer, "words", 6)] == [f"t{i}" for i in range(6)]


def filtered_items() -> list[SubstrateItem]:
    items = [
        SubstrateItem("text", "budget report budget budget", id=f"strong{i}", created_at=100.0 + i)
        for i in range(30)
    ]
    items.append(
        SubstrateItem(
            "record",
            "a budget line among many other words here",
            id="weak",
            scope="team",
            tags=["q3", "finance"],
            provenance={"source": "docs/plans/q3.md"},
            created_at=500.0,
        )
    )
    return items


@pytest.mark.parametrize(
    "filters",
    [
        SearchFilters(kind="record"),
        SearchFilters(scopes=frozenset({"team", "other"})),
        SearchFilters(tags=("finance", "q3")),
        SearchFilters(source_prefix="docs/plans"),
        SearchFilters(source_prefix="docs/"),
        SearchFilters(since=400.0),
        SearchFilters(since=499.0, until=501.0),
    ],
)
def test_filters_apply_inside_the_index(analyzer: Analyzer, filters: SearchFilters) -> None:
    state = build_state(analyzer, filtered_items(), DEFAULT_PARAMS, None)
    hits = rank(state, analyzer, "budget", 1, filters)
    assert [h.item_id for h in hits] == ["weak"]


@pytest.mark.parametrize(
    "filters",
    [
        SearchFilters(kind="image"),
        SearchFilters(scopes=frozenset()),
        SearchFilters(tags=("finance", "missing")),
        SearchFilters(source_prefix="docs/pla"),
        SearchFilters(until=50.0),
    ],
)
def test_filters_that_match_nothing(analyzer: Analyzer, filters: SearchFilters) -> None:
    state = build_state(analyzer, filtered_items(), DEFAULT_PARAMS, None)
    assert rank(state, analyzer, "budget", 5, filters) == []


def test_no_zero_score_hits_when_the_filters_leave_out_every_literal_match(
    analyzer: Analyzer,
) -> None:
    # "needle" is in a few texts of topic 0; the records of topic 0 are its semantic
    # neighbours, but none of them holds it: a search among records has nothing to offer
    rng = random.Random(0)
    items = []
    for i in range(200):
        words = rng.sample([f"t{i % 10}w{j}" for j in range(20)], 5)
        if i % 20 == 0:
            items.append(SubstrateItem("text", " ".join([*words, "needle"]), id=f"n{i}"))
        else:
            items.append(SubstrateItem("record", " ".join(words), id=f"r{i}"))
    state = build_state(analyzer, items, DEFAULT_PARAMS, None)
    assert state.semantic
    texts = rank(state, analyzer, "needle", 5, SearchFilters(kind="text"))
    assert texts and all(h.score > 0 for h in texts)
    assert rank(state, analyzer, "needle", 5, SearchFilters(kind="record")) == []


def test_until_bound_is_inclusive(analyzer: Analyzer) -> None:
    state = build_state(analyzer, filtered_items(), DEFAULT_PARAMS, None)
    hits = rank(state, analyzer, "budget", 50, SearchFilters(until=101.0))
    assert sorted(h.item_id for h in hits) == ["strong0", "strong1"]


def test_source_prefix_matches_path_components() -> None:
    assert source_matcher(("docs",))("docs/a.md")
    assert source_matcher(("docs",))("docs")
    assert source_matcher(("docs/",))("docs/a.md")
    assert not source_matcher(("docs",))("docsx/a.md")
    assert SearchFilters(source_prefix="docs").source_prefix == ("docs",)


def test_source_prefix_takes_the_longer_name_results_show() -> None:
    from substrate.search.filters import PATH_SEP

    entry = f"refunds.md{PATH_SEP}/srv/teamA/refunds.md"  # source, then path
    assert source_matcher(("teamA/refunds.md",))(entry)
    assert source_matcher(("srv/teamA/refunds.md",))(entry)
    assert not source_matcher(("eamA/refunds.md",))(entry)
    assert not source_matcher(("teamB/refunds.md",))(entry)
    # never shorter than the source: "docs/refunds.md" is not the source "x/docs/refunds.md"
    assert not source_matcher(("docs/refunds.md",))(
        f"x/docs/refunds.md{PATH_SEP}/s/x/docs/refunds.md"
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"scopes": "team"},
        {"tags": "finance"},
        {"since": 5.0, "until": 1.0},
        {"since": "yesterday"},
        {"source_prefix": ()},
    ],
)
def test_bad_filters_are_rejected(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError):
        SearchFilters(**kwargs)  # type: ignore[arg-type]


def test_filters_accept_any_iterable_of_scopes() -> None:
    assert SearchFilters(scopes={"a", "b"}).scopes == frozenset({"a", "b"})  # type: ignore[arg-type]


def test_removed_and_replaced_items_are_never_returned(
    topics: IndexState, analyzer: Analyzer
) -> None:
    victim = rank(topics, analyzer, "rocket", 1)[0].item_id
    gone = topics.with_changes(analyzer, [], [victim], coverage=None)
    assert victim not in [h.item_id for h in rank(gone, analyzer, "rocket", 100)]
    replaced = topics.with_changes(
        analyzer, [SubstrateItem("text", "now about pastry only", id=victim)], [], coverage=None
    )
    assert victim not in [h.item_id for h in rank(replaced, analyzer, "rocket", 100)]
    assert victim in [h.item_id for h in rank(replaced, analyzer, "pastry", 100)]
    # the original state is untouched (changes produce a new state)
    assert victim in [h.item_id for h in rank(topics, analyzer, "rocket", 100)]


def test_replaced_item_keeps_its_insertion_order(analyzer: Analyzer) -> None:
    items = [SubstrateItem("text", "same words here", id=f"t{i}") for i in range(3)]
    state = build_state(analyzer, items, DEFAULT_PARAMS, None)
    state = state.with_changes(
        analyzer, [SubstrateItem("text", "same words here", id="t0")], [], coverage=None
    )
    assert [h.item_id for h in rank(state, analyzer, "words", 3)] == ["t0", "t1", "t2"]


def test_signature_first_pass_agrees_on_the_top(analyzer: Analyzer) -> None:
    items = topic_items(per_topic=40)
    exact = build_state(analyzer, items, DEFAULT_PARAMS, None)
    params = SearchParams(signature_threshold=1, signature_candidates=30)
    coarse = replace(exact, params=params, _derived={})
    for query in ("rocket", "butter garlic", "refund"):
        want = [h.item_id for h in rank(exact, analyzer, query, 5)]
        got = [h.item_id for h in rank(coarse, analyzer, query, 5)]
        assert got[:3] == want[:3]


def test_odd_item_fields_do_not_break_indexing(analyzer: Analyzer) -> None:
    items = [
        SubstrateItem("text", "odd created time", id="a", created_at="yesterday"),  # type: ignore[arg-type]
        SubstrateItem("text", "tuple tags here", id="b", tags=("x", "y")),  # type: ignore[arg-type]
        SubstrateItem("record", "", id="c", payload={"deep": {"list": [1, "odd"]}}),
    ]
    state = build_state(analyzer, items, DEFAULT_PARAMS, None)
    assert [h.item_id for h in rank(state, analyzer, "odd", 5)] == ["a", "c"]
    assert [h.item_id for h in rank(state, analyzer, "odd", 5, SearchFilters(since=0.0))] == ["c"]
    assert [h.item_id for h in rank(state, analyzer, "tuple", 5, SearchFilters(tags=("y",)))] == [
        "b"
    ]


def test_changes_with_repeated_ids_keep_one_row_per_id(analyzer: Analyzer) -> None:
    state = build_state(analyzer, [SubstrateItem("text", "alpha", id="a")], DEFAULT_PARAMS, None)
    changed = state.with_changes(
        analyzer,
        [SubstrateItem("text", "beta one", id="b"), SubstrateItem("text", "beta two", id="b")],
        (i for i in ["a", "a"]),
        coverage=None,
        take_locations=True,
    )
    assert [h.item_id for h in rank(changed, analyzer, "beta", 5)] == ["b"]
    assert rank(changed, analyzer, "alpha", 5) == []
    assert changed.n_live == 1 and set(changed.locations()) == {"b"}


def test_a_source_filter_matches_either_name_of_an_entry() -> None:
    from substrate.search.filters import PATH_SEP, source_matcher

    entry = f"projects/plan.md{PATH_SEP}/home/me/notes/projects/plan.md"
    for prefix in ("projects", "projects/plan.md", "/home/me/notes", "/home/me/notes/"):
        assert source_matcher((prefix,))(entry), prefix
    for prefix in ("plan.md", "/home/me/note", "project", "notes/projects/plan"):
        assert not source_matcher((prefix,))(entry), prefix
    assert source_matcher(("nope", "/home/me"))(entry)


def test_a_source_typed_with_composed_accents_finds_one_macos_wrote_decomposed() -> None:
    import unicodedata

    from substrate.search.filters import source_matcher

    written = unicodedata.normalize("NFD", "notes/Café_Übersicht.md")
    assert source_matcher(["notes/Café_Übersicht.md"])(written)
    assert source_matcher([written])("notes/Café_Übersicht.md")  # (and the other way round)
    assert source_matcher([written], ["notes/Café_Übersicht.md"])(written)  # none as written
    # each prefix is decided alone: one named as written left the other's accents unfolded
    both = source_matcher(["a/Café.md", "notes/Café_Übersicht.md"], ["a/Café.md", written])
    assert both("a/Café.md") and both(written)


def test_a_source_named_as_written_is_not_taken_for_its_twin_spelt_otherwise(
    tmp_path: Path,
) -> None:
    # two files whose names differ only in how their accents are spelt: `ls --source` of one
    # listed both, and piped to `rm -` removed both
    import unicodedata

    nfc, nfd = "résumé.md", unicodedata.normalize("NFD", "résumé.md")
    (tmp_path / nfc).write_text("# A\n\nalpha composed\n")
    (tmp_path / nfd).write_text("# B\n\nalpha decomposed\n")
    store = Substrate()
    ingest_path(store, tmp_path)
    for name, said in ((nfc, "alpha composed"), (nfd, "alpha decomposed")):
        filters = SearchFilters(source_prefix=(str(tmp_path / name),))
        hits = store.search("alpha", k=5, filters=filters)
        assert [said in item.text for item, _ in hits] == [True], name


@pytest.mark.parametrize("typed", ["istanbul", "İSTANBUL", "Istanbul"])
def test_a_tag_is_found_in_any_case_and_accents_aside(typed: str) -> None:
    from substrate.search.filters import tag_key

    assert tag_key(typed) == tag_key("İstanbul")
    assert tag_key("ışık") == tag_key("IŞIK") == tag_key("isik")
    assert tag_key("Café") == "cafe" and tag_key("ADR") == "adr"
