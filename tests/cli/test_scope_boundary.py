"""Scopes are a security boundary: nothing of another team ever reaches the caller.

One shard holds two teams' private items (marked with words no other item uses), public items
that link to private ones, files ingested by one team and then edited or deleted, items that
supersede public ones, pending proposals, approvers and a stored secret. Every command is run as
team Alpha, and nothing of team Bravo may appear in stdout or stderr: no id, text, marker, file
name, proposer, scope name or count. Asking for one of Bravo's items by id must look exactly
like asking for an id that does not exist.

Commands still being written are listed here and picked up as soon as `mixle CMD --help` works;
any command that appears in `mixle --help` and is not listed is still probed generically.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest
import typer
from typer.testing import CliRunner

from mixle_cli.app import app
from substrate.freshness import content_hash
from substrate.governance import Governance, save_governance
from substrate.item import SubstrateItem
from substrate.proposals import propose
from substrate.store import Substrate

ALPHA = "teamalpha"
BRAVO = "teambravo"
# Bravo's texts always carry these next to the queried word, so a leaked snippet shows them.
BRAVO_HIDDEN = ("zephyrpelican", "vorticellax", "bravolead", "bravoboss", "deadc0dedeadc0de")
QUERIED = "quokkamarble"  # in Bravo's texts and in the queries (so it may be echoed back)
QUERY = f"{QUERIED} refund window"
BRIDGE_QUERY = "bridgeword refund window"
FAKE_ID = "0f0f0f0f0f0f0f0f"
FAKE_SCOPE = "teamnobody"
SECRET = "AKIAZ7QWERTYUIOPASDF"

WRITE_COMMANDS = {
    "init",
    "add",
    "rm",
    "ingest",
    "compact",
    "reindex",
    "publish",
    "merge",
    "propose",
    "approve",
    "reject",
    "grant",
    "revoke",
}


def bravo_text(words: str) -> str:
    return f"zephyrpelican {QUERIED} zephyrpelican {words} vorticellax"


@dataclass
class Fixture:
    root: Path
    bravo_ids: list[str] = field(default_factory=list)
    visible_ids: set[str] = field(default_factory=set)
    ids: dict[str, str] = field(default_factory=dict)


def _run(root: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--shard", str(root), *args], catch_exceptions=True)
    stderr = result.stderr or ""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += f"\n<exception {type(result.exception).__name__}: {result.exception}>"
    return result.exit_code, result.stdout or "", stderr


def _invoke(root: Path, *args: str) -> tuple[int, str]:
    code, out, err = _run(root, *args)
    return code, out + err


def _build(base: Path) -> Fixture:
    root = base / "shard"
    fx = Fixture(root)
    docs = base / "bravo_docs"
    docs.mkdir()
    edited, deleted, kept = (docs / f"vorticellax-{n}.md" for n in ("edited", "deleted", "kept"))
    for f in (edited, deleted, kept):
        f.write_text(bravo_text(f"plan {f.stem}") + "\n")
        past = f.stat().st_mtime - 86400
        os.utime(f, (past, past))

    store = Substrate(root)
    ids = fx.ids

    def put(name: str, scope: str, text: str, **kw: Any) -> str:
        ids[name] = store.put(
            SubstrateItem(kind=kw.pop("kind", "text"), text=text, scope=scope, **kw)
        )
        return ids[name]

    put("b_note", BRAVO, bravo_text("budget for the refund window"), tags=["vorticellax"])
    put(
        "b_record",
        BRAVO,
        bravo_text("record"),
        kind="record",
        payload={"codename": "vorticellax", "note": QUERIED},
    )
    put("b_linked", BRAVO, bravo_text("derived"), links=[ids["b_note"], "deadc0dedeadc0de"])
    for f in (edited, deleted, kept):
        st = f.stat()
        put(
            f"b_file_{f.stem}",
            BRAVO,
            f.read_text(),
            provenance={
                "source": f.name,
                "path": str(f),
                "content_hash": content_hash(f),
                "size": st.st_size,
                "mtime": st.st_mtime,
                "ingested_at": st.st_mtime + 3600,
            },
        )
    put("b_secret", BRAVO, bravo_text(f"aws key {SECRET}"))
    put("b_pending", BRAVO, bravo_text("ready to share"))

    put("a_note", ALPHA, "alphafalcon notes on the refund window")
    put("a_pending", ALPHA, "alphafalcon proposal for everyone")
    put(
        "pub_hub",
        "public",
        "bridgeword refund window policy, see the team notes",
        links=[ids["b_note"], ids["a_note"], ids["b_file_vorticellax-kept"]],
    )
    put("pub_old", "public", "bridgeword old refund window policy")
    put("pub_replaced", "public", "bridgeword refund window draft", created_at=1.0)
    put(
        "b_supersedes", BRAVO, bravo_text("newer policy"), provenance={"supersedes": ids["pub_old"]}
    )
    put(
        "b_replaces",
        BRAVO,
        bravo_text("draft v2"),
        links=[ids["pub_replaced"]],
        provenance={"replaces": ids["pub_replaced"]},
    )
    store.save()
    propose(store, [ids["b_pending"]], to="public", by="bravolead")
    propose(store, [ids["a_pending"]], to="public", by="alphaowner")
    store.save()
    save_governance(store, Governance().grant("alice", "public").grant("bravoboss", BRAVO))
    store.close()

    # Real ingestion by team Bravo.
    ingest_dir = base / "bravo_ingest_vorticellax"
    ingest_dir.mkdir()
    (ingest_dir / "vorticellax-memo.md").write_text(bravo_text("memo") + "\n")
    (ingest_dir / "vorticellax-gone.md").write_text(bravo_text("memo that goes away") + "\n")
    code, said = _invoke(root, "--as", BRAVO, "ingest", str(ingest_dir), "--by", "bravoboss")
    assert code == 0, said
    edited.write_text(bravo_text("edited after ingest, now longer") + "\n")
    deleted.unlink()
    (ingest_dir / "vorticellax-gone.md").unlink()

    store = Substrate(root)
    store.reindex()
    for item in store.iter_items():
        # Whatever Alpha may not read counts as Bravo's, wherever ingestion put it.
        if item.scope in (ALPHA, "public"):
            fx.visible_ids.add(item.id)
        else:
            fx.bravo_ids.append(item.id)
    store.close()
    return fx


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    return _build(tmp_path_factory.mktemp("boundary"))


@pytest.fixture
def shard(built: Fixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Fixture]:
    """A private copy of the shard per test; the working directory is a scratch folder."""
    root = tmp_path / "copy"
    shutil.copytree(built.root, root)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    yield Fixture(root, built.bravo_ids, built.visible_ids, built.ids)


def forbidden(fx: Fixture) -> list[str]:
    return [*fx.bravo_ids, *BRAVO_HIDDEN, BRAVO, SECRET]


def as_alpha(fx: Fixture, *args: str) -> tuple[int, str]:
    return _invoke(fx.root, "--as", ALPHA, *args)


def assert_no_leak(
    fx: Fixture, args: tuple[str, ...], text: str, allowed: tuple[str, ...] = ()
) -> None:
    """Nothing of Bravo's in ``text``, apart from what the caller itself typed (``allowed``)."""
    for echo in allowed:
        text = text.replace(echo, "<arg>")
    lowered = text.lower()
    for word in forbidden(fx):
        assert word.lower() not in lowered, (
            f"`mixle --as {ALPHA} {' '.join(args)}` revealed {word!r}:\n{text}"
        )


