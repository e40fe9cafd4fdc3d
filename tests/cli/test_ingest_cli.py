from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from substrate import Substrate
from substrate.ingest import session

SAMPLE = Path(__file__).parents[2] / "fixtures" / "sample-notes"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    shutil.copytree(SAMPLE, folder)
    return folder


def test_ingest_folder_then_reingest_is_incremental(mixle, notes: Path) -> None:
    first = mixle("ingest", str(notes), "--json")
    assert first.exit_code == 0, first.stderr
    report = first.json()
    assert report["files_added"] == 4 and report["items_added"] > 4
    again = mixle("ingest", str(notes), "--json").json()
    assert again["files_unchanged"] == 4 and again["items_added"] == 0
    (notes / "warehouse.txt").write_text("The warehouse moved to Antwerp.\n")
    (notes / "ops" / "oncall.md").unlink()
    changed = mixle("ingest", str(notes), "--json").json()
    assert changed["files_updated"] == 1 and changed["files_removed"] == 1
    texts = [r["title"] for r in mixle("ls", "--json").json()]
    assert any("Antwerp" in t for t in texts) and not any("On-call" in t for t in texts)


def test_the_summary_counts_what_the_walk_left_out_by_name(mixle, notes: Path) -> None:
    (notes / ".obsidian").mkdir()
    (notes / ".obsidian" / "app.md").write_text("# settings\n")
    (notes / "drafts.md").write_text("# Draft\n\nNot ready.\n")
    (notes / ".gitignore").write_text("drafts.md\n")
    result = mixle("ingest", str(notes))
    assert "0 failed, 1 hidden left out (--hidden takes them), 1 ignored by rules;" in result.stderr
    report = mixle("ingest", str(notes), "--json").json()
    assert (report["entries_hidden"], report["entries_ignored"]) == (1, 1)
    taken = mixle("ingest", str(notes), "--hidden", "--json").json()
    assert (taken["files_added"], taken["entries_hidden"]) == (1, 0)


@pytest.mark.parametrize("blank", ["", "  "])
def test_an_empty_tag_is_refused_as_add_refuses_it(mixle, notes: Path, blank: str) -> None:
    result = mixle("ingest", str(notes), "--tag", "ok", "--tag", blank)
    assert result.exit_code == 2 and "a tag cannot be empty" in result.stderr
    assert mixle("ls").exit_code == 3  # nothing was written, not even a shard


@pytest.mark.parametrize(
    ("tag", "said"),
    [
        (" sp ", "a tag has white space around it"),
        ("a\nb", "a tag cannot hold invisible or control characters"),
        ("\x1b[31mred", "a tag cannot hold invisible or control characters"),
        ("zero\u200bwidth", "a tag cannot hold invisible or control characters"),
    ],
)
@pytest.mark.parametrize("command", ["ingest", "add"])
def test_a_tag_is_refused_as_a_scope_name_is(
    mixle, notes: Path, command: str, tag: str, said: str
) -> None:
    what = str(notes) if command == "ingest" else "a note"
    result = mixle(command, what, "--tag", "ok", "-t", tag)
    assert result.exit_code == 2 and said in result.stderr
    assert "\x1b" not in result.stderr
    assert mixle("ls").exit_code == 3  # nothing was written, not even a shard


@pytest.mark.parametrize("order", [("notes", "notes/ops"), ("notes/ops", "notes")])
def test_paths_inside_one_another_count_each_file_once(
    mixle, notes: Path, order: tuple[str, str]
) -> None:
    paths = [str(notes.parent / p) for p in order]
    first = mixle("ingest", *paths, "--json").json()
    assert (first["files_scanned"], first["files_added"]) == (4, 4)
    again = mixle("ingest", *paths, "--json").json()
    assert (again["files_scanned"], again["files_unchanged"]) == (4, 4)
    # named from the outermost folder, whichever path the walk reached a file by
    sources = {i.provenance["source"] for i in Substrate(notes.parent / "shard").iter_items()}
    assert "ops/oncall.md" in sources


def test_jobs_option(mixle, notes: Path) -> None:
    report = mixle("ingest", str(notes), "--jobs", "2", "--json")
    assert report.exit_code == 0, report.stderr
    assert report.json()["files_added"] == 4
    assert mixle("ingest", str(notes), "--jobs", "-1").exit_code == 2


def test_no_prune_keeps_vanished_files(mixle, notes: Path) -> None:
    mixle("ingest", str(notes))
    (notes / "warehouse.txt").unlink()
    result = mixle("ingest", str(notes), "--no-prune", "--json")
    report = result.json()
    assert result.exit_code == 0 and report["files_removed"] == 0
    assert any("Rotterdam" in r["title"] for r in mixle("ls", "--json").json())
    # said, so that the shard does not hold a gone file's items unbeknown
    [notice] = report["notices"]
    assert "1 file(s) ingested before were not found" in notice["reason"]


def test_a_moved_folder_is_told_moved_and_its_old_items_go(mixle, notes: Path) -> None:
    mixle("ingest", str(notes))
    before = sorted(r["title"] for r in mixle("ls", "--json").json())
    archive = notes.parent / "archive"
    notes.rename(archive)
    moved = mixle("ingest", str(archive))
    assert moved.exit_code == 0 and "4 added, 0 updated, 0 unchanged, 4 removed (4 moved)" in (
        moved.stderr
    )
    report = mixle("ingest", str(archive), "--json").json()
    assert report["files_moved"] == 0 and report["files_unchanged"] == 4
    assert sorted(r["title"] for r in mixle("ls", "--json").json()) == before


def test_an_emptied_folder_keeps_its_items_and_exits_1_unless_pruned(mixle, notes: Path) -> None:
    mixle("ingest", str(notes))
    before = len(mixle("ls", "--json").json())
    shutil.rmtree(notes)
    notes.mkdir()
    kept = mixle("ingest", str(notes))
    assert kept.exit_code == 1 and "found no file to ingest" in kept.stderr
    assert "--prune-empty" in kept.stderr and len(mixle("ls", "--json").json()) == before
    both = mixle("ingest", str(notes), "--prune-empty", "--no-prune")
    assert both.exit_code == 2 and "contradict" in both.stderr
    pruned = mixle("ingest", str(notes), "--prune-empty", "--json")
    assert pruned.exit_code == 0 and pruned.json()["items_removed"] == before
    assert mixle("ls", "--json").json() == []


def test_stdin_and_explicit_format(mixle) -> None:
    result = mixle("ingest", "-", "--source", "clipboard", "--json", input="First.\n\nSecond.\n")
    assert result.exit_code == 0 and result.json()["items_added"] >= 1
    rows = mixle("ls", "--json").json()
    assert {r["source"] for r in rows} == {"clipboard"}
    again = mixle("ingest", "-", "--source", "clipboard", input="First.\n\nSecond.\n")
    assert again.stderr.startswith("1 file scanned, 0 added, 0 updated, 1 unchanged")


def test_stdin_is_read_as_a_file_named_by_its_source(mixle) -> None:
    note = "# Install\n\nIntro.\n\n## Linux\n\nUse apt.\n"
    assert mixle("ingest", "-", "--source", "install.md", input=note).exit_code == 0
    assert [r["title"] for r in mixle("ls", "--json").json()] == ["Install", "Install > Linux"]
    piped = mixle("ingest", "-", "--source", "manifest.json", input='{"name": "web"}')
    assert piped.exit_code == 0  # JSON: a stream has no folder for an artifact to be
    kinds = {r["source"]: r["kind"] for r in mixle("ls", "--json").json()}
    assert kinds["manifest.json"] == "record"
    # named, not forced: rows of traces are traces, as in a file of that name
    trace = '{"input": "q", "answer": "a"}\n'
    assert mixle("ingest", "-", "--source", "t.jsonl", input=trace).exit_code == 0
    forced = mixle("ingest", "-", "--source", "r.jsonl", "--as", "records", input=trace)
    assert forced.exit_code == 0
    kinds = {r["source"]: r["kind"] for r in mixle("ls", "--json").json()}
    assert (kinds["t.jsonl"], kinds["r.jsonl"]) == ("trace", "record")


def test_another_shards_log_is_no_passages_named_or_piped(
    mixle, tmp_path: Path, isolated_shard_env: Path
) -> None:
    """ingest-docs reads the file itself: a shard's log, named or piped, would bring that
    shard's items, of any scope, into the default one."""
    other = str(tmp_path / "team")
    assert mixle("--shard", other, "add", "--scope", "board", "merger plan").exit_code == 0
    log = tmp_path / "team" / "items.jsonl"
    for args, data, said in (
        ((str(log),), None, "shard's own files"),
        (("-",), log.read_bytes(), "shard's log"),
    ):
        result = mixle("ingest-docs", *args, "--json", input=data)
        assert result.exit_code == 1, result.stderr
        assert [f["status"] for f in result.json()["files"]] == ["failed"]
        assert said in result.json()["issues"][0]["reason"]
    assert "merger" not in mixle("ls", "--json").stdout
    # refused unread, as every form refuses it, whatever the size limit says
    assert mixle("init").exit_code == 0
    settings = isolated_shard_env / "mixle.toml"
    settings.write_text(settings.read_text() + "\n[ingest]\nmax_file_size = 10\n")
    small = mixle("ingest-docs", str(log), "--json")
    assert "shard's own files" in small.json()["issues"][0]["reason"], small.stdout


def test_binary_piped_in_fails_as_nothing_of_it_is_stored(mixle) -> None:
    # not skipped, as a binary file is: a stream is not read twice (`... && rm` must not run)
    for data in (bytes(range(64)) * 4, b"PK\x03\x04\x00\x00\x00"):
        result = mixle("ingest", "-", "--json", input=data)
        assert result.exit_code == 1, result.stderr
        [outcome] = result.json()["files"]
        assert outcome["status"] == "failed" and outcome["reason"].startswith("binary content")
    mixle("ingest", "-", input="a real note\n")
    assert [r["title"] for r in mixle("ls", "--json").json()] == ["a real note"]


