"""Lineage: breadth-first verification and the linear whole-shard audit."""

from __future__ import annotations

from pathlib import Path

import pytest

from substrate.lineage import UNRESOLVED, LineageReport, audit_substrate, verify_lineage
from substrate.store import Substrate


@pytest.fixture
def store() -> Substrate:
    return Substrate()


def chain(
    store: Substrate, n: int, *, scope: str = "public", tail: list[str] | None = None
) -> list[str]:
    """Items 0..n-1 where item i links to item i+1 (the last links to ``tail``)."""
    ids: list[str] = []
    nxt = list(tail or [])
    for i in range(n):
        ids.append(store.add("text", f"step {i}", scope=scope, links=nxt))
        nxt = [ids[-1]]
    return list(reversed(ids))


def test_report_as_dict_has_the_six_keys() -> None:
    report = LineageReport("a", True, 1)
    assert report.as_dict() == {
        "item_id": "a",
        "intact": True,
        "n_links": 1,
        "dangling": [],
        "depth": 0,
        "visited": 0,
    }


def test_missing_root(store: Substrate) -> None:
    report = verify_lineage(store, "nope")
    assert report.as_dict() == {
        "item_id": "nope",
        "intact": False,
        "n_links": 0,
        "dangling": ["nope"],
        "depth": 0,
        "visited": 0,
    }


def test_three_chain_and_two_cycle(store: Substrate) -> None:
    root = chain(store, 3)[0]
    report = verify_lineage(store, root)
    assert (report.intact, report.visited, report.depth, report.n_links) == (True, 3, 2, 2)
    a = store.add("text", "a")
    b = store.add("text", "b", links=[a])
    store.get(a).links.append(b)  # type: ignore[union-attr]
    report = verify_lineage(store, a)
    assert (report.intact, report.visited, report.depth, report.n_links) == (True, 2, 1, 2)


def test_depth_is_the_shortest_distance(store: Substrate) -> None:
    # root -> a -> c and root -> b -> d -> c: a depth-first walk finds c at depth 3.
    c = store.add("text", "c")
    d = store.add("text", "d", links=[c])
    a = store.add("text", "a", links=[c])
    b = store.add("text", "b", links=[d])
    root = store.add("text", "root", links=[a, b])
    report = verify_lineage(store, root)
    assert report.depth == 2 and report.visited == 5 and report.n_links == 5


def test_dangling_links_deduplicated_in_first_seen_order(store: Substrate) -> None:
    mid = store.add("text", "mid", links=["gone2", "gone1"])
    root = store.add("text", "root", links=["gone1", mid, "gone1"])
    report = verify_lineage(store, root)
    assert not report.intact
    assert report.dangling == ["gone1", "gone2"]
    assert report.n_links == 5


def test_max_depth_bounds_the_walk(store: Substrate) -> None:
    ids = chain(store, 5, tail=["gone"])
    report = verify_lineage(store, ids[0], max_depth=2)
    assert report.intact and report.visited == 3 and report.depth == 2
    assert not verify_lineage(store, ids[0]).intact


def test_links_at_the_depth_limit_are_checked_though_not_followed(store: Substrate) -> None:
    kept = store.add("text", "kept")
    root = store.add("text", "root", links=["gone", kept])
    report = verify_lineage(store, root, max_depth=0)
    assert not report.intact and report.dangling == ["gone"]
    assert (report.n_links, report.unfollowed, report.visited) == (2, 1, 1)


def test_non_string_links_are_ignored(store: Substrate) -> None:
    root = store.add("text", "root")
    store.get(root).links = [1, None]  # type: ignore[union-attr,list-item]  # changed in place
    assert verify_lineage(store, root).intact


def test_links_outside_the_readers_scopes_are_hidden(store: Substrate) -> None:
    private = store.add("text", "dev notes", scope="dev", links=["gone"])
    shared = store.add("text", "public", scope="public", links=[private, "vanished"])
    report = verify_lineage(store, shared, scopes={"ops", "public"})
    # Neither the dev item nor the missing one is named, counted or followed: telling them
    # apart would tell this reader that the dev item exists.
    assert report.dangling == [] and report.intact
    assert report.n_links == 0 and report.visited == 1
    assert verify_lineage(store, private, scopes={"ops", "public"}).dangling == [private]
    full = verify_lineage(store, shared)
    assert full.dangling == ["vanished", "gone"] and full.visited == 2


