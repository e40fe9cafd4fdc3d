"""Bad input is reported with file and line; the run goes on; stored work is never lost."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from substrate.errors import ShardError
from substrate.ingest import IngestReport, ingest_artifacts, ingest_path, parallel
from substrate.ingest.formats import PARSERS
from substrate.ingest.segment import FileRejected
from substrate.ingest.session import IngestSession
from substrate.ingest.textio import decode_text, read_unless_binary
from substrate.locking import LockBusy
from substrate.store import Substrate


def _write(path: Path, data: str | bytes) -> None:
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)
    when = time.time() - 10
    os.utime(path, (when, when))


def _outcome(report: IngestReport, source: str) -> tuple[str, str]:
    (found,) = [f for f in report.files if f.source == source]
    return found.status, found.reason


def after_listing(monkeypatch: pytest.MonkeyPatch, change: Callable[[], None]) -> None:
    """Make ``change`` to the tree after the walk lists a folder, before its files are read."""
    from substrate.ingest import walk

    real = walk.files_by_folder

    def listed_then_changed(*args: object, **kwargs: object) -> object:
        for files in real(*args, **kwargs):  # type: ignore[arg-type]
            change()
            yield files

    monkeypatch.setattr("substrate.ingest.pipeline.files_by_folder", listed_then_changed)


def test_invalid_utf8_rejects_the_file_with_line_and_byte(tmp_path: Path) -> None:
    _write(tmp_path / "good.txt", "fine text\n")
    _write(tmp_path / "latin1.txt", b"ok\ncaf\xe9\n")  # Latin-1, not UTF-8
    store = Substrate()
    report = ingest_path(store, tmp_path)
    status, reason = _outcome(report, "latin1.txt")
    assert status == "failed" and reason.startswith("line 2: invalid UTF-8")
    (issue,) = report.issues
    assert (issue.source, issue.line, issue.byte, issue.fatal) == ("latin1.txt", 2, 6, True)
    assert issue.location() == "latin1.txt:2"
    assert [i.text for i in store.iter_items()] == ["fine text"]
    assert reason.endswith(
        "leave it out with a line in .mixleignore (or the shard's mixle.toml, [ingest] ignore)"
    )  # how to go on
    _write(tmp_path / ".mixleignore", "latin1.txt\n")
    assert ingest_path(store, tmp_path).files_failed == 0
    assert report.files_failed == 1 and not report.ok


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (b"caf\xe9\n", "latin1"),
        (b"\x93quoted\x94 \x80 5\n", "cp1252"),  # Windows' quotes and euro sign
        ("a dash \u2014 in UTF-8, then ".encode() + b"caf\xe9\n", "latin1"),  # (its 0x80, 0x94)
        (b"\x93quoted\x94 \x81\n", "latin1"),  # a byte cp1252 leaves undefined
        # the encoding its first lines declare (here a Python module's), when Python knows it
        (b"#!/usr/bin/python\n# -*- coding: koi8-r -*-\ns = '\xf0\xd2\xc9'\n", "koi8-r"),
        (b"# vim: set fileencoding=cp1251 :\nx = '\xcf\xf0\xe8'\n", "cp1251"),
        (b"# coding: no-such-codec\ncaf\xe9\n", "latin1"),
        (b"# -*- coding: utf-8 -*-\ncaf\xe9\n", "latin1"),  # (it says so, and is not)
        (b"# coding: euc-jp\n" + "日本語".encode("euc_jp") + b"\n", "euc-jp"),  # (its spelling)
        (b"# -*- coding: macintosh -*-\ncaf\x8e\n", "macintosh"),  # (Python: mac-roman)
        (b"# coding: undefined\ncaf\xe9\n", "latin1"),  # (a codec that refuses all)
        # a few lines of another script in English text
        (
            b"notes in English, " * 20 + "\nи ещё строка по-русски\n".encode("cp1251"),
            "ENCODING",
        ),
        (b"Content-Transfer-Encoding: base64\ncaf\xe9\n", "latin1"),  # no text's encoding
        (b"# coding: ascii\ncaf\xe9\n", "latin1"),  # (the bytes say otherwise)
        (b"# coding: utf-16\ncaf\xe9\n", "latin1"),
        ("A tradução não está pronta, então são três ações.\n".encode("latin1"), "latin1"),
        # another script's letters, a third of its bytes or more: no Western encoding
        ("日本語のテキストです。".encode("shift_jis") + b"\n", "ENCODING"),
        ("中文文本，编码不同。".encode("gbk") + b"\n", "ENCODING"),
        ("Привет, мир".encode("cp1251") + b"\n", "ENCODING"),
        (b"Gr\xfc\xdfe aus M\xfcnchen, caf\xe9 cr\xe8me br\xfbl\xe9e, na\xefve\n", "latin1"),
    ],
)
def test_invalid_utf8_suggests_the_encoding_its_bytes_point_to(
    tmp_path: Path, data: bytes, encoding: str
) -> None:
    _write(tmp_path / "old.txt", data)
    (issue,) = ingest_path(Substrate(), tmp_path).issues
    assert f"iconv -f {encoding} -t utf-8" in issue.reason


@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"])
def test_invalid_utf8_is_found_on_its_line_whatever_ends_lines(end: bytes) -> None:
    data = end.join([b"line1", b"line2", b"line3 \xff bad", b""])
    with pytest.raises(FileRejected) as err:
        decode_text(data)
    assert err.value.line == 3


def test_malformed_jsonl_line_is_reported_and_the_rest_kept(tmp_path: Path) -> None:
    _write(tmp_path / "rows.jsonl", '{"text": "one"}\n{"text": "two"\n{"text": "three"}\n')
    store = Substrate()
    report = ingest_path(store, tmp_path)
    assert [i.text for i in store.iter_items()] == ["one", "three"]
    (issue,) = report.issues
    assert issue.location() == "rows.jsonl:2" and not issue.fatal
    (outcome,) = report.files
    assert (outcome.status, outcome.errors, outcome.items_added) == ("added", 1, 2)


def test_broken_csv_fails_the_file_with_its_line(tmp_path: Path) -> None:
    _write(tmp_path / "t.csv", 'a,b\n1,2\n"3,4\n5,6\n')
    _write(tmp_path / "ok.csv", "a,b\n1,2\n")
    store = Substrate()
    report = ingest_path(store, tmp_path)
    status, reason = _outcome(report, "t.csv")
    assert status == "failed" and "malformed CSV" in reason
    assert report.issues[0].line is not None
    assert [i.payload for i in store.iter_items()] == [{"a": "1", "b": "2"}]


def test_unreadable_file_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path / "a.txt", "readable\n")
    _write(tmp_path / "b.txt", "locked\n")
    real = read_unless_binary

    def read(path: str, *where: Any, **how: Any) -> tuple[bytes, bool]:
        if path.endswith("b.txt"):
            raise PermissionError(13, "Permission denied")
        return real(path, *where, **how)

    monkeypatch.setattr("substrate.ingest.prepare.read_unless_binary", read)
    report = ingest_path(Substrate(), tmp_path)
    assert _outcome(report, "b.txt") == ("failed", "cannot read: Permission denied")
    assert report.files_added == 1


def test_a_file_that_became_a_fifo_since_the_walk_fails_without_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, without_hanging: Any
) -> None:
    _write(tmp_path / "a.txt", "fine\n")
    _write(tmp_path / "b.txt", "swapped\n")

    def swap() -> None:
        (tmp_path / "b.txt").unlink()
        os.mkfifo(tmp_path / "b.txt")  # nobody will ever write to it

    after_listing(monkeypatch, swap)
    report = without_hanging(lambda: ingest_path(Substrate(), tmp_path), "reading a FIFO")
    assert _outcome(report, "b.txt") == ("failed", "cannot read: not a regular file (any more)")
    assert report.files_added == 1


@pytest.mark.parametrize("prune", [True, False])
def test_a_file_removed_since_the_walk_is_gone_not_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prune: bool
) -> None:
    _write(tmp_path / "a.txt", "stays\n")
    _write(tmp_path / "b.txt", "goes soon\n")
    store = Substrate(tmp_path / "shard")
    assert ingest_path(store, tmp_path).items_added == 2
    _write(tmp_path / "a.txt", "stays, edited\n")
    _write(tmp_path / "b.txt", "goes now\n")  # changed: read again, but removed first
    after_listing(monkeypatch, lambda: (tmp_path / "b.txt").unlink(missing_ok=True))
    report = ingest_path(store, tmp_path, jobs=1, prune=prune)
    status, reason = _outcome(report, "b.txt")
    assert status == "skipped" and reason.startswith("removed since it was listed")
    assert report.files_failed == 0 and report.ok  # a build's temporary file: no failure
    texts = sorted(item.text for item in store.iter_items())
    assert texts == (["stays, edited"] if prune else ["goes soon", "stays, edited"])


def test_a_file_removed_between_its_folder_s_listing_and_its_stat_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.ingest import walk

    _write(tmp_path / "a.txt", "stays\n")
    _write(tmp_path / "b.txt", "goes\n")
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path)
    real = os.scandir

    class Gone:  # b.txt as listed, removed before its stat
        def __init__(self, entry: os.DirEntry[str]) -> None:
            self.entry, self.name, self.path = entry, entry.name, entry.path

        def __getattr__(self, name: str) -> Any:
            return getattr(self.entry, name)

        def stat(self, **kwargs: Any) -> os.stat_result:
            if self.name == "b.txt":
                raise FileNotFoundError(2, "No such file or directory")
            return self.entry.stat(**kwargs)

    @contextmanager
    def listing(path: str) -> Iterator[list[Any]]:
        with real(path) as entries:
            yield [Gone(entry) for entry in entries]

    monkeypatch.setattr(walk.os, "scandir", listing)
    report = ingest_path(store, tmp_path)
    assert report.files_failed == 0 and report.ok
    assert [item.text for item in store.iter_items()] == ["stays"]  # pruned, as gone


def test_a_file_named_alone_that_is_removed_before_its_read_fails_and_keeps_its_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.ingest import prepare

    note = tmp_path / "note.md"
    _write(note, "# Note\n\nkept words\n")
    store = Substrate(tmp_path / "shard")
    ingest_path(store, note)
    _write(note, "# Note\n\nnew words\n")
    real = prepare.read_unless_binary

    def removed_first(path: str, *args: Any, **how: Any) -> tuple[bytes, bool]:
        os.remove(path)
        return real(path, *args, **how)

    monkeypatch.setattr(prepare, "read_unless_binary", removed_first)
    report = ingest_path(store, note, jobs=1)
    status, reason = _outcome(report, "note.md")
    assert status == "failed" and reason.endswith("its 1 earlier item(s) are kept")
    assert [item.text for item in store.iter_items()] == ["# Note\n\nkept words"]


def test_a_file_swapped_for_a_link_out_of_the_root_since_the_walk_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "outside.txt"
    tree.mkdir()
    outside.write_text("private words from outside\n")
    _write(tree / "a.txt", "fine\n")
    _write(tree / "b.txt", "swapped\n")
    (tree / "inner").mkdir()
    _write(tree / "inner" / "target.txt", "inside words\n")
    (tree / "c.txt").symlink_to(tree / "inner" / "target.txt")  # a link inside: read

    def swap() -> None:
        if (tree / "b.txt").is_file() and not (tree / "b.txt").is_symlink():
            (tree / "b.txt").unlink()
            (tree / "b.txt").symlink_to(outside)
            (tree / "a.new").write_text("saved again by an editor\n")
            os.replace(tree / "a.new", tree / "a.txt")  # another inode, in the folder

    after_listing(monkeypatch, swap)
    store = Substrate()
    report = ingest_path(store, tree, jobs=1)
    status, reason = _outcome(report, "b.txt")
    assert status == "failed" and "leads out of the folder ingested" in reason
    texts = " ".join(item.text for item in store.iter_items())
    assert "private words" not in texts and "inside words" in texts
    assert "saved again by an editor" in texts


def test_a_file_that_turns_bad_keeps_its_stored_items(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    _write(tree / "doc.txt", "good version\n")
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), tree)
    _write(tree / "doc.txt", b"broken \xff version\n")
    report = ingest_path(Substrate(shard), tree)
    assert report.files_failed == 1
    assert [i.text for i in Substrate(shard).iter_items()] == ["good version"]
    # still failing next time (a failure is not remembered as "unchanged")
    again = ingest_path(Substrate(shard), tree)
    assert again.files_failed == 1
    _write(tree / "doc.txt", "fixed version\n")
    fixed = ingest_path(Substrate(shard), tree)
    assert fixed.files_updated == 1
    assert [i.text for i in Substrate(shard).iter_items()] == ["fixed version"]


def test_keyboard_interrupt_keeps_completed_files_and_a_rerun_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    for n in range(5):
        _write(tree / f"doc{n}.md", f"# Doc {n}\n\nBody of document {n}.\n")
    shard = tmp_path / "shard"
    real = PARSERS["markdown"]
    calls = {"n": 0}

    def interrupting(text: str, ctx: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(text, ctx)

    monkeypatch.setitem(PARSERS, "markdown", interrupting)
    monkeypatch.setattr(parallel, "CHUNK_FILES", 1)  # a file at a time: two are done first
    report = IngestReport()
    with pytest.raises(KeyboardInterrupt):
        ingest_path(Substrate(shard), tree, report=report)
    assert report.interrupted and report.files_added == 2
    stored = Substrate(shard)
    assert sorted(i.provenance["source"] for i in stored.iter_items()) == ["doc0.md", "doc1.md"]
    monkeypatch.setitem(PARSERS, "markdown", real)
    rerun = ingest_path(Substrate(shard), tree)
    assert rerun.files_unchanged == 2 and rerun.files_added == 3
    assert len(Substrate(shard)) == 5


def _four_notes_saved_two_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    tree = tmp_path / "tree"
    tree.mkdir()
    for n in range(4):
        _write(tree / f"n{n}.txt", f"note {n}\n")
    monkeypatch.setattr("substrate.ingest.session.BATCH_FILES", 2)
    return tree


def test_interrupt_during_a_save_loses_no_completed_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _four_notes_saved_two_at_a_time(tmp_path, monkeypatch)
    shard = tmp_path / "shard"
    store = Substrate(shard)
    original = store.save_encoded
    state = {"calls": 0}

    def flaky_save(*args: Any, **kw: Any) -> None:
        state["calls"] += 1
        if state["calls"] == 2:
            raise KeyboardInterrupt  # interrupted while writing the second batch
        original(*args, **kw)

    store.save_encoded = flaky_save  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        ingest_path(store, tree)
    # the batch whose save was interrupted is saved again on the way out
    assert len(Substrate(shard)) == 4


@pytest.mark.parametrize(
    ("error", "after"),
    [
        (KeyboardInterrupt(), "save"),  # the interrupt lands in the last steps of the save
        (ShardError("cannot write catalog: No space left on device"), "save"),
        (KeyboardInterrupt(), "append"),  # ... before the store records its append
    ],
)
def test_a_batch_appended_before_its_save_failed_is_told_as_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException, after: str
) -> None:
    # the log's append is committed, what follows it fails: it was told as unchanged (the
    # exit's catch-up read it back as another run's) or as lost
    from substrate.log import LogFile

    tree = _four_notes_saved_two_at_a_time(tmp_path, monkeypatch)
    owner, name = (Substrate, "save_encoded") if after == "save" else (LogFile, "append")
    original = getattr(owner, name)
    calls: list[int] = []

    def then_fail(*args: Any, **kw: Any) -> Any:
        result = original(*args, **kw)
        calls.append(1)
        if after == "save" or len(calls) == 2:  # (an append: the second batch's)
            raise error
        return result

    monkeypatch.setattr(owner, name, then_fail)
    report = IngestReport()
    with pytest.raises(type(error)):
        ingest_path(Substrate(tmp_path / "shard"), tree, report=report)
    monkeypatch.setattr(owner, name, original)
    stored = len(Substrate(tmp_path / "shard"))
    assert report.files_added == stored == report.items_added == len(report.ids) > 0
    assert report.files_unchanged == report.files_failed == 0
    again = ingest_path(Substrate(tmp_path / "shard"), tree)  # the rest, the others as they were
    assert (again.files_added, again.files_unchanged) == (4 - stored, stored)


def test_a_failed_append_after_a_legacy_log_was_converted_is_told_as_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # converting a header-less log moves its end before the batch's write fails: no proof
    import orjson

    from substrate.item import SubstrateItem
    from substrate.log import LogFile

    shard = tmp_path / "shard"
    shard.mkdir()
    old = [SubstrateItem("text", f"legacy {n}").to_json() for n in range(2)]
    (shard / "items.jsonl").write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in old))
    tree = _four_notes_saved_two_at_a_time(tmp_path, monkeypatch)

    def full_disk(self: LogFile, *args: Any) -> None:
        raise ShardError(f"cannot write {self.path}: No space left on device")

    monkeypatch.setattr(LogFile, "_write_at", full_disk)
    report = IngestReport()
    with pytest.raises(ShardError):
        ingest_path(Substrate(shard), tree, report=report)
    assert report.files_added == report.items_added == 0
    assert {f.status for f in report.files} == {"failed"}


@pytest.mark.parametrize(
    "broken",
    [
        ImportError("cannot load module more than once per process"),
        AttributeError("module 'numpy' has no attribute 'matrix'"),  # found half imported
    ],
)
def test_an_interrupted_import_while_saving_still_ends_as_an_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: Exception
) -> None:
    # Ctrl-C inside numpy's first import: using it again raises, which ended the run as an
    # internal error
    (tmp_path / "tree").mkdir()
    _write(tmp_path / "tree" / "a.md", "# A\n\nhello\n")
    real = IngestSession.finish
    calls: list[bool] = []

    def finish(self: IngestSession, *, checkpoint: bool = True, wait: bool = True) -> None:
        calls.append(checkpoint)
        if len(calls) == 1:
            real(self, checkpoint=False)
            raise KeyboardInterrupt  # in the checkpoint, after the save
        raise broken

    monkeypatch.setattr(IngestSession, "finish", finish)
    report = IngestReport()
    with pytest.raises(KeyboardInterrupt):
        ingest_path(Substrate(tmp_path / "shard"), tmp_path / "tree", report=report)
    assert report.interrupted and calls == [True, False]  # no checkpoint on the way out
    assert [i.text for i in Substrate(tmp_path / "shard").iter_items()] == ["# A\n\nhello"]


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_a_row_too_deep_for_the_gate_is_reported_and_the_rest_kept(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.md").write_text("# A\n\nhello\n")
    (tree / "b.jsonl").write_text('{"x": ' + _nested(70) + '}\n{"text": "fine row"}\n')
    shard = tmp_path / "shard"
    report = ingest_path(Substrate(shard), tree)
    assert [i.location() for i in report.issues] == ["b.jsonl:1"]
    assert "deeper than 64" in report.issues[0].reason and not report.ok
    texts = sorted(i.text for i in Substrate(shard).iter_items())
    assert texts == ["# A\n\nhello", "fine row"]


def test_adapters_report_what_the_gate_refuses(tmp_path: Path) -> None:
    from substrate.ingest import ingest_artifacts, ingest_traces

    traces = tmp_path / "traces.jsonl"
    traces.write_text(
        '{"input": "q", "answer": ' + _nested(70) + '}\n{"input": "2+2", "answer": "4"}\n'
    )
    store = Substrate(tmp_path / "shard")
    report = IngestReport()
    assert len(ingest_traces(store, traces, report=report)) == 1
    assert [i.location() for i in report.issues] == [f"{traces}:1"]
    registry = tmp_path / "registry"
    (registry / "deep").mkdir(parents=True)
    (registry / "fine").mkdir()
    (registry / "deep" / "manifest.json").write_text('{"kind": "model", "x": ' + _nested(70) + "}")
    (registry / "fine" / "manifest.json").write_text('{"kind": "model", "name": "m"}')
    report = IngestReport()
    assert len(ingest_artifacts(store, registry, report=report)) == 1
    assert len(report.issues) == 1 and "deeper than 64" in report.issues[0].reason


def test_a_manifest_that_is_a_folder_or_too_large_is_reported(tmp_path: Path) -> None:
    # a folder named manifest.json was passed over without a word; size had no limit here

    registry = tmp_path / "registry"
    (registry / "odd" / "manifest.json").mkdir(parents=True)
    (registry / "odd" / "manifest.json" / "model.bin").write_bytes(b"\0")  # (an empty one: none)
    (registry / "big").mkdir()
    (registry / "big" / "manifest.json").write_text(
        '{"kind": "model", "blob": "' + "x" * 200 + '"}'
    )
    (registry / "fine").mkdir()
    (registry / "fine" / "manifest.json").write_text('{"kind": "model", "name": "m"}')
    store = Substrate(tmp_path / "shard")
    store.settings.data["ingest"] = {"max_file_size": 100}
    report = IngestReport()
    assert len(ingest_artifacts(store, registry, report=report)) == 1
    assert report.files_scanned == 3 and report.files_added == 1
    outcomes = {Path(f.source).parent.name: (f.status, f.reason) for f in report.files}
    assert outcomes["odd"] == ("failed", "a folder, not a manifest file")
    assert outcomes["big"][0] == "skipped" and "larger than the size limit" in outcomes["big"][1]


def test_a_manifest_skipped_without_a_report_is_logged_with_its_path_masked(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    key = "AKIA" + "Z7Q2M4X9B6N3V8C1"
    folder = tmp_path / "registry" / key
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text('{"kind": "model", "blob": "' + "x" * 200 + '"}')
    store = Substrate(tmp_path / "shard")
    store.settings.data["ingest"] = {"max_file_size": 100}
    with caplog.at_level("WARNING"):
        assert ingest_artifacts(store, tmp_path / "registry") == []
    assert "skipped" in caplog.text and key not in caplog.text


def _unreadable(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Have the walk find folders called ``name`` unreadable (root reads any folder)."""
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if str(path).endswith(name):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr("substrate.ingest.walk.os.scandir", scandir)