def assert_like_missing(fx: Fixture, args: tuple[str, ...], probe: str, stand_in: str) -> None:
    """Running with Bravo's ``probe`` looks exactly like running with a nonexistent one."""
    code, text = as_alpha(fx, *args)
    fake_args = tuple(stand_in if a == probe else a for a in args)
    fake_code, fake_text = as_alpha(fx, *fake_args)
    assert (code, text.replace(probe, stand_in)) == (fake_code, fake_text), (
        f"`mixle --as {ALPHA} {' '.join(args)}` differs from the same command on a missing "
        f"value:\n{text}\n---\n{fake_text}"
    )
    assert_no_leak(fx, args, text, allowed=(probe,))


def check(fx: Fixture, *args: str, allowed: tuple[str, ...] = ()) -> str:
    _, text = as_alpha(fx, *args)
    assert_no_leak(fx, args, text, allowed)
    return text


def json_of(fx: Fixture, *args: str) -> Any:
    code, out, err = _run(fx.root, "--as", ALPHA, *args, "--json")
    assert_no_leak(fx, args, out + err)
    assert code in (0, 1), err
    return orjson.loads(out)


# -- the commands, with the arguments that probe them -------------------------------------------

Probe = Callable[[Fixture], None]


def probe_get(fx: Fixture) -> None:
    for name in ("b_note", "b_linked", "b_file_vorticellax-kept"):
        assert_like_missing(fx, ("get", fx.ids[name]), fx.ids[name], FAKE_ID)
        assert_like_missing(fx, ("get", fx.ids[name], "--json"), fx.ids[name], FAKE_ID)
    for args in (
        ("get", fx.ids["pub_hub"]),
        ("get", fx.ids["pub_hub"], "--json"),
        ("get", fx.ids["pub_hub"], fx.ids["a_note"], "--jsonl"),
    ):
        check(fx, *args)