def test_utf16_without_a_mark_is_ingested_as_text(mixle) -> None:
    result = mixle("ingest", "-", "--json", input="hello wide notes\n".encode("utf-16-le"))
    assert result.exit_code == 0, result.stderr
    assert [r["title"] for r in mixle("ls", "--json").json()] == ["hello wide notes"]


def test_each_text_piped_in_is_kept_unless_it_is_named(mixle) -> None:
    def texts() -> set[str]:
        return {r["title"] for r in mixle("ls", "--json").json()}

    mixle("ingest", "-", input="heron note\n")
    mixle("ingest", "-", input="otter note\n")
    again = mixle("ingest", "-", "--json", input="otter note\n").json()
    assert again["items_added"] == 0 and texts() == {"heron note", "otter note"}
    mixle("ingest", "-", "--source", "todo", input="first draft\n")
    named = mixle("ingest", "-", "--source", "todo", "--json", input="second draft\n").json()
    assert named["items_removed"] == 1
    assert texts() == {"heron note", "otter note", "second draft"}


def test_notes_about_files_named_like_keys_are_not_masked(mixle, tmp_path: Path) -> None:
    folder = tmp_path / "conf"
    folder.mkdir()
    (folder / "creds.ini").write_text("a=1\n")
    result = mixle("ingest", str(folder))
    assert "creds.ini: unsupported format" in result.stderr, result.stderr


