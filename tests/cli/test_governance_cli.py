"""mixle publish / history / merge / propose / approve / reject / pending / grant / revoke."""

from __future__ import annotations

import os
import re
import signal
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from substrate.governance import Governance, save_governance
from substrate.proposals import propose
from substrate.store import Substrate

Run = Callable[..., Any]
Add = Callable[..., str]


@pytest.fixture
def add(isolated_shard_env: Path) -> Callable[..., str]:
    """Store an item straight through the library (the CLI under test only reads it)."""

    def put(team: str, text: str, *, scope: str | None = None, links: tuple[str, ...] = ()) -> str:
        store = Substrate(isolated_shard_env)
        item_id = store.add("text", text, scope=scope or team, links=list(links))
        store.save()
        store.close()
        return item_id

    return put


def scope_of(mixle: Run, item_id: str) -> str:
    result = mixle("get", item_id, "--json")
    assert result.exit_code == 0, result.stderr
    return str(result.json()[0]["scope"])


def test_publish_and_history(mixle: Run, add: Add) -> None:
    a = add("ops", "the ops runbook")
    result = mixle("--as", "ops", "publish", a, "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json() == {
        "published": [a],
        "to": "public",
        "by": "ops",
        "versions": {a: 1},
        "already": [],
    }
    assert scope_of(mixle, a) == "public"
    hist = mixle("--as", "ops", "history", a, "--json")
    assert hist.exit_code == 0
    data = hist.json()
    assert data["version"] == 1 and data["scope"] == "public"
    assert data["history"][0]["published_from"] == "ops"
    assert data["history"][0]["published_by"] == "ops"
    text = mixle("--as", "ops", "history", a)
    assert text.exit_code == 0 and "published" in text.stdout and "versions" in text.stdout
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", text.stdout)  # (read as local time)


def test_publish_text_output_and_explicit_by(mixle: Run, add: Add) -> None:
    a = add("ops", "x")
    result = mixle("--as", "ops", "publish", a, "--by", "alice")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"published {a} to public (version 1)"
    assert mixle("history", a, "--json").json()["history"][0]["published_by"] == "alice"


