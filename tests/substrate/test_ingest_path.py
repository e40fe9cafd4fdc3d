"""``ingest_path`` over a folder and ``ingest_text`` for streams: items, provenance, report."""

from __future__ import annotations

import json
import os
import random
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from substrate.errors import InvalidInputError, NotFoundError
from substrate.freshness import check_freshness, content_hash
from substrate.gate import admit
from substrate.ingest import IngestReport, ingest_path, ingest_text
from substrate.ingest.report import BINARY, IN_THE_CLOUD, LOCK_FILE, TOOL_COPY
from substrate.ingest.textio import content_digest
from substrate.item import SubstrateItem
from substrate.store import Substrate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"
SECRET = "AKIAZ7Q3M5X1R9T2K4LB"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    target = tmp_path / "notes"
    shutil.copytree(FIXTURES / "notes", target)
    return target


def _by_source(store: Substrate) -> dict[str, list[object]]:
    out: dict[str, list[object]] = {}
    for item in store.iter_items():
        out.setdefault(item.provenance["source"], []).append(item)
    return out


def test_folder_ingest_counts_and_formats(notes: Path) -> None:
    store = Substrate()
    report = ingest_path(store, notes)
    assert report.root == str(notes.resolve())
    assert report.files_scanned == 8
    assert report.files_added == 8 and report.files_failed == 0 and report.ok
    per_source = {k: len(v) for k, v in _by_source(store).items()}
    assert per_source == {
        "cities.tsv": 2,
        "facts.json": 3,
        "manual.rst": 4,
        "mixed.jsonl": 4,
        "people.csv": 2,
        "readme.txt": 2,
        "traces.jsonl": 3,
        "guides/install.md": 5,  # "# Uninstall", a heading alone, is one
    }
    assert report.items_added == len(store) == 25
    assert report.ids == [i.id for i in store.iter_items()]
    kinds = {i.provenance["source"]: i.kind for i in store.iter_items()}
    assert kinds["traces.jsonl"] == "trace" and kinds["people.csv"] == "record"
    assert report.bytes_read == sum(p.stat().st_size for p in notes.rglob("*") if p.is_file())


def test_provenance_of_a_markdown_section(notes: Path) -> None:
    store = Substrate()
    ingest_path(store, notes, scope="team", tags=["kb"])
    linux = next(i for i in store.iter_items() if i.provenance.get("section") == "Install > Linux")
    path = notes.resolve() / "guides" / "install.md"
    stat = path.stat()
    prov = linux.provenance
    assert prov["source"] == "guides/install.md"
    assert prov["path"] == str(path)
    assert (prov["line_start"], prov["line_end"], prov["chunk"], prov["index"]) == (13, 20, 0, 2)
    assert prov["format"] == "markdown"
    assert prov["content_hash"] == content_hash(str(path)) == content_digest(path.read_bytes())
    assert prov["size"] == stat.st_size and prov["mtime_ns"] == stat.st_mtime_ns
    assert prov["mtime"] == pytest.approx(stat.st_mtime)
    assert isinstance(prov["ingested_at"], float)
    assert linux.scope == "team"
    assert linux.tags == ["kb", "setup", "linux"]
    assert linux.payload["owner"] == "platform team"
    assert len(linux.id) == 16


def test_trace_rows_keep_row_and_line(notes: Path) -> None:
    store = Substrate()
    ingest_path(store, notes / "traces.jsonl")
    rows = [(i.provenance["row"], i.provenance["line"], i.text) for i in store.iter_items()]
    assert rows == [
        (0, 1, "2+2 => 4"),
        (2, 3, "capital of France => Paris"),
        (3, 4, '{"q": "route"} => router'),
    ]
    assert next(store.iter_items()).payload == {"input": "2+2", "answer": 4}


def test_single_file_source_is_its_name(notes: Path) -> None:
    store = Substrate()
    report = ingest_path(store, notes / "readme.txt")
    assert report.files_scanned == 1
    assert {i.provenance["source"] for i in store.iter_items()} == {"readme.txt"}


