"""A secret pasted into a file or folder name: masked in the source cache as in the items,
and re-ingests still find the file by its real name."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from substrate.ingest import ingest_path, ingest_text
from substrate.ingest import session as ingest_session
from substrate.ingest.sourcekeys import DIGEST_KEY
from substrate.store import Substrate

TOKEN = "ghp_Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1"
OTHER = "ghp_Bv4Nm7Qw1Er9Ty3Ui6Op2As5Df8Gh0Jk1LzX7"


def _write(path: Path, text: str) -> None:
    path.write_text(text)
    when = time.time() - 10  # outside the racy window: the mtime is trusted
    os.utime(path, (when, when))


def _leaks(shard: Path, *secrets: str) -> list[str]:
    """The files of the shard that hold one of ``secrets``."""
    return [
        str(path.relative_to(shard))
        for path in shard.rglob("*")
        if path.is_file() and any(s.encode() in path.read_bytes() for s in secrets)
    ]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / f"dir-{OTHER}").mkdir(parents=True)
    _write(root / f"a-{TOKEN}.md", "# Alpha\n\nalpha text\n")
    _write(root / f"dir-{OTHER}" / "inner.md", "# Inner\n\ninner text\n")
    _write(root / "plain.md", "# Plain\n\nplain text\n")
    return root


def _texts(shard: Path) -> set[str]:
    return {item.text for item in Substrate(shard).iter_items()}


@pytest.mark.parametrize("jobs", [1, 2])
def test_no_file_of_the_shard_holds_the_name_and_re_ingests_find_the_files(
    tree: Path, tmp_path: Path, jobs: int
) -> None:
    shard = tmp_path / "shard"
    first = ingest_path(Substrate(shard), tree, jobs=jobs)
    assert first.files_added == 3 and _leaks(shard, TOKEN, OTHER) == []
    again = ingest_path(Substrate(shard), tree, jobs=jobs)
    assert again.files_unchanged == 3 and again.bytes_read == 0
    _write(tree / f"a-{TOKEN}.md", "# Alpha\n\nalpha text, edited\n")
    edited = ingest_path(Substrate(shard), tree, jobs=jobs)
    assert edited.files_updated == 1 and edited.items_removed == 1
    (tree / f"dir-{OTHER}" / "inner.md").unlink()
    pruned = ingest_path(Substrate(shard), tree, jobs=jobs)
    assert pruned.files_removed == 1 and pruned.items_removed == 1
    assert _texts(shard) == {"# Alpha\n\nalpha text, edited", "# Plain\n\nplain text"}
    assert _leaks(shard, TOKEN, OTHER) == []


def test_a_rebuilt_cache_names_the_source_as_the_ingest_did(tree: Path, tmp_path: Path) -> None:
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), tree)
    shutil.rmtree(shard / "index")
    report = ingest_path(Substrate(shard), tree)
    assert report.files_unchanged == 3 and report.bytes_read == 0
    assert _leaks(shard, TOKEN, OTHER) == []


def test_names_that_mask_alike_stay_apart(tmp_path: Path) -> None:
    root, shard = tmp_path / "notes", tmp_path / "shard"
    root.mkdir()
    _write(root / f"{TOKEN}.md", "# One\n\nfirst\n")
    _write(root / f"{OTHER}.md", "# Two\n\nsecond\n")
    ingest_path(Substrate(shard), root)
    assert ingest_path(Substrate(shard), root).files_unchanged == 2
    (root / f"{OTHER}.md").unlink()
    report = ingest_path(Substrate(shard), root)
    assert report.files_removed == 1 and report.items_removed == 1
    assert _texts(shard) == {"# One\n\nfirst"}


def test_a_secret_in_the_ingested_folder_s_own_name(tmp_path: Path) -> None:
    """Every name under such a folder is masked: a file deleted from it is pruned when no
    other folder masks alike, else kept until the folder's parent is ingested, which can tell."""
    root, shard = tmp_path / f"notes-{TOKEN}", tmp_path / "shard"
    root.mkdir()
    for name in ("one", "two", "three"):
        _write(root / f"{name}.md", f"# {name}\n\n{name} text\n")
    ingest_path(Substrate(shard), root)
    assert ingest_path(Substrate(shard), root).files_unchanged == 3
    (root / "three.md").unlink()
    pruned = ingest_path(Substrate(shard), root)
    assert pruned.files_removed == 1 and pruned.redactions == 0  # nothing new was masked
    assert len(_texts(shard)) == 2
    (tmp_path / f"notes-{OTHER}").mkdir()  # masks alike: whose file was "two.md"?
    (root / "two.md").unlink()
    kept = ingest_path(Substrate(shard), root)
    assert kept.files_removed == 0 and len(_texts(shard)) == 2
    from_parent = ingest_path(Substrate(shard), tmp_path, as_format="markdown")
    assert from_parent.files_removed == 1 and _texts(shard) == {"# one\n\none text"}
    assert _leaks(shard, TOKEN) == []


