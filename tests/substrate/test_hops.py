"""multihop / HopChain / HopStep: seeds, link and content hops, evidence paths, visibility."""

from __future__ import annotations

from typing import Any

import pytest

from substrate.errors import InvalidInputError
from substrate.hops import HopChain, HopStep, multihop
from substrate.item import SubstrateItem
from substrate.store import Substrate
from substrate.telemetry import Telemetry


@pytest.fixture
def calls(lexical_search: list[str]) -> list[str]:
    """The queries the (deterministic, lexical) search was asked."""
    return lexical_search


def put(s: Substrate, ident: str, text: str, *, kind: str = "text", **kw: Any) -> str:
    return s.put(SubstrateItem(kind=kind, text=text, id=ident, **kw))


@pytest.fixture
def linked(calls: list[str]) -> Substrate:
    s = Substrate()
    put(s, "doc", "alpha bravo refund guide", links=["art"])
    put(s, "art", "zulu model weights", kind="artifact", links=["trc"])
    put(s, "trc", "yankee run log", kind="trace")
    put(s, "other", "cats and dogs")
    return s


def test_link_chain_and_path(linked: Substrate) -> None:
    chain = multihop(linked, "refund guide", seeds=1)
    assert [s.item.id for s in chain.steps] == ["doc", "art", "trc"]
    assert chain.max_depth() == 2
    assert [i.id for i in chain.path_to("trc")] == ["doc", "art", "trc"]
    assert [(s.via, s.depth, s.parent_id) for s in chain.steps] == [
        ("seed", 0, None),
        ("link", 1, "doc"),
        ("link", 2, "art"),
    ]
    assert chain.path_to("nope") == []
    assert {d: [i.id for i in items] for d, items in chain.by_depth().items()} == {
        0: ["doc"],
        1: ["art"],
        2: ["trc"],
    }


def test_invisible_links_are_not_followed_counted_or_reported(calls: list[str]) -> None:
    s = Substrate()
    put(s, "seed", "refund guide", links=["secret", "v1", "v2"], scope="team")
    put(s, "secret", "hidden plans", scope="other-team", links=["v3"])
    put(s, "v1", "visible one", scope="team")
    put(s, "v2", "visible two", scope="public")
    put(s, "v3", "quartz marmalade", scope="team")
    chain = multihop(s, "refund guide", seeds=1, branch=2, scopes={"team", "public"})
    ids = [st.item.id for st in chain.steps]
    # the hidden link does not use up a branch slot: both visible links are followed.
    assert ids == ["seed", "v1", "v2"]
    assert "secret" not in repr(chain.as_dict()) and "v3" not in ids


def test_dangling_links_are_ignored(calls: list[str]) -> None:
    s = Substrate()
    put(s, "seed", "refund guide", links=["gone", "there"])
    put(s, "there", "xyz")
    chain = multihop(s, "refund guide", seeds=1)
    assert [st.item.id for st in chain.steps] == ["seed", "there"]


def test_content_hops_search_with_item_text(calls: list[str]) -> None:
    s = Substrate()
    put(s, "a", "refund policy defective")
    put(s, "b", "defective widget recall notice")
    put(s, "c", "widget recall schedule spring")
    chain = multihop(s, "refund policy", seeds=1, max_hops=2)
    assert [(st.item.id, st.via, st.parent_id) for st in chain.steps] == [
        ("a", "seed", None),
        ("b", "content", "a"),
        ("c", "content", "b"),
    ]
    assert calls[1] == "refund policy defective"
    assert 0 < chain.steps[1].score < 1


def test_a_content_hop_from_a_part_answer_searches_for_the_rest(calls: list[str]) -> None:
    s = Substrate()
    put(s, "pay", "Payments owns invoicing and the billing-worker.")
    put(s, "lead", "Priya Raman is the Payments lead.")
    put(s, "other", "The billing-worker retries failed invoices.")
    chain = multihop(s, "Who leads the team that owns the billing-worker?", seeds=1, max_hops=1)
    # the words the seed leaves unsaid, and the name it gives: the team's page is next
    assert calls[1] == "leads team Payments"
    assert [(st.item.id, st.via, st.parent_id) for st in chain.steps][:2] == [
        ("pay", "seed", None),
        ("lead", "content", "pay"),
    ]


def test_min_score_is_strict_for_seeds_and_content(calls: list[str]) -> None:
    s = Substrate()
    put(s, "a", "refund policy")
    put(s, "b", "refund only")
    chain = multihop(s, "refund policy", seeds=3, min_score=0.5, max_hops=0)
    assert [st.item.id for st in chain.steps] == ["a"]


def test_max_items_and_branch_caps(calls: list[str]) -> None:
    s = Substrate()
    put(s, "hub", "refund hub", links=[f"n{i}" for i in range(6)])
    for i in range(6):
        put(s, f"n{i}", f"leaf {i}")
    assert len(multihop(s, "refund hub", seeds=1, branch=2, max_hops=1)) == 3
    assert len(multihop(s, "refund hub", seeds=1, branch=6, max_items=4)) == 4


def test_deterministic(linked: Substrate) -> None:
    first = multihop(linked, "refund guide alpha").provenance()
    second = multihop(linked, "refund guide alpha").provenance()
    assert first == second


def test_path_to_is_cycle_safe() -> None:
    a = SubstrateItem("text", "a", id="a")
    b = SubstrateItem("text", "b", id="b")
    chain = HopChain("q", [HopStep(a, 1, "link", "b"), HopStep(b, 1, "link", "a")])
    assert [i.id for i in chain.path_to("a")] == ["b", "a"]
    assert HopChain("q").max_depth() == 0


