"""A file of a document per line (JSON Lines, traces), or a table (CSV, TSV), that only grew:
the items of its old lines are left as they are stored, and freshness finds them fresh; one
that held a secret too, by the digest of its bytes without the lines that held one
(``linesdigest``), which confirms no guess of it."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from substrate.freshness import freshness_report
from substrate.ingest import ingest_path
from substrate.ingest.build import ItemBuilder
from substrate.ingest.sources import SourceCache
from substrate.limits import SNIFF_CHARS
from substrate.linesdigest import MOST_SKIPPED, LinesDigest
from substrate.store import Substrate
from substrate.supersession import outdated_copies


def _rows(*texts: str) -> str:
    return "".join(
        json.dumps({"input": text, "answer": f"answer to {text}"}) + "\n" for text in texts
    )


def _write(path: Path, text: str, *, append: bool = False) -> None:
    with path.open("a" if append else "w", encoding="utf-8") as fh:
        fh.write(text)
    when = time.time() - 10  # (a time out of the racy window: trusted as it is)
    os.utime(path, (when, when))


def _stale(store: Substrate) -> list[str]:
    return [entry["item_id"] for entry in freshness_report(store)["stale"]]


def test_lines_added_to_a_file_are_stored_without_writing_the_others_again(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    _write(runs, _rows(*(f"question {n}" for n in range(50))))
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    before = (shard / "items.jsonl").stat().st_size
    first = {item.id for item in Substrate(shard).iter_items()}
    _write(runs, _rows("one more question"), append=True)
    store = Substrate(shard)
    assert _stale(store) == []  # what its old lines say, they still say
    report = ingest_path(store, runs)
    assert (report.items_added, report.items_rewritten, report.items_removed) == (1, 0, 0)
    grown = (shard / "items.jsonl").stat().st_size - before
    assert grown < 2_000  # the new line's item and a commit, not a copy of the file
    stored = Substrate(shard)
    assert first < {item.id for item in stored.iter_items()} and len(stored) == 51
    assert _stale(stored) == []
    assert ingest_path(stored, runs).files_unchanged == 1
    # each line its own passage: the old lines' items, which record the file as it was, are
    # no older copies of the new line's ("replaced by the newer content of runs.jsonl")
    assert outdated_copies(list(stored.iter_items())) == {}


def test_lines_added_are_built_alone_and_given_the_ids_a_whole_reading_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each line appended made the whole file be gated and built again (a 30,000-row trace
    # file: 3.4 s for one line); an id counts the identical rows before it, in the earlier
    # lines too, so the lines added must be counted after them
    runs = tmp_path / "runs.jsonl"
    _write(runs, _rows("ping", "alpha", "ping", "pong") + "\n{not json\n" + _rows("beta"))
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    built: list[str] = []
    build = ItemBuilder.build
    monkeypatch.setattr(ItemBuilder, "build", lambda *a, **kw: built.append("") or build(*a, **kw))
    for added in (_rows("ping", "gamma"), "\n" + _rows("ping", "alpha", "delta")):
        _write(runs, added, append=True)
        built.clear()
        report = ingest_path(Substrate(shard), runs, jobs=1)
        assert len(built) == added.count("input")  # the lines added, not the file
        assert report.items_removed == report.items_rewritten == 0
        assert [issue.line for issue in report.issues] == [6]  # the bad line, still told
    assert report.items_added == 3
    whole = tmp_path / "whole"
    ingest_path(Substrate(whole), runs)  # the same file read whole, in another shard
    assert {i.id for i in Substrate(shard).iter_items()} == {
        i.id for i in Substrate(whole).iter_items()
    }
    assert ingest_path(Substrate(shard), runs).files_unchanged == 1


def _added_alone(
    shard: Path, path: Path, added: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, set[str]]:
    """Append ``added`` to ``path`` and ingest it: how many items were built, and the ids
    stored, which a whole reading of the file in a fresh shard must give too."""
    built: list[str] = []
    build = ItemBuilder.build
    with monkeypatch.context() as patch:
        patch.setattr(ItemBuilder, "build", lambda *a, **kw: built.append("") or build(*a, **kw))
        _write(path, added, append=True)
        ingest_path(Substrate(shard), path, jobs=1)
    whole = shard.with_name(shard.name + "-whole")
    ingest_path(Substrate(whole), path)
    assert {i.id for i in Substrate(whole).iter_items()} == {
        i.id for i in Substrate(shard).iter_items()
    }
    return len(built), {i.kind for i in Substrate(shard).iter_items()}


def test_a_file_of_few_rows_that_grew_is_read_whole_as_its_rows_tell_what_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # two trace rows, then three rows of other fields: records, not traces, and all of it so
    runs = tmp_path / "runs.jsonl"
    _write(runs, _rows("alpha", "beta"))
    ingest_path(Substrate(tmp_path / "shard"), runs)
    added = "".join(json.dumps({"note": f"n{n}", "expected": "x"}) + "\n" for n in range(3))
    built, kinds = _added_alone(tmp_path / "shard", runs, added, monkeypatch)
    assert (built, kinds) == (5, {"record"})


def test_lines_added_to_a_big_endian_utf16_file_are_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a byte 0x0A in "Њ" (U+040A) was counted as a line's end: the lines added were taken
    # for earlier ones, built by no one, and lost
    def rows(*texts: str) -> bytes:
        lines = (json.dumps({"input": t, "answer": "a"}, ensure_ascii=False) for t in texts)
        return "".join(line + "\n" for line in lines).encode("utf-16-be")

    runs = tmp_path / "runs.jsonl"
    runs.write_bytes(rows(*(f"Њ question {n}" for n in range(6))))
    when = time.time() - 10
    os.utime(runs, (when, when))
    ingest_path(Substrate(tmp_path / "shard"), runs)
    with runs.open("ab") as fh:
        fh.write(rows("Њ one more"))
    os.utime(runs, (when + 1, when + 1))
    report = ingest_path(Substrate(tmp_path / "shard"), runs)
    assert report.items_added == 1 and len(Substrate(tmp_path / "shard")) == 7


def test_a_file_that_grew_by_a_broken_line_alone_is_told_of_it_once(tmp_path: Path) -> None:
    # its lines added were all rejected, so it was told failed, and again at every run
    runs = tmp_path / "runs.jsonl"
    _write(runs, _rows(*(f"question {n}" for n in range(6))))
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    _write(runs, "{not json\n", append=True)
    report = ingest_path(Substrate(shard), runs)
    assert (report.files_failed, [i.line for i in report.issues]) == (0, [7])
    assert len(Substrate(shard)) == 6
    again = ingest_path(Substrate(shard), runs)
    assert (again.files_failed, again.files_unchanged) == (0, 1)


@pytest.mark.parametrize("secret", [False, True])
def test_a_log_grown_past_the_size_limit_keeps_its_earlier_items(
    tmp_path: Path, secret: bool
) -> None:
    # they were removed, as an edited file's are, though the file still held every one (one
    # that held a secret is told so by its lines digest)
    runs = _log(tmp_path) if secret else tmp_path / "runs.jsonl"
    if not secret:
        _write(runs, _rows(*(f"question {n}" for n in range(6))))
    shard, rows = tmp_path / "shard", len(runs.read_text().splitlines())
    limit = runs.stat().st_size + 10
    ingest_path(Substrate(shard), runs.parent, max_file_size=limit)
    _write(runs, _rows("one more question"), append=True)
    grown = ingest_path(Substrate(shard), runs.parent, max_file_size=limit)
    assert (grown.items_removed, len(Substrate(shard))) == (0, rows)
    assert "only grew" in grown.files[0].reason
    _write(runs, runs.read_text().replace("question 0", "QUESTION 0"))  # edited: gone
    assert ingest_path(Substrate(shard), runs.parent, max_file_size=limit).items_removed == rows


def test_the_head_of_a_log_over_the_limit_is_read_as_a_file_to_ingest_is(tmp_path: Path) -> None:
    # a plain open() followed a link out of the folder, and waited forever on a FIFO
    from substrate.ingest.textio import read_head

    inside, outside = tmp_path / "logs", tmp_path / "private.jsonl"
    inside.mkdir()
    outside.write_text(_rows("secret question"))
    (inside / "runs.jsonl").symlink_to(outside)
    with pytest.raises(OSError):
        read_head(str(inside / "runs.jsonl"), str(inside), 100)
    os.mkfifo(inside / "fifo.jsonl")
    with pytest.raises(OSError):
        read_head(str(inside / "fifo.jsonl"), str(inside), 100)  # (opened without waiting)
    assert read_head(str(outside), None, 10) == outside.read_bytes()[:10]


def test_a_gate_of_other_rules_reads_the_earlier_lines_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a rule added since would never reach the earlier lines of a file that only grows: the
    # options a file was read with hold the rules
    from substrate.ingest.prepare import IngestOptions
    from substrate.secrets import rules

    before = IngestOptions().fingerprint()
    monkeypatch.setattr(rules, "RULES", rules.RULES[:-1])
    assert IngestOptions().fingerprint() != before


def _table(rows: int) -> str:
    return "sku,product,price\n" + "".join(f"P-{n},Thing {n},{n}.50\n" for n in range(rows))


def test_rows_added_to_a_table_are_stored_without_writing_the_others_again(tmp_path: Path) -> None:
    # every row was written again: a 200 MB CSV given one more row grew the log by 1.6 GB
    table = tmp_path / "prices.csv"
    _write(table, _table(12_000))  # past SNIFF_CHARS * 4 bytes: its delimiter is settled
    assert table.stat().st_size >= 4 * SNIFF_CHARS
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), table)
    before = (shard / "items.jsonl").stat().st_size
    _write(table, "P-new,New thing,9.99\n", append=True)
    store = Substrate(shard)
    assert _stale(store) == []
    report = ingest_path(store, table)
    assert (report.items_added, report.items_rewritten, report.items_removed) == (1, 0, 0)
    assert (shard / "items.jsonl").stat().st_size - before < 2_000
    stored = Substrate(shard)
    assert len(stored) == 12_001 and _stale(stored) == []
    # each row its own passage: the old rows are no older copies of the new one
    assert outdated_copies(list(stored.iter_items())) == {}


def test_a_short_table_appended_to_may_read_otherwise_and_is_read_anew(tmp_path: Path) -> None:
    # its delimiter is judged on the rows it has: one more row may change it, and every row
    table = tmp_path / "amounts.csv"
    _write(table, "Name;Amount (EUR, net)\nPan;1,05\n")  # read at its commas
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), table)
    first = {item.id for item in Substrate(shard).iter_items()}
    _write(table, "Kettle;25\n", append=True)  # now read at its semicolons
    store = Substrate(shard)
    assert sorted(_stale(store)) == sorted(first)
    report = ingest_path(store, table)
    assert report.items_removed == len(first) and report.items_added == 2
    stored = Substrate(shard)
    assert {item.payload.get("Name") for item in stored.iter_items()} == {"Pan", "Kettle"}
    assert _stale(stored) == []


def test_an_edit_before_the_end_reads_the_file_anew(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    _write(runs, _rows("alpha", "beta", "gamma"))
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    _write(runs, _rows("alpha", "BETA", "gamma", "delta"))
    store = Substrate(shard)
    assert len(_stale(store)) == 3  # its first bytes are no longer what they were
    report = ingest_path(store, runs)
    assert (report.items_added, report.items_removed, report.items_rewritten) == (2, 1, 2)
    assert sorted(i.payload["input"] for i in Substrate(shard).iter_items()) == [
        "BETA",
        "alpha",
        "delta",
        "gamma",
    ]


def test_a_last_line_without_its_line_break_is_read_again(tmp_path: Path) -> None:
    # {"a"} then "\n{"b"}" would append to the line before: the file did not only grow
    runs = tmp_path / "runs.jsonl"
    _write(runs, _rows("alpha", "beta").rstrip("\n"))
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    _write(runs, "\n" + _rows("gamma"), append=True)
    store = Substrate(shard)
    assert len(_stale(store)) == 2
    report = ingest_path(store, runs)
    assert (report.items_added, report.items_rewritten) == (1, 2)
    assert _stale(Substrate(shard)) == []


def test_a_line_added_holding_a_secret_reads_the_whole_file_again(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    _write(runs, _rows("alpha", "beta"))
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    _write(runs, _rows(f"the deploy token is {token}"), append=True)
    report = ingest_path(Substrate(shard), runs)
    assert report.redactions == 1 and report.items_added == 1
    # (rewritten without the hash of their file's bytes: a copy of the token may stand bare
    # in an earlier line, which that hash was of)
    assert report.items_rewritten == 2
    assert token not in (shard / "items.jsonl").read_text()
    assert len(Substrate(shard)) == 3
    assert _stale(Substrate(shard)) == []


def test_a_cache_rebuilt_after_lines_were_added_reads_the_file_once_and_keeps_one_copy(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs.jsonl"
    _write(runs, _rows("alpha", "beta"))
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    _write(runs, _rows("gamma"), append=True)
    ingest_path(Substrate(shard), runs)
    shutil.rmtree(shard / "index")  # (its items now record two versions of the file)
    report = ingest_path(Substrate(shard), runs)
    assert report.items_added == 0 and report.items_removed == 0
    stored = Substrate(shard)
    assert sorted(i.payload["input"] for i in stored.iter_items()) == ["alpha", "beta", "gamma"]
    assert _stale(stored) == [] and ingest_path(stored, runs).files_unchanged == 1


def test_the_size_recorded_is_that_of_the_bytes_hashed(tmp_path: Path) -> None:
    # a log appended to between the walk and the read: the size the walk saw, beside the hash
    # of more bytes, made the next ingest read it as changed before its end (written whole)
    from substrate.ingest.prepare import IngestOptions, Ticket, prepare

    runs = tmp_path / "runs.jsonl"
    _write(runs, _rows("alpha", "beta"))
    seen = len(_rows("alpha"))  # (the walk saw it with one line)
    ticket = Ticket(str(runs), "runs.jsonl", str(runs), "jsonl", seen, 0)
    options = IngestOptions()
    done = prepare(ticket, options, options.fingerprint())
    assert {item.provenance["size"] for item in done.built_items()} == {runs.stat().st_size}


def test_items_of_many_generations_of_a_log_are_all_fresh(tmp_path: Path) -> None:
    # each generation records the file as it was then: freshness reads each size's first
    # bytes, one reading of the file for all of them
    runs = tmp_path / "runs.jsonl"
    _write(runs, _rows("first"))
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    for n in range(4):
        _write(runs, _rows(f"question {n}"), append=True)
        ingest_path(Substrate(shard), runs)
    stored = Substrate(shard)
    assert len({item.provenance["size"] for item in stored.iter_items()}) == 5
    assert _stale(stored) == []
    _write(runs, runs.read_text().replace("first", "FIRST"))
    assert len(_stale(Substrate(shard))) == 5


def test_the_prefixes_of_bytes_held_are_hashed_as_the_file_s(tmp_path: Path) -> None:
    from substrate.ingest.textio import content_digest
    from substrate.lineprefixes import LinePrefixes

    data = b"one\ntwo\nthree"
    (tmp_path / "log").write_bytes(data)
    on_disk, held = LinePrefixes(str(tmp_path / "log")), LinePrefixes("/nowhere", data)
    for size in (4, 8, 3, 13):  # (3 and 13 end no line)
        assert held.of(size) == on_disk.of(size)
    assert held.of(8) == content_digest(data[:8]) and held.of(3) is None


def test_a_line_still_being_written_is_read_once_it_ends(tmp_path: Path) -> None:
    # an agent's trace row half written: the run failed on it, and once it ended the file
    # was no longer one that only grew, so that every row was written again
    runs = tmp_path / "runs.jsonl"
    _write(runs, _rows("first", "second"))
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    with runs.open("a", encoding="utf-8") as fh:  # (now: written moments ago)
        fh.write('{"input": "third", "ans')
    report = ingest_path(Substrate(shard), runs)
    assert (report.items_added, report.files_failed, report.issues) == (0, 0, [])
    with runs.open("a", encoding="utf-8") as fh:
        fh.write('wer": "answer to third"}\n')
    report = ingest_path(Substrate(shard), runs)
    assert (report.items_added, report.items_rewritten) == (1, 0)
    assert _stale(Substrate(shard)) == []


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_a_wide_encoded_file_written_moments_ago_is_read_whole(
    tmp_path: Path, encoding: str
) -> None:
    # its last line was cut at the byte "\n", half a character: "invalid UTF-16", no items
    runs = tmp_path / "runs.jsonl"
    runs.write_bytes(_rows("first", "second").encode(encoding))  # (now, as PowerShell writes)
    report = ingest_path(Substrate(tmp_path / "shard"), runs)
    assert (report.items_added, report.files_failed) == (2, 0)


def test_a_broken_last_line_written_long_ago_is_a_failure(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(_rows("first") + '{"input": "cut sh')
    when = time.time() - 600  # (ten minutes back: its writer is done with it)
    os.utime(runs, (when, when))
    report = ingest_path(Substrate(tmp_path / "shard"), runs)
    assert report.items_added == 1 and [issue.line for issue in report.issues] == [2]


def test_a_line_a_buffered_writer_left_half_written_for_seconds_waits_for_its_end(
    tmp_path: Path,
) -> None:
    # a block-buffered writer (C stdio, Go's bufio) leaves a row half written for many seconds:
    # read then, it failed the run, and once ended every row was written again
    runs = tmp_path / "runs.jsonl"
    _write(runs, _rows(*(f"question {n}" for n in range(6))))
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    _write(runs, '{"input": "seventh", "ans', append=True)  # (ten seconds back)
    report = ingest_path(Substrate(shard), runs)
    assert (report.files_failed, report.issues, report.items_added) == (0, [], 0)
    _write(runs, 'wer": "answer to seventh"}\n', append=True)
    report = ingest_path(Substrate(shard), runs)
    assert (report.items_added, report.items_rewritten, report.items_removed) == (1, 0, 0)


# A log that held a secret

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
OTHER = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"


def _log(tmp_path: Path, secret: str = TOKEN) -> Path:
    runs = tmp_path / "runs.jsonl"
    questions = [f"question {n}" for n in range(30)]
    questions[3] = f"call the api with {secret} please"
    _write(runs, _rows(*questions))
    return runs


def _recorded(shard: Path, runs: Path) -> str:
    """The hash the source cache keeps of ``runs``."""
    state = SourceCache.open(Substrate(shard), "local").get(str(runs))
    assert state is not None
    return state.content_hash


def _texts(shard: Path) -> list[str]:
    return sorted(item.text for item in Substrate(shard).iter_items())


def test_lines_added_to_a_log_that_held_a_secret_are_stored_alone(tmp_path: Path) -> None:
    runs, shard = _log(tmp_path), tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    before = (shard / "items.jsonl").stat().st_size
    _write(runs, _rows("one more question"), append=True)
    assert _stale(Substrate(shard)) == []  # what its old lines say, they still say
    report = ingest_path(Substrate(shard), runs)
    assert (report.items_added, report.items_rewritten, report.items_removed) == (1, 0, 0)
    assert report.redactions == 0  # (the secret's line is stored already: nothing new masked)
    assert (shard / "items.jsonl").stat().st_size - before < 2_000  # not the file again
    assert len(Substrate(shard)) == 31 and _stale(Substrate(shard)) == []
    for path in (shard / "items.jsonl", shard / "index" / "sources.json"):
        assert TOKEN not in path.read_text()
    assert ingest_path(Substrate(shard), runs).files_unchanged == 1


def test_the_digest_kept_confirms_no_guess_of_the_secret(tmp_path: Path) -> None:
    # the same log with another token keeps the same digest: nothing of the token is hashed
    digests = []
    for secret in (TOKEN, OTHER):
        folder = tmp_path / secret[-4:]
        folder.mkdir()
        runs = _log(folder, secret)
        ingest_path(Substrate(folder / "shard"), runs)
        digests.append(LinesDigest.parse(_recorded(folder / "shard", runs)))
    assert digests[0] is not None and digests[1] is not None
    assert digests[0].digest == digests[1].digest
    assert [number for number, _, _ in digests[0].skipped] == [4]
    item = next(iter(Substrate(tmp_path / TOKEN[-4:] / "shard").iter_items()))
    assert "content_hash" not in item.provenance and "lines_hash" in item.provenance


def test_an_edit_of_a_secret_line_beside_lines_added_is_seen(tmp_path: Path) -> None:
    runs, shard = _log(tmp_path), tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    # (of the same length: the bytes the digest is of are those it hashed)
    edited = runs.read_text().replace("call the api with", "call the web with")
    _write(runs, edited + _rows("one more question"))
    report = ingest_path(Substrate(shard), runs)
    assert (report.items_added, report.items_removed) == (2, 1)
    texts = _texts(shard)
    assert any("call the web with [REDACTED:" in text for text in texts)
    assert not any("call the api" in text for text in texts)


def test_a_line_added_with_a_new_secret_joins_the_lines_left_out(tmp_path: Path) -> None:
    runs, shard = _log(tmp_path), tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    _write(runs, _rows(f"rotated: GITHUB_TOKEN={OTHER}"), append=True)
    report = ingest_path(Substrate(shard), runs)  # (read whole: both secrets counted, and
    assert (report.items_added, report.items_rewritten, report.redactions) == (1, 30, 2)  # all)
    known = LinesDigest.parse(_recorded(shard, runs))
    assert known is not None and known.lines() == {4, 31}
    _write(runs, _rows("one more question"), append=True)
    report = ingest_path(Substrate(shard), runs)
    assert (report.items_added, report.items_rewritten, report.redactions) == (1, 0, 0)
    assert OTHER not in (shard / "items.jsonl").read_text()


def test_a_new_secret_that_stands_bare_in_an_earlier_line_is_masked_there(tmp_path: Path) -> None:
    runs, shard = _log(tmp_path), tmp_path / "shard"
    questions = [f"question {n}" for n in range(30)]
    questions[3] = f"call the api with {TOKEN} please"
    questions[7] = f"the value was {OTHER[4:]}"  # bare: no rule finds it alone
    _write(runs, _rows(*questions))
    ingest_path(Substrate(shard), runs)
    assert any(OTHER[4:] in text for text in _texts(shard))
    _write(runs, _rows(f"rotated: the new token is {OTHER[4:]}, GITHUB_TOKEN={OTHER}"), append=True)
    ingest_path(Substrate(shard), runs)
    assert not any(OTHER[4:] in text for text in _texts(shard))


def test_a_rebuilt_source_cache_reads_the_log_whole_once(tmp_path: Path) -> None:
    runs, shard = _log(tmp_path), tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    shutil.rmtree(shard / "index")
    _write(runs, _rows("one more question"), append=True)
    report = ingest_path(Substrate(shard), runs)
    assert report.items_added == 1 and len(Substrate(shard)) == 31
    assert LinesDigest.parse(_recorded(shard, runs)) is not None
    _write(runs, _rows("and another"), append=True)
    report = ingest_path(Substrate(shard), runs)
    assert (report.items_added, report.items_rewritten) == (1, 0)


def test_freshness_tells_an_earlier_line_edited_in_a_log_that_held_a_secret(
    tmp_path: Path,
) -> None:
    runs, shard = _log(tmp_path), tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    _write(runs, runs.read_text().replace("question 12", "question twelve") + _rows("more"))
    assert len(_stale(Substrate(shard))) == 30  # the file changed, not only grew


def test_a_log_with_many_lines_holding_secrets_keeps_no_hash(tmp_path: Path) -> None:
    # every item would record them all: read whole at each change, as before
    runs, shard = tmp_path / "runs.jsonl", tmp_path / "shard"
    keys = [f"AKIA{n:04d}QWRTZPUI7XYP" for n in range(MOST_SKIPPED + 1)]
    _write(runs, _rows(*(f"call with {key}" for key in keys), "no key here"))
    ingest_path(Substrate(shard), runs)
    assert _recorded(shard, runs) == ""
    _write(runs, _rows("one more question"), append=True)
    report = ingest_path(Substrate(shard), runs)
    assert report.items_added == 1 and len(Substrate(shard)) == MOST_SKIPPED + 3
    assert not any("AKIA" in text for text in _texts(shard))


@pytest.mark.parametrize("appended", [False, True])
def test_a_log_that_held_a_secret_touched_is_unchanged(tmp_path: Path, appended: bool) -> None:
    # (once lines were added to it, its items record several sizes: its digest tells)
    runs, shard = _log(tmp_path), tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    if appended:
        _write(runs, _rows("one more question"), append=True)
        ingest_path(Substrate(shard), runs)
    before = (shard / "items.jsonl").stat().st_size
    _write(runs, runs.read_text())  # the same bytes, a new modification time
    touched = ingest_path(Substrate(shard), runs)
    assert (touched.files_unchanged, touched.files_updated, touched.redactions) == (1, 0, 0)
    assert (shard / "items.jsonl").stat().st_size - before < 2_000  # (a commit at most)
    assert _stale(Substrate(shard)) == []


def test_an_item_removed_by_hand_from_a_log_that_held_a_secret_stays_removed_on_rehash(
    tmp_path: Path,
) -> None:
    runs, shard = _log(tmp_path), tmp_path / "shard"
    ingest_path(Substrate(shard), runs)
    _write(runs, _rows("one more question"), append=True)
    ingest_path(Substrate(shard), runs)
    store = Substrate(shard)
    gone = next(item.id for item in store.iter_items() if item.text.startswith("question 7 "))
    store.remove(gone)
    store.save()
    again = ingest_path(Substrate(shard), runs, rehash=True)
    assert (again.files_unchanged, again.items_added, again.items_rewritten) == (1, 0, 0)
    assert gone not in {item.id for item in Substrate(shard).iter_items()}


def test_a_log_that_held_a_secret_moved_is_known_moved(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    runs, shard = _log(logs), tmp_path / "shard"
    ingest_path(Substrate(shard), logs)
    (logs / "old").mkdir()
    runs.rename(logs / "old" / runs.name)
    moved = ingest_path(Substrate(shard), logs)  # (its items' ids follow its new path)
    assert (moved.files_added, moved.files_removed, moved.files_moved) == (1, 1, 1)
    assert len(Substrate(shard)) == 30


def test_a_secret_told_by_a_line_added_leaves_no_hash_of_an_earlier_bare_copy(
    tmp_path: Path,
) -> None:
    # the earlier lines' items kept the hash of bytes that held the password, bare
    runs, shard = tmp_path / "runs.jsonl", tmp_path / "shard"
    _write(runs, _rows(*(f"question {n}" for n in range(8)), "it is Hunter2Zebra!Qx7 again"))
    ingest_path(Substrate(shard), runs)
    _write(runs, _rows("password=Hunter2Zebra!Qx7"), append=True)
    ingest_path(Substrate(shard), runs)
    items = list(Substrate(shard).iter_items())
    assert not any("Hunter2Zebra" in item.text for item in items)
    assert not any("content_hash" in item.provenance for item in items)


@pytest.mark.parametrize(
    "hidden",
    [
        '{"text": "", "tags": ["Tr0ub4dor\\u00263xyzzyQx7Qx7"]}',  # Go's escape, in no item
        '{"text": " ", "tags": ["Tr0ub4dor&3xyzzy\\/Qx7Qx7"]}',  # PHP's (another secret)
        '{"text": "Tr0ub4dor\\u00263xyzzyQx7Qx7", "text": "row"}',  # a key given twice
    ],
)
def test_a_copy_of_a_secret_in_bytes_no_item_holds_is_hashed_by_no_digest(
    tmp_path: Path, hidden: str
) -> None:
    runs, shard = tmp_path / "runs.jsonl", tmp_path / "shard"
    secret = "Tr0ub4dor&3xyzzy/Qx7Qx7" if "\\/" in hidden else "Tr0ub4dor&3xyzzyQx7Qx7"
    rows = [json.dumps({"text": f"row {n}"}) for n in range(6)]
    rows[1] = json.dumps({"text": f"password={secret}"})
    rows[3] = hidden
    _write(runs, "\n".join(rows) + "\n")
    ingest_path(Substrate(shard), runs)
    known = LinesDigest.parse(_recorded(shard, runs))
    assert known is None or 4 in known.lines()


def test_a_secret_found_only_in_a_rejected_line_is_looked_for_in_the_others(
    tmp_path: Path,
) -> None:
    runs, shard = tmp_path / "runs.jsonl", tmp_path / "shard"
    rows = [json.dumps({"text": f"row {n}"}) for n in range(6)]
    rows[1] = '{"text": "password=Hunter2Zebra!Qx7Qx7"'  # (no closing brace: rejected)
    rows[3] = json.dumps({"text": "", "tags": ["Hunter2Zebra!Qx7Qx7"]})  # in no item
    _write(runs, "\n".join(rows) + "\n")
    ingest_path(Substrate(shard), runs)
    known = LinesDigest.parse(_recorded(shard, runs))
    assert known is None or 4 in known.lines()


def test_a_line_end_moved_into_a_line_that_held_a_secret_is_seen(tmp_path: Path) -> None:
    # as many bytes as the line had, another password and a row of its own: the digest of
    # the other lines is the same, but the lines are not where they were
    runs, shard = tmp_path / "runs.jsonl", tmp_path / "shard"
    old = json.dumps({"text": "password=Hunter2Zebra!" + "Qx7" * 14})
    rows = [json.dumps({"text": f"row {n}"}) for n in range(8)]
    rows[1] = old
    _write(runs, "\n".join(rows) + "\n")
    ingest_path(Substrate(shard), runs)
    first = json.dumps({"text": "password=Hunter2Zeb!"})
    filler = len(old) - len(first) - 1 - len('{"text": ""}')
    rows[1] = first + "\n" + json.dumps({"text": ("INJECTED " * 20)[:filler]})
    assert len(rows[1]) == len(old)
    _write(runs, "\n".join(rows) + "\n" + json.dumps({"text": "row appended"}) + "\n")
    assert _stale(Substrate(shard))  # (freshness, as ingest, finds the lines moved)
    ingest_path(Substrate(shard), runs)
    assert any(text.startswith("INJECTED") for text in _texts(shard))


def test_a_log_with_lone_carriage_returns_keeps_no_digest(tmp_path: Path) -> None:
    # its text is not its bytes (a lone CR reads as a blank): a digest of it never matches
    runs, shard = tmp_path / "runs.jsonl", tmp_path / "shard"
    rows = [_rows(f"question {n}").replace(", ", ",\r ") for n in range(6)]
    rows[2] = _rows("password=Hunter2Zebra!Qx7Qx7")
    _write(runs, "".join(rows))
    assert ingest_path(Substrate(shard), runs).items_added == 6
    assert _recorded(shard, runs) == ""


@pytest.mark.parametrize(
    "hidden",
    [
        '{"text": "", "tags": ["db_password=Summer2024!"]}',  # a row dropped as empty
        '{"text": "db_password=Summer2024!", "text": "row"}',  # a key given twice
    ],
)
def test_a_line_no_item_holds_whole_is_left_out_of_the_digest(tmp_path: Path, hidden: str) -> None:
    # the gate never saw it all: the digest hashed a secret no rule had found
    for appended in (False, True):
        runs, shard = tmp_path / f"runs{appended}.jsonl", tmp_path / f"shard{appended}"
        rows = [json.dumps({"text": f"row {n}"}) for n in range(8)]
        rows[2] = json.dumps({"text": f"call with {TOKEN}"})
        _write(runs, "\n".join(rows) + "\n" + ("" if appended else hidden + "\n"))
        ingest_path(Substrate(shard), runs)
        if appended:  # (a line added that no item holds: the file is read whole)
            _write(runs, hidden + "\n", append=True)
            ingest_path(Substrate(shard), runs)
        known = LinesDigest.parse(_recorded(shard, runs))
        assert known is not None and known.lines() == {3, 9}, appended


def test_code_in_a_row_keeps_the_digest(tmp_path: Path) -> None:
    # a scan of the raw rows took the call for a password ("...username)\"}" ends no line),
    # and the log was read whole at every append
    runs, shard = _log(tmp_path), tmp_path / "shard"
    _write(runs, _rows("password = self.keyring.get_password(url, username)"), append=True)
    ingest_path(Substrate(shard), runs)
    assert _recorded(shard, runs).startswith("lines:")
    _write(runs, _rows("one more question"), append=True)
    assert ingest_path(Substrate(shard), runs).items_rewritten == 0
