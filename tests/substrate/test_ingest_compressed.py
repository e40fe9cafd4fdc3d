"""Files kept compressed with gzip are read as the file their name holds."""

from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
import time
from pathlib import Path

import pytest

from substrate.compressed import CompressedError, gunzip
from substrate.freshness import changed_since_ingest
from substrate.ingest import IngestReport, ingest_path, ingest_text
from substrate.ingest.detect import detect_format
from substrate.notelinks import unresolved_links
from substrate.secrets.textscan import SKIPPED_TOO_LARGE, SKIPPED_UNREADABLE, scan_text
from substrate.store import Substrate


def _write_gz(path: Path, text: str, *, mtime: float | None = None) -> None:
    path.write_bytes(gzip.compress(text.encode()))
    when = mtime if mtime is not None else time.time() - 10
    os.utime(path, (when, when))


def _outcome(report: IngestReport, source: str) -> tuple[str, str]:
    (found,) = [f for f in report.files if f.source == source]
    return found.status, found.reason


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("NEWS.gz", "text"),
        ("changelog.Debian.gz", "text"),
        ("guide.md.gz", "markdown"),
        ("run.jsonl.gz", "jsonl"),
        ("run.jsonl.2.gz", "jsonl"),  # rotated, then compressed
        ("app.log.1", "text"),
        ("NOTES.MD.GZ", "markdown"),
        ("site.tar.gz", None),
        ("manifest.json.gz", None),  # a manifest names the files beside it
        ("notes.md.1", None),  # only logs are rotated
        ("changelog.1.gz", "text"),
        ("app.log-20261207.gz", "text"),  # logrotate's dateext
        ("app.log-2026-12-07", "text"),
        ("notes.md-20261207", None),
        ("ls.1", None),  # a manual page
        (".gz", None),
    ],
)
def test_the_format_is_that_of_the_name_inside(name: str, fmt: str | None) -> None:
    assert detect_format(name) == fmt


def test_items_come_from_the_text_inside_with_its_line_numbers(tmp_path: Path) -> None:
    _write_gz(tmp_path / "NEWS.gz", "Release 2.0\n\nThe parser reads tables now.\n")
    rows = [{"input": f"step {i}", "answer": f"done {i}"} for i in range(3)]
    _write_gz(tmp_path / "run.jsonl.1.gz", "".join(json.dumps(r) + "\n" for r in rows))
    store = Substrate()
    report = ingest_path(store, tmp_path)
    assert report.files_added == 2 and report.files_failed == 0
    by_source: dict[str, list[dict[str, object]]] = {}
    for item in store.iter_items():
        by_source.setdefault(item.provenance["source"], []).append(item.provenance)
    news = sorted(by_source["NEWS.gz"], key=lambda p: p["line_start"])  # type: ignore[arg-type,return-value]
    assert [p["line_start"] for p in news] == [1, 3]
    assert {p["format"] for p in by_source["run.jsonl.1.gz"]} == {"traces"}
    assert any("The parser reads tables now." in item.text for item in store.iter_items())


def test_an_unchanged_file_is_not_read_and_a_changed_one_replaced(tmp_path: Path) -> None:
    path = tmp_path / "NEWS.gz"
    _write_gz(path, "The first release.\n")
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path / "NEWS.gz")
    again = ingest_path(Substrate(tmp_path / "shard"), path)
    assert again.files_unchanged == 1
    _write_gz(path, "The second release.\n", mtime=time.time() - 5)
    changed = ingest_path(Substrate(tmp_path / "shard"), path)
    assert changed.files_updated == 1
    texts = [item.text for item in Substrate(tmp_path / "shard").iter_items()]
    assert texts == ["The second release."]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (gzip.compress(b"Some notes.\n" * 50)[:-12], "cut short"),
        (gzip.compress(b"Some notes.\n")[:10] + b"\xff" * 40, "corrupt gzip data"),
    ],
    ids=["cut short", "corrupt"],
)
def test_broken_compressed_data_fails_that_file_alone(
    tmp_path: Path, data: bytes, reason: str
) -> None:
    (tmp_path / "broken.txt.gz").write_bytes(data)
    _write_gz(tmp_path / "good.txt.gz", "Kept notes.\n")
    store = Substrate()
    report = ingest_path(store, tmp_path)
    status, why = _outcome(report, "broken.txt.gz")
    assert status == "failed" and reason in why
    assert [item.text for item in store.iter_items()] == ["Kept notes."]
    assert not report.ok


