from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from substrate import Substrate, SubstrateItem
from substrate import log as log_module


def test_version_and_help(mixle) -> None:
    result = mixle("--version")
    assert result.exit_code == 0 and result.stdout.startswith("mixle ")
    # what tells two installs of one release apart: the formats of what each writes
    from substrate.versions import PARSER_VERSION

    assert f"shard format 1, parser {PARSER_VERSION}, search index format" in result.stdout
    assert mixle("--help").exit_code == 0


def test_init_creates_dot_mixle(mixle, tmp_path: Path) -> None:
    result = mixle("init", str(tmp_path / "proj"), "--json")
    assert result.exit_code == 0
    assert result.json() == {"shard": str(tmp_path / "proj" / ".mixle"), "created": True}
    assert (tmp_path / "proj" / ".mixle" / "mixle.toml").exists()
    assert mixle("init", str(tmp_path / "proj"), "--json").json()["created"] is False


def test_init_refused_in_a_shared_folder_makes_nothing_there(mixle, tmp_path: Path) -> None:
    # its log was made before the refusal: the folder then passed for a shard
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    result = mixle("--shard", str(shared), "init")
    assert result.exit_code == 3 and "may be written by anyone" in result.stderr
    assert list(shared.iterdir()) == []


def test_init_inside_another_shard_s_folder_says_which_now_answers(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MIXLE_SHARD", raising=False)
    assert mixle("init", str(tmp_path / "proj")).exit_code == 0
    inner = mixle("init", str(tmp_path / "proj" / "sub"))
    assert inner.exit_code == 0
    assert f"inside the folder of another ({tmp_path / 'proj' / '.mixle'})" in inner.stderr
    again = mixle("init", str(tmp_path / "proj" / "sub"))  # already one: nothing changes
    assert "inside the folder" not in again.stderr
    # where MIXLE_SHARD is set, that is the shard commands use: said once, not contradicted
    monkeypatch.setenv("MIXLE_SHARD", str(tmp_path / "proj" / ".mixle"))
    other = mixle("init", str(tmp_path / "proj" / "other"))
    assert "MIXLE_SHARD is set" in other.stderr and "inside the folder" not in other.stderr


def test_init_names_the_shard_by_its_absolute_path(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    made = mixle("init", "p q", "--json")
    assert made.exit_code == 0 and made.json()["shard"] == str(tmp_path / "p q" / ".mixle")
    given = mixle("--shard", "s", "init", "--json").json()["shard"]
    assert given == str(tmp_path / "s")
    assert mixle("init", "p q").stdout == f"Already a shard: {tmp_path / 'p q' / '.mixle'}\n"
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert mixle("init", "../up", "--json").json()["shard"] == str(tmp_path / "up" / ".mixle")
    status = mixle("--shard", "../up/.mixle", "status", "--json").json()
    assert status["shard"] == str(tmp_path / "up" / ".mixle")  # as init named it
    (tmp_path / "elsewhere" / "dir").mkdir(parents=True)
    (tmp_path / "sub" / "link").symlink_to(tmp_path / "elsewhere" / "dir")
    made_there = mixle("init", "link/../x", "--json").json()["shard"]  # where the system put it
    assert made_there == str(tmp_path / "elsewhere" / "x" / ".mixle")


def test_init_of_a_folder_says_when_mixle_shard_points_elsewhere(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MIXLE_SHARD", str(tmp_path / "kb"))
    made = mixle("init", str(tmp_path / "proj"))
    assert made.exit_code == 0 and (tmp_path / "proj" / ".mixle").is_dir()
    assert f"MIXLE_SHARD is set ({tmp_path / 'kb'}): commands use that shard" in made.stderr
    monkeypatch.setenv("MIXLE_SHARD", str(tmp_path / "proj" / ".mixle"))  # the same one
    assert mixle("init", str(tmp_path / "proj")).stderr == ""
    assert mixle("init").stderr == ""  # makes the MIXLE_SHARD shard itself


def test_init_reads_a_shard_path_from_home_as_every_command_does(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # it made a folder "~" here, where no other command looked
    made = mixle("--shard", "~/kb", "init")
    assert made.exit_code == 0 and (tmp_path / "home" / "kb").is_dir()
    assert not (tmp_path / "~").exists()
    assert mixle("--shard", "~/kb", "status").exit_code == 0
    assert mixle("--shard", "~nosuchuser9/kb", "init").exit_code == 3


def test_init_where_a_file_is_says_so_without_sending_to_audit(mixle, tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    # the file given as the folder, or on the way to it, or as --shard: a usage error, in words
    for args in (
        ["init", str(tmp_path / "afile")],
        ["init", str(tmp_path / "afile" / "sub")],
        ["--shard", str(tmp_path / "afile"), "init"],
    ):
        result = mixle(*args)
        assert result.exit_code == 2, (args, result.stderr)
        assert "afile is a file, not a folder: no shard can be made there" in result.stderr
        assert "audit" not in result.stderr


def test_add_get_ls_rm_round_trip(mixle, isolated_shard_env: Path) -> None:
    first = mixle("add", "Refunds take five days.", "--tag", "policy", "--json")
    assert first.exit_code == 0
    a = first.json()["id"]
    b = mixle("add", "--kind", "record", "--payload", '{"sku": 7}', "--link", a).stdout.strip()
    got = mixle("get", a, b, "--json")
    assert got.exit_code == 0
    assert [i["id"] for i in got.json()] == [a, b]
    assert got.json()[1]["payload"] == {"sku": 7} and got.json()[1]["links"] == [a]
    listed = mixle("ls", "--jsonl")
    assert [r["id"] for r in listed.jsonl()] == [a, b]
    assert mixle("ls", "--tag", "policy", "--json").json()[0]["id"] == a
    assert mixle("ls", "--tag", "Policy", "--json").json()[0]["id"] == a  # as search takes it
    shown = " ".join(mixle("ls", "--help").stdout.replace("│", " ").split())
    assert "tag, in any case" in shown  # its help said "A tag", as add's does
    assert [r["id"] for r in mixle("ls", "--kind", "record", "--json").json()] == [b]
    assert [r["id"] for r in mixle("ls", "-K", "record", "-K", "text", "--json").json()] == [a, b]
    assert [r["id"] for r in mixle("ls", "-K", "trace,record", "--json").json()] == [b]
    assert [r["id"] for r in mixle("ls", "-n", "1", "--json").json()] == [a]
    assert [r["id"] for r in mixle("ls", "--k", "1", "--json").json()] == [a]  # as search's
    assert mixle("ls", "-n", "0").exit_code == 2  # it said "no matching items"
    assert mixle("rm", a).exit_code == 0
    assert [r["id"] for r in mixle("ls", "--json").json()] == [b]
    assert (isolated_shard_env / "items.jsonl").exists()
    none = mixle("ls", "--tag", "nowhere")  # said as search says it, not a table of headings
    assert none.exit_code == 0 and none.stdout == "" and none.stderr == "no matching items\n"
    assert mixle("ls", "--tag", "nowhere", "--json").json() == []
    for form in ("--json", "--jsonl"):  # said beside the data too: `ls ... --jsonl | rm -`
        piped = mixle("ls", "--scope", "nowhere", form)
        assert piped.exit_code == 0 and "no item you may read is in scope" in piped.stderr


def test_ids_piped_in_as_a_listing_prints_them(mixle, isolated_shard_env: Path) -> None:
    old = [mixle("add", f"note {n}", "--tag", "old").stdout.strip() for n in range(3)]
    kept = mixle("add", "keep me").stdout.strip()
    listing = mixle("ls", "--tag", "old", "--jsonl").stdout
    got = mixle("get", "-", "--json", input=listing)
    assert got.exit_code == 0 and [i["id"] for i in got.json()] == old
    bare = mixle("get", "-", kept, "--json", input=f"\n{old[0]}\n")  # bare ids, blank lines
    assert [i["id"] for i in bare.json()] == [old[0], kept]
    assert mixle("rm", "-", input=listing).exit_code == 0
    assert [r["id"] for r in mixle("ls", "--json").json()] == [kept]
    refused = mixle("rm", "-", input='{"x": 1}')
    assert refused.exit_code == 2 and "a JSON line with no id" in refused.stderr
    # a listing that found nothing leaves nothing to do: a cleanup pipeline does not fail
    nothing = {"rm": {"removed": []}, "get": [], "publish": {"published": []}}
    for command, expected in nothing.items():
        empty = mixle(command, "-", "--json", input="")
        assert empty.exit_code == 0 and "note: standard input held no item id" in empty.stderr
        shown = empty.json()
        assert (shown if command == "get" else {k: shown[k] for k in expected}) == expected
    assert "not an item id" in mixle("rm", "-", input="some words\n").stderr
    assert mixle("ls", "--json").json()[0]["id"] == kept  # nothing removed by bad input


def test_ids_piped_in_are_read_within_bounds(
    mixle, isolated_shard_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = mixle("add", "a note").stdout.strip()
    monkeypatch.setattr("mixle_cli.evidence._ID_LINE_LIMIT", 1000)
    for command in ("get", "rm", "publish", "propose"):  # (< /dev/zero: no line end, ever)
        endless = mixle(command, "-", input="\0" * 5000)
        assert endless.exit_code == 2 and "line 1 is longer than 1000 bytes" in endless.stderr
    assert "line 1 is not an item id" in mixle("get", "-", input="\0\0\0\n").stderr
    # an editor's byte-order mark is no part of the id; an id given twice is read once
    got = mixle("get", "-", "--json", input=f"\ufeff{note}\n{note}\n")
    assert got.exit_code == 0 and [i["id"] for i in got.json()] == [note]
    assert mixle("ls", "--json").json()[0]["id"] == note  # nothing removed by bad input
    quoted = mixle("get", f" {note} ", "--json")  # white space around it, as piped ids may
    assert quoted.exit_code == 0 and [i["id"] for i in quoted.json()] == [note]
    twice = mixle("get", note, note, "-", "--json", input=f"{note}\n")  # given or piped: once
    assert [i["id"] for i in twice.json()] == [note]


def test_ids_piped_in_as_json_strings_or_a_json_document(mixle, isolated_shard_env: Path) -> None:
    note = mixle("add", "a note").stdout.strip()
    quoted = mixle("get", "-", "--json", input=f'"{note}"\n')  # jq .id, without -r
    assert quoted.exit_code == 0 and [i["id"] for i in quoted.json()] == [note]
    document = mixle("ls", "--json").stdout  # one document over many lines, not JSON lines
    refused = mixle("get", "-", input=document)
    said = " ".join(refused.stderr.replace("\u2502", " ").split())  # (a panel in the runner)
    assert refused.exit_code == 2 and "pipe the --jsonl output of a listing" in said


def test_an_error_does_not_say_back_megabytes_of_input(mixle, isolated_shard_env: Path) -> None:
    mixle("add", "a note")
    result = mixle("get", "-", input="a" * 100_000 + "\n")
    assert result.exit_code == 1 and result.stderr.startswith("error: no item with id aaa")
    assert len(result.stderr) < 2_200 and "more characters)" in result.stderr


def test_add_reads_stdin(mixle) -> None:
    item_id = mixle("add", "-", input="from a pipe\n").stdout.strip()
    assert mixle("get", item_id, "--json").json()[0]["text"] == "from a pipe\n"


def test_add_reads_a_pipe_without_a_dash(mixle_bin: str, tmp_path: Path) -> None:
    shard = str(tmp_path / "shard")
    piped = subprocess.run(
        [mixle_bin, "--shard", shard, "add"], input=b"from a pipe\n", capture_output=True
    )
    assert piped.returncode == 0, piped.stderr  # as search and ask read one
    item_id = piped.stdout.decode().strip()
    shown = subprocess.run([mixle_bin, "--shard", shard, "get", item_id], capture_output=True)
    assert b"from a pipe" in shown.stdout
    with open(os.devnull, "rb") as nothing:  # (cron's standard input: no pipe, not read)
        refused = subprocess.run(
            [mixle_bin, "--shard", shard, "add"], stdin=nothing, capture_output=True
        )
    assert refused.returncode == 2 and b"give the text, - to read" in refused.stderr


def test_add_refuses_standard_input_over_the_size_limit(mixle) -> None:
    mixle("init")
    shard = Path(mixle("status", "--json").json()["shard"])
    with (shard / "mixle.toml").open("a", encoding="utf-8") as fh:
        fh.write("\n[ingest]\nmax_file_size = 20\n")
    refused = mixle("add", "-", input="a note longer than twenty bytes\n")
    assert refused.exit_code == 1
    assert "standard input holds more than 20 bytes, the size limit" in refused.stderr
    assert "max_file_size" in refused.stderr and mixle("ls", "--json").json() == []
    assert mixle("add", "-", input="short note\n").exit_code == 0


def test_missing_ids_exit_1_and_are_named(mixle) -> None:
    mixle("init")
    result = mixle("get", "0000000000000000")
    assert result.exit_code == 1 and "0000000000000000" in result.stderr
    assert mixle("rm", "0000000000000000").exit_code == 1
    assert mixle("add", "x", "--link", "0000000000000000").exit_code == 1


def test_invalid_payload_is_a_usage_error(mixle) -> None:
    result = mixle("add", "x", "--payload", "{not json")
    assert result.exit_code == 2
    assert "--payload is not valid JSON" in result.stderr
    assert mixle("add", "x", "--payload", "[1]").exit_code == 2
    assert mixle("add", "x", "--kind", "video").exit_code == 2
    assert mixle("ls", "--no-such-flag").exit_code == 2


def test_status_and_reindex_mask_a_secret_in_the_shard_path(mixle, tmp_path: Path) -> None:
    token = "ghp_" + "Zq3xV9mK2pL8wR4tY6uB1nC5dF7gH0jE2sA4"
    shard = str(tmp_path / f"shard_{token}")
    mixle("--shard", shard, "add", "a")
    for form in ([], ["--json"]):
        made = mixle("--shard", shard + "2", "init", *form)
        assert "[REDACTED:github_token]" in made.stdout and token not in made.stdout
        shown = mixle("--shard", shard, "status", *form)
        assert shown.exit_code == 0 and "shard_[REDACTED:github_token]" in shown.stdout
        assert token not in shown.stdout + shown.stderr
        indexed = mixle("--shard", shard, "reindex", *form)
        assert indexed.exit_code == 0 and token not in indexed.stdout + indexed.stderr


def test_status_counts_and_health(mixle) -> None:
    mixle("add", "a")
    mixle("add", "b", "--scope", "public")
    report = mixle("status", "--json").json()
    assert report["items"] == 2
    assert report["by_scope"] == {"local": 1, "public": 1}
    assert report["healthy"] is True
    assert "index   missing (built by the first search" in mixle("status").stdout
    mixle("search", "zebra")  # builds the index
    # the search index's own size, apart from the other derived files (the catalog, caches)
    index, text = mixle("status", "--json").json()["index"], mixle("status").stdout
    assert f"index   fresh, 1 segment(s), lexical, 2 items, {index['bytes']:,} bytes\n" in text
    assert "derived " in text


def test_status_says_when_a_compaction_would_reclaim_much_of_the_log(mixle) -> None:
    big = [mixle("add", "x " * 300_000).stdout.strip() for _ in range(3)]  # 1.8 MB of lines
    kept = mixle("add", "a note to keep").stdout.strip()
    assert "reclaims" not in mixle("status").stdout
    assert mixle("rm", *big).exit_code == 0
    report = mixle("status", "--json").json()["log"]
    assert 0 < report["live_bytes"] < 1_000  # the kept note's line
    assert report["committed_bytes"] > 1_800_000
    assert "of them removed items and old versions: `mixle compact` reclaims" in (
        mixle("status").stdout
    )
    assert mixle("compact").exit_code == 0
    assert "reclaims" not in mixle("status").stdout
    assert mixle("get", kept).exit_code == 0


def test_status_tells_of_the_copy_a_killed_compaction_left(mixle, isolated_shard_env: Path) -> None:
    # a compaction killed midway leaves its copy of the log (as large as the log): the shard
    # took more room than status said, and neither status nor audit told why
    assert mixle("add", "a note").exit_code == 0
    left = isolated_shard_env / ".items.jsonl.999999999.tmp"  # (no process has that id)
    left.write_bytes(b"x" * 5000)
    assert mixle("status", "--json").json()["abandoned_bytes"] == 5000
    told = mixle("status")
    assert "note: files a write stopped midway left (a compaction killed?) take 5,000" in (
        told.stderr
    )
    assert mixle("--as", "research", "status", "--json").json()["abandoned_bytes"] is None
    assert mixle("add", "another").exit_code == 0  # the next write removes it
    assert not left.exists() and mixle("status", "--json").json()["abandoned_bytes"] == 0


def test_compact(mixle) -> None:
    ids = [mixle("add", f"n{i}").stdout.strip() for i in range(3)]
    mixle("rm", ids[0])
    result = mixle("compact")  # the rebuild it leaves to the next search is announced
    assert result.exit_code == 0 and "mixle reindex" in result.stderr
    assert "compacted: " in result.stdout and "2 live items" in result.stdout
    again = mixle("compact", "--json")
    assert again.exit_code == 0 and again.json()["live_items"] == 2
    assert again.json()["reclaimed"] is False
    said = mixle("compact")
    assert said.stdout.startswith("nothing to reclaim: ") and "reindex" not in said.stderr


def test_ls_json_tells_two_files_of_one_name_apart_by_their_paths(mixle, tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "README.md").write_text(f"# {name}\n\nThe {name} service.\n")
        assert mixle("ingest", str(tmp_path / name)).exit_code == 0
    for flag in ("--json", "--jsonl"):
        result = mixle("ls", flag)
        assert result.exit_code == 0, result.stderr
        rows = result.json() if flag == "--json" else result.jsonl()
        assert [r["source"] for r in rows] == ["README.md", "README.md"]
        assert [r["path"] for r in rows] == [str(tmp_path / n / "README.md") for n in "ab"]


def test_corrupt_middle_line_is_exit_3_and_file_untouched(mixle, isolated_shard_env: Path) -> None:
    for i in range(3):
        mixle("add", f"c{i}")
    path = isolated_shard_env / "items.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[3] = b"{garbage\n"
    path.write_bytes(b"".join(lines))
    before = path.read_bytes()
    result = mixle("ls")
    assert result.exit_code == 3
    assert f"{path}:4" in result.stderr and "Traceback" not in result.stderr
    for query in ("c1", "the", "x"):  # words the index holds, or none at all: the same 3
        searched = mixle("search", query)
        assert searched.exit_code == 3 and f"{path}:4" in searched.stderr, query
    assert "fix or remove that line by hand" in result.stderr  # audit would only repeat it
    assert path.read_bytes() == before
    lines[3] = lines[2]  # the line fixed by hand, as the hint says
    path.write_bytes(b"".join(lines))
    assert "before the end noted" in mixle("compact").stderr  # shortened: the log is short
    shutil.rmtree(isolated_shard_env / "index")  # as the hint says
    assert "--accept-loss" in mixle("compact").stderr  # c1's line is a copy: c1 is lost
    assert mixle("compact", "--accept-loss").exit_code == 0 and mixle("ls").exit_code == 0


def test_writers_exit_3_on_a_line_damaged_before_the_catalog(
    mixle, isolated_shard_env: Path, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nfirst note\n")
    assert mixle("ingest", str(notes)).exit_code == 0
    for i in range(3):
        mixle("add", f"c{i}")
    assert mixle("compact").exit_code == 0  # the catalog: writers read only what follows it
    path = isolated_shard_env / "items.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[2] = b"X" + lines[2][1:]  # damaged in place, every length kept
    path.write_bytes(b"".join(lines))
    (notes / "b.md").write_text("# B\n\nsecond note\n")
    for args in (("add", "more"), ("ingest", str(notes))):
        result = mixle(*args)
        assert result.exit_code == 3, args
        assert f"{path}:3" in result.stderr and "Traceback" not in result.stderr
    assert path.read_bytes() == b"".join(lines)


@pytest.mark.parametrize(
    ("errno", "cause", "hint"),
    [
        (28, "No space left on device", "hint: free some space"),
        (13, "Permission denied", "hint: check that you may write"),
        (27, "File too large", "hint: a file size limit was reached"),
    ],
)
def test_a_failed_write_is_exit_3_with_its_cause_and_earlier_items_intact(
    mixle,
    monkeypatch: pytest.MonkeyPatch,
    isolated_shard_env: Path,
    errno: int,
    cause: str,
    hint: str,
) -> None:
    kept = mixle("add", "kept").stdout.strip()

    def fail(fd: int, data: bytes, offset: int) -> int:
        raise OSError(errno, cause)

    with monkeypatch.context() as patch:
        patch.setattr(log_module.os, "pwrite", fail)
        result = mixle("add", "lost")
    assert result.exit_code == 3 and cause in result.stderr
    assert hint in result.stderr and "mixle audit" not in result.stderr
    assert [i.id for i in Substrate(isolated_shard_env).all()] == [kept]


def test_ctrl_c_during_write_is_130_and_intact(
    mixle, monkeypatch: pytest.MonkeyPatch, isolated_shard_env: Path
) -> None:
    kept = mixle("add", "kept").stdout.strip()

    def interrupt(fd: int) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(log_module.os, "fsync", interrupt)
        result = mixle("add", "interrupted")
    assert result.exit_code == 130
    assert "everything saved before the interruption is intact" in result.stderr
    assert [i.id for i in Substrate(isolated_shard_env).all()] == [kept]


def test_ctrl_c_after_the_write_says_the_change_was_saved(
    mixle, monkeypatch: pytest.MonkeyPatch, isolated_shard_env: Path
) -> None:
    # the id was never printed: a script retrying after 130 must know the item is there
    from mixle_cli import output

    def interrupt(text: str) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(output, "emit_text", interrupt)
        result = mixle("add", "saved all the same")
    assert result.exit_code == 130
    assert "interrupted after the change was saved" in result.stderr
    assert [i.text for i in Substrate(isolated_shard_env).all()] == ["saved all the same"]


def test_ctrl_c_after_compact_replaced_the_log_says_it_was_saved(
    mixle, monkeypatch: pytest.MonkeyPatch
) -> None:
    import substrate.store as store_module

    ids = [mixle("add", f"n{i}").stdout.strip() for i in range(3)]
    mixle("rm", ids[0])

    def interrupt(index_dir: Path) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(store_module, "_drop_search_index", interrupt)
        result = mixle("compact")
    assert result.exit_code == 130
    assert "interrupted after the change was saved" in result.stderr
    assert mixle("compact").stdout.startswith("nothing to reclaim: ")


def test_compact_that_cannot_delete_the_old_search_index_says_so(
    mixle, monkeypatch: pytest.MonkeyPatch, isolated_shard_env: Path
) -> None:
    ids = [mixle("add", f"note number {i}").stdout.strip() for i in range(3)]
    assert mixle("search", "note").exit_code == 0  # builds the index
    mixle("rm", ids[0])
    real_unlink = Path.unlink

    def denied(path: Path, missing_ok: bool = False) -> None:
        if path.name.startswith("search"):
            raise PermissionError(13, "Permission denied", str(path))
        real_unlink(path, missing_ok=missing_ok)

    with monkeypatch.context() as patch:
        patch.setattr(Path, "unlink", denied)
        result = mixle("compact")
    assert result.exit_code == 3
    assert "the log was compacted, but the old search index could not be deleted" in result.stderr
    assert "Permission denied" in result.stderr and "by hand" in result.stderr
    assert len(Substrate(isolated_shard_env).all()) == 2


def test_shard_discovery_walks_up_to_dot_mixle(tmp_path: Path, monkeypatch) -> None:
    from substrate import find_shard

    project = tmp_path / "proj"
    (project / ".mixle").mkdir(parents=True)
    (project / "a" / "b").mkdir(parents=True)
    env = {"HOME": str(tmp_path)}
    assert find_shard(env=env, cwd=project / "a" / "b") == project / ".mixle"
    assert find_shard("/x/y", env=env, cwd=project) == Path("/x/y")
    assert find_shard(env={**env, "MIXLE_SHARD": "/env"}, cwd=project) == Path("/env")
    default = find_shard(env={**env, "XDG_DATA_HOME": str(tmp_path / "xdg")}, cwd=tmp_path)
    assert default == tmp_path / "xdg" / "mixle" / "default"
    # a relative XDG_DATA_HOME is ignored (the XDG spec): it would move with the directory
    relative = find_shard(env={**env, "XDG_DATA_HOME": "relative/path"}, cwd=tmp_path)
    assert relative == tmp_path / ".local" / "share" / "mixle" / "default"


def test_discovery_refuses_a_dot_mixle_it_cannot_use(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `.mixle` that was passed over sent the command elsewhere without a word: a link to a
    drive not mounted had `add` store into the per-user shard; and another user's folder, a
    `.mixle` planted above a repository, had its settings govern the user's commands."""
    from substrate import ShardError, find_shard

    work = tmp_path / "shared" / "repo"
    work.mkdir(parents=True)
    planted = tmp_path / "shared" / ".mixle"
    planted.symlink_to(tmp_path / "unmounted" / "kb")
    monkeypatch.chdir(work)
    monkeypatch.delenv("MIXLE_SHARD")
    for args in (("add", "project plan"), ("ls",)):
        stored = mixle(*args)
        assert stored.exit_code == 3 and "a drive not mounted?" in stored.stderr, args
    assert not (tmp_path / "home" / ".local" / "share" / "mixle").exists()
    planted.unlink()
    planted.write_text("")
    with pytest.raises(ShardError, match="is not a folder"):
        find_shard(env={}, cwd=work)
    planted.unlink()
    planted.mkdir()
    assert find_shard(env={}, cwd=work) == planted
    if os.geteuid() == 0:  # (a folder of root's is anyone's: root could do anything)
        os.chown(planted, 65534, 65534)
    else:
        monkeypatch.setattr(os, "getuid", lambda: os.geteuid() + 1)
    # another user's, in a folder only they write to: theirs to share (a checkout read as
    # root in a container, a group's share)
    assert find_shard(env={}, cwd=work) == planted
    planted.parent.chmod(0o1777)  # in a folder anyone may write to: anyone may have put it
    with pytest.raises(ShardError, match="belongs to another user"):
        find_shard(env={}, cwd=work)
    assert find_shard(planted, env={}, cwd=work) == planted  # named: the user's choice
    planted.rmdir()
    own = tmp_path / "own"
    own.mkdir()
    planted.symlink_to(own)  # a link another user planted, to a folder of one's own
    if os.geteuid() == 0:
        os.lchown(planted, 65534, 65534)
    with pytest.raises(ShardError, match="belongs to another user"):
        find_shard(env={}, cwd=work)
    with pytest.raises(ShardError, match="no home folder for ~nosuchuser9"):
        find_shard("~nosuchuser9/kb", env={})


def test_an_empty_shard_path_names_where_it_was_given(
    mixle, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MIXLE_SHARD", " ")
    refused = mixle("add", "x")
    assert refused.exit_code == 2 and "Invalid value for MIXLE_SHARD" in refused.stderr
    refused = mixle("--shard", " ", "add", "x")
    assert refused.exit_code == 2 and "Invalid value for --shard" in refused.stderr


def test_a_working_folder_removed_since_is_said_so(mixle_bin: str, tmp_path: Path) -> None:
    """`mixle ls` in a shell left in a removed folder said only "I/O error: No such file or
    directory"."""
    gone = tmp_path / "gone"
    gone.mkdir()
    # (the folder is left, then removed, by the process that then becomes mixle)
    script = (
        "import os, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); "
        "os.execv(sys.argv[2], sys.argv[2:])"
    )
    env = {k: v for k, v in os.environ.items() if k != "MIXLE_SHARD"}
    done = subprocess.run(
        [sys.executable, "-c", script, str(gone), mixle_bin, "ls"],
        capture_output=True,
        text=True,
        env={**env, "HOME": str(tmp_path)},
    )
    assert done.returncode == 3 and "the current folder no longer exists" in done.stderr
    gone.mkdir()
    made = subprocess.run(  # init makes its shard there: said, not "I/O error"
        [sys.executable, "-c", script, str(gone), mixle_bin, "init"],
        capture_output=True,
        text=True,
        env={**env, "HOME": str(tmp_path)},
    )
    assert made.returncode == 3 and "no shard can be made in it" in made.stderr


def test_with_no_home_the_per_user_shard_is_looked_for_in_the_password_database(
    mixle, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import pwd

    from substrate.discovery import default_shard_path

    entry = pwd.getpwuid(os.getuid())
    for env in ({}, {"HOME": ""}):  # unset, or empty (a template's unset variable)
        assert default_shard_path(env) == Path(entry.pw_dir) / ".local/share/mixle/default"

    def no_entry(uid: int) -> None:
        raise KeyError(uid)

    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    monkeypatch.delenv("HOME")
    monkeypatch.delenv("MIXLE_SHARD", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    result = mixle("status")
    assert result.exit_code == 3
    assert "HOME is not set and the user has no entry" in result.stderr
    assert "hint" not in result.stderr  # the message says what to do
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # no home needed
    assert mixle("add", "x").exit_code == 0


def test_library_imports_without_cli_stack() -> None:
    code = (
        "import sys, pkgutil, importlib, substrate\n"
        "for m in pkgutil.walk_packages(substrate.__path__, 'substrate.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = [n for n in ('typer', 'rich', 'click') if n in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_plain_import_stays_light() -> None:
    code = (
        "import sys, substrate\n"
        "heavy = [n for n in ('numpy', 'pyarrow', 'sklearn') if n in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_status_for_a_team_counts_only_its_items_and_shows_no_sizes(mixle) -> None:
    mixle("add", "ours", "--scope", "red")
    mixle("add", "shared", "--scope", "public")
    for _ in range(3):
        mixle("add", "theirs " * 50, "--scope", "blue")
    everything = mixle("status", "--json").json()
    assert everything["items"] == 5 and everything["log"]["bytes"] > 0
    team = mixle("--as", "red", "status", "--json")
    report = team.json()
    assert report["items"] == 2 and report["by_scope"] == {"public": 1, "red": 1}
    assert report["log"] == {"unfinished_write": False, "older_copy": False, "header_lost": False}
    assert report["index_bytes"] is None
    assert "blue" not in team.stdout + team.stderr
    text = mixle("--as", "red", "status")
    assert text.exit_code == 0 and "bytes" not in text.stdout


def test_a_team_that_reads_no_item_is_told_so_not_shown_an_empty_shard(mixle) -> None:
    mixle("add", "kafka brokers restart nightly", "--scope", "research")
    for args in (("ls",), ("status",), ("search", "kafka")):
        typo = mixle("--as", "reserch", *args)  # reads reserch and public: nothing
        assert typo.exit_code == 0, args
        assert "you read as 'reserch' and no item is in its scopes (public, reserch)" in (
            typo.stderr
        ), args
        assert "no item is in its scopes" not in mixle("--as", "research", *args).stderr


def test_a_search_finding_nothing_reads_no_log_to_tell_why(
    mixle, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.store import Substrate

    mixle("add", "kafka brokers restart nightly", "--scope", "research")
    mixle("search", "kafka")  # the index, built
    monkeypatch.setattr(Substrate, "iter_items", lambda *a, **k: pytest.fail("read the log"))
    for args in (("--as", "reserch"), ("--as", "research", "--scope", "public")):
        told = mixle(*args[:2], "search", "zebra", *args[2:]).stderr
        assert "no matching items: " in told, args


def test_secrets_typed_on_the_command_line_are_not_echoed(mixle) -> None:
    token = "ghp_" + "Zq3xV9mK2pL8wR4tY6uB1nC5dF7gH0jE2sA4"
    mixle("add", "refunds take five days")
    for args in (
        ("add", "x", "--kind", token),
        ("add", "x", "--link", token),
        ("get", token),
        ("assemble-context", f"refunds {token}", "--json"),
        ("verify", f"refunds take five days, key {token}"),
    ):
        result = mixle(*args)
        assert token not in result.stdout + result.stderr, args


def test_an_empty_shard_path_is_a_usage_error_not_another_shard(mixle) -> None:
    result = mixle("--shard", "", "add", "text")
    assert result.exit_code == 2 and "shard path is empty" in result.stderr


def test_an_empty_mixle_shard_is_a_usage_error_not_the_default_shard(
    mixle, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("MIXLE_SHARD", "")
    result = mixle("add", "text")
    assert result.exit_code == 2 and "MIXLE_SHARD: it is set but empty" in result.stderr
    assert "--shard" not in result.stderr.splitlines()[0]  # none was given
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    ("variable", "value", "option"),
    [("MIXLE_WAIT", "soon", "--wait"), ("MIXLE_SHARD", "", "--shard")],
)
def test_a_bad_variable_points_to_the_help_that_tells_of_it(
    mixle_process, tmp_path: Path, variable: str, value: str, option: str
) -> None:
    env = {**os.environ, "MIXLE_SHARD": str(tmp_path / "s"), variable: value}
    result = mixle_process("ls", env=env)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == f"hint: see 'mixle --help' ({option})"


@pytest.mark.parametrize(("value", "said"), [("", "it is empty"), ("soon", "bad duration 'soon'")])
def test_a_mixle_wait_that_gives_no_seconds_is_a_usage_error_not_no_limit(
    mixle, monkeypatch: pytest.MonkeyPatch, isolated_shard_env: Path, value: str, said: str
) -> None:
    # "MIXLE_WAIT=$T" with T unset in a cron line would otherwise wait for ever
    monkeypatch.setenv("MIXLE_WAIT", value)
    result = mixle("add", "text")
    assert result.exit_code == 2 and f"MIXLE_WAIT: {said}" in result.stderr
    assert not (isolated_shard_env / "items.jsonl").exists()
    monkeypatch.setenv("MIXLE_WAIT", "2.5")
    assert mixle("add", "text").exit_code == 0
    monkeypatch.setenv("MIXLE_WAIT", "5m")  # with a unit, as --max-age takes one
    assert mixle("add", "text").exit_code == 0
    assert mixle("--wait", "1h30m", "add", "text").exit_code == 0
    refused = mixle("--wait", "5 minutes", "add", "text")
    assert refused.exit_code == 2 and "--wait: bad duration '5 minutes'" in refused.stderr


@pytest.mark.parametrize("variable", ["MIXLE_WAIT", "MIXLE_SHARD"])
def test_a_command_s_help_is_shown_whatever_the_environment_holds(
    mixle, monkeypatch: pytest.MonkeyPatch, isolated_shard_env: Path, variable: str
) -> None:
    # the variable is refused when the command runs, not before its --help could be read
    before = os.environ.get(variable)
    monkeypatch.setenv(variable, "")
    for command in ("ls", "add", "ingest"):
        shown = mixle(command, "--help")
        assert shown.exit_code == 0 and f"Usage: mixle {command}" in shown.stdout
    refused = mixle("ls")
    assert refused.exit_code == 2 and f"Invalid value for {variable}" in refused.stderr
    if before is None:
        monkeypatch.delenv(variable)
    else:
        monkeypatch.setenv(variable, before)
    assert mixle("add", "text").exit_code == 0  # the refusal is not carried over


@pytest.mark.parametrize("command", ["rm", "get"])
def test_a_bad_mixle_wait_is_told_before_ids_are_read_from_standard_input(
    mixle, monkeypatch: pytest.MonkeyPatch, isolated_shard_env: Path, command: str
) -> None:
    # the ids' callback read them (and refused bytes that are not UTF-8) before the refusal
    monkeypatch.setenv("MIXLE_WAIT", "soon")
    result = mixle(command, "-", input=b"caf\xe9\n")
    assert result.exit_code == 2 and "Invalid value for MIXLE_WAIT" in result.stderr
    assert "UTF-8" not in result.stderr


@pytest.fixture
def listed(tmp_path: Path) -> Path:
    """A shard whose listing is far larger than a pipe holds."""
    shard = tmp_path / "shard"
    store = Substrate(shard)
    for i in range(3000):
        store.add("text", f"note number {i} caf\u00e9 " + "x" * 60)
    store.save()
    return shard


@pytest.mark.parametrize("form", [["--jsonl"], ["--json"], []])
def test_a_closed_pipe_ends_output_quietly(listed: Path, mixle_bin: str, form: list[str]) -> None:
    # --json and a table are large writes: the pipe takes part of one before the reader's exit
    # shows, and the rest must not be taken for written
    run = subprocess.Popen(
        [mixle_bin, "--shard", str(listed), "ls", *form],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert run.stdout is not None and run.stdout.readline()
    run.stdout.close()  # like `| head -1`
    assert run.wait(timeout=60) == 141
    assert run.stderr is not None and run.stderr.read() == b""


@pytest.mark.parametrize("args", [["--help"], ["ingest", "-h"], ["--version"]])
def test_help_into_a_pipe_whose_reader_left_ends_as_other_output(
    mixle_bin: str, args: list[str]
) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader left before anything was written
    try:
        run = subprocess.run([mixle_bin, *args], stdout=write_end, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    assert run.returncode == 141 and run.stderr == b"", args  # not 1: "found something"


def test_mixle_alone_into_messages_whose_reader_left_ends_as_other_messages(
    mixle_bin: str,
) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # `mixle 2>&1 | head -0`: its help is a message, on stderr
    try:
        run = subprocess.run([mixle_bin], stdout=subprocess.PIPE, stderr=write_end)
    finally:
        os.close(write_end)
    assert run.returncode == 141 and run.stdout == b""


@pytest.mark.parametrize("form", [["--jsonl"], []])
def test_a_closed_standard_output_is_an_error_not_an_empty_success(
    listed: Path, mixle_bin: str, form: list[str]
) -> None:
    run = subprocess.run(
        [mixle_bin, "--shard", str(listed), "ls", *form],
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(1),  # as `mixle ls >&-`
        check=False,
    )
    assert run.returncode == 3 and b"standard output is closed" in run.stderr


def test_a_closed_standard_output_after_a_save_says_the_change_was_saved(
    tmp_path: Path, mixle_bin: str
) -> None:
    def closed(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [mixle_bin, *args], stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1), check=False
        )

    added = closed("--shard", str(tmp_path / "s"), "add", "kept")
    assert added.returncode == 3 and b"after the change was saved" in added.stderr
    assert [i.text for i in Substrate(tmp_path / "s").all()] == ["kept"]
    for flag in ("--version", "--help"):
        shown = closed(flag)
        assert shown.returncode == 3 and b"Traceback" not in shown.stderr, flag


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_under_standard_output_is_an_error_without_a_traceback(
    listed: Path, mixle_bin: str
) -> None:
    for args in (["--version"], ["--shard", str(listed), "status"], ["--shard", str(listed), "ls"]):
        with open("/dev/full", "wb") as full:
            run = subprocess.run(
                [mixle_bin, *args], stdout=full, stderr=subprocess.PIPE, check=False
            )
        assert run.returncode == 3 and b"No space left" in run.stderr, args
        assert b"Traceback" not in run.stderr and b"Exception ignored" not in run.stderr, args


def test_messages_into_a_pipe_closed_early_end_it_quietly(listed: Path, mixle_bin: str) -> None:
    # `mixle ingest corpus 2>&1 | head -1`: the closed pipe is met on stderr, not stdout
    run = subprocess.Popen(
        [mixle_bin, "--shard", str(listed), "assemble-context", "note", "--max-items", "2000"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert run.stderr is not None
    run.stderr.close()
    assert run.wait(timeout=60) == 141


def test_a_closed_standard_input_is_a_usage_error(tmp_path: Path, mixle_bin: str) -> None:
    for args in (["add", "-"], ["ingest", "-"], ["redact", "-"], ["search", "-"], ["verify", "-"]):
        run = subprocess.run(
            [mixle_bin, "--shard", str(tmp_path / "s"), *args],
            capture_output=True,
            preexec_fn=lambda: os.close(0),  # as `mixle add - <&-`
            check=False,
        )
        assert run.returncode == 2 and b"standard input is closed" in run.stderr, args


def test_text_the_locale_cannot_encode_is_escaped(listed: Path, mixle_bin: str) -> None:
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}  # a terminal that shows ASCII only
    run = subprocess.run(
        [mixle_bin, "--shard", str(listed), "ls", "--limit", "1"],
        capture_output=True,
        env=env,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert b"caf\\xe9" in run.stdout


def test_json_output_carries_arguments_that_are_not_utf8(mixle) -> None:
    mixle("add", "caf menu of the day")
    query = "caf\udce9 menu"  # the byte 0xE9 of a Latin-1 argument, as Python decodes it
    for command in ("search", "retrieve", "assemble-context", "ask"):
        result = mixle(command, query, "--json")
        assert result.exit_code in (0, 1), (command, result.stderr)
        assert "\ufffd" in json.dumps(result.json(), ensure_ascii=False), command


def test_an_empty_kind_is_refused_by_add_as_by_ls(mixle) -> None:
    assert mixle("add", "text", "--kind", "").exit_code == 2
    assert mixle("ls", "--kind", "").exit_code == 2


def test_a_team_given_with_white_space_around_it_is_refused(
    mixle, isolated_shard_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # " red" read no scope of red's: every command would have said nothing was there
    mixle("add", "kept", "--scope", "red")
    result = mixle("--as", " red", "ls")
    assert result.exit_code == 2 and "white space around it" in result.stderr
    monkeypatch.setenv("MIXLE_TEAM", " red")
    result = mixle("ls")
    assert result.exit_code == 2 and "white space around it" in result.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'format = 1\n[shard]\nteam = "caf\xe9"\n', "invalid TOML"),  # Latin-1, not UTF-8
        (b'format = "1"\n', "format must be a whole number"),
        (b'format = 1\n[shard]\nteam = ["research"]\n', "team must be a team name"),
        (b'format = 1\n[shard]\nteam = " "\n', "team must be a team name"),
        # a template's unset variable: refused as --as "" is, not read as every scope
        (b'format = 1\n[shard]\nteam = ""\n', "remove the line to read every scope"),
        (b'format = 1\n[shard]\nteam = " red "\n', "team must be a team name"),
        (b'format = 1\n[shard]\nteam = " red"\n', "team must be a team name"),
        ('format = 1\n[shard]\nteam = "Zu\u0308rich"\n'.encode(), "team cannot hold invisible"),
        (b'format = 1\n[shard]\nteam = "red"\nshared_scopes = "public"\n', "shared_scopes must"),
    ],
)
def test_a_malformed_mixle_toml_is_named_with_exit_3(
    mixle, isolated_shard_env: Path, content: bytes, message: str
) -> None:
    mixle("add", "kept")
    settings = isolated_shard_env / "mixle.toml"
    settings.write_bytes(content)
    for args in (("ls",), ("add", "more")):
        result = mixle(*args)
        assert result.exit_code == 3, result.stderr
        assert message in result.stderr and "mixle.toml" in result.stderr
        # `mixle audit` reads the settings too: it would only fail the same way
        assert "hint: fix mixle.toml by hand" in result.stderr and "audit" not in result.stderr


def test_a_mixle_toml_that_cannot_be_written_is_not_called_broken(
    mixle, isolated_shard_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    mixle("add", "kept")

    def too_large(fd: int) -> None:
        raise OSError(errno.EFBIG, "File too large")

    monkeypatch.setattr("substrate.settings.os.fsync", too_large)
    result = mixle("grant", "zed", "s9")
    assert result.exit_code == 3 and "File too large" in result.stderr
    assert "fix mixle.toml by hand" not in result.stderr  # the file is intact


def test_a_shard_of_a_newer_format_says_to_upgrade_and_nothing_else(
    mixle, isolated_shard_env: Path
) -> None:
    mixle("add", "kept")
    (isolated_shard_env / "mixle.toml").write_text("format = 99\n")
    result = mixle("ls")
    assert result.exit_code == 3 and "upgrade mixle" in result.stderr
    assert "hint:" not in result.stderr


def test_a_default_scope_that_is_no_name_is_refused_by_every_command(
    mixle, isolated_shard_env: Path
) -> None:
    mixle("add", "kept")
    (isolated_shard_env / "mixle.toml").write_bytes(b"format = 1\n[shard]\ndefault_scope = 5\n")
    for args in (("add", "more"), ("add", "more", "--scope", "ops"), ("ls",)):
        result = mixle(*args)  # not used by the last two, still the file's to fix
        assert result.exit_code == 3 and "default_scope must be a scope name" in result.stderr
    # a name the file gives is the file's to fix: a shard error naming it, as for a number
    (isolated_shard_env / "mixle.toml").write_bytes(b'format = 1\n[shard]\ndefault_scope = " sp"\n')
    spaced = mixle("add", "more")
    assert (
        spaced.exit_code == 3 and "mixle.toml: [shard] the default scope has white" in spaced.stderr
    )
    (isolated_shard_env / "mixle.toml").write_bytes(b"format = 1\n")
    assert [i["scope"] for i in mixle("ls", "--json").json()] == ["local"]


class _Screen(io.StringIO):
    def isatty(self) -> bool:
        return True


def _terminal(monkeypatch: pytest.MonkeyPatch, width: int) -> _Screen:
    """A terminal ``width`` cells wide that tables print to; what it shows."""
    from rich.console import Console

    from mixle_cli import output

    screen = _Screen()
    console = Console(file=screen, force_terminal=True, width=width)
    monkeypatch.setattr(output, "stdout", lambda: console)
    return screen


def test_wide_characters_in_a_title_do_not_squeeze_the_other_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mixle_cli import output

    screen = _terminal(monkeypatch, 60)  # a terminal: cuts happen
    wide = "東京は日本の首都です。北京是中国的首都。" * 3
    rows = [
        ["0123456789abcdef", "text", "local", "tapirs"],
        ["fedcba9876543210", "text", "local", wide],
    ]
    output.table(["id", "kind", "scope", "title"], rows)
    shown = screen.getvalue()
    assert "0123456789abcdef" in shown and "fedcba9876543210" in shown  # ids whole
    assert max(map(len, shown.splitlines())) <= 60 * 4  # cut to the terminal (escapes aside)
    assert "…" in shown  # the wide title was cut, measured in cells


def test_a_payload_is_stored_exactly_or_refused(mixle) -> None:
    big = mixle("add", "x", "--payload", '{"n": 18446744073709551615, "f": 0.1}').stdout.strip()
    assert mixle("get", big, "--json").json()[0]["payload"] == {"n": 2**64 - 1, "f": 0.1}
    deep = '{"a": ' * 20000 + "1" + "}" * 20000
    for payload in (
        '{"n": 123456789012345678901234567890}',
        '{"n": NaN}',
        '{"n": -Infinity}',
        '{"n": 1e999}',
        deep,
    ):
        refused = mixle("add", "x", "--payload", payload)
        assert refused.exit_code == 2 and "--payload" in refused.stderr, payload
    # a number under a password's key may be the password: its digits are not repeated
    pin = mixle("add", "vpn", "--payload", '{"vpn_password": 83920174839201748392017}')
    assert pin.exit_code == 2 and "23 digits" in pin.stderr and "8392017" not in pin.stderr


def test_a_table_written_to_a_pipe_cuts_nothing(mixle, tmp_path: Path) -> None:
    title = "a long title about tapirs " + "and their habits " * 4
    # --tag refuses such tags; a file's own may still hold them
    doc = {"text": title, "tags": ["team\tplatform-infrastructure", "two\nlines"]}
    (tmp_path / "doc.jsonl").write_bytes(orjson.dumps(doc) + b"\n")
    assert mixle("ingest-docs", str(tmp_path / "doc.jsonl")).exit_code == 0
    shown = mixle("ls").stdout
    assert title.strip() in shown  # no terminal: wider than 80 columns
    assert "team platform-infrastructure" in shown and len(shown.splitlines()) == 2
    # plain columns for grep and cut: no rules, no trailing spaces
    assert not set("│┃━╇") & set(shown) and all(
        line == line.rstrip() for line in shown.splitlines()
    )
    assert shown.splitlines()[0].split() == ["id", "kind", "scope", "tags", "source", "title"]


def test_force_color_keeps_the_plain_layout_of_a_pipe(
    mixle, monkeypatch: pytest.MonkeyPatch
) -> None:
    # CI sets FORCE_COLOR: piped tables came out framed and cut to 80 columns
    title = "a long title about tapirs " + "and their habits " * 4
    assert mixle("add", title).exit_code == 0
    monkeypatch.setenv("FORCE_COLOR", "1")
    shown = mixle("ls").stdout
    assert title.strip() in shown and not set("│┃━╇") & set(shown)


def test_add_refuses_an_empty_item(mixle) -> None:
    for args, given in ((("add",), ""), (("add", "-"), "  \n"), (("add", " "), None)):
        refused = mixle(*args, input=given)
        assert refused.exit_code == 2 and "nothing to add" in refused.stderr
        assert "no shard" not in refused.stderr  # not "the first write creates it": none will
        # (standard input was read: "give ... - to read standard input" told to use it)
        assert ("standard input held no text" in refused.stderr) is (args == ("add", "-"))
        # (a text given, but blank: not told to give the text)
        assert ("the text given is empty" in refused.stderr) is (args == ("add", " "))
    assert mixle("ls").exit_code == 3  # not even a shard was created
    assert mixle("add", "", "--payload", '{"n": 1}').exit_code == 0  # a record needs no text


def test_every_listing_calls_an_item_by_the_same_title(mixle, tmp_path: Path) -> None:
    note = tmp_path / "kafka.md"
    note.write_text("# Kafka\n\nConsumer lag grows when the brokers are slow.\n")
    assert mixle("ingest", str(note)).exit_code == 0
    (listed,) = mixle("ls", "--json").json()
    (found,) = mixle("search", "consumer lag", "--json").json()["results"]
    retrieved = mixle("retrieve", "consumer lag", "--json").json()["items"]
    assert listed["title"] == found["title"] == retrieved[0]["title"] == "Kafka"


def test_table_cells_are_never_read_as_markup(mixle) -> None:
    texts = [
        "edit [/etc/hosts] first",
        "loop: x[i] = y[i] + 1",
        "see [link=https://evil.example/x]the docs[/link] now",
    ]
    for text in texts:
        mixle("add", text)
    shown = mixle("ls")
    assert shown.exit_code == 0 and all(text in shown.stdout for text in texts)
    assert "\x1b" not in shown.stdout


def test_a_bidirectional_override_is_not_printed(mixle) -> None:
    # U+202E shows what follows reversed: "invoice\u202efdp.exe" reads as invoiceexe.pdf
    mixle("add", "invoice\u202efdp.exe and \u2067isolated\u2069")
    shown = mixle("ls").stdout
    assert not {"\u202e", "\u2067", "\u2069"} & set(shown)
    assert "invoice\ufffdfdp.exe" in shown


def test_a_document_title_and_its_sections_make_the_title(mixle, tmp_path: Path) -> None:
    book = tmp_path / "runbook.md"
    book.write_text("---\ntitle: Runbook\n---\n# Kafka\n\nlag\n\n## Brokers\n\nslow\n")
    mixle("ingest", str(book))
    titles = {row["title"] for row in mixle("ls", "--json").json()}
    assert titles == {"Runbook > Kafka", "Runbook > Kafka > Brokers"}
    # a heading that only begins with the title is another heading
    book.write_text("---\ntitle: Wide\n---\n# Wide head\n\ntext\n\n# Wide\n\nmore\n")
    mixle("ingest", str(book))
    titles = {row["title"] for row in mixle("ls", "--json").json()}
    assert titles == {"Wide > Wide head", "Wide"}


def test_a_narrow_terminal_gets_every_column(monkeypatch: pytest.MonkeyPatch) -> None:
    from mixle_cli import output

    screen = _terminal(monkeypatch, 40)
    row = ["384a31144ec34e3b", "text", "local", "t", "a title"]
    output.table(["id", "kind", "scope", "tags", "title"], [row])
    shown = screen.getvalue()
    assert all(word in shown for word in ("384a31144ec34e3b", "text", "local", "a title"))
    # a block of its cells a line each, not a table wider than the screen
    assert max(map(len, shown.splitlines())) <= 40 and "title  a title" in shown


def test_repeated_tags_links_and_ids_count_once(mixle) -> None:
    target = mixle("add", "target").stdout.strip()
    item = mixle("add", "x", "-t", "a", "-t", "a", "--link", target, "--link", target).stdout
    stored = mixle("get", item.strip(), "--json").json()[0]
    assert stored["tags"] == ["a"] and stored["links"] == [target]
    assert mixle("add", "x", "-t", " ").exit_code == 2
    assert mixle("add", "x", "--scope", "").exit_code == 2
    removed = mixle("rm", target, target, "--json")
    assert removed.exit_code == 0 and removed.json() == {"removed": [target]}


def test_a_log_cut_short_names_the_remedy_without_a_circular_hint(
    mixle, isolated_shard_env: Path
) -> None:
    mixle("add", "first")
    mixle("add", "second, acknowledged")
    path = isolated_shard_env / "items.jsonl"
    path.write_bytes(path.read_bytes()[:-20])
    result = mixle("ls")
    assert result.exit_code == 3 and "cut short" in result.stderr and "restore" in result.stderr
    assert "hint:" not in result.stderr  # `mixle audit` would say the same again


def test_a_log_missing_whole_batches_is_read_but_never_written_over(
    mixle, isolated_shard_env: Path
) -> None:
    for text in ("first", "second", "third, acknowledged"):
        mixle("add", text)
    path = isolated_shard_env / "items.jsonl"
    whole = path.read_bytes()
    path.write_bytes(b"".join(whole.splitlines(keepends=True)[:-2]))  # the last batch
    cut = path.read_bytes()
    assert [r["title"] for r in mixle("ls", "--json").json()] == ["first", "second"]
    assert "committed items are missing" in mixle("status").stderr
    notes = isolated_shard_env.parent / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nalpha\n")
    for args in (("add", "fourth"), ("compact",), ("ingest", str(notes))):
        refused = mixle(*args)
        assert refused.exit_code == 3 and "before the end noted" in refused.stderr, args
        assert "run the command again" not in refused.stderr  # it would be refused again
        assert path.read_bytes() == cut
    path.write_bytes(whole)  # restored: nothing lost
    assert len(mixle("ls", "--json").json()) == 3 and mixle("add", "fourth").exit_code == 0


def test_compact_refuses_a_log_that_is_gone_though_commits_were_noted(
    mixle, isolated_shard_env: Path
) -> None:
    mixle("add", "first")
    (isolated_shard_env / "items.jsonl").unlink()
    result = mixle("compact")
    assert result.exit_code == 3 and "missing or empty" in result.stderr


def test_compact_refuses_a_batch_edited_by_hand_unless_the_loss_is_accepted(
    mixle, isolated_shard_env: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "d.jsonl"
    docs.write_text("".join(f'{{"text": "doc {i}"}}\n' for i in range(5)))
    assert mixle("ingest-docs", str(docs)).exit_code == 0
    log = isolated_shard_env / "items.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    lines[2:3] = [lines[3], lines[3]]  # one item's line replaced by its neighbour's, twice
    log.write_bytes(b"".join(lines))
    refused = mixle("compact")
    assert refused.exit_code == 3 and "--accept-loss" in refused.stderr
    assert log.read_bytes() == b"".join(lines)
    accepted = mixle("compact", "--accept-loss", "--json")
    assert accepted.exit_code == 0 and accepted.json()["live_items"] == 4
    assert mixle("audit").exit_code == 0


def test_sigterm_ends_any_command_with_a_message_and_143(
    mixle, isolated_shard_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal

    from substrate.store import Substrate

    assert mixle("add", "kept").exit_code == 0

    def compact_stopped(self: Substrate, **options: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # a timeout, systemd, kill
        raise AssertionError("not stopped")

    with monkeypatch.context() as patch:
        patch.setattr(Substrate, "compact", compact_stopped)
        result = mixle("compact")
    assert result.exit_code == 143
    assert result.stderr == "error: terminated; everything saved before it is intact\n"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # put back for the host
    assert [i["title"] for i in mixle("ls", "--json").json()] == ["kept"]


def test_a_sigterm_sent_again_to_the_process_group_is_not_a_second_stop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import signal

    from mixle_cli import errors

    now = [100.0]
    exits: list[int] = []
    monkeypatch.setattr(errors.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(errors.os, "_exit", exits.append)
    monkeypatch.setattr(errors, "_terminating", [])
    with pytest.raises(errors.Terminated):  # `timeout`: the command first
        errors.terminate(signal.SIGTERM, None)
    now[0] += 0.01
    errors.terminate(signal.SIGTERM, None)  # then its process group: the same stop
    assert exits == []
    now[0] += 2.0
    errors.terminate(signal.SIGTERM, None)  # a second stop, asked for: at once
    assert exits == [143]


def test_standard_input_that_is_not_utf8_is_a_usage_error(mixle) -> None:
    for args in (["add", "-"], ["search", "-"], ["verify", "-"]):
        result = mixle(*args, input=b"caf\xe9\n")
        assert result.exit_code == 2 and "not valid UTF-8 (byte 3)" in result.stderr, args


def test_an_empty_argument_is_refused_before_anything_is_done(mixle) -> None:
    item = mixle("add", "notes").stdout.strip()
    for args in (
        ("get", ""),
        ("get", item, " "),
        ("rm", ""),
        ("history", ""),
        ("verify-lineage", ""),
        ("publish", "", "--by", "me"),
        ("ingest", ""),
        ("ingest-artifacts", ""),  # "" was the working directory
        ("ingest-file", ""),
        ("ingest-docs", ""),
        ("publish", item, "--by", ""),
        ("reject", item, "--reason", " "),
    ):
        refused = mixle(*args)
        assert refused.exit_code == 2, (args, refused.stderr)
        assert "empty" in refused.stderr
    assert mixle("get", item, "--json").json()[0]["scope"] == "local"  # not published


def test_a_project_folder_given_as_the_shard_points_to_its_dot_mixle(mixle, tmp_path: Path) -> None:
    assert mixle("init", str(tmp_path / "proj")).exit_code == 0
    for args in (("ls",), ("add", "notes")):  # not even a write makes a second shard there
        result = mixle("--shard", str(tmp_path / "proj"), *args)
        assert result.exit_code == 3 and f"--shard {tmp_path / 'proj' / '.mixle'}" in result.stderr
    assert not (tmp_path / "proj" / "items.jsonl").exists()


def test_a_file_named_dash_is_given_as_dot_slash_dash(mixle, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text("a line about herons\n")
    result = mixle("ingest-file", "./-", "--as", "text")
    assert result.exit_code == 0, result.stderr


def test_ls_and_get_mask_a_secret_in_a_source_name_as_search_does(mixle, tmp_path: Path) -> None:
    folder = tmp_path / "notes" / "AKIAQ3EGRTZ5KX7WNM2P"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("prod notes\n")
    assert mixle("ingest", str(tmp_path / "notes"), "--no-redact").exit_code == 0
    (row,) = mixle("ls", "--json").json()
    assert row["source"] == "[REDACTED:aws_access_key]/a.md"
    assert "AKIAQ3EGRTZ5KX7WNM2P" not in mixle("ls", "--jsonl").stdout
    shown = mixle("get", row["id"]).stdout  # as get shows it
    assert "source: [REDACTED:aws_access_key]/a.md" in shown and "AKIAQ3EGRTZ5KX7WNM2P" not in shown


def test_ls_names_each_items_source_and_keeps_to_one_given_with_source(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for team, step in (("teamA", "drain the node"), ("teamB", "page the owner")):
        (tmp_path / team / "ops").mkdir(parents=True)
        (tmp_path / team / "ops" / "run.md").write_text(f"# Deploy Runbook\n\n{step}\n")
        (tmp_path / team / "misc.md").write_text("# Misc\n\nlunch at noon\n")
        assert mixle("ingest", str(tmp_path / team)).exit_code == 0
    table = mixle("ls").stdout  # two run.md read alike: told apart by their folders
    assert "source" in table.splitlines()[0]
    assert "teamA/ops/run.md" in table and "teamB/ops/run.md" in table
    by_folder = mixle("ls", "--source", "ops", "--json").json()  # as stored, as --jsonl has it
    assert [r["source"] for r in by_folder] == ["ops/run.md", "ops/run.md"]
    streamed = mixle("ls", "--source", "ops", "--jsonl").stdout.splitlines()
    assert [json.loads(line) for line in streamed] == by_folder
    monkeypatch.chdir(tmp_path)  # a path on disk: that file only
    lines = mixle("ls", "--source", "teamA/ops/run.md", "--jsonl").stdout.splitlines()
    (mine,) = map(json.loads, lines)
    assert mine["title"] == "Deploy Runbook" and mine["source"] == "ops/run.md"
    assert mixle("ls", "--source", str(tmp_path / "teamB"), "-n", "5").stdout.count(".md") == 2
    either = mixle("ls", "--source", "teamA/misc.md", "--source", "teamB/misc.md", "--json")
    assert [row["title"] for row in either.json()] == ["Misc", "Misc"]  # repeated: any of them
    nothing = mixle("ls", "--source", "nowhere.md")
    assert nothing.exit_code == 0 and "no matching items" in nothing.stderr
    (tmp_path / "teamA" / "ops").rename(tmp_path / "moved")  # a folder gone: its items found
    gone = mixle("ls", "--source", "teamA/ops", "--jsonl").stdout.splitlines()  # by its path
    assert [json.loads(line)["source"] for line in gone] == ["ops/run.md"]  # (for rm -)


def test_an_error_repeating_an_id_with_a_line_break_or_an_escape_stays_one_line(
    mixle, isolated_shard_env: Path
) -> None:
    assert mixle("add", "kept").exit_code == 0
    result = mixle("rm", "a\nb", "c\x1b[31md")
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert line == "error: no item with id a\ufffdb, c\ufffd[31md; nothing removed"


def test_a_refused_add_creates_no_shard(mixle, isolated_shard_env: Path) -> None:
    # its checks come before the writer lock, which creates the shard's folder
    refused = mixle("--as", "alpha", "add", "hello", "--scope", "beta")
    assert refused.exit_code == 1 and "may not write to scope" in refused.stderr
    dangling = mixle("add", "hello", "--link", "0123456789abcdef")
    assert dangling.exit_code == 1 and "to link to" in dangling.stderr
    assert not isolated_shard_env.exists()


def test_a_long_table_on_a_terminal_is_plain_columns_cut_to_the_width(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from mixle_cli import output

    monkeypatch.setattr(output, "_a_terminal", lambda console: True)
    monkeypatch.setenv("COLUMNS", "60")
    long_title = "a long title about tapirs " + "and their habits " * 6
    rows = [[f"id{i:05d}", "text", long_title] for i in range(output.FRAMED_ROWS + 1)]
    output.table(["id", "kind", "title"], rows)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == output.FRAMED_ROWS + 2  # the header, then a line a row
    assert lines[0].split() == ["id", "kind", "title"]
    assert not set("│┃━╇") & set("".join(lines))
    assert all(len(line) < 60 for line in lines) and lines[1].endswith("…")
    output.table(["id", "kind", "title"], rows[:3])  # a short one stays framed
    assert set("━") & set(capsys.readouterr().out)


def test_get_streams_the_items_piped_in_and_names_the_missing_at_the_end(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shard = tmp_path / "shard"
    store = Substrate(shard)
    ids = [store.add("text", f"note {n}", tags=["t"]) for n in range(5)]
    store.save()
    # read one at a time and let go: a store's get() would keep every item it read
    monkeypatch.setattr(Substrate, "get", lambda self, item_id: pytest.fail("kept"))
    piped = "\n".join([ids[3], "nope", *ids[:2]]) + "\n"
    result = mixle("--shard", str(shard), "get", "-", "--jsonl", input=piped)
    assert result.exit_code == 1 and "no item with id nope" in result.stderr
    shown = result.jsonl()
    assert [item["id"] for item in shown] == [ids[3], ids[0], ids[1]]
    assert shown[0] == SubstrateItem("text", "note 3", tags=["t"], id=ids[3]).to_json() | {
        "provenance": shown[0]["provenance"],
        "created_at": shown[0]["created_at"],
    }
    text = mixle("--shard", str(shard), "get", ids[0], ids[1]).stdout
    assert text.splitlines()[1:3] == ["tags: t", "note 0"] and text.count("tags: t") == 2


def test_a_long_title_is_whole_in_json_and_first_words_are_cut(
    mixle, isolated_shard_env: Path
) -> None:
    title = "On the heating of aerodynamically heated structures " * 4  # 208 characters
    titled = mixle("add", "body", "--payload", json.dumps({"title": title}))
    untitled = mixle("add", "word " * 60)
    assert titled.exit_code == untitled.exit_code == 0
    rows = {row["id"]: row["title"] for row in mixle("ls", "--jsonl").jsonl()}
    assert rows[titled.stdout.strip()] == title.strip()
    assert rows[untitled.stdout.strip()].endswith("…") and len(rows[untitled.stdout.strip()]) == 100
    for command in (("ls",), ("search", "aerodynamically"), ("retrieve", "aerodynamically")):
        text = mixle(*command).stdout  # a line of text shows the title cut, as before
        assert title.strip() not in text and max(map(len, text.splitlines())) < 200, command


def test_a_line_break_in_a_source_name_shows_alike_in_ls_and_search(mixle, tmp_path: Path) -> None:
    # ls showed "new\nline.md" as "new line.md", a file of another name; search showed it as
    # "new\ufffdline.md"
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "new\nline.md").write_text("# Odd\n\nwalrus notes\n")
    assert mixle("ingest", str(notes)).exit_code == 0
    listed, found = mixle("ls").stdout, mixle("search", "walrus").stdout
    assert "new\ufffdline.md" in listed and "new\ufffdline.md" in found
    assert "new line.md" not in listed


def test_init_in_a_folder_it_may_not_read_is_an_error_of_the_system_not_of_usage(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the parser refused it first with its own words, exit 2; the folder is left to the OS
    # (root reads every folder: the parser's check of readability is what is taken away)
    target = tmp_path / "notes"
    target.mkdir()
    real_access = os.access
    monkeypatch.setattr(
        "os.access", lambda p, mode, **kw: False if str(p) == str(target) else real_access(p, mode)
    )
    result = mixle("init", str(target))
    assert result.exit_code != 2 and "is not readable" not in result.stderr


def test_a_listing_of_a_shard_holding_no_item_says_which_shard_that_is(
    mixle, isolated_shard_env: Path
) -> None:
    # (the shard found above the working folder may not be the one meant)
    mixle("init")
    for command in (("ls",), ("search", "anything"), ("retrieve", "anything")):
        result = mixle(*command)
        assert result.exit_code == 0, command
        assert f"the shard {isolated_shard_env} holds no item (add some" in result.stderr
    mixle("add", "one note")
    assert mixle("search", "zebra").stderr.strip() == "no matching items"
    assert "holds no item (add" not in mixle("--as", "ops", "ls").stderr  # (its own words)
