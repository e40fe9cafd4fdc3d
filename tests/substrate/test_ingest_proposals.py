"""A re-ingest keeps the proposals of the items it keeps, and tells of those it withdraws."""

from __future__ import annotations

from pathlib import Path

import pytest

from substrate.ingest import ingest_path
from substrate.proposals import PENDING, pending, proposal_events, propose
from substrate.store import Substrate


def _ids_by_section(shard: Path) -> dict[str, str]:
    return {i.provenance["section"]: i.id for i in Substrate(shard).iter_items()}


def _write(path: Path, beta: str) -> None:
    path.write_text(f"# A\n\nAlpha text here.\n\n# B\n\n{beta}\n")


def _sections_published(
    tmp_path: Path, scope: str, sections: str, to: str
) -> tuple[Path, Path, dict[str, str]]:
    """Notes of sections A and B ingested into ``scope``, then the ``sections`` named (of
    "AB") published into ``to``, and section B edited; the notes, the shard and the ids by
    section."""
    from substrate.spaces import publish

    notes, shard = tmp_path / "notes", tmp_path / "shard"
    notes.mkdir()
    _write(notes / "n.md", "Beta text here.")
    ingest_path(Substrate(shard), notes, scope=scope)
    ids = _ids_by_section(shard)
    store = Substrate(shard)
    publish(store, [ids[name] for name in sections], to=to)
    store.save()
    _write(notes / "n.md", "Beta text changed.")  # section A is as it was, word for word
    return notes, shard, ids


