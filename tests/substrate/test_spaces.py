"""Spaces: team views, publishing with versions, history and merges."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from substrate.errors import AccessDeniedError, InvalidInputError, NotFoundError
from substrate.governance import Governance
from substrate.item import SubstrateItem
from substrate.proposals import pending, proposal_events, proposal_of, propose, reject
from substrate.spaces import (
    PUBLIC,
    Space,
    history,
    merge_versions,
    publish,
    version_of,
    visible_scopes,
)
from substrate.store import Substrate


@pytest.fixture
def store() -> Substrate:
    return Substrate()


def test_visible_scopes_is_own_plus_shared() -> None:
    assert PUBLIC == "public"
    assert visible_scopes("ops") == {"ops", "public"}
    assert visible_scopes("ops", shared=("public", "org")) == {"ops", "public", "org"}


def test_version_of_defaults_to_zero_and_tolerates_junk(store: Substrate) -> None:
    item = SubstrateItem(kind="text", text="x")
    assert version_of(item) == 0
    item.provenance["version"] = "nope"
    assert version_of(item) == 0


def test_publish_moves_scope_bumps_version_and_records_history(store: Substrate) -> None:
    a = store.add("text", "runbook", scope="ops", tags=["t"], links=[])
    created = store.get(a).created_at  # type: ignore[union-attr]
    assert publish(store, [a], to=PUBLIC, by="alice") == [a]
    item = store.get(a)
    assert item is not None
    assert item.scope == PUBLIC and item.created_at == created and item.tags == ["t"]
    assert version_of(item) == 1
    assert item.provenance["published_by"] == "alice"
    assert item.provenance["published_from"] == "ops"
    assert publish(store, [a], to=PUBLIC, by="bob") == [a]  # same scope still bumps
    entries = history(store, a)
    assert [e["version"] for e in entries] == [1, 2]
    assert entries[0]["published_from"] == "ops" and entries[0]["to"] == PUBLIC
    assert entries[1]["published_by"] == "bob"


def test_publish_skips_missing_and_guarded_ids(store: Substrate) -> None:
    a = store.add("text", "mine", scope="ops")
    b = store.add("text", "theirs", scope="dev")
    assert publish(store, ["nope", b, a], to=PUBLIC, from_scope="ops") == [a]
    assert store.get(b).scope == "dev"  # type: ignore[union-attr]


def test_strict_publish_validates_everything_first(store: Substrate) -> None:
    a = store.add("text", "mine", scope="ops")
    b = store.add("text", "theirs", scope="public")
    with pytest.raises(NotFoundError, match="nope"):
        publish(store, [a, "nope"], to=PUBLIC, strict=True)
    with pytest.raises(AccessDeniedError, match=b):
        publish(store, [a, b], to="org", from_scope="ops", strict=True)
    assert store.get(a).scope == "ops" and version_of(store.get(a)) == 0  # type: ignore[union-attr]


def test_publish_treats_items_outside_the_readers_scopes_as_missing(store: Substrate) -> None:
    hidden = store.add("text", "other team", scope="dev")
    assert publish(store, [hidden], to=PUBLIC, scopes={"ops", PUBLIC}) == []
    with pytest.raises(NotFoundError, match=f"no item with id {hidden}"):
        publish(store, [hidden], to=PUBLIC, scopes={"ops", PUBLIC}, strict=True)
    assert history(store, hidden, scopes={"ops"}) == []


def test_a_team_publishes_into_public_by_default(store: Substrate) -> None:
    mine = store.add("text", "ops note", scope="ops")
    assert publish(store, [mine], by="ops", scopes={"ops", PUBLIC}, team="ops") == [mine]
    assert store.get(mine).scope == PUBLIC
    other = store.add("text", "ops note two", scope="ops")
    with pytest.raises(AccessDeniedError, match="own or a shared scope"):
        publish(store, [other], by="ops", scopes={"ops", PUBLIC}, team="ops", shared=())


def test_publish_needs_a_target(store: Substrate) -> None:
    with pytest.raises(InvalidInputError):
        publish(store, [], to="")


def test_history_of_missing_item_is_empty(store: Substrate) -> None:
    assert history(store, "missing") == []


def test_merge_keeps_both_lineages_and_takes_latest_text(store: Substrate) -> None:
    keep = store.add("text", "old", scope=PUBLIC, tags=["b"], links=["x"])
    other = store.add("text", "new", scope=PUBLIC, tags=["a"], links=["y", keep])
    publish(store, [other], to=PUBLIC, by="dev")
    store.get(other).provenance["note"] = "from dev"  # type: ignore[union-attr]
    assert merge_versions(store, keep, other, by="lead") == keep
    assert store.get(other) is None
    merged = store.get(keep)
    assert merged is not None
    assert merged.text == "new"
    assert merged.tags == ["a", "b"]
    assert merged.links == ["x", "y"]  # the link between the two is not a self-link
    assert version_of(merged) == 2 and merged.provenance["merged"] is True
    entry = history(store, keep)[-1]
    assert entry["merged_from"] == other and entry["merged_by"] == "lead"
    assert entry["parents"] == [{"id": keep, "version": 0}, {"id": other, "version": 1}]
    assert entry["from_history"][0]["published_by"] == "dev"
    assert entry["from_provenance"]["note"] == "from dev"


def test_a_merge_keeps_the_text_it_does_not_keep_in_the_history(store: Substrate) -> None:
    keep = store.add("text", "kept words", scope=PUBLIC)
    other = store.add("text", "other words", scope=PUBLIC, payload={"n": 1})
    merge_versions(store, keep, other)  # a tie: keep's text wins
    [entry] = store.get(keep).provenance["version_history"]  # type: ignore[union-attr]
    assert entry["replaced"] == {"id": other, "text": "other words", "payload": {"n": 1}}
    private = store.add("text", "draft one", scope="ops")
    gone = store.add("text", "confidential draft", scope="ops")
    earlier = store.add("text", "secret first draft", scope="ops")
    merge_versions(store, gone, earlier)  # its history comes along with the next merge
    merge_versions(store, private, gone)
    publish(store, [private], to=PUBLIC)  # the text the merge did not keep stays unpublished
    shown = repr(store.get(private).provenance)  # type: ignore[union-attr]
    assert "confidential" not in shown and "secret first" not in shown
    same = store.add("text", "kept words", scope=PUBLIC)
    merge_versions(store, keep, same)  # nothing lost: nothing recorded
    assert "replaced" not in store.get(keep).provenance["version_history"][-1]  # type: ignore[union-attr]


def test_publishing_a_merge_shares_none_of_the_merged_away_items_record(
    store: Substrate,
) -> None:
    clean = store.add("text", "Q3: growth through partnerships", scope="ops")
    draft = store.add(
        "text",
        "We will pay 42M to Zephyrcorp.",
        scope="ops",
        provenance={"path": "/deals/zephyrcorp-terms.md", "section": "Deal with Zephyrcorp"},
    )
    propose(store, [draft], to=PUBLIC, by="ops")
    pat = Governance().grant("pat", PUBLIC)
    assert reject(store, draft, by="pat", reason="names the Zephyrcorp deal", governance=pat)
    merge_versions(store, clean, draft, prefer="keep")
    publish(store, [clean], to=PUBLIC)
    published = store.get(clean)
    assert published is not None and "Zephyrcorp" not in repr(published.provenance)
    [merge, _] = published.provenance["version_history"]
    assert merge["merged_from"] == draft and "from_provenance" not in merge  # the lineage stays


def test_a_merge_that_changes_a_proposed_item_withdraws_its_proposal(store: Substrate) -> None:
    keep = store.add("text", "keep two", scope="ops")
    other = store.add("text", "other two", scope="ops", tags=["extra"])
    same = store.add("text", "keep two", scope="ops")
    propose(store, [keep], to=PUBLIC, by="ops")
    merge_versions(store, keep, same, by="lead")  # what was proposed is unchanged: it stays
    assert proposal_of(store.get(keep))["status"] == "pending"  # type: ignore[arg-type,index]
    merge_versions(store, keep, other, by="lead", prefer="keep")  # a tag more: not as proposed
    item = store.get(keep)
    assert item is not None and proposal_of(item)["status"] == "withdrawn"  # type: ignore[index]
    assert proposal_events(item)[-1]["reason"].startswith(f"changed by merging {other}")
    assert pending(store) == []


def test_merge_prefer_keep_and_ties_keep_keep(store: Substrate) -> None:
    keep = store.add("text", "kept", scope=PUBLIC)
    other = store.add("text", "dropped", scope=PUBLIC)
    merge_versions(store, keep, other)
    assert store.get(keep).text == "kept"  # type: ignore[union-attr]
    other2 = store.add("text", "newer", scope=PUBLIC, provenance={"version": 9})
    merge_versions(store, keep, other2, prefer="keep")
    assert store.get(keep).text == "kept"  # type: ignore[union-attr]
    assert version_of(store.get(keep)) == 10


def test_merge_prefer_other_takes_the_other_s_text_under_keep_s_id(store: Substrate) -> None:
    keep = store.add("text", "Refunds over 500 EUR need a lead.", scope=PUBLIC)
    other = store.add("text", "Refunds over 1000 EUR need a lead.", scope=PUBLIC)
    assert merge_versions(store, keep, other, prefer="other") == keep  # a tie: latest keeps KEEP
    merged = store.get(keep)
    assert merged is not None and merged.text == "Refunds over 1000 EUR need a lead."
    assert store.get(other) is None and version_of(merged) == 1


def test_merge_repoints_links_to_the_merged_away_item(store: Substrate) -> None:
    keep = store.add("text", "k", scope=PUBLIC)
    other = store.add("text", "o", scope=PUBLIC)
    citer = store.add("text", "cites both", scope="ops", links=[other, keep, "z"])
    single = store.add("text", "cites other", scope="dev", links=[other])
    merge_versions(store, keep, other)
    assert store.get(citer).links == [keep, "z"]  # type: ignore[union-attr]
    assert store.get(single).links == [keep]  # type: ignore[union-attr]


def test_a_merge_repoints_no_link_in_an_item_the_merger_may_not_change(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from substrate.governance import Governance, save_governance

    store = Substrate(tmp_path)
    keep, other = (store.add("text", t, scope="red") for t in ("kept", "merged away"))
    mine = store.add("text", "red cites it", scope="red", links=[other])
    theirs = store.add("text", "blue cites it", scope="blue", links=[other])
    gated = store.add("text", "public cites it", scope=PUBLIC, links=[other])
    save_governance(store, Governance().grant("alice", PUBLIC))
    merge_versions(store, keep, other, by="red", scopes={"red", PUBLIC})
    assert store.get(mine).links == [keep]  # type: ignore[union-attr]
    # blue's item is not red's to change, and public takes changes from its approvers only
    assert store.get(theirs).links == [other]  # type: ignore[union-attr]
    assert store.get(gated).links == [other]  # type: ignore[union-attr]
    # the public item is told of (red reads it); blue's is not counted
    assert "1 item(s) in a scope with approvers still link to" in caplog.text


def test_a_merged_away_items_references_stay_hidden_from_readers_who_cannot_follow_them(
    store: Substrate,
) -> None:
    from substrate.visibility import reader_view

    hidden = store.add("text", "bravo only", scope="bravo")
    keep = store.add("text", "k", scope=PUBLIC)
    other = store.add("text", "o", scope=PUBLIC, provenance={"supersedes": hidden})
    merge_versions(store, keep, other)
    alpha = visible_scopes("alpha")
    merged = store.get(keep)
    assert merged is not None
    [entry] = history(store, keep, scopes=alpha)
    shown = reader_view(store, merged, alpha).provenance["version_history"]
    assert hidden not in str(entry) and hidden not in str(shown)
    assert entry["merged_from"] == other  # the merge itself is the reader's to see
    assert history(store, keep)[0]["from_provenance"] == {"supersedes": hidden}
    assert hidden in str(reader_view(store, merged, visible_scopes("bravo")).provenance)


@pytest.mark.parametrize(
    "provenance",
    [
        {"supersedes": ["{hidden}", "{seen}"]},  # a list of them
        {"replaces": "{hidden}"},
        {"superseded_by": "{hidden}"},
        {"merged_into": "{hidden}"},
        {"version_history": [{"from_provenance": {"supersedes": "{hidden}"}}]},
        {"version_history": [{"kept_provenance": {"replaces": "{hidden}"}}]},
        {"version_history": [{"from_history": [{"from_provenance": {"replaces": "{hidden}"}}]}]},
    ],
)
def test_every_reference_a_provenance_holds_to_a_hidden_item_is_left_out(
    store: Substrate, provenance: dict[str, object]
) -> None:
    # each place an item's record names another: a reader who cannot read it learns no id
    from substrate.visibility import reader_view

    hidden = store.add("text", "bravo only", scope="bravo")
    seen = store.add("text", "alpha's own", scope="alpha")
    written = orjson.loads(orjson.dumps(provenance).replace(b"{hidden}", hidden.encode()))
    written = orjson.loads(orjson.dumps(written).replace(b"{seen}", seen.encode()))
    item = store.get(store.add("text", "alpha note", scope="alpha", provenance=written))
    assert item is not None
    shown = str(reader_view(store, item, visible_scopes("alpha")).provenance)
    assert hidden not in shown
    assert (seen in shown) == ("{seen}" in str(provenance))  # what it may read stays
    assert hidden in str(reader_view(store, item, visible_scopes("bravo")).provenance)


def test_items_a_team_is_given_hold_no_link_to_what_it_cannot_read(store: Substrate) -> None:
    from substrate.hops import multihop
    from substrate.retrieval import retrieve

    hidden = store.add("text", "bravo only", scope="bravo")
    seen = store.add("text", "shared note", scope=PUBLIC)
    hub = store.add("text", "hubword summary", scope=PUBLIC, links=[hidden, seen])
    space = Space(store, "alpha")
    alpha = space.scopes
    given = [
        *retrieve(store, "hubword", scopes=alpha).items,
        *multihop(store, "hubword", scopes=alpha).items,
        space.get(hub),
        *space.all(),
    ]
    assert all(item is not None and hidden not in item.links for item in given)
    assert seen in space.get(hub).links  # type: ignore[union-attr]
    assert store.get(hub).links == [hidden, seen]  # type: ignore[union-attr]  # views only


def test_self_merge_is_an_error_not_a_deletion(store: Substrate) -> None:
    a = store.add("text", "precious", scope=PUBLIC)
    with pytest.raises(InvalidInputError, match="itself"):
        merge_versions(store, a, a)
    assert store.get(a) is not None


def test_merge_rejects_unknown_preference(store: Substrate) -> None:
    a = store.add("text", "a")
    b = store.add("text", "b")
    with pytest.raises(InvalidInputError, match="prefer"):
        merge_versions(store, a, b, prefer="newest")


def test_merge_missing_returns_none_or_raises_when_strict(store: Substrate) -> None:
    a = store.add("text", "a", scope=PUBLIC)
    assert merge_versions(store, a, "nope") is None
    with pytest.raises(NotFoundError, match="nope"):
        merge_versions(store, a, "nope", strict=True)
    hidden = store.add("text", "h", scope="dev")
    assert merge_versions(store, a, hidden, scopes={"ops", PUBLIC}) is None
    assert store.get(hidden) is not None


@pytest.mark.parametrize("strict", [True, False])
def test_merge_refuses_items_in_different_scopes(store: Substrate, strict: bool) -> None:
    # a merge would carry one scope's text into the other, or delete a shared item
    a = store.add("text", "a", scope=PUBLIC)
    b = store.add("text", "b", scope="ops")
    for keep, other in ((a, b), (b, a)):
        with pytest.raises(AccessDeniedError, match="scope"):
            merge_versions(store, keep, other, scopes={"ops", PUBLIC}, strict=strict)
    assert store.get(a).text == "a" and store.get(b).text == "b"  # type: ignore[union-attr]


def test_publish_and_merge_keep_to_the_callers_scopes_and_the_approvers(tmp_path: Path) -> None:
    from substrate.governance import Governance, save_governance

    store = Substrate(tmp_path)
    mine = store.add("text", "mine", scope="ops")
    with pytest.raises(AccessDeniedError, match="not 'dev'"):
        publish(store, [mine], to="dev", scopes={"ops", PUBLIC})  # a scope it cannot read
    save_governance(store, Governance().grant("carol", PUBLIC))
    with pytest.raises(AccessDeniedError, match="needs approval"):
        publish(store, [mine], by="mallory", scopes={"ops", PUBLIC})
    assert store.get(mine).scope == "ops"  # type: ignore[union-attr]
    one, two = (store.add("text", t, scope=PUBLIC) for t in ("one", "two"))
    with pytest.raises(AccessDeniedError, match="needs approval"):
        merge_versions(store, one, two, by="mallory")  # rewrites one, deletes the other
    assert store.get(two) is not None
    assert publish(store, [mine], by="carol") == [mine]
    assert merge_versions(store, one, two, by="carol") == one and store.get(two) is None


def test_space_sees_own_and_shared_but_not_other_teams(store: Substrate) -> None:
    ops = Space(store, "ops")
    mine = ops.add(kind="text", text="mine")
    shared = ops.add(kind="text", text="for all", scope=PUBLIC)
    theirs = store.add("text", "dev secret", scope="dev")
    assert ops.scopes == {"ops", PUBLIC}
    assert {i.id for i in ops.all()} == {mine, shared}
    assert ops.all(kind="record") == []
    assert ops.get(theirs) is None and ops.get(mine) is not None
    assert store.get(mine).scope == "ops"  # type: ignore[union-attr]
    with pytest.raises(AccessDeniedError):
        ops.add(kind="text", text="x", scope="dev")


def test_space_adds_as_the_team_writes(tmp_path: Path) -> None:
    from substrate.governance import Governance, save_governance

    store = Substrate(tmp_path)
    ops = Space(store, "ops")
    theirs = store.add("text", "dev plans", scope="dev")
    with pytest.raises(NotFoundError, match="to link to"):
        ops.add(kind="text", text="see theirs", links=[theirs])  # not the team's to follow
    with pytest.raises(NotFoundError, match="to link to"):
        ops.add(kind="text", text="see nothing", links=["ffffffffffffffff"])
    token = "ghp_Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1"
    masked = store.get(ops.add(kind="text", text=f"deploy token {token}"))
    assert masked is not None and token not in masked.text
    kept = store.get(ops.add(kind="text", text=f"deploy token {token}", redact=False))
    assert kept is not None and token in kept.text
    save_governance(store, Governance().grant("carol", PUBLIC).grant("alice", "ops"))
    for scope in (PUBLIC, "ops"):
        with pytest.raises(AccessDeniedError, match="needs approval"):
            ops.add(kind="text", text="unreviewed", scope=scope)
    assert store.get(ops.add(kind="text", text="approved", by="alice")) is not None


def test_a_support_triage_harness_reads_only_the_callers_scopes(store: Substrate) -> None:
    from substrate.harness import support_triage_harness

    store.add("text", "The platypus launch date is March 3rd.", scope="dev")
    seen: list[str] = []

    def answerer(question: str, evidence: str) -> str:
        seen.append(evidence)
        return evidence[:200]

    support_triage_harness(store, answerer, scopes={"ops", PUBLIC}).handle(
        "When is the platypus launch date?"
    )
    assert not any("March" in evidence for evidence in seen)
    support_triage_harness(store, answerer).handle("When is the platypus launch date?")
    assert any("March" in evidence for evidence in seen)


def test_space_publishes_only_its_own_items(store: Substrate) -> None:
    ops = Space(store, "ops")
    mine = ops.add(kind="text", text="mine")
    theirs = store.add("text", "dev", scope="dev")
    assert ops.publish([mine, theirs]) == [mine]
    assert store.get(mine).provenance["published_by"] == "ops"  # type: ignore[union-attr]
    assert store.get(theirs).scope == "dev"  # type: ignore[union-attr]


def test_space_publishes_only_where_the_team_may(tmp_path: Path) -> None:
    from substrate.governance import Governance, save_governance

    store = Substrate(tmp_path)
    ops = Space(store, "ops")
    mine = ops.add(kind="text", text="mine")
    with pytest.raises(AccessDeniedError, match="own or a shared scope"):
        ops.publish([mine], to="dev")  # another team's private scope
    save_governance(store, Governance().grant("carol", PUBLIC))
    with pytest.raises(AccessDeniedError, match="needs approval"):
        ops.publish([mine])  # a gated scope takes direct publishes from its approvers only
    assert store.get(mine).scope == "ops"  # type: ignore[union-attr]
    assert ops.publish([mine], by="carol") == [mine]
    assert store.get(mine).scope == PUBLIC  # type: ignore[union-attr]


def test_space_needs_a_team(store: Substrate) -> None:
    with pytest.raises(InvalidInputError):
        Space(store, "")


def test_space_retrieve_sees_only_visible_items(store: Substrate) -> None:
    ops = Space(store, "ops")
    ops.add(kind="text", text="the refund window is thirty days")
    store.add("text", "the refund window is secretly ninety days", scope="dev")
    result = ops.retrieve("refund window", k=5)
    texts = [item.text for item in result.items]
    assert texts and all("ninety" not in t for t in texts)
    with pytest.raises(InvalidInputError, match="a space reads its team's scopes"):
        ops.retrieve("refund window", scopes={"dev"})  # (a TypeError of two scopes= before)


def test_publish_and_merge_persist_on_disk(tmp_path: Path) -> None:
    store = Substrate(tmp_path / "s")
    keep = store.add("text", "k", scope=PUBLIC)
    other = store.add("text", "o", scope=PUBLIC)
    citer = store.add("text", "c", scope=PUBLIC, links=[other])
    store.save()
    publish(store, [keep], to=PUBLIC, by="a")
    merge_versions(store, keep, other, by="b")
    store.save()
    reopened = Substrate(tmp_path / "s")
    assert reopened.get(other) is None
    assert reopened.get(citer).links == [keep]  # type: ignore[union-attr]
    assert [e.get("merged_by") for e in history(reopened, keep)] == [None, "b"]


def test_publish_checks_the_team_it_is_given_once_and_names_it(store: Substrate) -> None:
    mine = store.add("text", "ours", scope="alpha")
    store.add("text", "theirs", scope="bravo")
    alpha = visible_scopes("alpha")
    with pytest.raises(AccessDeniedError, match="team 'alpha'"):
        publish(store, [mine], to="bravo", scopes=alpha, team="alpha", shared=(PUBLIC,))
    assert publish(store, [mine], to=PUBLIC, scopes=alpha, team="alpha", shared=(PUBLIC,)) == [mine]
    with pytest.raises(AccessDeniedError, match="team 'alpha'"):  # the Space passes its team
        Space(store, "alpha").publish([mine], to="bravo")


def test_a_teams_items_of_one_kind_keep_their_links_to_visible_items_of_another(
    store: Substrate,
) -> None:
    model = store.add("artifact", "classifier", scope=PUBLIC)
    hidden = store.add("text", "bravo only", scope="bravo")
    note = store.add("text", "uses the classifier", scope="alpha", links=[model, hidden])
    [shown] = Space(store, "alpha").all(kind="text")
    assert (shown.id, shown.links) == (note, [model])


def test_one_id_given_as_a_string_is_refused_not_read_as_its_characters(store: Substrate) -> None:
    some = store.add("text", "mine", scope="ops")
    with pytest.raises(InvalidInputError, match="one string"):
        publish(store, some, to="public")
    with pytest.raises(InvalidInputError, match="one string"):
        propose(store, some, to="public")


def test_a_team_cannot_choose_the_id_of_what_it_adds(store: Substrate) -> None:
    # an id chosen by the caller replaced the item that had it: another team's, unseen
    theirs = store.add("text", "bravo's plan", scope="bravo")
    with pytest.raises(InvalidInputError, match="leave out id"):
        Space(store, "alpha").add(id=theirs, kind="text", text="alpha's text")
    assert store.get(theirs).text == "bravo's plan"  # type: ignore[union-attr]
    assert store.get(theirs).scope == "bravo"  # type: ignore[union-attr]


def test_pending_items_hold_no_link_to_what_the_reader_cannot_read(store: Substrate) -> None:
    hidden = store.add("text", "bravo only", scope="bravo")
    shared = store.add("text", "shared draft", scope=PUBLIC, links=[hidden])
    propose(store, [shared], to="alpha", by="bravo")
    [seen] = pending(store, scopes=Space(store, "alpha").scopes)
    assert seen.id == shared and seen.links == []
    assert store.get(shared).links == [hidden]  # type: ignore[union-attr]  # a view only
    assert pending(store)[0].links == [hidden]  # the stored object, for the shard's owner


def test_a_merge_that_keeps_the_other_text_takes_where_it_comes_from(store: Substrate) -> None:
    where_a = {"source": "a.md", "path": "/n/a.md", "line_start": 2, "content_hash": "aa"}
    where_b = {"source": "b.md", "path": "/n/b.md", "line_start": 5, "content_hash": "bb"}
    keep = store.add("text", "Rate limit is 100 per minute.", scope=PUBLIC, provenance=where_a)
    other = store.add("text", "Rate limit is 500 per minute.", scope=PUBLIC, provenance=where_b)
    publish(store, [other], to=PUBLIC, by="dev")  # the later version: its text wins
    merge_versions(store, keep, other, by="lead")
    merged = store.get(keep)
    assert merged is not None and merged.text == "Rate limit is 500 per minute."
    cited = {k: merged.provenance.get(k) for k in where_b}
    assert cited == where_b  # a citation of the text names the file and line that say it
    assert merged.provenance["version"] == 2 and merged.provenance["merged"] is True
    entry = merged.provenance["version_history"][-1]
    assert {k: entry["kept_provenance"][k] for k in where_a} == where_a  # nothing lost
    publish(store, [keep], to="shared")
    shared = store.get(keep)
    assert shared is not None and "kept_provenance" not in shared.provenance["version_history"][-1]


def test_a_merge_takes_no_review_or_publication_record_from_the_merged_away_item(
    store: Substrate,
) -> None:
    keep = store.add("text", "first draft", scope="ops")
    other = store.add("text", "second draft", scope="ops", provenance={"source": "b.md"})
    publish(store, [other], to="ops", by="bob")  # the later version: its text wins
    propose(store, [other], to=PUBLIC, by="bob")
    merge_versions(store, keep, other, by="carol")
    merged = store.get(keep)
    assert merged is not None and merged.text == "second draft"
    assert merged.provenance["source"] == "b.md"  # where the text is from comes with it
    for key in ("proposal", "proposals", "published_by", "published_from"):
        assert key not in merged.provenance, key  # ... but not the other's review or record
    assert pending(store) == []  # the other's proposal went with it


@pytest.mark.parametrize("ids", [None, 5, {"x": 1}])
def test_ids_that_are_no_list_are_refused_in_words(store: Substrate, ids: object) -> None:
    """Not a TypeError from iterating None, nor a dict's keys taken for ids."""
    with pytest.raises(InvalidInputError, match="ids must be a list"):
        publish(store, ids, to="public")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="ids must be a list"):
        propose(store, ids, to="public")  # type: ignore[arg-type]


def test_an_item_holding_a_secret_is_passed_over_or_refused_as_strict_says(
    store: Substrate,
) -> None:
    # kept unredacted for its own scope, it is moved only when its secrets are allowed
    token = "ghp_Zq8Lm3Vt9Rx2Kp7Wn4Ys6Hd1Fb5Gc0Je8Ua3"
    held = store.add("text", f"CI uses {token}.", scope="ops", redact=False)
    plain = store.add("text", "CI runs nightly.", scope="ops")
    assert publish(store, [held, plain], to=PUBLIC) == [plain]  # the other still published
    assert store.get(held).scope == "ops"  # type: ignore[union-attr]
    with pytest.raises(AccessDeniedError, match=rf"{held} \(github_token\)") as refused:
        publish(store, [held], to=PUBLIC, strict=True)
    assert token not in str(refused.value) and "allow_secrets=True" in str(refused.value)
    assert propose(store, [held], to=PUBLIC) == []
    assert publish(store, [held], to=PUBLIC, allow_secrets=True) == [held]
