"""The append-only log, ``items.jsonl``: the record of truth of a shard.

Layout, one JSON object per line::

    {"mixle_log": 1, "generation": "<hex>"}        header, first line only
    {"id": "...", "kind": "text", ...}              an item (the last line for an id wins)
    {"id": "...", "tombstone": true, "at": ...}     a removal
    {"commit": <lines in batch>, "at": ...}         ends every batch written by one save

A batch becomes visible only once its commit line is complete, so a crash in the middle of a write
(or a full disk, or Ctrl-C) leaves the previous state intact: the unfinished tail is ignored by
readers and cut off by the next writer, who holds the lock. A log without a header (written by
the reference implementation or by hand) is read as if every complete line were committed (its
last line too without a line break, when it is a whole JSON object).

Files derived from the log (the catalog, the search index, the ingest caches) remember the
watermark they cover. The log only grows within a generation, so a watermark stays valid until
the log is rewritten; a rewrite by compaction starts a new generation. A hand edit of an earlier
line is a rewrite too: when it is noticed (see ``seal``), the header is given a new generation in
place (``renew_generation``), so that every derived file sees a new log and is rebuilt.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from substrate.derived import END_FILE, INDEX_DIR, LOG_FILE
from substrate.errors import CorruptShardError, ShardError, ShardFormatError
from substrate.item import nesting_problem, record_problem
from substrate.locking import shard_lock
from substrate.logend import (
    LEGACY,
    Note,
    as_noted,
    note_end,
    noted_end,
    read_note,
    refuse_lost_commits,
)
from substrate.replacing import (
    make_folder,
    open_temporary,
    refuse_link_to_another_file,
    remove_abandoned_temporaries,
    replacing,
    sync_name,
    take_folder_group,
)

log = logging.getLogger(__name__)

LOG_FORMAT = 1
_COMMIT_PREFIX = b'{"commit":'
HEADER_PREFIX = b'{"mixle_log":'
DAMAGED_HEADER = "the log's header line is damaged"
_BLOCK = 1 << 20
_LOCK_NAME = ".lock"  # the shard's writer lock (a file of its own, see locking.py)
# A seal covers this many bytes before a watermark: the commit line that ends the batch there
# (its timestamp makes it all but unique) and the end of the line before it.
SEAL_BYTES = 256


def is_shard_log(data: bytes) -> bool:
    """Whether ``data`` is (the start of) a shard's log, wherever it lies: a copy of one read
    as documents or records would bring another shard's items in, out of their scopes."""
    return data.startswith(HEADER_PREFIX)


@dataclass(frozen=True, slots=True)
class Watermark:
    """A position in one generation of the log: everything before ``offset`` is committed."""

    generation: str
    offset: int


@dataclass(frozen=True, slots=True)
class Record:
    """One committed line of the log that concerns an item."""

    id: str
    offset: int
    length: int
    tombstone: bool
    data: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class TailState:
    """What lies after the committed prefix: bytes a crashed or running writer left behind."""

    committed_end: int
    size: int

    @property
    def uncommitted_bytes(self) -> int:
        return self.size - self.committed_end


# A batch is written this many lines at a time: one large file's batch (a CSV of a million
# rows) is never copied whole into one buffer.
_LINES_PER_WRITE = 4096


def _pieces(prefix: bytes, lines: list[bytes], commit: bytes) -> Iterator[bytes]:
    """The bytes of a batch, in a few large writes: the commit line comes last, so readers
    see nothing of the batch until all of it is there."""
    for first in range(0, len(lines), _LINES_PER_WRITE):
        chunk = b"".join(lines[first : first + _LINES_PER_WRITE])
        yield prefix + chunk if first == 0 else chunk
    if not lines:
        yield prefix
    yield commit


def encode_tombstone(item_id: str) -> bytes:
    return orjson.dumps({"id": item_id, "tombstone": True, "at": time.time()}) + b"\n"