def test_folders_whose_names_mask_alike_never_prune_each_other(tmp_path: Path) -> None:
    shard = tmp_path / "shard"
    for n, token in enumerate((TOKEN, OTHER)):
        folder = tmp_path / f"notes-{token}"
        folder.mkdir()
        _write(folder / f"f{n}.md", f"# F{n}\n\nbody {n}\n")
    for token in (TOKEN, OTHER, TOKEN):
        assert ingest_path(Substrate(shard), tmp_path / f"notes-{token}").items_removed == 0
    assert len(_texts(shard)) == 2


def test_a_mask_that_swallows_the_separator_prunes_nothing_outside(tmp_path: Path) -> None:
    root, shard = tmp_path / "p", tmp_path / "shard"
    (root / "password=Xk29fjQp2LmZ").mkdir(parents=True)
    _write(root / "password=Yk29fjQp2LmZ", "a sibling file\n")
    _write(root / "password=Xk29fjQp2LmZ" / "in.md", "# In\n\ninside\n")
    ingest_path(Substrate(shard), root, as_format="text")
    inner = ingest_path(Substrate(shard), root / "password=Xk29fjQp2LmZ", as_format="text")
    assert inner.items_removed == 0 and "a sibling file" in _texts(shard)


def test_an_unreadable_folder_with_a_secret_in_its_name_keeps_its_items(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import substrate.ingest.walk as walk_module

    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), tree)
    real = os.scandir

    def denied(path: str) -> object:
        if os.path.basename(str(path)) == f"dir-{OTHER}":  # root cannot be made unreadable
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(walk_module.os, "scandir", denied)
    report = ingest_path(Substrate(shard), tree)
    assert report.items_removed == 0 and len(_texts(shard)) == 3


@pytest.mark.parametrize("writer_meanwhile", [False, True])
def test_items_from_before_the_digest_survive_the_first_re_ingest(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer_meanwhile: bool
) -> None:
    """Items written before sources were named by digest give a rebuilt cache other names:
    the file is read again, and the run must not then prune what it has just written, even
    when the two land in different saves, and another writer saved just before the prune's."""
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), tree)
    store = Substrate(shard)
    for item in list(store.iter_items()):
        if item.provenance.pop(DIGEST_KEY, None) is not None:
            store.put(item)
    store.save()
    shutil.rmtree(shard / "index")
    monkeypatch.setattr(ingest_session, "BATCH_FILES", 1)  # every file its own save
    flush = ingest_session.IngestSession.flush

    def another_writer_first(self, **kwargs):  # type: ignore[no-untyped-def]
        if any(change.pruned for change in self.pending):
            monkeypatch.setattr(ingest_session.IngestSession, "flush", flush)
            ingest_text(Substrate(shard), "someone else's note\n", source="elsewhere")
        return flush(self, **kwargs)

    if writer_meanwhile:
        monkeypatch.setattr(ingest_session.IngestSession, "flush", another_writer_first)
    report = ingest_path(Substrate(shard), tree)
    assert report.items_removed == 0
    assert len(_texts(shard)) == 3 + writer_meanwhile
    assert ingest_path(Substrate(shard), tree).files_unchanged == 3


def test_a_stream_named_with_a_secret(tmp_path: Path) -> None:
    shard = tmp_path / "shard"
    ingest_text(Substrate(shard), "streamed text\n", source=f"paste-{TOKEN}")
    again = ingest_text(Substrate(shard), "streamed text\n", source=f"paste-{TOKEN}")
    assert again.items_added == 0 and again.items_removed == 0
    assert _leaks(shard, TOKEN) == []


def test_no_redact_keeps_the_name_as_asked(tree: Path, tmp_path: Path) -> None:
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), tree, redact=False)
    assert ingest_path(Substrate(shard), tree, redact=False).files_unchanged == 3
    shutil.rmtree(shard / "index")
    assert ingest_path(Substrate(shard), tree, redact=False).files_unchanged == 3


def test_a_token_that_is_a_file_name_below_the_root(tmp_path: Path) -> None:
    # a token after a "/" was taken for the middle of a base64 run and let through
    aws, gitlab = "AKIAZ7Q4R2XKP9LMW3TB", "glpat-Zq8Xw2Rk5Vn1Lp7Tb4Hc"
    root = tmp_path / "notes"
    (root / "keys").mkdir(parents=True)
    _write(root / "keys" / f"{aws}.txt", "a note\n")
    _write(root / "keys" / aws, "another note\n")
    _write(root / "keys" / gitlab, "plain text\n")
    report = ingest_path(Substrate(tmp_path / "shard"), root, as_format="text")
    assert report.files_added == 3
    assert _leaks(tmp_path / "shard", aws, gitlab) == []


