"""mixle retrieve / multihop / assemble-context / ask / verify."""

from __future__ import annotations

import hashlib
import http.server
import json
import shlex
import struct
import sys
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mixle_cli.context import AppState
from substrate.item import SubstrateItem
from substrate.store import Substrate

Run = Callable[..., Any]
SECRET_TEXT = "refund override for defective items: codeword zanzibar"


@pytest.fixture
def shop(isolated_shard_env: Path) -> dict[str, str]:
    s = Substrate(isolated_shard_env)
    ids = {
        "refunds": s.put(
            SubstrateItem(
                "text",
                "Refunds for defective items are given within 30 days of purchase. "
                "Keep the receipt.",
                provenance={"source": "docs/refunds.md", "line_start": 3, "line_end": 5},
                scope="shop",
            )
        ),
        "hours": s.put(
            SubstrateItem(
                "text",
                "The store opens at nine and closes at five on weekdays.",
                provenance={"source": "docs/hours.md"},
                scope="shop",
            )
        ),
        "cards": s.put(
            SubstrateItem(
                "text",
                "Gift cards never expire and can be used online.",
                scope="public",
            )
        ),
        "secret": s.put(SubstrateItem("text", SECRET_TEXT, scope="vault")),
    }
    model = s.put(SubstrateItem("artifact", "refund triage model", scope="shop"))
    s.get(ids["refunds"]).links.extend([ids["secret"], model])  # type: ignore[union-attr]
    ids["model"] = model
    s.save()
    s.close()
    return ids


def no_secret(result: Any, ids: dict[str, str]) -> None:
    for stream in (result.stdout, result.stderr):
        assert ids["secret"] not in stream and "zanzibar" not in stream


def test_retrieve_json_and_jsonl(mixle: Run, shop: dict[str, str]) -> None:
    result = mixle("retrieve", "refund defective items", "--json")
    assert result.exit_code == 0, result.stderr
    data = result.json()
    assert data["items"][0]["id"] in {shop["refunds"], shop["secret"]}
    assert {"rank", "id", "kind", "source", "score", "title", "where"} <= set(data["items"][0])
    refunds = next(i for i in data["items"] if i["id"] == shop["refunds"])
    assert refunds["where"] == "docs/refunds.md:3-5"  # as search gives it
    assert refunds["scope"] == "shop"
    assert data["n"] == len(data["items"])  # the count beside the list, as every report has
    lines = mixle("retrieve", "refund", "--jsonl", "-k", "2").jsonl()
    assert len(lines) == 2
    text = mixle("--as", "shop", "retrieve", "refund defective items")
    assert text.exit_code == 0 and shop["refunds"] in text.stdout


def test_retrieve_options(mixle: Run, shop: dict[str, str]) -> None:
    kinds = mixle("retrieve", "refund", "--kinds", "artifact", "--json").json()
    assert [i["id"] for i in kinds["items"]] == [shop["model"]]
    flat = mixle("retrieve", "refund", "--flat", "--weight", "artifact=10", "--json").json()
    assert flat["items"][0]["kind"] == "artifact"
    cased = mixle("retrieve", "refund", "--flat", "--weight", "Artifact=10", "--json").json()
    assert cased == flat  # (a kind in any case, as --kind takes it)
    assert mixle("retrieve", "refund", "--weight", "artifact").exit_code == 2
    assert mixle("retrieve", "refund", "--weight", "nope=1").exit_code == 2
    assert mixle("retrieve", "refund", "--kinds", "nope").exit_code == 2
    # spelled as search, ls and assemble-context spell it
    as_elsewhere = mixle("retrieve", "refund", "-K", "artifact", "--json").json()
    assert as_elsewhere == kinds
    assert mixle("retrieve", "refund", "--kinds", " , ").exit_code == 2  # names no kind
    assert mixle("retrieve", "  ").exit_code == 2
    assert mixle("retrieve", "refund", "--json", "--jsonl").exit_code == 2


def test_every_command_hides_invisible_scopes(mixle: Run, shop: dict[str, str]) -> None:
    as_shop = ("--as", "shop")
    for args in (
        ("retrieve", "refund override defective", "--json"),
        ("multihop", "refund defective items", "--json"),
        ("multihop", "refund defective items"),
        ("assemble-context", "refund override defective", "--json"),
        ("ask", "What is the refund override for defective items?", "--json"),
        ("verify", "The refund override for defective items is known.", "--json"),
    ):
        result = mixle(*as_shop, *args)
        assert result.exit_code in (0, 1), result.stderr
        no_secret(result, shop)


def test_multihop_tree_and_json(mixle: Run, shop: dict[str, str]) -> None:
    result = mixle("--as", "shop", "multihop", "refund defective items", "--json")
    assert result.exit_code == 0, result.stderr
    steps = {s["id"]: s for s in result.json()["steps"]}
    assert steps[shop["refunds"]]["where"] == "docs/refunds.md:3-5"
    assert steps[shop["refunds"]]["scope"] == "shop"
    assert steps[shop["model"]]["via"] in {"link", "seed"}
    if steps[shop["model"]]["via"] == "link":
        assert steps[shop["model"]]["path"] == [shop["refunds"], shop["model"]]
    tree = mixle("--as", "shop", "multihop", "refund defective items", "--seeds", "1")
    assert tree.exit_code == 0
    assert "seed" in tree.stdout and "link" in tree.stdout and "docs/refunds.md:3-5" in tree.stdout
    assert tree.stdout.startswith("refund defective items  (") and " item(s), depth " in tree.stdout
    link_line = next(line for line in tree.stdout.splitlines() if shop["model"] in line)
    assert link_line.startswith(("├── link", "└── link", "│   ", "    "))
    jsonl = mixle("multihop", "refund", "--jsonl", "--hops", "0").jsonl()
    assert all(s["via"] == "seed" for s in jsonl)


def test_multihop_leaves_out_side_matches_unless_told_and_heads_its_tree_briefly(
    mixle: Run, isolated_shard_env: Path
) -> None:
    # content hops scoring a hundredth of the best seed filled the chain with noise
    texts = [
        "Refunds for defective items are given within 30 days of purchase.",
        "Defective items are refunded to the original card.",
        *(f"Shelf {n} holds items for the spring window display." for n in range(12)),
        *(f"Team {n} works from the Lisbon office on Mondays." for n in range(12)),
    ]
    for text in texts:
        assert mixle("add", text).exit_code == 0
    query = "refunds for defective items"
    chained = mixle("multihop", query, "--json").json()["steps"]
    assert chained and all("Shelf" not in step["title"] for step in chained)
    every = mixle("multihop", query, "--min-score", "0", "--json").json()["steps"]
    assert any("Shelf" in step["title"] for step in every)
    tree = mixle("multihop", "refunds " * 200)
    assert len(tree.stdout.splitlines()[0]) < 160  # not the query repeated in full


def test_result_lines_mask_a_source_named_after_a_secret(
    mixle: Run, isolated_shard_env: Path
) -> None:
    token = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    s = Substrate(isolated_shard_env)
    s.put(SubstrateItem("text", "The narwhal tusk is a tooth.", provenance={"source": token}))
    s.save()
    s.close()
    for command in ("retrieve", "multihop", "search"):
        for form in ((), ("--json",)):
            result = mixle(command, "narwhal", *form)
            assert result.exit_code == 0, result.stderr
            assert token not in result.stdout and "[REDACTED:github_token]" in result.stdout