class LogFile:
    """Reads and appends the lines of one ``items.jsonl``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / LOG_FILE
        refuse_link_to_another_file(self.path)
        self.lock_path = root / _LOCK_NAME
        self.end_path = root / INDEX_DIR / END_FILE
        self._swept = False  # abandoned temporary files removed (by the first append)
        # whether the last ``append`` committed its batch: it stands, though the call was then
        # interrupted (noting the log's end), and its caller must not write it again
        self.appended = False

    # -- reading ---------------------------------------------------------------------------

    def header(self) -> dict[str, Any] | None:
        """The header line, or None for an empty or legacy (header-less) log."""
        try:
            with self.path.open("rb") as fh:
                first = fh.readline(4096)
        except FileNotFoundError:
            return None
        if not first.startswith(HEADER_PREFIX) or not first.endswith(b"\n"):
            return None
        try:
            head = orjson.loads(first)
        except orjson.JSONDecodeError:  # (not a log without one: readers and writers alike
            # must say so, where writers said "no header line" and readers "line 1 corrupt")
            raise CorruptShardError(str(self.path), 1, DAMAGED_HEADER) from None
        if not isinstance(head, dict):
            raise CorruptShardError(str(self.path), 1, DAMAGED_HEADER)
        version, generation = head.get("mixle_log"), head.get("generation")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise CorruptShardError(str(self.path), 1, f"log format {version!r} is not valid")
        if version > LOG_FORMAT:
            raise ShardFormatError(
                f"{self.path} was written by a newer mixle (log format {version}); "
                "upgrade mixle to read it"
            )
        if not isinstance(generation, str) or not generation:
            raise CorruptShardError(str(self.path), 1, "the header has no valid generation")
        return head

    def generation(self, head: dict[str, Any] | None | bool = True) -> str:
        """The log's generation; ``head``: the header when the caller has read it already."""
        if head is True:
            head = self.header()
        return str(head["generation"]) if isinstance(head, dict) else LEGACY

    def seal(self, offset: int) -> int | None:
        """A checksum of the bytes just before ``offset``, or None if the log is shorter.

        Saved with a watermark, it tells cheaply (one small read) whether the log is still the one
        the watermark was taken in, with only appends since: an edit that adds, removes or
        resizes an earlier line moves other bytes under the seal. (An edit that keeps every
        line's length keeps every offset right, and reads see the edited line.)
        """
        if offset <= 0:
            return 0
        data = self._before(offset)
        return None if data is None else zlib.crc32(data)

    def _before(self, offset: int) -> bytes | None:
        """The ``SEAL_BYTES`` (or fewer, from the start) before ``offset``; None if the log is
        shorter."""
        start = max(0, offset - SEAL_BYTES)
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return None
        try:
            data = os.pread(fd, offset - start, start)
        finally:
            os.close(fd)
        return data if len(data) == offset - start else None

    def ends_batch(self, offset: int) -> bool:
        """Whether ``offset`` is 0 or just after a commit line (in a legacy log: after a line).

        Those are the only places a watermark taken in this log points to; one that points
        elsewhere was taken before an edit moved the bytes, and lines must not be read from it.
        """
        if offset <= 0:
            return True
        data = self._before(offset)
        if data is None or not data.endswith(b"\n"):
            return False
        if self.header() is None:
            return True
        line = data.rfind(b"\n", 0, len(data) - 1) + 1
        return (line > 0 or offset <= SEAL_BYTES) and data.startswith(_COMMIT_PREFIX, line)

    def tail_state(self, head: dict[str, Any] | None | bool = True) -> TailState:
        """Find the end of the last committed batch by reading backwards from the end.

        ``head``: the header when the caller has read it already (None: a legacy log).
        """
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return TailState(0, 0)
        if size == 0:
            return TailState(0, 0)
        if head is True:
            head = self.header()
        with self.path.open("rb") as fh:
            if head is None:
                end = self._last_newline_end(fh, size)
                return TailState(size if self._whole_record(fh, end, size) else end, size)
            return TailState(self._last_commit_end(fh, size), size)

    @staticmethod
    def _whole_record(fh: BinaryIO, start: int, end: int) -> bool:
        """Whether the bytes in ``[start, end)`` are one whole JSON object: a legacy log's last
        line, written without a line break (its writer, or a hand edit, left none)."""
        if start >= end:
            return False
        fh.seek(start)
        try:
            return isinstance(orjson.loads(fh.read(end - start)), dict)
        except orjson.JSONDecodeError:
            return False

    @staticmethod
    def _last_newline_end(fh: BinaryIO, size: int) -> int:
        pos = size
        while pos > 0:
            start = max(0, pos - _BLOCK)
            fh.seek(start)
            block = fh.read(pos - start)
            nl = block.rfind(b"\n")
            if nl >= 0:
                return start + nl + 1
            pos = start
        return 0

    @staticmethod
    def _last_commit_end(fh: BinaryIO, size: int) -> int:
        pos = size
        carry = b""
        while pos > 0:
            start = max(0, pos - _BLOCK)
            fh.seek(start)
            block = fh.read(pos - start) + carry
            search_to = len(block)
            while True:
                hit = block.rfind(b"\n" + _COMMIT_PREFIX, 0, search_to)
                if hit < 0:
                    break
                end = block.find(b"\n", hit + 1)
                if end >= 0:
                    return start + end + 1
                search_to = hit  # a commit line cut off by a crash: look further back
            # keep a line's worth of overlap so a commit line spanning blocks is found
            carry = block[: min(len(block), 256)]
            pos = start
        return 0

    def records(self, start: int, end: int) -> Iterator[Record]:
        """Parse the committed lines in ``[start, end)`` (start must be at a line boundary)."""
        if end <= start:
            return
        counted = 0  # lines parsed so far; the absolute number is only worked out for errors

        def line_no() -> int:
            return (self.line_number(start) if start else 1) + counted

        with self.path.open("rb") as fh:
            fh.seek(start)
            offset = start
            remaining = end - start
            pending: list[bytes] = []  # the start of a line the blocks read so far cut
            while remaining > 0 or pending:
                chunk = fh.read(min(_BLOCK, remaining)) if remaining > 0 else b""
                if remaining > 0 and not chunk:
                    raise ShardError(
                        f"{self.path} became shorter while it was read (compacted by another "
                        "process?); run the command again"
                    )
                remaining -= len(chunk)
                if remaining > 0 and b"\n" not in chunk:
                    pending.append(chunk)  # a line longer than a block: joined once, at its end
                    continue
                data = b"".join([*pending, chunk]) if pending else chunk
                lines = data.split(b"\n")
                last = lines.pop() if remaining > 0 else b""
                pending = [last] if last else []
                if remaining <= 0 and lines and lines[-1] == b"":
                    lines.pop()
                for raw in lines:
                    length = len(raw) + 1
                    record = self._parse(raw, offset, length, line_no)
                    if record is not None:
                        yield record
                    offset += length
                    counted += 1
                if remaining <= 0:
                    break

    def _parse(
        self, raw: bytes, offset: int, length: int, line_no: Callable[[], int]
    ) -> Record | None:
        if not raw.strip():
            return None
        path = str(self.path)
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise CorruptShardError(path, line_no(), _unparsable(raw, exc)) from None
        if not isinstance(obj, dict):
            raise CorruptShardError(path, line_no(), "not a JSON object")
        if "commit" in obj or "mixle_log" in obj:
            return None
        item_id = obj.get("id")
        if not isinstance(item_id, str) or not item_id:
            raise CorruptShardError(path, line_no(), "record has no id")
        if obj.get("tombstone") is True:
            return Record(item_id, offset, length, True, None)
        problem = record_problem(obj) or nesting_problem(raw, obj)
        if problem is not None:
            raise CorruptShardError(path, line_no(), problem)
        return Record(item_id, offset, length, False, obj)

    def miscounted_batches(self, end: int) -> list[tuple[int, int, int]]:
        """``(line, written, found)`` for each batch before ``end`` whose commit line (at
        ``line``) says it was written with another number of lines than it holds now.

        A line deleted or added by hand inside a committed batch leaves every other line
        readable, so nothing else notices it: an acknowledged item would be gone silently. A
        line written over with a copy of its neighbour keeps the count: a batch never writes
        one line twice, so a copy is not counted (``found`` counts the distinct lines).
        """
        off: list[tuple[int, int, int]] = []
        found = line = offset = 0
        batch: set[int] = set()  # the batch's lines by their hash: a compacted log is one
        # batch, which must not be held whole
        with self.path.open("rb") as fh:
            for raw in fh:
                if offset >= end:
                    break
                offset += len(raw)
                line += 1
                if raw.startswith(_COMMIT_PREFIX):
                    written = _commit_count(raw)
                    if written is not None and written != found:
                        off.append((line, written, found))
                    found = 0
                    batch.clear()
                elif raw.strip() and not (line == 1 and raw.startswith(HEADER_PREFIX)):
                    key = hash(raw.rstrip())  # (64 bits: a chance collision is negligible)
                    found += key not in batch
                    batch.add(key)
        return off

    def line_number(self, offset: int) -> int:
        """1-based number of the line starting at ``offset`` (only for error messages)."""
        count = 1
        with self.path.open("rb") as fh:
            remaining = offset
            while remaining > 0:
                block = fh.read(min(_BLOCK, remaining))
                if not block:
                    break
                count += block.count(b"\n")
                remaining -= len(block)
        return count

    def read_line(self, fd: int, offset: int, length: int) -> dict[str, Any]:
        raw = os.pread(fd, length, offset)
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            line = self.line_number(offset)
            raise CorruptShardError(str(self.path), line, _unparsable(raw, exc)) from None
        if not isinstance(obj, dict):
            raise CorruptShardError(str(self.path), self.line_number(offset), "not an object")
        problem = None if obj.get("tombstone") is True else record_problem(obj)
        problem = problem or nesting_problem(raw, obj)
        if problem is not None:
            raise CorruptShardError(str(self.path), self.line_number(offset), problem)
        return obj

    # -- writing ---------------------------------------------------------------------------

    def renew_generation(self, expected: str) -> str:
        """Give the log a new generation, written over the old one in the header (same length).

        Called when the log was found changed other than by appending: every file derived from
        the old generation is then rebuilt instead of trusted. Nothing happens if the header no
        longer names ``expected`` (another process renewed or compacted it first) or there is no
        header (a legacy log gets one on its next write). An end noted at the last commit past
        the log's is noted for the new generation, so that no write hides the loss
        (``refuse_lost_commits``); removing the note accepts the log as it is.

        Returns:
            The generation the log has afterwards.

        Raises:
            ShardError: the log or its lock cannot be written (a read-only shard), or another
                process holds the lock.
        """
        # a reader must not wait for a long ingest: it reads the log whole meanwhile
        with shard_lock(self.lock_path, wait=False):
            head = self.header()
            if head is None or head["generation"] != expected:
                return self.generation()
            noted = read_note(self.end_path)
            if noted is not None and noted.of_an_older_copy(expected):
                return expected  # an older copy put back stays as it is until restored
            if not expected.isascii():  # a hand-made one: as many hex digits would not fill
                return expected  # its bytes, and what was left of them would spoil the line
            try:
                with self.path.open("r+b") as fh:
                    first = fh.readline(4096)
                    key = first.find(b'"generation"')
                    value = first.find(b'"' + expected.encode() + b'"', key)
                    if key < 0 or value < 0:  # written with escapes: leave it as it is
                        return expected
                    fresh = _fresh_generation(expected, noted)
                    fh.seek(value + 1)
                    fh.write(fresh.encode())
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as exc:
                raise ShardError(f"cannot write {self.path}: {exc.strerror}") from exc
            self._carry_lost_end(expected, fresh)
            return fresh

    def _carry_lost_end(self, old: str, fresh: str) -> None:
        """Note for generation ``fresh`` the end noted for the ``old`` one when it lies past
        the log's committed end (lines were lost, or shortened by hand)."""
        noted = noted_end(self.end_path)
        if noted is not None and noted[0] == old and noted[1] > self.tail_state().committed_end:
            note_end(self.end_path, fresh, noted[1])

    def append(self, lines: list[bytes]) -> tuple[Watermark, list[int], int, tuple[int, int]]:
        """Append ``lines`` as one committed batch under the writer lock, durably.

        Bytes that a crashed earlier writer left after the last commit are cut off first.
        Returns the watermark after the batch, the offset of each line, the committed end the
        batch started from, and the file's (size, inode) right after the batch, taken under the
        lock: a stat taken later could already include another writer's batch.
        """
        self.appended = False
        make_folder(self.root)
        with shard_lock(self.lock_path):
            if not self._swept:  # a compaction or settings write killed midway left its copy
                remove_abandoned_temporaries(self.root)  # (as large as the log): once a run
                remove_abandoned_temporaries(self.root / "index")  # and a catalog write
                self._swept = True
            head = self.header()
            state = self.tail_state(head)
            # a torn write about to be cut off, a log shorter than noted, one that lost its
            # header: make sure no committed line is lost for good (before a first batch, or
            # the conversion of a header-less log, renews the generation)
            refuse_lost_commits(self, state, self.generation(head), writing=True)
            if head is None and state.size:
                self._rewrite_legacy()
                head = self.header()
                state = self.tail_state(head)
            generation = self.generation(head)
            prefix = b""
            if state.committed_end == 0:
                generation = secrets.token_hex(8)
                prefix = orjson.dumps({"mixle_log": LOG_FORMAT, "generation": generation}) + b"\n"
            commit = orjson.dumps({"commit": len(lines), "at": time.time()}) + b"\n"
            offsets = []
            pos = state.committed_end + len(prefix)
            for line in lines:
                offsets.append(pos)
                pos += len(line)
            self._write_at(state.committed_end, _pieces(prefix, lines, commit), state)
            self.appended = True
            if state.uncommitted_bytes:
                log.warning(
                    "%s: discarded %d bytes after the last commit line, which a write that "
                    "did not finish leaves (a crash, Ctrl-C, a full disk); nothing the shard "
                    "noted as committed was among them",
                    self.path,
                    state.uncommitted_bytes,
                )
            end = pos + len(commit)
            st = self.path.stat()
            note_end(self.end_path, generation, end, st.st_mtime_ns)
            return Watermark(generation, end), offsets, state.committed_end, (st.st_size, st.st_ino)

    def _write_at(self, start: int, pieces: Iterable[bytes], state: TailState) -> None:
        created = not self.path.exists()
        # a link to nothing (it would make its target), to a device, to a pipe: never
        if os.path.lexists(self.path) and not self.path.is_file():
            raise ShardError(f"cannot write {self.path}: not a regular file")
        refuse_link_to_another_file(self.path)  # (as it is now: a link put there since it opened)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o666)  # (the umask decides)
        except OSError as exc:
            raise ShardError(f"cannot write {self.path}: {exc.strerror}") from exc
        take_folder_group(fd, self.root)
        try:
            if state.size != start:
                os.ftruncate(fd, start)
            at = start
            try:
                for piece in pieces:
                    view = memoryview(piece)
                    while view:
                        written = os.pwrite(fd, view, at)
                        view, at = view[written:], at + written
                os.fsync(fd)
            except BaseException:
                self._undo(fd, start)
                raise
        except OSError as exc:
            raise ShardError(f"cannot write {self.path}: {exc.strerror}") from exc
        finally:
            os.close(fd)
        if created:
            sync_name(self.path)

    @staticmethod
    def _undo(fd: int, start: int) -> None:
        # Best effort: an uncommitted tail is invisible anyway, but cutting it keeps the file tidy.
        with contextlib.suppress(OSError):
            os.ftruncate(fd, start)

    def _rewrite_legacy(self) -> None:
        """Convert a header-less log to the committed format, keeping the last line per id."""
        state = self.tail_state()
        if state.uncommitted_bytes:  # said, as for a log with a header (see ``append``)
            log.warning(
                "%s: discarded %d bytes of an unfinished last line (a crash or interrupted "
                "write) while converting the log to the current format",
                self.path,
                state.uncommitted_bytes,
            )
        latest: dict[str, Record] = {}
        for record in self.records(0, state.committed_end):
            latest.pop(record.id, None)
            latest[record.id] = record
        live = [r for r in latest.values() if not r.tombstone]
        with self.path.open("rb") as fh:
            lines = []
            for record in live:
                fh.seek(record.offset)
                lines.append(fh.read(record.length))
        self.replace_with(lines)

    def remove_abandoned_rewrites(self) -> None:
        """Delete the half-written copies of the log that killed compactions left behind.

        Rewrites only happen under the writer lock, which the caller holds: any such file
        belongs to a process that died. It can be as large as the log.
        """
        for leftover in self.root.glob(".items.jsonl.*.tmp"):
            with contextlib.suppress(OSError):
                size = leftover.stat().st_size
                leftover.unlink()
                log.warning(
                    "removed %s (%d bytes) left by an interrupted compaction", leftover, size
                )

    def holds_only(self, lines: Iterable[bytes]) -> bool:
        """Whether the log is what ``replace_with(lines)`` would write, but for its generation
        and time: a header, ``lines``, and the one commit line counting them (both read as
        streams: a large log is not held in memory)."""
        count = 0
        with self.path.open("rb") as fh:
            if not fh.readline().startswith(HEADER_PREFIX):
                return False
            for line in lines:
                whole = line if line.endswith(b"\n") else line + b"\n"
                if fh.read(len(whole)) != whole:
                    return False
                count += 1
            commit = fh.readline()
            return commit.endswith(b"\n") and _commit_count(commit) == count and not fh.read(1)

    def refuse_rewrite_over_a_loss(self) -> None:
        """Raise if committed lines are missing (``refuse_lost_commits``): a rewrite would make
        the loss for good (caller holds the lock)."""
        head = self.header()
        refuse_lost_commits(self, self.tail_state(head), self.generation(head), writing=True)

    def refuse_damage_before_a_write(self) -> None:
        """Raise as a write would for a log that lost committed lines or holds one that no
        longer parses (``refuse_lost_commits``), for a writer that may end up writing nothing
        (an ingest of an unchanged tree): a hand edit must not be passed over as sound.

        Done under the writer lock when it is free, so that no compaction swaps the log
        between the reads; else (a writer at work, a folder this process cannot write) without
        it, noting nothing. The log is parsed only when it was written to since the last
        writer's note; found sound under the lock, it is noted again, so that the next check
        costs a stat again.
        """
        with contextlib.ExitStack() as held:
            try:
                held.enter_context(shard_lock(self.lock_path, wait=False))
            except ShardError:  # a writer at work, or a lock this process cannot take
                self._refuse_damage_unlocked()
                return
            parsed_at = _mtime_ns(self.path)  # before the parse: an edit by hand during it
            head = self.header()  # is not noted as sound
            state, generation = self.tail_state(head), self.generation(head)
            state = refuse_lost_commits(self, state, generation, writing=True)
            if not state.committed_end or state.uncommitted_bytes or generation == LEGACY:
                return  # nothing committed; a torn write the next append cuts off; or no
                # header, which only a write gives (a note of a log without one says it lost it)
            if as_noted(self, read_note(self.end_path), generation, state):
                return
            if _mtime_ns(self.path) == parsed_at:
                note_end(self.end_path, generation, state.committed_end, parsed_at)

    def _refuse_damage_unlocked(self) -> None:
        """``refuse_lost_commits`` without the lock: a refusal stands unless the log was
        replaced meanwhile (compacted), which mixes two logs in what was read; nothing is
        noted."""
        head = self.header()
        before = self.generation(head)
        try:
            refuse_lost_commits(self, self.tail_state(head), before, writing=True)
        except ShardError:
            if self.generation() == before:
                raise

    def replace_with(
        self, lines: Iterable[bytes], *, read_size: int | None = None
    ) -> tuple[Watermark, list[int]]:
        """Atomically replace the log by a new generation holding ``lines`` (caller holds lock),
        written as they come: a log of gigabytes is not held in memory.

        ``read_size``: the log's size when ``lines`` were read from it. A log grown since was
        written by a writer that did not wait for the lock (its file removed under the
        holder): it is not replaced, as what that writer acknowledged would be lost.
        """
        self.remove_abandoned_rewrites()
        replaced = self.generation()  # noted as retired: a copy of it put back is known
        generation = secrets.token_hex(8)
        header = orjson.dumps({"mixle_log": LOG_FORMAT, "generation": generation}) + b"\n"
        offsets = []
        pos = len(header)
        try:
            with (
                replacing(self.path, follow=True, durable=True) as tmp,
                open_temporary(tmp) as fh,
            ):
                fh.write(header)
                for line in lines:
                    # a legacy log's last line may lack its line break: it must not run into
                    # the next
                    whole = line if line.endswith(b"\n") else line + b"\n"
                    offsets.append(pos)
                    fh.write(whole)
                    pos += len(whole)
                commit = orjson.dumps({"commit": len(offsets), "at": time.time()}) + b"\n"
                fh.write(commit)
                fh.flush()
                os.fsync(fh.fileno())
                if read_size is not None and self.path.stat().st_size != read_size:
                    raise LogChanged(
                        f"{self.path} was written to while it was rewritten (another writer "
                        f"did not wait for the lock: was {self.lock_path.name} removed?); it "
                        "was left as it is: run the command again"
                    )
        except OSError as exc:
            raise ShardError(f"cannot rewrite {self.path}: {exc.strerror}") from exc
        note_end(self.end_path, generation, pos + len(commit), _mtime_ns(self.path), replaced)
        return Watermark(generation, pos + len(commit)), offsets


def _fresh_generation(expected: str, noted: Note | None) -> str:
    """A new generation as long as ``expected`` (it is written over it in place), other than
    it and than the generations the note names: a short one written by hand has few values,
    and one retired again would make the log look an older copy of itself."""
    taken = {expected, *((noted.generation, *noted.retired) if noted is not None else ())}
    while True:
        fresh = secrets.token_hex(len(expected))[: len(expected)]
        if fresh not in taken:
            return fresh


def _mtime_ns(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


class LogChanged(ShardError):
    """The log grew while it was being rewritten; it was not replaced."""


def _commit_count(raw: bytes) -> int | None:
    """The number of lines a commit line says its batch holds (None: not readable as one)."""
    try:
        value = orjson.loads(raw).get("commit")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _unparsable(raw: bytes, exc: orjson.JSONDecodeError) -> str:
    """Why a log line does not parse, in the reader's terms."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as bad:  # orjson would speak of surrogates
        return f"not valid UTF-8 (byte {bad.start + 1} of the line)"
    return f"invalid JSON: {exc}"
