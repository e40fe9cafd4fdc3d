"""`mixle search` and `mixle reindex`, and the index section of `mixle status`."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mixle_cli.commands import search as search_commands
from substrate.item import SubstrateItem
from substrate.retrieval import retrieve
from substrate.search.index_files import MANIFEST
from substrate.search.params import FORMAT_VERSION
from substrate.store import Substrate

Run = Callable[..., Any]
NOW = time.time()
OLD = NOW - 400 * 86400  # more than a year ago


def put(shard: Path, *items: SubstrateItem) -> list[str]:
    store = Substrate(shard)
    ids = [store.put(item) for item in items]
    store.save()
    store.close()
    return ids


@pytest.fixture
def filled(isolated_shard_env: Path) -> dict[str, str]:
    ids = put(
        isolated_shard_env,
        SubstrateItem(
            "text",
            "Refunds: the refund policy allows returns within 30 days of purchase.",
            id="a" * 16,
            tags=["policy", "billing"],
            provenance={"source": "docs/policy.md", "line_start": 3, "line_end": 7},
            created_at=NOW - 3600,
        ),
        SubstrateItem(
            "record",
            payload={"title": "Refund ledger", "owner": "alice", "note": "refund issued"},
            id="b" * 16,
            tags=["billing"],
            provenance={"source": "ledger/2023.csv"},
            created_at=OLD,
        ),
        SubstrateItem(
            "text",
            "Shipping takes five days; refunds for damaged parcels are quick.",
            id="c" * 16,
            tags=["shipping"],
            provenance={"path": "/abs/notes/shipping.md"},
            created_at=NOW - 10 * 86400,
        ),
        SubstrateItem("text", "An unrelated note about zeppelins.", id="d" * 16),
    )
    return dict(zip(("policy", "ledger", "shipping", "zeppelin"), ids, strict=True))


def ids_of(result: Any) -> list[str]:
    return [row["id"] for row in result.json()["results"]]


# -- results ------------------------------------------------------------------------------------


def test_json_results_carry_ranking_snippet_and_provenance(
    mixle: Run, filled: dict[str, str]
) -> None:
    result = mixle("search", "refund policy", "--json")
    assert result.exit_code == 0, result.stderr
    data = result.json()
    assert data["query"] == "refund policy"
    rows = data["results"]
    assert rows[0]["id"] == filled["policy"]
    top = rows[0]
    assert set(top) >= {
        "rank", "id", "kind", "scope", "score", "title", "snippet", "snippet_spans", "matches",
        "source", "line_start", "line_end", "tags", "created_at",
    }  # fmt: skip
    assert top["rank"] == 1 and top["kind"] == "text" and top["scope"] == "local"
    assert 0 < top["score"] <= 1 and [r["score"] for r in rows] == sorted(
        (r["score"] for r in rows), reverse=True
    )
    assert (top["source"], top["line_start"], top["line_end"]) == ("docs/policy.md", 3, 7)
    assert top["where"] == "docs/policy.md:3-7"  # as ask's citations say it
    assert top["title"].startswith("Refunds: the refund policy")
    assert {m.lower() for m in top["matches"]} == {"refunds", "refund", "policy"}
    assert [top["snippet"][a:b] for a, b in top["snippet_spans"]] == [
        "Refunds", "refund", "policy",
    ]  # fmt: skip
    ledger = next(r for r in rows if r["id"] == filled["ledger"])
    assert ledger["title"] == "Refund ledger" and "refund" in ledger["snippet"]
    shipping = next(r for r in rows if r["id"] == filled["shipping"])
    assert shipping["source"] == "/abs/notes/shipping.md" and shipping["line_start"] is None
    assert "explain" not in top
    assert result.stderr == ""


def test_jsonl_is_one_result_per_line(mixle: Run, filled: dict[str, str]) -> None:
    whole = ids_of(mixle("search", "refund", "--json"))
    lines = mixle("search", "refund", "--jsonl")
    assert lines.exit_code == 0
    assert [row["id"] for row in lines.jsonl()] == whole and len(whole) == 3
    assert mixle("search", "refund", "--json", "--jsonl").exit_code == 2


def test_text_output_names_where_each_result_came_from(mixle: Run, filled: dict[str, str]) -> None:
    result = mixle("search", "refund policy", "-k", "2")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    rank, score, kind, item_id, where = lines[0].split()
    assert (rank, kind, item_id, where) == ("1", "text", filled["policy"], "docs/policy.md:3-7")
    assert 0 < float(score) <= 1
    assert any("refund policy allows returns" in line for line in lines)
    assert "\x1b[" not in result.stdout  # no colour codes when stdout is not a terminal
    assert result.stdout.count(" text ") + result.stdout.count(" record ") == 2


def test_k_limits_and_min_score_filters(mixle: Run, filled: dict[str, str]) -> None:
    assert len(ids_of(mixle("search", "refund", "-k", "1", "--json"))) == 1
    scores = [r["score"] for r in mixle("search", "refund", "--json").json()["results"]]
    cut = (scores[0] + scores[-1]) / 2
    kept = mixle("search", "refund", "--min-score", str(cut), "--json").json()["results"]
    assert kept and all(r["score"] >= cut for r in kept) and len(kept) < len(scores)
    assert mixle("search", "refund", "--min-score", "1.5").exit_code == 2
    assert mixle("search", "refund", "-k", "0").exit_code == 2


def test_explain_shows_each_channel(mixle: Run, filled: dict[str, str]) -> None:
    rows = mixle("search", "refund policy", "--explain", "--json").json()["results"]
    explain = rows[0]["explain"]
    for key in ("bm25", "bm25_norm", "cosine", "lexical_part", "semantic_part", "coverage"):
        assert key in explain
    assert explain["lexical_part"] + explain["semantic_part"] == pytest.approx(explain["fused"])
    assert explain["score"] == pytest.approx(rows[0]["score"], abs=1e-4)
    text = mixle("search", "refund policy", "--explain")
    assert "lexical" in text.stdout and "coverage" in text.stdout


def test_an_explained_flag_says_what_it_did() -> None:
    from mixle_cli.commands.search import _explain_line

    parts = {"lexical_part": 1.0, "bm25": 2.0, "bm25_norm": 1.0, "semantic_weight": 0.0}
    parts |= {"fused": 1.0, "coverage": 1.0, "semantic_min_items": 50.0, "live_items": 12.0}
    line = _explain_line(parts | {"feedback": 1.0})
    assert line.endswith("x query coverage 1.00; query expanded with feedback terms")
    # and why the semantic channel is off
    assert "semantic off (12 items; an embedding is learned from 50)" in line
    assert "semantic off (the search is confined" in _explain_line(parts | {"confined": 1.0})
    few_words = _explain_line(parts | {"live_items": 80.0})
    assert "semantic off (too few words recur" in few_words


# -- filters ------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [("search", "refund"), ("ls",)])
@pytest.mark.parametrize(("tag", "said"), [("", "is empty"), (" billing", "white space")])
def test_an_empty_or_padded_tag_filter_is_refused(
    mixle: Run, filled: dict[str, str], command: tuple[str, ...], tag: str, said: str
) -> None:
    result = mixle(*command, "--tag", tag, "--json")  # a variable left unset: not "no match"
    assert result.exit_code == 2 and said in result.stderr and result.stdout == ""


def test_kind_tag_and_source_filters(mixle: Run, filled: dict[str, str]) -> None:
    assert ids_of(mixle("search", "refund", "--kind", "record", "--json")) == [filled["ledger"]]
    assert ids_of(mixle("search", "refund", "-K", "Record", "--json")) == [filled["ledger"]]
    billing = set(ids_of(mixle("search", "refund", "--tag", "billing", "--json")))
    assert billing == {filled["policy"], filled["ledger"]}
    assert set(ids_of(mixle("search", "refund", "--tag", "BILLING", "--json"))) == billing
    both = ids_of(mixle("search", "refund", "--tag", "billing", "--tag", "policy", "--json"))
    assert both == [filled["policy"]]
    assert ids_of(mixle("search", "refund", "--source", "docs", "--json")) == [filled["policy"]]
    assert ids_of(mixle("search", "refund", "--source", "/abs/notes", "--json")) == [
        filled["shipping"]
    ]
    assert ids_of(mixle("search", "refund", "--source", "doc", "--json")) == []
    assert mixle("search", "refund", "--kind", "video").exit_code == 2


def test_a_tag_is_found_with_its_hash_and_through_the_tags_nested_under_it(
    mixle: Run, isolated_shard_env: Path
) -> None:
    ids = put(
        isolated_shard_env,
        SubstrateItem("text", "alpha kickoff notes", tags=["project/alpha"]),
        SubstrateItem("text", "beta kickoff notes", tags=["#project/beta"]),
        SubstrateItem("text", "projector kickoff notes", tags=["projector"]),
    )

    def found(*args: str) -> set[str]:
        data = mixle(*args, "--json").json()
        return {row["id"] for row in (data["results"] if isinstance(data, dict) else data)}

    for command in (("search", "kickoff"), ("ls",)):
        assert found(*command, "--tag", "project") == set(ids[:2]), command  # not "projector"
        assert found(*command, "--tag", "#Project/Alpha") == set(ids[:1]), command
        assert found(*command, "--tag", "project/beta") == set(ids[1:2]), command
        assert found(*command, "--tag", "project/") == set(ids[:2]), command


@pytest.mark.parametrize("kinds", [("-K", "record", "-K", "text"), ("--kind", "record, text")])
def test_several_kinds_are_all_searched(
    mixle: Run, filled: dict[str, str], kinds: tuple[str, ...]
) -> None:
    data = mixle("search", "refund", *kinds, "--json").json()
    assert data["n"] == len(data["results"]) == 3
    found = set(ids_of(mixle("search", "refund", *kinds, "--json")))
    assert found == {filled["policy"], filled["ledger"], filled["shipping"]}  # not one kind
    assert mixle("search", "refund", "-K", "text", "-K", "video").exit_code == 2
    assert mixle("search", "refund", "-K", ",").exit_code == 2


def test_time_filters_take_durations_and_dates(mixle: Run, filled: dict[str, str]) -> None:
    recent = set(ids_of(mixle("search", "refund", "--since", "7d", "--json")))
    assert recent == {filled["policy"]}
    month = set(ids_of(mixle("search", "refund", "--since", "30d", "--json")))
    assert month == {filled["policy"], filled["shipping"]}
    older = ids_of(mixle("search", "refund", "--until", "30d", "--json"))
    assert older == [filled["ledger"]]
    day = time.strftime("%Y-%m-%d", time.gmtime(OLD))
    assert ids_of(mixle("search", "refund", "--since", day, "--until", day, "--json")) == [
        filled["ledger"]
    ]
    assert mixle("search", "refund", "--since", "yesterday").exit_code == 2
    for bare in ("2024", "1714521600", "7"):  # a year, a Unix time or seconds: not guessed
        ambiguous = mixle("search", "refund", "--since", bare)
        assert ambiguous.exit_code == 2 and "a bare number is ambiguous" in ambiguous.stderr
    for month in ("1M", "1y"):  # not a fixed length: written in days, with the reason why
        refused = mixle("search", "refund", "--since", month)
        assert refused.exit_code == 2 and "--since: bad duration" in refused.stderr
        assert "30d" in refused.stderr
    assert set(ids_of(mixle("search", "refund", "--since", "10080min", "--json"))) == recent
    late = mixle("search", "refund", "--since", "1d", "--until", "30d")
    assert late.exit_code == 2 and "later than" in late.stderr


# -- empty, stopwords, nothing found ------------------------------------------------------------


def test_empty_query_is_a_usage_error(mixle: Run, filled: dict[str, str]) -> None:
    for query in ("", "   "):
        result = mixle("search", query)
        assert result.exit_code == 2 and "empty" in result.stderr
    assert mixle("search").exit_code == 2


def test_stopword_query_finds_nothing_with_a_hint(mixle: Run, filled: dict[str, str]) -> None:
    result = mixle("search", "the and of what", "--json")
    assert result.exit_code == 0
    assert result.json() == {"query": "the and of what", "n": 0, "more": False, "results": []}
    assert "hint:" in result.stderr and "very common or very short words" in result.stderr
    assert mixle("search", "the").stdout == ""
    punctuation = mixle("search", "!!!???")
    assert punctuation.exit_code == 0 and "no words, only punctuation" in punctuation.stderr
    symbols = mixle("search", "\U0001f680")  # an emoji is no word either
    assert symbols.exit_code == 0 and "only punctuation or symbols" in symbols.stderr


@pytest.mark.parametrize("query", ['"refund policy"', "tag:billing refund", "refund OR returns"])
def test_operators_of_other_tools_are_said_to_be_words(
    mixle: Run, filled: dict[str, str], query: str
) -> None:
    result = mixle("search", "--", query)
    assert result.exit_code == 0 and "a" * 16 in result.stdout
    assert "are not operators" in result.stderr
    commands = ("rm -rf refund", "ls -la refund", "python3 -m refund")  # (notes of commands)
    for plain in ("refund policy", "e-mail refund", "404 NOT FOUND", "-5 refund", *commands):
        assert "operators" not in mixle("search", "--", plain).stderr, plain


def test_results_all_under_min_score_are_told_apart_from_none(
    mixle: Run, filled: dict[str, str]
) -> None:
    result = mixle("search", "refund xylophone", "--min-score", "1")  # (a word no item holds)
    assert result.exit_code == 0 and result.stdout == ""
    assert "no result scored at least 1; the best scored 0." in result.stderr
    as_json = mixle("search", "refund xylophone", "--min-score", "1", "--json").json()
    assert "did_you_mean" not in as_json  # (its words are spelt as stored)
    assert "no matching items" in mixle("search", "xylophone", "--min-score", "0.5").stderr


def test_no_results_is_exit_zero_with_a_note(mixle: Run, filled: dict[str, str]) -> None:
    result = mixle("search", "xylophone")
    assert result.exit_code == 0 and result.stdout == ""
    assert "no matching items" in result.stderr
    empty = mixle("search", "xylophone", "--jsonl")
    assert empty.exit_code == 0 and empty.stdout == ""


def test_no_results_for_a_misspelt_word_says_the_word_meant(
    mixle: Run, filled: dict[str, str]
) -> None:
    result = mixle("search", "shiping")
    assert result.exit_code == 0 and result.stdout == ""
    assert "no matching items; did you mean: Shipping" in result.stderr
    assert mixle("search", "shiping", "--json").json()["did_you_mean"] == "Shipping"
    assert "did_you_mean" not in mixle("search", "xylophone", "--json").json()


def test_reading_a_shard_that_does_not_exist_is_an_error(
    mixle: Run, isolated_shard_env: Path
) -> None:
    # a mistyped --shard in a cron line must not look like a healthy, empty shard
    for args in (
        ["search", "anything", "--json"],
        ["search", "the"],
        ["ls"],
        ["status", "--json"],
        ["freshness"],
        ["audit", "--json"],
        ["ask", "anything"],
        ["scan-secrets", "--items"],
    ):
        result = mixle(*args)
        assert result.exit_code == 3, args
        assert result.stdout == "" and f"no shard at {isolated_shard_env}" in result.stderr
        assert "`mixle init` makes one in this folder (./.mixle)" in result.stderr
    assert not isolated_shard_env.exists()  # reading created nothing
    mixle("init")
    assert mixle("search", "anything", "--json").json()["results"] == []


def test_a_shard_path_that_is_a_file_is_named_as_such(mixle: Run, tmp_path: Path) -> None:
    plain = tmp_path / "notes.txt"
    plain.write_text("not a shard\n")
    for args in (["ls"], ["add", "x"], ["ingest", str(tmp_path)]):  # writes too: no "creates it"
        result = mixle("--shard", str(plain), *args)
        assert result.exit_code == 3 and "is a file, not a shard folder" in result.stderr, args
        assert "first write creates it" not in result.stderr
    assert plain.read_text() == "not a shard\n"


def test_a_folder_of_other_files_is_not_made_a_shard(mixle: Run, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nmine\n")
    for args in (["add", "x"], ["ingest", str(notes)], ["init"]):
        result = mixle("--shard", str(notes), *args)
        assert result.exit_code == 3, args
        assert "holds other files (a.md) and is no shard" in result.stderr, args
        assert f"did you mean {notes / '.mixle'}?" in result.stderr
    assert sorted(p.name for p in notes.iterdir()) == ["a.md"]  # nothing written among them
    empty = tmp_path / "empty"
    empty.mkdir()
    assert mixle("--shard", str(empty), "add", "x").exit_code == 0
    # hidden files count for nothing: a repository to keep the shard in, what a first write
    # cut short left behind; nor does a new disk's lost+found
    kept = tmp_path / "kept"
    (kept / ".git").mkdir(parents=True)
    (kept / "lost+found").mkdir()
    for name in (".gitignore", ".lock", ".mixle.toml.123-456.tmp", ".DS_Store"):
        (kept / name).write_text("")
    assert mixle("--shard", str(kept), "add", "x").exit_code == 0


def test_a_shard_path_that_is_not_utf8_is_refused_before_anything_is_written(
    mixle: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "where").mkdir()
    shard = os.fsdecode(os.fsencode(str(tmp_path / "where")) + b"/x\xffshard")
    monkeypatch.setenv("MIXLE_SHARD", shard)
    for args in (["add", "x"], ["init"]):
        result = mixle(*args)
        assert result.exit_code == 2, args
        assert "x\\xffshard' is not valid UTF-8" in result.stderr, args
        assert "first write creates it" not in result.stderr
    assert os.listdir(tmp_path / "where") == []
    result = mixle("search", "x")  # none there: said with the name readable
    assert result.exit_code == 3 and "no shard at " in result.stderr
    assert "x\\xffshard\n" in result.stderr
    # a folder of files at such a path: the path is what is said, with its exit code
    os.makedirs(shard)
    open(os.path.join(shard, "n.md"), "w").close()
    result = mixle("add", "x")
    assert result.exit_code == 2 and "is not valid UTF-8" in result.stderr


def test_a_shard_an_earlier_mixle_made_at_a_path_not_utf8_is_read_as_ever(
    mixle: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shard = os.fsdecode(os.fsencode(str(tmp_path)) + b"/old\xffshard")
    os.makedirs(shard)
    with open(os.path.join(shard, "items.jsonl"), "wb") as log:  # as an earlier mixle wrote it
        log.write(b'{"id":"a1","kind":"text","text":"otters swim","scope":"local"}\n')
    monkeypatch.setenv("MIXLE_SHARD", shard)
    assert mixle("ls", "--json").json()[0]["id"] == "a1"
    assert mixle("add", "more").exit_code == 0
    for args in (["search", "otters"], ["reindex"]):
        result = mixle(*args)
        assert result.exit_code == 3 and "no search index can be kept there" in result.stderr
        assert "audit" not in result.stderr


def test_a_write_may_create_the_shard_and_says_so(mixle: Run, isolated_shard_env: Path) -> None:
    result = mixle("add", "first note")
    assert result.exit_code == 0 and "the first write creates it" in result.stderr
    assert "creates it" not in mixle("add", "second note").stderr


def test_a_quiet_ingest_does_not_say_it_creates_the_shard(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    (tmp_path / "a.md").write_text("# A\n\nSome text.\n")
    (tmp_path / "a.jsonl").write_text('{"text": "Some text."}\n')
    for command, name in (("ingest", "a.md"), ("ingest-docs", "a.jsonl")):
        result = mixle(command, str(tmp_path / name), "--quiet")  # problems only
        assert result.exit_code == 0 and result.stderr == "", (command, result.stderr)
        shutil.rmtree(isolated_shard_env)


def test_an_ingest_that_stores_nothing_says_it_made_no_shard(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    (tmp_path / "only-config").mkdir()
    (tmp_path / "only-config" / "settings.yaml").write_text("a: 1\n")
    result = mixle("ingest", str(tmp_path / "only-config"))
    assert result.exit_code == 0 and not isolated_shard_env.exists()
    assert f"nothing was stored, so {isolated_shard_env} is still no shard" in result.stderr
    missing = mixle("ls")  # the hint names when one is made
    assert missing.exit_code == 3 and "that stores something creates this one" in missing.stderr
    # a folder of files never becomes one: the hint does not promise it
    notes = mixle("--shard", str(tmp_path / "only-config"), "ls")
    assert notes.exit_code == 3 and "a shard is a folder of its own" in notes.stderr
    assert "creates this one" not in notes.stderr
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / ".gitkeep").touch()  # a hidden file does not keep a shard out
    kept = mixle("--shard", str(tmp_path / "kept"), "ls")
    assert kept.exit_code == 3 and "creates this one" in kept.stderr


def test_index_from_a_newer_version_is_a_clear_error(
    mixle: Run,
    filled: dict[str, str],
    isolated_shard_env: Path,
    rewrite_index_meta: Callable[..., None],
) -> None:
    assert mixle("search", "refund").exit_code == 0
    path = isolated_shard_env / "index" / MANIFEST
    rewrite_index_meta(path, format=FORMAT_VERSION + 1)
    result = mixle("search", "refund")
    assert result.exit_code == 3
    assert "newer" in result.stderr and result.stderr.startswith("error:")
    status = mixle("status", "--json").json()
    assert status["index"]["state"] == "unsupported"


# -- visibility ---------------------------------------------------------------------------------


@pytest.fixture
def teams(isolated_shard_env: Path) -> dict[str, str]:
    ids = put(
        isolated_shard_env,
        SubstrateItem("text", "alpha budget for the harbour refit", scope="alpha", id="a1" * 8),
        SubstrateItem("text", "public budget summary for the harbour", scope="public"),
        SubstrateItem("text", "bravo budget harbour secret plan", scope="bravo", id="b1" * 8),
        SubstrateItem("text", "bravo harbour budget budget budget", scope="bravo"),
    )
    return dict(zip(("alpha", "public", "bravo", "bravo2"), ids, strict=True))


def test_a_team_reads_only_its_scopes(mixle: Run, teams: dict[str, str]) -> None:
    everything = set(ids_of(mixle("search", "harbour budget", "--json")))
    assert everything == set(teams.values())
    alpha = mixle("--as", "alpha", "search", "harbour budget", "--json", "--explain")
    assert set(ids_of(alpha)) == {teams["alpha"], teams["public"]}
    assert "bravo" not in alpha.stdout + alpha.stderr
    mine = ids_of(mixle("--as", "alpha", "search", "harbour", "--scope", "alpha", "--json"))
    assert mine == [teams["alpha"]]


def test_another_teams_scope_looks_like_one_that_does_not_exist(
    mixle: Run, teams: dict[str, str]
) -> None:
    theirs = mixle("--as", "alpha", "search", "harbour", "--scope", "bravo", "--json")
    nobody = mixle("--as", "alpha", "search", "harbour", "--scope", "nobody", "--json")
    assert (theirs.exit_code, theirs.stdout, theirs.stderr.replace("bravo", "nobody")) == (
        nobody.exit_code, nobody.stdout, nobody.stderr,
    )  # fmt: skip
    assert theirs.exit_code == 1 and theirs.stdout == ""
    assert "may not read scope 'bravo' (you read: alpha, public)" in theirs.stderr
    refused = mixle("--as", "alpha", "ls", "--scope", "bravo", "--json")
    assert (refused.exit_code, refused.stdout) == (1, "")
    assert "may not read scope 'bravo'" in refused.stderr


def test_scores_of_a_team_do_not_move_when_other_teams_add_items(
    mixle: Run, teams: dict[str, str], isolated_shard_env: Path
) -> None:
    before = mixle("--as", "alpha", "search", "harbour budget refit", "--json", "--explain")
    put(
        isolated_shard_env,
        *(
            SubstrateItem("text", f"bravo harbour note {i} " + "budget " * i, scope="bravo")
            for i in range(30)
        ),
    )
    after = mixle("--as", "alpha", "search", "harbour budget refit", "--json", "--explain")
    assert after.json() == before.json()


# -- reindex and status -------------------------------------------------------------------------


def test_reindex_reports_what_it_built(mixle: Run, filled: dict[str, str]) -> None:
    result = mixle("reindex", "--json")
    assert result.exit_code == 0 and result.stderr == ""
    stats = result.json()
    assert stats["items"] == 4 and stats["segments"] == 1 and stats["mode"] == "lexical"
    assert stats["seconds"] >= 0 and stats["path"].endswith("index")
    text = mixle("reindex")
    assert text.exit_code == 0 and text.stdout.startswith("reindexed: 4 items")
    assert mixle("reindex", "--quiet").stdout == ""


def test_reindex_shows_a_progress_bar_only_when_wanted(
    mixle: Run, filled: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert search_commands._progress_wanted(json=False, quiet=False) is False  # not a terminal
    monkeypatch.setattr(search_commands, "_progress_wanted", lambda json, quiet: True)
    result = mixle("reindex")
    assert result.exit_code == 0 and result.stdout.startswith("reindexed: 4 items")


def test_reindex_as_a_team_hides_counts_of_other_scopes(mixle: Run, teams: dict[str, str]) -> None:
    # sizes, segments, ranking mode and time all change with other teams' items
    told = mixle("--as", "alpha", "reindex", "--json").json()
    assert told.pop("reindexed") is True and set(told.values()) == {None}
    assert set(told) == set(mixle("reindex", "--json").json()) - {"reindexed"}
    assert mixle("--as", "alpha", "reindex").stdout.strip() == "reindexed"


def test_reindex_of_a_missing_shard_is_an_error(mixle: Run, isolated_shard_env: Path) -> None:
    result = mixle("reindex")
    assert result.exit_code == 3 and "no shard" in result.stderr
    assert not isolated_shard_env.exists()


def test_status_shows_the_index(
    mixle: Run, filled: dict[str, str], isolated_shard_env: Path
) -> None:
    before = mixle("status", "--json").json()["index"]
    assert before["state"] == "missing"
    mixle("search", "refund")
    index = mixle("status", "--json").json()["index"]
    assert index["state"] == "fresh" and index["items"] == 4 and index["segments"] == 1
    assert index["watermark"]["offset"] > 0 and index["bytes"] > 0
    names = [f["name"] for f in index["files"]]
    assert any(n.endswith(".parquet") for n in names) and any(n.endswith(".pack") for n in names)
    put(isolated_shard_env, SubstrateItem("text", "one more refund note"))
    assert mixle("status", "--json").json()["index"]["state"] == "behind"
    text = mixle("status").stdout
    assert "index   behind, 1 segment(s), lexical, 4 items" in text


def test_status_and_audit_count_no_folder_as_a_segment(
    mixle: Run, filled: dict[str, str], isolated_shard_env: Path
) -> None:
    mixle("search", "refund")
    before = mixle("status", "--json").json()["index"]
    folder = isolated_shard_env / "index" / "search-seg-000000000000.docs.parquet"
    (folder / "made by a sync tool").mkdir(parents=True)
    index = mixle("status", "--json").json()["index"]
    assert index["state"] == "fresh" and index["segments"] == 1
    assert index["files"] == before["files"] and index["bytes"] == before["bytes"]
    audit = mixle("audit", "--json")
    assert audit.exit_code == 1 and audit.json()["index"]["segments"] == 1
    assert audit.json()["problems"] == [
        f"index file {folder.name} is damaged (a folder stands in its place); run `mixle reindex`"
    ]
    assert mixle("reindex").exit_code == 0 and not folder.exists()
    assert mixle("audit").exit_code == 0


def test_status_as_a_team_leaves_out_index_counts(mixle: Run, teams: dict[str, str]) -> None:
    mixle("search", "harbour")
    index = mixle("--as", "alpha", "status", "--json").json()["index"]
    assert index == {"state": "fresh"}
    assert "items" not in mixle("--as", "alpha", "status").stdout.split("index")[-1]


def test_another_teams_write_does_not_show_in_a_teams_index_state(
    mixle: Run, teams: dict[str, str], isolated_shard_env: Path
) -> None:
    mixle("search", "harbour")
    put(isolated_shard_env, SubstrateItem("text", "bravo harbour memo", scope="bravo"))
    assert mixle("status", "--json").json()["index"]["state"] == "behind"
    for command in ("status", "audit"):
        report = mixle("--as", "alpha", command, "--json").json()
        assert report["index"]["state"] == "fresh", command
    assert "behind" not in mixle("--as", "alpha", "status").stdout


def test_another_teams_removal_does_not_show_in_a_teams_index_state_after_a_compact(
    mixle: Run, teams: dict[str, str]
) -> None:
    # compact drops the index only when it reclaimed something: another team's removal
    assert mixle("--as", "alpha", "compact").exit_code == 0
    mixle("search", "harbour")
    assert mixle("--as", "bravo", "rm", teams["bravo2"]).exit_code == 0
    assert mixle("--as", "alpha", "compact").exit_code == 0
    assert mixle("status", "--json").json()["index"]["state"] == "missing"
    for command in ("status", "audit"):
        report = mixle("--as", "alpha", command, "--json").json()
        assert report["index"]["state"] == "fresh", command
    assert "missing" not in mixle("--as", "alpha", "status").stdout


def test_a_secret_in_the_query_is_never_printed_back(mixle: Run, filled: dict[str, str]) -> None:
    token = "ghp_" + "Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ4"
    result = mixle("search", f"refund policy {token}", "--json")
    assert result.exit_code in (0, 1), result.stderr
    assert token not in result.stdout + result.stderr
    assert result.json()["query"].startswith("refund policy [REDACTED:")


@pytest.mark.parametrize("command", ["search", "retrieve", "multihop"])
@pytest.mark.parametrize("value", ["nan", "5", "-1"])
def test_a_score_threshold_outside_0_1_is_a_usage_error(
    mixle: Run, filled: dict[str, str], command: str, value: str
) -> None:
    assert mixle(command, "refund", "--min-score", value).exit_code == 2


@pytest.mark.parametrize("value", ["nan", "5", "-1"])
def test_a_confidence_threshold_outside_0_1_is_a_usage_error(
    mixle: Run, filled: dict[str, str], value: str
) -> None:
    refused = mixle("ask", "refund", "--min-confidence", value)
    assert refused.exit_code == 2 and "--min-confidence" in refused.stderr


def test_querying_a_shard_that_does_not_exist_creates_nothing(mixle, tmp_path: Path) -> None:
    missing = tmp_path / "typo"
    for command in ("retrieve", "multihop", "assemble-context", "ask"):
        mixle("--shard", str(missing), command, "refund window")
        assert not missing.exists(), command


def test_control_characters_in_stored_text_never_reach_the_terminal(mixle) -> None:
    text = "Heron notes \x1b]0;retitled\x07\x1b[2J\x1b[8mhidden\x1b[0m nesting starts in March"
    item_id = mixle("add", text).stdout.strip()
    for args in (("search", "heron"), ("get", item_id), ("ls",), ("retrieve", "heron")):
        shown = mixle(*args).stdout
        assert "\x1b" not in shown and "\x07" not in shown, args
        assert "hidden" in shown or args[0] == "ls"
    assert "\x1b" in mixle("get", item_id, "--json").json()[0]["text"]  # data stays as stored


def test_a_file_named_with_a_line_break_is_shown_on_one_line(mixle, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "new\nline.md").write_text("Kestrel counts rose in March.\n")
    assert mixle("ingest", str(notes)).exit_code == 0
    item_id = mixle("ls", "--json").json()[0]["id"]
    for args in (("search", "kestrel"), ("retrieve", "kestrel"), ("ask", "kestrel counts")):
        assert "new\ufffdline.md:1" in mixle(*args).stdout, args
    assert "source: new\ufffdline.md\n" in mixle("get", item_id).stdout


def test_an_evidence_tree_thousands_of_hops_deep_prints() -> None:
    from mixle_cli.commands.retrieval import _tree
    from substrate.hops import HopChain, HopStep
    from substrate.item import SubstrateItem

    items = [SubstrateItem(kind="text", text=f"link {n}", id=f"{n:016x}") for n in range(3000)]
    steps = [HopStep(items[0], 0, "seed", None, 1.0)]
    steps += [HopStep(item, n + 1, "link", items[n].id, 0.5) for n, item in enumerate(items[1:])]
    side = SubstrateItem(kind="text", text="a second seed", id="f" * 16)
    lines = _tree(HopChain("deep", [*steps, HopStep(side, 0, "seed", None, 0.9)]))
    assert len(lines) == 3002 and lines[1].startswith("├── seed")
    assert lines[-1].startswith("└── seed")
    assert lines[2001].startswith("│   " + "    " * 1999 + "└── link")


def test_source_takes_a_path_on_disk_or_a_source_name(
    mixle: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = tmp_path / "notes"
    (notes / "projects").mkdir(parents=True)
    (notes / "projects" / "plan.md").write_text("# Plan\n\nthe budget for the quarter\n")
    (notes / "other.md").write_text("# Other\n\nthe budget for the office\n")
    assert mixle("ingest", str(notes)).exit_code == 0

    def sources(value: str) -> list[str]:
        rows = mixle("search", "budget", "--source", value, "--json").json()["results"]
        return [row["source"] for row in rows]

    monkeypatch.chdir(tmp_path)
    assert sources("projects") == ["projects/plan.md"]  # as results show it
    assert sources("notes/projects") == ["projects/plan.md"]  # a folder here
    assert sources(str(notes / "projects" / "plan.md")) == ["projects/plan.md"]  # absolute
    assert sources(str(tmp_path / "elsewhere")) == []
    both = mixle("search", "budget", "--source", "projects", "--source", "other.md", "--json")
    assert sorted(row["source"] for row in both.json()["results"]) == [
        "other.md",
        "projects/plan.md",
    ]  # repeated: items from any of them


def test_a_query_is_read_from_standard_input_with_a_dash(mixle, filled) -> None:
    by_argument = mixle("search", "refund policy", "--json").json()
    piped = mixle("search", "-", "--json", input="refund policy\n").json()
    assert piped == by_argument and piped["query"] == "refund policy"
    for command in ("retrieve", "multihop", "assemble-context", "ask"):
        result = mixle(command, "-", "--json", input="refund policy\n")
        assert result.exit_code in (0, 1) and "refund policy" in result.stdout, command
    assert mixle("search", "-", input="\n").exit_code == 2  # an empty query, as ever


def test_a_query_on_standard_input_over_the_limit_is_refused(
    mixle, filled, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an endless stream (< /dev/zero) once filled the memory: it is read no further
    monkeypatch.setattr("mixle_cli.evidence.PIPED_TEXT_LIMIT", 16)
    for command in ("search", "ask", "retrieve", "multihop", "assemble-context", "verify"):
        result = mixle(command, "-", input="refund policy for defective items\n")
        assert result.exit_code == 1, command
        assert "standard input holds more than 16 bytes, the size limit" in result.stderr
    assert mixle("search", "-", input="refund policy\n").exit_code == 0


def test_files_of_one_name_from_two_folders_are_told_apart(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for team, days in (("teamA", 14), ("teamB", 30)):
        folder = tmp_path / team
        folder.mkdir()
        (folder / "refunds.md").write_text(f"# Refunds\n\nRefunds are paid within {days} days.\n")
        assert mixle("ingest", str(folder)).exit_code == 0  # each named "refunds.md"
    wheres = {"teamA/refunds.md:1-3", "teamB/refunds.md:1-3"}
    for command in ("search", "retrieve", "multihop"):
        out = mixle(command, "refunds paid").stdout
        assert all(where in out for where in wheres), (command, out)
    rows = mixle("search", "refunds paid", "--json").json()["results"]
    assert {row["source"] for row in rows} == {"teamA/refunds.md", "teamB/refunds.md"}
    # the name shown is one --source takes, wherever the command runs
    monkeypatch.chdir(isolated_shard_env.parent.parent)
    only = mixle("search", "refunds paid", "--source", "teamB/refunds.md", "--json").json()
    assert [row["id"] for row in only["results"]] == [
        row["id"] for row in rows if row["source"] == "teamB/refunds.md"
    ]
    packet = mixle("assemble-context", "refunds paid", "--json").json()
    assert {c["source"] for c in packet["provenance"]} == {"teamA/refunds.md", "teamB/refunds.md"}
    # the longer names are counted in the budget
    fits = mixle("assemble-context", "refunds paid", "--format", "xml", "--json").json()
    tight = str(fits["used_chars"])
    kept = mixle("assemble-context", "refunds paid", "--format", "xml", "--max-chars", tight)
    assert len(kept.stdout.rstrip("\n")) <= int(tight), kept.stderr
    answer = mixle("ask", "How are refunds paid?")
    assert "teamA/refunds.md:3" in answer.stdout or "teamB/refunds.md:3" in answer.stdout
    data = mixle("ask", "How are refunds paid?", "--json").json()
    named = {entry["id"]: entry["source"] for entry in data["citations"]}
    receipt = [c for claim in data["factuality"]["claims"] for c in claim["citations"]]
    assert receipt and all(c["source"] == named[c["id"]] for c in receipt)  # one name each


def test_items_without_a_query_word_far_below_the_best_are_left_out(
    mixle: Run, isolated_shard_env: Path
) -> None:
    from tests.substrate.test_search_ranking import topic_items

    items = topic_items()
    items.append(SubstrateItem("text", "the launch of the zeppelin rocket", id="z" * 16))
    put(isolated_shard_env, *items)
    mixle("reindex")  # the embedding is learned from the items
    everything = mixle("search", "zeppelin", "-k", "20", "--min-score", "0", "--json").json()
    neighbours = [row for row in everything["results"] if not row["matches"]]
    assert neighbours, "the semantic channel finds items that never say zeppelin"
    found = mixle("search", "zeppelin", "-k", "20", "--json").json()
    assert [row["id"] for row in found["results"]] == ["z" * 16]


def test_a_note_a_newer_one_replaced_is_marked(mixle: Run, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "expenses.md").write_text(
        "---\nsuperseded_by: expenses-2025\n---\n# Expenses\n\nExpenses over 500 need approval.\n"
    )
    (notes / "expenses-2025.md").write_text("# Expenses\n\nExpenses over 1000 need approval.\n")
    mixle("ingest", str(notes))
    rows = mixle("search", "expenses approval", "--json").json()["results"]
    assert {r["source"]: r["replaced_by"] for r in rows} == {
        "expenses.md": "expenses-2025.md",
        "expenses-2025.md": None,
    }
    assert "replaced by expenses-2025.md (a newer note)" in mixle("search", "expenses").stdout
    # a successor named after a secret is masked, as every source name is
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (notes / "old.md").write_text(f"---\nsuperseded_by: adr-{token}\n---\nOld rota notes.\n")
    mixle("ingest", str(notes), "--no-redact")
    result = mixle("search", "rota", "--json")
    assert token not in result.stdout and "[REDACTED:github_token]" in result.stdout


def test_a_scope_holding_no_item_is_named_when_nothing_matched(
    mixle: Run, filled: dict[str, str]
) -> None:
    for args in (("ls", "--scope", "nosuch"), ("search", "refund", "--scope", "nosuch")):
        result = mixle(*args)
        assert (
            result.exit_code == 0 and "no item you may read is in scope 'nosuch'" in result.stderr
        )
    # a scope that holds items, filtered down to none: only "no matching items"
    assert mixle("ls", "--scope", "local", "--kind", "graph").stderr == "no matching items\n"


def test_how_many_results_is_spelled_alike_on_every_listing_command(
    mixle: Run, filled: dict[str, str]
) -> None:
    for command in ("search", "retrieve"):
        for flag in ("-k", "--k", "--limit", "-n"):
            found = mixle(command, "refund", flag, "1", "--jsonl")
            assert found.exit_code == 0 and len(found.jsonl()) == 1, (command, flag)
    for flag in ("--limit", "-n", "-k"):
        listed = mixle("ls", flag, "1", "--jsonl")
        assert listed.exit_code == 0 and len(listed.jsonl()) == 1, flag


def test_offset_pages_through_listings_and_results(mixle: Run) -> None:
    for n in range(5):
        mixle("add", f"heron sighting number {n} at the lake")
    listed = [row["id"] for row in mixle("ls", "--jsonl").jsonl()]
    page = mixle("ls", "--limit", "2", "--offset", "1", "--jsonl").jsonl()
    assert [row["id"] for row in page] == listed[1:3]
    assert "more items: --offset 3 shows the next" in mixle("ls", "-n", "2", "--offset", "1").stderr
    assert "more items" not in mixle("ls", "-n", "2", "--offset", "3").stderr
    past = mixle("ls", "--offset", "9")
    assert past.exit_code == 0 and "no items past the first 5" in past.stderr
    found = [row["id"] for row in mixle("search", "heron", "--jsonl").jsonl()]
    second = mixle("search", "heron", "--limit", "2", "--offset", "2", "--jsonl").jsonl()
    assert [row["id"] for row in second] == found[2:4]
    assert [row["rank"] for row in second] == [3, 4]
    # a page says whether another follows it
    assert [
        mixle("search", "heron", "-n", "2", "--offset", str(at), "--json").json()["more"]
        for at in (0, 2, 3, 4)
    ] == [True, True, False, False]
    told = [mixle("search", "heron", "-n", "2", "--offset", str(at)).stderr for at in (2, 3)]
    assert "more results: --offset 4 shows the next" in told[0]  # (as text, on stderr)
    assert "more results" not in told[1]
    beyond = mixle("search", "heron", "--offset", "50")
    assert beyond.exit_code == 0 and "no results past the first 5" in beyond.stderr
    none = mixle("search", "heron", "--kind", "record", "--offset", "2")  # nothing matches
    assert none.exit_code == 0 and "past the first" not in none.stderr


@pytest.fixture
def at_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., str]:
    """A shard of one item, stderr a terminal: ``searched(**options)`` opens it for a search
    and returns what was said on stderr."""
    import sys

    from mixle_cli.context import AppState

    shard = tmp_path / "shard"
    put(shard, SubstrateItem("text", "refunds take five days"))

    def searched(**options: Any) -> str:
        # (the stream capsys gives in the test itself, not the one it gave at set-up)
        monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
        AppState(shard_option=str(shard), command="search", **options).searched()
        return capsys.readouterr().err

    return searched


def test_a_terminal_is_told_the_index_is_being_built(
    at_a_terminal: Callable[..., str], tmp_path: Path
) -> None:
    assert "building the search index" in at_a_terminal()
    retrieve(Substrate(tmp_path / "shard"), "refunds", k=1)
    assert at_a_terminal() == ""  # built: nothing to say


def test_a_terminal_is_told_a_large_ingest_is_being_folded_in(
    at_a_terminal: Callable[..., str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mixle_cli import context

    shard = tmp_path / "shard"
    retrieve(Substrate(shard), "refunds", k=1)  # the index built
    put(shard, SubstrateItem("text", "returns are free within thirty days " * 20))
    monkeypatch.setattr(context, "FAR_BEHIND", 1 << 30)
    assert at_a_terminal() == ""  # a small change: folded in without a word
    monkeypatch.setattr(context, "FAR_BEHIND", 100)
    assert "adding the latest changes to the search index" in at_a_terminal()
    assert at_a_terminal(team_option="ops") == ""  # not told of other teams' writes


def test_a_result_names_its_file_where_two_folders_give_one_name(
    mixle: Run, tmp_path: Path
) -> None:
    for folder in ("alpha", "beta"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "README.md").write_text(f"# Install\n\nRun make in {folder}.\n")
        assert (
            mixle("--shard", str(tmp_path / "s"), "ingest", str(tmp_path / folder)).exit_code == 0
        )
    rows = mixle("--shard", str(tmp_path / "s"), "search", "make", "--json").json()["results"]
    # told apart by their folders, as two results; and each by its whole path, for scripts
    assert {row["source"] for row in rows} == {"alpha/README.md", "beta/README.md"}
    assert {row["path"] for row in rows} == {
        str((tmp_path / folder / "README.md").resolve()) for folder in ("alpha", "beta")
    }


def test_a_shard_path_that_is_a_broken_link_is_named_as_such(mixle: Run, tmp_path: Path) -> None:
    dangling, loop, other = tmp_path / "dangling", tmp_path / "loop", tmp_path / "other"
    dangling.symlink_to(tmp_path / "gone" / "shard")
    loop.symlink_to(other)
    other.symlink_to(loop)
    for link, said in ((dangling, "which does not exist"), (loop, "in a loop")):
        for shard in (link, link / "sub"):  # the link, or the folder a shard would be made in
            for args in (["add", "x"], ["ls"], ["init"]):
                result = mixle("--shard", str(shard), *args)
                assert result.exit_code == 3, args
                assert f"{link} is a symbolic link" in result.stderr and said in result.stderr
                assert "audit" not in result.stderr and "mixle.toml" not in result.stderr
                assert "File exists" not in result.stderr
    assert not (tmp_path / "gone").exists()


def test_a_packet_budget_too_small_for_its_frame_prints_nothing_to_stdout(
    mixle: Run, filled: dict[str, str]
) -> None:
    # a blank line read as the packet: `--format json` printed no JSON at all
    result = mixle("assemble-context", "refund policy", "--format", "json", "--max-chars", "20")
    assert result.exit_code == 1 and result.stdout == ""
    assert "does not fit in 20 characters" in result.stderr