def probe_ls(fx: Fixture) -> None:
    for args in ((), ("--json",), ("--jsonl",), ("--kind", "record")):
        check(fx, "ls", *args)
    listed = json_of(fx, "ls")
    assert {row["id"] for row in listed} == fx.visible_ids
    assert_like_missing(fx, ("ls", "--scope", BRAVO, "--json"), BRAVO, FAKE_SCOPE)
    assert_like_missing(fx, ("ls", "--scope", BRAVO), BRAVO, FAKE_SCOPE)


def probe_status(fx: Fixture) -> None:
    check(fx, "status")
    report = json_of(fx, "status")
    assert report["items"] == len(fx.visible_ids)
    assert set(report["by_scope"]) <= {ALPHA, "public"}


def _queries(fx: Fixture, command: str) -> None:
    for query in (QUERY, BRIDGE_QUERY, "vorticellax-memo.md"):
        for extra in ((), ("--json",)):
            check(fx, command, query, *extra, allowed=(query,))


def probe_search(fx: Fixture) -> None:
    _queries(fx, "search")
    check(fx, "search", QUERY, "--explain", allowed=(QUERY,))


def probe_retrieve(fx: Fixture) -> None:
    _queries(fx, "retrieve")


def probe_multihop(fx: Fixture) -> None:
    _queries(fx, "multihop")  # the public hub links to Bravo's note: that hop must not happen


def probe_assemble_context(fx: Fixture) -> None:
    _queries(fx, "assemble-context")


def probe_ask(fx: Fixture) -> None:
    _queries(fx, "ask")


def probe_verify(fx: Fixture) -> None:
    claim = f"The {QUERIED} budget covers the refund window."
    for extra in ((), ("--json",)):
        check(fx, "verify", claim, *extra, allowed=(claim,))


def probe_history(fx: Fixture) -> None:
    for name in ("b_pending", "b_note"):
        assert_like_missing(fx, ("history", fx.ids[name]), fx.ids[name], FAKE_ID)
        assert_like_missing(fx, ("history", fx.ids[name], "--json"), fx.ids[name], FAKE_ID)
    check(fx, "history", fx.ids["pub_hub"], "--json")
    check(fx, "history", fx.ids["a_pending"])


def probe_audit(fx: Fixture) -> None:
    check(fx, "audit")
    report = json_of(fx, "audit")
    assert report["lineage"]["n_items"] == len(fx.visible_ids)
    assert report["lineage"]["n_broken"] == 0  # Bravo's dangling link is not Alpha's business
    assert report["secrets"].get("n_findings", 0) == 0
    # segments, files and items of the index grow with every team's writes
    assert set(report["index"]) <= {"checked", "state", "problems", "note"}


def probe_freshness(fx: Fixture) -> None:
    for extra in ((), ("--max-age", "1s"), ("--scope", BRAVO)):
        check(fx, "freshness", *extra, allowed=(BRAVO,) if BRAVO in extra else ())
    report = json_of(fx, "freshness")
    assert report["n_items"] == len(fx.visible_ids)
    assert report["n_stale"] == 0  # the superseding items and edited files are Bravo's
    assert_like_missing(fx, ("freshness", "--scope", BRAVO, "--json"), BRAVO, FAKE_SCOPE)


