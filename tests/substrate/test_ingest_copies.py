"""A secret the gate finds in one item of a source is masked where it stands bare in the others."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from substrate.ingest import (
    ingest_documents,
    ingest_file,
    ingest_path,
    ingest_records,
    ingest_traces,
)
from substrate.store import Substrate

PASSWORD = "Wm4#tR8yUe"
OTHER = "Jc3&bF7yUk"

FILES = {
    "runbook.md": f"# Staging\n\nSet DB_PASSWORD={PASSWORD} here.\n\n# Help\n\nTry {PASSWORD}.\n",
    "notes.txt": f"The vault password: {PASSWORD}\n\n(later)\n\nReminder: {PASSWORD}\n",
    "log.jsonl": (
        json.dumps({"event": "set", "password": PASSWORD})
        + "\n"
        + json.dumps({"event": "login", "msg": f"user typed {PASSWORD}"})
        + "\n"
    ),
    "people.csv": f'user,password,note\nal,{PASSWORD},first\nbo,{OTHER},"shares {PASSWORD}"\n',
}


OLD_NS = 1_600_000_000_000_000_000


def _stored(shard: Path) -> str:
    return (shard / "items.jsonl").read_text()


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("jobs", [1, 2])
def test_ingest_masks_copies_in_every_item_of_the_file(
    tmp_path: Path, name: str, jobs: int
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / name).write_text(FILES[name])
    # older than the run: no hash of a file holding a secret is kept, so only a trusted
    # modification time finds it unchanged (a file edited just before would be read again)
    os.utime(tmp_path / "src" / name, ns=(OLD_NS, OLD_NS))
    shard = tmp_path / "shard"
    report = ingest_path(Substrate(shard), tmp_path / "src", jobs=jobs)
    assert report.items_added >= 2 and PASSWORD not in _stored(shard)
    # each secret counted once, where it was found, not at its copies
    assert report.redactions == (2 if name == "people.csv" else 1)
    again = ingest_path(Substrate(shard), tmp_path / "src", jobs=jobs)
    assert again.files_unchanged == 1 and again.items_added == 0


def test_items_that_differ_only_by_their_secrets_both_stay(tmp_path: Path) -> None:
    text = f"password: {PASSWORD}\n\npassword: {OTHER}\n\ntry {PASSWORD}\n\ntry {OTHER}\n"
    (tmp_path / "pw.txt").write_text(text)
    store = Substrate(tmp_path / "shard")
    report = ingest_path(store, tmp_path / "pw.txt")
    texts = sorted(item.text for item in store.iter_items())
    assert report.items_added == 4 and len(texts) == 4  # masked alike, yet four items
    assert PASSWORD not in _stored(tmp_path / "shard") and OTHER not in _stored(tmp_path / "shard")


def test_the_gate_reads_each_item_once_though_copies_are_masked_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import substrate.ingest.build as build

    gated: list[str] = []
    real = build.admit

    def counted(item: object, **kwargs: object) -> object:
        gated.append(item.text)  # type: ignore[attr-defined]
        return real(item, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(build, "admit", counted)
    (tmp_path / "two.md").write_text(f"# A\n\npassword: {PASSWORD}\n\n# B\n\nuse {PASSWORD}\n")
    store = Substrate()
    ingest_path(store, tmp_path / "two.md", jobs=1)
    # the item holding the secret, once: the file is not built a second time for the copy
    assert len(gated) == 1
    texts = sorted(item.text for item in store.iter_items())
    mask = "[REDACTED:sensitive_assignment]"
    assert texts == [f"# A\n\npassword: {mask}", f"# B\n\nuse {mask}"]


def test_computed_provenance_names_every_field_ingestion_adds_after_the_gate(
    tmp_path: Path,
) -> None:
    from substrate.gate import REDACTIONS_KEY
    from substrate.ingest.prepare import COMPUTED_PROVENANCE

    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "bad.jsonl").write_text('{"a": 1}\n{oops\n')
    store = Substrate()
    ingest_path(store, tmp_path, jobs=1)
    # the content's own fields, which masking a copy may change
    content = {"source", "path", "section", REDACTIONS_KEY, "row"}
    added = {key for item in store.iter_items() for key in item.provenance} - content
    assert added <= COMPUTED_PROVENANCE, added - COMPUTED_PROVENANCE


def test_the_seed_ingest_functions_mask_copies_across_items(tmp_path: Path) -> None:
    store = Substrate()
    (tmp_path / "t.jsonl").write_text(
        json.dumps({"input": f"set the password: {PASSWORD} please", "answer": "ok"})
        + "\n"
        + json.dumps({"input": "what was it?", "answer": f"it was {PASSWORD}"})
        + "\n"
    )
    (tmp_path / "people.csv").write_text(FILES["people.csv"])
    ids = ingest_traces(store, tmp_path / "t.jsonl")
    ids += ingest_file(store, tmp_path / "people.csv")
    ids += ingest_documents(store, [f"the vault password: {PASSWORD}", f"remember {PASSWORD}"])
    ids += ingest_records(store, [{"password": PASSWORD}, {"note": f"it is {PASSWORD}"}])
    items = [store.get(i) for i in ids]
    assert len(set(ids)) == len(ids) == 8
    dumped = json.dumps([item.to_json() for item in items if item is not None])
    assert PASSWORD not in dumped
    assert all(item is not None and item.id == i for item, i in zip(items, ids, strict=True))


def test_an_authorization_header_kept_in_a_field_is_redacted_in_every_format(
    tmp_path: Path,
) -> None:
    basic = "Basic c3ZjOlBxN3JaMm1LOXdYNHZC"  # "svc:Pq7rZ2mK9wX4vB"
    tree = tmp_path / "in"
    tree.mkdir()
    (tree / "calls.jsonl").write_text(json.dumps({"headers": {"Authorization": basic}}) + "\n")
    (tree / "users.csv").write_text(f"name,Authorization\nal,{basic}\n")
    (tree / "api.md").write_text(f"---\nAuthorization: {basic}\n---\n# API\n\nCall it.\n")
    shard = tmp_path / "shard"
    report = ingest_path(Substrate(shard), tree)
    assert report.redactions == 3  # one per file (a record's text repeating its payload too)
    assert "c3ZjOlBx" not in _stored(shard)


def test_a_plain_word_found_as_a_password_is_not_masked_across_the_file(tmp_path: Path) -> None:
    # a changelog's example: the project's name in every link must survive it
    fixes = "".join(f"* fix (https://github.com/nodejs/node/pull/5243{i})\n" for i in range(5))
    (tmp_path / "CHANGELOG.md").write_text(
        "# Changelog\n\n## 20.6.0\n\n```text\nPASSWORD=nodejs\n```\n\n## 20.5.0\n\n"
        f"{fixes}* nodejs now builds on riscv\n"
    )
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path / "CHANGELOG.md")
    texts = {item.provenance["section"]: item.text for item in store.iter_items()}
    assert "nodejs" not in texts["Changelog > 20.6.0"]
    assert "github.com/nodejs/node/pull" in texts["Changelog > 20.5.0"]
    assert "nodejs now builds" in texts["Changelog > 20.5.0"]


def _copies_found(secrets: dict[str, str], text: str) -> list[str]:
    """The copies of ``secrets`` found in ``text``, alike by one pattern (few secrets) and by
    the index of many forms."""
    from substrate.secrets.copies import copies_of, copy_spans

    found = []
    for extra in ({}, {f"Xy{i:04d}zzQ": "r" for i in range(80)}):
        copies = copies_of(secrets | extra)
        assert copies is not None
        found.append([text[a:b] for a, b, _ in copy_spans(text, copies)])
    assert found[0] == found[1]
    return found[0]


def test_a_plain_word_inside_a_name_is_left_alone_and_a_generated_value_is_not() -> None:
    secrets = {"python": "r", "Tr0ub4dor": "r"}
    text = "assert_python_ok, python; __Tr0ub4dor__ dump_Tr0ub4dor.sql aTr0ub4dor"
    assert _copies_found(secrets, text) == ["python", "Tr0ub4dor", "Tr0ub4dor"]
    # "_" marking emphasis joins a plain word to no other
    emphasis = "_python_ and __python__, python_, not python_ok"
    assert _copies_found(secrets, emphasis) == ["python"] * 3


def test_a_plain_word_joined_to_another_by_a_hyphen_is_part_of_it_a_generated_value_not() -> None:
    secrets = {"marmalade": "r", "Tr0ub4dor": "r"}
    text = "marmalade-jar, old-marmalade; Tr0ub4dor-2.zip, bob-Tr0ub4dor (marmalade)"
    assert _copies_found(secrets, text) == ["Tr0ub4dor", "Tr0ub4dor", "marmalade"]


def test_a_plain_word_password_said_again_once_is_still_masked_across_the_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "runbook.md").write_text(
        "# Staging\n\nDB_PASSWORD=dragonfly\n\n# Help\n\nIf it fails, try dragonfly again.\n"
    )
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path / "runbook.md")
    assert "dragonfly" not in _stored(tmp_path / "shard")
    store = Substrate()
    ingest_documents(store, ["the vault password: dragonfly", "remember dragonfly"])
    assert all("dragonfly" not in item.text for item in store.iter_items())


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_plain_word_password_given_with_its_key_many_times_is_masked_where_it_is_bare(
    tmp_path: Path, jobs: int
) -> None:
    envs = "".join(f"# {e}\n\n```\nDB_PASSWORD=marmalade\n```\n\n" for e in "abcde")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "env.md").write_text(envs + "# Help\n\nPaste marmalade once more.\n")
    rows = "".join(f"u{i},sunshine,x\n" for i in range(5))
    (tmp_path / "src" / "users.csv").write_text(
        f"user,password,note\n{rows}frank,hunter,told to use sunshine as fallback\n"
    )
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), tmp_path / "src", jobs=jobs)
    stored = _stored(shard)
    assert "marmalade" not in stored and "sunshine" not in stored


def test_a_copy_right_after_an_escape_of_a_quoted_string_is_masked() -> None:
    secrets = {"marmalade": "r", "Xk9pQ2mZ7vRw8tLqB3nD": "r"}
    logged = '{"msg": "auth with\\nmarmalade and\\tXk9pQ2mZ7vRw8tLqB3nD done"} nmarmalade'
    assert _copies_found(secrets, logged) == ["marmalade", "Xk9pQ2mZ7vRw8tLqB3nD"]
