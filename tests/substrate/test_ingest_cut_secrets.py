"""Secrets that a chunk edge cuts apart are found in the whole text and masked in each piece."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path
from typing import Any

import pytest

from substrate.ingest import IngestReport, ingest_documents, ingest_file, ingest_path
from substrate.ingest.chunk import chunk_lines
from substrate.ingest.cutsecrets import CutSecret, cut_secrets, mask_cut
from substrate.secrets import scan_item
from substrate.store import Substrate

_RNG = random.Random(7)
KEY_LINES = [
    "".join(_RNG.choice(string.ascii_letters + string.digits + "+/") for _ in range(64))
    for _ in range(40)
]
KEY = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(KEY_LINES) + "\n-----END PRIVATE KEY-----\n"
FILLER = "Plain filler sentence here. " * 60  # longer than a chunk
TOKEN = "ghp_" + "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(36))


def test_each_chunk_gets_the_part_of_a_secret_that_lies_in_it() -> None:
    text = "aaaa bbbb " + TOKEN + " cccc"
    at = text.index(TOKEN)
    spans = [(0, at + 10), (at + 10, len(text))]  # the token is cut after 10 characters
    first, second = cut_secrets(text, spans)
    assert first is not None and second is not None
    assert first.parts == (CutSecret(at, at + 10, "github_token", True),)
    assert second.parts == (CutSecret(0, len(TOKEN) - 10, "github_token", False),)
    assert first.copies is second.copies  # worked out once for the whole text
    assert first.copies is not None and first.copies.forms[TOKEN] == "github_token"
    assert mask_cut(text[: at + 10], first.parts) == "aaaa bbbb [REDACTED:github_token]"
    assert cut_secrets(text, [(0, len(text))]) == [None]  # one chunk: the gate sees it whole
    assert cut_secrets("nothing here", [(0, 4), (5, 12)]) == [None, None]


def test_a_private_key_longer_than_a_chunk_leaves_no_line_readable(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "id_rsa.txt").write_text(KEY)
    (tmp_path / "src" / "keys.md").write_text(f"# Keys\n\n```\n{KEY}```\n\nAfter the key.\n")
    report = ingest_path(Substrate(tmp_path / "shard"), tmp_path / "src", chunk_chars=500)
    assert report.items_added > 4  # the key spans several chunks in each file
    assert report.redactions == 2 and report.redaction_rules == {"private_key_block": 2}
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    assert not any(line in stored for line in KEY_LINES)
    items = list(Substrate(tmp_path / "shard").iter_items())
    assert all(scan_item(item).clean for item in items)  # what was masked is not flagged again
    assert any(item.text.endswith("After the key.") for item in items)


def test_a_token_cut_by_the_size_bound_in_a_line_without_spaces(tmp_path: Path) -> None:
    line = '{"k":"' + "v" * 1480 + '","tok":"' + TOKEN + '","z":"' + "w" * 3000 + '"}'
    (tmp_path / "min.txt").write_text(line + "\n")
    report = ingest_path(Substrate(tmp_path / "shard"), tmp_path / "min.txt")
    assert report.items_added > 1 and report.redactions == 1
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    assert TOKEN[:8] not in stored and TOKEN[-12:] not in stored


def test_a_value_whose_keyword_ends_the_chunk_before_is_masked() -> None:
    text = "some words here and there password: Zx9#qLm2Wp7Rt and more words follow here"
    first, second = chunk_lines(text, 1, 40)
    assert first.text.endswith("password:") and second.text.startswith("Zx9#qLm2Wp7Rt")
    assert second.secrets is not None
    mask = "[REDACTED:sensitive_assignment]"
    assert mask_cut(second.text, second.secrets.parts) == f"{mask} and more words follow here"


def test_copies_of_a_secret_in_a_cut_text_are_masked_in_every_chunk(tmp_path: Path) -> None:
    secret = "Zq8vLm3XrT9pWk2N"
    (tmp_path / "a.md").write_text(
        f"# Wifi {secret}\n\npassword = {secret} and again {secret} here.\n\n{FILLER}\n\n"
        f"Later the note repeats {secret} once more.\n"
    )
    report = ingest_path(Substrate(tmp_path / "shard"), tmp_path / "a.md")
    assert report.items_added > 1 and report.redactions == 1
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    assert secret not in stored
    items = list(Substrate(tmp_path / "shard").iter_items())
    assert all("[REDACTED:sensitive_assignment]" in i.provenance["section"] for i in items)


def test_copies_in_the_tags_and_payload_of_a_cut_text_are_masked(tmp_path: Path) -> None:
    secret = "Zq8vT3pLm2Xw9"
    (tmp_path / "a.md").write_text(
        f"---\nrotation: rotate {secret} monthly\ntags: [deploy, {secret}]\n---\n"
        f"# Db\n\ndb_password: {secret}\n\n{FILLER}\n"
    )
    line = {"text": f"api_key = '{secret}' {FILLER}", "tags": [secret], "payload": {"n": secret}}
    (tmp_path / "b.jsonl").write_text(json.dumps(line) + "\n")
    report = ingest_path(Substrate(tmp_path / "shard"), tmp_path)
    assert report.items_added > 2
    assert secret not in (tmp_path / "shard" / "items.jsonl").read_text()


def test_without_redaction_the_chunks_keep_their_text(tmp_path: Path) -> None:
    (tmp_path / "id_rsa.txt").write_text(KEY)
    ingest_path(Substrate(tmp_path / "shard"), tmp_path, chunk_chars=500, redact=False)
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    assert all(line in stored for line in KEY_LINES)


def test_an_armored_key_with_blank_lines_in_plain_text_is_one_paragraph(tmp_path: Path) -> None:
    armor = "PGP PRIVATE KEY BLOCK-----"
    body = "\n".join(KEY_LINES[:20]) + "\n\n" + "\n".join(KEY_LINES[20:])
    pgp = f"-----BEGIN {armor}\nVersion: 1\n\n{body}\n=Ab3x\n-----END {armor}\n"
    (tmp_path / "backup.txt").write_text(f"backup:\n\n{pgp}\nafter the key\n")
    for chunk_chars in (500, 5000):  # cut into chunks, or seen whole by the gate
        shard = tmp_path / f"shard{chunk_chars}"
        report = ingest_path(Substrate(shard), tmp_path / "backup.txt", chunk_chars=chunk_chars)
        assert report.redactions == 1, chunk_chars
        stored = (shard / "items.jsonl").read_text()
        assert not any(line in stored for line in KEY_LINES), chunk_chars
        texts = [i.text for i in Substrate(shard).iter_items()]
        assert texts[0] == "backup:" and texts[-1] == "after the key"


def test_a_key_too_long_for_the_block_rule_is_still_masked(tmp_path: Path) -> None:
    rng = random.Random(3)
    lines = [
        "".join(rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(64))
        for _ in range(1200)  # about 78 KB: past the 64 KB the block rule reaches
    ]
    armor = "PGP PRIVATE KEY BLOCK-----"
    body = "\n".join(lines)
    (tmp_path / "k.txt").write_text(
        f"-----BEGIN {armor}\nVersion: 1\n\n{body}\n=Ab3x\n-----END {armor}\n"
    )
    ingest_path(Substrate(tmp_path / "shard"), tmp_path / "k.txt")
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    assert not any(line in stored for line in lines)


def test_nothing_is_scanned_for_cut_secrets_when_nothing_is_redacted() -> None:
    from substrate.ingest.formats import PARSERS
    from substrate.ingest.formats.context import ParseContext

    text = f"{FILLER} token = {TOKEN} {FILLER}"  # one paragraph, cut into chunks
    for parse in ("markdown", "text", "rst"):
        kept = PARSERS[parse](f"# T\n\n{text}", ParseContext(500, redact=False)).segments
        masked = PARSERS[parse](f"# T\n\n{text}", ParseContext(500)).segments
        assert len(kept) > 1 and all(s.secrets is None for s in kept), parse
        assert any(s.secrets is not None for s in masked), parse


def test_credentials_in_tables_field_lists_and_named_entries_are_not_stored(
    tmp_path: Path,
) -> None:
    words = [
        "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(12)) + "#4"
        for _ in range(4)
    ]
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "runbook.md").write_text(
        f"# Prod access\n\n| key | value |\n|---|---|\n| DB_PASSWORD | {words[0]} |\n", "utf-8"
    )
    (notes / "deploy.rst").write_text(f"Deploy\n======\n\n:password: {words[1]}\n", "utf-8")
    (notes / "env.json").write_text(json.dumps([{"name": "DB_PASSWORD", "value": words[2]}]))
    (notes / "settings.csv").write_text(f"key,value\nDB_PASSWORD,{words[3]}\n", "utf-8")
    shard = tmp_path / "shard"
    report = ingest_path(Substrate(shard), notes)
    assert report.files_added == 4 and report.redactions == 4
    stored = (shard / "items.jsonl").read_text("utf-8")
    assert not [w for w in words if w in stored]


def test_a_credentials_table_longer_than_a_chunk_keeps_no_password(tmp_path: Path) -> None:
    # the header names the column; a row several chunks below it holds only the value
    passwords = ["".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(14))]
    passwords += [p[::-1] + "!x" for p in passwords]
    rows = [f"| host-{i:03d} | deploy | not set here |" for i in range(60)]
    rows[40] = f"| db-main | deploy | {passwords[0]} |"
    rows[59] = f"| db-replica | deploy | `{passwords[1]}` |"
    note = "# Access\n\n| host | user | password |\n|---|---|---|\n" + "\n".join(rows) + "\n"
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "access.md").write_text(note)
    report = ingest_path(Substrate(tmp_path / "shard"), tmp_path / "src", chunk_chars=600)
    assert report.items_added > 2 and report.redactions == 2
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    assert not any(password in stored for password in passwords)
    assert "not set here" in stored  # the other cells are kept


def test_a_secret_manifest_split_into_paragraphs_in_a_text_file_is_masked(tmp_path: Path) -> None:
    # the kind that makes every value a secret stands paragraphs away from the values: the
    # text file is scanned whole, as one long section is, not paragraph by paragraph
    value, other = "c3VwZXItc2VjcmV0LXBhc3N3b3JkLTQy", "YW5vdGhlci1zZWNyZXQtdmFsdWUtOTc="
    manifest = (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\n\n"
        f"data:\n  tls.key: {value}\n\n  ca.pem: {other}\n"
    )
    (tmp_path / "manifest.txt").write_text(manifest)
    report = ingest_path(Substrate(tmp_path / "shard"), tmp_path / "manifest.txt")
    assert report.items_added == 3 and report.redactions == 2
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    assert value not in stored and other not in stored
    items = list(Substrate(tmp_path / "shard").iter_items())
    assert all(scan_item(item).clean for item in items)
    assert any(item.text.startswith("apiVersion: v1") for item in items)


def test_a_chunked_section_with_only_a_short_secret_keeps_its_provenance(tmp_path: Path) -> None:
    # a password of three characters has no copies worth masking: its chunks still say
    # where they came from
    body = "The format method allows for basic customization of the output string.\n" * 25
    url = "const myURL = new URL('https://a:b@xn--g6w251d?abc#foo');\n"
    (tmp_path / "url.md").write_text(f"# url.format\n\n{body}\n{url}", encoding="utf-8")
    store = Substrate(tmp_path / "shard")
    ids = ingest_path(store, tmp_path / "url.md").ids
    items = [store.get(i) for i in ids]
    assert len(items) > 1
    for item in items:
        assert item is not None
        assert item.provenance["source"].endswith("url.md")
        assert item.provenance["section"] == "url.format"


def test_a_private_key_given_a_line_an_item_keeps_no_line_readable(tmp_path: Path) -> None:
    # ingest_file's .txt and .md store each line as an item: the gate sees one line at a time
    (tmp_path / "ops.txt").write_text(
        f"deploy key:\n{KEY}after the key\npassword:\n  Xq7vLp9sTz2wKm4R\n"
    )
    (tmp_path / "ops.md").write_text(f"deploy key:\n{KEY}")
    shard = Substrate(tmp_path / "shard")
    report = IngestReport()
    ids = ingest_file(shard, tmp_path / "ops.txt", report=report)
    ingest_file(shard, tmp_path / "ops.md")
    shard.save()
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    assert not any(line in stored for line in KEY_LINES)
    assert "Xq7vLp9sTz2wKm4R" not in stored  # its key on the line before
    assert report.redactions == 2  # the key once (its header line is masked with it)
    texts = [shard.get(i).text for i in ids]
    assert texts[0] == "deploy key:" and "after the key" in texts
    assert len(ids) == len(KEY_LINES) + 6  # a line each, as before


_PGP = "-----BEGIN PGP PRIVATE KEY BLOCK-----"
_ENCRYPTED = "-----BEGIN RSA PRIVATE KEY-----"


@pytest.mark.parametrize(
    "docs",
    [
        ["the key:", *KEY.splitlines(), {"text": "after", "tags": ["x"]}],
        # armor headers, and a blank line, are key material too
        [_PGP, "Version: GnuPG v1", "", *KEY_LINES, _PGP.replace("BEGIN", "END")],
        [_ENCRYPTED, "Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,0A1B", *KEY_LINES],
        # however its lines are padded
        ["job started", *("    " + line for line in KEY.splitlines()), "job done"],
        ["job started", *(line + "\r" for line in KEY.splitlines()), "job done"],
    ],
)
def test_a_private_key_given_a_passage_a_line_keeps_no_line_readable(
    tmp_path: Path, docs: list[Any]
) -> None:
    shard = Substrate(tmp_path / "shard")
    report = IngestReport()
    ids = ingest_documents(shard, docs, report=report)
    shard.save()
    assert report.redactions == 1  # the key, once
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    assert not any(line in stored for line in KEY_LINES)
    last = docs[-1]
    if isinstance(last, dict):  # the passage after it keeps its own fields
        assert shard.get(ids[-1]).tags == last["tags"]  # type: ignore[union-attr]


@pytest.mark.parametrize("named", [True, False])
def test_a_key_logged_a_line_a_row_in_json_lines_keeps_no_line_readable(
    tmp_path: Path, named: bool
) -> None:
    rows = ["job started", *KEY.splitlines(), "job done"]
    (tmp_path / "logs").mkdir()
    log = tmp_path / "logs" / "run.jsonl"
    log.write_text("".join(json.dumps({"text": row}) + "\n" for row in rows))
    shard = Substrate(tmp_path / "shard")
    if named:
        ingest_file(shard, log)
        shard.save()
    else:
        ingest_path(shard, tmp_path / "logs")
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    assert not any(line in stored for line in KEY_LINES) and "job done" in stored


def test_passages_between_a_header_and_a_footer_in_others_are_no_key(tmp_path: Path) -> None:
    # documents of their own: a key's header in one and its footer in another make no key of
    # the tickets between them, nor does a keyword in one a secret of the next
    tickets = [
        "-----BEGIN RSA PRIVATE KEY-----",
        "Printer on floor 3 is jammed; call facilities.",
        "VPN drops every hour since the update.",
        "-----END RSA PRIVATE KEY-----",
        "API key:",
        "JIRA-12345",
    ]
    shard = Substrate(tmp_path / "shard")
    report = IngestReport()
    ids = ingest_documents(shard, tickets, report=report)
    texts = [shard.get(i).text for i in ids]
    assert texts[1:] == tickets[1:] and report.redactions == 1  # the header, as alone


def test_lines_without_a_secret_are_stored_as_given(tmp_path: Path) -> None:
    shard = Substrate(tmp_path / "shard")
    lines = ["password reset is in the wiki", "token rotation: weekly"]
    assert [shard.get(i).text for i in ingest_documents(shard, lines)] == lines
    raw = ingest_documents(shard, KEY.splitlines(), source="raw", redact=False)
    assert [shard.get(i).text for i in raw] == KEY.splitlines()  # asked for: kept
