"""mixle audit / freshness / verify-lineage: reports, --json, and exit codes for cron."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from substrate.freshness import content_hash
from substrate.store import Substrate

Run = Callable[..., Any]


@pytest.fixture
def shard(isolated_shard_env: Path) -> Substrate:
    return Substrate(isolated_shard_env)


def ingested(path: Path) -> dict[str, Any]:
    st = path.stat()
    return {
        "source": path.name,
        "path": str(path),
        "content_hash": content_hash(path),
        "size": st.st_size,
        "mtime": st.st_mtime,
        "ingested_at": st.st_mtime + 3600,
    }


def _index_over_a_removed_item(mixle: Run, shard: Substrate) -> None:
    """A shard of one live item and one removed (which `compact` reclaims), its search index
    built."""
    shard.add("text", "base notes")
    shard.remove(shard.add("text", "reclaimed notes"))
    shard.save()
    assert mixle("search", "base").exit_code == 0


def test_audit_clean(mixle: Run, shard: Substrate) -> None:
    a = shard.add("text", "base")
    shard.add("text", "derived", links=[a])
    shard.save()
    result = mixle("audit")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "lineage  2 items, 2 intact, 0 broken" in result.stdout
    assert result.stdout.rstrip().endswith("all clean")
    data = mixle("audit", "--json")
    assert data.exit_code == 0 and data.json()["ok"] is True and data.json()["problems"] == []


def test_audit_lists_the_links_between_notes_that_lead_to_no_note(
    mixle: Run, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    (notes / "runbooks").mkdir(parents=True)
    (notes / "a.md").write_text(
        "# Incidents\n\nUse [[postmortem-template]] and [the runbook](runbooks/deploy.md).\n"
    )
    (notes / "runbooks" / "deploy.md").write_text("# Deploy\n\nRun it.\n")
    assert mixle("ingest", str(notes)).exit_code == 0
    result = mixle("audit")
    assert result.exit_code == 0 and "notes    2 link(s), 1 to no note" in result.stdout
    # the link's own line, not its section's first
    assert result.stdout.rstrip().endswith(
        "  a.md:3: [[postmortem-template]]\n\n"
        "no problem (a link to no note does not fail the audit)"
    )
    (notes / "runbooks" / "deploy.md").unlink()  # a note removed: its links rot
    assert mixle("ingest", str(notes)).exit_code == 0
    (first, second) = mixle("audit", "--json").json()["notes"]["unresolved"]
    assert {first["link"], second["link"]} == {"[[postmortem-template]]", "runbooks/deploy.md"}
    assert first["id"] == first["item_id"] and first["source"] == "a.md"


def test_audit_finds_the_line_of_a_link_written_from_the_notes_own_folder(
    mixle: Run, tmp_path: Path
) -> None:
    services = tmp_path / "notes" / "services"
    services.mkdir(parents=True)
    (services / "README.md").write_text(
        "# Services\n\n| service | owner |\n|---|---|\n| [ledger](ledger.md) | Priya |\n"
        "| [fraud](fraud-scorer.md) | unknown |\n"
    )
    (services / "ledger.md").write_text("# Ledger\n\nOwner: Priya.\n")
    assert mixle("ingest", str(tmp_path / "notes")).exit_code == 0
    result = mixle("audit")
    assert "  services/README.md:6: services/fraud-scorer.md\n" in result.stdout


def test_audit_does_not_take_a_name_inside_another_for_a_broken_link(
    mixle: Run, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "index.md").write_text(
        "# Index\n\nSee data.md and a.md.bak.\n\nAnd [the a note](a.md).\n"
    )
    (notes / "data.md").write_text("# Data\n\nRows.\n")
    assert mixle("ingest", str(notes)).exit_code == 0
    assert "  index.md:5: a.md\n" in mixle("audit").stdout


def test_audit_right_after_compact_is_clean_and_the_index_is_to_be_built(
    mixle: Run, shard: Substrate
) -> None:
    _index_over_a_removed_item(mixle, shard)
    assert mixle("compact").exit_code == 0
    result = mixle("audit")
    assert result.exit_code == 0, result.stdout
    # its files went with the old log (they held the words of what was reclaimed)
    assert "index    missing" in result.stdout
    assert mixle("search", "base").exit_code == 0


def test_audit_finds_dangling_links(mixle: Run, shard: Substrate) -> None:
    a = shard.add("text", "cites a ghost", links=["feedfacefeedface"])
    shard.save()
    result = mixle("audit")
    assert result.exit_code == 1
    assert "1 problem(s):" in result.stdout
    assert f"item {a}: dangling link(s) to feedfacefeedface" in result.stdout
    data = mixle("audit", "--json")
    assert data.exit_code == 1
    ghost = "feedfacefeedface"
    broken = [{"id": a, "item_id": a, "dangling": [ghost], "held_by": {ghost: [a]}}]
    assert data.json()["lineage"]["broken"] == broken
    b = shard.add("text", "cites the item citing a ghost", links=[a])  # broken through a
    shard.save()
    through = mixle("audit", "--json").json()["lineage"]["broken"]
    assert {"id": b, "item_id": b, "dangling": [ghost], "held_by": {ghost: [a]}} in through


def test_audit_names_an_item_with_a_stored_secret_by_id(mixle: Run, shard: Substrate) -> None:
    a = shard.add("text", "staging key AKIAQ7XJ2KLMN4PQRS5T", redact=False)  # kept
    shard.save()
    data = mixle("audit", "--json")
    assert data.exit_code == 1
    [finding] = data.json()["secrets"]["findings"]
    assert finding["id"] == finding["item_id"] == a and finding["rule"] == "aws_access_key"


def test_audit_scope_option(mixle: Run, shard: Substrate) -> None:
    shard.add("text", "broken", scope="ops", links=["feedfacefeedface"])
    shard.add("text", "fine", scope="public")
    shard.save()
    assert mixle("audit", "--scope", "public").exit_code == 0
    assert mixle("audit", "--scope", "ops").exit_code == 1


def test_a_team_is_told_of_its_own_items_links_to_what_it_cannot_see(
    mixle: Run, shard: Substrate
) -> None:
    target = shard.add("text", "beta target", scope="beta")
    note = shard.add("text", "beta note", scope="beta", links=[target])
    hidden = shard.add("text", "gamma private", scope="gamma")
    hub = shard.add("text", "public hub", scope="public", links=[hidden])
    shard.save()
    assert mixle("--as", "beta", "audit").exit_code == 0
    assert mixle("--as", "beta", "rm", target).exit_code == 0
    for command in (("audit",), ("verify-lineage", note)):
        result = mixle("--as", "beta", *command)
        assert result.exit_code == 1, command
        assert "an item removed, or in a scope you cannot read" in result.stdout
        assert target not in result.stdout and hidden not in result.stdout
    # the public hub's link to gamma's item is gamma's business: not counted
    assert mixle("--as", "beta", "audit", "--json").json()["lineage"]["n_broken"] == 1
    # nor for a reader named after the shared scope: public items are no one's own
    assert mixle("--as", "public", "audit").exit_code == 0
    shallow = mixle("--as", "beta", "verify-lineage", hub, "--max-depth", "0", "--json")
    assert shallow.json()["unfollowed"] == 0  # the link it cannot see is not counted


def test_audit_reports_an_unfinished_write(
    mixle: Run, shard: Substrate, isolated_shard_env: Path
) -> None:
    shard.add("text", "x")
    shard.save()
    with (isolated_shard_env / "items.jsonl").open("ab") as fh:
        fh.write(b'{"id": "half')
    result = mixle("audit")
    assert result.exit_code == 1 and "12 bytes of an unfinished write" in result.stdout
    # a team learns that a write is unfinished, not how large another team's write is
    for command in ("audit", "status"):
        team = mixle("--as", "ops", command, "--json")
        assert "12" not in str(team.json()["log"]), command
    assert mixle("--as", "ops", "audit", "--json").json()["log"]["unfinished_write"] is True
    assert "12 bytes of an unfinished write follow" in mixle("status").stderr
    told = mixle("--as", "ops", "status").stderr
    assert "an unfinished write follows" in told and "12 bytes" not in told


def test_a_log_restored_from_before_its_compaction_is_told_of_and_not_written_to(
    mixle: Run, shard: Substrate, isolated_shard_env: Path
) -> None:
    gone = shard.add("text", "removed before the compaction")
    shard.save()
    before = (isolated_shard_env / "items.jsonl").read_bytes()
    shard.remove(gone)
    shard.save()
    assert mixle("compact").exit_code == 0
    assert mixle("add", "added after the compaction").exit_code == 0
    (isolated_shard_env / "items.jsonl").write_bytes(before)  # an older backup put back
    _told_of_and_not_written_to(mixle, isolated_shard_env, "an older copy of the log")


def test_a_log_that_lost_its_header_line_is_told_of_as_writes_are_refused(
    mixle: Run, shard: Substrate, isolated_shard_env: Path
) -> None:
    # writes were refused ("no header line"), while status said healthy and audit all clean
    for n in range(3):
        shard.add("text", f"fact {n}")
    shard.save()
    log = isolated_shard_env / "items.jsonl"
    log.write_bytes(log.read_bytes().split(b"\n", 1)[1] + b'{"id": "torn')  # its start cut off
    _told_of_and_not_written_to(mixle, isolated_shard_env, "no header line")


def test_a_damaged_header_line_is_told_with_the_way_to_mend_it(
    mixle: Run, shard: Substrate, isolated_shard_env: Path
) -> None:
    shard.add("text", "a fact")
    shard.save()
    log = isolated_shard_env / "items.jsonl"
    head, rest = log.read_bytes().split(b"\n", 1)
    log.write_bytes(head[:-1] + b"\n" + rest)
    for command in (["ls"], ["compact"], ["add", "more"]):
        done = mixle(*command)
        assert done.exit_code == 3 and "header line is damaged" in done.stderr, command
        assert "hint: delete line 1 of items.jsonl" in done.stderr, command


def _told_of_and_not_written_to(mixle: Run, shard: Path, said: str) -> None:
    """status warns of the log (``said``, before any unfinished write: no write is taken) and
    is unhealthy, audit exits 1 with it (for a team too), and a write is refused, the log
    left as it is."""
    log = shard / "items.jsonl"
    before = log.read_bytes()
    status = mixle("status")
    assert status.exit_code == 0 and said in status.stderr
    assert "the next write removes it" not in status.stderr
    for team in ((), ("--as", "ops")):
        assert mixle(*team, "status", "--json").json()["healthy"] is False
        audit = mixle(*team, "audit", "--json")
        assert audit.exit_code == 1 and any(said in p for p in audit.json()["problems"])
    refused = mixle("add", "one more")
    assert refused.exit_code == 3 and said in refused.stderr
    assert log.read_bytes() == before


def test_audit_reports_a_corrupt_line(
    mixle: Run, shard: Substrate, isolated_shard_env: Path
) -> None:
    for i in range(3):
        shard.add("text", f"line {i}")
    shard.save()
    path = isolated_shard_env / "items.jsonl"
    path.write_bytes(path.read_bytes().replace(b'line 1"', b"line 1 ", 1))
    for team in ((), ("--as", "alpha")):  # a team's check once stopped it at exit 3
        result = mixle(*team, "audit", "--json")
        assert result.exit_code == 1, result.stderr
        assert result.json()["log"]["ok"] is False
        assert "corrupt" in result.json()["problems"][0]


def test_freshness_all_fresh(mixle: Run, shard: Substrate) -> None:
    shard.add("text", "x")
    shard.save()
    result = mixle("freshness")
    assert result.exit_code == 0 and result.stdout.strip() == "all 1 item(s) fresh"
    assert mixle("freshness", "--json").json() == {
        "n_items": 1,
        "n_fresh": 1,
        "n_stale": 0,
        "stale": [],
        "own_scope_empty": False,
    }


def test_freshness_takes_no_stream_for_the_file_it_is_named_after(
    mixle: Run, isolated_shard_env: Path
) -> None:
    # a passage piped into ingest-docs under --source /var/log/feed was "moved" from then on
    piped = mixle("ingest-docs", "-", "--source", "/var/log/feed", input='"a passage"\n')
    assert piped.exit_code == 0, piped.stderr
    fresh = mixle("freshness")
    assert fresh.exit_code == 0, fresh.stdout


def test_freshness_max_age(mixle: Run, shard: Substrate) -> None:
    import time

    old = shard.add("text", "old", created_at=time.time() - 40 * 86400)
    shard.add("text", "new")
    shard.save()
    assert mixle("freshness", "--max-age", "60d").exit_code == 0
    result = mixle("freshness", "--max-age", "30d")
    assert result.exit_code == 1
    assert "1 of 2 item(s) stale (1 aged)" in result.stdout and old in result.stdout
    assert "40d" in result.stdout and "aged: older than --max-age 30d" in result.stdout
    assert "2592000s" not in result.stdout  # the policy in the units typed
    data = mixle("freshness", "--max-age", "4w", "--json").json()
    # the library's words, in days rather than seconds ("aged: 3456000s old...")
    assert data["stale"][0]["signals"][0].startswith("aged: 40d old exceeds the 28d policy")
    assert [s["id"] for s in data["stale"]] == [s["item_id"] for s in data["stale"]] == [old]
    lines = mixle("freshness", "--max-age", "4w", "--jsonl")
    assert lines.exit_code == 1 and [s["id"] for s in lines.jsonl()] == [old]


def test_freshness_names_each_stale_item_s_file_as_one_would_type_it(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nalpha\n")
    assert mixle("ingest", str(notes)).exit_code == 0
    (notes / "a.md").write_text("# A\n\nalpha, edited\n")
    monkeypatch.chdir(tmp_path)
    result = mixle("freshness")
    assert result.exit_code == 1
    header, row = result.stdout.splitlines()[1:3]
    assert header.split() == ["id", "age", "file", "signals"]
    assert os.path.join("notes", "a.md") in row.split()  # (the age may be two words)
    monkeypatch.chdir(os.sep)  # cron's working directory: the path in full, not "tmp/..."
    row = mixle("freshness").stdout.splitlines()[2]
    assert str(notes / "a.md") in row.split()


@pytest.mark.parametrize("bad", ["30x", "-1d", "", "d"])
def test_freshness_bad_duration_is_a_usage_error(mixle: Run, bad: str) -> None:
    result = mixle("freshness", "--max-age", bad)
    assert result.exit_code == 2 and "duration" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("bare", ["30", "1.5", ".5", " 7 "])
def test_freshness_refuses_a_bare_number(mixle: Run, bare: str) -> None:
    # "30" in a cron line is meant as days as often as seconds: read as seconds, every item
    # would be reported stale
    result = mixle("freshness", "--max-age", bare)
    assert result.exit_code == 2 and result.stdout == ""
    assert "a bare number is ambiguous" in result.stderr and "30d" in result.stderr


def test_freshness_refuses_capital_m(mixle: Run) -> None:
    result = mixle("freshness", "--max-age", "6M")
    assert result.exit_code == 2 and result.stdout == ""
    assert "'M' could mean minutes or months" in result.stderr and "30d" in result.stderr


def test_freshness_notices_edited_and_deleted_sources(
    mixle: Run, shard: Substrate, tmp_path: Path
) -> None:
    edited, deleted = tmp_path / "edited.md", tmp_path / "deleted.md"
    for f in (edited, deleted):
        f.write_text(f"original {f.name}")
        past = f.stat().st_mtime - 86400
        os.utime(f, (past, past))
    e = shard.add("text", "e", provenance=ingested(edited))
    d = shard.add("text", "d", provenance=ingested(deleted))
    shard.save()
    assert mixle("freshness").exit_code == 0
    edited.write_text("rewritten after ingest")
    deleted.unlink()
    result = mixle("freshness", "--json")
    assert result.exit_code == 1
    signals = {s["item_id"]: s["signals"] for s in result.json()["stale"]}
    assert signals[e] == [f"changed: content hash of '{edited}' no longer matches ingest"]
    assert signals[d] == [f"moved: referenced path '{deleted}' no longer exists"]


def test_freshness_scope_option(mixle: Run, shard: Substrate, tmp_path: Path) -> None:
    shard.add("text", "gone", scope="ops", provenance={"path": str(tmp_path / "nope")})
    fine = shard.add("text", "fine", scope="public")
    shard.save()
    assert mixle("freshness", "--scope", "public").exit_code == 0
    assert mixle("freshness", "--scope", "ops").exit_code == 1
    # a mistyped scope or team checks nothing and fails (cron must not read it as clean);
    # one the team cannot read is refused
    for command in ("freshness", "audit"):
        mistyped = mixle(command, "--scope", "opps", "--json")
        assert mistyped.exit_code == 1 and mistyped.stdout == ""  # no "ok": true for nothing
        assert "--scope 'opps' matched no item you can read" in mistyped.stderr
        # reads sales and public: public's item is checked, yet a mistyped team must not
        # pass as clean on it
        nobody = mixle("--as", "sales", command)
        assert nobody.exit_code == 1 and nobody.stdout  # the shared scope's report
        assert "as 'sales' and its own scope holds no item (a mistyped team?)" in nobody.stderr
        told = mixle("--as", "sales", command, "--json")  # a script reading JSON is told too
        assert told.exit_code == 1 and told.json()["own_scope_empty"] is True
        assert mixle(command, "--json").json()["own_scope_empty"] is False
        shard.remove(fine)
        shard.save()
        nobody = mixle("--as", "sales", command)
        assert nobody.exit_code == 1 and nobody.stdout == ""  # not "all clean"
        assert "no item is in its scopes (public, sales)" in nobody.stderr
        fine = shard.add("text", "fine", scope="public")
        shard.save()
        refused = mixle("--as", "public", command, "--scope", "ops")
        assert refused.exit_code == 1 and refused.stdout == ""
        assert refused.stderr == (
            "error: you read as 'public' and may not read scope 'ops' (you read: public)\n"
        )
    assert "matched no item" not in mixle("freshness", "--scope", "public").stderr


def test_verify_lineage(mixle: Run, shard: Substrate) -> None:
    a = shard.add("text", "a")
    b = shard.add("text", "b", links=[a])
    c = shard.add("text", "c", links=[b, "feedfacefeedface"])
    shard.save()
    ok = mixle("verify-lineage", b)
    assert ok.exit_code == 0 and ok.stdout.strip() == (
        f"{b}: intact (1 link(s), 2 item(s), depth 1)"
    )
    broken = mixle("verify-lineage", c, "--json")
    assert broken.exit_code == 1
    assert broken.json() == {
        "id": c,
        "item_id": c,
        "intact": False,
        "n_links": 3,
        "dangling": ["feedfacefeedface"],
        "depth": 2,
        "visited": 3,
        "held_by": {"feedfacefeedface": c},
        "unfollowed": 0,
    }
    # intact to the depth asked for: what lies past it is said to be unchecked
    shallow = mixle("verify-lineage", b, "--max-depth", "0")
    assert shallow.exit_code == 0 and "1 link(s) past --max-depth 0 not followed" in shallow.stdout
    assert "dangling link(s) to feedfacefeedface" in mixle("verify-lineage", c).stdout
    d = shard.add("text", "d", links=[c])  # d's own links resolve; c holds the broken one
    shard.save()
    shown = mixle("verify-lineage", d).stdout
    assert f"{d}: broken, dangling link(s) to feedfacefeedface (held by {c})" in shown
    audit = mixle("audit").stdout
    assert f"item {d}: dangling link(s) to feedfacefeedface (held by {c})" in audit
    assert f"item {c}: dangling link(s) to feedfacefeedface\n" in audit
    assert mixle("verify-lineage", c, "--max-depth", "0", "--json").json()["visited"] == 1
    missing = mixle("verify-lineage", "nope")
    assert missing.exit_code == 1 and missing.stderr == "error: no item with id nope\n"
    assert mixle("verify-lineage", c, "--max-depth", "-1").exit_code == 2


def test_audit_flags_an_index_left_from_before_a_compaction(
    mixle: Run, shard: Substrate, isolated_shard_env: Path
) -> None:
    _index_over_a_removed_item(mixle, shard)
    index = isolated_shard_env / "index"
    kept = {p.name: p.read_bytes() for p in index.glob("search*")}
    assert mixle("compact").exit_code == 0
    for name, data in kept.items():  # as when compact could not delete them
        (index / name).write_bytes(data)
    result = mixle("audit")
    assert result.exit_code == 1
    assert "may still hold the words of items no longer in it" in result.stdout
    assert mixle("reindex").exit_code == 0
    assert mixle("audit").exit_code == 0


def test_reindex_cures_a_folder_standing_in_the_place_of_an_index_file(
    mixle: Run, shard: Substrate, isolated_shard_env: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shard.add("text", "base notes")
    shard.save()
    assert mixle("reindex").exit_code == 0
    (segment,) = (isolated_shard_env / "index").glob("search-seg-*.docs.parquet")
    segment.unlink()
    (segment / "made by a sync tool").mkdir(parents=True)
    audit = mixle("audit")
    assert audit.exit_code == 1 and f"index file {segment.name} is damaged" in audit.stdout
    result = mixle("reindex")
    assert result.exit_code == 0, result.stderr
    # (a whole process prints it on stderr as "warning: ...")
    assert f"removed {segment}, a folder in the place of an index file" in caplog.messages
    assert mixle("audit").exit_code == 0


@pytest.mark.parametrize("name", ["offsets.bin", "log-end.json"])
def test_audit_tells_of_a_folder_in_the_place_of_the_catalog_or_the_log_end_note(
    mixle: Run, shard: Substrate, isolated_shard_env: Path, name: str
) -> None:
    shard.add("text", "base notes")
    shard.save()
    shard.checkpoint()
    folder = isolated_shard_env / "index" / name
    folder.unlink()
    (folder / "made by a sync tool").mkdir(parents=True)
    audit = mixle("audit")
    assert audit.exit_code == 1
    assert f"index/{name} is a folder where a file belongs: " in audit.stdout
    assert mixle("reindex").exit_code == 0
    assert not folder.exists()
    assert mixle("audit").exit_code == 0


@pytest.mark.parametrize(
    "name",
    # (source-items.json is left alone by an ingest that journals its change)
    ["log-end.json", "sources.json", "sources.journal", "search-manifest.parquet"],
)
def test_ingest_and_search_go_on_beside_a_folder_in_the_place_of_an_index_file(
    mixle: Run,
    isolated_shard_env: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    name: str,
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("first harbour note\n")
    assert mixle("ingest", str(notes)).exit_code == 0
    assert mixle("search", "harbour").exit_code == 0
    folder = isolated_shard_env / "index" / name
    folder.unlink(missing_ok=True)  # (no journal yet)
    folder.mkdir()
    (notes / "b.md").write_text("second harbour note\n")
    ingest = mixle("ingest", str(notes))
    assert ingest.exit_code == 0, ingest.stderr
    found = mixle("search", "harbour", "--json")
    assert found.exit_code == 0 and len(found.json()["results"]) == 2
    # each warning names the folder and the cure, not "Is a directory" alone
    told = [message for message in caplog.messages if name in message]
    assert told and all(f"{name} is a folder; `mixle reindex` removes it" in m for m in told)
    assert folder.is_dir()  # left to reindex, which audit names


def test_compact_goes_on_beside_a_folder_in_the_place_of_a_search_index_file(
    mixle: Run, shard: Substrate, isolated_shard_env: Path
) -> None:
    _index_over_a_removed_item(mixle, shard)
    folder = isolated_shard_env / "index" / "search-seg-000000000000.docs.parquet"
    folder.mkdir()
    result = mixle("compact")
    assert result.exit_code == 0, result.stderr
    assert not list((isolated_shard_env / "index").glob("search-*.pack"))  # the index went
    assert mixle("audit").exit_code == 1 and mixle("reindex").exit_code == 0
    assert mixle("audit").exit_code == 0


def test_compact_says_how_to_cure_a_folder_in_the_place_of_the_catalog(
    mixle: Run, shard: Substrate, isolated_shard_env: Path
) -> None:
    kept = shard.add("text", "base notes")
    shard.remove(shard.add("text", "reclaimed notes"))
    shard.save()
    folder = isolated_shard_env / "index" / "offsets.bin"
    folder.mkdir()
    result = mixle("compact")
    assert result.exit_code == 3
    assert result.stderr.startswith(
        f"error: cannot write catalog {folder}: offsets.bin is a folder; "
        "`mixle reindex` removes it (after the change was saved)\n"
    )
    assert [item["id"] for item in mixle("ls", "--json").json()] == [kept]
    assert mixle("reindex").exit_code == 0 and mixle("compact").exit_code == 0


def test_reindex_says_which_folder_to_remove_when_it_cannot(
    mixle: Run, shard: Substrate, isolated_shard_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import shutil

    shard.add("text", "base notes")
    shard.save()
    manifest = isolated_shard_env / "index" / "search-manifest.parquet"
    manifest.mkdir(parents=True)

    def busy(path: object, *args: object, **kwargs: object) -> None:
        raise OSError(errno.EBUSY, "Device or resource busy", str(path))  # a mount point

    monkeypatch.setattr(shutil, "rmtree", busy)
    result = mixle("reindex")
    assert result.exit_code == 3
    assert result.stderr == (
        f"error: cannot remove {manifest}, a folder in the place of an index file "
        "(Device or resource busy); remove it: index/ holds only files rebuilt from the log\n"
    )  # and no hint to run `audit`, which would send the user back to `reindex`


def test_audit_names_a_segment_whose_footer_has_a_flipped_byte_until_a_reindex(
    mixle: Run, shard: Substrate, isolated_shard_env: Path
) -> None:
    import re

    shard.add("text", "base notes")
    shard.save()
    assert mixle("reindex").exit_code == 0
    (segment,) = (isolated_shard_env / "index").glob("search-seg-*.docs.parquet")
    data = bytearray(segment.read_bytes())
    digit = re.search(rb'"watermark": \["[0-9a-f]+", (\d)', data)  # the log offset covered
    assert digit is not None
    data[digit.start(1)] ^= 0x01
    segment.write_bytes(bytes(data))
    audit = mixle("audit")
    assert audit.exit_code == 1
    assert (
        f"index file {segment.name} is damaged (index metadata failing its checksum); "
        "run `mixle reindex`" in audit.stdout
    )
    assert mixle("reindex").exit_code == 0
    assert mixle("audit").exit_code == 0


@pytest.mark.parametrize(
    "removed", [("*.docs.parquet",), ("*.terms.parquet", "*.pack")], ids=["docs", "terms+pack"]
)
def test_audit_names_each_file_the_manifest_names_that_is_missing_until_a_reindex(
    mixle: Run, shard: Substrate, isolated_shard_env: Path, removed: tuple[str, ...]
) -> None:
    shard.add("text", "base notes")
    shard.save()
    assert mixle("reindex").exit_code == 0
    index = isolated_shard_env / "index"
    gone = [path for pattern in removed for path in index.glob(f"search-seg-{pattern}")]
    assert gone
    for path in gone:
        path.unlink()
    audit = mixle("audit")
    assert audit.exit_code == 1
    for path in gone:
        assert (
            f"index file {path.name} is missing, though the index's manifest names it; "
            "run `mixle reindex`" in audit.stdout
        )
    status = mixle("status", "--json")
    assert status.exit_code == 0
    assert status.json()["index"]["state"] == "stale"  # not fresh: a search must rebuild it
    reason = status.json()["index"]["reason"]
    assert f"({reason}: the next search rebuilds it)" in mixle("status").stdout  # and why
    assert mixle("reindex").exit_code == 0
    assert mixle("audit").exit_code == 0


def test_a_link_holding_a_line_break_cannot_forge_a_line_of_a_report(mixle, tmp_path: Path) -> None:
    # written before links were checked: read as it is, shown on one line
    shard = tmp_path / "shard"
    shard.mkdir()
    record = {
        "id": "a1",
        "kind": "text",
        "text": "x",
        "scope": "local",
        "tags": ["one\ntwo"],
        "links": ["gone\nAUDIT: OK forged", "gone\u2028forged too"],
    }
    (shard / "items.jsonl").write_bytes(orjson.dumps(record) + b"\n")
    for args in (["audit"], ["verify-lineage", "a1"], ["get", "a1"]):
        shown = mixle("--shard", str(shard), *args).stdout
        lines = shown.splitlines()
        assert not any(line.startswith(("AUDIT", "forged", "two")) for line in lines), args


def test_an_id_or_scope_holding_a_line_break_cannot_forge_a_line_of_any_listing(
    mixle, tmp_path: Path
) -> None:
    shard = tmp_path / "shard"
    shard.mkdir()
    records = [
        {"id": "nl\nFORGED 0 problem(s)", "kind": "text", "text": "marmot with a newline id"},
        {"id": "s1", "kind": "text", "text": "marmot of a bad scope", "scope": "local\nFORGED"},
    ]
    lines = [orjson.dumps({"scope": "local", **record}) + b"\n" for record in records]
    (shard / "items.jsonl").write_bytes(b"".join(lines))
    for args in (
        ["search", "marmot"],
        ["retrieve", "marmot"],
        ["multihop", "marmot"],
        ["ask", "which marmot has a newline id"],
        ["verify", "marmot with a newline id"],
        ["status"],
    ):
        shown = mixle("--shard", str(shard), *args).stdout
        assert not any(line.startswith("FORGED") for line in shown.splitlines()), args


def test_freshness_finds_a_link_a_re_ingest_broke_and_says_what_to_do(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "policy.md").write_text("# Policy\n\nRefunds take 5 days.\n", encoding="utf-8")
    assert mixle("ingest", str(notes)).exit_code == 0
    (section,) = [row["id"] for row in mixle("ls", "--jsonl").jsonl()]
    analysis = mixle("add", "my analysis", "--link", section, "--json").json()["id"]
    (notes / "policy.md").write_text("# Policy\n\nRefunds take 7 days.\n", encoding="utf-8")
    assert mixle("ingest", str(notes)).exit_code == 0  # the section has a new id
    result = mixle("freshness")
    assert result.exit_code == 1
    assert f"unlinked: links to '{section}', removed or replaced" in result.stdout
    assert analysis in result.stdout
    assert "hint: `mixle verify-lineage ID` shows an item's links" in result.stderr
    (notes / "policy.md").unlink()
    hints = mixle("freshness").stderr
    assert hints.index("hint: `mixle ingest` the folders") < hints.index("verify-lineage")
    assert "a folder left empty keeps its items until ingested with --prune-empty" in hints
    pruned = mixle("ingest", str(notes), "--prune-empty")  # as the hint says: then fresh
    assert pruned.exit_code == 0, pruned.stderr
    after = mixle("freshness").stdout
    assert "unlinked:" in after and "moved:" not in after


def test_a_mistyped_team_is_told_beside_stale_shared_items(
    mixle: Run, shard: Substrate, tmp_path: Path
) -> None:
    # cron reading as a team that does not exist sees the shared scopes' stale items: the
    # report is not what the line meant to check, and it must say so, not pass as a report
    gone = tmp_path / "nope"
    shard.add("text", "gone", scope="public", provenance={"path": str(gone)}, links=["f" * 16])
    shard.save()
    for command in ("freshness", "audit"):
        result = mixle("--as", "opps", command)
        assert result.exit_code == 1 and result.stdout  # the report, then why
        assert "as 'opps' and its own scope holds no item (a mistyped team?)" in result.stderr


def test_freshness_counts_each_signal_and_says_how_to_refresh_a_published_copy(
    mixle: Run, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "retry.md").write_text("# Retry\n\nWe retry three times.\n")
    (notes / "gone.md").write_text("# Gone\n\nSoon gone.\n")
    assert mixle("ingest", str(notes), "-q").exit_code == 0
    ids = {row["title"]: row["id"] for row in mixle("ls", "--jsonl").jsonl()}
    assert mixle("publish", ids["Retry"], "--to", "public").exit_code == 0
    (notes / "retry.md").write_text("# Retry\n\nWe retry five times.\n")
    (notes / "gone.md").unlink()
    result = mixle("freshness")
    assert result.exit_code == 1
    assert result.stdout.startswith("2 of 2 item(s) stale (1 changed, 1 moved)\n")
    assert f"published item(s) {ids['Retry']} keep the text they were published" in result.stderr
    assert mixle("ingest", str(notes), "-q").exit_code == 0  # what the first hint suggests
    again = mixle("freshness")  # the copy stays as published: only a merge brings it on
    assert again.stdout.startswith("1 of 2 item(s) stale (1 changed)\n")
    assert "mixle merge PUBLISHED NEW --prefer other" in again.stderr
    assert "`mixle ingest` the folders" not in again.stderr  # which would change nothing
    # its file removed, the copy stays on every run: an ingest, which the hint said, does not
    # remove a published item
    (notes / "retry.md").unlink()
    (notes / "other.md").write_text("# Other\n\nStill here.\n")
    assert mixle("ingest", str(notes), "-q").exit_code == 0
    gone = mixle("freshness")
    assert gone.stdout.startswith("1 of 2 item(s) stale (1 moved)\n"), gone.stdout
    assert f"published item(s) {ids['Retry']} stay though their file was moved or removed" in (
        gone.stderr
    )
    assert "`mixle ingest` the folders" not in gone.stderr


def test_freshness_names_the_explicit_form_that_stored_an_item_not_ingest(
    mixle: Run, tmp_path: Path
) -> None:
    registry = tmp_path / "registry"
    (registry / "orca").mkdir(parents=True)
    manifest = registry / "orca" / "manifest.json"
    manifest.write_text('{"kind": "model", "meta": {"mmlu": 0.61}}')
    traces = tmp_path / "runs.jsonl"
    traces.write_text('{"input": "q", "answer": "a"}\n')
    assert mixle("ingest-artifacts", str(registry), "-q").exit_code == 0
    assert mixle("ingest-traces", str(traces), "-q").exit_code == 0
    ids = {row["kind"]: row["id"] for row in mixle("ls", "--jsonl").jsonl()}
    manifest.write_text('{"kind": "model", "meta": {"mmlu": 0.63}}')
    traces.write_text('{"input": "q", "answer": "b"}\n')
    result = mixle("freshness")
    assert result.exit_code == 1
    assert f"item(s) {ids['artifact']} were stored by `mixle ingest-artifacts`" in result.stderr
    assert f"item(s) {ids['trace']} were stored by `mixle ingest-traces`" in result.stderr
    assert "`mixle ingest` the folders" not in result.stderr  # it would store them again


def test_audit_json_names_holders_by_id_only(mixle: Run, shard: Substrate) -> None:
    # read as a team, a link that leads nowhere it can see is named by no id (gone, or in a
    # scope it cannot read): no key of held_by is the sentence standing for it
    gone = "feedfacefeedface"
    a = shard.add("text", "links to an item gone", scope="ops", links=[gone])
    shard.save()
    [entry] = mixle("--as", "ops", "audit", "--json").json()["lineage"]["broken"]
    assert entry["item_id"] == a and gone not in entry["dangling"]
    assert entry["held_by"] == {}


def test_verify_lineage_follows_every_link_by_default(mixle: Run, shard: Substrate) -> None:
    # a chain longer than the library's default depth of 20 broken at its far end: the
    # command's "intact" had passed it for sound, where `mixle audit` found it broken
    previous = shard.add("text", "the far end", links=["feedfacefeedface"])
    for n in range(25):
        previous = shard.add("text", f"link {n}", links=[previous])
    shard.save()
    result = mixle("verify-lineage", previous)
    assert result.exit_code == 1 and "dangling link(s) to feedfacefeedface" in result.stdout
    limited = mixle("verify-lineage", previous, "--max-depth", "20")
    assert limited.exit_code == 0 and "past --max-depth 20 not followed" in limited.stdout


def test_audit_names_the_holder_each_broken_item_leads_to(mixle: Run, shard: Substrate) -> None:
    # two items hold a link to a removed hub; a third leads to it through one of them: each
    # is told of its own holder, not of every item holding that link (which grew with the
    # square of the holders)
    hub = "feedfacefeedface"
    x = shard.add("text", "x", links=[hub])
    y = shard.add("text", "y", links=[hub])
    z = shard.add("text", "z", links=[x])
    shard.save()
    result = mixle("audit")
    assert f"item {z}: dangling link(s) to {hub} (held by {x})\n" in result.stdout
    assert f"item {y}: dangling link(s) to {hub}\n" in result.stdout
    held = {
        b["item_id"]: b["held_by"] for b in mixle("audit", "--json").json()["lineage"]["broken"]
    }
    assert held == {x: {hub: [x]}, y: {hub: [y]}, z: {hub: [x]}}
    assert mixle("verify-lineage", z, "--json").json()["held_by"] == {hub: x}


def test_freshness_finds_a_docs_file_holding_a_secret_replaced(mixle: Run, tmp_path: Path) -> None:
    # its hash is withheld (it would confirm a guess of the password): its size and time
    # tell the change instead, where nothing did and every item passed for fresh
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        '{"text": "The wiki password: Sup3rSecretValue99 is rotated monthly"}\n'
        '{"text": "Apples are red"}\n'
    )
    assert mixle("ingest-docs", str(docs), "-q").exit_code == 0
    assert mixle("freshness").exit_code == 0
    docs.write_text('{"text": "Pears are green"}\n')
    result = mixle("freshness")
    assert result.exit_code == 1 and "2 of 2 item(s) stale (2 changed)" in result.stdout
    assert "were stored by `mixle ingest-docs`" in result.stderr


@pytest.mark.parametrize("command", ["ingest-docs", "ingest-file", "ingest-traces"])
def test_freshness_finds_the_explicit_forms_items_of_a_log_appended_to_fresh(
    mixle: Run, tmp_path: Path, command: str
) -> None:
    # their lines are as they were read: as for `mixle ingest`, not every item "changed"
    log = tmp_path / "log.jsonl"
    log.write_text('{"text": "first", "input": "q1", "answer": "a1"}\n')
    assert mixle(command, str(log), "-q").exit_code == 0
    with log.open("a") as fh:
        fh.write('{"text": "second", "input": "q2", "answer": "a2"}\n')
    assert mixle("freshness").stdout == "all 1 item(s) fresh\n"
    log.write_text('{"text": "first!", "input": "q1", "answer": "a1"}\n')
    assert mixle("freshness").exit_code == 1


@pytest.mark.parametrize("command", ["ingest-docs", "ingest-file", "ingest-traces"])
def test_the_explicit_forms_write_only_the_lines_appended_to_a_log(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path, command: str
) -> None:
    # every earlier line was written again at each run, the log growing by the whole file
    log = tmp_path / "log.jsonl"
    rows = [f'{{"text": "line {n}", "input": "q{n}", "answer": "a{n}"}}\n' for n in range(4)]
    log.write_text("".join(rows[:2]))
    assert mixle(command, str(log), "-q").exit_code == 0
    for grown in (3, 4):
        log.write_text("".join(rows[:grown]))
        report = mixle(command, str(log), "--json").json()
        assert (report["items_added"], report["items_rewritten"]) == (1, 0)
    assert mixle("freshness").stdout == "all 4 item(s) fresh\n"
    stored = (isolated_shard_env / "items.jsonl").read_text().splitlines()
    assert sum(line.startswith('{"id"') for line in stored) == 4
    log.write_text("".join(rows).replace("line 0", "line zero"))  # changed: written again
    report = mixle(command, str(log), "--json").json()
    assert report["items_added"] == 1 and report["items_rewritten"] == 3


def test_ingest_file_writes_only_the_rows_appended_to_a_table(mixle: Run, tmp_path: Path) -> None:
    table = tmp_path / "prices.csv"  # (large enough for its delimiter to be settled)
    table.write_text("sku,price\n" + "".join(f"P-{n},{n}.50\n" for n in range(20_000)))
    assert mixle("ingest-file", str(table), "-q").exit_code == 0
    with table.open("a") as fh:
        fh.write("P-new,3.50\n")
    report = mixle("ingest-file", str(table), "--json").json()
    assert (report["items_added"], report["items_rewritten"]) == (1, 0)
    assert mixle("freshness").stdout == "all 20001 item(s) fresh\n"


def test_ingest_traces_leaves_a_row_being_written_for_later(mixle: Run, tmp_path: Path) -> None:
    log = tmp_path / "runs.jsonl"
    log.write_text('{"input": "q1", "answer": "a1"}\n')
    assert mixle("ingest-traces", str(log), "-q").exit_code == 0
    with log.open("a") as fh:
        fh.write('{"input": "q2", "ans')  # (its writer is still at it)
    half = mixle("ingest-traces", str(log), "--json")
    assert half.exit_code == 0 and half.json()["files_failed"] == 0
    with log.open("a") as fh:
        fh.write('wer": "a2"}\n')
    report = mixle("ingest-traces", str(log), "--json").json()
    assert (report["items_added"], report["items_rewritten"]) == (1, 0)
    assert mixle("freshness").stdout == "all 2 item(s) fresh\n"


def test_a_freshness_hint_names_a_few_of_many_items(mixle: Run, tmp_path: Path) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(f'{{"text": "line {n}"}}\n' for n in range(12)))
    assert mixle("ingest-docs", str(docs), "-q").exit_code == 0
    docs.write_text('{"text": "all new"}\n')
    hint = mixle("freshness").stderr
    assert "and 7 more were stored by `mixle ingest-docs`" in hint
    assert len(re.findall(r"\b[0-9a-f]{16}\b", hint)) == 5


def test_freshness_lists_stale_items_by_file_whatever_the_store_order(
    mixle: Run, tmp_path: Path
) -> None:
    # in store order, an item a re-ingest rewrote moved to the end: runs from cron did not
    # diff line by line
    for name in ("b.md", "a.md"):
        (tmp_path / name).write_text(f"# {name}\n\nFirst text.\n")
        assert mixle("ingest", str(tmp_path / name), "-q").exit_code == 0
    for name in ("a.md", "b.md"):
        (tmp_path / name).write_text(f"# {name}\n\nSecond text.\n")
    rows = mixle("freshness", "--jsonl").jsonl()
    assert [Path(row["ref"]).name for row in rows] == ["a.md", "b.md"]


def test_freshness_as_another_team_tells_no_step_it_cannot_take(mixle: Run, tmp_path: Path) -> None:
    # research was told to publish platform's file's new item and merge: it would be refused
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "retry.md").write_text("# Retry\n\nWe retry three times.\n")
    assert mixle("--as", "platform", "ingest", str(notes), "-q").exit_code == 0
    [item] = mixle("--as", "platform", "ls", "--jsonl").jsonl()
    assert mixle("--as", "platform", "publish", item["id"], "--to", "public").exit_code == 0
    (notes / "retry.md").write_text("# Retry\n\nWe retry five times.\n")
    theirs = mixle("--as", "research", "freshness")
    assert theirs.exit_code == 1 and "ingested into a scope other than your team's" in (
        theirs.stderr
    )
    assert "mixle merge" not in theirs.stderr
    own = mixle("--as", "platform", "freshness")
    assert "mixle merge PUBLISHED NEW --prefer other" in own.stderr
