"""Ingesting with worker processes gives exactly what ingesting in one process gives."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from substrate.ingest import ingest_path, parallel
from substrate.ingest.report import IngestReport
from substrate.store import Substrate

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="worker processes need fork")

TOKEN = "ghp_" + "Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2Ke"
# worker chunks are small in these tests so that a handful of files spans several of them
CHUNK = 3


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "CHUNK_FILES", CHUNK)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "docs").mkdir(parents=True)
    for i in range(20):
        (root / "docs" / f"page{i:02}.md").write_text(
            f"# Page {i}\n\nBody of page {i}.\n\n## Details\n\nMore about {i}.\n"
        )
    (root / "secret.md").write_text(f"# Access\n\ntoken = {TOKEN}\n")
    (root / "rows.jsonl").write_text('{"text": "one"}\nnot json\n{"text": "  "}\n')
    (root / "broken.txt").write_bytes(b"fine line\n\xff\xfe bad bytes\n")
    (root / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (root / "empty.md").write_text("   \n")
    # older than the runs: no hash of secret.md (which holds a secret) is kept, so only a
    # trusted modification time finds it unchanged
    for path in root.rglob("*"):
        os.utime(path, ns=(1_600_000_000_000_000_000,) * 2)
    return root


@pytest.fixture
def forked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pids of the worker processes forked during the test (``os.fork`` notes them)."""
    pids: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return pids