def test_a_folder_that_cannot_be_read_keeps_its_stored_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "top.md").write_text("# Top\n\nkept\n")
    (tree / "sub" / "inner.md").write_text("# Inner\n\nalso kept\n")
    shard = tmp_path / "shard"
    assert ingest_path(Substrate(shard), tree).items_added == 2
    _unreadable(monkeypatch, "sub")
    report = ingest_path(Substrate(shard), tree)
    assert report.items_removed == 0 and report.files_removed == 0
    assert any("unreadable directory" in f.reason for f in report.files)
    assert len(Substrate(shard)) == 2
    assert report.files_failed == 1 and not report.ok  # its content is not read: exit 1


def test_an_unreadable_folder_given_fails_by_its_name_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "a.md").write_text("# A\n")
    _unreadable(monkeypatch, "locked")
    if os.geteuid() != 0:  # and for real: it was an I/O error about a ".git" in it (exit 3)
        (tmp_path / "locked").chmod(0)
    try:
        report = ingest_path(Substrate(tmp_path / "shard"), tmp_path / "locked")
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert [(f.source, f.status) for f in report.files] == [("locked", "failed")]


def test_short_reads_do_not_cut_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "note.txt"
    path.write_text("a sentence that is longer than one short read\n")
    real_read = os.read
    monkeypatch.setattr("substrate.ingest.textio.os.read", lambda fd, n: real_read(fd, min(n, 7)))
    data, binary = read_unless_binary(str(path))
    assert not binary and data == path.read_bytes()


