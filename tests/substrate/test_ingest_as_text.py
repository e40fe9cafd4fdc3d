"""``as_text``: files of no format mixle knows, read as plain text when a pattern takes them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from substrate.errors import InvalidInputError
from substrate.ingest import ingest_path
from substrate.store import Substrate


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# Retry\n\nThe loop lives in src/retry.py.\n")
    (root / "src" / "retry.py").write_text("def retry_forever(fn):\n    return fn()\n")
    (root / "src" / "vendored.py").write_text("def other():\n    pass\n")
    (root / "settings.json").write_text('{"retries": 3}\n')
    for path in root.rglob("*"):  # written long ago: an unchanged file is not read again
        os.utime(path, (1_700_000_000, 1_700_000_000))
    return root


def _formats(store: Substrate) -> dict[str, str]:
    return {i.provenance["source"]: i.provenance["format"] for i in store.iter_items()}


def test_a_pattern_reads_code_as_plain_text_and_a_known_format_keeps_its_own(repo: Path) -> None:
    store = Substrate(repo.parent / "shard")
    report = ingest_path(store, repo, as_text=["*.py", "!vendored.py", "*.json"])
    assert _formats(store) == {
        "README.md": "markdown",
        "settings.json": "json",  # its own format, not text
        "src/retry.py": "text",
    }
    [skipped] = [f for f in report.files if f.status == "skipped"]
    assert (skipped.source, skipped.reason) == ("src/vendored.py", "unsupported format")
    [code] = [i for i in store.iter_items() if i.provenance["source"] == "src/retry.py"]
    assert code.text == "def retry_forever(fn):\n    return fn()"


def test_the_settings_patterns_count_too(repo: Path) -> None:
    store = Substrate(repo.parent / "shard")
    store.settings.data["ingest"] = {"as_text": "src/*.py"}
    ingest_path(store, repo)
    assert {"src/retry.py", "src/vendored.py"} <= set(_formats(store))


def test_a_file_no_pattern_takes_any_longer_loses_its_items(repo: Path) -> None:
    store = Substrate(repo.parent / "shard")
    ingest_path(store, repo, as_text=["*.py"])
    again = ingest_path(store, repo)  # unchanged files are not looked at again ...
    assert "src/retry.py" in _formats(store) and again.items_removed == 0
    reread = ingest_path(store, repo, rehash=True)  # ... until they are read
    assert set(_formats(store)) == {"README.md", "settings.json"}
    removed = {f.source: f.reason for f in reread.files if f.status == "removed"}
    assert removed == dict.fromkeys(
        ["src/retry.py", "src/vendored.py"],
        "of no format mixle reads, and no as_text pattern takes it now",
    )
    assert reread.files_not_reached == 0 and not reread.cancelled  # (the counts add up)


def test_a_file_read_with_other_options_keeps_its_items_as_before(repo: Path) -> None:
    """One read as text by --as text (other options, another cache entry) is skipped by a
    run without them, its items kept, as before as_text was known."""
    store = Substrate(repo.parent / "shard")
    ingest_path(store, repo / "src", as_format="text")
    report = ingest_path(store, repo / "src", rehash=True)
    assert report.items_removed == 0 and report.files_skipped == 2


@pytest.mark.parametrize("patterns", [[""], ["# a comment"], [3], b"*.py"])
def test_what_is_no_pattern_is_refused(repo: Path, patterns: object) -> None:
    with pytest.raises(InvalidInputError):
        ingest_path(Substrate(), repo, as_text=patterns)  # type: ignore[arg-type]
