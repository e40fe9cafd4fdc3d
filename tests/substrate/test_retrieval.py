"""retrieve / Retrieval: one ranked pass, per-kind weights, round-robin diversity, visibility."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from substrate.context.compress import terms
from substrate.errors import InvalidInputError
from substrate.item import SubstrateItem
from substrate.retrieval import Retrieval, merge_scopes, retrieve
from substrate.store import Substrate
from substrate.telemetry import Telemetry


class FakeIndex:
    """A deterministic stand-in for the search engine: share of query terms in the item.

    ``scores`` pins exact scores per item id; every call is recorded.
    """

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.scores: dict[str, float] = {}

    def search(
        self,
        store: Substrate,
        query: str,
        k: int = 5,
        *,
        kind: str | None = None,
        scope: str | None = None,
        filters: Any = None,
        keep: bool = True,  # (the items are the store's own either way)
        skip: Any = (),  # (what a walk met)
    ) -> list[tuple[SubstrateItem, float]]:
        kinds = frozenset([kind]) if kind else None
        if filters is not None:
            kinds, scopes = filters.kinds, filters.scopes
        else:
            scopes = frozenset([scope]) if scope else None
        self.calls.append({"query": query, "k": k, "kinds": kinds, "scopes": scopes})
        wanted = terms(query)
        hits = []
        for item in store.iter_items():
            if (kinds and item.kind not in kinds) or (
                scopes is not None and item.scope not in scopes
            ):
                continue
            score = self.scores.get(item.id)
            if score is None:
                score = len(wanted & terms(item.text)) / len(wanted) if wanted else 0.0
            if score > 0 and item.id not in skip:
                hits.append((item, score))
        hits.sort(key=lambda pair: -pair[1])
        return hits[:k]


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch) -> FakeIndex:
    fake = FakeIndex()

    def search(self: Substrate, query: str, k: int = 5, **kw: Any) -> Any:
        return fake.search(self, query, k, **kw)

    monkeypatch.setattr(Substrate, "search", search)
    return fake


def shard(*items: SubstrateItem) -> Substrate:
    s = Substrate()
    for item in items:
        s.put(item)
    return s


def item(kind: str, text: str, ident: str, scope: str = "local", **kw: Any) -> SubstrateItem:
    return SubstrateItem(kind=kind, text=text, id=ident, scope=scope, **kw)


@pytest.fixture
def mixed(index: FakeIndex) -> Substrate:
    s = shard(
        item("text", "refund policy text one", "t1"),
        item("text", "refund policy text two", "t2"),
        item("text", "refund policy text three", "t3"),
        item("record", "refund record", "r1"),
        item("artifact", "refund model artifact", "a1"),
        item("text", "unrelated cats", "t4"),
    )
    index.scores.update({"t1": 0.9, "t2": 0.8, "t3": 0.7, "r1": 0.5, "a1": 0.3})
    return s


def test_diversified_round_robin(mixed: Substrate) -> None:
    r = retrieve(mixed, "refund", k=4)
    # layer 0: best of each kind (sorted by score), then layer 1.
    assert [i.id for i in r.items] == ["t1", "r1", "a1", "t2"]
    assert r.scores == [0.9, 0.5, 0.3, 0.8]


def test_flat_merge(mixed: Substrate) -> None:
    r = retrieve(mixed, "refund", k=4, diversify=False)
    assert [i.id for i in r.items] == ["t1", "t2", "t3", "r1"]


def test_one_ranked_pass_not_one_per_kind(mixed: Substrate, index: FakeIndex) -> None:
    retrieve(mixed, "refund", k=4)
    assert len(index.calls) == 1
    assert index.calls[0]["kinds"] is None and index.calls[0]["k"] >= 4


def test_single_kind_is_pushed_into_the_search(mixed: Substrate, index: FakeIndex) -> None:
    r = retrieve(mixed, "refund", k=2, kinds=["record"])
    assert [i.id for i in r.items] == ["r1"]
    assert index.calls[0]["kinds"] == {"record"}


def test_weights_reorder_kinds(mixed: Substrate) -> None:
    r = retrieve(mixed, "refund", k=3, weights={"artifact": 4.0}, diversify=False)
    assert [i.id for i in r.items] == ["a1", "t1", "t2"]
    assert r.scores[0] == pytest.approx(1.2)


def test_a_kind_weighted_zero_is_left_out(mixed: Substrate) -> None:
    # scored 0, its hits would take their turn in the interleaving above real matches
    r = retrieve(mixed, "refund", k=8, weights={"artifact": 0.0})
    assert r.items and "artifact" not in {i.kind for i in r.items}


def test_kinds_filter_and_empty_kinds(mixed: Substrate) -> None:
    r = retrieve(mixed, "refund", k=8, kinds=["artifact", "record"])
    assert {i.kind for i in r.items} == {"artifact", "record"}
    assert len(retrieve(mixed, "refund", kinds=[])) == 0


def test_a_kind_asked_for_is_not_crowded_out_by_a_more_common_one() -> None:
    s = Substrate()
    for i in range(40):
        s.add("text", f"ocelot ocelot habitat survey {i}")
    record = s.add("record", payload={"animal": "ocelot", "notes": "river trees valley forest"})
    both = retrieve(s, "ocelot", kinds=["text", "record"])
    assert record in [i.id for i in both.items]
    weighted = retrieve(s, "ocelot", k=3, weights={"record": 5.0})
    assert weighted.items[0].id == record
    # kinds with no item change neither what is found nor its scores
    alone = retrieve(s, "ocelot", kinds=["text"], k=3)
    padded = retrieve(s, "ocelot", kinds=["text", "signal"], k=3)
    assert (alone.items, alone.scores) == (padded.items, padded.scores)


def test_bad_arguments(mixed: Substrate) -> None:
    with pytest.raises(InvalidInputError):
        retrieve(mixed, "refund", kinds=["nope"])
    with pytest.raises(InvalidInputError):
        retrieve(mixed, "refund", k=-1)
    with pytest.raises(InvalidInputError):
        retrieve(mixed, "refund", k=float("nan"))  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        retrieve(mixed, "refund", weights={"text": -1.0})
    with pytest.raises(InvalidInputError):
        retrieve(mixed, "refund", weights={"text": float("nan")})


def test_k_zero_and_empty_query(mixed: Substrate, index: FakeIndex) -> None:
    assert len(retrieve(mixed, "refund", k=0)) == 0
    assert len(retrieve(mixed, "   ")) == 0
    assert index.calls == []


def test_min_score_drops_weak_hits(mixed: Substrate) -> None:
    r = retrieve(mixed, "refund", k=8, min_score=0.6)
    assert [i.id for i in r.items] == ["t1", "t2", "t3"]


def test_scopes_limit_what_is_seen(index: FakeIndex) -> None:
    s = shard(
        item("text", "refund alpha", "a", scope="team-a"),
        item("text", "refund public", "p", scope="public"),
        item("text", "refund secret", "x", scope="team-b"),
    )
    r = retrieve(s, "refund", scopes={"team-a", "public"})
    assert {i.id for i in r.items} == {"a", "p"}
    assert index.calls[-1]["scopes"] == frozenset({"team-a", "public"})
    assert [i.id for i in retrieve(s, "refund", scope="public").items] == ["p"]
    # scope narrows scopes; a scope outside them sees nothing.
    assert len(retrieve(s, "refund", scope="team-b", scopes={"team-a"})) == 0
    assert len(retrieve(s, "refund", scopes=set())) == 0


def test_merge_scopes() -> None:
    assert merge_scopes(None, None) is None
    assert merge_scopes("a", None) == frozenset({"a"})
    assert merge_scopes(None, ["a", "b"]) == frozenset({"a", "b"})
    assert merge_scopes("a", ["a", "b"]) == frozenset({"a"})
    assert merge_scopes("c", ["a"]) == frozenset()


def test_retrieval_methods(mixed: Substrate) -> None:
    mixed.get("t1").provenance.update(  # type: ignore[union-attr]
        {"source": "docs/a.md", "line_start": 3, "line_end": 9}
    )
    r = retrieve(mixed, "refund", k=4)
    assert r.kinds() == ["artifact", "record", "text"]
    assert list(r.by_kind()) == ["text", "record", "artifact"]
    assert [i.id for i in r.top(2)] == ["t1", "r1"]
    first = r.provenance()[0]
    assert first == {
        "id": "t1",
        "kind": "text",
        "source": "docs/a.md",
        "score": 0.9,
        "line_start": 3,
        "line_end": 9,
    }
    assert r.as_dict()["n"] == 4


def test_to_context_reuses_scores_without_searching(mixed: Substrate, index: FakeIndex) -> None:
    r = retrieve(mixed, "refund", k=4)
    before = len(index.calls)
    packet = r.to_context()
    assert len(index.calls) == before
    assert packet.task == "refund"
    assert packet.scores == r.scores
    assert [i.id for i in packet.items] == [i.id for i in r.items]
    assert [i.id for i in r.to_context(kind="text").items] == ["t1", "t2"]


def test_telemetry_one_reason_event(mixed: Substrate) -> None:
    tel = Telemetry()
    r = retrieve(mixed, "refund", k=3, telemetry=tel)
    events = tel.events("reason")
    assert len(events) == 1
    assert events[0].features["action"] == "retrieve"
    assert events[0].choice == [i.id for i in r.items]
    assert events[0].outcome == {"n": 3, "kinds_covered": 3}


def test_failing_recorder_never_breaks_retrieval(mixed: Substrate) -> None:
    class Broken:
        def record(self, *a: Any, **kw: Any) -> None:
            raise RuntimeError("sink down")

    assert len(retrieve(mixed, "refund", k=2, telemetry=Broken())) == 2


def test_empty_retrieval_object() -> None:
    r = Retrieval("q")
    assert len(r) == 0 and r.kinds() == [] and r.provenance() == []


# -- with the real engine ---------------------------------------------------------------------


def test_real_engine_cross_kind(tmp_path: Any) -> None:
    pytest.importorskip("substrate.search.engine")
    s = Substrate(tmp_path / "shard")
    s.add("text", "the refund policy covers defective items", id="t1")
    s.add("record", "refund ledger entry for order 42", id="r1")
    s.add("artifact", "refund classifier model", id="a1", scope="ops")
    s.add("text", "store opening hours", id="t2")
    s.save()
    r = retrieve(s, "refund", k=3)
    assert {i.kind for i in r.items} == {"text", "record", "artifact"}
    assert all(0.0 <= sc <= 1.0 for sc in r.scores)
    hidden = retrieve(s, "refund", k=3, scopes={"local"})
    assert "a1" not in {i.id for i in hidden.items}


def test_sources_that_read_the_same_are_told_apart_by_their_folders() -> None:
    from substrate.retrieval import shown_sources

    def named(ident: str, source: str, path: str | None) -> SubstrateItem:
        prov = {"source": source} if path is None else {"source": source, "path": path}
        return item("text", "refunds", ident, provenance=prov)

    items = [
        named("a", "refunds.md", "/srv/teamA/docs/refunds.md"),
        named("b", "refunds.md", "/srv/teamB/docs/refunds.md"),
        named("a2", "refunds.md", "/srv/teamA/docs/refunds.md"),  # same file: same name
        named("c", "docs/refunds.md", "/srv/teamC/docs/refunds.md"),  # another name already
        named("s", "refunds.md", None),  # no path to tell it by
        named("o", "other.md", "/srv/teamA/other.md"),
    ]
    assert shown_sources(items) == [
        "teamA/docs/refunds.md",
        "teamB/docs/refunds.md",
        "teamA/docs/refunds.md",
        "docs/refunds.md",
        "refunds.md",
        "other.md",
    ]
    # one of them alone, or two sections of one file: the names stay short
    assert shown_sources(items[:1]) == ["refunds.md"]
    assert shown_sources([items[0], items[2]]) == ["refunds.md", "refunds.md"]


def test_a_longer_name_keeps_secrets_in_folder_names_masked() -> None:
    from substrate.retrieval import shown_sources

    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    items = [
        item("text", "x", "a", provenance={"source": "n.md", "path": f"/h/{token}/n.md"}),
        item("text", "x", "b", provenance={"source": "n.md", "path": "/h/plain/n.md"}),
    ]
    shown = shown_sources(items)
    assert token not in shown[0] and shown[0].endswith("/n.md") and shown[1] == "plain/n.md"


def test_a_longer_name_never_reads_as_another_file_s_name() -> None:
    from substrate.retrieval import shown_sources

    def named(ident: str, source: str, path: str) -> SubstrateItem:
        return item("text", "x", ident, provenance={"source": source, "path": path})

    items = [
        named("a", "refunds.md", "/a/teamA/refunds.md"),
        named("b", "refunds.md", "/a/teamB/refunds.md"),
        named("z", "teamA/refunds.md", "/z/teamA/refunds.md"),  # ingested from /z
        named("k", "kb-handbook", "/a/docs.jsonl"),  # a name given at ingest: kept
        named("k2", "kb-handbook", "/b/docs.jsonl"),
    ]
    shown = shown_sources(items)
    assert shown[:3] == ["a/teamA/refunds.md", "teamB/refunds.md", "z/teamA/refunds.md"]
    assert shown[3:] == ["kb-handbook", "kb-handbook"]


def test_a_longer_name_is_cut_from_the_masked_path() -> None:
    from substrate.retrieval import shown_sources

    key = "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG+bPxRfiCYq8Zr3LmN0pQ2"
    items = [
        item("text", "x", "a", provenance={"source": "r.md", "path": f"/srv/{key}/r.md"}),
        item("text", "x", "b", provenance={"source": "r.md", "path": "/srv/other/r.md"}),
    ]
    shown = shown_sources(items)
    # the mask swallows the end of that path: it cannot be lengthened, and no part shows
    assert not any(part in str(shown) for part in ("K7MDENG", "wJalrXUtnFEMI", "pQ2"))
    assert shown == ["r.md", "r.md"]
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a mask that leaves the end
    items[0].provenance["path"] = f"/srv/{token}/r.md"
    shown = shown_sources(items)
    assert token not in shown[0] and shown[0].endswith("/r.md") and shown[1] == "other/r.md"


def test_only_line_numbers_are_shown_as_lines() -> None:
    from substrate.retrieval import lines_of

    def item(**prov: object) -> SubstrateItem:
        return SubstrateItem(kind="text", text="x", provenance=dict(prov))

    assert lines_of(item(line_start=3, line_end=5)) == (3, 5)
    assert lines_of(item(line=7)) == (7, 7)  # a row, a passage, a trace
    assert lines_of(item(line=2, line_end=3)) == (2, 3)  # a JSON value over two lines
    for odd in ("ERROR db timeout", {"n": 3}, True, 0, -2):  # a caller's own provenance
        assert lines_of(item(line=odd)) == (None, None), odd


@pytest.mark.parametrize("query", [None, 5])
def test_every_entry_point_refuses_a_query_that_is_not_text_alike(query: object) -> None:
    # each failed its own way, deep inside: AttributeError, TypeError from a regex
    from substrate import answer_from_substrate, assemble_context, check_factuality, multihop

    s = Substrate()
    s.add("text", "refund policy")
    calls = (
        lambda: retrieve(s, query),  # type: ignore[arg-type]
        lambda: assemble_context(s, query),  # type: ignore[arg-type]
        lambda: multihop(s, query),  # type: ignore[arg-type]
        lambda: check_factuality(s, query),  # type: ignore[arg-type]
        lambda: answer_from_substrate(s, query, lambda q, c: "x"),  # type: ignore[arg-type]
    )
    for call in calls:
        with pytest.raises(InvalidInputError, match=f"is text, not {type(query).__name__}"):
            call()
    assert s.search(query) == []  # type: ignore[arg-type]  # as the seed's search answers


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"weights": [1]}, r"weights must map kinds to numbers .*not list"),
        ({"weights": "text"}, "weights must map kinds to numbers"),
        ({"min_score": "0.2"}, "min_score must be a number, not str"),
        ({"min_score": float("nan")}, "min_score must be a number, not NaN"),
        ({"min_score": Decimal("sNaN")}, "min_score must be a number, not NaN"),  # no compare
    ],
)
def test_retrieve_refuses_weights_and_floors_of_the_wrong_type(
    options: dict[str, Any], said: str
) -> None:
    s = Substrate()
    s.add("text", "refund policy")
    with pytest.raises(InvalidInputError, match=said):
        retrieve(s, "refund", **options)


def test_retrieve_takes_any_real_number_and_whole_number() -> None:
    import numpy as np

    s = Substrate()
    s.add("text", "refund policy")
    for floor in (np.float32(0.1), Fraction(1, 10), Decimal("0.1"), 0):
        assert retrieve(s, "refund", min_score=floor).items, floor
    assert retrieve(s, "refund", k=np.int64(3)).items


def test_a_result_built_by_hand_gives_one_score_to_each_item_or_is_refused() -> None:
    from substrate.answer import Answer
    from substrate.context import ContextPacket

    item = SubstrateItem("text", "apples are a fruit")
    # the seed's signatures let one be built without scores: each item then scores 0.0
    assert Retrieval("q", items=[item]).provenance()[0]["score"] == 0.0
    packet = ContextPacket("q", items=[item])
    assert packet.as_dict()["provenance"][0]["id"] == item.id
    assert Answer("q", "a", False, 0.5, packet).as_dict()["citations"][0]["score"] == 0.0
    for build in (Retrieval, ContextPacket):  # (a mismatch is refused where it is made)
        with pytest.raises(InvalidInputError, match="1 items and 2 scores"):
            build("q", items=[item], scores=[0.5, 0.25])


def test_a_kind_filter_naming_no_kind_is_refused_everywhere_as_retrieve_refuses_it() -> None:
    from substrate.context import assemble_context
    from substrate.search.filters import SearchFilters

    store = Substrate()
    store.add("text", "billing runs nightly")
    for call in (  # each read "artefact" as "no such items"
        lambda: store.search("billing", kind="artefact"),
        lambda: store.all(kind="artefact"),
        lambda: store.iter_items(kind="artefact"),  # (where it is called, not when read)
        lambda: assemble_context(store, "billing", kind="artefact"),
        lambda: SearchFilters(kind=("text", "artefact")),
    ):
        with pytest.raises(InvalidInputError, match="unknown kind 'artefact'"):
            call()
    for none in ((), 5):  # (no kind at all: as read, "no such items")
        with pytest.raises(InvalidInputError, match="kind names no kind"):
            SearchFilters(kind=none)  # type: ignore[arg-type]
    assert [i.text for i, _ in store.search("billing", kind="text")] == ["billing runs nightly"]


def test_a_kind_weighted_0_is_left_out_of_the_pass_itself() -> None:
    # the pool was filled with the better-matching traces, dropped after: nothing was left
    store = Substrate()
    for n in range(60):
        store.add("trace", f"restart the worker restart {n}", payload={"input": f"restart {n}"})
    store.add("text", "To restart the service, run the restart script.", id="runbook")
    found = retrieve(store, "restart", k=3, weights={"trace": 0})
    assert [item.id for item in found.items] == ["runbook"]
    assert retrieve(store, "restart", k=3, weights={"trace": 0, "text": 0}).items == []