def test_audit_counts_and_names_broken_items(store: Substrate) -> None:
    ok = store.add("text", "fine")
    bad = store.add("text", "bad", links=[ok, "gone"])
    via = store.add("text", "via", links=[bad])
    result = audit_substrate(store)
    assert result == {
        "n_items": 3,
        "n_intact": 1,
        "n_broken": 2,
        "broken": [
            {"item_id": bad, "dangling": ["gone"]},
            {"item_id": via, "dangling": ["gone"]},
        ],
    }


def test_audit_matches_verify_lineage_on_a_tangle(store: Substrate) -> None:
    # Cycles, shared ancestors and several dangling links.
    a = store.add("text", "a", links=["x1"])
    b = store.add("text", "b", links=[a])
    c = store.add("text", "c", links=[b, "x2"])
    store.get(a).links.append(c)  # type: ignore[union-attr]  # a -> c -> b -> a
    d = store.add("text", "d", links=[c, "x3"])
    e = store.add("text", "e", links=["x3"])
    f = store.add("text", "f")
    g = store.add("text", "g", links=[f, e])
    result = audit_substrate(store)
    expected = {}
    for item_id in (a, b, c, d, e, f, g):
        report = verify_lineage(store, item_id)
        if not report.intact:
            expected[item_id] = sorted(report.dangling)
    assert {b["item_id"]: b["dangling"] for b in result["broken"]} == expected
    assert result["n_intact"] == 1


def test_audit_has_no_depth_limit_and_handles_deep_chains(store: Substrate) -> None:
    ids = chain(store, 5000, tail=["gone"])
    result = audit_substrate(store)
    assert result["n_broken"] == 5000
    assert {b["item_id"] for b in result["broken"]} == set(ids)


def test_audit_scope_filters_reporting_not_resolution(store: Substrate) -> None:
    target = store.add("text", "t", scope="ops")
    store.add("text", "s", scope="public", links=[target])
    broken = store.add("text", "b", scope="ops", links=["gone"])
    result = audit_substrate(store, scope="public")
    assert result["n_items"] == 1 and result["n_broken"] == 0
    assert audit_substrate(store, scope="ops")["broken"] == [
        {"item_id": broken, "dangling": ["gone"]}
    ]


def test_a_readers_own_links_out_of_sight_count_as_one(store: Substrate) -> None:
    hidden = [store.add("text", f"finance {n}", scope="finance") for n in range(2)]
    mine = store.add("text", "research", scope="research", links=[*hidden, "removed"])
    report = verify_lineage(store, mine, scopes={"research"}, own_scope="research")
    assert report.dangling == [UNRESOLVED] and report.n_links == 1


def test_audit_for_a_reader_hides_other_scopes(store: Substrate) -> None:
    private = store.add("text", "dev", scope="dev", links=["gone"])
    store.add("text", "p", scope="public", links=[private])
    assert audit_substrate(store, scopes={"ops", "public"}) == {
        "n_items": 1,
        "n_intact": 1,
        "n_broken": 0,
        "broken": [],
    }
    everything = audit_substrate(store)
    assert everything["n_broken"] == 2


def test_audit_on_disk(tmp_path: Path) -> None:
    store = Substrate(tmp_path / "s")
    hidden = store.add("text", "dev", scope="dev")
    store.add("text", "p", scope="public", links=[hidden, "gone"])
    store.save()
    reopened = Substrate(tmp_path / "s")
    assert audit_substrate(reopened, scopes={"public"})["broken"] == []
    assert [b["dangling"] for b in audit_substrate(reopened)["broken"]] == [["gone"]]


def test_an_id_that_is_no_string_is_refused(store: Substrate) -> None:
    from substrate import multihop
    from substrate.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="an item id is a string"):
        verify_lineage(store, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="a query is text"):
        multihop(store, None)  # type: ignore[arg-type]