def reaped(pids: list[int]) -> bool:
    """Whether workers were forked, and each has ended and been waited for."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # no such child any more: it was waited for
            continue
        return False
    return bool(pids)


def _stored(shard: Path) -> list[tuple[Any, ...]]:
    timeless = {"ingested_at", "mtime"}
    return sorted(
        (
            item.id,
            item.kind,
            item.text,
            sorted((k, v) for k, v in item.provenance.items() if k not in timeless),
            item.payload,
        )
        for item in Substrate(shard).iter_items()
    )


def _summary(report: IngestReport) -> dict[str, Any]:
    out = report.as_dict()
    out.pop("elapsed_s")
    out.pop("root")
    return out


def assert_as_one_process(tree: Path, tmp_path: Path) -> None:
    """An ingest of ``tree`` with two workers stores and reports what one process does."""
    report = ingest_path(Substrate(tmp_path / "shard"), tree, jobs=2)
    serial = ingest_path(Substrate(tmp_path / "one"), tree, jobs=1)
    assert _stored(tmp_path / "shard") == _stored(tmp_path / "one")
    assert _summary(report) == _summary(serial)


def test_workers_store_and_report_exactly_what_one_process_does(tree: Path, tmp_path: Path) -> None:
    serial = ingest_path(Substrate(tmp_path / "one"), tree, jobs=1)
    workers = ingest_path(Substrate(tmp_path / "two"), tree, jobs=2)
    assert _stored(tmp_path / "one") == _stored(tmp_path / "two")
    in_order = [[i.id for i in Substrate(tmp_path / n).iter_items()] for n in ("one", "two")]
    assert in_order[0] == in_order[1]  # the log holds the files in the same order
    assert _summary(serial) == _summary(workers)
    assert workers.redactions == 1 and workers.items_dropped == 1
    assert workers.files_failed == 1 and workers.files_skipped == 2
    assert [i.location() for i in workers.issues] == ["broken.txt:2", "rows.jsonl:2"]
    assert TOKEN not in (tmp_path / "two" / "items.jsonl").read_text()


def test_reingest_with_workers_after_edits(tree: Path, tmp_path: Path) -> None:
    shard = tmp_path / "shard"
    ingest_path(Substrate(shard), tree, jobs=2)
    created = {i.id: i.created_at for i in Substrate(shard).iter_items()}
    (tree / "docs" / "page03.md").write_text("# Page 3\n\nRewritten.\n")
    (tree / "docs" / "page04.md").unlink()
    with (tree / "docs" / "page05.md").open("a") as fh:  # its two sections stay as they were
        fh.write("\n## Added\n\nA third section.\n")
    report = ingest_path(Substrate(shard), tree, jobs=2)
    assert report.files_updated == 2 and report.files_removed == 1
    items = list(Substrate(shard).iter_items())
    texts = {i.text for i in items}
    assert "# Page 3\n\nRewritten." in texts and not any("page 4." in t for t in texts)
    page5 = [i for i in items if i.provenance["source"] == "docs/page05.md"]
    kept = [i for i in page5 if i.id in created]
    assert len(page5) == 3 and len(kept) == 2
    assert all(i.created_at == created[i.id] for i in kept)  # the kept sections keep their age


def test_cancel_with_workers_keeps_what_was_applied(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("substrate.ingest.session.PROGRESS_INTERVAL_S", 0.0)
    shard = tmp_path / "shard"
    cancel = threading.Event()

    def progress(done: int, total: int, items: int, nbytes: int) -> None:
        if items >= 4:
            cancel.set()

    report = ingest_path(Substrate(shard), tree, jobs=2, progress=progress, cancel=cancel)
    assert report.cancelled
    stored = {i.provenance["source"] for i in Substrate(shard).iter_items()}
    assert 0 < len(stored) < 20
    rerun = ingest_path(Substrate(shard), tree, jobs=2)
    assert not rerun.cancelled and rerun.files_unchanged >= len(stored)
    ingest_path(Substrate(tmp_path / "whole"), tree, jobs=1)
    assert _stored(shard) == _stored(tmp_path / "whole")


def test_interrupt_with_workers_saves_completed_files(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shard = tmp_path / "shard"
    from substrate.ingest import session

    original = session.IngestSession.apply
    calls = {"n": 0}

    def flaky(self: Any, ticket: Any, done: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 7:
            raise KeyboardInterrupt
        original(self, ticket, done)

    monkeypatch.setattr(session.IngestSession, "apply", flaky)
    report = IngestReport()
    with pytest.raises(KeyboardInterrupt):
        ingest_path(Substrate(shard), tree, jobs=2, report=report)
    assert report.interrupted
    added = {f.source for f in report.files if f.status == "added"}
    stored = {i.provenance["source"] for i in Substrate(shard).iter_items()}
    assert added and stored == added  # the files applied before the interrupt


_PREPARE_CHUNK = parallel._prepare_chunk


def _dies_on_page05(tickets: Any, *args: Any) -> Any:
    if any(t.source.endswith("page05.md") for t in tickets):
        os._exit(1)  # a worker killed mid-chunk
    return _PREPARE_CHUNK(tickets, *args)


def test_a_dead_worker_leaves_its_files_to_this_process(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parallel, "_prepare_chunk", _dies_on_page05)
    assert_as_one_process(tree, tmp_path)


def test_files_settled_without_reading_are_reported_in_walk_order_in_every_mode(
    tmp_path: Path,
) -> None:
    root = tmp_path / "tree"
    (root / "docs").mkdir(parents=True)
    for i in range(12):
        (root / "docs" / f"page{i:02}.md").write_text(f"# Page {i}\n\nBody {i}.\n")
    (root / "docs" / "zz.unknownext").write_text("not a format")
    (root / "later").mkdir()
    (root / "later" / "a.weird").write_text("not a format")
    (root / "later" / "b.md").write_text("# B\n\nBody.\n")
    (root / "zlink").symlink_to(tmp_path)  # leads out of the root
    walk_order = [f"docs/page{i:02}.md" for i in range(12)]
    walk_order += ["docs/zz.unknownext", "later/a.weird", "later/b.md", "zlink"]
    for run, jobs in enumerate((1, 2, 2, 2)):
        report = ingest_path(Substrate(tmp_path / f"shard{run}"), root, jobs=jobs)
        assert [f.source for f in report.files] == walk_order, jobs
    for page in (3, 7):  # a re-ingest: edited files among unchanged ones
        (root / "docs" / f"page{page:02}.md").write_text(f"# Page {page}\n\nEdited.\n")
    (root / "docs" / "page05.md").write_text("# Page 5\n\nEdited too.\n")
    for run, jobs in enumerate((1, 2)):
        report = ingest_path(Substrate(tmp_path / f"shard{run}"), root, jobs=jobs)
        assert report.unchanged == [p for p in walk_order[:12] if p[-4] not in "357"] + [
            "later/b.md"
        ]
        listed = [f.source for f in report.files]
        edited = ["docs/page03.md", "docs/page05.md", "docs/page07.md"]
        assert listed == [*edited, "docs/zz.unknownext", "later/a.weird", "zlink"]


def test_workers_start_before_every_ticket_is_known() -> None:
    from substrate.ingest.prepare import PARSED, IngestOptions, Ticket

    pulled: list[int] = []

    def tickets() -> Any:
        for i in range(60):
            pulled.append(i)
            yield Ticket(f"stream:s{i}", f"s{i}", None, "text", data=f"note {i}\n".encode())

    options = IngestOptions()
    results = parallel.prepared_in_workers(tickets(), options, options.fingerprint(), 2)
    first = next(results)
    assert len(pulled) < 60  # a result came back while tickets were still to come
    everything = [first, *results]
    assert [ticket.source for ticket, _ in everything] == [f"s{i}" for i in range(60)]
    assert all(done.status == PARSED and done.items for _, done in everything)


def test_worker_count(monkeypatch: pytest.MonkeyPatch) -> None:
    import substrate.cpus

    assert parallel.worker_count(1, 10**6) == 0
    assert parallel.worker_count(3, 5) == 3
    # a mistyped count starts no more than a few per CPU, not a process each
    monkeypatch.setattr(substrate.cpus, "available_cpus", lambda: 2)
    assert parallel.worker_count(10**11, 5) == 2 * substrate.cpus.WORKERS_PER_CPU
    assert parallel.worker_count(None, parallel.MIN_PARALLEL_FILES - 1) == 0
    many = parallel.worker_count(None, parallel.MIN_PARALLEL_FILES)
    assert many == 0 or 2 <= many <= parallel.MAX_AUTO_WORKERS


def test_a_real_interrupt_stops_workers_and_keeps_applied_files(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: list[int]
) -> None:
    monkeypatch.setattr("substrate.ingest.session.PROGRESS_INTERVAL_S", 0.0)
    monkeypatch.setattr("substrate.ingest.session.BATCH_FILES", 2)  # saves during the run

    def interrupt_after_five(done: int, total: int, items: int, nbytes: int) -> None:
        if done == 5:
            os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C sends to the parent

    shard = tmp_path / "shard"
    report = IngestReport()
    with pytest.raises(KeyboardInterrupt):
        ingest_path(Substrate(shard), tree, jobs=2, progress=interrupt_after_five, report=report)
    assert report.interrupted and reaped(forked)
    added = {f.source for f in report.files if f.status == "added"}
    stored = {i.provenance["source"] for i in Substrate(shard).iter_items()}
    assert added and stored == added


_KILLED_PARENT = """
import os, sys, time
from pathlib import Path
import substrate.ingest.parallel as parallel
from substrate.ingest import ingest_path
from substrate.store import Substrate