def probe_pending(fx: Fixture) -> None:
    check(fx, "pending")
    rows = json_of(fx, "pending")
    assert [r["id"] for r in rows] == [fx.ids["a_pending"]]
    assert json_of(fx, "pending", "--to", "public") == rows


def probe_verify_lineage(fx: Fixture) -> None:
    check(fx, "verify-lineage", fx.ids["pub_hub"])
    report = json_of(fx, "verify-lineage", fx.ids["pub_hub"])
    assert report["intact"] and report["visited"] == 2  # the hub and Alpha's note
    for name in ("b_linked", "b_note"):
        assert_like_missing(fx, ("verify-lineage", fx.ids[name]), fx.ids[name], FAKE_ID)


def probe_approvers(fx: Fixture) -> None:
    check(fx, "approvers")
    assert json_of(fx, "approvers") == [{"scope": "public", "approvers": ["alice"]}]


READ_COMMANDS: dict[str, Probe] = {
    "get": probe_get,
    "ls": probe_ls,
    "status": probe_status,
    "search": probe_search,
    "retrieve": probe_retrieve,
    "multihop": probe_multihop,
    "assemble-context": probe_assemble_context,
    "ask": probe_ask,
    "verify": probe_verify,
    "history": probe_history,
    "audit": probe_audit,
    "freshness": probe_freshness,
    "pending": probe_pending,
    "verify-lineage": probe_verify_lineage,
    "approvers": probe_approvers,
}


@pytest.mark.parametrize("command", list(READ_COMMANDS))
def test_read_command_reveals_nothing_of_another_team(shard: Fixture, command: str) -> None:
    READ_COMMANDS[command](shard)


def _bravo_state(fx: Fixture) -> list[dict[str, Any]]:
    store = Substrate(fx.root)
    try:
        return [i.to_json() for i in store.iter_items(scope=BRAVO)]
    finally:
        store.close()


def test_writes_aimed_at_another_teams_items_look_like_missing_ids(shard: Fixture) -> None:
    before = _bravo_state(shard)
    ids = shard.ids
    b, pending_b, mine = ids["b_note"], ids["b_pending"], ids["a_note"]
    attempts = [
        ("publish", b),
        ("publish", mine, b),
        ("propose", b, "--to", "public"),
        ("approve", pending_b, "--by", "alice"),
        ("approve", pending_b, "--by", "bravoboss"),
        ("reject", pending_b, "--reason", "no", "--by", "alice"),
        ("merge", mine, b),
        ("merge", b, mine),
        ("rm", b),
        ("get", mine, b),
        ("add", "linking to it", "--link", b),
    ]
    for args in attempts:
        probe = pending_b if pending_b in args else b
        assert_like_missing(shard, args, probe, FAKE_ID)
    # Nothing of Bravo's changed, and Alpha cannot claim Bravo's scope or see its approvers.
    assert _bravo_state(shard) == before
    code, text = as_alpha(shard, "grant", "alphaowner", BRAVO)
    assert code == 1 and "bravoboss" not in text
    assert as_alpha(shard, "publish", mine, "--to", BRAVO)[0] == 1
    assert _bravo_state(shard) == before


def test_ingesting_what_another_team_ingested_leaves_its_items_alone(
    built: Fixture, shard: Fixture
) -> None:
    """Bravo ingested this folder, and one of its files is gone since: Alpha's ingest of it
    gives Alpha its own items, and neither replaces, prunes nor reports Bravo's."""
    before = _bravo_state(shard)
    folder = built.root.parent / "bravo_ingest_vorticellax"
    code, out, err = _run(shard.root, "--as", ALPHA, "ingest", str(folder), "--json")
    assert code == 0, err
    report = orjson.loads(out)
    assert (report["files_added"], report["files_updated"], report["files_removed"]) == (1, 0, 0)
    assert report["items_removed"] == 0
    assert "gone" not in out + err  # Bravo's deleted file is not Alpha's to report
    assert _bravo_state(shard) == before


def test_whole_shard_maintenance_tells_a_team_no_counts(shard: Fixture) -> None:
    # the keys a script reads without a team, none of them told
    compacted = json_of(shard, "compact")
    assert set(compacted) == {"bytes_before", "bytes_after", "live_items", "reclaimed"}
    assert set(compacted.values()) == {None}
    reindexed = json_of(shard, "reindex")
    assert reindexed.pop("reindexed") is True and set(reindexed.values()) == {None}
    assert {"items", "segments", "seconds"} <= set(reindexed)


