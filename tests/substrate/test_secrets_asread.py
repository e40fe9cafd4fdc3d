"""Secrets in texts that read otherwise than written: slashes escaped as JSON writers may,
underscores escaped as Markdown writers do, no-break and zero-width spaces
(``substrate.secrets.asread``)."""

from __future__ import annotations

import base64
import random
from pathlib import Path

from substrate import Substrate, SubstrateItem, admit, redact_secrets
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
STRIPE = "sk_live_51Hx9QpLmNz2Rt8VwY4kB3cD7eF"
GITHUB = "ghp_R8vL2kQ9mZx4TnW7pY3sB6hJ1cF5dG0aE2uK"


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
    parts = [WEBHOOK, DSN, KEY_ID, STRIPE, "note", "\\/", "/", "\\", "key", "pass", ":", " ",
             "\n", "_", "\u00a0", "\u200b"]  # fmt: skip
    odd = {"/": "\\/", "_": "\\_", " ": "\u00a0", ":": "\u200b:"}  # as written otherwise
    for _ in range(4000):
        text = "".join(rng.choice(parts) for _ in range(rng.randrange(1, 6)))
        text = "".join(odd[ch] if ch in odd and rng.random() < 0.3 else ch for ch in text)
        if find_secrets(text):
            assert may_hold_secrets([text]) and slices_may_hold_secrets(text), text
        cut = text[rng.randrange(len(text) + 1) :][: rng.randrange(1, 80)]
        if find_secrets(cut):
            assert slices_may_hold_secrets(text), (text, cut)


def test_tokens_with_markdown_escaped_underscores_are_found_whole() -> None:
    note = f"- Stripe (prod): {STRIPE}\n- CI bot: {GITHUB}\n".replace("_", "\\_")
    hits = found(note)
    assert [rule for rule, _ in hits] == ["stripe_key", "github_token"]
    assert [text.replace("\\_", "_") for _, text in hits] == [STRIPE, GITHUB]
    assert may_hold_secrets([note]) and slices_may_hold_secrets(note)


def test_no_break_and_zero_width_spaces_read_as_a_reader_sees_them() -> None:
    for gap in ("\u00a0", "\u202f", " \u200b", "\u2060 "):
        text = f"Staging DB password:{gap}{PASSWORD}"
        # (the text as written takes a zero-width space for part of the value: masked too)
        shown = [(rule, secret.strip("\u200b\u2060")) for rule, secret in found(text)]
        assert shown == [("sensitive_assignment", PASSWORD)], repr(gap)
        assert may_hold_secrets([text]) and path_slices_may_hold_secrets(f"n/{text}.md")
    assert found(f"Password\u200b: {PASSWORD}") == [("sensitive_assignment", PASSWORD)]
    assert not may_hold_secrets(["caf\u00e9\u00a0au lait", "a\u200bb"])  # (nothing either way)


def test_a_note_copied_from_a_wiki_is_stored_redacted(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    escaped_stripe = STRIPE.replace("_", "\\_")
    (notes / "wiki.md").write_text(
        f"# Staging\n\nDB password:\u00a0{PASSWORD}\n\nStripe: {escaped_stripe}\n",
        encoding="utf-8",
    )
    report = ingest_path(Substrate(tmp_path / "shard"), notes)
    assert report.redactions == 2
    stored = (tmp_path / "shard" / "items.jsonl").read_text(encoding="utf-8")
    assert PASSWORD not in stored and "51Hx9QpLmNz2Rt8VwY4kB3cD7eF" not in stored


def test_a_long_text_is_read_around_its_lines_that_read_otherwise() -> None:
    filler = "".join(f"an ordinary line {i} of the handbook\n" for i in range(400))
    stripe = STRIPE.replace("_", "\\_")
    text = f"{filler}DB password:\u00a0{PASSWORD}\n{filler}Stripe: {stripe}\n"
    hits = found(text)
    assert [(rule, secret.replace("\\_", "_")) for rule, secret in hits] == [
        ("sensitive_assignment", PASSWORD),
        ("stripe_key", STRIPE),
    ]


def test_a_key_block_beside_a_line_read_otherwise_is_masked_whole() -> None:
    # read as read, a long text is scanned around its odd lines alone: the block found there
    # in part must not stand for the whole one the text as written shows
    rng = random.Random(1)
    body = base64.b64encode(bytes(rng.randrange(256) for _ in range(1200))).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    pem = (
        "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END RSA PRIVATE KEY-----\n"
    )
    filler = "".join(f"an ordinary line {i} of the handbook\n" for i in range(200))
    for intro in ("The deploy key\u00a0:\n", "See https:\\/\\/wiki\n", "key\u200b\n"):
        masked = redact_secrets(filler + intro + pem + filler)
        assert not [line for line in lines if line in masked], repr(intro)
    # an armor line itself read otherwise: the block is read whole, whichever end it is
    armor = "PGP PRIVATE KEY BLOCK-----"
    pgp = f"-----BEGIN {armor}\n\n" + "\n".join(lines) + f"\n-----END {armor}\n"
    for odd in ("-----BEGIN\u00a0", "-----END\u00a0", "-----BEGIN\u200b"):
        block = pgp.replace(odd[:-1] + " ", odd, 1)
        for text in (block, filler + block + filler):
            masked = redact_secrets(text)
            assert not [line for line in lines if line in masked], (repr(odd), len(text))