def test_assemble_context_packs_only_relevant_items_unless_told(
    mixle: Run, shop: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def search(self: Substrate, query: str, k: int = 5, **_: Any) -> Any:
        items = sorted(self.iter_items(), key=lambda i: i.id)
        return [(item, 0.9 if n == 0 else 0.02) for n, item in enumerate(items)]

    monkeypatch.setattr(Substrate, "search", search)

    def packed(*extra: str) -> int:
        data = mixle("assemble-context", "refund", "--json", *extra).json()
        return int(data["n_items"])

    assert packed() == 1 and packed("--min-score", "0") > 1


def test_assemble_context_takes_several_kinds(mixle: Run, shop: dict[str, str]) -> None:
    def packed(*kinds: str) -> set[str]:
        data = mixle("assemble-context", "refund", "--min-score", "0", "--json", *kinds).json()
        return {entry["id"] for entry in data["provenance"]}

    assert packed("--kind", "artifact") == {shop["model"]}
    both = packed("--kind", "artifact", "--kind", "text")
    assert shop["model"] in both and shop["refunds"] in both


def test_assemble_context_outputs(mixle: Run, shop: dict[str, str]) -> None:
    result = mixle(
        "--as", "shop", "assemble-context", "refund defective items", "--max-chars", "400"
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("# Context for: refund defective items")
    assert len(result.stdout.rstrip("\n")) <= 400
    assert "candidate(s)" in result.stderr and "task terms kept" in result.stderr
    xml = mixle("--as", "shop", "assemble-context", "refund", "--format", "xml")
    root = ET.fromstring(xml.stdout)
    assert root.tag == "context" and root.find("document") is not None
    js = mixle("--as", "shop", "assemble-context", "refund", "--format", "json")
    assert json.loads(js.stdout)["documents"]
    data = mixle(
        "--as", "shop", "assemble-context", "refund", "--json", "--max-tokens", "50"
    ).json()
    assert data["used_chars"] <= 200 and data["budget_tokens"] == 50
    assert data["rendered"] and "preservation" in data and data["overflow"] is False
    roomy = ["--as", "shop", "assemble-context", "refund", "--json", "--max-tokens", "1000"]
    assert mixle(*roomy).json()["budget_chars"] == 4000  # not capped by the default 2,000
    both = mixle(*roomy, "--max-chars", "300").json()
    assert both["budget_chars"] == 300  # the tighter of the two


def test_assemble_context_overflow_and_bad_options(mixle: Run, shop: dict[str, str]) -> None:
    small = mixle("--as", "shop", "assemble-context", "refund defective items", "--max-chars", "40")
    assert small.exit_code == 1
    assert "does not fit in 40 characters; raise --max-chars or use --compress" in small.stderr
    tokens = mixle("--as", "shop", "assemble-context", "refund defective", "--max-tokens", "10")
    assert tokens.exit_code == 1 and "raise --max-tokens or use --compress" in tokens.stderr
    assert mixle("assemble-context", "refund", "--format", "yaml").exit_code == 2
    assert mixle("assemble-context", "refund", "--shape", "poem").exit_code == 2
    assert mixle("assemble-context", "refund", "--max-chars", "0").exit_code == 2
    squeezed = mixle(
        "--as",
        "shop",
        "assemble-context",
        "refund defective items",
        "--max-chars",
        "120",
        "--compress",
        "--json",
    )
    assert squeezed.exit_code == 0 and squeezed.json()["n_items"] >= 1


def test_assemble_context_exits_1_when_weaker_items_fit_but_the_best_does_not(mixle: Run) -> None:
    filler = "Filler sentence about nothing in particular. " * 80
    best = mixle("add", filler + "The capybara vaccination schedule requires three doses.")
    mixle("add", "Capybaras enjoy warm baths.")
    mixle("add", "A vaccination clinic opens on Mondays.")
    assert best.exit_code == 0
    result = mixle("assemble-context", "capybara vaccination schedule doses", "--json")
    assert result.exit_code == 1
    data = result.json()
    assert data["overflow"] is True and data["best_left_out"] is True and data["n_items"] >= 1
    assert "most relevant item does not fit in 2,000 characters" in result.stderr
    squeezed = mixle("assemble-context", "capybara vaccination schedule doses", "--compress")
    assert squeezed.exit_code == 0 and "three doses" in squeezed.stdout


def test_ask_extractive_with_citations(mixle: Run, shop: dict[str, str]) -> None:
    result = mixle("--as", "shop", "ask", "How long do refunds for defective items take?")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "within 30 days" in out and "[1]" in out
    assert "extractive" in out and "heuristic" in out and "grounded" in out
    assert f"[1] {shop['refunds']}  docs/refunds.md:3-5" in out
    data = mixle(
        "--as", "shop", "ask", "How long do refunds for defective items take?", "--json"
    ).json()
    assert data["answerer"] == "extractive" and data["abstained"] is False
    assert data["factuality"]["grounded_fraction"] == 1.0
    assert data["citations"][0]["where"] == "docs/refunds.md:3-5"
    assert data["confidence_kind"] == "heuristic"
    # the receipt's evidence is placed as verify places it
    [evidence] = data["factuality"]["claims"][0]["citations"]
    assert evidence["where"].startswith("docs/refunds.md:")


def test_a_quote_and_a_file_name_show_emoji_codes_as_written(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    # rich read ":rocket:" as an emoji: the quote said what the note does not
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "plan :fire: now.md").write_text(
        "# Plan\n\nThe smoke test runs on :rocket: day, every Thursday.\n"
    )
    assert mixle("ingest", str(notes), "-q").exit_code == 0
    for command in (("ask", "When does the smoke test run?"), ("search", "smoke test")):
        out = mixle(*command).stdout
        assert ":rocket:" in out and ":fire:" in out and "\U0001f680" not in out, command


@pytest.mark.parametrize(
    "pasted",
    [
        "ghp_" + "R8xk2LpQ9vW3mN7tY4uZ1aB6cD0eF5gH2jK8",
        "-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9OiJjRazXvv0pR3k",
    ],
)
def test_a_secret_pasted_into_a_question_neither_spoils_nor_shows_in_the_answer(
    mixle: Run, shop: dict[str, str], pasted: str
) -> None:
    question = "How long do refunds for defective items take?"
    plain = mixle("--as", "shop", "ask", question, "--json").json()
    result = mixle("--as", "shop", "ask", f"{question} {pasted}", "--json")
    assert result.exit_code == 0, result.stdout
    assert result.json()["answer"] == plain["answer"]
    assert pasted.split()[-1] not in result.stdout + result.stderr
    found = mixle("--as", "shop", "search", f"refunds defective {pasted}", "--json")
    assert [row["id"] for row in found.json()["results"]][:1] == [shop["refunds"]]


def test_an_answer_quoting_a_masked_secret_says_where_its_value_is(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    # "[REDACTED:...]" at confidence 1.00, with no word on it, read as the answer itself
    note = "# Staging\n\nThe staging database password is hunter2-Xy9!kQ for the app user.\n"
    engine = "# Engine\n\nThe staging database runs PostgreSQL 15.\n"
    _ingested_notes(mixle, tmp_path / "notes", {"staging.md": note, "engine.md": engine})
    result = mixle("ask", "What is the staging database password?")
    assert result.exit_code == 0 and "[REDACTED:" in result.stdout
    assert "masked: 1 secret(s), never shown; the file it came from holds" in result.stdout
    assert "hunter2-Xy9!kQ" not in result.stdout + result.stderr
    data = mixle("ask", "What is the staging database password?", "--json").json()
    assert data["masked_quotes"] == 1 and data["stated_secrets"] == 0
    plain = mixle("ask", "Which PostgreSQL version does the staging database run?", "--json")
    assert "15" in plain.json()["answer"] and plain.json()["masked_quotes"] == 0
    assert "masked:" not in mixle("ask", "Which PostgreSQL version does staging run?").stdout
    mixle("rm", "-", input="\n".join(r["id"] for r in mixle("ls", "--json").json()))
    mixle("add", "The staging database password is hunter2-Xy9!kQ for the app user.")
    added = mixle("ask", "What is the staging database password?").stdout  # (no file holds it)
    assert "never shown; its value is wherever it was written before it was stored" in added


def _ingested_notes(mixle: Run, folder: Path, files: dict[str, str]) -> Path:
    """A folder of notes written from ``files`` (name: text), ingested; returns it."""
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    assert mixle("ingest", str(folder)).exit_code == 0
    return folder


ATLAS_NOTES = {
    "projects/atlas.md": "# Project Atlas\n\nAtlas is the billing service. It is owned by the "
    "Payments team, led by [Dana Kim](../people/dana.md).\n",
    "people/dana.md": "# Dana Kim\n\nDana Kim leads the Payments team. Her on-call rotation "
    "is every fourth week.\nShe prefers to be contacted on the #payments channel.\n",
    "deploy.md": "# How to deploy\n\nRun `make release`. Rollback with `make rollback`.\n",
}


@pytest.fixture
def atlas_notes(mixle: Run, isolated_shard_env: Path, tmp_path: Path) -> Path:
    """A project note linking to its team lead's note, and a deploy how-to, ingested."""
    folder = tmp_path / "notes"
    for name, text in ATLAS_NOTES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    assert mixle("ingest", str(folder), "-q").exit_code == 0
    return folder


def test_ask_grounds_a_quote_it_led_with_the_heading(mixle: Run, atlas_notes: Path) -> None:
    # "Project Atlas: It is owned by ..." was answered, then called grounded 0/1, exit 1
    result = mixle("ask", "Who leads the team that owns Atlas?", "--hops", "2")
    assert result.exit_code == 0, result.stderr
    assert "Project Atlas: It is owned by the Payments team" in result.stdout
    assert "warning" not in result.stderr
    data = mixle("ask", "Who leads the team that owns Atlas?", "--hops", "2", "--json").json()
    assert all(claim["supported"] for claim in data["factuality"]["claims"])
    hop = mixle("ask", "Where is the lead of the team that owns Atlas based?", "--hops", "2")
    assert "no source found says" not in hop.stderr
    claim = "Project Atlas: It is owned by the Payments team, led by Dana Kim."
    verified = mixle("verify", claim)
    assert verified.exit_code == 0 and "supported" in verified.stdout


def test_ask_says_which_replaced_notes_it_passed_over(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    old = "# Feature flags\n\nWe use LaunchDarkly for flags.\n"
    new = "---\nsupersedes: old-flags\n---\n# Feature flags\n\nWe use flagd for flags.\n"
    _ingested_notes(mixle, tmp_path / "notes", {"old-flags.md": old, "new-flags.md": new})
    result = mixle("ask", "What do we use for feature flags?")
    assert result.exit_code == 0, result.stderr
    assert "flagd" in result.stdout and "LaunchDarkly" not in result.stdout
    assert "passed over notes replaced by newer ones: old-flags.md:1-3" in result.stderr
    data = mixle("ask", "What do we use for feature flags?", "--json").json()
    assert [entry["source"] for entry in data["passed_over"]] == ["old-flags.md"]
    # a packet of the evidence passes over the same, and says so
    packet = mixle("assemble-context", "What do we use for feature flags?")
    assert "flagd" in packet.stdout and "LaunchDarkly" not in packet.stdout
    assert "passed over notes replaced by newer ones: old-flags.md:1-3" in packet.stderr
    data = mixle("assemble-context", "What do we use for feature flags?", "--json").json()
    assert [entry["source"] for entry in data["passed_over"]] == ["old-flags.md"]
    # a floor of its own asks for what scores above it, not for what was replaced: packed
    # unmarked, the old note read as current (often first)
    floored = mixle("assemble-context", "What do we use for feature flags?", "--min-score", "0")
    assert "flagd" in floored.stdout and "LaunchDarkly" not in floored.stdout
    assert "passed over notes replaced by newer ones: old-flags.md:1-3" in floored.stderr


def test_ask_of_a_replaced_record_by_its_number_answers_from_that_record(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    old = (
        "# ADR-002: Chlorine target\n\nStatus: Superseded by [ADR-005](adr-005.md)\n"
        "Date: 2017-02-01\n\n## Decision\n\nThe chlorine target is 0.5 mg/L.\n"
    )
    new = (
        "# ADR-005: Raise the chlorine target\n\nStatus: Accepted\nSupersedes: "
        "[ADR-002](adr-002.md)\n\n## Decision\n\nThe chlorine target is 0.8 mg/L.\n"
    )
    _ingested_notes(mixle, tmp_path / "notes", {"adr-002.md": old, "adr-005.md": new})
    asked = mixle("ask", "What is the status of ADR-002?", "--json").json()
    cited = [c["source"] for c in asked["citations"] if c["cited"]]
    assert "Superseded by ADR-005" in asked["answer"] and cited == ["adr-002.md"]
    assert asked["factuality"]["grounded_fraction"] == 1.0
    # asked of what is in force, the newer record answers
    current = mixle("ask", "What is the chlorine target?")
    assert "0.8 mg/L" in current.stdout and "0.5 mg/L" not in current.stdout


def test_ask_warns_of_a_cited_file_changed_since_it_was_ingested(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    # the old text was quoted with no word that the file says otherwise now
    files = {"backups.md": "# Backups\n\nSnapshots are kept for 35 days.\n"}
    files["other.md"] = "# Other\n\nNothing about it.\n"
    note = _ingested_notes(mixle, tmp_path / "notes", files) / "backups.md"
    question = "How long are snapshots kept?"
    assert "warning" not in mixle("ask", question).stderr
    note.write_text("# Backups\n\nSnapshots are kept for 90 days.\n")
    result = mixle("ask", question)
    assert result.exit_code == 0 and "35 days" in result.stdout
    assert "warning: [1] backups.md changed since it was ingested" in result.stderr
    assert mixle("ask", question, "--json").json()["changed_sources"] == [
        {"n": 1, "signal": "changed"}
    ]
    note.unlink()
    assert "backups.md moved or was removed since" in mixle("ask", question).stderr


def test_ask_tells_that_a_published_copy_s_new_text_is_for_its_team_to_propose(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    note = folder / "backups.md"
    note.write_text("# Backups\n\nSnapshots are kept for 35 days.\n")
    assert mixle("--as", "ops", "ingest", str(folder)).exit_code == 0
    item_id = mixle("ls", "--jsonl").stdout.split('"id":"')[1][:16]
    assert mixle("--as", "ops", "publish", item_id).exit_code == 0
    note.write_text("# Backups\n\nSnapshots are kept for 90 days.\n")
    assert mixle("--as", "ops", "ingest", str(folder)).exit_code == 0  # ops' own new item
    result = mixle("--as", "dev", "ask", "How long are snapshots kept?")
    assert "35 days" in result.stdout
    assert "(a published copy: its new text is for its team to propose)" in result.stderr


def test_ask_warns_of_and_verify_refuses_a_note_that_calls_itself_not_in_force(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    files = {
        "adr-004.md": "# ADR-004: Journal store\n\n## Status\n\nProposed\n\n## Decision\n\n"
        "The ledger journal moves to CockroachDB.\n",
        "adr-001.md": "# ADR-001: Ledger\n\n- Status: Accepted\n\nThe ledger runs on Go.\n",
    }
    _ingested_notes(mixle, tmp_path / "notes", files)
    result = mixle("ask", "Where does the ledger journal move to?")
    assert result.exit_code == 0 and "CockroachDB" in result.stdout, result.stderr
    assert "warning: [1] adr-004.md calls itself 'Proposed'" in result.stderr
    accepted = mixle("ask", "What does the ledger run on?")
    assert "Go" in accepted.stdout and "warning" not in accepted.stderr
    data = mixle("ask", "Where does the ledger journal move to?", "--json").json()
    assert [(c["source"], c["not_in_force"]) for c in data["citations"] if c["cited"]] == [
        ("adr-004.md", "Proposed")
    ]
    checked = mixle("verify", "The ledger journal moves to CockroachDB.")  # no fact yet
    assert checked.exit_code == 1
    assert "(says it, but calls itself 'Proposed')" in checked.stdout


def test_verify_warns_of_evidence_whose_file_changed_since_it_was_ingested(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    files = {"ports.md": "# Ports\n\ntracker-api listens on port 8443.\n"}
    note = _ingested_notes(mixle, tmp_path / "notes", files) / "ports.md"
    claim = "tracker-api listens on port 8443."
    assert "warning" not in mixle("verify", claim).stderr
    note.write_text("# Ports\n\ntracker-api listens on port 9443.\n")
    result = mixle("verify", claim)
    assert result.exit_code == 0  # supported by what was ingested, and warned of
    assert "warning: evidence ports.md changed since it was ingested" in result.stderr
    data = mixle("verify", claim, "--json").json()
    assert data["claims"][0]["citations"][0]["changed"] == "changed"


def test_verify_tells_a_few_changed_evidence_files_and_counts_the_rest(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    files = {f"s{n}.md": f"# S{n}\n\nservice-{n} listens on port 8{n}00.\n" for n in range(8)}
    notes = _ingested_notes(mixle, tmp_path / "notes", files)
    for name in files:  # a tree moved away: every file is gone
        (notes / name).unlink()
    claims = "\n".join(f"service-{n} listens on port 8{n}00." for n in range(8))
    result = mixle("verify", claims)
    assert result.stderr.count("warning: evidence ") == 5
    assert "warning: and 3 more evidence files changed or moved" in result.stderr


def test_verify_checks_the_file_it_is_given(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"ports.md": "# Ports\n\ntracker-api listens on port 8443.\n"}
    _ingested_notes(mixle, tmp_path / "notes", files)
    draft = tmp_path / "draft.md"
    draft.write_text("## Status\n\ntracker-api listens on port 8443. Is it on 9443?\n")
    result = mixle("verify", str(draft), "--json")
    assert result.exit_code == 0, result.stderr
    assert [c["claim"] for c in result.json()["claims"]] == ["tracker-api listens on port 8443."]
    told = mixle("verify", str(draft))
    assert "not checked: 2 question(s) and short heading(s)" in told.stderr
    listed = mixle("verify", "--", "- tracker-api listens on port 8443.")  # numbered: no bullet
    assert "supported    1.000  tracker-api listens on port 8443." in listed.stdout
    missing = mixle("verify", str(tmp_path / "nothere.md"))
    assert missing.exit_code == 1 and "there is no file" in missing.stderr
    draft.write_bytes(b"tracker-api listens on port \xff.\n")
    assert mixle("verify", str(draft)).exit_code == 2
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text("Nothing here is checked.\n")  # "-" is standard input still
    piped = mixle("verify", "-", "--json", input="tracker-api listens on port 8443.")
    assert [c["claim"] for c in piped.json()["claims"]] == ["tracker-api listens on port 8443."]


def test_ask_cites_the_lines_it_quotes(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    note = tmp_path / "refunds.md"
    lines = [
        "# Refund policy",
        "",
        "Customers can ask for a refund within 30 days of delivery.",
        "Refunds for defective items are processed within",
        "five business days of reaching the warehouse.",
        "",
        "Gift cards are not refundable.",
    ]
    note.write_text("\n".join(lines) + "\n")
    assert mixle("ingest", str(note)).exit_code == 0
    question = "How long do refunds for defective items take?"
    result = mixle("ask", question)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.rstrip().endswith("refunds.md:4-5")  # not the section's 1-7
    cited = mixle("ask", question, "--json").json()["citations"][0]
    assert (cited["line_start"], cited["line_end"]) == (1, 7)
    assert cited["quoted_lines"] == [[4, 5]] and cited["where"] == "refunds.md:4-5"


def test_ask_says_which_sources_it_was_given_but_did_not_cite(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    # "[2]" with only [2] under Sources read as a numbering error: the source cited is [1]
    popular = "# Refunds\n\nRefunds are popular with our customers, refunds.\n"
    timing = "# Timing\n\nA refund takes five business days to reach the card.\n"
    _ingested_notes(mixle, tmp_path / "notes", {"a.md": popular, "b.md": timing})
    result = mixle("ask", "How long does a refund take?")
    assert result.exit_code == 0 and "five business days to reach the card. [1]" in result.stdout
    assert "  [1] " in result.stdout and "b.md" in result.stdout
    assert result.stdout.rstrip().endswith("(not cited: [2]; --json lists them)")


def test_the_sources_not_cited_are_told_in_runs() -> None:
    from mixle_cli.commands.answers import _runs

    assert _runs([2]) == "[2]"
    assert _runs([2, 3, 5, 6, 7, 8, 10]) == "[2] [3] [5]-[8] [10]"


def test_ask_abstains_with_exit_1(mixle: Run, shop: dict[str, str]) -> None:
    result = mixle("ask", "What is the airspeed velocity of an unladen swallow?")
    assert result.exit_code == 1
    assert result.stdout.startswith("No answer.") and "abstained" in result.stdout
    assert result.stdout.splitlines()[-1].endswith(
        "(heuristic, not a probability); no answer in it"
    )
    data = mixle("ask", "airspeed velocity of an unladen swallow", "--json")
    assert data.exit_code == 1 and data.json()["abstained"] is True


def test_an_abstention_points_to_the_nearest_sources(mixle: Run, shop: dict[str, str]) -> None:
    result = mixle("ask", "When does the store open on holidays?")
    assert result.exit_code == 1 and "no readable item mentions 'holidays'" in result.stdout
    tail = result.stdout.rstrip().splitlines()[-2:]
    assert tail == [
        "Nearest sources (they do not answer it)",
        f"  [1] {shop['hours']}  docs/hours.md",
    ]


def test_ask_with_a_command_answerer(mixle: Run, shop: dict[str, str], tmp_path: Path) -> None:
    script = tmp_path / "answer.py"
    script.write_text(
        "import sys\nprompt = sys.stdin.read()\n"
        "assert '[1]' in prompt and 'Question:' in prompt\n"
        "print('Refunds for defective items are given within 30 days of purchase [1].')\n"
    )
    cmd = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    result = mixle("--as", "shop", "ask", "refund defective items days", "--answerer-cmd", cmd)
    assert result.exit_code == 0, result.stderr
    assert "within 30 days of purchase [1]" in result.stdout and "extractive" not in result.stdout
    failing = f'{shlex.quote(sys.executable)} -c "import sys; sys.exit(4)"'
    bad = mixle("--as", "shop", "ask", "refund defective items days", "--answerer-cmd", failing)
    assert bad.exit_code == 3 and "exited with status 4" in bad.stderr
    assert mixle("ask", "refund", "--answerer", "cmd").exit_code == 2
    assert mixle("ask", "refund", "--answerer", "oracle").exit_code == 2
    empty = mixle("ask", "refund", "--answerer", "", "--json")  # not the default answerer
    assert empty.exit_code == 2 and "unknown answerer ''" in empty.stderr
    empty = mixle("ask", "refund", "--answerer-cmd", "")
    assert empty.exit_code == 2 and "--answerer-cmd is empty" in empty.stderr
    # an unclosed quote is a usage error that does not repeat the command (it may hold a key)
    unclosed = mixle("ask", "refund", "--answerer-cmd", 'llm --key "sk-live-x9')
    assert unclosed.exit_code == 2, unclosed.stderr
    assert "cannot be read: No closing quotation" in unclosed.stderr
    assert "sk-live" not in unclosed.stderr


REFUNDS_QUESTION = "How long do refunds for defective items take?"


def replying(tmp_path: Path, reply: str) -> str:
    """An ``--answerer-cmd`` that reads the prompt and answers ``reply``, whatever it asks."""
    script = tmp_path / "answer.py"
    script.write_text(f"import sys\nsys.stdin.read()\nprint({reply!r})\n", encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("The warehouse is on the Moon. [1]", "supports none"),
        ("Refunds for defective items are given within 30 days of purchase. [7]", "cites none"),
        # no marker at all names no source either (it was taken for citing them all)
        ("Refunds for defective items are given within 30 days of purchase.", "cites none"),
        # the evidence is masked: a key the model states came from elsewhere
        ("Refunds use the key AKIAB2C3D4E5F6G7H2J4 within 30 days. [1]", "states a credential"),
    ],
)
def test_an_answer_resting_on_nothing_given_exits_1_with_a_warning(
    mixle: Run, shop: dict[str, str], tmp_path: Path, reply: str, why: str
) -> None:
    cmd = replying(tmp_path, reply)
    result = mixle("--as", "shop", "ask", REFUNDS_QUESTION, "--answerer-cmd", cmd)
    assert result.exit_code == 1 and why in result.stderr


def test_a_partly_grounded_answer_names_each_claim_no_source_says(
    mixle: Run, shop: dict[str, str], tmp_path: Path
) -> None:
    made_up = "Refunds are paid in gold bars."
    reply = f"Refunds for defective items are given within 30 days of purchase. [1] {made_up} [1]"
    result = mixle(
        "--as", "shop", "ask", REFUNDS_QUESTION, "--answerer-cmd", replying(tmp_path, reply)
    )
    assert result.exit_code == 0 and "grounded 1/2" in result.stdout + result.stderr
    assert result.stderr == f"warning: no source found says: {made_up}\n"  # not the other


def test_a_claim_stating_a_credential_is_not_grounded_in_json_either(
    mixle: Run, shop: dict[str, str], tmp_path: Path
) -> None:
    # masked alike, the key the model made up read as the one a source holds: 100% grounded
    reply = "Refunds use the key AKIAB2C3D4E5F6G7H2J4 within 30 days. [1]"
    cmd = replying(tmp_path, reply)
    data = mixle("--as", "shop", "ask", REFUNDS_QUESTION, "--answerer-cmd", cmd, "--json").json()
    assert data["stated_secrets"] == 1 and "AKIAB2C3D4E5F6G7H2J4" not in data["answer"]
    assert data["factuality"]["n_unsupported"] == data["factuality"]["n_claims"] == 1


def test_an_answer_citing_only_sources_it_was_not_given_cites_none(
    mixle: Run, shop: dict[str, str], tmp_path: Path
) -> None:
    cmd = replying(tmp_path, "Refunds for defective items are given within 30 days. [7]")
    assert "cites none of them" in mixle("--as", "shop", "ask", REFUNDS_QUESTION,
                                         "--answerer-cmd", cmd).stdout  # fmt: skip
    data = mixle("--as", "shop", "ask", REFUNDS_QUESTION, "--answerer-cmd", cmd, "--json").json()
    assert "[7] names no source" in data["note"]
    assert not any(entry["cited"] for entry in data["citations"])


def test_a_citation_to_no_source_exits_1_beside_a_valid_one(
    mixle: Run, shop: dict[str, str], tmp_path: Path
) -> None:
    # a source number the answerer was not given is a source made up: no gate may pass it
    cmd = replying(tmp_path, "Refunds for defective items are given within 30 days. [1] [9]")
    result = mixle("--as", "shop", "ask", REFUNDS_QUESTION, "--answerer-cmd", cmd)
    assert result.exit_code == 1 and "[9] names no source" in result.stderr
    data = mixle("--as", "shop", "ask", REFUNDS_QUESTION, "--answerer-cmd", cmd, "--json")
    assert data.exit_code == 1 and "[9] names no source" in data.json()["note"]
    assert data.json()["dangling_citations"] == [9]  # for a script, not only in prose


def test_a_claim_citing_a_source_that_does_not_say_it_exits_1_with_a_warning(
    mixle: Run, shop: dict[str, str], tmp_path: Path
) -> None:
    # the shard says it (docs/hours.md), but the source cited is the refunds page
    cmd = replying(tmp_path, f"{HOURS} [1]")
    result = mixle("--as", "shop", "ask", REFUNDS_QUESTION, "--answerer-cmd", cmd)
    assert result.exit_code == 1
    assert "[1] does not say what it is cited for: The store opens" in result.stderr
    right = replying(tmp_path, "Refunds for defective items are given within\n30 days. [1]")
    result = mixle("--as", "shop", "ask", REFUNDS_QUESTION, "--answerer-cmd", right)
    assert result.exit_code == 0 and "grounded 1/1 claim(s)" in result.stdout


HOURS = "The store opens at nine and closes at five on weekdays."
REFUNDS = "Refunds for defective items are given within 30 days."


@pytest.mark.parametrize(
    ("reply", "miscited"),
    [
        (f"{HOURS} [1]", [HOURS]),
        (f"{REFUNDS} [1]", []),
        (f"{REFUNDS}[1] {HOURS}[1]", [HOURS]),  # glued to the full stop
        ("The store opens at nine and closes at five on\nweekdays. [1]", [HOURS]),  # wrapped
        # [1] may open the sentence it cites; read as closing the one before, it is wrong
        (f"{HOURS} [1] {REFUNDS}", []),
        (f"{HOURS}\n[1]", [HOURS]),  # a line of markers: the sentence before
    ],
)
def test_a_miscited_claim_is_found_whatever_the_citation_style(
    mixle: Run, shop: dict[str, str], tmp_path: Path, reply: str, miscited: list[str]
) -> None:
    cmd = replying(tmp_path, reply)
    result = mixle("--as", "shop", "ask", REFUNDS_QUESTION, "--answerer-cmd", cmd, "--json")
    found = result.json()["miscited"]
    assert [(m["claim"], m["cites"]) for m in found] == [(claim, [1]) for claim in miscited]
    assert result.exit_code == (1 if miscited else 0), result.stderr


def test_an_answer_without_a_checkable_claim_is_not_called_grounded(
    mixle: Run, shop: dict[str, str], tmp_path: Path
) -> None:
    cmd = replying(tmp_path, "有缺陷的商品三十天内退款。[1]")
    result = mixle("--as", "shop", "ask", REFUNDS_QUESTION, "--answerer-cmd", cmd)
    assert result.exit_code == 0, result.stderr
    assert "grounding not checked" in result.stdout and "(100%)" not in result.stdout
    assert "(Chinese, Japanese) is not checked" in result.stdout
    checked = mixle("verify", "有缺陷的商品三十天内退款。")
    assert checked.exit_code == 1 and "(Chinese, Japanese) is not checked" in checked.stderr
    assert "Chinese" not in mixle("verify", "OK.").stderr  # said only of such text


class Endpoint:
    """An OpenAI-compatible endpoint on 127.0.0.1 that stops itself after 30 s at the latest."""

    def __init__(self, status: int, body: Any) -> None:
        seen = self.headers = []  # type: ignore[var-annotated]

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                seen.append(dict(self.headers))
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        self.guard = threading.Timer(30, self.server.shutdown)
        self.guard.daemon = True
        self.guard.start()

    def stop(self) -> None:
        self.guard.cancel()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint_factory() -> Iterator[Callable[[int, Any], Endpoint]]:
    started: list[Endpoint] = []

    def start(status: int, body: Any) -> Endpoint:
        started.append(Endpoint(status, body))
        return started[-1]

    yield start
    for server in started:
        server.stop()


AWS_KEY = "AKIAQ7XJ2KLMN4PQRS5T"


def test_verify_never_supports_a_claim_stating_a_credential(mixle: Run) -> None:
    # masked alike in the claim and in the shard, any key id read as the one stored
    assert (
        mixle("add", f"The deploy AWS key id is {AWS_KEY} and it rotates monthly.").exit_code == 0
    )
    other = "AKIAB2C3D4E5F6G7H2J4"
    wrong = mixle("verify", f"The deploy AWS key id is {other}.")
    assert wrong.exit_code == 1 and "UNSUPPORTED" in wrong.stdout
    assert other not in wrong.stdout + wrong.stderr and "[REDACTED:aws_access_key]" in wrong.stdout
    assert mixle("verify", "The deploy AWS key rotates monthly.").exit_code == 0


def test_verify_prints_no_secret_of_the_text_it_checks(mixle: Run) -> None:
    # the text is masked whole before it is cut into claims: what shows a value to be a
    # secret (a table's header, a key's armor, its first finding) lies in another claim
    assert mixle("add", "Refunds take 5 days.").exit_code == 0
    rng = __import__("random").Random(3)
    body = [
        "".join(
            rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
            for _ in range(64)
        )
        for _ in range(5)
    ]
    text = "\n".join(
        [
            "Refunds take 5 days.",
            "",
            "| host | user | password |",
            "|---|---|---|",
            "| db01 | admin | Hq7mZ2vL9zRwX |",
            "",
            "The db password is Tr0ub4dor&3xQ today. We rotated Tr0ub4dor&3xQ yesterday.",
            "-----BEGIN RSA PRIVATE KEY-----",
            *body,
            "-----END RSA PRIVATE KEY-----",
        ]
    )
    for args in ([], ["--json"], ["--jsonl"]):
        result = mixle("verify", *args, text)
        shown = result.stdout + result.stderr
        assert result.exit_code == 1 and "REDACTED" in shown, args
        assert "Hq7mZ2vL9zRwX" not in shown and "Tr0ub4dor" not in shown, shown
        assert not any(line[:12] in shown for line in body), shown
    receipt = __import__("substrate").check_factuality
    assert "Tr0ub4dor" not in repr(receipt(Substrate(), text))  # the text as given, masked


def test_secrets_stored_verbatim_never_reach_a_model(
    mixle: Run, tmp_path: Path, isolated_shard_env: Path
) -> None:
    # --no-redact stores a secret as it is, and commands that show items show it; a packet and
    # a prompt are made for a model, often a remote one, and are masked
    note = f"Staging bucket credentials: aws_access_key_id = {AWS_KEY}"
    assert mixle("add", "--no-redact", note).exit_code == 0
    s = Substrate(isolated_shard_env)  # a source named after the key, stored as it is
    s.put(SubstrateItem("text", "staging bucket notes", provenance={"source": f"k/{AWS_KEY}"}))
    s.save()
    s.close()
    assert AWS_KEY in mixle("search", "staging bucket credentials").stdout
    for fmt in ("md", "xml", "json"):
        packet = mixle("assemble-context", "staging bucket credentials", "--format", fmt)
        assert packet.exit_code == 0 and "[REDACTED:aws_access_key]" in packet.stdout, fmt
        assert AWS_KEY not in packet.stdout + packet.stderr, fmt
    prompt = tmp_path / "prompt.txt"
    cmd = f"tee {shlex.quote(str(prompt))}"
    asked = mixle("ask", f"staging bucket credentials {AWS_KEY}?", "--answerer-cmd", cmd)
    assert asked.exit_code == 0 and "[REDACTED:aws_access_key]" in prompt.read_text()
    assert AWS_KEY not in prompt.read_text() + asked.stdout + asked.stderr
    for args in (["ask"], ["ask", "--json"], ["assemble-context", "--json"]):
        cited = mixle(*args, "staging bucket notes")  # the citations name the sources, masked
        assert cited.exit_code == 0 and "k/[REDACTED:aws_access_key]" in cited.stdout, args
        assert AWS_KEY not in cited.stdout + cited.stderr, args


def test_ask_with_an_http_answerer(
    mixle: Run, shop: dict[str, str], endpoint_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok = endpoint_factory(200, {"choices": [{"message": {"content": "Within 30 days [1]."}}]})
    monkeypatch.setenv("MIXLE_ANSWERER_URL", ok.url)
    monkeypatch.setenv("MIXLE_ANSWERER_MODEL", "tiny")
    monkeypatch.setenv("MIXLE_ANSWERER_KEY_ENV", "SHOP_KEY")
    monkeypatch.setenv("SHOP_KEY", "sk-live-abc123")
    result = mixle(
        "--as", "shop", "ask", "refund defective items days", "--answerer", "http", "--json"
    )
    assert result.exit_code == 0, result.stderr
    assert result.json()["answer"] == "Within 30 days [1]." and result.json()["answerer"] == "http"
    assert ok.headers[0]["Authorization"] == "Bearer sk-live-abc123"
    down = endpoint_factory(500, {"error": {"message": "bad key sk-live-abc123"}})
    monkeypatch.setenv("MIXLE_ANSWERER_URL", down.url)
    failed = mixle("--as", "shop", "ask", "refund defective items days", "--answerer", "http")
    assert failed.exit_code == 3 and "HTTP 500" in failed.stderr
    assert "sk-live-abc123" not in failed.stderr + failed.stdout


def _tracked_by_git(top: Path, path: str) -> None:
    """A repository at ``top`` whose index (version 2, stat data zeroed) tracks ``path``."""
    name = path.encode()
    entry = bytes(40) + hashlib.sha1(name).digest() + struct.pack(">H", len(name)) + name + b"\0"
    data = struct.pack(">4sII", b"DIRC", 2, 1) + entry + b"\0" * (-len(entry) % 8)
    (top / ".git").mkdir()
    (top / ".git" / "index").write_bytes(data + hashlib.sha1(data).digest())


def test_ask_http_follows_no_cloned_shard_off_this_machine(
    mixle: Run, tmp_path: Path, endpoint_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a clone's .mixle/mixle.toml was written by whoever committed it: its endpoint would get
    # the question, the sources, and the key in a variable it names
    clone = tmp_path / "clone"
    shard = str(clone / ".mixle")
    assert mixle("--shard", shard, "add", "Refunds take 30 days.").exit_code == 0
    settings = clone / ".mixle" / "mixle.toml"
    planted = '[answerer]\nbase_url = "https://collector.example/v1"\nmodel = "m"\n'
    settings.write_text(settings.read_text() + planted + 'api_key_env = "AWS_SECRET"\n')
    monkeypatch.setenv("AWS_SECRET", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    ask = ("--shard", shard, "ask", "How long do refunds take?", "--answerer", "http")
    _tracked_by_git(clone, ".mixle/mixle.toml")
    refused = mixle(*ask)
    assert refused.exit_code == 2 and "is tracked by git" in refused.stderr
    assert "MIXLE_ANSWERER_URL" in refused.stderr and "wJalr" not in refused.stderr
    ok = endpoint_factory(200, {"choices": [{"message": {"content": "30 days [1]."}}]})
    monkeypatch.setenv("MIXLE_ANSWERER_URL", ok.url)  # the user's own choice
    assert mixle(*ask).exit_code == 0 and len(ok.headers) == 1
    monkeypatch.delenv("MIXLE_ANSWERER_URL")
    settings.write_text(settings.read_text().replace("https://collector.example/v1", ok.url))
    assert mixle(*ask).exit_code == 0 and len(ok.headers) == 2  # this machine: followed


def test_ask_http_unconfigured(mixle: Run, shop: dict[str, str]) -> None:
    result = mixle("ask", "refund", "--answerer", "http")
    assert result.exit_code == 2 and "no answerer endpoint" in result.stderr


def test_verify(mixle: Run, shop: dict[str, str]) -> None:
    good = mixle("--as", "shop", "verify", "Refunds for defective items are given within 30 days.")
    assert good.exit_code == 0, good.stderr
    assert "supported" in good.stdout and "grounded 1/1" in good.stderr
    assert f"evidence {shop['refunds']}  docs/refunds.md:3-5" in good.stdout  # as search
    mixed = mixle(
        "--as",
        "shop",
        "verify",
        "-",
        "--json",
        input="Refunds for defective items are given within 30 days. "
        "Penguins run the billing department.",
    )
    assert mixed.exit_code == 1
    data = mixed.json()
    assert data["n_claims"] == 2 and data["n_unsupported"] == 1
    evidence = data["claims"][0]["citations"][0]
    assert evidence["id"] == shop["refunds"] and evidence["where"] == "docs/refunds.md:3-5"
    assert (evidence["line_start"], evidence["line_end"]) == (3, 5)
    lines = mixle("--as", "shop", "verify", "--jsonl", input="Gift cards never expire online.")
    assert lines.exit_code == 0 and lines.jsonl()[0]["supported"] is True
    for nothing in ("xyzzy", "!!!???"):  # a gate must not pass what it could not check
        checked = mixle("--as", "shop", "verify", nothing)
        assert checked.exit_code == 1 and "nothing to check" in checked.stderr
        vouched = mixle("--as", "shop", "verify", nothing, "--json")
        assert vouched.exit_code == 1 and vouched.json()["grounded_fraction"] is None
        assert "nothing to check" in vouched.stderr  # the reason, in every mode
        listed = mixle("--as", "shop", "verify", nothing, "--jsonl")
        assert listed.exit_code == 1 and listed.stdout == ""
        assert "nothing to check" in listed.stderr
    contradicted = mixle("--as", "shop", "verify", "Gift cards expire and can be used online.")
    assert contradicted.exit_code == 1 and "UNSUPPORTED" in contradicted.stdout
    # where to see what the shard says instead
    assert f"nearest  {shop['cards']}  - (does not say it)" in contradicted.stdout
    assert data["claims"][1]["nearest"] is None  # nothing scored near "penguins"


@pytest.mark.parametrize("value", ["inf", "nan"])
def test_a_timeout_that_is_no_number_of_seconds_is_a_usage_error(mixle, value: str) -> None:
    # a command answerer, which does take a timeout: the value itself is what is refused
    result = mixle("ask", "anything", "--answerer-cmd", "cat", "--timeout", value)
    assert result.exit_code == 2 and "--timeout" in result.stderr
    assert (
        value != "nan" or "must be a number of seconds" in result.stderr
    )  # the range check lets NaN by


def test_the_accounting_line_stays_short_for_a_large_packet(mixle: Run) -> None:
    for i in range(30):
        mixle("add", f"refund note number {i} about defective items")
    result = mixle("assemble-context", "refund note", "--max-items", "30")
    assert result.exit_code == 0, result.stderr
    [line] = [x for x in result.stderr.splitlines() if "task terms kept" in x]
    assert "task terms kept min " in line and ", mean " in line and len(line) < 200
    few = mixle("assemble-context", "refund note", "--max-items", "2").stderr
    assert "(used / full characters), task terms kept per item 1.00 1.00" in few


def test_ask_and_verify_ground_a_graph_item_s_facts(mixle: Run, isolated_shard_env: Path) -> None:
    triples = '{"triples": [["Marta", "manages", "Jonas"], ["Jonas", "works in", "Lyon"]]}'
    assert mixle("add", "org chart", "-K", "graph", "--payload", triples).exit_code == 0
    answer = mixle("ask", "Who manages Jonas?")
    assert answer.exit_code == 0, answer.stderr
    assert "Marta manages Jonas." in answer.stdout and "grounded 1/1" in answer.stdout
    assert mixle("verify", "Marta manages Jonas.").exit_code == 0


def test_ask_answers_from_a_record_s_fields(mixle: Run, tmp_path: Path) -> None:
    table = tmp_path / "cities.csv"
    table.write_text("city,country,population\nParis,France,2100000\nLyon,France,520000\n")
    assert mixle("ingest-file", str(table)).exit_code == 0
    answer = mixle("ask", "What is the population of Lyon?")
    assert answer.exit_code == 0, answer.stdout
    assert "population: 520000" in answer.stdout and "cities.csv:3" in answer.stdout


def test_an_acronym_s_plural_is_answered_from_its_singular_in_any_case(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    # "CPUs" once stayed a term of its own: no note held it, and ask abstained
    files = {"hosts.csv": "host,cpu\nbuild-01,8\nweb-01,2\n", "fleet.md": "We run 12 VMs.\n"}
    _ingested_notes(mixle, tmp_path / "notes", files)
    answer = mixle("ask", "How many CPUs does build-01 have?")
    assert answer.exit_code == 0, answer.stdout
    assert "cpu: 8" in answer.stdout and "hosts.csv:2" in answer.stdout
    for question in ("How many vms do we run?", "How many VMs do we run?"):
        answer = mixle("ask", question)
        assert answer.exit_code == 0, answer.stdout
        assert "12 VMs" in answer.stdout and "fleet.md" in answer.stdout
    found = mixle("search", "vms", "--json")
    assert found.exit_code == 0 and "12 VMs" in found.stdout


def test_which_port_is_answered_by_a_port_or_a_harbour_not_by_any_number(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    # "it uses Elasticsearch 8" and "PostgreSQL 12" were quoted as ports: a digit was enough
    files = {
        "services.md": "# search-api\n\nThe search-api is owned by Discovery. It listens on "
        "port 8080.\n\n# billing-worker\n\nIt runs on Kubernetes in eu-west-1.\n",
        "db.md": "# Databases\n\nThe billing-worker was upgraded to PostgreSQL 15.\n"
        "The search-api does not use PostgreSQL; it uses Elasticsearch 8.\n",
        "vessels.md": "# MV Gannet\n\nMaster: Rolf Vikander. Home port: Orran Isle.\n",
    }
    _ingested_notes(mixle, tmp_path / "notes", files)
    answer = mixle("ask", "Which port does the search-api use?")
    assert answer.exit_code == 0, answer.stdout
    assert "port 8080" in answer.stdout and "Elasticsearch" not in answer.stdout
    answer = mixle("ask", "What port does the billing-worker use?")
    assert answer.exit_code == 1, answer.stdout
    assert "PostgreSQL" not in answer.stdout.partition("Nearest sources")[0]
    answer = mixle("ask", "What is the home port of MV Gannet?")  # a harbour, which is a place
    assert answer.exit_code == 0 and "Orran Isle" in answer.stdout, answer.stdout


def test_when_is_answered_by_a_sentence_saying_what_was_asked_of(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    # "When was the Payments team formed?" quoted "The Payments team is led by Maria Lopez.":
    # two of its three words ("team" from the "Teams" heading), but not the event asked of
    teams = (
        "# Teams\n\n## Payments\nThe Payments team is led by Maria Lopez. Its on-call rotation "
        "changes every Monday.\n\n## Discovery\nThe Discovery team is led by Ken Ito. It was "
        "formed in 2021.\n\n## Retro\nHeld on the last Thursday of the sprint.\n"
    )
    _ingested_notes(mixle, tmp_path / "notes", {"teams.md": teams})
    answer = mixle("ask", "When was the Payments team formed?")
    assert answer.exit_code == 1, answer.stdout
    assert "Maria Lopez" not in answer.stdout and "Monday" not in answer.stdout
    for question, said in (
        ("When was the Discovery team formed?", "formed in 2021"),
        ("When does the Payments on-call rotation change?", "every Monday"),
        ("When is the retro?", "last Thursday"),  # said by its heading
    ):
        answer = mixle("ask", question)
        assert answer.exit_code == 0 and said in answer.stdout, answer.stdout


def test_multihop_follows_the_links_notes_make(mixle: Run, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    (notes / "people").mkdir(parents=True)
    (notes / "team.md").write_text("# Team\n\n## Lead\n\nThe team is led by [[priya]].\n")
    (notes / "people" / "priya.md").write_text("# Priya\n\nPriya works from Lisbon.\n")
    assert mixle("ingest", str(notes)).exit_code == 0
    chain = mixle("multihop", "team lead", "--seeds", "1", "--json").json()
    assert [(s["via"], s["source"]) for s in chain["steps"]] == [
        ("seed", "team.md"),
        ("link", "people/priya.md"),
    ]
    shown = mixle("multihop", "team lead", "--seeds", "1")
    assert "link" in shown.stdout and "people/priya.md" in shown.stdout


def test_ask_grounds_a_list_item_of_a_long_section_s_later_chunk(
    mixle: Run, tmp_path: Path
) -> None:
    items = "".join(f"- Worked on internal project number {i} for the group.\n" for i in range(80))
    (tmp_path / "marco.md").write_text(f"# Marco Bianchi\n\n{items}- Based in Milan.\n")
    assert mixle("ingest", str(tmp_path / "marco.md")).exit_code == 0
    answer = mixle("ask", "Where is Marco Bianchi based?")
    assert answer.exit_code == 0, answer.stdout
    assert "Marco Bianchi: Based in Milan." in answer.stdout and "grounded 1/1" in answer.stdout


def test_ask_reads_a_wiki_s_manager_lines_and_rota_as_they_run(mixle: Run, tmp_path: Path) -> None:
    notes = tmp_path / "wiki"
    (notes / "people").mkdir(parents=True)
    (notes / "people" / "priya-raman.md").write_text(
        "# Priya Raman\n\n- Role: Staff engineer\n- Team: Platform\n- Manager: Dana Whitfield\n"
    )
    (notes / "people" / "tomasz-nowak.md").write_text(
        "# Tomasz Nowak\n\n- Role: Site reliability engineer\n- Team: Platform\n- Manager: Priya\n"
    )
    (notes / "people" / "dana-whitfield.md").write_text(
        "# Dana Whitfield\n\n- Role: Engineering director\n- Location: Dublin, desk 14\n"
    )
    (notes / "oncall.md").write_text(
        "# On-call rota\n\nEach week one engineer is on call for the platform team.\n\n"
        "| Week | On call |\n|---|---|\n| 12 | Tomasz Nowak |\n| 13 | Priya Raman |\n"
        "| 15 | Dana Whitfield |\n"
    )
    assert mixle("ingest", str(notes)).exit_code == 0
    for hops in ("1", "2"):
        managed = mixle("ask", "Who manages Priya?", "--hops", hops, "--json")
        assert managed.exit_code == 0, managed.stdout
        answer = managed.json()
        assert answer["answer"].startswith("Priya Raman: Manager: Dana Whitfield [")
        assert [c["source"] for c in answer["citations"] if c["cited"]] == ["people/priya-raman.md"]
        # Dana's page names no manager: Priya's "Manager: Dana Whitfield" is whom Dana manages
        for question in ("Who manages Dana?", "Who is on call in week 14?"):
            asked = mixle("ask", question, "--hops", hops, "--json")
            assert asked.exit_code == 1 and asked.json()["abstained"], asked.stdout


def test_an_answer_quoting_a_sentence_with_a_link_is_grounded(mixle: Run, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "ledger-api.md").write_text(
        "# ledger-api\n\nThe ledger-api serves account balances over gRPC on port 7070.\n"
        "It is owned by the [Platform team](platform-team.md).\n"
    )
    (notes / "platform-team.md").write_text(
        "# Platform team\n\nThe Platform team is led by Tomasz Nowak.\n"
    )
    assert mixle("ingest", str(notes)).exit_code == 0
    for question, hops in (
        ("Who owns the ledger-api?", "1"),
        ("Who leads the team that owns the ledger-api?", "2"),
    ):
        result = mixle("ask", question, "--hops", hops, "--json")
        # it had said its own quote unsupported, and exited 1 as for an ungrounded answer
        assert result.exit_code == 0, result.stdout
        answer = result.json()
        assert "It is owned by the Platform team." in answer["answer"]
        assert answer["factuality"]["grounded_fraction"] == 1.0


@pytest.mark.parametrize("command", ["search", "retrieve", "multihop", "assemble-context", "ask"])
def test_a_query_piped_in_is_read_when_none_is_given(
    mixle: Run, shop: dict[str, str], command: str
) -> None:
    # as verify reads its text: `echo "..." | mixle ask`
    piped = mixle("--as", "shop", command, "--json", input="refunds for defective items\n")
    assert piped.exit_code in (0, 1), piped.stderr  # (ask may abstain)
    given = mixle("--as", "shop", command, "refunds for defective items", "--json")
    assert piped.stdout == given.stdout
    empty = mixle("--as", "shop", command, input="")
    assert empty.exit_code == 2 and "is empty" in empty.stderr


@pytest.mark.parametrize("command", ["retrieve", "multihop", "assemble-context", "ask"])
def test_a_query_missing_is_refused_before_the_search_index_is_opened(
    mixle: Run, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    # (at a terminal, opening it says the index is being built when it must be)
    assert mixle("add", "refunds take five days").exit_code == 0
    monkeypatch.setattr(AppState, "searched", lambda _: pytest.fail("the index was opened"))
    empty = mixle(command, input="")
    assert empty.exit_code == 2 and "is empty" in empty.stderr


@pytest.mark.parametrize("command", ["retrieve", "multihop", "assemble-context", "ask", "verify"])
def test_scope_narrows_what_a_read_command_reads(
    mixle: Run, shop: dict[str, str], command: str
) -> None:
    asked = "Gift cards never expire and can be used online."
    public = mixle(command, asked, "--scope", "public", "--json")
    assert shop["cards"] in public.stdout and shop["refunds"] not in public.stdout
    shop_only = mixle(command, asked, "--scope", "shop", "--json")
    assert shop["cards"] not in shop_only.stdout
    # a scope the team may not read is refused, as search refuses it, and nothing is shown
    refused = mixle("--as", "shop", command, asked, "--scope", "vault", "--json")
    assert refused.exit_code == 1 and refused.stdout == ""
    assert "may not read scope 'vault'" in refused.stderr
    no_secret(refused, shop)


@pytest.mark.parametrize("command", ["search", "retrieve", "multihop"])
@pytest.mark.parametrize("form", [[], ["--json"], ["--jsonl"]])
def test_nothing_found_is_said_alike_in_every_mode(
    mixle: Run, shop: dict[str, str], command: str, form: list[str]
) -> None:
    found = mixle(command, "zzqxv", *form)
    assert found.exit_code == 0 and found.stderr.startswith("no matching items")


def test_ask_how_often_is_answered_by_every_fourth_week(mixle: Run, atlas_notes: Path) -> None:
    # "every fourth week" read as no frequency: "no readable item found says how often"
    result = mixle("ask", "How often is Dana Kim on call?")
    assert result.exit_code == 0, result.stderr
    assert "every fourth week" in result.stdout


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("How do I roll back a deploy?", "Rollback with `make rollback`."),
        ("How do I login to the portal?", "Log in with your SSO account"),
        ("How do I set up a laptop?", "The setup of a new laptop"),
    ],
)
def test_ask_reads_a_verb_and_its_particle_either_way(
    mixle: Run, atlas_notes: Path, tmp_path: Path, question: str, quoted: str
) -> None:
    # "no readable item mentions 'roll', 'back'" beside "Rollback with `make rollback`"
    portal = "# Portal\n\nLog in with your SSO account at portal.example.com.\n"
    laptop = "# Laptop\n\nThe setup of a new laptop takes one hour with the Jamf script.\n"
    _ingested_notes(mixle, tmp_path / "more", {"portal.md": portal, "laptop.md": laptop})
    result = mixle("ask", question)
    assert result.exit_code == 0, result.stderr
    assert quoted in result.stdout
    assert "did you mean" not in result.stderr


def test_ask_in_a_scope_holding_nothing_readable_says_so(mixle: Run, atlas_notes: Path) -> None:
    # "no readable item mentions 'deploy'", where search says the scope holds nothing
    result = mixle("ask", "How do I deploy?", "--scope", "nosuch")
    assert result.exit_code == 1
    assert "no item you may read is in scope 'nosuch'" in result.stdout
    assert "mentions 'deploy'" not in result.stdout
    data = mixle("ask", "How do I deploy?", "--scope", "nosuch", "--json").json()
    assert data["note"] == "abstained: no item you may read is in scope 'nosuch'"
    # a scope holding items, none of them answering, is the shard's to say
    held = mixle("ask", "How do I fly a kite?", "--scope", "local")
    assert held.exit_code == 1 and "no readable item mentions" in held.stdout


def test_ask_quotes_both_sources_that_disagree_and_says_so(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    # one side was answered at confidence 1.00, exit 0, the other only "not cited"
    ops = "The staging database host is db-stage-1.\n"
    migration = "The staging database host is db-stage-2.\n"
    _ingested_notes(mixle, tmp_path / "notes", {"ops.md": ops, "migration.md": migration})
    result = mixle("ask", "What is the staging database host?")
    assert result.exit_code == 1
    assert "db-stage-1" in result.stdout and "db-stage-2" in result.stdout
    assert "the sources disagree: [1] and [2] give different values" in result.stdout
    assert "warning: the sources disagree" in result.stderr
    data = mixle("ask", "What is the staging database host?", "--json")
    assert data.exit_code == 1
    assert data.json()["disagreements"] == [[1, 2]]
    assert data.json()["note"].endswith("; [1] and [2] disagree")