marks = Path(sys.argv[3])

def stuck(tickets, options, fingerprint, encoded):
    (marks / str(os.getpid())).touch()  # a worker at work, waiting for a parent that dies
    time.sleep(60)

parallel._prepare_chunk = stuck
parallel.CHUNK_FILES = 1  # a file each: both workers get one
ingest_path(Substrate(sys.argv[1]), sys.argv[2], jobs=2)
"""


@pytest.mark.parametrize("signum", ["SIGKILL", "SIGTERM"])
def test_workers_end_when_their_parent_is_killed(
    tree: Path, tmp_path: Path, signum: str, workers_left_by_a_killed_parent: Any
) -> None:
    import sys

    marks = tmp_path / "workers"
    marks.mkdir()
    command = [sys.executable, "-c", _KILLED_PARENT, str(tmp_path / "shard"), str(tree), str(marks)]
    assert workers_left_by_a_killed_parent(command, marks, signum) == []


def test_chunks_bound_files_and_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    from substrate.ingest.prepare import Ticket

    monkeypatch.setattr(parallel, "CHUNK_BYTES", 100)
    sizes = [10, 60, 50, 500, 1, 1, 1, 1]
    tickets = [Ticket(f"/t/{i}", f"{i}", f"/t/{i}", "text", size) for i, size in enumerate(sizes)]
    chunks = parallel.chunks(tickets)
    assert [[t.size for t in c] for c in chunks] == [[10, 60], [50], [500], [1, 1, 1], [1]]


def _parser_that_breaks_on_page07(text: str, ctx: Any) -> Any:
    from substrate.ingest.formats.markdown import parse_markdown

    if "Page 7\n" in text:
        raise RuntimeError("a parser bug")
    return parse_markdown(text, ctx)


def test_an_unexpected_error_in_a_worker_reaches_the_caller_and_stops_the_pool(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: list[int]
) -> None:
    from substrate.ingest.formats import PARSERS

    monkeypatch.setitem(PARSERS, "markdown", _parser_that_breaks_on_page07)
    with pytest.raises(RuntimeError, match="a parser bug"):
        ingest_path(Substrate(tmp_path / "shard"), tree, jobs=2)
    assert reaped(forked)


def test_a_worker_found_dead_when_sending_leaves_the_rest_to_this_process(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_send = parallel._Worker.send
    calls = {"n": 0}

    def send(self: Any, message: bytes) -> None:
        calls["n"] += 1
        if calls["n"] > 3:  # the worker died meanwhile: its pipe is broken
            raise parallel.WorkerDied
        real_send(self, message)

    monkeypatch.setattr(parallel._Worker, "send", send)
    monkeypatch.setattr(parallel, "CHUNKS_AHEAD", 1)  # so sending goes on while applying
    assert_as_one_process(tree, tmp_path)
    assert calls["n"] > 3


def test_workers_that_cannot_start_leave_the_files_to_this_process(
    tree: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    forked: list[int],
) -> None:
    import errno

    real_fork = os.fork
    started = {"n": 0}

    def fork() -> int:
        started["n"] += 1
        if started["n"] > 1:  # the second fork fails: too many processes
            raise OSError(errno.EAGAIN, "Resource temporarily unavailable")
        return real_fork()

    monkeypatch.setattr(os, "fork", fork)
    assert_as_one_process(tree, tmp_path)
    assert "cannot start a worker process" in caplog.text
    assert len(forked) == 1 and reaped(forked)  # the one that started was stopped


def test_a_send_never_waits_on_a_worker_that_waits_on_this_process(
    monkeypatch: pytest.MonkeyPatch, without_hanging: Any
) -> None:
    from substrate.ingest.prepare import IngestOptions, Ticket

    # pipes of the smallest size, and chunks and results far larger than a pipe holds: a
    # send that did not wait for the pipe to have room would block for ever
    monkeypatch.setattr(parallel, "PIPE_BYTES", 4096)
    monkeypatch.setattr(parallel, "CHUNK_FILES", 40)
    long_name = "n" * 200
    tickets = [
        Ticket(f"stream:{long_name}{i}", f"{long_name}{i}", None, "text", data=b"word " * 400)
        for i in range(400)
    ]
    options = IngestOptions()
    results = without_hanging(
        lambda: list(parallel.prepared_in_workers(tickets, options, options.fingerprint(), 2)),
        "sending chunks",
    )
    assert [t.source for t, _ in results] == [t.source for t in tickets]
    assert all(done.items for _, done in results)


def test_items_sent_back_as_lines_reach_an_in_memory_shard_too() -> None:
    from substrate.ingest.prepare import IngestOptions
    from substrate.ingest.session import IngestSession, _Change
    from substrate.item import SubstrateItem
    from substrate.itemline import encode

    store = Substrate()
    store.put(SubstrateItem(kind="text", text="old", id="old1"))
    session = IngestSession(store, IngestOptions(), IngestReport(), None, None)
    item = SubstrateItem(kind="text", text="from a worker", id="new1")
    session.queue(_Change("key", removes=["old1"], encoded=[(item.id, encode(item))]))
    session.flush()
    assert store.all() == [item]


def test_items_sent_back_as_lines_count_towards_the_batch_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.ingest import session as session_module
    from substrate.ingest.prepare import IngestOptions
    from substrate.ingest.session import IngestSession, _Change
    from substrate.item import SubstrateItem
    from substrate.itemline import encode

    monkeypatch.setattr(session_module, "BATCH_ITEMS", 3)
    session = IngestSession(Substrate(tmp_path), IngestOptions(), IngestReport(), None, None)
    items = [SubstrateItem(kind="text", text=f"n{i}", id=f"i{i}") for i in range(3)]
    session.queue(_Change("key", encoded=[(item.id, encode(item)) for item in items]))
    assert not session.pending  # saved as soon as the limit was reached
    assert [i.id for i in Substrate(tmp_path).iter_items()] == ["i0", "i1", "i2"]


_INTERRUPTED = """
import sys
from substrate.ingest import ingest_path, parallel, session
from substrate.store import Substrate