def _published(tmp_path: Path, files: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """Notes written from ``files``, ingested as team ops and every item published to
    public; the shard and each item's text by id."""
    from substrate.spaces import publish

    notes, shard = tmp_path / "notes", tmp_path / "shard"
    notes.mkdir()
    for name, text in files.items():
        (notes / name).write_text(text)
    ingest_path(Substrate(shard), notes, scope="ops")
    store = Substrate(shard)
    texts = {item.id: item.text for item in store.iter_items()}
    publish(store, list(texts), to="public")
    store.save()
    return shard, texts


def _stale_after(shard: Path, files: dict[str, str], texts: dict[str, str]) -> set[str]:
    """The texts of the items freshness tells stale once ``files`` are rewritten and the
    team's notes ingested again."""
    from substrate.freshness import freshness_report

    notes = shard.parent / "notes"
    for name, text in files.items():
        (notes / name).write_text(text)
    ingest_path(Substrate(shard), notes, scope="ops")
    return {texts[s["item_id"]] for s in freshness_report(Substrate(shard))["stale"]}


def test_a_proposal_survives_an_edit_elsewhere_in_its_file(tmp_path: Path) -> None:
    notes, shard = tmp_path / "notes", tmp_path / "shard"
    notes.mkdir()
    _write(notes / "n.md", "Beta text here.")
    ingest_path(Substrate(shard), notes)
    alpha = _ids_by_section(shard)["A"]
    store = Substrate(shard)
    propose(store, [alpha], to="public", by="ana")
    store.save()
    created = Substrate(shard).get(alpha).created_at  # type: ignore[union-attr]

    _write(notes / "n.md", "Beta text changed.")
    report = ingest_path(Substrate(shard), notes)
    assert report.items_rewritten == 1 and report.notices == []
    kept = Substrate(shard).get(alpha)
    assert kept is not None and kept.created_at == created
    assert kept.provenance["proposal"]["status"] == PENDING
    assert [e["to"] for e in proposal_events(kept)] == ["public"]
    assert [i.id for i in pending(Substrate(shard))] == [alpha]


def test_a_replaced_or_removed_item_s_pending_proposal_is_told(tmp_path: Path) -> None:
    notes, shard = tmp_path / "notes", tmp_path / "shard"
    notes.mkdir()
    _write(notes / "n.md", "Beta text here.")
    (notes / "other.md").write_text("# C\n\nGamma.\n")
    ingest_path(Substrate(shard), notes)
    ids = _ids_by_section(shard)
    store = Substrate(shard)
    propose(store, [ids["B"], ids["C"]], to="public", by="ana")
    store.save()

    _write(notes / "n.md", "Beta text changed.")
    (notes / "other.md").unlink()
    report = ingest_path(Substrate(shard), notes)
    told = {n.source: n.reason for n in report.notices}
    assert set(told) == {"n.md", "other.md"}
    assert f"item {ids['B']} for public is withdrawn" in told["n.md"]
    assert "propose the new version" in told["n.md"]
    assert "no longer there" in told["other.md"]
    assert report.ok  # nothing was wrong with the input
    assert report.as_dict()["notices"][0]["source"] in told
    assert pending(Substrate(shard)) == []


def test_a_pending_proposal_whose_tags_changed_is_withdrawn_and_told(tmp_path: Path) -> None:
    notes, shard = tmp_path / "notes", tmp_path / "shard"
    notes.mkdir()
    page = notes / "n.md"
    page.write_text("---\ntags: [a]\n---\n# A\n\nAlpha text here.\n")
    ingest_path(Substrate(shard), notes)
    [alpha] = _ids_by_section(shard).values()
    store = Substrate(shard)
    propose(store, [alpha], to="public", by="ana")
    store.save()
    page.write_text("---\ntags: [a, b]\n---\n# A\n\nAlpha text here.\n")  # same id, new tags
    report = ingest_path(Substrate(shard), notes)
    [notice] = report.notices
    assert f"item {alpha} for public is withdrawn" in notice.reason and "tags" in notice.reason
    kept = Substrate(shard).get(alpha)
    assert kept is not None and "proposal" not in kept.provenance
    assert [e["event"] for e in proposal_events(kept)] == ["proposed"]  # the history stays
    assert pending(Substrate(shard)) == []


def test_a_published_copy_is_stale_only_when_its_own_text_left_the_file(tmp_path: Path) -> None:
    from substrate.freshness import freshness_report

    notes, shard, ids = _sections_published(tmp_path, "platform", "AB", to="public")
    told = ingest_path(Substrate(shard), notes, scope="platform")  # leaving public's copies
    assert [n.reason for n in told.notices] == [
        f"item {ids['B']}, published into public, keeps the text the file no longer has; the "
        "file's new text is a new item here: propose or publish it to send it"
    ]
    report = freshness_report(Substrate(shard), rehash=True)
    assert [s["item_id"] for s in report["stale"]] == [ids["B"]]
    assert report["n_items"] == 3  # B's new text is platform's, to propose anew


def test_a_published_copy_is_fresh_only_as_a_whole_section_or_paragraph(tmp_path: Path) -> None:
    guide = "# Guide\n\nAbout the guide.\n\n## Limits\n\nThe limit is 10\n\n## Refunds\n\n"
    shard, texts = _published(
        tmp_path,
        {
            "guide.md": guide + "Refunds take 5 days.\n\n## Keep\n\nThis stays.\n",
            "oncall.txt": "On-call is Bob\n\nEscalate to Ann.\n",
            "hosts.csv": "host\nalpha\nbeta\n",
        },
    )
    guide = guide.replace("limit is 10", "limit is 100")  # a word longer: not the same line
    refunds = "Refunds take 5 days.\n\nSince March they take 15 days.\n"  # a paragraph more
    edited = {
        "guide.md": guide + refunds + "\n## Keep\n\nThis stays.\n",
        "oncall.txt": "On-call is Bobby\n\nEscalate to Ann.\n",
        "hosts.csv": "host\nalphabeta-decommissioned\n",  # a row is no substring of one
    }
    stale = _stale_after(shard, edited, texts)
    assert {t.split("\n")[0] for t in stale} == {
        "## Limits",
        "## Refunds",
        "On-call is Bob",
        *(t.split("\n")[0] for t in texts.values() if "alpha" in t or "beta" in t),
    }
    fresh = set(texts.values()) - stale
    assert fresh == {"# Guide\n\nAbout the guide.", "## Keep\n\nThis stays.", "Escalate to Ann."}


def test_ingest_tells_of_a_copy_left_behind_only_in_a_scope_its_team_reads(
    tmp_path: Path,
) -> None:
    # published by a reader of every scope
    notes, shard, ids = _sections_published(tmp_path, "research", "B", to="finance")
    told = ingest_path(Substrate(shard), notes, scope="research")
    assert not any(ids["B"] in n.reason or "finance" in n.reason for n in told.notices)


def test_a_published_copy_is_read_for_as_ingest_reads_the_file(tmp_path: Path) -> None:
    head = "---\ntitle: G\n---\nPreamble.  \n\nGuide\n=====\n\nIntro.  \n\n"  # setext, spaces
    tail = "Last\n----\n\nThe end.\n"
    limits, refunds = "## Limits\n\nThe limit is 10\n", "## Refunds\n\nFive days.\n"
    shard, texts = _published(tmp_path, {"g.md": f"{head}{limits}\n{refunds}\n{tail}"})
    retired = f"Retired\n-------\n\n<!--\n{limits}-->\n\n```\n{refunds}```\n\n"  # out, quoted
    stale = _stale_after(shard, {"g.md": f"{head}{retired}{tail}"}, texts)
    assert stale == {limits.strip(), refunds.strip()}
    assert len(texts) - len(stale) == 3  # the preamble, Guide and Last, as they were


def test_a_published_chunk_is_stale_when_any_part_of_its_section_changed(tmp_path: Path) -> None:
    from substrate.limits import DEFAULT_CHUNK_CHARS

    sentences = " ".join(
        f"Deploy step {n} is done by hand." for n in range(DEFAULT_CHUNK_CHARS // 15)
    )
    shard, texts = _published(tmp_path, {"g.md": f"# Long\n\n{sentences}\n\n# Short\n\nKept.\n"})
    assert len(texts) > 2  # the long section was cut into chunks
    ending = sentences + " None of the above holds any more."  # in the last chunk only
    stale = _stale_after(shard, {"g.md": f"# Long\n\n{ending}\n\n# Short\n\nKept.\n"}, texts)
    assert set(texts.values()) - stale == {"# Short\n\nKept."}  # every chunk told, the first too


def test_a_file_larger_than_ingest_reads_is_not_parsed_for_its_published_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import substrate.freshness as freshness

    _, shard, ids = _sections_published(tmp_path, "ops", "A", to="public")
    alpha = ids["A"]

    def stale() -> list[str]:
        return [s["item_id"] for s in freshness.freshness_report(Substrate(shard))["stale"]]

    assert alpha not in stale()
    monkeypatch.setattr(freshness, "DEFAULT_MAX_FILE_SIZE", 10)  # ... in a file too large
    assert alpha in stale()  # told, as before: not read whole to see