def test_provenance_and_as_dict(linked: Substrate) -> None:
    chain = multihop(linked, "refund guide", seeds=1)
    prov = chain.provenance()
    fields = {"id", "kind", "depth", "via", "parent", "score", "source", "line_start", "line_end"}
    assert set(prov[0]) == fields
    data = chain.as_dict()
    assert data["steps"][2]["path"] == ["doc", "art", "trc"]
    assert data["n"] == 3 and data["max_depth"] == 2


def test_to_context_does_not_search(linked: Substrate, calls: list[str]) -> None:
    chain = multihop(linked, "refund guide", seeds=1)
    before = len(calls)
    packet = chain.to_context()
    assert len(calls) == before
    assert [i.id for i in packet.items] == ["doc", "art", "trc"]
    assert packet.scores == [s.score for s in chain.steps]


def test_telemetry_and_bad_arguments(linked: Substrate) -> None:
    tel = Telemetry()
    chain = multihop(linked, "refund guide", seeds=1, telemetry=tel)
    (event,) = tel.events("reason")
    assert event.features == {"action": "multihop", "max_hops": 2}
    assert event.outcome == {"n": len(chain), "reached_depth": 2}
    with pytest.raises(InvalidInputError):
        multihop(linked, "x", max_hops=-1)
    with pytest.raises(InvalidInputError):  # a TypeError from range() before
        multihop(linked, "x", max_hops=float("inf"))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["seeds", "branch", "max_items"])
def test_a_walk_of_no_seeds_branches_or_items_is_refused_as_the_command_refuses_it(
    linked: Substrate, name: str
) -> None:
    """0 gave an empty (or seeds-only) chain without a word."""
    with pytest.raises(InvalidInputError, match=f"{name} must be a whole number >= 1"):
        multihop(linked, "refund guide", **{name: 0})


def test_real_engine_multihop_respects_scopes(tmp_path: Any) -> None:
    pytest.importorskip("substrate.search.engine")
    s = Substrate(tmp_path / "shard")
    s.add("text", "deployment guide for the refund service", id="g", links=["h", "m"])
    s.add("text", "hidden incident notes", id="h", scope="secret")
    s.add("artifact", "refund service model card", id="m")
    s.save()
    chain = multihop(s, "refund service deployment", scopes={"local"})
    ids = [st.item.id for st in chain.steps]
    assert "h" not in ids and ids[0] == "g" and "m" in ids
    again = multihop(Substrate(tmp_path / "shard"), "refund service deployment", scopes={"local"})
    assert again.provenance() == chain.provenance()


@pytest.mark.parametrize("name", ["min_score", "min_relative"])
@pytest.mark.parametrize("value", [None, "0.5", float("nan")])
def test_thresholds_that_are_no_number_are_refused(name: str, value: object) -> None:
    """Compared with each score, text raised a TypeError only once something matched, and
    None silently found nothing."""
    s = Substrate()
    s.add("text", "refund policy")
    with pytest.raises(InvalidInputError, match=f"{name} must be a number"):
        multihop(s, "refund", **{name: value})  # type: ignore[arg-type]


def test_a_walk_keeps_no_item_and_reads_no_more_than_its_branch_per_search(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every item the store keeps is compared with its saved line before each later search,
    # and each search read every item the walk had met: a long walk grew quadratically
    s = Substrate(tmp_path / "shard")
    for i in range(60):
        s.add("text", f"refund policy note {i} about refund windows and policy {i % 7}")
    s.save()
    reads: list[int] = []
    read_items = Substrate.read_items

    def counting(store: Substrate, ids: Any, **kw: Any) -> Any:
        ids = list(ids)
        reads.append(len(ids))
        return read_items(store, ids, **kw)

    monkeypatch.setattr(Substrate, "read_items", counting)
    chain = multihop(s, "refund policy", seeds=3, branch=2, max_hops=6, max_items=40)
    assert len(chain) > 10 and not s.held_items()
    assert max(reads[1:]) <= 2  # (the seeds' search aside)


def _facts(store: Substrate, scope: str = "local", *triples: list[str]) -> str:
    return store.add("graph", "", payload={"triples": [list(t) for t in triples]}, scope=scope)


def test_a_fact_s_names_lead_to_the_facts_that_go_on_from_them() -> None:
    """(INC-101, affected, billing-api) stopped at the seed: the fact going on from
    billing-api scored just under the floor a content hop must pass."""
    store = Substrate()
    incident = _facts(store, "local", ["INC-101", "affected", "billing-api"])
    owner = _facts(store, "local", ["billing-api", "owned_by", "Payments team"])
    lead = _facts(store, "local", ["Payments team", "led_by", "Alice Chen"])
    _facts(store, "local", ["query-router", "owned_by", "Search team"])
    chain = multihop(store, "INC-101", seeds=1, min_relative=0.34)
    assert [(s.item.id, s.via) for s in chain.steps[:3]] == [
        (incident, "seed"),
        (owner, "entity"),
        (lead, "entity"),
    ]
    assert [i.id for i in chain.path_to(lead)] == [incident, owner, lead]


def test_an_entity_hop_never_reaches_a_fact_the_reader_cannot_read() -> None:
    store = Substrate()
    _facts(store, "local", ["INC-101", "affected", "billing-api"])
    hidden = _facts(store, "secret", ["billing-api", "owned_by", "Payments team"])
    chain = multihop(store, "INC-101", seeds=1, scopes={"local"})
    assert hidden not in [s.item.id for s in chain.steps]
    assert all(s.via != "entity" for s in chain.steps)