parallel.CHUNK_FILES = 1
session.PROGRESS_INTERVAL_S = 0.0

def interrupt(done, total, items, nbytes):
    if done >= 2:
        raise KeyboardInterrupt  # while the workers still prepare and send results

try:
    ingest_path(Substrate(sys.argv[1]), sys.argv[2], jobs=2, progress=interrupt)
except KeyboardInterrupt:
    print("stopped")
"""


def test_workers_stopped_midway_end_quietly(tree: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED, str(tmp_path / "shard"), str(tree)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert out.stdout == "stopped\n" and out.stderr == ""


def test_ctrl_c_while_a_worker_is_forked_stops_it_too(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: list[int]
) -> None:
    real_fork = os.fork

    def fork_then_interrupt() -> int:
        pid = real_fork()
        if pid:  # Ctrl-C lands in the parent the moment the worker exists
            os.kill(os.getpid(), signal.SIGINT)
        return pid

    monkeypatch.setattr(os, "fork", fork_then_interrupt)
    report = IngestReport()
    with pytest.raises(KeyboardInterrupt):
        ingest_path(Substrate(tmp_path / "shard"), tree, jobs=2, report=report)
    assert report.interrupted and len(forked) == 1 and reaped(forked)


def test_ctrl_c_handed_to_another_thread_while_forking_still_stops_the_worker(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: list[int]
) -> None:
    """The kernel may give a Ctrl-C to any thread not blocking it (a progress bar's); Python
    raises it in the main thread at once, however the fork holds it back there."""
    import threading
    import time

    done = threading.Event()
    other = threading.Thread(target=done.wait)
    other.start()
    real_fork = os.fork

    def fork_then_interrupt_elsewhere() -> int:
        pid = real_fork()
        if pid and other.ident is not None:
            # the other thread takes it and the main thread is told at once; a busy machine
            # may take a while to run the other thread, so wait until the handler has run
            held = signal.getsignal(signal.SIGINT)
            told = threading.Event()

            def telling(signum: int, frame: object) -> None:
                held(signum, frame)  # type: ignore[operator]
                told.set()

            signal.signal(signal.SIGINT, telling)
            signal.pthread_kill(other.ident, signal.SIGINT)
            deadline = time.monotonic() + 60
            while not told.is_set() and time.monotonic() < deadline:
                time.sleep(0.005)
            signal.signal(signal.SIGINT, held)
            assert told.is_set(), "the Ctrl-C sent to the other thread never reached Python"
        return pid

    monkeypatch.setattr(os, "fork", fork_then_interrupt_elsewhere)
    report = IngestReport()
    try:
        with pytest.raises(KeyboardInterrupt):
            ingest_path(Substrate(tmp_path / "shard"), tree, jobs=2, report=report)
    finally:
        done.set()
        other.join()
    assert report.interrupted and reaped(forked)


_STDIN_READER = """
import os, sys, threading
from substrate.ingest import ingest_path
from substrate.store import Substrate

threading.Thread(target=sys.stdin.buffer.read, daemon=True).start()  # a host's reader thread
report = ingest_path(Substrate(sys.argv[1]), sys.argv[2], jobs=2)
print(report.files_added, flush=True)
os._exit(0)  # the reader still waits: an interpreter shutting down would abort on its lock
"""


def test_a_host_thread_reading_stdin_does_not_stop_the_workers(tree: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    with subprocess.Popen(
        [sys.executable, "-c", _STDIN_READER, str(tmp_path / "shard"), str(tree)],
        stdin=subprocess.PIPE,  # left open: the reader thread waits on it throughout
        stdout=subprocess.PIPE,
        text=True,
    ) as host:
        try:
            host.wait(timeout=60)
        except subprocess.TimeoutExpired:
            host.kill()
            raise
        assert host.stdout is not None
        out = host.stdout.read()
    assert host.returncode == 0 and int(out) > 20


def test_a_second_ctrl_c_while_stopping_still_waits_for_every_worker(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: list[int]
) -> None:
    real_waitpid = os.waitpid
    calls = {"n": 0}

    def waitpid(pid: int, options: int) -> tuple[int, int]:
        calls["n"] += 1
        if calls["n"] == 1:  # Ctrl-C again, while the first worker is waited for
            raise KeyboardInterrupt
        return real_waitpid(pid, options)

    def interrupt(done: int, total: int, items: int, nbytes: int) -> None:
        if done >= 3:
            raise KeyboardInterrupt

    monkeypatch.setattr("substrate.ingest.session.PROGRESS_INTERVAL_S", 0.0)
    monkeypatch.setattr(os, "waitpid", waitpid)
    with pytest.raises(KeyboardInterrupt):
        ingest_path(Substrate(tmp_path / "shard"), tree, jobs=2, progress=interrupt)
    monkeypatch.setattr(os, "waitpid", real_waitpid)
    assert calls["n"] >= 3 and len(forked) == 2 and reaped(forked)


def test_a_ctrl_c_noted_while_forking_is_handed_to_its_handler_when_the_hold_ends() -> None:
    """Raised again as a signal, a noted Ctrl-C waits for a later bytecode (or, here, for the
    thread to unblock it); handed to its handler, it is acted on before the hold returns."""
    calls: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: calls.append(signum))
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        with parallel._interrupts_held():
            # another thread took it: Python calls the main thread's handler, which notes it
            signal.getsignal(signal.SIGINT)(signal.SIGINT, None)  # type: ignore[operator]
            assert calls == []
        assert calls == [signal.SIGINT]
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("acted_on", ["as Ctrl-C is blocked", "as a handler is set back"])
def test_a_ctrl_c_acted_on_midway_through_holding_leaves_nothing_held(
    monkeypatch: pytest.MonkeyPatch, acted_on: str
) -> None:
    """Python acts on a Ctrl-C another thread took at the next chance, which may be inside
    blocking it or setting a handler back: the signal mask and every handler must still come
    back (a stop blocked for good would keep each worker forked later from ending)."""
    real_mask, real_signal = signal.pthread_sigmask, signal.signal
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    mask = real_mask(signal.SIG_BLOCK, [])
    held: list[bool] = []
    raised: list[bool] = []

    def interrupted_if(now: bool) -> None:
        if now and not raised:
            raised.append(True)
            raise KeyboardInterrupt

    def pthread_sigmask(how: int, signals: Any) -> Any:
        before = real_mask(how, signals)
        interrupted_if(acted_on == "as Ctrl-C is blocked" and how == signal.SIG_BLOCK and signals)
        return before

    def setting(signum: int, handler: Any) -> Any:
        before = real_signal(signum, handler)
        interrupted_if(acted_on == "as a handler is set back" and bool(held))
        return before

    monkeypatch.setattr(signal, "pthread_sigmask", pthread_sigmask)
    monkeypatch.setattr(signal, "signal", setting)
    with pytest.raises(KeyboardInterrupt), parallel._interrupts_held():
        held.append(True)
    monkeypatch.undo()
    assert raised == [True] and bool(held) == (acted_on == "as a handler is set back")
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == mask
    assert {signum: signal.getsignal(signum) for signum in handlers} == handlers


_STOPPING_HOST = """
import os, signal, sys
import substrate.ingest.session
from substrate.ingest import ingest_path, parallel
from substrate.store import Substrate

if sys.argv[3] == "blocks SIGTERM":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
else:  # SIGTERM is never sent
    real_kill = os.kill
    os.kill = lambda pid, signum: None if signum == signal.SIGTERM else real_kill(pid, signum)
forked, real_fork = [], os.fork

def fork():
    pid = real_fork()
    if pid:
        forked.append(pid)
    return pid

def interrupt(done, *_):
    if done >= 3:
        raise KeyboardInterrupt

os.fork = fork
parallel.CHUNK_FILES = 3
substrate.ingest.session.PROGRESS_INTERVAL_S = 0.0
try:
    ingest_path(Substrate(sys.argv[1]), sys.argv[2], jobs=2, progress=interrupt)
except KeyboardInterrupt:
    print(len(forked), flush=True)
"""


@pytest.mark.parametrize("host", ["blocks SIGTERM", "never sends SIGTERM"])
def test_workers_stopped_early_end_even_where_sigterm_does_not_reach_them(
    tree: Path, tmp_path: Path, host: str
) -> None:
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", _STOPPING_HOST, str(tmp_path / "shard"), str(tree), host],
        capture_output=True,
        text=True,
        timeout=60,  # the bug this guards against: waiting for ever on a worker
    )
    assert (run.returncode, run.stdout, run.stderr) == (0, "2\n", "")


def test_files_read_ahead_that_another_run_stored_meanwhile_are_unchanged(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import substrate.ingest.session as session_module

    monkeypatch.setattr(session_module, "BATCH_FILES", 1)  # each save folds the other's writes
    shard = tmp_path / "shard"
    overtaking: list[IngestReport] = []

    def other_run_first(*_: int) -> None:  # it starts and ends while files are read ahead
        if not overtaking:
            overtaking.append(ingest_path(Substrate(shard), tree, jobs=1))

    report = ingest_path(Substrate(shard), tree, progress=other_run_first, jobs=2)
    assert overtaking[0].files_added > 20
    # no file changed: none is told as updated, nor its items as written again
    assert (report.files_updated, report.items_rewritten, report.items_removed) == (0, 0, 0)
    assert report.redactions == 0  # the secret was masked by the run that stored it
    lines = (shard / "items.jsonl").read_text()
    assert all(lines.count(f"Body of page {i}.") == 1 for i in range(20))
    assert len(Substrate(shard)) == len(overtaking[0].ids) + report.items_added


@pytest.mark.parametrize("stopping", [True, False])
def test_a_worker_ended_by_the_stop_itself_is_not_warned_of(
    tree: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    forked: list[int],
    stopping: bool,
) -> None:
    # a timeout's SIGTERM to the whole group sets the run's stop and ends its workers: "a
    # worker process died" told of them, before the stop's own message, would be a false alarm
    import logging

    cancel = threading.Event()
    real_receive = parallel._Worker.receive

    def receive(self: Any, size: int) -> Any:
        if stopping:
            cancel.set()
        for pid in forked:  # each ends at once, whatever it was doing
            os.kill(pid, signal.SIGTERM)
        return real_receive(self, size)

    monkeypatch.setattr(parallel._Worker, "receive", receive)
    with caplog.at_level(logging.WARNING):
        report = ingest_path(Substrate(tmp_path / "shard"), tree, jobs=2, cancel=cancel)
    warned = "a worker process died; preparing the remaining files here" in caplog.text
    assert warned is not stopping
    assert report.cancelled is stopping and reaped(forked)