def test_several_paths_add_up_in_one_report(mixle, notes: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra.md"
    extra.write_text("# Extra\n\nmore\n")
    n = sum(1 for p in notes.rglob("*") if p.is_file())
    report = mixle("ingest", str(notes), str(extra), "-", "--json", input="piped\n").json()
    assert report["files_scanned"] == n + 2
    assert report["root"] == str(notes.resolve())  # the first path, not the last
    roots = report["roots"]
    assert roots[:2] == [str(notes.resolve()), str(extra.resolve())]
    assert roots[2].startswith("stream:stdin-")


def test_files_of_one_name_in_two_folders_are_told_apart_in_the_report(
    mixle, tmp_path: Path
) -> None:
    for team in ("teamA", "teamB"):
        (tmp_path / team).mkdir()
        (tmp_path / team / "rows.jsonl").write_text('{"text": "good"}\n{broken\n')
        (tmp_path / team / "big.md").write_text("# Big\n\n" + "x" * 2000 + "\n")
    folders = [str(tmp_path / "teamA"), str(tmp_path / "teamB")]
    result = mixle("ingest", *folders, "--max-file-size", "1000")
    assert result.exit_code == 1
    for team in ("teamA", "teamB"):
        assert f"problem: {team}/rows.jsonl:2: invalid JSON" in result.stderr, result.stderr
        assert f"skipped: {team}/big.md:" in result.stderr
    again = mixle("ingest", *folders, "--max-file-size", "1000")  # unchanged: said again
    assert "problem: teamB/rows.jsonl:2: invalid JSON" in again.stderr, again.stderr
    assert "still there" in again.stderr
    issues = mixle("ingest", *folders, "--json").json()["issues"]
    assert {issue["source"] for issue in issues} == {"rows.jsonl"}  # as stored
    assert {issue["path"] for issue in issues} == {
        str((tmp_path / team / "rows.jsonl").resolve()) for team in ("teamA", "teamB")
    }


@pytest.mark.parametrize(("command", "given"), [("ingest", "docs"), ("ingest-file", "md")])
def test_a_format_given_as_the_team_is_refused(
    mixle, notes: Path, command: str, given: str
) -> None:
    target = notes if command == "ingest" else notes / "warehouse.txt"
    result = mixle("--as", given, command, str(target))
    assert result.exit_code == 2, result.stderr
    assert f"'{given}' is a format" in result.stderr
    assert f"mixle {command} --as '{given}' PATH" in result.stderr
    assert mixle("ls").exit_code == 3  # nothing was written


def test_items_going_into_a_scope_new_to_the_shard_are_told_of(mixle, notes: Path) -> None:
    # a shard's first items: every scope is new there
    assert "held no item before" not in mixle("--as", "first", "ingest", str(notes)).stderr
    assert "held no item before" not in mixle("ingest", str(notes)).stderr  # no team, no scope
    first = mixle("--as", "reserch", "ingest", str(notes))
    assert "team 'reserch' held no item before: a new team, or a mistyped" in first.stderr
    assert "held no item before" not in mixle("--as", "reserch", "ingest", str(notes)).stderr
    (notes / "extra.md").write_text("# Extra\n\nOne more note.\n")
    named = mixle("ingest", str(notes), "--scope", "ops")
    assert "scope 'ops' held no item before: a new scope, or a mistyped --scope?" in named.stderr
    quiet = mixle("ingest", str(notes), "--scope", "ops2", "--json")
    assert quiet.exit_code == 0 and "held no item" not in quiet.stderr
    shared = mixle("ingest", str(notes), "--scope", "public")  # named by mixle.toml
    assert shared.exit_code == 0 and "held no item" not in shared.stderr
    added = mixle("--as", "Reserch", "add", "one note")  # add tells of it as ingest does
    assert "team 'Reserch' held no item before: a new team, or a mistyped" in added.stderr
    assert "held no item" not in mixle("--as", "Reserch", "add", "two").stderr
    added = mixle("add", "one note", "--scope", "opps")
    assert "scope 'opps' held no item before: a new scope, or a mistyped --scope?" in added.stderr
    assert "held no item" not in mixle("add", "x", "--scope", "opps2", "--json").stderr


def test_a_team_named_as_a_format_only_ingest_takes_is_no_slip_before_ingest_file(
    mixle, notes: Path
) -> None:
    result = mixle("--as", "records", "ingest-file", str(notes / "warehouse.txt"))
    assert result.exit_code == 0, result.stderr  # ingest-file has no format 'records'
    assert mixle("--as", "md", "ingest-file", str(notes / "warehouse.txt")).exit_code == 2


def test_a_team_named_as_a_format_is_taken_at_its_word_where_no_format_is_meant(
    mixle, notes: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "p.jsonl"
    docs.write_text('{"text": "a passage of the docs team"}\n')
    assert mixle("--as", "docs", "ingest-docs", str(docs)).exit_code == 0  # takes no format
    assert mixle("--as", "docs", "ingest", str(notes), "--scope", "docs").exit_code == 0
    assert {row["scope"] for row in mixle("ls", "--json").json()} == {"docs"}


def test_a_team_named_as_a_format_that_holds_items_is_taken_at_its_word(mixle, notes: Path) -> None:
    assert mixle("add", "the docs team's first note", "--scope", "docs").exit_code == 0
    assert mixle("--as", "docs", "ingest", str(notes)).exit_code == 0
    assert {row["scope"] for row in mixle("ls", "--json").json()} == {"docs"}


def test_a_team_named_as_a_format_that_has_approvers_is_taken_at_its_word(
    mixle, notes: Path
) -> None:
    assert mixle("grant", "ana", "records").exit_code == 0  # a known scope, holding nothing yet
    result = mixle("--as", "records", "ingest", str(notes), "--by", "ana")
    assert result.exit_code == 0, result.stderr
    assert {row["scope"] for row in mixle("ls", "--json").json()} == {"records"}


def test_a_team_given_as_the_format_gets_a_hint(mixle, notes: Path) -> None:
    result = mixle("ingest", str(notes), "--as", "research")
    assert result.exit_code == 2 and "unknown format 'research'" in result.stderr
    assert "no shard" not in result.stderr  # no note of a write that will not happen
    assert (
        "mixle --as TEAM ingest" in result.stderr and mixle("ls").exit_code == 3
    )  # not even a shard was created


def test_bad_lines_are_reported_with_file_and_line_and_exit_1(mixle, tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text('{"text": "good one"}\n{broken\n{"text": "good two"}\n')
    result = mixle("ingest", str(data))
    assert result.exit_code == 1
    assert "rows.jsonl:2" in result.stderr
    assert len(mixle("ls", "--json").json()) == 2
    (tmp_path / "empty.md").write_text("")
    for command in (["ingest", str(tmp_path)], ["ingest-file", str(data)]):
        quiet = mixle(*command, "-q")  # no summary, no skipped file; the problem is still said
        assert quiet.exit_code == 1 and "problem: " in quiet.stderr, command
        assert "rows.jsonl" in quiet.stderr
        assert "scanned" not in quiet.stderr and "empty.md" not in quiet.stderr


def test_a_missing_path_fails_and_the_others_are_ingested(
    mixle, notes: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "nope.md"
    result = mixle("ingest", str(notes), str(missing), "--json")
    assert result.exit_code == 1
    report = result.json()
    assert report["files_failed"] == 1 and report["files_added"] >= 1
    assert "1 failed" in result.stderr  # exit 1 is explained beside the JSON
    text = mixle("ingest", str(missing))
    assert text.exit_code == 1
    assert text.stderr.count("no such file or folder") == 1  # said once, not once per list


def test_a_fifo_given_fails_alone_unread_and_the_others_are_ingested(
    mixle, notes: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "p.md"
    os.mkfifo(fifo)  # no writer: reading it would wait forever
    result = mixle("ingest", str(fifo), str(notes), "--json")
    assert result.exit_code == 1, result.stderr
    report = result.json()
    assert report["files_failed"] == 1 and report["files_added"] >= 1
    [failed] = [f for f in report["files"] if f["status"] == "failed"]
    assert failed["reason"] == "not a regular file or folder (a named pipe); not read"
    assert mixle("ingest", "-", "--source", "x", input="hello\n").exit_code == 0
    stray = mixle("ingest", str(notes), "--source", "x")
    assert stray.exit_code == 2 and "--source names standard input" in stray.stderr
    unnamed = mixle("ingest", "-", "--source", "", input="hello\n")
    assert unnamed.exit_code == 2 and "--source name is empty" in unnamed.stderr


def test_a_link_loop_or_a_dead_link_given_fails_on_its_own(
    mixle, notes: Path, tmp_path: Path
) -> None:
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    (tmp_path / "dead").symlink_to(tmp_path / "nowhere")
    result = mixle("ingest", str(notes), str(tmp_path / "loop1"), str(tmp_path / "dead"))
    assert result.exit_code == 1, result.stderr  # it was an internal error (exit 3)
    assert "loop1: symlink loop" in result.stderr and "dead: broken symlink" in result.stderr
    assert mixle("ls", "--json").json()  # the notes were ingested
    for command in ("ingest-file", "ingest-docs", "ingest-traces", "ingest-artifacts"):
        one = mixle(command, str(tmp_path / "loop1"))  # it said "no such file"
        assert one.exit_code == 3 and "symlink loop: " in one.stderr, command


def test_secrets_are_redacted_before_storage(mixle, tmp_path: Path, isolated_shard_env) -> None:
    token = "ghp_" + "Zq3xV9mK2pL8wR4tY6uB1nC5dF7gH0jE2sA4"
    (tmp_path / "creds.md").write_text(f"# Deploy\n\nUse the token {token} to deploy.\n")
    result = mixle("ingest", str(tmp_path / "creds.md"), "--json")
    assert result.exit_code == 0 and result.json()["redactions"] == 1
    assert token not in (isolated_shard_env / "items.jsonl").read_text()
    assert token not in result.stdout + result.stderr
    shown = mixle("ls", "--json").stdout + mixle("status", "--json").stdout
    assert token not in shown
    # text saved as UTF-32 is read as such, not as UTF-16 with a NUL between characters
    (tmp_path / "wide.txt").write_bytes(f"password = Tr0ub4dor9xQzK\n{token}\n".encode("utf-32"))
    wide = mixle("ingest", str(tmp_path / "wide.txt"), "--json").json()
    assert wide["redactions"] == 2 and "Tr0ub4dor9xQzK" not in mixle("ls", "--json").stdout


def _before_applying(
    patch: pytest.MonkeyPatch, nth: int, act: Callable[[], None]
) -> dict[str, int]:
    """Have ``act`` run as an ingest is about to apply its ``nth`` file; returns the count of
    files seen so far (``["n"]``), which a test may set to start again."""
    calls = {"n": 0}
    original = session.IngestSession.apply

    def apply(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == nth:
            act()
        return original(self, *args, **kwargs)

    patch.setattr(session.IngestSession, "apply", apply)
    return calls


def _interrupt() -> None:
    raise KeyboardInterrupt


def test_sigterm_stops_an_ingest_as_ctrl_c_does_and_exits_143(
    mixle, notes: Path, monkeypatch: pytest.MonkeyPatch, isolated_shard_env: Path
) -> None:
    import signal

    # a timeout, systemd
    _before_applying(monkeypatch, 2, lambda: os.kill(os.getpid(), signal.SIGTERM))
    result = mixle("ingest", str(notes))
    assert result.exit_code == 143  # it ended at once, storing nothing of the run
    assert result.stderr.splitlines()[-1].startswith("error: terminated; the files completed")
    stored = {i.provenance.get("source") for i in Substrate(isolated_shard_env).all()}
    assert len(stored) == 2  # the files completed before it
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # put back


def _holds_open(pid: int, folder: Path) -> bool:
    """Whether process ``pid`` has a file under ``folder`` open (read from /proc)."""
    try:
        links = [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()]
    except OSError:  # an fd closed meanwhile, or the process gone
        return False
    return any(link.startswith(str(folder)) for link in links)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_a_timeout_stopping_an_ingest_keeps_what_it_completed(
    tmp_path: Path, mixle_bin: str
) -> None:
    import signal
    import subprocess
    import time

    tree = tmp_path / "tree"
    tree.mkdir()
    for n in range(2000):
        (tree / f"n{n}.md").write_text(f"# Note {n}\n\nSome words of note {n}.\n")
    shard = tmp_path / "s"
    run = subprocess.Popen(
        [mixle_bin, "--shard", str(shard), "ingest", str(tree), "--jobs", "1"],
        stderr=subprocess.PIPE,
        text=True,
    )
    for _ in range(5000):  # until the ingest runs: it has a file of the tree or shard open
        if _holds_open(run.pid, tmp_path):
            break
        time.sleep(0.001)
    run.send_signal(signal.SIGTERM)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 143, stderr  # it ended at once, with nothing of the run stored
    assert "error: terminated; " in stderr
    again = subprocess.run(
        [mixle_bin, "--shard", str(shard), "ingest", str(tree), "--json"],
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0 and '"files_added"' in again.stdout  # picks up the rest


def test_interrupt_keeps_completed_files_and_exits_130(
    mixle, notes: Path, monkeypatch: pytest.MonkeyPatch, isolated_shard_env: Path
) -> None:
    with monkeypatch.context() as patch:
        calls = _before_applying(patch, 3, _interrupt)
        result = mixle("ingest", str(notes))
        calls["n"] = 0
        other = notes.with_name("other-shard")
        quiet = mixle("--shard", str(other), "ingest", str(notes), "-q")
    assert result.exit_code == 130
    assert result.stderr.splitlines()[-1].startswith("error: interrupted; the files completed")
    assert "4 files scanned, 2 added, " in result.stderr and ", 2 not reached;" in result.stderr
    assert quiet.exit_code == 130 and quiet.stderr.splitlines()[-1].startswith("error: interr")
    stored = {i.provenance.get("source") for i in Substrate(isolated_shard_env).all()}
    assert len(stored) == 2
    resumed = mixle("ingest", str(notes), "--json").json()
    assert resumed["files_unchanged"] == 2 and resumed["files_added"] == 2, resumed
    assert resumed["files_not_reached"] == 0 and len(resumed["ids"]) == resumed["items_added"]
    with monkeypatch.context() as patch:
        _before_applying(patch, 1, _interrupt)  # interrupted before any file is applied
        first = mixle("--shard", str(notes.with_name("third")), "ingest", str(notes))
    assert first.exit_code == 130 and "interrupted; nothing was changed" in first.stderr
    assert not (notes.with_name("third") / "index").exists()  # no cache of a shard not made


def test_an_interrupt_after_every_input_was_saved_says_so(
    mixle, notes: Path, monkeypatch: pytest.MonkeyPatch, isolated_shard_env: Path
) -> None:
    # "run the command again to finish", when a rerun found every file unchanged
    import mixle_cli.commands.ingest as command

    @contextmanager
    def progress_then_interrupt(enabled: bool):  # type: ignore[no-untyped-def]
        yield None
        raise KeyboardInterrupt  # as the progress bar is taken down

    with monkeypatch.context() as patch:
        patch.setattr(command, "_progress", progress_then_interrupt)
        result = mixle("ingest", str(notes))
    assert result.exit_code == 130
    last = result.stderr.splitlines()[-1]
    assert last == "error: interrupted; every input was ingested and saved before it"
    again = mixle("ingest", str(notes), "--json").json()
    assert again["files_added"] == 0 and again["files_unchanged"] == 4


@pytest.mark.parametrize("saves_before", [0, 1])
def test_a_shard_it_may_not_write_is_not_said_to_be_finished_by_running_again(
    mixle, notes: Path, monkeypatch: pytest.MonkeyPatch, saves_before: int
) -> None:
    from substrate.errors import ShardError

    real = Substrate.save_encoded
    saves = {"n": 0}

    def refused(self: Substrate, *args: Any, **kw: Any) -> None:
        saves["n"] += 1
        if saves["n"] > saves_before:
            raise ShardError("cannot open lock file /s/.lock: Permission denied")
        real(self, *args, **kw)

    monkeypatch.setattr(session, "BATCH_FILES", 2)
    monkeypatch.setattr(Substrate, "save_encoded", refused)
    result = mixle("ingest", str(notes))
    assert result.exit_code == 3 and "run the command again" not in result.stderr
    kept = "earlier batches are kept" if saves_before else "nothing was saved"
    assert result.stderr.rstrip().endswith(f"(or use another with --shard); {kept}")


def test_a_full_disk_mid_run_prints_the_report_of_what_was_stored(
    mixle, notes: Path, monkeypatch: pytest.MonkeyPatch, isolated_shard_env: Path
) -> None:
    from substrate.errors import ShardError

    real = Substrate.save_encoded
    saves = {"n": 0}

    def second_save_fails(self: Substrate, *args: Any, **kw: Any) -> None:
        saves["n"] += 1
        if saves["n"] == 2:
            raise ShardError("cannot write items.jsonl: No space left on device")
        real(self, *args, **kw)

    gone = notes.parent / "gone"  # a folder ingested before, given again though deleted
    gone.mkdir()
    (gone / "old.md").write_text("an old note\n")
    mixle("ingest", str(gone))
    shutil.rmtree(gone)
    monkeypatch.setattr(session, "BATCH_FILES", 2)
    monkeypatch.setattr(Substrate, "save_encoded", second_save_fails)
    result = mixle("ingest", str(gone), str(notes), "--json")
    assert result.exit_code == 3 and "No space left on device" in result.stderr
    report = result.json()  # what a script needs: the files stored before it, and the rest
    stored = {i.provenance["source"] for i in Substrate(isolated_shard_env).all()} - {"old.md"}
    added = {f["source"] for f in report["files"] if f["status"] == "added"}
    assert added == stored and len(stored) == 2
    failed = [f for f in report["files"] if f["status"] == "failed" and f["source"] != str(gone)]
    assert all("not saved" in f["reason"] for f in failed)
    [told] = [i for i in report["issues"] if i["source"] == str(gone)]
    assert "the 1 item(s) ingested from it before are kept" in told["reason"]


def test_explicit_forms(mixle, tmp_path: Path) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_text('"plain passage"\n{"text": "tagged passage", "tags": ["t"]}\n')
    assert mixle("ingest-docs", str(docs)).exit_code == 0
    again = mixle("ingest-docs", str(docs), "--json").json()  # the same file again
    assert (again["files"], again["files_unchanged"], again["items_rewritten"]) == ([], 1, 0)
    docs.write_text('"plain passage"\n{"text": "tagged passage", "tags": ["t", "u"]}\n')
    [edited] = mixle("ingest-docs", str(docs), "--json").json()["files"]
    # both kept their ids; both record the file's new content hash
    assert (edited["status"], edited["items_added"], edited["items_rewritten"]) == ("updated", 0, 2)
    wide = tmp_path / "wide.jsonl"  # saved as UTF-16 with its mark, as Windows tools do
    wide.write_bytes('"caf\u00e9 passage"\n{"text": "second"}\n'.encode("utf-16"))
    alone = mixle("--shard", str(tmp_path / "w"), "ingest-docs", str(wide), "--json")
    assert alone.json()["items_added"] == 2
    broken = tmp_path / "broken-wide.jsonl"  # a lone surrogate: not UTF-16, rejected whole
    lone = b"\x00\xd8"  # half of a surrogate pair, and no other half
    broken.write_bytes(
        b"\xff\xfe" + '"a"\n'.encode("utf-16-le") + lone + '"b"\n'.encode("utf-16-le")
    )
    rejected = mixle("--shard", str(tmp_path / "w"), "ingest-docs", str(broken), "--json")
    assert rejected.exit_code == 1 and rejected.json()["items_added"] == 0
    [issue] = rejected.json()["issues"]  # said once, not again as "all 1 line(s) rejected"
    assert "invalid UTF-16" in issue["reason"] and issue["line"] == 2
    packed = tmp_path / "packed.jsonl"  # a compressed file: not read here, said so once
    packed.write_bytes(gzip.compress(b'{"text": "a"}\n{"text": "b"}\n'))
    binary = mixle("--shard", str(tmp_path / "w"), "ingest-docs", str(packed), "--json")
    [issue] = binary.json()["issues"]
    told = "gzip data, which `mixle ingest` (ingest_path) reads inside"
    assert binary.exit_code == 1 and issue["reason"] == told
    [outcome] = binary.json()["files"]
    assert (outcome["status"], outcome["reason"]) == ("failed", f"line 1: {told}")
    image = tmp_path / "image.jsonl"  # another binary file
    image.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    binary = mixle("--shard", str(tmp_path / "w"), "ingest-docs", str(image), "--json")
    [issue] = binary.json()["issues"]
    assert issue["reason"] == "binary file, not text"
    traces = tmp_path / "traces.jsonl"
    traces.write_text('{"input": "2+2", "answer": "4"}\n')
    assert mixle("ingest-traces", str(traces)).exit_code == 0
    table = tmp_path / "t.csv"
    table.write_text("sku,name\n1,lamp\n")
    assert mixle("ingest-file", str(table)).exit_code == 0
    kinds = sorted(r["kind"] for r in mixle("ls", "--json").json())
    assert kinds == ["record", "text", "text", "trace"]


def test_the_shard_itself_is_not_ingested(mixle, notes: Path, isolated_shard_env: Path) -> None:
    mixle("ingest", str(notes))
    result = mixle("ingest", str(isolated_shard_env))
    assert result.exit_code == 2 and "shard itself" in result.stderr
    assert mixle("ls", "--kind", "bogus").exit_code == 2


def test_ingest_artifacts_and_docs_from_stdin(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "registry" / "router"
    model.mkdir(parents=True)
    (model / "manifest.json").write_text('{"kind": "solve/v1", "meta": {"solve": {}}}')
    (tmp_path / "registry" / "broken").mkdir()
    (tmp_path / "registry" / "broken" / "manifest.json").write_text("[1, 2]")
    result = mixle("ingest-artifacts", str(tmp_path / "registry"), "--json")
    report = result.json()
    assert result.exit_code == 1 and report["root"] == str(tmp_path / "registry")
    counts = [report[f"files_{k}"] for k in ("scanned", "added", "failed")]
    assert counts == [2, 1, 1] and report["bytes_read"] > 0
    assert [f["status"] for f in report["files"]] == ["failed", "added"]
    assert mixle("ingest-artifacts", str(tmp_path / "none")).exit_code == 3
    # given as typed, the files are reported where they were read, as other commands do
    monkeypatch.chdir(tmp_path)
    again = mixle("ingest-artifacts", "registry", "--json").json()["files"]
    assert [(f["source"], f["path"]) for f in again] == [  # the one failing again
        ("registry/broken/manifest.json", str(tmp_path / "registry/broken/manifest.json"))
    ]
    docs = mixle("ingest-docs", "-", "--json", input='"from a pipe"\n')
    assert docs.exit_code == 0 and docs.json()["root"] == "stream:stdin"  # as `ingest -` says
    assert (docs.json()["files_scanned"], docs.json()["bytes_read"]) == (1, 14)
    named = mixle("ingest-docs", "-", "--source", "feed", "--json", input='"from a feed"\n')
    assert named.json()["roots"] == ["stream:feed"]
    assert [(f["source"], f["path"]) for f in named.json()["files"]] == [("feed", None)]
    assert sorted(r["kind"] for r in mixle("ls", "--json").json()) == ["artifact", "text", "text"]


def test_standard_input_can_be_named_only_once(mixle) -> None:
    result = mixle("ingest", "-", "-", input="hello\n")
    assert result.exit_code == 2 and "only once" in result.stderr
    assert mixle("ls").exit_code == 3  # not even a shard was created


def test_standard_input_keeps_to_the_size_limit_and_refuses_folder_options(mixle) -> None:
    big = mixle("ingest", "-", "--max-file-size", "10", input="a note longer than ten bytes\n")
    assert big.exit_code == 1 and "larger than the size limit (more than 10 bytes)" in big.stderr
    assert "1 failed" in big.stderr  # not skipped as a file is: a stream is not read again
    assert mixle("ingest", "-", "--max-file-size", "10", input="short\n").exit_code == 0
    shard = Path(mixle("status", "--json").json()["shard"])
    with (shard / "mixle.toml").open("a", encoding="utf-8") as fh:
        fh.write("\n[ingest]\nmax_file_size = 12\n")
    by_setting = mixle("ingest", "-", input="also longer than twelve\n")
    assert "larger than the size limit (more than 12 bytes)" in by_setting.stderr
    for flag in (["--hidden"], ["--no-prune"], ["--prune-empty"], ["--jobs", "2"]):  # no effect
        result = mixle("ingest", "-", *flag, input="hello\n")
        assert result.exit_code == 2 and "not to standard input" in result.stderr, flag


def test_chunk_chars_has_one_least_value_by_flag_and_by_setting(mixle, notes: Path) -> None:
    assert mixle("ingest", str(notes), "--chunk-chars", "16").exit_code == 0
    refused = mixle("ingest", str(notes), "--chunk-chars", "15")
    assert refused.exit_code == 2 and "x>=16" in refused.stderr


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ("max_file_size = -5", "[ingest] max_file_size must be an integer >= 1, not -5"),
        ('max_file_size = "big"', "[ingest] max_file_size must be an integer >= 1"),
        ("chunk_chars = 5", "[ingest] chunk_chars must be an integer >= 16, not 5"),
        ("ignore = 3", "[ingest] ignore must be a list of strings"),
    ],
)
def test_a_bad_ingest_setting_is_an_error_naming_mixle_toml(
    mixle, notes: Path, table: str, said: str
) -> None:
    mixle("ingest", str(notes))
    shard = Path(mixle("status", "--json").json()["shard"])
    with (shard / "mixle.toml").open("a", encoding="utf-8") as fh:
        fh.write(f"\n[ingest]\n{table}\n")
    result = mixle("ingest", str(notes))
    assert result.exit_code == 3, result.stderr  # -5 skipped every file, exit 0
    assert said in result.stderr and "mixle.toml" in result.stderr
    assert "run the command again" not in result.stderr  # nothing was begun to finish
    # and no report of nothing done on stdout, which a script would read as a quiet run
    streamed = () if table.startswith("ignore") else (("-",),)  # no walk: no ignore rules
    for args in ((str(notes),), *streamed):
        as_json = mixle("ingest", *args, "--json", input="a note\n")
        assert as_json.exit_code == 3 and as_json.stdout == "", args


def test_an_unknown_ingest_setting_is_warned_of_with_the_nearest_name(
    mixle_process: Callable[..., Any], notes: Path, tmp_path: Path
) -> None:
    shard = tmp_path / "shard"
    assert mixle_process("--shard", str(shard), "ingest", str(notes)).returncode == 0
    with (shard / "mixle.toml").open("a", encoding="utf-8") as fh:
        fh.write('\n[ingest]\nmax_filesize = 10\nignore = ["*.csv"]\n')
    result = mixle_process("--shard", str(shard), "ingest", str(notes))
    assert result.returncode == 0
    assert "[ingest] has no setting 'max_filesize', left alone" in result.stderr
    assert "did you mean max_file_size?" in result.stderr


def test_explicit_forms_report_bad_content_once_and_exit_1(mixle, tmp_path: Path) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_text('"one"\n{"bad\n"three"\n42\n[1, 2]\n{"text": 5}\n')
    result = mixle("ingest-docs", str(docs))
    assert result.exit_code == 1 and result.stderr.count("invalid JSON") == 1
    # not passages "42", "[1, 2]" and "5"; said where the file is as it was given
    assert f"{docs}:4: neither a JSON string nor a" in result.stderr
    assert result.stderr.count("neither a JSON string") == 3
    assert sorted(r["title"] for r in mixle("ls", "--json").json()) == ["one", "three"]
    docs.write_bytes(b'"four"\n"f\xffve"\n')
    result = mixle("ingest-docs", str(docs))
    assert result.exit_code == 1 and "2: invalid UTF-8 (byte 0xff at offset 2 of the line)" in (
        result.stderr
    )
    assert "codec" not in result.stderr
    table = tmp_path / "broken.csv"
    table.write_text('a,b\n1,"x\n')
    result = mixle("ingest-file", str(table))
    assert result.exit_code == 1 and result.stderr.count("malformed CSV") == 1
    wrong = mixle("ingest-file", str(docs), "--as", "xyz")  # a team, given after the command
    assert wrong.exit_code == 2 and "mixle --as TEAM ingest-file" in wrong.stderr
    other = mixle("ingest-file", str(docs), "--as", "rst")  # a format, not of this command's
    assert other.exit_code == 2 and "hint: `mixle ingest --as rst PATH` reads it" in other.stderr


def test_ingest_docs_names_an_object_with_a_mistyped_key(mixle, tmp_path: Path) -> None:
    docs = tmp_path / "docs.jsonl"
    key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
    docs.write_text(
        f'{{"text": "one"}}\n{{"txt": "two"}}\n{{"{key}": 1}}\n{{}}\n{{"tags": ["t"]}}\n'
    )
    result = mixle("ingest-docs", str(docs))
    # not dropped as empty passages: said with their lines (the key masked), and exit 1
    assert result.exit_code == 1
    assert f"{docs}:2: an object with none of the keys text, tags, payload (it has 'txt')" in (
        result.stderr
    )
    assert f"{docs}:3: an object" in result.stderr and key not in result.stderr
    assert "items: +1 -0, 2 empty dropped" in result.stderr
    issues = mixle("ingest-docs", str(docs), "--json").json()["issues"]
    assert [issue["line"] for issue in issues] == [2, 3]


def test_no_redact_warns_once_with_the_total(mixle_process, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.txt").write_text("token = ghp_Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1\n")
    (tmp_path / "src" / "b.txt").write_text("password = Zx9#qLm2Wp7Rt\n")
    # a record's text shows no key beside its value: the gate noted it all the same
    (tmp_path / "src" / "users.csv").write_text("user,password\nalice,Tr0ub4dor&3x!\n")
    shard = str(tmp_path / "shard")
    result = mixle_process("--shard", shard, "ingest", str(tmp_path / "src"), "--no-redact")
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: 3 secret(s) stored unredacted"]
    # ingested again with redaction, the lines that held them stay until a compaction: said
    again = mixle_process("--shard", shard, "ingest", str(tmp_path / "src"), "--json")
    told = [n["reason"] for n in json.loads(again.stdout)["notices"]]
    assert len(told) == 3 and all("until `mixle compact`" in reason for reason in told), told


def test_no_ingest_command_reads_the_shard_s_own_files(
    mixle, notes: Path, isolated_shard_env: Path
) -> None:
    assert mixle("ingest", str(notes)).exit_code == 0
    before = len(Substrate(isolated_shard_env))
    log = str(isolated_shard_env / "items.jsonl")
    for command in ("ingest", "ingest-file", "ingest-docs", "ingest-traces"):
        result = mixle(command, log)
        assert result.exit_code == 2, (command, result.stderr)
        assert "the shard itself" in result.stderr
    result = mixle("ingest-artifacts", str(isolated_shard_env))
    assert result.exit_code == 2 and "the shard itself" in result.stderr
    assert len(Substrate(isolated_shard_env)) == before


def test_a_path_given_twice_is_ingested_once(mixle, notes: Path) -> None:
    (notes / ".private.md").write_text("# Private\n\nnamed on purpose\n")
    args = [str(notes), str(notes / "ops" / ".."), str(notes / ".private.md")]
    report = mixle("ingest", *args, "--json").json()
    files = len([p for p in notes.rglob("*") if p.is_file() and not p.name.startswith(".")])
    assert report["files_scanned"] == files + 1 and report["files_added"] == files + 1


def test_paths_named_inside_a_folder_keep_their_items_whatever_the_order(
    mixle, tmp_path: Path
) -> None:
    tree = tmp_path / "e"
    (tree / ".notes").mkdir(parents=True)
    (tree / "gen").mkdir()
    (tree / ".gitignore").write_text("gen/\n")
    (tree / "t.md").write_text("# T\n\ntop.\n")
    (tree / ".notes" / "h.md").write_text("# H\n\nhidden.\n")
    (tree / "gen" / "g.md").write_text("# G\n\ngen.\n")
    hidden, ignored = str(tree / ".notes"), str(tree / "gen" / "g.md")
    for order in ([str(tree), hidden, ignored], [hidden, ignored, str(tree)]):
        for _ in range(2):
            report = mixle("ingest", *order, "--json").json()
            assert report["items_removed"] == 0, (order, report["files"])
            assert len(mixle("ls", "--json").json()) == 3


def test_a_line_break_in_a_file_name_cannot_forge_a_report_line(mixle, tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "x\nfailed: other.md: made up.bin").write_bytes(b"\x00binary")
    result = mixle("ingest", str(folder))
    lines = result.stderr.splitlines()
    assert not any(line.startswith("failed: other.md") for line in lines)
    assert any("x\\nfailed: other.md" in line for line in lines)


def test_a_dangling_link_named_on_the_command_line_fails_alone(
    mixle, notes: Path, tmp_path: Path
) -> None:
    dead = tmp_path / "broken.md"
    dead.symlink_to(tmp_path / "nowhere.md")
    report = mixle("ingest", str(notes), str(dead), "--json")
    assert report.exit_code == 1 and report.json()["files_failed"] == 1
    assert report.json()["files_added"] >= 1


def test_explicit_forms_count_a_rejected_file_and_name_a_path_one_way(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe\x00garbage \xc3\x28")
    report = mixle("ingest-file", str(binary), "--json")
    assert report.exit_code == 1
    assert (report.json()["files_scanned"], report.json()["files_failed"]) == (1, 1)
    docs = tmp_path / "r.jsonl"
    docs.write_bytes(b'\xef\xbb\xbf"first doc"\n"second doc"\n')  # a byte-order mark too
    monkeypatch.chdir(tmp_path)
    assert mixle("ingest-docs", "r.jsonl").exit_code == 0
    assert mixle("ingest-docs", "./r.jsonl").exit_code == 0  # the same file: the same ids
    assert sorted(i["title"] for i in mixle("ls", "--json").json()) == ["first doc", "second doc"]
    assert mixle("ingest-file", str(binary), "--scope", " ").exit_code == 2


@pytest.mark.parametrize(
    "command", ["ingest-file", "ingest-docs", "ingest-artifacts", "ingest-traces"]
)
def test_the_explicit_forms_say_that_a_run_adds(mixle, command: str) -> None:
    shown = " ".join(mixle(command, "--help").stdout.split())
    assert "A run adds what it reads" in shown and "use `mixle ingest`" in shown


def test_a_folder_given_for_one_file_is_named_as_such(mixle, tmp_path: Path) -> None:
    for command in ("ingest-file", "ingest-traces", "ingest-docs"):
        result = mixle(command, str(tmp_path))
        assert result.exit_code == 2 and "is a folder; ingest a folder with" in result.stderr
    note = tmp_path / "note.md"
    note.write_text("# x\n")
    result = mixle("ingest-artifacts", str(note))
    assert result.exit_code == 2 and "is not a folder" in result.stderr


def test_items_of_ingest_docs_go_stale_when_their_file_is_edited(mixle, tmp_path: Path) -> None:
    docs = tmp_path / "d.jsonl"
    docs.write_text('"Refunds take five days."\n"Cards never expire."\n')
    assert mixle("ingest-docs", str(docs), "-q").exit_code == 0
    assert mixle("freshness").exit_code == 0
    docs.write_text('"Refunds take six days."\n"Cards never expire."\n')
    stale = mixle("freshness", "--json")
    assert stale.exit_code == 1 and stale.json()["n_stale"] == 2
    assert mixle("ingest-docs", "-", "-q", input='"From a pipe."\n').exit_code == 0
    assert mixle("ingest-docs", str(docs), "-q").exit_code == 0
    os.utime(docs, (1_000_000_000, 1_000_000_000))  # only touched: nothing to rewrite
    again = mixle("ingest-docs", str(docs), "--json").json()
    assert (again["files_unchanged"], again["items_rewritten"]) == (1, 0)


def test_ingest_docs_reports_the_file_it_read_as_ingest_file_does(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "d.jsonl"
    docs.write_text('"one"\n"two"\n')
    report = mixle("ingest-docs", str(docs), "--json").json()
    assert report["files_added"] == 1 and report["items_added"] == 2
    assert report["elapsed_s"] > 0  # (it was 0.0 for every explicit form)
    [outcome] = report["files"]
    assert outcome["path"] == str(docs) and outcome["status"] == "added"
    empty = tmp_path / "e.jsonl"
    empty.write_text("\n")
    assert mixle("ingest-docs", str(empty), "--json").json()["files"][0]["reason"] == "no content"
    rejected = tmp_path / "r.jsonl"  # every line refused: failed, as ingest tells it
    rejected.write_bytes(b"not json \xff\n\n{bad\n")
    told = mixle("ingest-docs", str(rejected))
    assert told.exit_code == 1 and "no content" not in told.stderr
    assert f"failed: {rejected}: all 2 line(s) or row(s) rejected" in told.stderr
    assert "0 skipped, 1 failed" in told.stderr
    monkeypatch.chdir(tmp_path)  # named as typed, as its problems are
    relative = mixle("ingest-docs", "r.jsonl").stderr
    assert "problem: r.jsonl:1:" in relative
    assert "failed: r.jsonl: all 2 line(s) or row(s) rejected" in relative


def test_ingest_docs_drops_empty_docs_and_counts_them(mixle, tmp_path: Path) -> None:
    docs = tmp_path / "d.jsonl"
    docs.write_text('{"tags": ["t"]}\n{"text": "  "}\n"real"\n{"payload": {"a": 1}}\n""\n')
    report = mixle("ingest-docs", str(docs), "--json").json()
    assert (report["items_added"], report["items_dropped"]) == (2, 3)
    titles = sorted(row["title"] for row in mixle("ls", "--json").json())
    assert titles == ["real", '{"a":1}']
    only_empty = tmp_path / "e.jsonl"
    only_empty.write_text('{"text": ""}\n')
    [outcome] = mixle("ingest-docs", str(only_empty), "--json").json()["files"]
    assert outcome["reason"] == "no content"


def test_ingest_file_fails_a_file_whose_every_line_is_rejected(mixle, tmp_path: Path) -> None:
    broken = tmp_path / "nj.jsonl"
    broken.write_text("not json\n")
    result = mixle("ingest-file", str(broken), "--json")
    [outcome] = result.json()["files"]
    assert result.exit_code == 1 and result.json()["files_failed"] == 1
    assert (outcome["status"], outcome["reason"]) == ("failed", "all 1 line(s) or row(s) rejected")


def test_one_file_commands_report_problems_with_the_file_s_path_as_ingest_does(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issues[].path was null, and the root relative, where `ingest` gives both absolute
    monkeypatch.chdir(tmp_path)
    Path("rows.csv").write_text("a,b\n1,2\n3,4,5\n")
    Path("docs.jsonl").write_text('"ok"\n{"txt": 1}\n')
    Path("runs.jsonl").write_text('{"input": 1, "answer": 2}\n[1]\n')
    for command, name in (
        ("ingest-file", "rows.csv"),
        ("ingest-docs", "docs.jsonl"),
        ("ingest-traces", "runs.jsonl"),
        ("ingest", "rows.csv"),
    ):
        report = mixle(command, name, "--json").json()
        where = str(tmp_path / name)
        assert report["roots"] == [where], command
        assert [(i["source"], i["path"]) for i in report["issues"]] == [(name, where)], command


def test_one_file_commands_refuse_stdin_and_an_unreadable_file_alike(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"input": "q", "answer": "a"}\n')
    for command in ("ingest-file", "ingest-traces"):
        piped = mixle(command, "-")
        assert piped.exit_code == 2 and "mixle ingest - --as FORMAT" in piped.stderr
    real_access = os.access
    # as a file without read permission is (the tests may run as root, who reads anything)
    monkeypatch.setattr(os, "access", lambda p, mode: str(p) != str(rows) and real_access(p, mode))
    for command in ("ingest-file", "ingest-traces"):
        locked = mixle(command, str(rows))
        assert locked.exit_code == 3, locked.stderr
        assert f"cannot read {rows}: permission denied" in locked.stderr


def test_a_file_named_over_the_size_limit_fails_unread(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # skipped with exit 0 (and nothing said under -q), `ingest-docs dump.jsonl -q && rm
    # dump.jsonl` removed data never stored
    mixle("init")
    shard = Path(mixle("status", "--json").json()["shard"])
    with (shard / "mixle.toml").open("a", encoding="utf-8") as fh:
        fh.write("\n[ingest]\nmax_file_size = 40\n")
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"input": "what is the port?", "answer": "5432, as configured"}\n')
    for command in ("ingest-docs", "ingest-file", "ingest-traces", "ingest"):
        report = mixle(command, str(rows), "--json")
        [outcome] = report.json()["files"]
        assert report.exit_code == 1 and outcome["status"] == "failed", command
        assert outcome["reason"] == "larger than the size limit (64 > 40 bytes)", command
        assert outcome["path"] == str(rows), command
        assert (
            "hint: the size limit is max_file_size in mixle.toml's [ingest]"
            in mixle(command, str(rows)).stderr
        )
        quiet = mixle(command, str(rows), "-q")
        assert quiet.exit_code == 1 and "larger than the size limit" in quiet.stderr, command
    monkeypatch.chdir(tmp_path)
    for command in ("ingest-docs", "ingest"):  # told as typed
        typed = mixle(command, "rows.jsonl", "--json").json()["files"][0]
        assert typed["source"] == "rows.jsonl", command
    assert mixle("ingest", str(tmp_path)).exit_code == 0  # a folder's walk skips it
    # a named file that grew past the limit fails, and its earlier items go as a skip's do
    note = tmp_path / "note.md"
    note.write_text("# Ports\n\nzebra\n")
    assert mixle("ingest", str(note)).exit_code == 0
    note.write_text("# Ports\n\n" + "zebra " * 20 + "\n")
    grown = mixle("ingest", str(note))
    assert grown.exit_code == 1 and "its 1 earlier item(s) removed" in grown.stderr
    assert mixle("search", "zebra", "--json").json()["results"] == []
    named = mixle("ingest-docs", str(rows), "--source", "runs", "--json").json()
    assert named["roots"] == [str(rows)] and named["files"][0]["source"] == "runs"
    piped = mixle("ingest-docs", "-", input='"a passage that runs past forty bytes of text"\n')
    assert "larger than the size limit (more than 40 bytes)" in piped.stderr
    assert "stdin: " in piped.stderr  # the stream, named as its items would be
    assert piped.exit_code == 1  # a stream is not read twice: nothing of it went in
    assert mixle("ls", "--json").json() == []
    assert mixle("ingest-docs", "-", input='"short"\n').exit_code == 0


def test_ingest_docs_leaves_out_a_line_with_a_byte_that_is_not_utf8_alone(
    mixle: Any, tmp_path: Path
) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_bytes(b'"first passage"\n{"text": "caf\xe9 menu"}\n"third passage"\n')
    result = mixle("ingest-docs", str(docs))
    assert result.exit_code == 1
    assert "docs.jsonl:2: invalid UTF-8 (byte 0xe9 at offset 13 of the line)" in result.stderr
    assert sorted(row["title"] for row in mixle("ls", "--json").json()) == [
        "first passage",
        "third passage",
    ]


def _ingested_then_moved(mixle: Any, tmp_path: Path, to: str, *words: str) -> Path:
    """A folder ``notes`` of one note per word (``a.md``: "alpha note", ...), ingested, then
    moved to ``to``: its old path."""
    notes = tmp_path / "notes"
    notes.mkdir()
    for word in words:
        (notes / f"{word[0]}.md").write_text(f"{word} note\n")
    mixle("ingest", str(notes))
    notes.rename(tmp_path / to)
    return notes


def test_a_folder_gone_from_a_folder_left_empty_is_not_promised_a_move(
    mixle, tmp_path: Path
) -> None:
    # a drive not mounted leaves its mount point empty: its files are never taken for moved,
    # and the hint that promised "its files take their place" sent the user to make copies
    drive = tmp_path / "drive"
    notes = drive / "notes"
    notes.mkdir(parents=True)
    (notes / "a.md").write_text("alpha note\n")
    mixle("ingest", str(notes))
    notes.rename(tmp_path / "elsewhere")  # (drive/ is left empty)
    gone = mixle("ingest", str(notes))
    assert "moved?" not in gone.stderr
    assert "what held it is empty, or a place drives are mounted on" in gone.stderr
    assert "ingest an empty folder at that path with --prune-empty" in gone.stderr


def test_a_folder_gone_says_it_may_have_moved_and_its_new_place_takes_its_items(
    mixle, tmp_path: Path
) -> None:
    notes = _ingested_then_moved(mixle, tmp_path, "archive", "alpha")
    gone = mixle("ingest", str(notes))
    assert "(moved? ingest it where it is now, and its files take their place;" in gone.stderr
    unpruned = mixle("ingest", str(notes), "--no-prune")  # a move is not looked for then
    assert "are kept (to remove them, ingest an empty folder" in unpruned.stderr
    both = mixle("ingest", str(notes), str(tmp_path / "archive"), "--json")
    moved = both.json()  # the new place, named in the same run, took the items along
    assert moved["files_moved"] == 1 and moved["items_removed"] == moved["items_added"] == 1
    [issue] = moved["issues"]
    assert issue["reason"] == "no such file or folder"  # nothing of it is kept now
    [item] = mixle("ls", "--json").json()
    assert item["source"] == "a.md" and "archive" in mixle("get", item["id"], "--json").stdout


@pytest.mark.parametrize(
    ("stop", "code", "word"), [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")]
)
def test_a_stop_while_the_kept_items_are_counted_is_told_as_such(
    mixle,
    notes: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop: str,
    code: int,
    word: str,
) -> None:
    import signal

    from mixle_cli.commands import ingest as ingest_command

    def stopped(*args: Any, **kwargs: Any) -> dict[str, str]:
        os.kill(os.getpid(), getattr(signal, stop))
        raise AssertionError("not stopped")

    monkeypatch.setattr(ingest_command, "_kept_from", stopped)
    result = mixle("ingest", str(tmp_path / "gone"), str(notes))
    assert result.exit_code == code
    assert result.stderr.splitlines()[-1] == (
        f"error: {word}; every input was ingested and saved before it"
    )


def test_a_folder_gone_says_its_items_are_kept_and_how_to_remove_them(
    mixle, tmp_path: Path
) -> None:
    # moved, or on a drive not mounted: nothing is removed for it
    notes = _ingested_then_moved(mixle, tmp_path, "moved", "alpha", "beta")
    gone = mixle("ingest", str(notes))
    assert gone.exit_code == 1 and len(mixle("ls", "--json").json()) == 2
    assert "the 2 item(s) ingested from it before are kept" in gone.stderr
    assert "ingest an empty folder at that path with --prune-empty" in gone.stderr
    notes.mkdir()
    emptied = mixle("ingest", str(notes), "--prune-empty", "--json")
    assert emptied.json()["items_removed"] == 2
    never = mixle("ingest", str(tmp_path / "never"))
    assert "no such file or folder\n" in never.stderr  # nothing was kept from it
    (notes / "c.md").write_text("gamma note\n")
    link = tmp_path / "link"
    link.symlink_to(notes)
    mixle("ingest", str(link))  # recorded where the link led
    shutil.rmtree(notes)
    dangling = mixle("ingest", str(link))
    assert "broken symlink; the 1 item(s) ingested from it before are kept" in dangling.stderr
    single = tmp_path / "single.md"
    single.write_text("# Single\n\nA note ingested on its own.\n")
    mixle("ingest", str(single))
    single.unlink()
    gone_file = mixle("ingest", str(single))
    assert "(moved? ingest it where it is now, and it takes their place;" in gone_file.stderr
    assert "to remove them, ingest the folder that held it)" in gone_file.stderr


def test_passages_rows_and_traces_are_cited_by_their_line(mixle, tmp_path: Path) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_text('"The ocelot hunts at night."\n\n{"text": "Kestrels hover over fields."}\n')
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        '{"name": "heron", "habitat": "wetlands"}\n{"name": "wren", "habitat": "hedges"}\n'
    )
    mixle("ingest-docs", str(docs))
    mixle("ingest-file", str(rows))
    for query, line in (("kestrels hover", 3), ("wren hedges", 2)):
        [hit, *_] = mixle("search", query, "--json").json()["results"]
        assert (hit["line_start"], hit["line_end"]) == (line, line), query
    assert f"{docs}:3" in mixle("ask", "What hovers over fields?").stdout
    spread = tmp_path / "spread.json"
    spread.write_text('[\n  {"name": "ibis",\n   "habitat": "marshes"},\n  {"name": "owl"}\n]\n')
    mixle("ingest-file", str(spread))
    [hit, *_] = mixle("search", "ibis marshes", "--json").json()["results"]
    assert (hit["line_start"], hit["line_end"]) == (2, 3)  # the value's lines, not its first


def test_an_edit_that_kept_size_and_mtime_is_found_by_ingest_and_freshness_rehash(
    mixle, notes: Path
) -> None:
    past = os.stat(notes).st_mtime - 86400
    for path in notes.rglob("*"):
        os.utime(path, (past, past))  # settled: size and time are trusted
    assert mixle("ingest", str(notes)).exit_code == 0
    restored = notes / "warehouse.txt"
    kept = restored.stat().st_mtime_ns
    restored.write_text(restored.read_text().swapcase())  # same size, old time put back
    os.utime(restored, ns=(kept, kept))
    assert mixle("freshness").exit_code == 0
    stale = mixle("freshness", "--rehash")
    assert stale.exit_code == 1 and "changed: content hash" in stale.stdout
    # written in place: ingest tells it by its change time (--rehash: for what no time shows)
    report = mixle("ingest", str(notes), "--json").json()
    assert (report["files_updated"], report["files_unchanged"]) == (1, 3)
    assert mixle("freshness", "--rehash").exit_code == 0


def test_rehash_is_refused_for_standard_input(mixle) -> None:
    result = mixle("ingest", "-", "--rehash", input="a note\n")
    assert result.exit_code == 2 and "standard input is always read" in result.stderr


def test_an_ingest_stopped_by_a_write_error_says_what_is_stored(
    mixle, notes: Path, monkeypatch: pytest.MonkeyPatch, isolated_shard_env: Path
) -> None:
    import errno

    import substrate.log as log_module

    kept = mixle("add", "kept").stdout.strip()

    def too_large(fd: int, data: bytes, offset: int) -> int:
        raise OSError(errno.EFBIG, "File too large")

    with monkeypatch.context() as patch:
        patch.setattr(log_module.os, "pwrite", too_large)
        result = mixle("ingest", str(notes))
    assert result.exit_code == 3 and "File too large" in result.stderr
    assert "nothing acknowledged before was lost; run the command again" in result.stderr
    assert [i.id for i in Substrate(isolated_shard_env).all()] == [kept]
    with monkeypatch.context() as patch:
        patch.setattr(log_module.os, "pwrite", too_large)
        as_json = mixle("ingest", str(notes), "--json")
    assert as_json.exit_code == 3 and as_json.json()["files_scanned"] == 4  # what was done
    done = as_json.json()  # and nothing told as stored that the lost batch held
    assert (done["files_added"], done["files_failed"], done["items_added"]) == (0, 4, 0)
    assert all(f["reason"].startswith("not saved: ") for f in done["files"])
    assert all(f["reason"].endswith("File too large") for f in done["files"])
    assert mixle("ingest", str(notes)).exit_code == 0  # the rerun finishes


def test_an_ingest_that_cannot_take_the_lock_tells_nothing_as_stored(
    mixle, notes: Path, isolated_shard_env: Path
) -> None:
    kept = mixle("add", "kept").stdout.strip()
    lock = isolated_shard_env / ".lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(isolated_shard_env / "nowhere")  # the lock file cannot be opened
    result = mixle("ingest", str(notes), "--json")
    assert result.exit_code == 3 and "cannot open lock file" in result.stderr
    assert [i.id for i in Substrate(isolated_shard_env).all()] == [kept]
    done = result.json()  # the batch was never written: no file is told as added
    assert (done["files_added"], done["files_failed"], done["items_added"]) == (0, 4, 0)
    assert all(f["reason"].startswith("not saved: ") for f in done["files"])


def test_ingest_file_names_the_formats_its_as_takes(mixle) -> None:
    # they differ from ingest --as (no rst, docs or traces): the help said only "Format"
    shown = " ".join(mixle("ingest-file", "--help").stdout.replace("│", " ").split())
    assert "one of csv, json, jsonl, markdown, md, ndjson, text, tsv, txt" in shown
    assert mixle("ingest-file", "x.rst", "--as", "rst").exit_code == 2


def test_a_locale_without_utf8_names_keeps_what_was_ingested(
    tmp_path: Path, mixle_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "ü.md").write_text("# Umlaut\n\nA note.\n", encoding="utf-8")
    (notes / "b.md").write_text("# B\n\nAnother.\n", encoding="utf-8")
    shard = str(tmp_path / "shard")
    assert mixle_process("--shard", shard, "ingest", str(notes)).returncode == 0
    # an ASCII file-system encoding: Python reads the name's UTF-8 bytes as lone surrogates
    env = {"PATH": os.environ["PATH"], "LC_ALL": "C", "PYTHONUTF8": "0"}
    done = mixle_process("--shard", shard, "ingest", str(notes), env=env)
    assert done.returncode == 1, done.stderr
    assert "locale's file-system encoding (ascii)" in done.stderr
    assert "0 removed" in done.stderr
    listed = mixle_process("--shard", shard, "ls", "--json")
    assert sorted(item["source"] for item in json.loads(listed.stdout)) == ["b.md", "ü.md"]
    fresh = mixle_process("--shard", shard, "freshness", env=env)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr


@pytest.mark.parametrize("given", ["folder", "stdin"])
@pytest.mark.parametrize(("stop", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_stop_while_another_writer_holds_the_shard_stops_and_stores_nothing(
    tmp_path: Path, mixle_bin: str, stop: str, code: int, given: str
) -> None:
    import signal
    import time

    with _held_by_another_writer(tmp_path) as (shard, notes):
        what = [str(notes)] if given == "folder" else ["-", "--source", "a.md"]
        with (notes / "a.md").open() as note:  # (standard input, read by "-" alone)
            run = subprocess.Popen(
                [mixle_bin, "--shard", str(shard), "ingest", *what, "--json"],
                stdin=note,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        assert run.stderr is not None
        deadline = time.monotonic() + 20
        while "waiting for another process" not in run.stderr.readline():
            assert time.monotonic() < deadline
        run.send_signal(getattr(signal, stop))  # one is enough
        out, err = run.communicate(timeout=20)
    assert run.returncode == code
    assert "0 added" in err and "nothing was changed" in err
    report = json.loads(out)  # nothing told as added that was not saved
    assert (report["files_added"], report["items_added"], report["ids"]) == (0, 0, [])
    assert Substrate(shard).search("Hello") == []


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc")
@pytest.mark.parametrize("quiet", [False, True])
def test_a_quiet_ingest_says_nothing_of_waiting_for_another_writer(
    tmp_path: Path, mixle_bin: str, quiet: bool, waits_for_a_lock: Callable[[int], bool]
) -> None:
    # a cron run overlapping another mailed the warning each time, and then did its work
    import time

    with _held_by_another_writer(tmp_path) as (shard, notes):
        run = subprocess.Popen(
            [mixle_bin, "--shard", str(shard), "ingest", str(notes), *(["-q"] if quiet else [])],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        while not waits_for_a_lock(run.pid):  # (it waits for the lock this process holds)
            assert time.monotonic() < deadline and run.poll() is None
            time.sleep(0.05)
    out, err = run.communicate(timeout=30)
    assert run.returncode == 0, err
    assert ("waiting for another process" in err) is not quiet


def test_files_read_again_for_other_options_are_told_why(mixle, notes: Path) -> None:
    assert mixle("ingest", str(notes)).exit_code == 0
    tagged = mixle("ingest", str(notes), "--tag", "work")
    assert tagged.exit_code == 0
    # (not "unchanged", beside a summary counting them updated)
    told = "note: 4 file(s) read again though their content is unchanged: their last ingest"
    assert told in tagged.stderr and "had other --tag" in tagged.stderr
    assert "read again" not in mixle("ingest", str(notes), "--tag", "work").stderr
    assert "read again" not in mixle("ingest", str(notes), "--tag", "other", "-q").stderr


def test_ingest_help_names_every_extension_it_reads(mixle) -> None:
    from substrate.ingest.detect import _EXTENSIONS

    shown = " ".join(mixle("ingest", "--help").stdout.split())
    assert all(f".{extension}" in shown for extension in _EXTENSIONS), shown
    formats = (Path(__file__).parents[2] / "docs" / "formats.md").read_text()
    assert all(f"`.{extension}`" in formats for extension in _EXTENSIONS)


def test_many_files_skipped_alike_are_counted_by_kind_on_one_line(mixle, tmp_path: Path) -> None:
    tree = tmp_path / "src"
    tree.mkdir()
    for i in range(12):
        (tree / f"m{i}.py").write_text("x = 1\n")
    (tree / "k.yaml").write_text("a: 1\n")
    (tree / "lib.so").write_bytes(b"\x7fELF" + b"\0" * 4000)
    (tree / "a.md").write_text("# A\n\nnote\n")
    result = mixle("ingest", str(tree), "--max-file-size", "1000")
    assert result.exit_code == 0
    lines = result.stderr.splitlines()
    # the .so is over the limit, but no limit keeps out what is never read
    assert (
        "skipped: 14 files: unsupported format (.py 12, .so 1, .yaml 1); "
        "--as-text '*.py' reads such files as plain text"
    ) in lines
    assert not any("m3.py" in line or "larger than" in line for line in lines)
    few = mixle("ingest", str(tree / "k.yaml"), str(tree / "m1.py"), "--as", "docs")
    assert few.exit_code == 0
    for i in range(12):  # a binary file's extension is not offered
        (tree / f"i{i}.png").write_bytes(b"\x89PNG" + bytes(64))
    pictures = mixle("--shard", str(tmp_path / "p"), "ingest", str(tree)).stderr
    assert "(.png 12, .py 12" in pictures and "--as-text '*.png'" not in pictures
    for i in range(12):
        (tree / f"i{i}.png").unlink()
    code = mixle("--shard", str(tmp_path / "code"), "ingest", str(tree), "--as-text", "*.py")
    assert code.exit_code == 0 and "skipped: 2 files" not in code.stderr
    assert "13 added" in code.stderr  # the .py files and the note; the rest named, skipped
    both = mixle("ingest", str(tree), "--as-text", "*.py", "--as", "docs")
    assert both.exit_code == 2 and "--as-text adds nothing" in both.stderr
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "x.py").write_text("x\n")
    assert "x.py: unsupported format" in mixle("ingest", str(tmp_path / "two")).stderr


def test_a_file_of_many_rejected_rows_names_the_first_twenty(mixle, tmp_path: Path) -> None:
    rows = ["a,b,c,d", *(",".join(map(str, range(31))) for _ in range(50)), "1,2,3,4"]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    shard = str(tmp_path / "shard")
    for run in ("first", "unchanged"):  # alike, whether the file was read or not
        result = mixle("--shard", shard, "ingest", str(tmp_path / "t.csv"))
        problems = [line for line in result.stderr.splitlines() if line.startswith("problem")]
        assert len(problems) == 21, run
        assert "t.csv:21: row has 31 fields" in problems[19] and "30 more line" in problems[20]
    listed = mixle("--shard", str(tmp_path / "s2"), "ingest", str(tmp_path / "t.csv"), "--json")
    assert len(listed.json()["issues"]) == 50


def test_files_skipped_alike_in_number_keep_a_key_in_their_names_masked(
    mixle, tmp_path: Path
) -> None:
    tree = tmp_path / "src"
    tree.mkdir()
    key = "AKIA2E0A8F3B244C9986"
    # a token whose last part alone reads as nothing: the name is masked whole
    jwt = (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    )
    for i in range(11):
        (tree / f"g{i}.{key}").write_text("x\n")
        (tree / f"t{i}.{jwt}").write_text("x\n")
        (tree / f"big{i}.md").write_text("a" * (3000 + i))
    result = mixle("ingest", str(tree), "--max-file-size", "2000")
    assert key not in result.stderr and key.lower() not in result.stderr
    assert jwt.rsplit(".", 1)[1] not in result.stderr
    assert (
        "skipped: 22 files: unsupported format (.[REDACTED:aws_access_key] 11, .[REDACTED:jwt] 11)"
        in result.stderr
    )
    # each file's size is its own: they are one reason still
    assert "skipped: 11 files: larger than the size limit (.md 11)" in result.stderr


def test_the_count_of_a_files_unnamed_problems_follows_its_named_ones(
    mixle, tmp_path: Path
) -> None:
    rows = ["a,b,c,d", *(",".join(map(str, range(31))) for _ in range(25)), "1,2,3,4"]
    for name in ("a.csv", "b.csv"):
        (tmp_path / name).write_text("\n".join(rows) + "\n")
    result = mixle("--shard", str(tmp_path / "shard"), "ingest", str(tmp_path))
    told = [line for line in result.stderr.splitlines() if line.startswith("problem")]
    files = [line.split(":")[1].strip() for line in told]
    assert files == ["a.csv"] * 21 + ["b.csv"] * 21  # each file's count right after its lines
    assert "5 more line" in told[20] and "5 more line" in told[41]


def test_a_wait_for_another_writer_given_up_exits_3_and_stores_nothing(
    tmp_path: Path, mixle_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    with _held_by_another_writer(tmp_path) as (shard, notes):
        add = mixle_process("--shard", str(shard), "--wait", "0.2", "add", "y")
        ingest = mixle_process("--shard", str(shard), "ingest", str(notes), env=_waiting(0.2))
    assert mixle_process("--wait", "inf", "ls").returncode == 2  # (a wait of no end is none)
    for done in (add, ingest):
        assert done.returncode == 3, done.stderr
        assert "still held by another process after 0.2 s" in done.stderr
        assert "give a longer --wait" in done.stderr
    assert Substrate(shard).search("Hello") == [] and len(Substrate(shard)) == 1


@contextmanager
def _held_by_another_writer(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A shard of one item and a folder of one note ("Hello."), while this process holds the
    shard's writer lock, as another writer would."""
    import fcntl

    shard, notes = tmp_path / "shard", tmp_path / "notes"
    with Substrate(shard) as store:
        store.add("text", "x")
        store.save()
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nHello.\n", encoding="utf-8")
    holder = os.open(shard / ".lock", os.O_RDWR)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        yield shard, notes
    finally:
        os.close(holder)


def _waiting(seconds: float) -> dict[str, str]:
    return {**os.environ, "MIXLE_WAIT": str(seconds)}


def test_many_notices_of_one_kind_are_told_by_name_a_few_then_counted(
    mixle, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for n in range(14):
        (notes / f"n{n}.md").write_text(f"# Note {n}\n\nThe number is {n}.\n")
    assert mixle("ingest", str(notes), "-q").exit_code == 0
    ids = [row["id"] for row in mixle("ls", "--jsonl").jsonl()]
    assert mixle("publish", *ids, "--to", "public").exit_code == 0
    moved = tmp_path / "archive"
    notes.rename(moved)  # each published copy is told it stays where it was published
    result = mixle("ingest", str(moved))
    assert result.stderr.count("published into public, stays there;") == 10
    assert "note: 4 more like it: item ID, published into public, stays there" in result.stderr
    told = mixle("ingest", str(moved), "--json").json()
    assert told["files_unchanged"] == 14  # (told once, when the files moved)


def test_a_log_filled_with_old_versions_is_said_worth_compacting(
    mixle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a file edited is written whole at each ingest: the log fills with copies of its items
    monkeypatch.setattr("mixle_cli.compaction.WORTH_COMPACTING", (0.25, 1_000))
    notes = tmp_path / "notes.md"

    def edited(version: int) -> None:
        sections = (f"## Part {n}\n\nPart {n} of the guide says step {n}.\n" for n in range(40))
        notes.write_text(f"# Guide v{version}\n\n" + "\n".join(sections))

    edited(1)
    first = mixle("ingest", str(notes))
    assert first.exit_code == 0 and "mixle compact" not in first.stderr
    edited(2)
    again = mixle("ingest", str(notes))
    assert "bytes are removed items and old versions: `mixle compact` reclaims them" in again.stderr
    assert "mixle compact" not in mixle("ingest", str(notes), "--json").stderr
    assert mixle("compact").exit_code == 0
    assert mixle("--as", "ops", "ingest", str(notes)).exit_code == 0
    edited(3)
    as_team = mixle("--as", "ops", "ingest", str(notes))  # (others' old versions: not a team's)
    assert "items: +40 -40" in as_team.stderr and "mixle compact" not in as_team.stderr


def test_a_shard_refused_in_a_shared_folder_is_not_told_to_run_again(
    mixle: Any, tmp_path: Path
) -> None:
    # "earlier batches are kept; run the command again to finish": nothing was, and it would
    # be refused again
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    note = tmp_path / "a.md"
    note.write_text("# A\n\ntext\n")
    result = mixle("--shard", str(shared), "ingest", str(note))
    assert result.exit_code == 3 and "may be written by anyone" in result.stderr
    assert "hint: nothing was saved" in result.stderr and "again" not in result.stderr
    assert list(shared.iterdir()) == []


def test_the_progress_line_separates_with_what_the_terminal_can_show(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a terminal in an ASCII locale showed "\xb7" between the figures
    import io
    import sys

    from mixle_cli.commands import ingest as ingest_command

    for encoding, dot in (("ascii", "-"), ("utf-8", "\u00b7"), ("latin-1", "\u00b7")):
        stream = io.TextIOWrapper(io.BytesIO(), encoding=encoding)
        monkeypatch.setattr(sys, "stderr", stream)
        assert ingest_command._middle_dot() == dot


def test_no_progress_is_drawn_over_standard_input_typed_at_the_terminal(
    tmp_path: Path, mixle_bin: str
) -> None:
    # `ingest -` at a terminal redrew its progress line over what the user was typing
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:  # (the child: the command, its input and output the terminal)
        os.execv(mixle_bin, [mixle_bin, "--shard", str(tmp_path / "shard"), "ingest", "-"])
    seen = b""

    def read_for(seconds: float) -> None:
        nonlocal seen
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    seen += os.read(fd, 4096)
                except OSError:
                    return

    try:
        os.write(fd, b"The VPN moved to vpn2.\n")
        read_for(2.5)
        assert b"ingesting" not in seen
        os.write(fd, b"\x04")
        read_for(15)
        assert b"1 added" in seen or b"+1" in seen, seen
    finally:
        os.close(fd)
        os.waitpid(pid, 0)
