"""Secrets in texts that escape their slashes, as JSON writers may
(``substrate.secrets.slashes``)."""

from __future__ import annotations

import random
from pathlib import Path

from substrate import Substrate, SubstrateItem, admit
from substrate.ingest import ingest_path
from substrate.secrets.engine import find_secrets
from substrate.secrets.screen import (
    may_hold_secrets,
    path_slices_may_hold_secrets,
    slices_may_hold_secrets,
)

WEBHOOK = "https://hooks.slack.com/services/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"
PASSWORD = "Zr8XZx3scB8fn"
DSN = f"postgres://app:{PASSWORD}@db.internal.acme.io/app"
KEY_ID = "AKIAZ7Q3M5X1R9T2K4LB"


def escaped(text: str) -> str:
    return text.replace("/", "\\/")


def found(text: str) -> list[tuple[str, str]]:
    return [(hit.rule, text[hit.start : hit.end]) for hit in find_secrets(text)]


def test_a_secret_in_a_json_line_with_escaped_slashes_is_found_in_place() -> None:
    for secret in (WEBHOOK, DSN):
        plain = f'{{"level":"info","target":"{secret}"}}'
        line = escaped(plain)
        assert found(plain)  # (the rules find it written so)
        rules = [rule for rule, _ in found(plain)]
        assert [rule for rule, _ in found(line)] == rules
        for _, text in found(line):
            assert text.replace("\\/", "/") in secret
    assert found(escaped(DSN)) == [("url_credentials", PASSWORD)]


def test_the_screens_send_escaped_slashes_to_the_scan() -> None:
    text = escaped(DSN)  # (as written, it holds no keyword: ``//`` is escaped)
    assert may_hold_secrets([text]) and slices_may_hold_secrets(text)
    assert path_slices_may_hold_secrets(f"/notes/{text}.md")
    assert not may_hold_secrets(["a\\/b note", "a plain line"])  # (nothing either way)


def test_the_spans_found_with_slashes_plain_cover_the_same_characters() -> None:
    # whatever slashes are escaped around and inside it, a hit covers the characters that
    # read as the secret, and nothing but them
    rng = random.Random(3)
    base = f"see {WEBHOOK} and {DSN} or {KEY_ID}"
    plain_hits = [(hit.rule, base[hit.start : hit.end]) for hit in find_secrets(base)]
    for _ in range(300):
        text = "".join("\\/" if ch == "/" and rng.random() < 0.5 else ch for ch in base)
        hits = find_secrets(text)
        read = [(hit.rule, text[hit.start : hit.end].replace("\\/", "/")) for hit in hits]
        assert read == plain_hits
        for hit in hits:
            assert not text[hit.start : hit.end].startswith("/")  # never half an escape
            assert text[hit.match_start : hit.match_end].replace("\\/", "/") in base


def test_a_line_with_escaped_slashes_is_stored_and_indexed_redacted(tmp_path: Path) -> None:
    log = tmp_path / "app.log.txt"
    line = escaped(f'{{"webhook":"{WEBHOOK}","db":"{DSN}"}}')
    log.write_text(f"{line}\n", encoding="utf-8")
    shard = Substrate(tmp_path / "shard")
    report = ingest_path(shard, log)
    assert report.files_added == 1 and report.redactions == 2
    stored = (tmp_path / "shard" / "items.jsonl").read_text(encoding="utf-8")
    assert PASSWORD not in stored and "aUnArl63XykWZeiNNCiia3an" not in stored
    texts = " ".join(hit.text.lower() for hit, _ in shard.search("webhook"))
    assert texts and "aunarl63" not in texts
    gated = admit(SubstrateItem("text", f"webhook {escaped(WEBHOOK)}")).item  # (``mixle add``)
    assert "aUnArl63XykWZeiNNCiia3an" not in gated.text


def test_a_screen_that_finds_nothing_either_way_is_right() -> None:
    # False is exact: whatever is escaped how, find_secrets then finds nothing
    rng = random.Random(11)
    parts = [WEBHOOK, DSN, KEY_ID, "note", "\\/", "/", "\\", "key", "pass", ":", " ", "\n"]
    for _ in range(2000):
        text = "".join(rng.choice(parts) for _ in range(rng.randrange(1, 6)))
        text = "".join("\\/" if ch == "/" and rng.random() < 0.3 else ch for ch in text)
        if find_secrets(text):
            assert may_hold_secrets([text]) and slices_may_hold_secrets(text), text
        cut = text[rng.randrange(len(text) + 1) :][: rng.randrange(1, 80)]
        if find_secrets(cut):
            assert slices_may_hold_secrets(text), (text, cut)