def test_artifact_registry_in_a_folder_walk(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    shutil.copytree(FIXTURES / "registry", registry)
    store = Substrate()
    report = ingest_path(store, registry)
    (item,) = store.all(kind="artifact")
    assert item.text == "router solve/v1 solve record"
    assert item.payload["ref"] == str(registry.resolve() / "router")
    assert item.provenance["source"] == "router/manifest.json"
    assert item.provenance["parent"] == "base-7"
    outcomes = {f.source: (f.status, f.reason) for f in report.files}
    assert outcomes["router/weights.bin"] == ("skipped", "unsupported format")
    assert outcomes["broken/manifest.json"][0] == "failed"
    assert outcomes["listy/manifest.json"][0] == "added"  # describes no artifact: JSON
    assert [i.text for i in store.all() if i.provenance["source"] == "listy/manifest.json"] == [
        "1",
        "2",
        "3",
    ]


def test_binary_file_and_size_cap_are_skipped_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "blob.txt").write_bytes(b"text\x00more")
    (tmp_path / "big.md").write_text("x" * 5000)
    (tmp_path / "small.md").write_text("small file\n")
    store = Substrate()
    report = ingest_path(store, tmp_path, max_file_size=4096)
    outcomes = {f.source: (f.status, f.reason) for f in report.files}
    assert outcomes["blob.txt"] == ("skipped", BINARY)
    assert outcomes["big.md"] == ("skipped", "larger than the size limit (5000 > 4096 bytes)")
    assert outcomes["small.md"] == ("added", "")
    assert report.files_skipped == 2
    assert [i.text for i in store.iter_items()] == ["small file"]


def test_forced_format_applies_to_every_file(tmp_path: Path) -> None:
    (tmp_path / "notes.log").write_text("# Not a heading in text\n\npara two\n")
    (tmp_path / "script.py").write_text("print('hi')\n")
    store = Substrate()
    report = ingest_path(store, tmp_path, as_format="md")
    assert report.files_added == 2
    assert {i.provenance["format"] for i in store.iter_items()} == {"markdown"}


def test_unknown_format_and_missing_path_are_errors(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError):
        ingest_path(Substrate(), tmp_path, as_format="docx")
    with pytest.raises(NotFoundError):
        ingest_path(Substrate(), tmp_path / "missing")
    with pytest.raises(InvalidInputError):
        ingest_path(Substrate(), tmp_path, chunk_chars=2)


def test_a_file_named_on_its_own_in_an_unknown_format_fails(tmp_path: Path) -> None:
    page = tmp_path / "page.xml"
    page.write_text("<a>words</a>\n")
    named = ingest_path(Substrate(), page)
    assert named.files_failed == 1 and not named.ok
    assert ingest_path(Substrate(), tmp_path).files_skipped == 1  # a folder passes over it
    assert ingest_path(Substrate(), page, as_format="text").items_added == 1
    image = tmp_path / "diagram.png"  # as a shell glob names it: skipped, not failed
    image.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert ingest_path(Substrate(), image).files_skipped == 1