def test_a_teams_compaction_says_the_same_whether_others_left_anything_to_reclaim(
    shard: Fixture,
) -> None:
    told = [_run(shard.root, "--as", ALPHA, "compact")]  # the fixture's edits reclaimed
    told.append(_run(shard.root, "--as", ALPHA, "compact"))  # nothing left
    assert told[0] == told[1] and told[0][0] == 0


def _discovered() -> list[tuple[str, ...]]:
    group = typer.main.get_command(app)
    found: list[tuple[str, ...]] = []
    for name, command in getattr(group, "commands", {}).items():
        subcommands = getattr(command, "commands", None)
        if subcommands:
            found.extend((name, sub) for sub in subcommands)
        else:
            found.append((name,))
    return found


def test_every_other_command_reveals_nothing(shard: Fixture) -> None:
    """Commands not listed above (new ones included) are probed with generic arguments."""
    known = set(READ_COMMANDS) | WRITE_COMMANDS | {"--help"}
    others = [path for path in _discovered() if path[0] not in known]
    b = shard.ids["b_note"]
    for path in others:
        for extra in ((), (QUERY,), (b,), (QUERY, "--json"), (b, "--json")):
            check(shard, *path, *extra, allowed=tuple(a for a in extra if a in (QUERY, b)))


def test_team_from_environment_or_settings_is_the_same_boundary(shard: Fixture) -> None:
    def listed(*args: str, env: dict[str, str] | None = None) -> set[str]:
        result = CliRunner().invoke(
            app, ["--shard", str(shard.root), *args, "ls", "--json"], env=env
        )
        assert result.exit_code == 0, result.stderr
        return {row["id"] for row in orjson.loads(result.stdout)}

    assert listed(env={"MIXLE_TEAM": ALPHA}) == shard.visible_ids
    store = Substrate(shard.root)
    store.settings.section("shard")["team"] = ALPHA
    store.settings.save()
    store.close()
    assert listed() == shard.visible_ids
    # --as still wins over the configured default.
    assert set(shard.bravo_ids) <= listed("--as", BRAVO)


@pytest.mark.parametrize(
    ("args", "env"), [(["--as", ""], {}), (["--as", " "], {}), ([], {"MIXLE_TEAM": ""})]
)
def test_an_empty_team_name_is_refused_not_read_as_every_scope(
    shard: Fixture, args: list[str], env: dict[str, str]
) -> None:
    # "--as $TEAM" with TEAM unset must not quietly read every team's items
    result = CliRunner().invoke(app, ["--shard", str(shard.root), *args, "ls", "--json"], env=env)
    assert result.exit_code == 2, result.stdout
    assert "empty" in result.stderr and result.stdout == ""


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["--as", "al\x1b[31mpha"], {}),
        (["--as", "alpha\u200b"], {}),
        ([], {"MIXLE_TEAM": "a\nb"}),
        (["--as", "Zu\u0308rich"], {}),  # decomposed: prints as "Z\u00fcrich", another team
    ],
)
def test_a_team_name_with_invisible_characters_is_refused(
    shard: Fixture, args: list[str], env: dict[str, str]
) -> None:
    # printed in refusals (a terminal would obey the escape), and a look-alike of another team
    result = CliRunner().invoke(app, ["--shard", str(shard.root), *args, "ls", "--json"], env=env)
    assert result.exit_code == 2, result.stdout
    assert "invisible or control characters" in result.stderr and "\x1b" not in result.stderr


def test_a_scope_or_approver_spelled_decomposed_is_refused(shard: Fixture) -> None:
    composed, decomposed = "Z\u00fcrich", "Zu\u0308rich"
    root = ["--shard", str(shard.root)]
    for args in (
        ["add", "a note", "--scope", decomposed],
        ["grant", decomposed, "public"],
        ["grant", "alice", decomposed],
    ):
        result = CliRunner().invoke(app, [*root, *args])
        assert result.exit_code == 2 and "Unicode's composed form" in result.stderr, args
    assert CliRunner().invoke(app, [*root, "add", "a note", "--scope", composed]).exit_code == 0
