"""One ingest session: per-file decisions, item building, batched saves, the source cache.

``ingest_path`` and ``ingest_text`` drive a session; it owns everything between a file's bytes
and the store: the unchanged check (size and mtime, then content hash), decoding and parsing,
the gate and stable ids, the replacement of a changed file's items, and saving in batches that
only ever hold whole files.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from substrate.ingest import report as status
from substrate.ingest.build import ItemBuilder
from substrate.ingest.detect import detect_format
from substrate.ingest.formats import PARSERS, ParseContext
from substrate.ingest.report import FileOutcome, IngestIssue, IngestReport
from substrate.ingest.segment import FileRejected, Parsed
from substrate.ingest.sources import (
    SourceCache,
    SourceState,
    committed_watermark,
    settled_mtime,
)
from substrate.ingest.textio import content_digest, decode_text, read_unless_binary
from substrate.ingest.walk import FileEntry
from substrate.limits import DEFAULT_CHUNK_CHARS

if TYPE_CHECKING:
    from substrate.item import SubstrateItem
    from substrate.store import Substrate

PARSER_VERSION = "1"  # bump when parsing changes, so every source is parsed again once
BATCH_FILES = 200
BATCH_ITEMS = 5000
BATCH_SECONDS = 2.0
PROGRESS_INTERVAL_S = 0.05

ProgressFn = Callable[[int, int, int, int], None]


@dataclass(frozen=True, slots=True)
class IngestOptions:
    """The options that shape the items of a source (a change re-ingests the source)."""

    scope: str = "local"
    tags: tuple[str, ...] = ()
    as_format: str | None = None
    chunk_chars: int = DEFAULT_CHUNK_CHARS
    redact: bool = True

    def fingerprint(self) -> str:
        text = "\x1f".join(
            [
                PARSER_VERSION,
                self.scope,
                "\x1e".join(self.tags),
                self.as_format or "",
                str(self.chunk_chars),
                "1" if self.redact else "0",
            ]
        )
        return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


@dataclass(slots=True)
class _Change:
    """The complete outcome of one file, applied to the store in a batch."""

    key: str
    items: list[SubstrateItem] = field(default_factory=list)
    removes: list[str] = field(default_factory=list)
    state: SourceState | None = None  # None: forget the source


class IngestSession:
    """Processes files one by one and saves their changes in batches."""

    def __init__(
        self,
        substrate: Substrate,
        options: IngestOptions,
        report: IngestReport,
        progress: ProgressFn | None,
        cancel: threading.Event | None,
    ) -> None:
        self.substrate = substrate
        self.options = options
        self.fingerprint = options.fingerprint()
        self.report = report
        self.progress = progress
        self.cancel = cancel
        self.cache = SourceCache.open(substrate)
        self.pending: list[_Change] = []
        self.pending_items = 0
        self.last_flush = time.monotonic()
        self.last_progress = 0.0

    # -- batching ---------------------------------------------------------------------------

    def queue(self, change: _Change) -> None:
        self.pending.append(change)
        self.pending_items += len(change.items) + len(change.removes)
        if (
            len(self.pending) >= BATCH_FILES
            or self.pending_items >= BATCH_ITEMS
            or time.monotonic() - self.last_flush >= BATCH_SECONDS
        ):
            self.flush()

    def flush(self) -> None:
        """Apply and save the queued files (safe to call again if it was interrupted)."""
        substrate = self.substrate
        if self.pending:
            if substrate.root is not None:
                self.cache.catch_up(substrate)  # fold in other writers before stamping
            for change in self.pending:
                for item_id in change.removes:
                    substrate.remove(item_id)
                for item in change.items:
                    substrate.put(item)
            if substrate.root is not None:
                substrate.save()
                self.cache.watermark = committed_watermark(substrate)
            for change in self.pending:
                if change.state is None:
                    self.cache.drop(change.key)
                else:
                    self.cache.record(change.key, change.state)
            self.pending.clear()
            self.pending_items = 0
        self.last_flush = time.monotonic()

    def finish(self) -> None:
        self.flush()
        self.cache.save(committed_watermark(self.substrate))

    def tick(self, done: int, total: int, *, force: bool = False) -> None:
        if self.progress is None:
            return
        now = time.monotonic()
        if force or now - self.last_progress >= PROGRESS_INTERVAL_S:
            self.last_progress = now
            self.progress(done, total, self.report.items_added, self.report.bytes_read)

    # -- one file ---------------------------------------------------------------------------

    def outcome(self, source: str, path: str | None, state: str, reason: str = "") -> FileOutcome:
        result = FileOutcome(source, state, path, reason)
        self.report.files.append(result)
        return result

    def unchanged(self, source: str) -> None:
        self.report.unchanged.append(source)

    def fail(self, source: str, path: str | None, reason: str, **where: int | None) -> None:
        line, byte = where.get("line"), where.get("byte")
        self.report.note(IngestIssue(source, reason, line, byte, fatal=True))
        where_text = (
            f"line {line}: " if line is not None else f"byte {byte}: " if byte is not None else ""
        )
        self.outcome(source, path, status.FAILED, where_text + reason).errors = 1

    def process_file(self, entry: FileEntry, source: str, max_size: int) -> None:
        key = entry.path
        skipped = self.cache.unchanged(key, entry.size, entry.mtime_ns, self.fingerprint)
        if skipped is not None:
            if skipped:
                self.outcome(source, key, status.SKIPPED, skipped)
            else:
                self.report.unchanged.append(source)
            return
        cached = self.cache.get(key)
        same_options = cached is not None and cached.options == self.fingerprint
        if entry.size > max_size:
            reason = f"larger than the size limit ({entry.size} > {max_size} bytes)"
            self.outcome(source, key, status.SKIPPED, reason)
            return
        fmt = self.options.as_format or detect_format(entry.rel)
        if fmt is None:
            self.outcome(source, key, status.SKIPPED, "unsupported format")
            return
        try:
            data, binary = read_unless_binary(key)
        except OSError as exc:
            self.fail(source, key, f"cannot read: {exc.strerror or exc}")
            return
        if binary:
            self.report.bytes_read += len(data)
            ids = cached.ids if cached is not None else []
            mtime_ns = settled_mtime(entry.mtime_ns, time.time())
            state = SourceState(entry.size, mtime_ns, "", self.fingerprint, ids, "binary file")
            self.cache.record(key, state)
            self.outcome(source, key, status.SKIPPED, "binary file")
            return
        self.report.bytes_read += len(data)
        digest = content_digest(data)
        if cached is not None and same_options and cached.content_hash == digest:
            self.cache.touch(key, entry.size, settled_mtime(entry.mtime_ns, time.time()))
            self.unchanged(source)
            return
        meta = {"path": key, "content_hash": digest, "size": entry.size, "mtime_ns": entry.mtime_ns}
        self.ingest_blob(key, source, data, fmt, meta, key, cached)

    def ingest_blob(
        self,
        key: str,
        source: str,
        data: bytes,
        fmt: str,
        meta: dict[str, Any],
        path: str | None,
        cached: SourceState | None,
    ) -> None:
        try:
            text = decode_text(data)
            parsed = PARSERS[fmt](text, ParseContext(self.options.chunk_chars, path, source))
        except FileRejected as exc:
            self.fail(source, meta.get("path"), exc.reason, line=exc.line, byte=exc.byte)
            return
        change = self.build(key, source, parsed, meta, cached)
        self.queue(change)

    def build(
        self,
        key: str,
        source: str,
        parsed: Parsed,
        meta: dict[str, Any],
        cached: SourceState | None,
    ) -> _Change:
        report = self.report
        now = time.time()
        builder = ItemBuilder(
            key,
            scope=self.options.scope,
            tags=self.options.tags,
            redact=self.options.redact,
            report=report,
            created_at=now,
        )
        fmt, fingerprint = parsed.format, self.fingerprint
        path, digest = meta.get("path"), meta["content_hash"]
        size, mtime_ns = meta.get("size"), meta.get("mtime_ns")
        mtime = mtime_ns / 1e9 if mtime_ns is not None else None
        computed = {"format": fmt, "content_hash": digest, "ingest_options": fingerprint}
        items: list[SubstrateItem] = []
        for position, seg in enumerate(parsed.segments):
            prov = {
                "source": source,
                "path": path,
                "section": seg.section,
                "line_start": seg.line_start,
                "line_end": seg.line_end,
                "chunk": seg.chunk,
                "index": position,
                "size": size,
                "mtime": mtime,
                "mtime_ns": mtime_ns,
                "ingested_at": now,
            }
            if seg.extra:
                prov.update(seg.extra)
            item = builder.build(seg, prov, computed=computed)
            if item is not None:
                items.append(item)
        for issue in parsed.issues:
            report.note(IngestIssue(source, issue.reason, issue.line))
        old_ids = cached.ids if cached is not None else []
        ids = [item.id for item in items]
        if len(set(ids)) != len(ids):  # only on a hash collision: keep the last of each id
            items = list({item.id: item for item in items}.values())
            ids = [item.id for item in items]
        removes: list[str] = []
        if old_ids:
            new_ids = set(ids)
            removes = [i for i in old_ids if i not in new_ids]
            kept = new_ids.intersection(old_ids)
            if kept:
                self.keep_creation_times(items, kept)
        mtime_state = settled_mtime(mtime_ns, now) if mtime_ns is not None else -1
        change = _Change(
            key, items, removes, SourceState(size or 0, mtime_state, digest, fingerprint, ids)
        )
        if old_ids:
            state = status.UPDATED
        elif items:
            state = status.ADDED
        else:
            state = status.SKIPPED
        result = self.outcome(source, meta.get("path"), state, "" if items else "no content")
        result.items_added = len(items)
        result.items_removed = len(change.removes)
        result.errors = len(parsed.issues)
        report.items_added += len(items)
        report.items_removed += len(change.removes)
        report.ids.extend(ids)
        return change

    def keep_creation_times(self, items: list[SubstrateItem], kept: set[str]) -> None:
        """Items that survive a change keep their original ``created_at`` (their age)."""
        for item in items:
            if item.id in kept:
                old = self.substrate.get(item.id)
                if old is not None and old.text == item.text:
                    item.created_at = old.created_at

    def prune(self, root: str, seen: set[str]) -> None:
        for key in self.cache.missing_under(root, seen):
            state = self.cache.get(key)
            ids = state.ids if state is not None else []
            source = os.path.relpath(key, root).replace(os.sep, "/")
            result = self.outcome(source, key, status.REMOVED, "no longer present")
            result.items_removed = len(ids)
            self.report.items_removed += len(ids)
            self.queue(_Change(key, [], list(ids), None))
