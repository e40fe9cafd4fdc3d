"""Where each live item of a rooted shard sits in the log: the catalog plus the recent tail.

The catalog (``index/offsets.bin``) covers the log up to its watermark; the lines committed after
it (the tail) are parsed into a small in-memory map. When the tail grows large the catalog is
rewritten, so opening a shard never parses more than a bounded part of the log.

Offsets stay right only while the log grows by appends. Each watermark the view relies on (the
catalog's, and the one it has read up to) comes with the log's seal there; a log whose seal no
longer matches was edited, and the view gives it a new generation and re-reads all of it.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from substrate.catalog import (
    Catalog,
    StaleCatalogError,
    id_key,
    id_keys,
    is_hex_id,
    record_dtype,
    sorted_array,
    sorted_records,
    write_catalog,
)
from substrate.derived import CATALOG_FILE, INDEX_DIR
from substrate.errors import ShardError
from substrate.log import LogFile, Record, TailState, Watermark
from substrate.logend import noted_end, refuse_lost_commits

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

# Rewrite the catalog once the tail holds this many records (or an eighth of the catalog).
TAIL_LIMIT = 5000
# A first catalog of up to this many records is sorted without numpy (see sorted_records).
PLAIN_CATALOG_LIMIT = 50_000
# The tail limit of a writer saving many batches and folding them when it ends (an ingest):
# folding each time the tail passes TAIL_LIMIT would rewrite the catalog over and over, and,
# for a new shard, import numpy to look every later batch's ids up in it.
BULK_TAIL_LIMIT = PLAIN_CATALOG_LIMIT
# Above this many ids, look them up in the catalog all at once, with numpy ...
_BATCH_LOOKUP = 64
# ... or, while numpy is not yet imported, above this many: its import (about 0.1 s) costs as
# much as thousands of lookups one at a time (12-40 us each), and re-ingesting a few edited
# files would pay it for a few hundred ids
_BATCH_LOOKUP_COLD = 4096
# Folding at least this many log lines uses that vectorized lookup too: it beats a binary search
# per line even when numpy must be imported for it.
_VECTOR_FOLD = 2048


# Times a refresh reads the log again when another process keeps replacing it meanwhile.
_ATTEMPTS = 5


class _Replaced(Exception):
    """The log file was replaced (compacted) while a refresh read it."""


@dataclass(slots=True)
class Entry:
    """Location of the current line of one live item."""

    offset: int
    length: int
    seq: int


class LogView:
    """Which line holds each live item, kept up to date with the committed log."""

    def __init__(self, log_file: LogFile) -> None:
        self.log = log_file
        self.catalog_path = log_file.root / INDEX_DIR / CATALOG_FILE
        self.catalog: Catalog | None = None
        self.watermark = Watermark("", 0)
        self.seal: int | None = 0  # LogFile.seal(watermark.offset) when the view got there
        self.tail: dict[str, Entry | None] = {}  # None: removed since the catalog was written
        self.live_count = 0
        self.next_seq = 0
        self.uncommitted_bytes = 0
        self._stat_seen: tuple[int, int] = (-1, -1)
        self._reading: tuple[int, int] = (-1, -1)  # the log's (size, inode) being read
        self._read_generation = ""  # and its generation when the read began
        # the log was read again from the start (another process compacted it): every item
        # cached from it may be gone
        self.reloaded = False
        self._trust_catalog = True
        # the catalog on disk is damaged, old or describes an edited log: write a new one
        self._replace_catalog = False
        # ids whose lines were read from the log since the store last looked (other writers')
        self.refolded: set[str] = set()

    def rebuild(self) -> None:
        """Re-read the whole log, ignoring the catalog (which is then rewritten)."""
        self.reset()
        self._trust_catalog = False
        try:
            self.refresh()
        finally:
            self._trust_catalog = True
        self._write_catalog_or_keep_tail()

    def refresh(self) -> None:
        """Catch up with lines committed since the last look (a stat when nothing changed).

        Each read opens the log again, so a compaction by another process (which replaces the
        file) can fall between two of them: the refresh then starts again from the new file,
        rather than mixing the two, or taking the difference for a hand edit.
        """
        for _ in range(_ATTEMPTS):
            stat = self._stat()
            if stat == self._stat_seen:
                return
            self._reading = stat
            try:
                self._catch_up()
                if self._same_file(stat):
                    self._stat_seen = stat
                    self.maybe_write_catalog()
                    return
            except _Replaced:
                pass
            except ShardError:
                if self._same_file(stat):
                    raise
            log.info("%s was replaced while it was read; reading it again", self.log.path)
            self.reset()
            self.reloaded = True
        raise ShardError(
            f"{self.log.path} was replaced again and again while it was read; run the command again"
        )

    def _same_file(self, stat: tuple[int, int]) -> bool:
        """Whether the log is still the file ``stat`` was taken of when it was read: the same
        inode and, as a compaction's new file may get the inode the old one freed, the same
        generation."""
        return self._stat()[1] == stat[1] and self.log.generation() == self._read_generation

    def _stat(self) -> tuple[int, int]:
        try:
            st = self.log.path.stat()
        except FileNotFoundError:
            return (0, 0)
        return (st.st_size, st.st_ino)

    def _catch_up(self) -> None:
        head = self.log.header()  # read once for both
        state = self.log.tail_state(head)
        generation = self._read_generation = self.log.generation(head)
        self.uncommitted_bytes = state.uncommitted_bytes
        mark = self.watermark
        edited = mark.generation == generation and not self._covers(mark.offset, self.seal, state)
        if edited:
            generation = self._edited(generation, state)
        if edited or generation != mark.generation:
            # after an edit, the whole log is read again (the catalog predates the edit too)
            generation = self._load_catalog(generation, state, trust=not edited)
            self.reloaded = self.reloaded or bool(mark.generation)
        if state.committed_end > self.watermark.offset:
            self.fold(self.log.records(self.watermark.offset, state.committed_end))
            self.watermark = Watermark(generation, state.committed_end)
            self.seal = self.log.seal(state.committed_end)

    def _covers(self, offset: int, seal: int | None, state: TailState) -> bool:
        """Whether the log still holds, unchanged, the bytes before ``offset`` that ``seal``
        was taken of (one small read)."""
        if offset == 0:
            return True
        return offset <= state.committed_end and seal is not None and self.log.seal(offset) == seal

    def _edited(self, generation: str, state: TailState) -> str:
        """The log was changed other than by appending (by hand, or an older copy of it put
        back): give it a new generation, so that every file derived from the old one (this
        catalog, the search index, the ingest caches) is rebuilt rather than trusted; returns
        the generation to read it as (an end noted past the log's stays noted:
        ``renew_generation``)."""
        if not self._same_file(self._reading):
            raise _Replaced  # compacted by another process while read: not an edit
        noted = noted_end(self.log.end_path)
        shorter = noted is not None and noted[0] == generation and noted[1] > state.committed_end
        log.warning(
            "%s was %s; the index files that describe it are rebuilt from it, and its first "
            "line is given a new generation to tell them so",
            self.log.path,
            "cut short (an older copy put back, or lines removed by hand?)"
            if shorter
            else "changed other than by appending (edited by hand?)",
        )
        self._replace_catalog = True  # the next open should not have to notice again
        try:
            self._read_generation = self.log.renew_generation(generation)
            return self._read_generation
        except ShardError as exc:
            # Read from the log in memory all the same; only derived files may lag behind.
            log.warning("could not give %s a new generation: %s", self.log.path, exc)
            return generation

    def _load_catalog(self, generation: str, state: TailState, *, trust: bool = True) -> str:
        """Start again from the catalog file (or from the start of the log, when it cannot or
        must not (``trust``) be used); returns the generation to read the log as."""
        self.close()
        self.tail.clear()
        catalog = Catalog(self.catalog_path)
        # a damaged or old catalog is replaced at once, else every later open would warn again
        replace = catalog.damaged or catalog.outdated
        head = catalog.header
        # the catalog's watermark is evidence of what was committed too (of any generation,
        # when the log is gone altogether)
        mark = 0
        if head is not None and (head.generation == generation or state.size == 0):
            mark = head.watermark
        state = refuse_lost_commits(self.log, state, generation, mark)
        usable = head is not None and head.generation == generation
        usable = usable and trust and self._trust_catalog
        if head is not None and usable and not self._covers(head.watermark, head.seal, state):
            generation = self._edited(generation, state)
            usable = False
        self._replace_catalog = self._replace_catalog or replace
        if head is not None and usable:
            self.catalog = catalog
            self.watermark = Watermark(generation, head.watermark)
            self.seal = head.seal
            self.next_seq = head.next_seq
            self.live_count = head.count
        else:
            catalog.close()
            self.watermark = Watermark(generation, 0)
            self.seal = 0
            self.next_seq = 0
            self.live_count = 0
        return generation

    def fold(self, records: Iterable[Record]) -> None:
        changes = [(r.id, r.offset, r.length, r.tombstone) for r in records]
        self.refolded.update(change[0] for change in changes)
        if len(changes) >= _VECTOR_FOLD:
            self.apply_batch(changes)
            return
        for change in changes:
            self.apply(*change)

    def apply(self, item_id: str, offset: int, length: int, tombstone: bool) -> None:
        """Record that the line at ``offset`` is now the current state of ``item_id``."""
        self._record(item_id, offset, length, tombstone, self.locate(item_id))

    def _record(
        self, item_id: str, offset: int, length: int, tombstone: bool, previous: Entry | None
    ) -> None:
        if tombstone:
            if previous is not None:
                self.tail[item_id] = None
                self.live_count -= 1
            return
        if previous is None:
            seq = self.next_seq
            self.next_seq += 1
            self.live_count += 1
        else:
            seq = previous.seq
        self.tail[item_id] = Entry(offset, length, seq)

    def apply_batch(self, changes: list[tuple[str, int, int, bool]]) -> None:
        """``apply`` for many changes in order: one vectorized catalog lookup instead of a
        binary search (a dozen reads) per id, which dominated bulk writes into a large shard.
        An id met again is found in the tail, as ``apply`` would find it."""
        pending = [i for i, *_ in changes if i not in self.tail]
        known = self._locate_many(pending) if _all_at_once(len(pending)) else None
        for item_id, offset, length, tombstone in changes:
            if known is None or item_id in self.tail:
                self.apply(item_id, offset, length, tombstone)
            else:
                self._record(item_id, offset, length, tombstone, known.get(item_id))

    def _locate_many(self, ids: list[str]) -> dict[str, Entry]:
        if self.catalog is None:  # a new shard: importing numpy would cost more than the batch
            return {}
        import numpy as np

        try:
            records = self.catalog.records()
        except StaleCatalogError:
            self.rebuild()
            return {i: e for i in ids if (e := self.locate(i)) is not None}
        if not len(records):
            return {}
        keys = np.frombuffer(id_keys(ids), dtype=">u8")
        where = np.searchsorted(records["key"], keys)
        inside = np.minimum(where, len(records) - 1)
        hits = np.flatnonzero((where < len(records)) & (records["key"][inside] == keys))
        found: dict[str, Entry] = {}
        for index in hits.tolist():
            item_id = ids[index]
            if not is_hex_id(item_id):  # a hashed key may collide: let locate read the line
                entry = self.locate(item_id)
                if entry is not None:
                    found[item_id] = entry
                continue
            row = records[where[index]]
            found[item_id] = Entry(int(row["offset"]), int(row["length"]), int(row["seq"]))
        return found

    def note_written(self, watermark: Watermark, stat_after: tuple[int, int]) -> None:
        """Our own append moved the log to ``watermark`` (already folded with ``apply``)."""
        self.watermark = watermark
        self.seal = self.log.seal(watermark.offset)
        self._stat_seen = stat_after

    def locate(self, item_id: str) -> Entry | None:
        if item_id in self.tail:
            return self.tail[item_id]
        if self.catalog is None:
            return None
        try:
            hits = self.catalog.lookup(id_key(item_id))
        except StaleCatalogError:
            self.rebuild()
            return self.locate(item_id)
        for offset, length, seq in hits:
            if is_hex_id(item_id) or self._line_id(offset, length) == item_id:
                return Entry(offset, length, seq)
        return None

    def _line_id(self, offset: int, length: int) -> str | None:
        fd = os.open(self.log.path, os.O_RDONLY)
        try:
            value = self.log.read_line(fd, offset, length).get("id")
        finally:
            os.close(fd)
        return value if isinstance(value, str) else None

    def live_records(self) -> np.ndarray:
        """Every live item as catalog records (key, offset, length, seq), unordered."""
        import numpy as np

        try:
            base = self.catalog.records() if self.catalog else np.zeros(0, dtype=record_dtype())
        except StaleCatalogError:
            log.warning("%s changed while in use; rebuilding it from the log", self.catalog_path)
            self.rebuild()
            return self.live_records()
        if not self.tail:
            return base
        if len(base):
            touched = np.sort(np.frombuffer(id_keys(self.tail.keys()), dtype=">u8"))
            base = base[~_members(base["key"], touched)]
        live = [(i, e) for i, e in self.tail.items() if e is not None]
        fresh = np.zeros(len(live), dtype=record_dtype())
        if live:
            fresh["key"] = np.frombuffer(id_keys([i for i, _ in live]), dtype=">u8")
            fresh["offset"] = [e.offset for _, e in live]
            fresh["length"] = [e.length for _, e in live]
            fresh["seq"] = [e.seq for _, e in live]
        return np.concatenate([base, fresh])

    def live_entries(self) -> list[tuple[int, int]]:
        """(offset, length) of every live item, in insertion order."""
        if self.catalog is None:  # a new or small shard: the tail alone, without numpy's import
            live = sorted((e.seq, e.offset, e.length) for e in self.tail.values() if e is not None)
            return [(offset, length) for _, offset, length in live]
        records = self.live_records()
        records = records[records["seq"].argsort(kind="stable")]
        return list(zip(records["offset"].tolist(), records["length"].tolist(), strict=True))

    def maybe_write_catalog(self, *, bulk: bool = False) -> None:
        """Fold the tail into the catalog when it has grown long (``bulk``: the writer saves
        many batches and folds what it wrote when done: the tail may grow longer meanwhile)."""
        limit = BULK_TAIL_LIMIT if bulk else TAIL_LIMIT
        if self._replace_catalog or len(self.tail) > max(limit, self.live_count // 8):
            self._replace_catalog = False
            self._write_catalog_or_keep_tail()

    def _write_catalog_or_keep_tail(self) -> None:
        try:
            self.write_catalog()
        except ShardError as exc:
            # A reader of a shard it cannot write (a read-only copy) keeps the tail in memory
            # instead: slower to open, never wrong.
            log.info("not rewriting the catalog: %s", exc)

    def write_catalog(self) -> None:
        """Fold the tail into a fresh catalog file covering the current watermark."""
        if self.catalog is None and len(self.tail) <= PLAIN_CATALOG_LIMIT:
            live = [(i, e.offset, e.length, e.seq) for i, e in self.tail.items() if e is not None]
            body = sorted_records(live)
        else:
            body = sorted_array(self.live_records())
        write_catalog(
            self.catalog_path,
            body,
            generation=self.watermark.generation,
            watermark=self.watermark.offset,
            next_seq=self.next_seq,
            # the seal of when the log was read, not a fresh one: a catalog written over a log
            # edited since must not vouch for it
            seal=self.seal if self.seal is not None else 0,
        )
        fresh = Catalog(self.catalog_path)
        if fresh.header is None:
            # written, yet unusable (unreadable: an outside chmod): the tail stays the record,
            # or every item folded into the file would vanish from view (and from a compaction)
            fresh.close()
            raise ShardError(f"cannot read back {self.catalog_path} after writing it")
        self.close()
        self.catalog = fresh
        self.tail.clear()

    def reset(self) -> None:
        """Forget everything; the next refresh starts from the files again."""
        self.close()
        self.tail.clear()
        self.watermark = Watermark("", 0)
        self.seal = 0
        self._stat_seen = (-1, -1)

    def close(self) -> None:
        if self.catalog is not None:
            self.catalog.close()
            self.catalog = None


def _all_at_once(ids: int) -> bool:
    """Whether looking ``ids`` ids up in the catalog at once beats one binary search each."""
    return ids > (_BATCH_LOOKUP if "numpy" in sys.modules else _BATCH_LOOKUP_COLD)


def _members(keys: np.ndarray, ordered: np.ndarray) -> np.ndarray:
    """Which of ``keys`` occur in the sorted array ``ordered`` (``np.isin`` would import
    numpy.ma on large arrays, 10-25 ms at the end of every ingest)."""
    import numpy as np

    if ordered.shape[0] == 0:
        return np.zeros(keys.shape[0], dtype=bool)
    at = np.minimum(np.searchsorted(ordered, keys), ordered.shape[0] - 1)
    found: np.ndarray = ordered[at] == keys
    return found