def test_a_file_found_through_a_folder_swapped_for_a_link_is_not_read(tmp_path: Path) -> None:
    """Another user swapped a folder of a tree they control for a link to the victim's
    private folder, between the listing of its parent and its own: its files were listed
    where the link led, with their own identity, and read into the shard."""
    private = tmp_path / "home" / "private"
    private.mkdir(parents=True)
    (private / "diary.md").write_text("codename bluefalcon\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "zzz").symlink_to(private)  # the swap, done: what the walk listed lies there
    with pytest.raises(OSError, match="leads out of the folder ingested"):
        read_unless_binary(str(tree / "zzz" / "diary.md"), str(tree))
    (tree / "own.md").write_text("a note\n")
    assert read_unless_binary(str(tree / "own.md"), str(tree)) == (b"a note\n", False)


def test_a_save_interrupted_twice_leaves_no_half_change_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    _write(tree / "a.md", "# A\n\nold alpha\n")
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), tree)
    _write(tree / "a.md", "# A\n\nnew alpha\n")
    store = Substrate(shard)

    def interrupted(*args: Any, **kw: Any) -> None:
        raise KeyboardInterrupt  # in the batch's save, and again in the retry on the way out

    monkeypatch.setattr(store, "save_encoded", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ingest_path(store, tree)
    monkeypatch.undo()
    store.add("text", "the caller goes on and saves its own work")
    store.save()  # must not carry out half of the interrupted change (the removal alone)
    assert [i.text for i in Substrate(shard).iter_items() if "alpha" in i.text] == [
        "# A\n\nold alpha"
    ]
    again = ingest_path(Substrate(shard), tree)
    assert [(f.source, f.status) for f in again.files] == [("a.md", "updated")]


def test_an_index_folder_that_is_a_file_does_not_fail_the_ingest(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    for n in range(3):
        _write(tree / f"n{n}.txt", f"note {n}\n")
    shard = tmp_path / "shard"
    shard.mkdir()
    (shard / "index").write_text("in the way")  # derived data only: worked around
    report = ingest_path(Substrate(shard), tree)
    assert report.files_added == 3 and len(Substrate(shard)) == 3


def test_a_secret_in_a_file_name_is_masked_in_the_report(tmp_path: Path) -> None:
    token = "ghp_Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1"
    tree = tmp_path / "tree"
    tree.mkdir()
    _write(tree / f"deploy-{token}.md", "# Notes\n\nplain\n")
    _write(tree / f"{token}.json", '{"a": 1')  # malformed: reported with its name
    report = ingest_path(Substrate(tmp_path / "shard"), tree)
    assert report.files_added == 1 and report.files_failed == 1
    shown = str(report.as_dict()) + "".join(i.location() for i in report.issues)
    assert token not in shown and "[REDACTED:github_token]" in shown
    assert token not in (tmp_path / "shard" / "items.jsonl").read_text()


def test_empty_rows_and_values_are_dropped_and_counted(tmp_path: Path) -> None:
    from substrate.ingest import ingest_file

    root = tmp_path / "in"
    root.mkdir()
    _write(root / "t.csv", "a,b\n1,2\n,,\n ,\n\n3,4\n")
    _write(root / "j.jsonl", '[]\n{}\nnull\n""\n"x"\n')
    shard = Substrate(tmp_path / "shard")
    report = ingest_path(shard, root)
    assert (report.items_added, report.items_dropped) == (3, 6)
    assert sorted(item.text for item in shard.iter_items()) == ["1 2", "3 4", "x"]
    for name, kept in (("t.csv", 2), ("j.jsonl", 1)):
        alone = IngestReport()
        assert len(ingest_file(Substrate(), root / name, report=alone)) == kept
        assert alone.items_dropped == (2 if name == "t.csv" else 4)


def test_a_file_that_grows_past_the_size_limit_after_the_walk_is_not_read_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the limit was checked on the walk's size alone: a log written meanwhile was read whole
    root = tmp_path / "notes"
    root.mkdir()
    log_file = root / "app.log.txt"
    log_file.write_text("small\n")
    plan = IngestSession.plan

    def plan_then_grow(self: IngestSession, entry: Any, *args: Any, **kwargs: Any) -> Any:
        ticket = plan(self, entry, *args, **kwargs)
        with log_file.open("a") as fh:  # written to between the walk and the read
            fh.write("a growing line of log text\n" * 20_000)
        return ticket

    monkeypatch.setattr(IngestSession, "plan", plan_then_grow)
    store = Substrate(tmp_path / "shard")
    report = ingest_path(store, root, max_file_size=1000)
    assert report.files_failed == 1 and not report.ids
    assert "grew past the size limit (1000 bytes)" in report.files[0].reason
    assert len(store) == 0


@contextmanager
def _held_by_another(self: Substrate, *, wait: bool = True) -> Iterator[None]:
    """``Substrate.writer_lock`` while another writer holds the shard: Ctrl-C comes while it
    is waited for, and a look without waiting finds it busy."""
    if wait:
        raise KeyboardInterrupt
    raise LockBusy("held by another writer")
    yield


def test_files_of_a_run_interrupted_while_waiting_for_the_lock_are_not_reached_not_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # nothing of them is stored, as of the files a Ctrl-C keeps a run from reaching; told as
    # failed, a script would look for something wrong with them
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in "abc":
        _write(tree / f"{name}.md", f"# {name}\n\nnote {name}\n")
    _write(tree / "d.jsonl", '{"text": "a row"}\n{oops\n')  # what is said of it goes too
    _write(tree / "e.md", "# E\n\ntoken ghp_" + "x7Kq9mZ2pL4vR8sT1wY6nB3cF5hJ0dG2aE4u" + "\n")
    monkeypatch.setattr(Substrate, "writer_lock", _held_by_another)
    report = IngestReport()
    with pytest.raises(KeyboardInterrupt):
        ingest_path(Substrate(tmp_path / "shard"), tree, report=report)
    assert report.interrupted and report.files_scanned == report.files_not_reached == 5
    assert report.files == [] and report.items_added == 0 and report.ids == []
    assert report.issues == [] and report.notices == []
    assert report.redactions == 0 and not report.redaction_rules  # nothing was stored


def test_a_text_interrupted_while_waiting_for_the_lock_is_told_as_not_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as the files of ``ingest_path`` are: a report counting it as added, with its id, told
    # a script that it was stored
    from substrate.ingest import ingest_text

    monkeypatch.setattr(Substrate, "writer_lock", _held_by_another)
    report = IngestReport()
    with pytest.raises(KeyboardInterrupt):
        ingest_text(Substrate(tmp_path / "shard"), "hello\n", source="y.txt", report=report)
    assert report.interrupted and report.files_scanned == report.files_not_reached == 1
    assert report.files == [] and report.items_added == 0 and report.ids == []
    assert not (tmp_path / "shard").exists()