def test_a_file_named_on_its_own_that_cannot_be_read_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.ingest import textio

    locked = tmp_path / "locked.xyz"
    locked.write_text("words\n")

    def denied(*_: object, **__: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(textio, "_open_regular", denied)  # tests run as root
    report = ingest_path(Substrate(), locked)
    assert report.files_failed == 1 and "Permission denied" in report.files[0].reason


def test_empty_chunks_are_dropped_and_counted(tmp_path: Path) -> None:
    (tmp_path / "docs.jsonl").write_text('{"text": "kept"}\n{"text": "   "}\n{"text": ""}\n')
    store = Substrate()
    report = ingest_path(store, tmp_path)
    assert [i.text for i in store.iter_items()] == ["kept"]
    assert report.items_dropped == 2


def test_secrets_are_redacted_and_counted(tmp_path: Path) -> None:
    (tmp_path / "creds.md").write_text(f"# Keys\n\nThe deploy key is {SECRET} for now.\n")
    store = Substrate()
    report = ingest_path(store, tmp_path)
    (item,) = store.all()
    assert SECRET not in item.text
    assert report.redactions >= 1 and sum(report.redaction_rules.values()) >= 1
    plain = Substrate()
    kept = ingest_path(plain, tmp_path, redact=False)
    assert SECRET in plain.all()[0].text
    assert kept.redactions == 0 and kept.unredacted_secrets == 1
    assert kept.as_dict()["unredacted_secrets"] == 1


def test_a_password_read_as_a_number_is_redacted_in_front_matter_and_json(
    tmp_path: Path,
) -> None:
    (tmp_path / "vpn.md").write_text("---\nvpn_password: 83920174\n---\n# VPN\n\nShared.\n")
    (tmp_path / "cfg.json").write_text('{"service": "db", "db_password": 9876543210123}\n')
    (tmp_path / "rows.toml.md").write_text("+++\nadmin_password = 55120983\n+++\n# Admin\n")
    store = Substrate()
    report = ingest_path(store, tmp_path)
    stored = json.dumps([i.to_json() for i in store.all()])
    assert not [n for n in ("83920174", "9876543210123", "55120983") if n in stored]
    assert report.redactions == 3 and report.redaction_rules == {"sensitive_assignment": 3}


@pytest.mark.parametrize("name,sep", [("settings.csv", ","), ("settings.tsv", "\t")])
def test_a_headerless_settings_file_stores_no_secret(tmp_path: Path, name: str, sep: str) -> None:
    secrets = ["Tr0ub4dor&3x!", "q8Zr2LmX9vB4nW7k"]
    (tmp_path / name).write_text(f"DB_PASSWORD{sep}{secrets[0]}\nAPI_TOKEN{sep}{secrets[1]}\n")
    store = Substrate()
    report = ingest_path(store, tmp_path)
    stored = json.dumps([i.to_json() for i in store.all()])
    assert not [s for s in secrets if s in stored] and report.redactions == 2


@pytest.mark.parametrize("header", ["password,region", "aws_secret_access_key,owner"])
def test_a_header_that_reads_as_a_setting_still_masks_its_column(
    tmp_path: Path, header: str
) -> None:
    # the first row reads as a secret setting; taken as one, the passwords became keys
    secrets = ["Qz7Lm2Xp9Rv4Tw6Yb8Nc3Kd5", "sunshine", "correct-horse-battery-staple"]
    rows = "".join(f"{secret},us-east-{n}\n" for n, secret in enumerate(secrets))
    (tmp_path / "db.csv").write_text(f"{header}\n{rows}")
    store = Substrate()
    report = ingest_path(store, tmp_path)
    stored = json.dumps([i.to_json() for i in store.all()])
    assert not [s for s in secrets if s in stored] and "us-east-2" in stored
    assert report.redactions == 4  # the first row's value, read as a setting, and 3 keys


def test_a_settings_list_keeps_the_names_of_its_settings(tmp_path: Path) -> None:
    rows = "SECRET_KEY,9f8a7b6c5d4e3f2a1b0c\nDEBUG,false\nS3_BUCKET,static\nMax connections,5\n"
    (tmp_path / "settings.csv").write_text(rows + "Zq7Lm2Xp9Rv4,odd\n")
    store = Substrate()
    ingest_path(store, tmp_path)
    texts = [i.text for i in store.all()]
    assert texts[1:4] == ["DEBUG false", "S3_BUCKET static", "Max connections 5"]
    assert "9f8a7b6c" not in texts[0] and "Zq7Lm2Xp9Rv4" not in texts[4]  # no name: masked


def _stored(store: Substrate) -> list[tuple[object, ...]]:
    """What ``store`` holds, for two ingests of the same files to be compared."""
    return sorted(
        (i.id, i.text, i.tags, i.payload, {**i.provenance, "ingested_at": 0})
        for i in store.iter_items()
    )


def test_files_screened_whole_store_exactly_what_the_gate_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import substrate.ingest.prepare as prepare

    token = "ghp_Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1"
    files = {
        "plain.md": "# Guide\n\nNothing to hide here.\n\n## Use\n\nRun it twice.\n",
        "deploy.md": f"# Guide\n\nNothing here.\n\n## Deploy\n\nuse {token} today\n",
        "title.md": f"# Setup {token}\n\nbody text\n",
        "nested.md": "# curl -u\n\n## alice:Vx9q7Rk2Lp4Tb8Hc\n\ntext\n",
        "front.md": "---\npassword: Vx9q7Rk2Lp4Tb8Hc3Md\n---\n# Notes\n\nbody\n",
        "keys/notes.md": "# Notes\n\nplain words\n",
        "long.txt": "word " * 2000 + f"\n\npassword = {token}\n",
        "doc.rst": f"Title\n=====\n\nplain\n\nOther\n-----\n\nsecret: {token}\n",
        "drawer.md": "# Home\n\nThe key is in the drawer.\n",
        # more sections than the screen looks for one by one in the text
        "many.md": "".join(f"# Part {i}\n\nplain words {i}\n\n" for i in range(80)),
        "many-nested.md": "# curl -u\n\n## alice:Vx9q7Rk2Lp4Tb8Hc\n\ntext\n"
        + "".join(f"# Part {i}\n\nplain words {i}\n\n" for i in range(80)),
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    screens: list[prepare.FileScreen] = []
    passed: list[tuple[bool, bool]] = []  # (whole text clean, item passed) per plain item
    screen_file, passes = prepare.screen_file, prepare.FileScreen.passes

    def recorded(*args: Any) -> prepare.FileScreen:
        screens.append(screen_file(*args))
        return screens[-1]

    def recorded_pass(screen: prepare.FileScreen, position: int, seg: Any) -> bool:
        result = passes(screen, position, seg)
        passed.append((screen.text, result))
        return result

    monkeypatch.setattr(prepare, "screen_file", recorded)
    monkeypatch.setattr(prepare.FileScreen, "passes", recorded_pass)
    fast = Substrate()
    fast_report = ingest_path(fast, tmp_path, chunk_chars=4000)
    monkeypatch.setattr(prepare, "screen_file", lambda *args: prepare.FileScreen())
    gated = Substrate()
    gated_report = ingest_path(gated, tmp_path, chunk_chars=4000)
    assert _stored(fast) == _stored(gated)
    assert fast_report.redactions == gated_report.redactions > 0
    assert token not in str(_stored(fast))
    # names clean: all but the token in a title (keywords without a finding, such as "keys/"
    # or "-u " made by joining headings, do not count); texts clean: plain, keys/notes, nested
    # and the two with many sections
    assert sum(s.names for s in screens) == len(files) - 1 and sum(s.text for s in screens) == 5
    # items of files holding a keyword pass when their own text gives no finding
    assert (False, True) in passed and (False, False) in passed


def test_records_screened_together_store_exactly_what_the_gate_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import substrate.ingest.prepare as prepare

    token = "ghp_Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1"
    plain = "".join(f"{i},user{i},Oslo,fine words {i}\n" for i in range(150))
    files = {
        "people.csv": "id,name,city,note\n" + plain,
        "leaky.csv": "id,name,city,note\n" + plain + f"151,eve,Rome,uses {token}\n",
        "split.csv": "id,name,city,note\n" + plain + "152,joe,Bonn,api\n153,ann,Graz,key\n",
        "keyed.csv": "user,password,note\nal,Vx9q7Rk2Lp4Tb8Hc,first\nbo,hunter2x,second\n",
        "entries.csv": "name,value\nDB_PASSWORD,Vx9q7Rk2Lp4Tb8Hc\nREGION,eu-west-1\n",
        "login.csv": "user,pwd\nal,Qm4Zt8Wn2Xr6Kp9Y\n",  # a key naming a secret, no keyword
        "settings.csv": "name,value\npwd,Lk3Jh7Gf5Ds9Qa2W\nregion,eu-west-1\n",  # by its name
        "kinds.jsonl": '{"kind": "Secret", "data": {"pw": "aHVudGVyMg=="}}\n'
        + '{"kind": "Secret", "data": "aHVudGVyMg=="}\n{"kind": "note", "text": "plain"}\n',
        "rows.jsonl": "".join(f'{{"n": {i}, "text": "row {i}"}}\n' for i in range(100))
        + f'{{"n": 100, "text": "token {token}"}}\n{{"pin": 83920174, "text": "x"}}\n',
        "table.tsv": "a\tb\n" + "".join(f"x{i}\ty{i}\n" for i in range(70)),
        f"{token}.csv": "a,b\nplain,words\n",  # the name holds a secret: no row is screened
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    screened: list[int] = []
    screen_file = prepare.screen_file

    def recorded(*args: Any) -> prepare.FileScreen:
        screen = screen_file(*args)
        screened.append(sum(screen.rows))
        return screen

    monkeypatch.setattr(prepare, "screen_file", recorded)
    fast = Substrate()
    fast_report = ingest_path(fast, tmp_path)
    monkeypatch.setattr(prepare, "screen_file", lambda *args: prepare.FileScreen())
    gated = Substrate()
    gated_report = ingest_path(gated, tmp_path)
    assert _stored(fast) == _stored(gated)
    assert fast_report.redactions == gated_report.redactions >= 5
    for secret in (token, "Vx9q7Rk2Lp4Tb8Hc", "Qm4Zt8Wn2Xr6Kp9Y", "Lk3Jh7Gf5Ds9Qa2W"):
        assert secret not in str(_stored(fast))
    # most plain rows pass screened, by whole batches; none of the keyed or named files' do
    assert sum(screened) >= 400 and screened.count(0) >= 3


def test_the_collector_is_paused_during_a_run_and_restored_after(notes: Path) -> None:
    import gc

    seen: list[bool] = []
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            ingest_path(Substrate(), notes, progress=lambda *_: seen.append(gc.isenabled()))
            assert gc.isenabled() is enabled
        finally:
            gc.enable()
    assert seen and not any(seen)


def test_progress_is_reported_and_ends_at_the_total(notes: Path) -> None:
    calls: list[tuple[int, int, int, int]] = []
    report = ingest_path(Substrate(), notes, progress=lambda *a: calls.append(a))
    assert calls, "progress was never called"
    assert calls[-1] == (8, 8, report.items_added, report.bytes_read)
    done = [c[0] for c in calls]
    assert done == sorted(done)


def test_reading_starts_while_the_walk_goes_on_and_the_total_grows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.ingest import parallel, session

    for folder in ("a", "b", "c"):
        (tmp_path / folder).mkdir()
        for i in range(2):
            (tmp_path / folder / f"{i}.md").write_text(f"# {folder}{i}\n\nBody.\n")
    found_when_read: list[int] = []
    real_prepare = session.prepare_many

    def prepare_many(tickets: Any, *args: Any, **options: Any) -> Any:
        found_when_read.append(report.files_scanned)
        return real_prepare(tickets, *args, **options)

    monkeypatch.setattr(session, "prepare_many", prepare_many)
    monkeypatch.setattr(parallel, "CHUNK_FILES", 1)  # (else the first 64 files are planned)
    monkeypatch.setattr(session, "PROGRESS_INTERVAL_S", 0.0)
    calls: list[tuple[int, int, int, int]] = []
    report = IngestReport()
    ingest_path(Substrate(), tmp_path, jobs=1, report=report, progress=lambda *a: calls.append(a))
    assert found_when_read[0] < 6  # the first file is read before the walk has found them all
    assert found_when_read == sorted(found_when_read)
    totals = [total for _, total, _, _ in calls]
    assert totals == sorted(totals) and totals[0] < 6 and totals[-1] == 6
    assert report.files_added == 6


def test_an_interrupted_run_still_reports_what_the_walk_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.ingest import parallel, session

    root = tmp_path / "tree"
    (root / "a").mkdir(parents=True)
    for i in range(3):
        (root / "a" / f"{i}.md").write_text(f"# {i}\n\nBody.\n")
    os.mkfifo(root / "a" / "pipe")  # passed over when its folder is listed
    (root / "out").symlink_to(tmp_path)  # passed over when the links are followed, at the end
    real_prepare = session.prepare_many

    def prepare_many(tickets: Any, *args: Any, **options: Any) -> Any:
        if any(ticket.source == "a/2.md" for ticket in tickets):
            raise KeyboardInterrupt
        return real_prepare(tickets, *args, **options)

    monkeypatch.setattr(session, "prepare_many", prepare_many)
    monkeypatch.setattr(parallel, "CHUNK_FILES", 1)  # a file at a time: two are done first
    report = IngestReport()
    with pytest.raises(KeyboardInterrupt):  # the walk has ended: a few files are planned first
        ingest_path(Substrate(tmp_path / "shard"), root, report=report)
    assert report.interrupted
    assert [(f.source, f.status) for f in report.files] == [
        ("a/pipe", "skipped"),
        ("a/0.md", "added"),
        ("a/1.md", "added"),
        ("out", "skipped"),
    ]


def test_a_run_cancelled_during_the_walk_prunes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.ingest import session

    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        for i in range(3):
            page = tmp_path / folder / f"{i}.md"
            page.write_text(f"# {folder}{i}\n\nBody.\n")
            os.utime(page, (1e9, 1e9))  # long settled: the next run plans it without reading
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path)
    cancel = threading.Event()
    real_plan = session.IngestSession.plan

    def plan(self: Any, entry: Any, *args: Any, **kwargs: Any) -> Any:
        cancel.set()  # while the first folder is planned: the second is never walked
        return real_plan(self, entry, *args, **kwargs)

    monkeypatch.setattr(session.IngestSession, "plan", plan)
    report = ingest_path(store, tmp_path, cancel=cancel)
    assert report.cancelled and report.items_removed == 0
    assert report.unchanged == ["a/0.md", "a/1.md", "a/2.md"]
    assert len(Substrate(tmp_path / "shard")) == 6


def test_cancel_event_stops_after_the_current_file(
    notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cancel = threading.Event()
    store = Substrate()

    def progress(done: int, total: int, items: int, nbytes: int) -> None:
        if done == 2:
            cancel.set()

    # report every file, so that the test can cancel after exactly two
    monkeypatch.setattr("substrate.ingest.session.PROGRESS_INTERVAL_S", 0.0)
    report = ingest_path(store, notes, progress=progress, cancel=cancel)
    assert report.cancelled and not report.ok
    assert report.files_added == 2
    assert len({i.provenance["source"] for i in store.iter_items()}) == 2


def test_report_as_dict_is_json_ready(notes: Path) -> None:
    import json

    (notes / "bad.jsonl").write_text('{"ok": 1}\n{oops\n')
    report = ingest_path(Substrate(), notes)
    data = report.as_dict()
    json.dumps(data)
    assert data["files_scanned"] == 9 and data["files_added"] == 9
    assert data["issues"] == [
        {
            "source": "bad.jsonl",
            "line": 2,
            "byte": None,
            "reason": data["issues"][0]["reason"],
            "fatal": False,
            "path": str(notes / "bad.jsonl"),
        }
    ]
    assert {f["source"] for f in data["files"]} >= {"bad.jsonl", "guides/install.md"}
    assert "files" not in report.as_dict(files=False)


def test_a_stream_is_no_artifact() -> None:
    # an artifact is referenced by its folder: a stream's would be the working directory
    store = Substrate()
    with pytest.raises(InvalidInputError, match="a stream has none"):
        ingest_text(store, '{"kind": "model"}', as_format="artifact")
    assert len(store) == 0


def test_ingest_text_replaces_the_items_of_the_same_stream() -> None:
    store = Substrate()
    first = ingest_text(store, "alpha para\n\nbeta para\n", source="clip")
    assert first.files_added == 1 and first.items_added == 2
    ids = [i.id for i in store.iter_items()]
    item = store.get(ids[0])
    assert item is not None and item.provenance["source"] == "clip"
    assert item.provenance["path"] is None
    assert item.provenance["content_hash"] == content_digest(b"alpha para\n\nbeta para\n")
    again = ingest_text(store, "alpha para\n\nbeta para\n", source="clip")
    assert again.files_unchanged == 1 and again.items_added == 0
    changed = ingest_text(store, "alpha para\n\ngamma para\n", source="clip")
    assert changed.files_updated == 1
    assert [i.text for i in store.iter_items()] == ["alpha para", "gamma para"]
    assert store.all()[0].id == ids[0]  # the unchanged paragraph kept its id
    other = ingest_text(store, b'{"a": 1}\n', source="other", as_format="jsonl")
    assert other.items_added == 1 and len(store) == 3


def test_a_stream_past_the_size_limit_fails_and_keeps_what_it_gave_before(tmp_path: Path) -> None:
    # a file too large is skipped: it is still on disk; a stream cut short is gone
    store = Substrate(tmp_path)
    ingest_text(store, "a small note\n", source="notes")
    grown = ingest_text(store, "a note grown " * 20, source="notes", max_file_size=100)
    [outcome] = grown.files
    assert outcome.status == "failed" and "larger than the size limit (260 > 100" in outcome.reason
    assert not grown.ok and len(Substrate(tmp_path)) == 1
    fresh = ingest_text(store, "x" * 200, source="big", max_file_size=100)
    assert fresh.files_failed == 1 and len(Substrate(tmp_path)) == 1


def test_ingest_text_on_a_shard_saves_once(tmp_path: Path) -> None:
    store = Substrate(tmp_path / "shard")
    ingest_text(store, "# T\n\nbody\n", source="stdin", as_format="markdown")
    reopened = Substrate(tmp_path / "shard")
    assert [i.provenance["section"] for i in reopened.iter_items()] == ["T"]
    assert isinstance(IngestReport().as_dict(), dict)


def test_freshness_sees_ingested_files_change(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("# Doc\n\nOriginal text.\n")
    store = Substrate()
    ingest_path(store, tmp_path)
    (item,) = store.all()
    assert check_freshness(store, item.id).fresh
    doc.write_text("# Doc\n\nEdited text, longer than before.\n")
    signals = check_freshness(store, item.id).signals
    assert any(s.startswith("changed:") for s in signals)


def test_a_large_ingest_leaves_nothing_for_the_next_open_to_fold(tmp_path: Path) -> None:
    tree = tmp_path / "many"
    tree.mkdir()
    for i in range(300):
        (tree / f"n{i}.txt").write_text(f"note number {i}\n")
    report = ingest_path(Substrate(tmp_path / "shard"), tree)
    assert report.items_added == 300
    assert not Substrate(tmp_path / "shard")._fresh_view().tail


def test_a_scope_with_control_characters_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nalpha\n")
    for scope in ("a\x00b", "team\n"):
        with pytest.raises(InvalidInputError, match="control characters"):
            ingest_path(Substrate(), tmp_path, scope=scope)
        with pytest.raises(InvalidInputError, match="control characters"):
            admit(SubstrateItem("text", "x", scope=scope))


def test_a_scope_that_looks_like_a_secret_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    token = "ghp_" + "Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2Ke7"
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# A\n\nalpha\n")
    for ingest in (
        lambda store: ingest_path(store, tmp_path / "notes", scope=token),
        lambda store: ingest_text(store, "piped", scope=token),
    ):
        with pytest.raises(InvalidInputError, match="scope looks like a secret"):
            ingest(Substrate(tmp_path / "shard"))
    leftovers = [p for p in (tmp_path / "shard").rglob("*") if p.is_file()]
    assert not any(token in p.read_text(errors="replace") for p in leftovers)


def test_a_record_whose_password_column_is_masked_does_not_keep_it_in_its_text(
    tmp_path: Path,
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "users.csv").write_text(
        "user,password,api_key\nbob,Zx9#qLm2Wp,k8Jd72hHs92kLm4Qz1\n"
    )
    (tmp_path / "src" / "u.jsonl").write_text('{"user": "eve", "password": "Qw3rty#9Lk"}\n')
    report = ingest_path(Substrate(tmp_path / "shard"), tmp_path / "src")
    assert report.redactions == 3
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    for secret in ("Zx9#qLm2Wp", "k8Jd72hHs92kLm4Qz1", "Qw3rty#9Lk"):
        assert secret not in stored
    texts = sorted(item.text for item in Substrate(tmp_path / "shard").iter_items())
    mask = "[REDACTED:sensitive_assignment]"
    assert texts == [f"bob {mask} {mask}", f"eve {mask}"]


def test_the_counts_of_a_run_add_up_to_the_files_scanned(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.md").write_text("# A\n\ntext\n")
    (tree / "bin.md").write_bytes(b"\x00\x01")
    (tree / "out").symlink_to(tmp_path)  # leads out of the root
    (tree / "loop").symlink_to(tree / "loop")
    os.mkfifo(tree / "fifo")
    report = ingest_path(Substrate(tmp_path / "shard"), tree).as_dict()
    parts = ("added", "updated", "unchanged", "skipped", "failed")
    # links and the fifo were reported skipped, not counted as scanned
    assert report["files_scanned"] == sum(report[f"files_{p}"] for p in parts) == 5


def test_one_screen_of_names_and_text_gives_what_a_screen_of_each_gives() -> None:
    import itertools

    from substrate.ingest import prepare
    from substrate.ingest.formats import PARSERS, ParseContext
    from substrate.secrets.paths import find_secrets_in_path
    from substrate.secrets.screen import may_hold_secrets, slices_may_hold_secrets

    def apart(names: list[str], text: str) -> prepare.FileScreen:
        """The screen of the names, then of the text, each on its own."""
        if may_hold_secrets(names) and any(find_secrets_in_path(name) for name in names):
            return prepare.FileScreen()
        return prepare.FileScreen(names=True, text=not slices_may_hold_secrets(text))

    discord = "MTk4NjIyNDgzNDcxOTI1MjQ4.Gh7Kq2.Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2Ke"
    texts = [
        "# chdir\n\nChange the folder.\n",
        "# keytool\n\nManage a key store.\n",  # a keyword and no finding
        f"# Setup\n\nuse {SECRET} today\n",
        f"# {discord}\n\nbody\n",  # a heading that is a token
        "# Drawer\n\n" + "words " * 800,  # long: screened on its own
    ]
    paths = [
        ("notes/chdir.md", "/data/notes/chdir.md"),  # the source ends the path
        ("keys/notes.md", "/srv/keys/notes.md"),
        (f"bots/{discord}.md", f"/srv/bots/{discord}.md"),  # a file name's stem
        (f"a-{SECRET}.md", f"/x/a-{SECRET}.md"),
        ("stream", ""),
        # a path longer than a token, of short names (the joined screen answers for it)
        ("pages.bg/common/tar.md", "/tmp/mixle-bench-ingest-k3j4h5g6/tldr/pages.bg/common/tar.md"),
        (f"{discord}/notes.md", f"/home/someone/{discord}/notes.md"),  # a folder that is one
    ]
    options = prepare.IngestOptions()
    for text, (source, path) in itertools.product(texts, paths):
        parsed = PARSERS["markdown"](text, ParseContext(4000, path, source, True))
        ticket = prepare.Ticket(path or "stream:x", source, path or None, "markdown")
        sections = [s.section for s in parsed.segments if s.section]
        assert prepare.screen_file(text, parsed, ticket, options) == apart(
            [source, path, *sections], text
        ), (text[:20], source)
    # random names and texts: keywords cut at folder ends, names the text or path holds
    rng = random.Random(11)
    words = ["notes", "pass", "word", "key", "api_key", "token", "Desktop", "sk", "pw", "=", "/"]
    words += ["hunter2xyzQ", SECRET, discord, "secret", "-u", "x" * 11, "'", "é", "İ", "docker"]

    def some(n: int) -> str:
        return "".join(rng.choice(words) + rng.choice(["", " ", "-", "/"]) for _ in range(n))

    for _ in range(300):
        path = "/" + some(rng.randrange(1, 5)) + "/" + (some(rng.randrange(0, 3)) or "f") + ".md"
        source = path[rng.randrange(len(path)) :] if rng.random() < 0.7 else some(2)
        heads = [rng.choice([source, some(3)]) for _ in range(rng.randrange(3))]
        text = "".join(f"# {h}\n\n{some(rng.randrange(6))}\n\n" for h in heads) or some(5)
        parsed = PARSERS["markdown"](text, ParseContext(4000, path, source, True))
        ticket = prepare.Ticket(path, source, path, "markdown")
        sections = [s.section for s in parsed.segments if s.section]
        assert prepare.screen_file(text, parsed, ticket, options) == apart(
            [source, path, *sections], text
        ), (text, path, source)


@pytest.mark.parametrize("on_disk", [False, True])
def test_items_count_the_lines_the_parser_and_the_gate_rejected(
    tmp_path: Path, on_disk: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.ingest import build

    real = build.admit

    def refusing(item: SubstrateItem, **options: Any) -> Any:
        if "refuse me" in item.text:  # what the gate cannot check (the parsers keep most out)
            raise InvalidInputError("cannot be checked")
        return real(item, **options)

    monkeypatch.setattr(build, "admit", refusing)
    rows = ['{"text": "first row"}', "{broken", '{"text": "refuse me"}', '{"text": "last"}']
    (tmp_path / "rows.jsonl").write_text("\n".join(rows) + "\n")
    store = Substrate(tmp_path / "shard") if on_disk else Substrate()
    report = ingest_path(store, tmp_path / "rows.jsonl", jobs=1)
    assert [issue.line for issue in report.issues] == [2, 3]
    assert [item.provenance["rejected_lines"] for item in store.all()] == [2, 2]


def test_a_file_read_while_the_run_is_cancelled_is_kept(
    notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a SIGTERM during a long file waited for it, then stored nothing of it
    from substrate.ingest import session

    cancel = threading.Event()
    real = session.prepare_many

    def stopped_meanwhile(*args: Any, **kw: Any) -> Any:
        done = real(*args, **kw)
        cancel.set()
        return done

    monkeypatch.setattr(session, "prepare_many", stopped_meanwhile)
    store = Substrate()
    report = ingest_path(store, notes / "readme.txt", cancel=cancel)
    assert report.files_added == 1 and report.files_not_reached == 0
    assert {i.provenance["source"] for i in store.iter_items()} == {"readme.txt"}
    # and, the one file named being all there was to do, the run is not told to be run
    # again (`mixle ingest` said "run the command again to finish")
    assert not report.cancelled


def test_a_file_icloud_keeps_online_keeps_its_items(tmp_path: Path) -> None:
    # iCloud Drive evicts a file by putting ".NAME.icloud" in its place: its items were
    # removed as a deleted file's, and its questions went unanswered
    from substrate.freshness import freshness_report

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Roadmap 2024.md").write_text("# Roadmap\n\nWe ship in May.\n")
    (vault / "Other.md").write_text("# Other\n\nSomething else.\n")
    store = Substrate(tmp_path / "shard")
    ingest_path(store, vault)
    (vault / "Roadmap 2024.md").rename(vault / ".Roadmap 2024.md.icloud")
    report = ingest_path(store, vault)
    assert report.items_removed == 0 and len(Substrate(tmp_path / "shard")) == 2
    assert {o.source: o.reason for o in report.files if o.status == "skipped"} == {
        "Roadmap 2024.md": IN_THE_CLOUD
    }
    assert freshness_report(Substrate(tmp_path / "shard"))["stale"] == []  # (none can tell)
    (vault / ".Roadmap 2024.md.icloud").unlink()  # deleted for good: its items go
    assert ingest_path(store, vault).items_removed == 1


def test_a_package_manager_s_lock_file_is_passed_over_unless_named(tmp_path: Path) -> None:
    # megabytes of pinned versions in one record, quoted (slowly) by answers about packages
    web = tmp_path / "web"
    web.mkdir()
    (web / "package.json").write_text('{"name": "web", "description": "the shop front"}')
    lock = '{"name": "web", "packages": {"node_modules/left-pad": {"version": "1.3.0"}}}'
    for name in ("package-lock.json", "npm-shrinkwrap.json", "packages.lock.json"):
        (web / name).write_text(lock)
    store = Substrate()
    report = ingest_path(store, web)
    assert [item.provenance["source"] for item in store.iter_items()] == ["package.json"]
    skipped = {o.source: o.reason for o in report.files if o.status == "skipped"}
    assert skipped == dict.fromkeys(
        ["npm-shrinkwrap.json", "package-lock.json", "packages.lock.json"], LOCK_FILE
    )
    assert ingest_path(store, web / "package-lock.json").items_added == 1  # named: read


def test_copies_a_sync_or_merge_tool_left_are_passed_over_and_told(tmp_path: Path) -> None:
    # each answered beside the note, and as often in its place ("deploy (conflicted copy)")
    notes = tmp_path / "notes"
    (notes / "logseq" / "bak").mkdir(parents=True)
    note = "# Deploy\n\nThe deploy window is {}.\n"
    (notes / "deploy.md").write_text(note.format("Tuesday"))
    copies = [
        "deploy (conflicted copy 2026-12-07).md",
        "deploy (Ann's conflicted copy 2026-12-07).md",
        "deploy.sync-conflict-20261207-123456-ABCDEFG.md",
        "deploy_REMOTE_12345.md",
        "logseq/bak/deploy.md",
    ]
    for name in copies:
        (notes / name).write_text(note.format("Monday"))
    store = Substrate()
    report = ingest_path(store, notes)
    assert [item.text for item in store.iter_items()] == [
        "# Deploy\n\nThe deploy window is Tuesday."
    ]
    skipped = {o.source: o.reason for o in report.files if o.status == "skipped"}
    assert skipped == dict.fromkeys(copies, TOOL_COPY)
    # named, one is read; walked again, its items go as an ignored file's do
    ingest_path(store, notes / copies[0])
    assert len(store) == 2
    assert ingest_path(store, notes).items_removed == 1 and len(store) == 1