def test_a_token_that_is_a_folder_name_below_the_root(tmp_path: Path) -> None:
    # the relative source was masked, the absolute path and the source cache were not
    aws = "AKIAQ3ZJW7NRT5LX2MHB"
    root = tmp_path / "notes"
    (root / "keys" / aws).mkdir(parents=True)
    _write(root / "keys" / aws / "inside.md", "# Inside\n\nmore\n")
    _write(root / "other.md", "# Other\n\nstays\n")  # a folder left with files is pruned
    shard = Substrate(tmp_path / "shard")
    assert ingest_path(shard, root).files_added == 2
    assert _leaks(tmp_path / "shard", aws) == []
    (item,) = [i for i in Substrate(tmp_path / "shard").all() if "Inside" in i.text]
    assert item.provenance["path"].endswith("/keys/[REDACTED:aws_access_key]/inside.md")
    again = ingest_path(Substrate(tmp_path / "shard"), root)
    assert again.files_unchanged == 2  # found again by the masked name and its digest
    (root / "keys" / aws / "inside.md").unlink()
    assert ingest_path(Substrate(tmp_path / "shard"), root).files_removed == 1


def test_a_key_id_glued_to_a_name_by_an_underscore(tmp_path: Path) -> None:
    aws = "AKIAZDOC9IS0J8HT9LGM"
    root = tmp_path / "notes"
    (root / f"dir_{aws}").mkdir(parents=True)
    _write(root / f"dir_{aws}" / "f.txt", "hi\n")
    _write(root / "c.txt", f"aws_key_{aws}\n")
    report = ingest_path(Substrate(tmp_path / "shard"), root)
    assert report.files_added == 2
    assert _leaks(tmp_path / "shard", aws) == []


def test_the_report_masks_a_token_that_is_a_folder_name(tmp_path: Path) -> None:
    aws = "AKIAQ3ZJW7NRT5LX2MHB"
    root = tmp_path / "notes"
    (root / "keys" / aws).mkdir(parents=True)
    _write(root / "keys" / aws / "empty.md", "")
    _write(root / "keys" / aws / "a.md", "# A\n\ntext\n")
    report = ingest_path(Substrate(tmp_path / "shard"), root)
    assert aws not in str(report.as_dict())
    assert [f["source"] for f in report.as_dict()["files"]] == [
        "keys/[REDACTED:aws_access_key]/a.md",
        "keys/[REDACTED:aws_access_key]/empty.md",
    ]


def test_a_token_glued_to_a_file_name_by_an_underscore(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    _write(root / f"{TOKEN}_backup.md", "# Backup\n\nbackup notes\n")
    assert ingest_path(Substrate(tmp_path / "shard"), root).files_added == 1
    assert _leaks(tmp_path / "shard", TOKEN) == []


def test_a_file_stem_found_by_its_width_alone(tmp_path: Path) -> None:
    # a rule without keywords is tried on every long word: on the whole path the extension
    # stuck to the token hides it, the path's screen must try the stem alone too (the test's
    # name holds no keyword: the temporary folder is named after it)
    discord = "MTk4NjIyNDgzNDcxOTI1MjQ4.Gh7Kq2.Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2Ke"
    root = tmp_path / "notes"
    root.mkdir()
    _write(root / f"{discord}.md", "# Bot\n\nbot notes\n")
    assert ingest_path(Substrate(tmp_path / "shard"), root).files_added == 1
    assert _leaks(tmp_path / "shard", discord) == []


def test_a_token_in_a_folder_s_name_and_in_the_file_withholds_the_hash(tmp_path: Path) -> None:
    # masked in the path, the token was taken for the names' alone: the file's hash was kept,
    # of bytes that hold it
    root = tmp_path / "notes" / TOKEN
    root.mkdir(parents=True)
    _write(root / "inside.md", f"# Inside\n\nthe token is {TOKEN} here\n")
    _write(root / "plain.md", "# Plain\n\nno token\n")
    ingest_path(Substrate(tmp_path / "shard"), tmp_path / "notes")
    items = Substrate(tmp_path / "shard").all()
    hashes = {item.provenance["source"]: item.provenance.get("content_hash") for item in items}
    assert sorted(hashes) == [
        "[REDACTED:github_token]/inside.md",
        "[REDACTED:github_token]/plain.md",
    ]
    assert hashes["[REDACTED:github_token]/inside.md"] is None
    assert hashes["[REDACTED:github_token]/plain.md"] is not None