def test_by_defaults_to_the_login_name_without_a_team(
    mixle: Run, add: Add, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.setenv(var, "carol")
    a = add("ops", "x")
    assert mixle("publish", a, "--json").json()["by"] == "carol"


def test_publish_refusals_change_nothing(mixle: Run, add: Add) -> None:
    mine = add("ops", "mine")
    theirs = add("dev", "theirs")
    shared = add("ops", "shared", scope="public")
    # Another team's item looks exactly like a missing one.
    result = mixle("--as", "ops", "publish", mine, theirs)
    assert result.exit_code == 1
    assert result.stderr == f"error: no item with id {theirs}; nothing published\n"
    missing = mixle("--as", "ops", "publish", mine, "0123456789abcdef")
    assert missing.exit_code == 1 and "0123456789abcdef" in missing.stderr
    # A shared item is not the team's own.
    foreign = mixle("--as", "ops", "publish", mine, shared, "--to", "ops")
    assert foreign.exit_code == 1 and "only items in scope 'ops'" in foreign.stderr
    # Publishing into another team's private scope.
    into = mixle("--as", "ops", "publish", mine, "--to", "dev")
    assert into.exit_code == 1 and "own or a shared scope" in into.stderr
    assert scope_of(mixle, mine) == "ops" and scope_of(mixle, theirs) == "dev"
    assert mixle("history", mine, "--json").json()["version"] == 0


@pytest.mark.parametrize(("verb", "nothing"), [("publish", "published"), ("propose", "proposed")])
def test_every_missing_id_is_named(mixle: Run, add: Add, verb: str, nothing: str) -> None:
    mine = add("ops", "mine")
    theirs = add("dev", "theirs")
    result = mixle("--as", "ops", verb, theirs, mine, "0123456789abcdef", "--to", "public")
    assert result.exit_code == 1
    assert (
        result.stderr == f"error: no item with id {theirs}, 0123456789abcdef; nothing {nothing}\n"
    )
    assert scope_of(mixle, mine) == "ops" and mixle("pending", "--json").json() == []


def test_gated_scope_needs_an_approver_to_publish(mixle: Run, add: Add) -> None:
    a = add("ops", "x")
    assert mixle("--as", "ops", "grant", "alice", "public").exit_code == 0
    refused = mixle("--as", "ops", "publish", a)
    assert refused.exit_code == 1 and "needs approval" in refused.stderr
    assert "mixle propose" in refused.stderr
    assert mixle("--as", "ops", "publish", a, "--by", "alice").exit_code == 0


def test_propose_pending_approve(mixle: Run, add: Add, isolated_shard_env: Path) -> None:
    a = add("ops", "proposal text")
    assert mixle("--as", "ops", "grant", "alice", "public").exit_code == 0
    proposed = mixle("--as", "ops", "propose", a, "--to", "public", "--json")
    assert proposed.exit_code == 0 and proposed.json() == {
        "proposed": [a],
        "to": "public",
        "by": "ops",
        "already": [],
    }
    rows = mixle("--as", "ops", "pending", "--json").json()
    assert [(r["id"], r["scope"], r["to"], r["by"]) for r in rows] == [(a, "ops", "public", "ops")]
    assert mixle("--as", "ops", "pending", "--to", "org", "--json").exit_code == 1  # unread
    assert mixle("--as", "dev", "pending", "--json").json() == []  # not theirs to see
    assert a in mixle("--as", "ops", "pending").stdout
    assert [r["id"] for r in mixle("--as", "ops", "pending", "--jsonl").jsonl()] == [a]

    refused = mixle("--as", "ops", "approve", a)
    assert refused.exit_code == 1 and "'ops' may not approve" in refused.stderr
    assert scope_of(mixle, a) == "ops"

    approved = mixle("--as", "ops", "approve", a, "--by", "alice", "--json")
    assert approved.exit_code == 0, approved.stderr
    assert approved.json() == {"approved": a, "to": "public", "by": "alice", "version": 1}
    assert scope_of(mixle, a) == "public"
    again = mixle("--as", "ops", "approve", a, "--by", "alice")
    assert again.exit_code == 1 and "no pending proposal" in again.stderr
    events = mixle("history", a, "--json").json()["proposals"]
    assert [e["event"] for e in events] == ["proposed", "approved"]
    assert mixle("pending").stderr.strip() == "nothing is pending"


def test_an_item_holding_a_secret_is_shared_only_when_allowed(
    mixle: Run, isolated_shard_env: Path
) -> None:
    # kept unredacted for its own scope (--no-redact), it went to every team through propose
    # and approve, and no step of the review told of it
    token = "ghp_Zq8Lm3Vt9Rx2Kp7Wn4Ys6Hd1Fb5Gc0Je8Ua3"
    store = Substrate(isolated_shard_env)
    a = store.add("text", f"CI uses {token} to push.", scope="ops", redact=False)
    store.save()
    store.close()
    for verb in (("publish", a), ("propose", a, "--to", "public")):
        refused = mixle("--as", "ops", *verb)
        assert refused.exit_code == 1 and f"{a} (github_token)" in refused.stderr
        assert "--allow-secrets" in refused.stderr and token not in refused.stderr
    assert mixle("--as", "ops", "grant", "alice", "public").exit_code == 0
    assert scope_of(mixle, a) == "ops" and mixle("pending", "--json").json() == []
    allowed = mixle("--as", "ops", "propose", a, "--to", "public", "--allow-secrets")
    assert allowed.exit_code == 0, allowed.stderr
    refused = mixle("approve", a, "--by", "alice")  # the approver's own choice
    assert refused.exit_code == 1 and "not approved" in refused.stderr
    assert scope_of(mixle, a) == "ops"
    approved = mixle("approve", a, "--by", "alice", "--allow-secrets")
    assert approved.exit_code == 0 and scope_of(mixle, a) == "public"


def test_approve_to_refuses_a_proposal_made_for_another_scope_since(mixle: Run, add: Add) -> None:
    # reviewed for one scope, proposed again for another meanwhile: approved into that one
    a = add("ops", "vendor pricing musings")
    for scope in ("wiki", "public"):
        assert mixle("grant", "alice", scope).exit_code == 0
    assert mixle("propose", a, "--to", "wiki").exit_code == 0
    assert mixle("propose", a, "--to", "public").exit_code == 0
    refused = mixle("approve", a, "--by", "alice", "--to", "wiki")
    assert refused.exit_code != 0 and "was proposed for scope 'public', not 'wiki'" in (
        refused.stderr
    )
    assert scope_of(mixle, a) == "ops"
    assert mixle("approve", a, "--by", "alice", "--to", "public").exit_code == 0


def test_reject_needs_a_reason_and_the_right(mixle: Run, add: Add) -> None:
    a = add("ops", "x")
    mixle("--as", "ops", "grant", "alice", "public")
    mixle("--as", "ops", "propose", a, "--to", "public")
    assert mixle("--as", "ops", "reject", a).exit_code == 2  # --reason is required
    refused = mixle("--as", "ops", "reject", a, "--reason", "no")
    assert refused.exit_code == 1 and "may not reject" in refused.stderr
    assert "ask one of them; see `mixle approvers`" in refused.stderr
    done = mixle("--as", "ops", "reject", a, "--reason", "too vague", "--by", "alice")
    assert done.exit_code == 0 and done.stdout.strip() == f"rejected {a}"
    data = mixle("history", a, "--json").json()
    assert data["proposal"]["status"] == "rejected" and data["proposal"]["reason"] == "too vague"
    assert data["scope"] == "ops"
    # Proposing again keeps the rejection on record.
    mixle("--as", "ops", "propose", a, "--to", "public")
    events = mixle("history", a, "--json").json()["proposals"]
    assert [e["event"] for e in events] == ["proposed", "rejected", "proposed"]
    key = "AKIA" + "Q7XJ2KLMN4PQRS5T"
    quoted = mixle("--as", "ops", "reject", a, "--by", "alice", "--json", "--reason", f"has {key}")
    assert quoted.json()["reason"] == "has [REDACTED:aws_access_key]"
    assert key not in quoted.stdout + quoted.stderr


def test_propose_refusals(mixle: Run, add: Add) -> None:
    mine = add("ops", "x")
    theirs = add("dev", "y")
    hidden = mixle("--as", "ops", "propose", mine, theirs, "--to", "public")
    assert hidden.exit_code == 1 and f"no item with id {theirs}" in hidden.stderr
    elsewhere = mixle("--as", "ops", "propose", mine, "--to", "dev")
    assert elsewhere.exit_code == 1 and "may propose only" in elsewhere.stderr
    there = mixle("--as", "ops", "propose", mine, "--to", "ops")
    assert there.exit_code == 1 and f"{mine} is in scope 'ops' already" in there.stderr
    published = add("ops", "z", scope="public")  # the same refusal, whichever team asks
    for team in ("ops", "dev"):
        again = mixle("--as", team, "propose", published, "--to", "public")
        assert again.exit_code == 1 and "already; nothing proposed" in again.stderr
    assert mixle("--as", "ops", "pending", "--json").json() == []


def test_a_scope_with_white_space_around_it_names_no_scope(mixle: Run, add: Add) -> None:
    # "public " would be a second scope printed like "public": a grant would gate the wrong
    # one, and what is written there would be hidden from every team (found by a tester)
    mine = add("ops", "shared fact")
    for argv in (
        ("grant", "carol", "public "),
        ("add", "x", "--scope", " public"),
        ("publish", mine, "--to", "public "),
        ("--as", "ops", "publish", mine, "--to", "ops "),
        ("--as", "ops", "propose", mine, "--to", ""),  # empty: a usage error for a team too
        ("publish", mine, "--to", ""),
        ("ls", "--scope", "public "),
        ("search", "fact", "--scope", ""),
        ("pending", "--to", "public\t"),
    ):
        result = mixle(*argv)
        assert result.exit_code == 2, (argv, result.stderr)
        assert "white space around it" in result.stderr or "empty" in result.stderr, argv
    assert mixle("approvers", "--json").json() == []
    assert mixle("ls", "--json").json()[0]["scope"] == "ops"


def test_a_read_for_a_scope_spelled_decomposed_or_with_an_invisible_character_is_refused(
    mixle: Run, add: Add
) -> None:
    # no scope is written so: a read that matched nothing would print the name as the real
    # one, and the user could not see why (found by a tester)
    add("ops", "espresso note", scope="caf\u00e9")
    for argv in (
        ("ls", "--scope", "cafe\u0301"),
        ("search", "espresso", "--scope", "caf\u200b\u00e9"),
        ("audit", "--scope", "cafe\u0301"),
        ("freshness", "--scope", "cafe\u0301"),
        ("ask", "espresso?", "--scope", "cafe\u0301"),
        ("pending", "--to", "caf\u00e9\u200b"),
    ):
        result = mixle(*argv)
        assert result.exit_code == 2, (argv, result.stderr)
        assert "composed form" in result.stderr, argv
    assert [i["scope"] for i in mixle("ls", "--scope", "caf\u00e9", "--json").json()] == [
        "caf\u00e9"
    ]


def test_pending_for_a_scope_the_caller_may_not_read_is_refused(mixle: Run, add: Add) -> None:
    add("dev", "y")
    refused = mixle("--as", "ops", "pending", "--to", "dev")
    assert refused.exit_code == 1 and "may not read scope 'dev'" in refused.stderr
    assert mixle("--as", "ops", "pending", "--to", "public").exit_code == 0


def test_approve_and_reject_unknown_ids(mixle: Run, add: Add) -> None:
    mixle("init")
    for args in (["approve", "nope"], ["reject", "nope", "--reason", "r"]):
        result = mixle(*args)
        assert result.exit_code == 1 and result.stderr == "error: no item with id nope\n"


def test_approval_without_approvers_says_how_to_add_one(mixle: Run, add: Add) -> None:
    a = add("ops", "x")
    mixle("--as", "ops", "propose", a, "--to", "public")
    result = mixle("--as", "ops", "approve", a)
    assert result.exit_code == 1 and "mixle grant" in result.stderr


def test_merge(mixle: Run, add: Add) -> None:
    keep = add("ops", "version one", scope="public")
    other = add("ops", "version two")
    citer = add("ops", "cites the other", links=(other,))
    assert mixle("publish", other).exit_code == 0  # other is now at version 1: its text wins
    result = mixle("--as", "ops", "merge", keep, other, "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json() == {
        "kept": keep,
        "removed": other,
        "version": 2,
        "by": "ops",
        "text": "other",
    }
    assert mixle("get", other).exit_code == 1
    got = mixle("get", keep, citer, "--json").json()
    assert got[0]["text"] == "version two"
    assert got[1]["links"] == [keep]
    assert mixle("history", keep, "--json").json()["history"][-1]["merged_from"] == other


def test_merge_says_whose_text_it_kept(mixle: Run, add: Add) -> None:
    old, new = add("ops", "We retry three times."), add("ops", "We retry five times.")
    tie = mixle("--as", "ops", "merge", old, new)  # both at version 0: "latest" keeps KEEP's
    assert tie.stdout == f"merged {new} into {old} (version 1, {old}'s text)\n"
    assert f"both were version 0, so {old}'s text was kept" in tie.stderr
    assert "--prefer other" in tie.stderr
    newer = add("ops", "We retry seven times.")
    chosen = mixle("--as", "ops", "merge", old, newer, "--prefer", "other", "--json")
    assert chosen.json()["text"] == "other" and chosen.stderr == ""
    twin = add("ops", "We retry seven times.")  # a copy of the text merged in
    same = mixle("--as", "ops", "merge", old, twin)
    assert same.stdout.endswith("the same text)\n") and same.stderr == ""


def test_merge_says_which_pending_proposals_it_ended(mixle: Run, add: Add) -> None:
    keep, other = add("ops", "keep item"), add("ops", "other item")
    mixle("--as", "ops", "propose", other, "--to", "public")
    merged = mixle("--as", "ops", "merge", keep, other, "--json")
    assert merged.exit_code == 0 and f"item {other} for public is withdrawn: merged into" in (
        merged.stderr
    )
    mixle("--as", "ops", "propose", keep, "--to", "public")
    third = mixle("--as", "ops", "add", "a third item", "--tag", "extra").stdout.strip()
    changed = mixle("--as", "ops", "merge", keep, third, "--prefer", "keep")  # a tag more
    assert f"item {keep} for public is withdrawn: the merge changed it" in changed.stderr
    assert mixle("--as", "ops", "pending", "--json").json() == []
    quiet = mixle("--as", "ops", "merge", keep, add("ops", "plain"))  # nothing was pending
    assert "withdrawn" not in quiet.stderr


def test_history_hides_what_a_merged_away_item_linked_outside_the_readers_scopes(
    mixle: Run, add: Add, isolated_shard_env: Path
) -> None:
    hidden = add("bravo", "bravo only")
    keep = add("ops", "version one", scope="public")
    store = Substrate(isolated_shard_env)
    other = store.add("text", "version two", scope="public", provenance={"supersedes": hidden})
    store.save()
    assert mixle("merge", keep, other).exit_code == 0
    for command in ("history", "get"):
        shown = mixle("--as", "ops", command, keep, "--json")
        assert shown.exit_code == 0 and hidden not in shown.stdout, command
    assert hidden in mixle("history", keep, "--json").stdout  # no team: every scope


def test_merge_refusals(mixle: Run, add: Add) -> None:
    a = add("ops", "a", scope="public")
    b = add("ops", "b")
    theirs = add("dev", "c")
    self_merge = mixle("merge", a, a)
    assert self_merge.exit_code == 2 and "itself" in self_merge.stderr
    assert scope_of(mixle, a) == "public"
    hidden = mixle("--as", "ops", "merge", b, theirs)
    assert hidden.exit_code == 1 and f"no item with id {theirs}" in hidden.stderr
    cross = mixle("--as", "ops", "merge", a, b)
    assert cross.exit_code == 1 and "publish one" in cross.stderr
    bad = mixle("merge", a, b, "--prefer", "newest")
    assert bad.exit_code == 2
    assert mixle("get", b, "--json").exit_code == 0


def test_merge_in_a_gated_scope_needs_an_approver(mixle: Run, add: Add) -> None:
    a = add("ops", "a", scope="public")
    b = add("ops", "b", scope="public")
    mixle("--as", "ops", "grant", "alice", "public")
    refused = mixle("--as", "ops", "merge", a, b)
    assert refused.exit_code == 1 and "needs approval" in refused.stderr
    assert "acting with --by NAME" in refused.stderr and "propose" not in refused.stderr
    assert mixle("--as", "ops", "merge", a, b, "--by", "alice").exit_code == 0


def test_a_grant_whose_two_names_look_swapped_says_so(mixle: Run, add: Add) -> None:
    """`grant public bob` made "public" an approver of a scope "bob", without a word."""
    add("ops", "a note", scope="public")
    swapped = mixle("grant", "public", "bob")
    assert swapped.exit_code == 0  # done as asked: a name may be a scope's too
    assert "'public' is a shared scope, and 'bob' holds nothing you can read" in swapped.stderr
    assert "mixle revoke public bob" in swapped.stderr
    assert "note" not in mixle("grant", "bob", "public").stderr
    assert "note" not in mixle("grant", "carol", "drafts").stderr  # a new scope's first
    # a team approving for a new scope: a team's name is its scope's
    assert "note" not in mixle("grant", "ops", "releases").stderr


def test_grant_revoke_and_approvers(mixle: Run, add: Add, isolated_shard_env: Path) -> None:
    assert mixle("--as", "ops", "grant", "alice", "public").stdout.strip() == (
        "alice may approve for public"
    )
    settings = tomllib.loads((isolated_shard_env / "mixle.toml").read_text())
    assert settings["governance"]["approvers"] == {"public": ["alice"]}
    # Now public is gated: only alice manages its approvers.
    refused = mixle("--as", "ops", "grant", "bob", "public")
    assert refused.exit_code == 1 and "may not change the approvers" in refused.stderr
    assert mixle("--as", "ops", "grant", "bob", "public", "--by", "alice", "--json").json() == {
        "granted": "bob",
        "scope": "public",
        "changed": True,
    }
    # No team can claim another team's private scope.
    assert mixle("--as", "dev", "grant", "dev", "ops").exit_code == 1
    assert mixle("--as", "ops", "grant", "ops", "ops").exit_code == 0
    assert mixle("--as", "ops", "approvers", "--json").json() == [
        {"scope": "ops", "approvers": ["ops"]},
        {"scope": "public", "approvers": ["alice", "bob"]},
    ]
    rows = mixle("--as", "dev", "approvers", "--jsonl").jsonl()
    assert rows == [{"scope": "public", "approvers": ["alice", "bob"]}]
    # --json is the list of the --jsonl objects, as in ls and pending
    assert mixle("--as", "dev", "approvers", "--json").json() == rows
    assert "alice, bob" in mixle("--as", "ops", "approvers").stdout
    revoked = mixle("--as", "ops", "revoke", "bob", "public", "--by", "alice")
    assert revoked.exit_code == 0 and "warning" not in revoked.stderr  # alice still gates it
    missing = mixle("--as", "ops", "revoke", "bob", "public", "--by", "alice")
    assert missing.exit_code == 1 and "not an approver" in missing.stderr
    settings = tomllib.loads((isolated_shard_env / "mixle.toml").read_text())
    assert settings["governance"]["approvers"] == {"ops": ["ops"], "public": ["alice"]}
    # the last approver leaving opens the scope: allowed (she is its approver), never silent
    last = mixle("--as", "ops", "revoke", "alice", "public", "--by", "alice", "--json")
    assert last.json() == {"revoked": "alice", "scope": "public", "approvers_left": 0}
    assert "public has no approver now: anyone who reads it may publish" in last.stderr


def test_approvers_when_none(mixle: Run, add: Add) -> None:
    mixle("init")
    result = mixle("approvers")
    assert result.exit_code == 0 and "mixle grant" in result.stderr


def test_publishes_of_one_item_at_the_same_time_each_keep_their_history(tmp_path: Path) -> None:
    import subprocess
    import sys

    from substrate.spaces import history, version_of

    shard = tmp_path / "shard"
    store = Substrate(shard)
    item_id = store.add("text", "shared note", scope="public")
    store.save()
    run = (  # each publish, into a scope of its own, dawdles between reading and saving
        "import sys, time; import substrate.spaces as spaces; copy = spaces.published_copy; "
        "spaces.published_copy = lambda *a, **k: (time.sleep(0.2), copy(*a, **k))[1]; "
        "from mixle_cli.app import main; sys.argv[0] = 'mixle'; main()"
    )
    publishes = [
        subprocess.Popen(
            [sys.executable, "-c", run, "--shard", str(shard), "publish", item_id]
            + ["--to", f"s{n}", "--by", f"p{n}"],
            stdout=subprocess.DEVNULL,
        )
        for n in range(6)
    ]
    assert [p.wait(timeout=60) for p in publishes] == [0] * 6
    item = Substrate(shard).get(item_id)
    assert item is not None and version_of(item) == 6
    assert sorted(e["published_by"] for e in history(Substrate(shard), item_id)) == [
        f"p{n}" for n in range(6)
    ]


def test_a_refused_governance_command_on_a_missing_shard_creates_nothing(
    mixle: Run, tmp_path: Path
) -> None:
    missing = tmp_path / "typo"
    result = mixle("--shard", str(missing), "publish", "0123456789abcdef")
    assert result.exit_code == 3 and "no shard at" in result.stderr and not missing.exists()
    for refused, code in (
        (["--as", "ops", "grant", "bob", "dev"], 1),
        (["revoke", "bob", "dev"], 3),
    ):
        assert mixle("--shard", str(missing), *refused).exit_code == code, refused
        assert not missing.exists(), refused


@pytest.fixture
def split_shard(isolated_shard_env: Path) -> dict[str, str]:
    """alpha, beta and gamma items; beta's approver is betaboss, gamma has none. The alpha items
    were proposed into beta and gamma by someone who reads everything."""
    store = Substrate(isolated_shard_env)
    ids = {
        "to_beta": store.add("text", "alpha note for beta", scope="alpha"),
        "to_gamma": store.add("text", "alpha note for gamma", scope="alpha"),
        "beta": store.add("text", "beta note", scope="beta"),
        "public": store.add("text", "public note", scope="public"),
    }
    save_governance(store, Governance().grant("betaboss", "beta"))
    propose(store, [ids["to_beta"], ids["beta"]], to="beta", by="root")
    propose(store, [ids["to_gamma"]], to="gamma", by="root")
    store.save()
    store.close()
    return ids


def _approvers_on_disk(shard: Path) -> Any:
    return tomllib.loads((shard / "mixle.toml").read_text())["governance"]["approvers"]


def test_a_team_cannot_change_or_probe_the_approvers_of_a_scope_it_cannot_read(
    mixle: Run, split_shard: dict[str, str], isolated_shard_env: Path
) -> None:
    seen = set()
    for scope in ("beta", "gamma"):
        for by in ([], ["--by", "betaboss"], ["--by", "carol"], ["--by", "alpha"]):
            for args in (["grant", "mallory"], ["revoke", "nobody"], ["revoke", "betaboss"]):
                result = mixle("--as", "alpha", *args, scope, *by)
                seen.add((result.exit_code, result.stdout, result.stderr.replace(scope, "S")))
    assert seen == {
        (
            1,
            "",
            "error: 'alpha' may not change the approvers of scope 'S' (its approvers may, or, "
            "while it has none, a team that reads it)\n",
        )
    }
    assert _approvers_on_disk(isolated_shard_env) == {"beta": ["betaboss"]}


def test_a_team_cannot_approve_into_a_scope_it_cannot_read(
    mixle: Run, split_shard: dict[str, str]
) -> None:
    before = mixle("history", split_shard["to_beta"], "--json").json()
    seen = set()
    for key, scope in (("to_beta", "beta"), ("to_gamma", "gamma")):
        for by in ([], ["--by", "betaboss"], ["--by", "carol"]):
            for action, extra in (("approve", []), ("reject", ["--reason", "no"])):
                result = mixle("--as", "alpha", action, split_shard[key], *extra, *by)
                text = result.stderr.replace(scope, "S").replace(action, "ACT")
                seen.add((result.exit_code, result.stdout, text))
    refusal = (
        "error: 'alpha' may not ACT promotions into scope 'S', which it cannot read: those "
        "granted it act reading as no team, or as the team that owns it\n"
    )
    assert seen == {(1, "", refusal)}
    assert mixle("history", split_shard["to_beta"], "--json").json() == before
    assert scope_of(mixle, split_shard["to_beta"]) == "alpha"
    # The same team still governs the scopes it reads.
    mixle("--as", "alpha", "grant", "alpha", "alpha")
    assert mixle("--as", "alpha", "approvers", "--json").json() == [
        {"scope": "alpha", "approvers": ["alpha"]}
    ]


def test_propose_and_publish_into_an_unreadable_scope_refuse_before_looking_at_ids(
    mixle: Run, split_shard: dict[str, str]
) -> None:
    for action, verb in (("propose", "propose"), ("publish", "publish")):
        seen = set()
        for item_id in (split_shard["to_beta"], split_shard["beta"], "0123456789abcdef"):
            for by in ([], ["--by", "betaboss"]):
                result = mixle("--as", "alpha", action, item_id, "--to", "beta", *by)
                seen.add((result.exit_code, result.stdout, result.stderr))
        assert seen == {
            (
                1,
                "",
                f"error: team 'alpha' may {verb} only into its own or a shared scope, not 'beta'\n",
            )
        }
    assert scope_of(mixle, split_shard["to_beta"]) == "alpha"


def test_pending_merge_and_approvers_show_nothing_of_an_unreadable_scope(
    mixle: Run, split_shard: dict[str, str]
) -> None:
    assert mixle("--as", "alpha", "approvers", "--json").json() == []
    rows = mixle("--as", "alpha", "pending", "--json").json()
    assert sorted(r["id"] for r in rows) == sorted(
        [split_shard["to_beta"], split_shard["to_gamma"]]
    )
    assert split_shard["beta"] not in mixle("--as", "alpha", "pending", "--to", "beta").stdout
    merged = mixle("--as", "alpha", "merge", split_shard["to_beta"], split_shard["beta"])
    assert merged.exit_code == 1
    assert merged.stderr == f"error: no item with id {split_shard['beta']}; nothing merged\n"


def test_the_reported_commands_as_whole_processes(
    mixle_process: Callable[..., Any], split_shard: dict[str, str], isolated_shard_env: Path
) -> None:
    shard = ["--shard", str(isolated_shard_env), "--as", "alpha"]
    runs = [
        mixle_process(*shard, "revoke", "--by", by, "nobody", "beta")
        for by in ("betaboss", "carol")
    ]
    runs.append(mixle_process(*shard, "grant", "--by", "betaboss", "mallory", "beta"))
    runs.append(mixle_process(*shard, "approve", split_shard["to_beta"], "--by", "betaboss"))
    assert [r.returncode for r in runs] == [1, 1, 1, 1]
    assert runs[0].stderr == runs[1].stderr == runs[2].stderr
    assert "betaboss" not in "".join(r.stdout + r.stderr for r in runs)
    assert _approvers_on_disk(isolated_shard_env) == {"beta": ["betaboss"]}
    item = Substrate(isolated_shard_env).get(split_shard["to_beta"])
    assert item is not None and item.scope == "alpha"


def test_a_scope_with_approvers_takes_no_direct_add_ingest_or_rm(
    mixle: Run, add: Add, tmp_path: Path
) -> None:
    mixle("--as", "alpha", "grant", "alice", "public")
    reviewed = add("beta", "beta fact")
    mixle("--as", "beta", "propose", reviewed, "--to", "public")
    assert mixle("--as", "beta", "approve", reviewed, "--by", "alice").exit_code == 0
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Unreviewed\n\nstraight into public\n")
    for args in (
        ["rm", reviewed],
        ["add", "unreviewed", "--scope", "public"],
        ["ingest", str(docs), "--scope", "public"],
    ):
        refused = mixle("--as", "alpha", *args)
        assert refused.exit_code == 1 and "needs approval" in refused.stderr, args
        assert "one of them may, acting with --by NAME" in refused.stderr
        # proposing brings an item in: no way to remove one
        assert ("mixle propose" in refused.stderr) == (args[0] != "rm"), args
    assert [i["id"] for i in mixle("ls", "--json").json()] == [reviewed]
    as_alice = ("--as", "alpha")  # a team whose approver acts for it (the team is none)
    note = mixle(*as_alice, "add", "note", "--scope", "public", "--by", "alice").stdout.strip()
    for args in (
        ["ingest", str(docs), "--scope", "public"],
        ["ingest-docs", "-", "--scope", "public"],
        ["rm", note],
    ):
        approved = mixle(*as_alice, *args, "--by", "alice", input='"a passage"\n')
        assert approved.exit_code == 0, (args, approved.stderr)
    assert len(mixle("ls", "--json").json()) == 3  # reviewed, the ingested file and passage
    # other scopes take direct writes; the approvers of this one do too
    assert mixle("--as", "alpha", "add", "own note").exit_code == 0
    assert mixle("--as", "alpha", "grant", "gamma", "public", "--by", "alice").exit_code == 0
    assert mixle("--as", "gamma", "rm", reviewed).exit_code == 0


def _before_the_lock(
    monkeypatch: pytest.MonkeyPatch, change: Callable[[], None], nth: int = 1
) -> list[bool]:
    """Make ``change`` (another process's write) land just before the ``nth`` writer lock
    from now is taken; returns a list that holds True once it has."""
    import substrate.locking as locking

    real, fired, taken = locking.exclusive_lock, [], [0]

    def changed_meanwhile(*args: Any, **kwargs: Any) -> Any:
        taken[0] += 1
        if taken[0] == nth:
            fired.append(True)
            change()
        return real(*args, **kwargs)

    monkeypatch.setattr(locking, "exclusive_lock", changed_meanwhile)  # (as shard_lock takes it)
    return fired


def _granted(shard: Path, scope: str) -> Callable[[], None]:
    """Another process's grant of ``scope`` to alice, for ``_before_the_lock``."""
    from substrate.governance import grant_approver

    def grant() -> None:
        other = Substrate(shard)
        assert grant_approver(other, "alice", scope, by="alice")
        other.close()

    return grant


def _notes_in_batches(
    folder: Path, monkeypatch: pytest.MonkeyPatch, names: str, batch: int
) -> Path:
    """A folder of one short note per letter of ``names``, ingested ``batch`` files a save."""
    from substrate.ingest import session

    folder.mkdir()
    for name in names:
        (folder / f"{name}.md").write_text(f"# {name}\n\nnote {name}\n")
    monkeypatch.setattr(session, "BATCH_FILES", batch)
    return folder


def test_rm_checks_its_items_as_they_are_once_it_holds_the_lock(
    mixle: Run, add: Add, isolated_shard_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an approval saved just before rm took the lock once went unseen: rm had checked the item
    # where it was before, and removed it from the reviewed scope
    from substrate.proposals import approve

    mixle("--as", "alpha", "grant", "alice", "public")
    item = add("beta", "beta fact")
    mixle("--as", "beta", "propose", item, "--to", "public")

    def approved() -> None:
        other = Substrate(isolated_shard_env)
        assert approve(other, item, by="alice")
        other.save()
        other.close()

    fired = _before_the_lock(monkeypatch, approved)
    refused = mixle("--as", "beta", "rm", item)
    assert fired and refused.exit_code == 1 and "needs approval" in refused.stderr
    kept = Substrate(isolated_shard_env).get(item)
    assert kept is not None and kept.scope == "public"


def test_ingest_docs_reads_what_it_replaces_once_it_holds_the_lock(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the explicit ingest commands once read the stored items before taking the lock: a
    # publish saved in between was written over with the version read before it, and the
    # item was back in local, out of the reviewed scope it had been published to
    from substrate.spaces import publish

    passages = tmp_path / "passages.jsonl"
    passages.write_text('"the first passage"\n')
    assert mixle("ingest-docs", str(passages)).exit_code == 0
    mixle("grant", "alice", "public")
    (item,) = Substrate(isolated_shard_env).all()
    passages.write_text('"the first passage"\n"one more"\n')  # its items are written again

    def published() -> None:
        other = Substrate(isolated_shard_env)
        assert publish(other, [item.id], to="public", by="alice") == [item.id]
        other.save()
        other.close()

    fired = _before_the_lock(monkeypatch, published)
    again = mixle("ingest-docs", str(passages))
    assert fired and again.exit_code == 0, again.stderr
    kept = Substrate(isolated_shard_env).get(item.id)
    assert kept is not None and kept.scope == "public"
    assert kept.provenance.get("version") == 1


def test_add_and_ingest_docs_check_the_scope_and_links_once_they_hold_the_lock(
    mixle: Run, add: Add, isolated_shard_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # they once checked the scope (and add its links) before taking the lock: a grant, or a
    # removal, saved in between went unseen
    from substrate.governance import grant_approver, revoke_approver

    def granted() -> None:
        other = Substrate(isolated_shard_env)
        assert grant_approver(other, "alice", "public", by="alice")
        other.close()

    fired = _before_the_lock(monkeypatch, granted)
    refused = mixle("--as", "beta", "add", "a fact", "--scope", "public")
    assert fired and refused.exit_code == 1 and "needs approval" in refused.stderr
    assert Substrate(isolated_shard_env).all(scope="public") == []
    # the explicit ingest commands check again as they save
    revoke_approver(Substrate(isolated_shard_env), "alice", "public", by="alice")
    fired = _before_the_lock(monkeypatch, granted)
    passages = mixle("--as", "beta", "ingest-docs", "-", "--scope", "public", input='"a passage"\n')
    assert fired and passages.exit_code == 1 and "needs approval" in passages.stderr
    assert Substrate(isolated_shard_env).all(scope="public") == []

    def default_moved() -> None:
        # the items were made for the default scope, local, which now needs approval; the
        # default is elsewhere now, which does not: the scope the items carry is checked
        other = Substrate(isolated_shard_env)
        assert grant_approver(other, "alice", "local", by="alice")
        other.close()
        toml = isolated_shard_env / "mixle.toml"
        settings = tomllib.loads(toml.read_text())
        settings.setdefault("shard", {})["default_scope"] = "elsewhere"
        toml.write_text(tomli_w.dumps(settings))

    fired = _before_the_lock(monkeypatch, default_moved)
    moved = mixle("ingest-docs", "-", input='"another passage"\n')
    assert fired and moved.exit_code == 1 and "needs approval" in moved.stderr
    assert Substrate(isolated_shard_env).all(scope="local") == []

    target = add("beta", "to link to")

    def removed() -> None:
        other = Substrate(isolated_shard_env)
        other.remove(target)
        other.save()
        other.close()

    fired = _before_the_lock(monkeypatch, removed)
    dangling = mixle("--as", "beta", "add", "links to it", "--link", target)
    assert fired and dangling.exit_code == 1 and "to link to" in dangling.stderr


def test_ingest_checks_its_scope_again_as_each_batch_is_saved(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it once checked only at the start: a grant saved during a long run went unseen by the
    # batches saved after it
    notes = _notes_in_batches(tmp_path / "notes", monkeypatch, "abc", 1)
    mixle("--as", "beta", "add", "made the shard", "--scope", "beta")
    # the third lock: the ingest's check of the log, the first batch's save, the second's
    fired = _before_the_lock(monkeypatch, _granted(isolated_shard_env, "public"), nth=3)
    refused = mixle("--as", "beta", "ingest", str(notes), "--scope", "public")
    assert fired and refused.exit_code == 1 and "needs approval" in refused.stderr
    assert "hint: earlier batches are kept\n" in refused.stderr
    saved = Substrate(isolated_shard_env).all(scope="public")
    assert [item.text for item in saved] == ["# a\n\nnote a"]  # saved before the grant
    # standard input is read before the save, which checks
    fired = _before_the_lock(monkeypatch, _granted(isolated_shard_env, "beta"))
    streamed = mixle("--as", "beta", "ingest", "-", "--scope", "beta", input="a pipe\n")
    assert fired and streamed.exit_code == 1 and "needs approval" in streamed.stderr
    assert "hint: nothing was saved\n" in streamed.stderr
    assert [item.text for item in Substrate(isolated_shard_env).all(scope="beta")] == [
        "made the shard"
    ]


@pytest.mark.parametrize("stop", ["interrupted", "terminated"])
def test_an_interrupted_ingest_whose_last_save_is_refused_says_both(
    mixle: Run,
    isolated_shard_env: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop: str,
) -> None:
    from substrate.ingest import session

    notes = _notes_in_batches(tmp_path / "notes", monkeypatch, "abcd", 2)
    real_apply, applied = session.IngestSession.apply, []

    def apply_then_stop(self: Any, *args: Any) -> None:  # Ctrl-C or SIGTERM after the third
        real_apply(self, *args)
        applied.append(True)
        if len(applied) == 3:
            if stop == "interrupted":
                raise KeyboardInterrupt
            os.kill(os.getpid(), signal.SIGTERM)  # the run stops after the file at hand

    mixle("--as", "beta", "add", "made the shard", "--scope", "beta")
    monkeypatch.setattr(session.IngestSession, "apply", apply_then_stop)
    # the save on the way out
    # the third lock: the ingest's check of the log, the first batch's save, the second's
    fired = _before_the_lock(monkeypatch, _granted(isolated_shard_env, "public"), nth=3)
    run = mixle("--as", "beta", "ingest", str(notes), "--scope", "public")
    assert fired and run.exit_code == 1 and "needs approval" in run.stderr
    assert f"hint: {stop}; earlier batches are kept\n" in run.stderr
    assert len(Substrate(isolated_shard_env).all(scope="public")) == 2


def test_ingest_acts_as_the_team_it_started_as_when_the_settings_change_meanwhile(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the check under the lock reads the approvers again, not who the run is: a team set in
    # mixle.toml meanwhile once stopped the run with no report of the batch it had saved
    notes = _notes_in_batches(tmp_path / "notes", monkeypatch, "ab", 1)
    mixle("add", "made the shard", "--scope", "ops")
    toml = isolated_shard_env / "mixle.toml"
    toml.write_text(toml.read_text().replace("[shard]\n", '[shard]\nteam = "ops"\n'))

    def moved() -> None:
        toml.write_text(toml.read_text().replace('team = "ops"', 'team = "dev"'))

    fired = _before_the_lock(monkeypatch, moved, nth=2)
    run = mixle("ingest", str(notes), "--scope", "ops", "--json")
    assert fired and run.exit_code == 0, run.stderr
    assert run.json()["items_added"] == 2
    assert len(Substrate(isolated_shard_env).all(scope="ops")) == 3


def test_a_proposal_to_a_scope_nobody_approves_says_so(mixle: Run, add: Add) -> None:
    a = add("ops", "x")
    ungated = mixle("--as", "ops", "propose", a, "--to", "public")
    assert ungated.exit_code == 0 and "has no approvers, so nobody can approve" in ungated.stderr
    mixle("--as", "ops", "grant", "alice", "public")
    b = add("ops", "y")
    assert "no approvers" not in mixle("--as", "ops", "propose", b, "--to", "public").stderr


def test_proposing_again_says_it_is_already_pending(mixle: Run, add: Add) -> None:
    a = add("ops", "x")
    assert (
        mixle("--as", "ops", "propose", a, "--to", "public").stdout == f"proposed {a} for public\n"
    )
    again = mixle("--as", "ops", "propose", a, "--to", "public")
    assert again.stdout == (
        f"proposed {a} for public (already pending, proposed by ops: nothing changed)\n"
    )
    data = mixle("--as", "ops", "propose", a, "--to", "public", "--json").json()
    assert (data["proposed"], data["already"]) == ([a], [a])
    assert len(mixle("history", a, "--json").json()["proposals"]) == 1
    # by another: the proposal keeps its proposer and its place in the queue (the second
    # proposer took the first's place, silently, at the back of the queue)
    other = mixle("--as", "ops", "propose", a, "--to", "public", "--by", "zed")
    assert "(already pending, proposed by ops: nothing changed)" in other.stdout
    assert [r["by"] for r in mixle("pending", "--json").json()] == ["ops"]
    assert len(mixle("history", a, "--json").json()["proposals"]) == 1


def test_pending_lists_the_oldest_proposal_first(mixle: Run, add: Add) -> None:
    first_saved, second_saved = add("ops", "x"), add("ops", "y")
    mixle("--as", "ops", "propose", second_saved, "--to", "public")
    mixle("--as", "ops", "propose", first_saved, "--to", "public")
    rows = mixle("--as", "ops", "pending", "--json").json()
    assert [r["id"] for r in rows] == [second_saved, first_saved]
    assert rows[0]["proposed_at"] <= rows[1]["proposed_at"]


def test_ingest_keeps_proposals_it_can_and_says_which_it_withdraws(
    mixle: Run, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    page = notes / "n.md"
    page.write_text("# A\n\nAlpha text here.\n\n# B\n\nBeta text here.\n")
    assert mixle("ingest", str(notes), "-q").exit_code == 0
    ids = {row["title"]: row["id"] for row in mixle("ls", "--json").json()}
    assert mixle("propose", ids["A"], ids["B"], "--to", "public").exit_code == 0
    page.write_text("# A\n\nAlpha text here.\n\n# B\n\nBeta text changed.\n")
    result = mixle("ingest", str(notes), "-q")
    assert result.exit_code == 0
    assert result.stderr.strip() == (
        f"note: n.md: the pending proposal of item {ids['B']} for public is withdrawn: its file "
        "changed, and the item was replaced; propose the new version to send it"
    )
    assert [row["id"] for row in mixle("pending", "--json").json()] == [ids["A"]]


def test_a_misspelt_access_setting_is_warned_of_on_every_command(
    mixle_process: Callable[..., Any], isolated_shard_env: Path
) -> None:
    isolated_shard_env.mkdir()
    settings = isolated_shard_env / "mixle.toml"
    settings.write_text(
        'format = 1\n[shard]\nshared_scopes = ["public"]\ntema = "alpha"\n'
        '[governance.aprovers]\npublic = ["carol"]\n',
        encoding="utf-8",
    )
    for args in (("approvers",), ("ls",), ("--as", "beta", "add", "--scope", "public", "hi")):
        result = mixle_process(*args)
        assert result.returncode == (3 if "add" in args else 0), result.stderr  # (a write)
        assert result.stderr.count("[shard] has no setting 'tema'") == 1  # once, however read
        assert "(did you mean team?)" in result.stderr
        assert "[governance] has no setting 'aprovers', left alone (did you mean approvers?)" in (
            result.stderr
        )
    settings.write_text('format = 1\n[governence.approvers]\np = ["c"]\n[Shard]\nteam = "a"\n')
    misspelt = mixle_process("approvers").stderr  # a whole table left unread
    assert "mixle.toml has no table 'governence', left alone (did you mean governance?)" in misspelt
    assert "mixle.toml has no table 'Shard', left alone (did you mean shard?)" in misspelt
    settings.write_text('format = 1\n[shard]\nteam = "alpha"\n[governance.approvers]\np = ["c"]\n')
    assert "warning" not in mixle_process("approvers").stderr


def test_a_wrong_setting_is_refused_by_every_command_and_never_written_back(
    mixle: Run, add: Add, isolated_shard_env: Path
) -> None:
    item = add("local", "draft")
    settings = isolated_shard_env / "mixle.toml"
    wrong = 'format = 1\n[shard]\ndefault_scope = 5\nshared_scopes = "public"\n'
    settings.write_text(wrong, encoding="utf-8")
    for args in (
        ("ls",),
        ("publish", item),
        ("compact",),
        ("grant", "zed", "public", "--by", "zed"),
        ("revoke", "zed", "public", "--by", "zed"),
    ):
        result = mixle(*args)
        assert result.exit_code == 3, args
        assert "mixle.toml: [shard] default_scope must be a scope name, not 5" in result.stderr
    assert settings.read_text(encoding="utf-8") == wrong


def test_an_approver_name_grant_refuses_is_refused_from_the_file(
    mixle: Run, add: Add, isolated_shard_env: Path
) -> None:
    add("local", "draft")
    settings = isolated_shard_env / "mixle.toml"
    edited = 'format = 1\n[governance.approvers]\npublic = ["alice ", ""]\n'
    settings.write_text(edited, encoding="utf-8")
    for args in (("approvers",), ("grant", "bob", "public", "--by", "alice ")):
        result = mixle(*args)
        assert result.exit_code == 3, args
        assert (
            "mixle.toml: [governance.approvers]: the approver has white space around it"
            in result.stderr
        )
    assert settings.read_text(encoding="utf-8") == edited


@pytest.mark.parametrize(
    ("typo", "refusal"),
    [
        (
            '[governance]\napprovrs = {public=["alice"]}\n',
            "[governance] has no setting 'approvrs' (did you mean approvers?): no write is "
            "taken while it is there",
        ),
        (
            '[governence.approvers]\npublic = ["alice"]\n',
            "has no table 'governence' (did you mean governance?): no write is taken",
        ),
        (  # approvers in the wrong table: as misspelt, they gated nothing
            '[approvers]\npublic = ["alice"]\n',
            "has a table 'approvers', which nothing reads (did you mean [governance.approvers]?)",
        ),
        (
            '[approvals]\npublic = ["alice"]\n',
            "has a table 'approvals', which nothing reads (did you mean [governance.approvers]?)",
        ),
        (
            '[shard.approvers]\npublic = ["alice"]\n',
            "has approvers in a table 'shard', which nothing reads (did you mean",
        ),
    ],
)
def test_a_misspelt_governance_setting_stops_every_write_and_no_read(
    mixle: Run, add: Add, isolated_shard_env: Path, typo: str, refusal: str
) -> None:
    item = add("local", "draft")
    settings = isolated_shard_env / "mixle.toml"
    typo = f"format = 1\n{typo}"
    settings.write_text(typo, encoding="utf-8")
    for args in (
        ("publish", item, "--by", "mallory"),
        ("add", "--scope", "public", "more"),
        ("grant", "mallory", "public", "--by", "mallory"),
        ("compact",),
    ):
        result = mixle(*args)
        assert result.exit_code == 3, args
        assert refusal in result.stderr
    assert settings.read_text(encoding="utf-8") == typo  # grant wrote nothing
    listed = mixle("ls", "--json")
    assert listed.exit_code == 0
    assert [row["scope"] for row in listed.json()] == ["local"]  # nothing published


def test_grant_refuses_a_mixle_toml_made_read_only(mixle: Run, isolated_shard_env: Path) -> None:
    # a rename replaced it all the same: approvers frozen by a read-only file were changed
    # (root too may write it, but it was made read-only to be kept)
    assert mixle("grant", "alice", "public").exit_code == 0
    toml = isolated_shard_env / "mixle.toml"
    toml.chmod(0o444)
    before = toml.read_bytes()
    for change in (("grant", "bob", "public"), ("revoke", "alice", "public")):
        refused = mixle("--as", "alice", *change)
        assert refused.exit_code == 3, refused.stderr
        assert "not writable" in refused.stderr and "nothing was changed" in refused.stderr
    assert toml.read_bytes() == before


def test_a_team_withdraws_its_own_proposal_and_no_other(mixle: Run, add: Add) -> None:
    mine = add("ops", "the ops runbook")
    mixle("grant", "alice", "public")
    assert mixle("--as", "ops", "propose", mine, "--to", "public").exit_code == 0
    assert mixle("--as", "dev", "withdraw", mine).exit_code == 1  # dev cannot see it
    taken = mixle("--as", "ops", "withdraw", mine, "--reason", "wrong text", "--json")
    assert taken.exit_code == 0, taken.stderr
    assert taken.json() == {"withdrawn": mine, "to": "public", "by": "ops"}
    assert mixle("pending", "--json").json() == []
    event = mixle("history", mine, "--json").json()["proposals"][-1]
    assert (event["event"], event["by"], event["reason"]) == ("withdrawn", "ops", "wrong text")
    assert scope_of(mixle, mine) == "ops"
    late = mixle("approve", mine, "--by", "alice")
    assert late.exit_code == 1
    assert "its proposal into 'public' was withdrawn by 'ops'" in late.stderr
    mixle("--as", "ops", "propose", mine, "--to", "public")
    assert mixle("approve", mine, "--by", "alice").exit_code == 0
    twice = mixle("approve", mine, "--by", "alice")
    assert twice.exit_code == 1 and "was approved by 'alice'" in twice.stderr
    other = add("dev", "a dev note", scope="public")  # in public: not ops' own item
    assert mixle("propose", other, "--to", "dev", "--by", "alice").exit_code == 0
    refused = mixle("--as", "ops", "withdraw", other)
    assert refused.exit_code == 1 and "may be withdrawn as team 'ops'" in refused.stderr
    # read as no team, one withdraws acting as its proposer or an approver of its target
    mallory = mixle("withdraw", other, "--by", "mallory")
    assert mallory.exit_code == 1 and "'mallory' neither proposed" in mallory.stderr
    assert mixle("withdraw", other, "--by", "alice").exit_code == 0


def test_publishing_an_item_where_it_is_already_changes_nothing(mixle: Run, add: Add) -> None:
    a = add("ops", "x")
    assert mixle("--as", "ops", "publish", a).exit_code == 0
    again = mixle("--as", "ops", "publish", a)  # a cron line run twice
    assert again.exit_code == 0 and again.stdout.strip() == f"{a} is in public already (version 1)"
    data = mixle("--as", "ops", "publish", a, a, "--json").json()  # (given twice: told once)
    assert data["published"] == [] and data["already"] == [a] and data["versions"] == {a: 1}
    assert len(mixle("history", a, "--json").json()["history"]) == 1


def test_removing_or_ungating_around_pending_proposals_says_so(mixle: Run, add: Add) -> None:
    a, b = add("ops", "first"), add("ops", "second")
    mixle("grant", "alice", "public")
    mixle("--as", "ops", "propose", a, b, "--to", "public")
    removed = mixle("--as", "ops", "rm", a)
    assert f"note: {a} was proposed for public; the proposal went with it" in removed.stderr
    rejected = mixle("reject", b, "--by", "alice", "--reason", "later", "--json").json()
    assert rejected["to"] == "public"
    mixle("--as", "ops", "propose", b, "--to", "public")
    third = add("dev", "third")
    mixle("--as", "dev", "propose", third, "--to", "public")
    as_team = mixle("--as", "ops", "revoke", "alice", "public", "--by", "alice")
    assert "any pending proposal into it cannot be approved" in as_team.stderr  # not counted
    mixle("grant", "alice", "public")
    last = mixle("revoke", "alice", "public", "--by", "alice")
    assert "its 2 pending proposal(s) cannot be approved" in last.stderr
    mixle("grant", "alice", "public")
    mixle("approve", b, "--by", "alice")
    mixle("approve", third, "--by", "alice")
    quiet = mixle("revoke", "alice", "public", "--by", "alice")  # nothing was waiting
    assert "no approver now" in quiet.stderr and "pending" not in quiet.stderr


def test_an_empty_mixle_team_says_what_unsetting_it_reads(
    mixle: Run, add: Add, monkeypatch: pytest.MonkeyPatch
) -> None:
    add("ops", "x")
    monkeypatch.setenv("MIXLE_TEAM", "")
    refused = mixle("ls")
    assert refused.exit_code == 2
    assert "unset it to read as the [shard] team of mixle.toml" in refused.stderr


def test_pending_for_a_scope_nothing_is_known_of_says_so(mixle: Run, add: Add) -> None:
    add("ops", "x")
    typo = mixle("pending", "--to", "pubilc")
    assert typo.exit_code == 0 and "nobody approves for it" in typo.stderr
    for known in (["pending", "--to", "public"], ["--as", "ops", "pending", "--to", "ops"]):
        assert "nobody approves" not in mixle(*known).stderr
    assert mixle("pending", "--to", "pubilc", "--json").stdout.strip() == "[]"


def test_merge_prefer_other_keeps_the_id_and_takes_the_newer_text(mixle: Run, add: Add) -> None:
    keep = add("ops", "Refunds over 500 EUR need a lead.", scope="public")
    other = add("ops", "Refunds over 1000 EUR need a lead.", scope="public")
    assert mixle("merge", keep, other, "--prefer", "other").exit_code == 0
    assert mixle("get", keep, "--json").json()[0]["text"] == "Refunds over 1000 EUR need a lead."
    assert mixle("get", other).exit_code == 1


def test_pending_as_a_team_says_whose_proposals_it_cannot_see(mixle: Run, add: Add) -> None:
    # an approver reading as its own team was told "nothing is pending" while another team's
    # proposal into its scope waited
    a = add("ops", "to review")
    assert mixle("--as", "ops", "propose", a, "--to", "public").exit_code == 0
    told = mixle("--as", "dev", "pending").stderr
    assert "nothing is pending that team dev can see" in told and a not in told
    assert a in mixle("pending").stdout