def test_it_is_not_inflated_past_the_size_limit(tmp_path: Path) -> None:
    _write_gz(tmp_path / "bomb.txt.gz", "a" * 200_000)  # 200 kB in a few hundred bytes
    assert (tmp_path / "bomb.txt.gz").stat().st_size < 2_000
    report = ingest_path(Substrate(), tmp_path, max_file_size=100_000)
    status, why = _outcome(report, "bomb.txt.gz")
    assert status == "skipped" and "too large once decompressed" in why  # as a file on disk
    assert report.ok
    named = ingest_path(Substrate(), tmp_path / "bomb.txt.gz", max_file_size=100_000)
    assert _outcome(named, "bomb.txt.gz")[0] == "failed"  # as a file named over it is


def test_gunzip_reads_every_member_and_stops_at_its_limit() -> None:
    both = gzip.compress(b"one\n") + gzip.compress(b"two\n")
    assert gunzip(both, None) == b"one\ntwo\n"
    assert gunzip(both, 8) == b"one\ntwo\n"
    with pytest.raises(CompressedError, match="too large"):
        gunzip(both, 7)


def test_binary_inside_is_skipped_as_binary(tmp_path: Path) -> None:
    _write_gz(tmp_path / "image.txt.gz", "\x00\x01\x02" * 100)
    report = ingest_path(Substrate(), tmp_path)
    assert _outcome(report, "image.txt.gz")[0] == "skipped"
    assert report.files_failed == 0


def _tar_gz(path: Path, members: dict[str, str]) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))


def test_an_archive_is_no_text(tmp_path: Path) -> None:
    _tar_gz(tmp_path / "site.tar.gz", {"notes.txt": "Some notes.\n"})
    report = ingest_path(Substrate(), tmp_path)
    assert _outcome(report, "site.tar.gz") == ("skipped", "unsupported format")


def test_a_secret_inside_is_masked(tmp_path: Path) -> None:
    key = "AKIA" + "Q7ZV3XK9MLP2TR4W"
    _write_gz(tmp_path / "deploy.log.gz", f"deploy with AWS_ACCESS_KEY_ID={key}\n")
    store = Substrate()
    report = ingest_path(store, tmp_path)
    assert report.redactions >= 1
    (item,) = list(store.iter_items())
    assert key not in item.text and "REDACTED" in item.text


def test_freshness_hashes_the_file_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "NEWS.gz"
    _write_gz(path, "The first release.\n")
    store = Substrate()
    ingest_path(store, tmp_path)
    assert changed_since_ingest(store.iter_items()) == {}
    _write_gz(path, "A later release.\n", mtime=time.time())
    assert set(changed_since_ingest(store.iter_items()).values()) == {"changed"}


def test_what_is_no_gzip_data_is_skipped_with_the_reason(tmp_path: Path) -> None:
    # a Git LFS pointer, say: not what its name says, and no failure
    (tmp_path / "data.txt.gz").write_text("version https://git-lfs.github.com/spec/v1\n")
    report = ingest_path(Substrate(), tmp_path)
    assert _outcome(report, "data.txt.gz") == ("skipped", "not gzip data, though named .gz")
    assert report.ok


