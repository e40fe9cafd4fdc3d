"""Governance: persisted approvers, proposals with an append-only history, approve/reject ACLs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from substrate.errors import AccessDeniedError, InvalidInputError, NotFoundError, ShardError
from substrate.governance import (
    Governance,
    authorize_publish,
    grant_approver,
    load_governance,
    revoke_approver,
    save_governance,
)
from substrate.proposals import (
    APPROVED,
    PENDING,
    REJECTED,
    approve,
    pending,
    proposal_events,
    proposal_of,
    propose,
    proposed_content,
    reject,
    withdraw,
)
from substrate.settings import Settings
from substrate.spaces import history, publish, version_of
from substrate.store import Substrate


@pytest.fixture
def store() -> Substrate:
    s = Substrate()
    save_governance(s, Governance().grant("alice", "public"))
    return s


def test_constants() -> None:
    assert (PENDING, APPROVED, REJECTED) == ("pending", "approved", "rejected")


def test_governance_acl_basics() -> None:
    gov = Governance()
    assert gov.grant("a", "public") is gov  # chainable
    assert gov.may_approve("a", "public")
    assert not gov.may_approve("a", "org") and not gov.may_approve(None, "public")
    assert gov.gated("public") and not gov.gated("org")
    gov.revoke("a", "public")
    assert not gov.gated("public") and gov.as_dict() == {}
    with pytest.raises(NotFoundError):
        gov.revoke("a", "public")
    with pytest.raises(InvalidInputError):
        gov.grant("", "public")


def test_approvers_persist_in_mixle_toml(tmp_path: Path) -> None:
    store = Substrate(tmp_path / "s")
    save_governance(store, Governance().grant("bob", "public").grant("al", "public"))
    text = (tmp_path / "s" / "mixle.toml").read_text()
    assert "[governance.approvers]" in text
    reopened = Substrate(tmp_path / "s")
    assert load_governance(reopened).as_dict() == {"public": ["al", "bob"]}


@pytest.mark.parametrize(
    "data",
    [
        {"governance": {"approvers": ["x"]}},
        {"governance": {"approvers": {"public": "x"}}},
        {"governance": {"approvers": {"public": [1]}}},
    ],
)
def test_malformed_approvers_are_a_shard_error(data: dict[str, object]) -> None:
    with pytest.raises(ShardError, match="governance.approvers"):
        Governance.from_settings(Settings(data))


def test_propose_then_approve_publishes_with_history(store: Substrate) -> None:
    a = store.add("text", "runbook", scope="ops")
    assert propose(store, [a, "missing"], to="public", by="ops") == [a]
    item = store.get(a)
    assert item is not None and item.scope == "ops"  # not visible there yet
    content = proposed_content(item)
    assert proposal_of(item) == {"to": "public", "by": "ops", "status": PENDING, "content": content}
    assert [i.id for i in pending(store)] == [a]
    assert pending(store, to="org") == []
    assert approve(store, a, by="alice") is True
    item = store.get(a)
    assert item is not None and item.scope == "public" and version_of(item) == 1
    assert proposal_of(item) == {
        "to": "public",
        "by": "ops",
        "status": APPROVED,
        "approved_by": "alice",
        "content": content,
    }
    assert history(store, a)[0]["published_by"] == "alice"
    assert [e["event"] for e in proposal_events(item)] == ["proposed", "approved"]
    assert pending(store) == []


def test_proposing_elsewhere_withdraws_the_pending_proposal_in_the_history(
    store: Substrate,
) -> None:
    a = store.add("text", "runbook", scope="ops")
    propose(store, [a], to="public", by="ops")
    propose(store, [a], to="org", by="ops")
    item = store.get(a)
    assert item is not None and proposal_of(item)["to"] == "org"  # type: ignore[index]
    events = [(e["event"], e["to"]) for e in proposal_events(item)]
    assert events == [("proposed", "public"), ("withdrawn", "public"), ("proposed", "org")]
    assert [i.id for i in pending(store, to="public")] == []


def test_publishing_an_item_withdraws_its_pending_proposal(store: Substrate) -> None:
    a = store.add("text", "runbook", scope="ops")
    b = store.add("text", "playbook", scope="ops")
    for item_id in (a, b):
        propose(store, [item_id], to="public", by="ops")
    publish(store, [a], to="public", by="alice")  # what was asked for, done directly
    publish(store, [b], to="org", by="ops")  # moved elsewhere: approving would move it again
    for item_id, scope in ((a, "public"), (b, "org")):
        item = store.get(item_id)
        assert item is not None and proposal_of(item)["status"] == "withdrawn"  # type: ignore[index]
        withdrawn = proposal_events(item)[-1]
        assert withdrawn["reason"] == f"published into {scope} directly"
    assert pending(store) == []
    assert approve(store, a, by="alice") is False and store.get(a).provenance["version"] == 1  # type: ignore[union-attr]


def test_an_item_changed_since_its_proposal_is_not_approved(store: Substrate) -> None:
    # what the approver reviewed is what gets published, not what was swapped in since
    a = store.add("text", "harmless runbook", scope="ops")
    propose(store, [a], to="public", by="ops")
    changed = store.get(a)
    assert changed is not None
    changed.text = "confidential figures"
    store.put(changed)
    assert approve(store, a, by="alice") is False
    with pytest.raises(AccessDeniedError, match="changed since it was proposed"):
        approve(store, a, by="alice", strict=True)
    assert store.get(a).scope == "ops"  # type: ignore[union-attr]
    propose(store, [a], to="public", by="ops")  # proposed again: the new text is reviewed
    assert approve(store, a, by="alice") is True


def test_pending_returns_live_items(store: Substrate) -> None:
    a = store.add("text", "x", scope="ops")
    propose(store, [a], to="public")
    assert pending(store)[0] is store.get(a)


def test_approve_refusals_return_false_and_change_nothing(store: Substrate) -> None:
    a = store.add("text", "x", scope="ops")
    assert approve(store, a, by="alice") is False  # not pending
    assert approve(store, "missing", by="alice") is False
    propose(store, [a], to="public", by="ops")
    assert approve(store, a, by="mallory") is False
    assert approve(store, a, by="alice", to="org") is False  # never re-targets
    item = store.get(a)
    assert item is not None and item.scope == "ops" and proposal_of(item)["status"] == PENDING  # type: ignore[index]


def test_strict_approve_says_why(store: Substrate) -> None:
    a = store.add("text", "x", scope="ops")
    with pytest.raises(NotFoundError, match="no pending proposal"):
        approve(store, a, by="alice", strict=True)
    with pytest.raises(NotFoundError, match="no item with id nope"):
        approve(store, "nope", by="alice", strict=True)
    propose(store, [a], to="public")
    with pytest.raises(AccessDeniedError, match="mallory"):
        approve(store, a, by="mallory", strict=True)
    with pytest.raises(InvalidInputError, match="proposed for scope 'public'"):
        approve(store, a, by="alice", to="org", strict=True)
    propose(store, [a], to="org")
    with pytest.raises(AccessDeniedError, match="no approvers"):
        approve(store, a, by="alice", strict=True)


def test_explicit_governance_decides_the_scopes_the_settings_name_no_approvers_for(
    store: Substrate,
) -> None:
    a = store.add("text", "x", scope="ops")
    propose(store, [a], to="org")
    assert approve(store, a, by="carol", governance=Governance().grant("carol", "org"))
    assert store.get(a).scope == "org"  # type: ignore[union-attr]


def test_explicit_governance_cannot_let_anyone_past_the_saved_approvers(store: Substrate) -> None:
    a = store.add("text", "x", scope="ops")
    propose(store, [a], to="public", by="ops")
    forged = Governance().grant("mallory", "public")
    with pytest.raises(AccessDeniedError, match="mallory"):
        approve(store, a, by="mallory", governance=forged, strict=True)
    assert reject(store, a, by="mallory", governance=forged) is False
    assert store.get(a).scope == "ops"  # type: ignore[union-attr]
    assert approve(store, a, by="alice", governance=forged)  # the saved approver still may


def test_withdraw_is_the_proposers_or_an_approvers_and_leaves_the_item_put(
    store: Substrate,
) -> None:
    a = store.add("text", "x", scope="ops")
    propose(store, [a], to="public", by="ops")
    with pytest.raises(AccessDeniedError):
        withdraw(store, a, by="mallory")  # neither the proposer nor an approver
    with pytest.raises(AccessDeniedError):
        withdraw(store, a, by="ops", team="web")  # as a team: only its own items'
    assert withdraw(store, a, by="ops", reason="not ready", team="ops") == "public"
    item = store.get(a)
    assert item is not None and item.scope == "ops"
    proposal = proposal_of(item) or {}
    assert (proposal["status"], proposal["withdrawn_by"]) == ("withdrawn", "ops")
    assert pending(store) == []
    with pytest.raises(NotFoundError):
        withdraw(store, a, by="ops")  # no longer pending
    b = store.add("text", "y", scope="ops")
    propose(store, [b], to="public", by="ops")
    assert withdraw(store, b, by="alice") == "public"  # an approver of the target may
    withdrawn = store.get(b)
    assert withdrawn is not None
    assert withdrawn.provenance["proposals"][-1]["reason"] == ""  # none given: none stored


def test_reject_needs_the_approvers_right(store: Substrate) -> None:
    a = store.add("text", "x", scope="ops")
    propose(store, [a], to="public", by="ops")
    assert reject(store, a, by="mallory", reason="no") is False
    with pytest.raises(AccessDeniedError):
        reject(store, a, by="mallory", reason="no", strict=True)
    assert reject(store, a, by="alice", reason="too vague") is True
    item = store.get(a)
    assert item is not None and item.scope == "ops"
    assert proposal_of(item) == {
        "to": "public",
        "by": "ops",
        "status": REJECTED,
        "rejected_by": "alice",
        "reason": "too vague",
        "content": proposed_content(item),
    }
    assert reject(store, a, by="alice") is False  # no longer pending
    with pytest.raises(NotFoundError):
        reject(store, a, by="alice", strict=True)


def test_reproposing_keeps_every_earlier_event(store: Substrate) -> None:
    a = store.add("text", "x", scope="ops")
    propose(store, [a], to="public", by="ops")
    reject(store, a, by="alice", reason="first try")
    propose(store, [a], to="public", by="ops")
    assert proposal_events(store.get(a))[1]["reason"] == "first try"  # type: ignore[arg-type]
    approve(store, a, by="alice")
    events = proposal_events(store.get(a))  # type: ignore[arg-type]
    assert [e["event"] for e in events] == ["proposed", "rejected", "proposed", "approved"]
    assert all(isinstance(e["at"], float) for e in events)


def test_the_same_proposal_made_again_changes_nothing(store: Substrate) -> None:
    a = store.add("text", "x", scope="ops")
    assert propose(store, [a], to="public", by="ops") == [a]
    assert propose(store, [a], to="public", by="ops") == [a]  # still proposed: no new event
    assert [e["event"] for e in proposal_events(store.get(a))] == ["proposed"]  # type: ignore[arg-type]
    propose(store, [a], to="public", by="bo")  # another proposer: the first one stays
    assert len(proposal_events(store.get(a))) == 1  # type: ignore[arg-type]
    assert proposal_of(store.get(a))["by"] == "ops"  # type: ignore[arg-type,index]


def test_a_proposal_its_proposer_may_no_longer_release_is_made_again_by_one_who_may(
    store: Substrate,
) -> None:
    # alice, an approver of ops, proposed it, then lost the right; bob, one now, proposes it
    # again, as the refusal of its approval asks: kept as alice's, it could not be approved
    a = store.add("text", "ops runbook", scope="ops")
    save_governance(store, Governance().grant("alice", "ops").grant("carol", "public"))
    propose(store, [a], to="public", by="alice")
    save_governance(store, Governance().grant("bob", "ops").grant("carol", "public"))
    assert not approve(store, a, by="carol")
    propose(store, [a], to="public", by="bob")
    assert proposal_of(store.get(a))["by"] == "bob"  # type: ignore[arg-type,index]
    assert approve(store, a, by="carol") and store.get(a).scope == "public"  # type: ignore[union-attr]


def test_strict_propose_validates_all_ids_first(store: Substrate) -> None:
    a = store.add("text", "x", scope="ops")
    b = store.add("text", "y", scope="public")
    with pytest.raises(NotFoundError, match="nope"):
        propose(store, [a, "nope"], to="public", strict=True)
    with pytest.raises(AccessDeniedError, match=b):
        propose(store, [a, b], to="org", from_scope="ops", strict=True)
    with pytest.raises(InvalidInputError, match="already in scope"):
        propose(store, [a, b], to="public", strict=True)
    assert proposal_of(store.get(a)) is None  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        propose(store, [a], to="")


def test_hidden_items_cannot_be_proposed_approved_or_listed(store: Substrate) -> None:
    hidden = store.add("text", "dev only", scope="dev")
    propose(store, [hidden], to="public", by="dev")
    mine = {"ops", "public"}
    assert pending(store, scopes=mine) == []
    assert propose(store, [hidden], to="public", scopes=mine) == []
    with pytest.raises(NotFoundError, match=f"no item with id {hidden}"):
        approve(store, hidden, by="alice", scopes=mine, strict=True)
    with pytest.raises(NotFoundError, match=f"no item with id {hidden}"):
        reject(store, hidden, by="alice", scopes=mine, strict=True)
    assert store.get(hidden).scope == "dev"  # type: ignore[union-attr]


def test_grant_and_revoke_rules(store: Substrate) -> None:
    # An approver manages the list of a gated scope; nobody else does.
    assert grant_approver(store, "bob", "public", by="alice") is True
    assert grant_approver(store, "bob", "public", by="alice") is False
    with pytest.raises(AccessDeniedError):
        grant_approver(store, "eve", "public", by="eve")
    # An ungated scope can be claimed by someone who reads it, not by another team.
    assert grant_approver(store, "ops", "ops", by="ops", scopes={"ops", "public"})
    with pytest.raises(AccessDeniedError):
        grant_approver(store, "ops", "dev", by="ops", scopes={"ops", "public"})
    revoke_approver(store, "bob", "public", by="alice")
    assert load_governance(store).as_dict() == {"ops": ["ops"], "public": ["alice"]}
    with pytest.raises(NotFoundError):
        revoke_approver(store, "bob", "public", by="alice")
    with pytest.raises(AccessDeniedError):
        revoke_approver(store, "alice", "public", by="bob")


def test_authorize_publish() -> None:
    gov = Governance().grant("alice", "public")
    authorize_publish(gov, to="public", by="alice", team="ops", shared=["public"])
    authorize_publish(gov, to="ops", by="ops", team="ops", shared=["public"])
    authorize_publish(gov, to="anything", by="x", team=None, shared=["public"])
    with pytest.raises(AccessDeniedError, match="needs approval"):
        authorize_publish(gov, to="public", by="ops", team="ops", shared=["public"])
    with pytest.raises(AccessDeniedError, match="own or a shared scope"):
        authorize_publish(gov, to="dev", by="ops", team="ops", shared=["public"])


def test_a_gated_scope_loses_items_to_publish_or_propose_only_through_its_approvers(
    store: Substrate,
) -> None:
    save_governance(store, Governance().grant("alice", "alpha").grant("bob", "beta"))
    memo = store.add("text", "alpha's acquisition memo", scope="alpha")
    for move in (
        lambda: publish(store, [memo], to="beta", by="bob", strict=True),
        lambda: publish(store, [memo], to="beta", by="bob"),  # not only when strict
        lambda: propose(store, [memo], to="beta", by="carol"),
    ):
        with pytest.raises(AccessDeniedError, match="scope 'alpha' needs approval"):
            move()
        item = store.get(memo)
        assert item is not None and item.scope == "alpha" and proposal_of(item) is None
    assert propose(store, [memo], to="beta", by="alice") == [memo]  # alpha lets it go
    assert approve(store, memo, by="bob") is True  # and beta takes it
    older = store.add("text", "proposed before alpha had approvers", scope="alpha")
    save_governance(store, Governance().grant("bob", "beta"))
    assert propose(store, [older], to="beta", by="carol") == [older]
    save_governance(store, Governance().grant("alice", "alpha").grant("bob", "beta"))
    leaving = "scope 'alpha' needs approval for an item to leave it; 'bob' is not one"
    with pytest.raises(AccessDeniedError, match=leaving) as refused:
        approve(store, older, by="bob", strict=True)  # beta's approver alone cannot take it
    assert f"propose it again: `mixle propose {older} --to beta --by NAME`" in str(refused.value)
    assert store.get(older).scope == "alpha"  # type: ignore[union-attr]
    free = store.add("text", "an ops note", scope="ops")  # an ungated scope lets anyone
    assert publish(store, [free], to="public", by="carol") == [free]


def test_governance_round_trip_on_disk(tmp_path: Path) -> None:
    store = Substrate(tmp_path / "s")
    save_governance(store, Governance().grant("alice", "public"))
    a = store.add("text", "x", scope="ops")
    store.save()
    propose(store, [a], to="public", by="ops")
    store.save()
    reopened = Substrate(tmp_path / "s")
    assert [i.id for i in pending(reopened)] == [a]
    assert approve(reopened, a, by="alice")
    reopened.save()
    again = Substrate(tmp_path / "s")
    item = again.get(a)
    assert item is not None and item.scope == "public"
    assert [e["event"] for e in proposal_events(item)] == ["proposed", "approved"]


def test_names_that_look_like_secrets_are_refused_and_reasons_masked(store: Substrate) -> None:
    from substrate.spaces import merge_versions, publish

    token = "ghp_Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1"
    a = store.add("text", "x", scope="ops")
    b = store.add("text", "y", scope="ops")
    for call in (
        lambda: merge_versions(store, a, b, by=token),
        lambda: Governance().grant(token, "public"),
        lambda: Governance().grant("alice", token),
        lambda: propose(store, [a], to=token, by="ops"),
        lambda: propose(store, [a], to="public", by=token),
        lambda: publish(store, [a], to=token),
        lambda: publish(store, [a], to="public", by=token),
    ):
        with pytest.raises(InvalidInputError, match="looks like a secret") as caught:
            call()
        assert token not in str(caught.value)
    assert store.get(a).scope == "ops"  # type: ignore[union-attr]
    propose(store, [a], to="public", by="ops")
    assert reject(store, a, by="alice", reason=f"it pastes {token}") is True
    assert token not in str(store.get(a).provenance)  # type: ignore[union-attr]


def test_grants_made_at_the_same_time_are_all_kept(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys; from substrate.store import Substrate; "
        "from substrate.governance import grant_approver; "
        "n = sys.argv[2]; "
        "grant_approver(Substrate(sys.argv[1]), 'user' + n, 'scope' + n, by=None)"
    )
    runs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path), str(i)]) for i in range(8)]
    assert [run.wait(timeout=60) for run in runs] == [0] * 8
    approvers = load_governance(Substrate(tmp_path)).as_dict()
    assert approvers == {f"scope{i}": [f"user{i}"] for i in range(8)}


# A reader of alpha and public only; beta is gated (its approver is betaboss), gamma is not.
ALPHA_READS = frozenset({"alpha", "public"})
HIDDEN_SCOPES = ("beta", "gamma")
NAMES = ("betaboss", "carol", "alpha")


@pytest.fixture
def split() -> Substrate:
    s = Substrate()
    save_governance(s, Governance().grant("betaboss", "beta"))
    return s


def _refusal(call: Callable[..., object], *args: object, **kwargs: object) -> str:
    with pytest.raises(AccessDeniedError) as caught:
        call(*args, **kwargs)
    return str(caught.value)


def test_a_team_cannot_change_or_probe_the_approvers_of_a_scope_it_cannot_read(
    split: Substrate,
) -> None:
    messages = set()
    as_alpha = {"scopes": ALPHA_READS, "team": "alpha"}
    for scope in HIDDEN_SCOPES:
        for by in NAMES:
            for call, who in (
                (grant_approver, "mallory"),
                (revoke_approver, "nobody"),
                (revoke_approver, "betaboss"),
            ):
                message = _refusal(call, split, who, scope, by=by, **as_alpha)
                messages.add(message.replace(scope, "S"))
    assert messages == {
        "'alpha' may not change the approvers of scope 'S' (its approvers may, or, while it "
        "has none, a team that reads it)"
    }
    assert load_governance(split).as_dict() == {"beta": ["betaboss"]}


def test_the_readability_check_comes_before_the_approvers_are_read(split: Substrate) -> None:
    a = split.add("text", "x", scope="alpha")
    propose(split, [a], to="beta", by="root")
    split.settings.section("governance")["approvers"] = ["not", "a", "table"]
    as_alpha = {"by": "betaboss", "scopes": ALPHA_READS, "team": "alpha"}
    # Each is an AccessDeniedError, not the ShardError of the malformed table.
    _refusal(grant_approver, split, "m", "beta", **as_alpha)
    _refusal(revoke_approver, split, "m", "beta", **as_alpha)
    _refusal(approve, split, a, strict=True, **as_alpha)
    _refusal(reject, split, a, strict=True, **as_alpha)


def test_the_reviewers_reasons_stay_behind_when_an_item_is_approved_or_published(
    store: Substrate,
) -> None:
    approved = store.add("text", "draft statement", scope="ops")
    propose(store, [approved], to="public", by="ops")
    reject(store, approved, by="alice", reason="quotes the 42M price: remove it first")
    propose(store, [approved], to="public", by="ops")
    assert approve(store, approved, by="alice")
    published = store.add("text", "another draft", scope="ops")
    propose(store, [published], to="public", by="ops")
    reject(store, published, by="alice", reason="quotes the 42M price")
    publish(store, [published], to="public", by="alice")
    for item_id in (approved, published):
        item = store.get(item_id)
        assert item is not None and item.scope == "public"
        assert "42M" not in repr(item.provenance) and "42M" not in repr(history(store, item_id))
        events = [(e["event"], e["by"]) for e in proposal_events(item)]
        assert ("rejected", "alice") in events  # who did what stays


def test_approve_and_reject_into_an_unreadable_scope_are_refused_alike(split: Substrate) -> None:
    into_beta = split.add("text", "mine, proposed to beta", scope="alpha")
    into_gamma = split.add("text", "mine, proposed to gamma", scope="alpha")
    propose(split, [into_beta], to="beta", by="root")
    propose(split, [into_gamma], to="gamma", by="root")
    before = {i: split.get(i).provenance["proposals"] for i in (into_beta, into_gamma)}  # type: ignore[union-attr]
    messages = set()
    for item_id, scope in ((into_beta, "beta"), (into_gamma, "gamma")):
        for by in NAMES:
            how = {"by": by, "scopes": ALPHA_READS, "team": "alpha"}
            for action, call in (("approve", approve), ("reject", reject)):
                message = _refusal(call, split, item_id, strict=True, **how)
                messages.add(message.replace(scope, "S").replace(action, "ACT"))
                assert call(split, item_id, **how) is False
    assert messages == {
        "'alpha' may not ACT promotions into scope 'S', which it cannot read: those granted it "
        "act reading as no team, or as the team that owns it"
    }
    for item_id, events in before.items():
        item = split.get(item_id)
        assert item is not None and item.scope == "alpha" and item.provenance["proposals"] == events
        assert proposal_of(item)["status"] == PENDING  # type: ignore[index]


def test_naming_an_unreadable_scope_is_refused_whether_the_item_exists_or_not(
    split: Substrate,
) -> None:
    mine = split.add("text", "mine", scope="alpha")
    theirs = split.add("text", "theirs", scope="beta")
    propose(split, [mine, theirs], to="beta", by="root")
    for scope in HIDDEN_SCOPES:
        approvals, proposals = set(), set()
        for item_id in (mine, theirs, "0123456789abcdef"):
            how = {"by": "betaboss", "to": scope, "scopes": ALPHA_READS, "team": "alpha"}
            with pytest.raises(AccessDeniedError) as caught:
                approve(split, item_id, **how, strict=True)  # type: ignore[arg-type]
            approvals.add(str(caught.value))
            assert approve(split, item_id, **how) is False  # type: ignore[arg-type]
            for strict in (True, False):
                with pytest.raises(AccessDeniedError) as caught:
                    propose(
                        split, [item_id], to=scope, scopes=ALPHA_READS, team="alpha", strict=strict
                    )
                proposals.add(str(caught.value))
        assert approvals == {
            f"'alpha' may not approve promotions into scope {scope!r}, which it cannot read: "
            "those granted it act reading as no team, or as the team that owns it"
        }
        assert proposals == {
            f"team 'alpha' may propose only into its own or a shared scope, not {scope!r}"
        }
    assert split.get(mine).scope == "alpha" and split.get(theirs).scope == "beta"  # type: ignore[union-attr]


def test_a_reader_of_everything_still_governs_every_scope(split: Substrate) -> None:
    a = split.add("text", "x", scope="alpha")
    propose(split, [a], to="beta", by="root")
    assert approve(split, a, by="betaboss", team=None, scopes=None, strict=True)
    assert grant_approver(split, "mallory", "beta", by="betaboss")
    assert load_governance(split).as_dict() == {"beta": ["betaboss", "mallory"]}
    with pytest.raises(AccessDeniedError, match="'carol' may not change"):
        revoke_approver(split, "mallory", "beta", by="carol")


def test_scope_names_with_control_characters_are_refused_everywhere(tmp_path: Path) -> None:
    from substrate.governance import grant_approver
    from substrate.proposals import propose
    from substrate.spaces import publish

    store = Substrate(tmp_path)
    item_id = store.add("text", "a note")
    store.save()
    # a zero-width space or a joiner beside Latin letters prints as alpha
    joined = (
        "alpha\u200d",
        "al\u200cpha",
        "\u200dalpha",
        "\u043a\u043e\u200d\u043c",
        "\u958b\u200d\u767a",
    )
    for bad in ("a\nb", "x\x00y", "alpha\u200b", *joined):
        for act in (
            lambda bad=bad: publish(store, [item_id], to=bad, by="ann"),
            lambda bad=bad: propose(store, [item_id], to=bad, by="ann"),
            lambda bad=bad: grant_approver(store, "bob", bad, by="ann"),
        ):
            with pytest.raises(InvalidInputError, match="control characters"):
                act()
    publish(store, [item_id], to="\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", by="ann")
    store.save()
    # a zero-width non-joiner spells Persian words: not refused
    assert {i.scope for i in Substrate(tmp_path).iter_items()} == {
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"
    }


def test_an_approver_revoked_by_another_process_meanwhile_may_not_approve(tmp_path: Path) -> None:
    writer = Substrate(tmp_path)
    grant_approver(writer, "alice", "public", by=None)
    item = writer.add("text", "a fact", scope="ops")
    propose(writer, [item], to="public", by="ops")
    writer.save()
    approver = Substrate(tmp_path)  # read mixle.toml while alice could approve
    assert load_governance(approver).may_approve("alice", "public")
    revoke_approver(Substrate(tmp_path), "alice", "public", by="alice")
    with approver.exclusive(), pytest.raises(AccessDeniedError):
        approve(approver, item, by="alice", strict=True)
    assert Substrate(tmp_path).get(item).scope == "ops"  # type: ignore[union-attr]


@pytest.mark.parametrize("links", [True, False])
def test_a_shards_first_write_never_writes_over_settings_saved_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, links: bool
) -> None:
    import errno
    import os

    if not links:  # a file system without hard links: created exclusively instead

        def refuse(*_: object, **__: object) -> None:
            raise OSError(errno.EPERM, "links not supported")

        monkeypatch.setattr(os, "link", refuse)
    writer = Substrate(tmp_path)  # its first write finds no settings, and saves them...
    for name in ("save", "create"):
        original = getattr(writer.settings, name)

        def first_another_grants(original: Callable[[], object] = original) -> object:
            if not (tmp_path / "mixle.toml").exists():  # ... just after another process's
                grant_approver(Substrate(tmp_path), "carol", "public", by=None)
            return original()

        monkeypatch.setattr(writer.settings, name, first_another_grants)
    writer.add("text", "a note")
    writer.save()
    assert Settings.load(tmp_path).get("governance", "approvers") == {"public": ["carol"]}
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".new")] == []
    fresh = Settings(path=tmp_path / "other" / "mixle.toml")
    assert fresh.create() and Settings.load(tmp_path / "other").get("shard", "default_scope")
    if not links:  # a write that fails midway leaves no half file to refuse every command
        broken = Settings(path=tmp_path / "third" / "mixle.toml")

        written = broken._dump

        def full_disk(fh: Any, data: bytes) -> None:  # the copy aside fits; in place, not
            # (the copy aside is written through its descriptor: named by its number)
            if isinstance(fh.name, str) and Path(fh.name).name == "mixle.toml":
                fh.write(b"format = 1\n[sha")
                raise OSError(errno.ENOSPC, "No space left on device")
            written(fh, data)

        monkeypatch.setattr(broken, "_dump", full_disk)
        with pytest.raises(ShardError, match="No space left"):
            broken.create()
        assert not (tmp_path / "third" / "mixle.toml").exists()


def test_grant_and_revoke_keep_what_a_person_wrote_in_mixle_toml(tmp_path: Path) -> None:
    from substrate.governance import grant_approver, revoke_approver

    written = (
        "format = 1\n# policy: only security approves public\n[shard]\n"
        'default_scope = "local"  # why\nshared_scopes = ["public"]\n\n'
        "[ingest]\n# keep chunks small\nchunk_chars = 900\n"
    )
    (tmp_path / "mixle.toml").write_text(written)
    store = Substrate(tmp_path)
    grant_approver(store, "carol", "public", by=None)
    grant_approver(store, "dave", "public", by="carol")
    grant_approver(store, "erin", "ops", by=None)
    revoke_approver(store, "dave", "public", by="carol")
    text = (tmp_path / "mixle.toml").read_text()
    assert text.startswith(written)  # comments and layout kept; the table rewritten after them
    assert text.count("[governance.approvers]") == 1 and "dave" not in text
    assert Settings.load(tmp_path).get("governance", "approvers") == {
        "ops": ["erin"],
        "public": ["carol"],
    }
    middle = 'format = 1\n[governance.approvers]\npublic = ["carol"]\n\n# below\n[secrets]\nx = 1\n'
    (tmp_path / "mixle.toml").write_text(middle)
    grant_approver(Substrate(tmp_path), "dave", "public", by="carol")
    text = (tmp_path / "mixle.toml").read_text()
    assert text.endswith('"dave",\n]\n\n# below\n[secrets]\nx = 1\n')  # what follows, kept
    (tmp_path / "mixle.toml").write_bytes(
        b"format = 1\r\n# kept\r\n[governance.approvers]\r\nops = ['x']\r\n\r\n"
        b"# about the shard\r\n[shard]\r\nteam = 'a'\r\n"
    )
    grant_approver(Substrate(tmp_path), "carol", "ops", by="x")
    crlf = (tmp_path / "mixle.toml").read_bytes()  # its line breaks kept too
    assert crlf.startswith(b"format = 1\r\n# kept\r\n") and b"\n" not in crlf.replace(b"\r\n", b"")
    assert crlf.endswith(b"]\r\n\r\n# about the shard\r\n[shard]\r\nteam = 'a'\r\n")
    # a table not written as a block of its own: the file is written anew, and still right
    (tmp_path / "mixle.toml").write_text('format = 1\n[governance]\napprovers = {ops = ["x"]}\n')
    grant_approver(Substrate(tmp_path), "y", "ops", by="x")
    assert Settings.load(tmp_path).get("governance", "approvers") == {"ops": ["x", "y"]}


def test_a_refusal_that_returns_false_says_why_in_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # False read alike as "not pending" and as "not an approver"
    import logging

    s = Substrate()
    item_id = s.add("text", "draft", scope="research")
    propose(s, [item_id], to="public")
    with caplog.at_level(logging.INFO, logger="substrate.proposals"):
        assert reject(s, item_id, by="mallory", reason="no") is False
        assert approve(s, item_id, by="mallory") is False
    assert caplog.text.count("has no approvers") == 2