def test_an_empty_file_and_trailing_bytes_read_as_zcat_reads_them(tmp_path: Path) -> None:
    (tmp_path / "empty.txt.gz").write_bytes(b"")  # as gzip leaves it as it starts to write
    _write_gz(tmp_path / "notes.txt.gz", "Kept notes.\n")
    with (tmp_path / "notes.txt.gz").open("ab") as fh:
        fh.write(b"junk a tool appended")
    store = Substrate()
    report = ingest_path(store, tmp_path)
    assert report.files_failed == 0
    assert [item.text for item in store.iter_items()] == ["Kept notes."]


def test_one_named_whose_inside_is_no_format_fails_as_unsupported(tmp_path: Path) -> None:
    _tar_gz(tmp_path / "site.tar.gz", {"notes.txt": "Some notes.\n"})
    report = ingest_path(Substrate(), tmp_path / "site.tar.gz")
    status, why = _outcome(report, "site.tar.gz")
    assert status == "failed" and "unsupported format" in why


def test_a_stream_of_gzip_data_is_read_inside(tmp_path: Path) -> None:
    store = Substrate()
    data = gzip.compress(b"Piped notes.\n")
    assert ingest_text(store, data, source="notes.txt.gz").files_added == 1
    assert ingest_text(store, data).files_added == 1  # unnamed: told by its bytes
    broken = ingest_text(store, data[:20], source="cut.txt.gz")
    assert _outcome(broken, "cut.txt.gz")[0] == "failed"
    assert [item.text for item in store.iter_items()] == ["Piped notes."] * 2


def test_a_link_to_a_note_finds_it_compressed(tmp_path: Path) -> None:
    links = "See [the guide](CONTRIBUTING.md), [[Roadmap]] and [[Gone]].\n"
    _write_gz(tmp_path / "README.md.gz", f"# Readme\n\n{links}")
    _write_gz(tmp_path / "CONTRIBUTING.md.gz", "# Contributing\n\nSend patches.\n")
    _write_gz(tmp_path / "Roadmap.md.gz", "# Roadmap\n\nShip it.\n")
    store = Substrate()
    assert ingest_path(store, tmp_path).files_added == 3
    broken = [link for _, link in unresolved_links(store, store.iter_items(), None)]
    assert broken == ["[[Gone]]"]


def test_the_scanner_reads_inside_too() -> None:
    key = "AKIA" + "Q7ZV3XK9MLP2TR4W"
    data = gzip.compress(f"aws_access_key_id = {key}\n".encode())
    (finding,) = scan_text(data, path="config.gz").findings
    assert finding.line == 1
    assert scan_text(data, path="<stdin>").findings  # told by its bytes, as redact tells it
    trailer = gzip.compress(b"hello\n") + f"aws_access_key_id = {key}\n".encode()
    assert scan_text(trailer, path="t.gz").findings  # after the data, which zcat passes over
    assert scan_text(data[:20], path="config.gz").skipped == SKIPPED_UNREADABLE
    bomb = gzip.compress(b"a" * 10_000)
    assert (
        scan_text(bomb, path="x.gz", config={"max_file_bytes": 1000}).skipped == SKIPPED_TOO_LARGE
    )


def test_a_pattern_of_as_text_takes_the_name_inside(tmp_path: Path) -> None:
    _write_gz(tmp_path / "app.conf.gz", "# the listening port\nport = 8080\n")
    store = Substrate()
    report = ingest_path(store, tmp_path, as_text=["*.conf"])
    assert report.files_added == 1
    assert ["port = 8080" in item.text for item in store.iter_items()] == [True]


def test_the_reference_s_forms_point_to_mixle_ingest(tmp_path: Path) -> None:
    from substrate.errors import InvalidInputError
    from substrate.ingest import ingest_traces

    _write_gz(tmp_path / "run.jsonl.gz", '{"input": "2+2", "answer": "4"}\n')
    with pytest.raises(InvalidInputError, match="mixle ingest"):
        ingest_traces(Substrate(), tmp_path / "run.jsonl.gz")
