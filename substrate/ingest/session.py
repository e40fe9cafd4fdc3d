"""One ingest session: per-file decisions, batched saves, the source cache.

``ingest_path`` and ``ingest_text`` drive a session. It plans each file (the unchanged check by
size and mtime; a ``Ticket`` for a file that must be read), has tickets prepared
(``substrate.ingest.prepare``: here, or in worker processes) and applies what they give in file
order: outcomes, the replacement of a changed file's items, and saves in batches that only ever
hold whole files.
"""

from __future__ import annotations

import functools
import os
import stat
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from substrate.cloudfiles import in_the_cloud
from substrate.compressed import compressed_name, inner_name
from substrate.errors import ShardError
from substrate.gate import UNREDACTED_KEY
from substrate.ingest import prepare as prep
from substrate.ingest import report as status
from substrate.ingest.detect import detect_format, file_format, lock_file, tool_copy
from substrate.ingest.earlier import (
    CARRIED_KEYS,
    carried_line,
    carry_over,
    held_by_rejected_lines,
    withdrawal_lead,
    withdrawn_proposals,
)
from substrate.ingest.ignore import IgnoreStack
from substrate.ingest.moves import MovedFiles
from substrate.ingest.parallel import chunks
from substrate.ingest.prepare import IngestOptions, Prepared, Ticket, prepare_many
from substrate.ingest.report import FileOutcome, GateTally, IngestIssue, IngestReport
from substrate.ingest.sourcekeys import cache_origin, shown_origin, source_key
from substrate.ingest.sources import (
    KEPT_REJECTIONS,
    LastRead,
    SourceCache,
    SourceState,
    committed_watermark,
    naming_key,
    settled_mtime,
)
from substrate.ingest.textio import read_head, starts_binary
from substrate.ingest.walk import FileEntry
from substrate.item import place_value
from substrate.itemline import decode, encode
from substrate.limits import reads_alike_grown
from substrate.lineprefixes import LinePrefixes
from substrate.linesdigest import LinesDigest
from substrate.locking import LockBusy
from substrate.secrets import safe_text
from substrate.secrets.engine import find_secrets
from substrate.secrets.paths import safe_path
from substrate.secrets.screen import may_hold_secrets

if TYPE_CHECKING:
    from substrate.item import SubstrateItem
    from substrate.log import Watermark
    from substrate.store import Substrate

BATCH_FILES = 1000
BATCH_ITEMS = 10000
BATCH_SECONDS = 2.0
PROGRESS_INTERVAL_S = 0.05
CHECKPOINT_LINES = 256

ProgressFn = Callable[[int, int, int, int], None]


@dataclass(slots=True)
class _Change:
    """The complete outcome of one file, applied to the store in a batch."""

    key: str
    items: list[SubstrateItem] = field(default_factory=list)
    removes: list[str] = field(default_factory=list)
    state: SourceState | None = None  # None: forget the source
    encoded: list[tuple[str, bytes]] = field(default_factory=list)  # items as log lines
    named: str = ""  # the source's masked name in the cache ("": its own)
    told: FileOutcome | None = None  # what the report says of it, taken back if not saved
    tally: GateTally | None = None  # what the gate did to its items, counted in the report
    pruned: bool = False  # its file was not found by the walk
    source: str = ""  # the source's name, for a change told only as unchanged (``told`` None)

    def written_ids(self) -> Iterator[str]:
        """The ids of the items the change writes."""
        yield from (item_id for item_id, _ in self.encoded)
        yield from (item.id for item in self.items)

    def lines(self) -> Iterator[tuple[str, bytes]]:
        """Every item of the change as ``(id, log line)``, in file order."""
        yield from self.encoded
        for item in self.items:
            yield item.id, encode(item)


_NOW_BINARY = (
    "reads as binary now (NUL bytes), where it held text: its {} earlier item(s) are kept; "
    "restore the file, or add it to .mixleignore to let them go"
)
_NOW_EMPTY = (
    "is empty now (0 bytes), where it held text: its {} earlier item(s) are kept; restore the "
    "file, or delete it (or add it to .mixleignore) to let them go"
)
# (one written within the racy window: an editor truncating it to write it again)
_BEING_SAVED = (
    "is empty now (0 bytes), written a moment ago (being saved?): its {} earlier item(s) are "
    "kept, and the next run reads it again"
)
_REPLACED = "its file changed, and the item was replaced; propose the new version to send it"
_PUBLISHED_GONE = (
    "item {id}, published into {scope}, stays there with the text of a file no longer here; "
    "remove it there (`mixle rm`) if it should go too"
)
_PUBLISHED_MOVED = (
    "item {id}, published into {scope}, stays there; its file {moved}, where its text is a "
    "new item of this scope: propose or publish that one to send it on"
)
_PUBLISHED_AS_WAS = (
    "item {id}, published into {scope}, keeps the text the file no longer has; the file's new "
    "text is a new item here: propose or publish it to send it"
)

# What a touch changes in an item's provenance (when its file was written, and when it was
# read), and what reviews write on the stored item
_NOT_COMPARED = frozenset({"mtime", "mtime_ns", "ingested_at", *CARRIED_KEYS})


def _same_but_when(new: SubstrateItem, old: SubstrateItem) -> bool:
    """Whether ``new`` is ``old`` read again from a file only touched: the same in all but
    ``_NOT_COMPARED``. Lines moved by an edit (``line_start``) or a size changed tell an edit,
    which the same ids do not."""

    def kept(item: SubstrateItem) -> tuple[Any, ...]:
        provenance = {k: v for k, v in item.provenance.items() if k not in _NOT_COMPARED}
        return (item.kind, item.text, item.payload, item.scope, item.tags, item.links, provenance)

    return kept(new) == kept(old)


def _left_as_stored(done: Prepared, kept: set[str], previous: dict[str, SubstrateItem]) -> bool:
    """Whether the items ``kept`` of a file read again are stored as they are: the file only
    grew by whole lines since (``prepare.Prepared.grown_from``), holds no secret (none masked,
    none of its items to mask again), and each of them is stored under its id (those
    published elsewhere since are no longer ``kept``)."""
    if not done.grown_from or not done.digest:
        return False
    return all(item_id in previous for item_id in kept)


_UNMASKED_BEFORE = (
    "its items stored before held secrets unmasked (ingested with --no-redact, or before a "
    "rule found them): those lines stay in items.jsonl, and their words in the search index, "
    "until `mixle compact` rewrites both"
)


def _taken_by_another_file(
    fresh: set[str],
    stored: dict[str, SubstrateItem],
    items: list[SubstrateItem],
    encoded: list[tuple[str, bytes]],
) -> set[str]:
    """Of the ids a changed file gives anew (``fresh``), those ``stored`` already as the item
    of another source of its scope: a merge gave that item the other source's text and origin
    (``merge_versions``). Written again, the merged text would be lost."""
    found = [i for i in fresh if i in stored]
    if not found:
        return set()
    mine = items[0] if items else decode(encoded[0][1]) if encoded else None
    origin = source_key(mine) if mine is not None else None
    return {i for i in found if source_key(stored[i]) != origin}


def _held_unmasked(items: dict[str, SubstrateItem]) -> bool:
    """Whether one of ``items``, read from the shard, holds a secret as it is: stored so
    (``--no-redact``: the gate noted it, in a record's fields too, whose text shows no key
    beside the value), its line outlives the item that replaces it."""
    if any(UNREDACTED_KEY in item.provenance for item in items.values()):
        return True
    texts = [item.text for item in items.values()]  # (or stored before a rule found it)
    return may_hold_secrets(texts) and any(find_secrets(text) for text in texts)


OVER_THE_SIZE_LIMIT = "larger than the size limit"


def too_large(size: int | None, limit: int) -> str:
    """Why a file (or stream) of ``size`` bytes is skipped (None: a stream not read past
    the limit); it starts with ``OVER_THE_SIZE_LIMIT``."""
    if size is None:
        return f"{OVER_THE_SIZE_LIMIT} (more than {limit} bytes)"
    return f"{OVER_THE_SIZE_LIMIT} ({size} > {limit} bytes)"


class IngestSession:
    """Decides file by file what to do, and saves the changes in batches."""

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
        self.fingerprint = options.fingerprint()  # recorded in each item's provenance
        # what the cache records its sources under: the options and the folder naming them
        self.cache_key = naming_key(self.fingerprint, "")
        self.name_prefix = ""  # the path to the folder walked from the one naming its files
        self.report = report
        self.progress = progress
        self.cancel = cancel
        self.cache = SourceCache.open(substrate, options.scope)
        self.pending: list[_Change] = []
        self.pending_items = 0
        self.last_flush = time.monotonic()
        self.last_progress = 0.0
        self.files_found = 0  # by the walk so far
        self.files_done = 0  # settled: planned without reading, or prepared and applied
        self.walked_all = False  # the walk ended without being cancelled
        # Files are reported in walk order, whichever process reads them and however far
        # planning runs ahead: a file settled while files planned before it are still being
        # read waits for them (see ``settle``).
        self.handed_out = 0  # tickets planned so far
        self.applied = 0  # tickets applied so far
        self.waiting: deque[tuple[int, Callable[..., object], tuple[Any, ...]]] = deque()
        self.within: str | None = None  # the path walked: files read must lie in it
        self.rehash = False  # read every file: its size and mtime prove nothing
        # called under the writer lock before each save: raising refuses it (``ingest_path``)
        self.authorize: Callable[[], None] | None = None
        # a new file with the content of a file gone from the disk removes that file's items
        # (it was moved or renamed, perhaps out of the folder walked): ``ingest_path`` sets it
        # as it prunes
        self.let_go_of_moved = False
        self.gone: set[str] = set()  # sources whose items this run removes: pruned or moved
        self.written: set[str] = set()  # ids of items this run writes or meant to write
        self.moves = MovedFiles(substrate, self.cache, self.gone, self.written)
        self.naming_folder = ""  # the folder files are named from (``name_from``)
        # files of no format mixle knows that these rules match are read as plain text
        # (``ingest_path``'s ``as_text``: source code, configuration)
        self.as_text = IgnoreStack()
        # files read before that no format claims now (a rule of ``as_text`` dropped): their
        # items are pruned as those of a file gone
        self.unclaimed: set[str] = set()

    # -- batching ---------------------------------------------------------------------------

    def queue(self, *changes: _Change) -> None:
        """Queue changes, to be saved together, and save the queue when it is full."""
        self.pending.extend(changes)  # (one call: an interrupt cannot queue only the first)
        for change in changes:
            self.pending_items += len(change.items) + len(change.encoded) + len(change.removes)
            if change.pruned:
                self.gone.add(change.key)
        if (
            len(self.pending) >= BATCH_FILES
            or self.pending_items >= BATCH_ITEMS
            or time.monotonic() - self.last_flush >= BATCH_SECONDS
        ):
            self.flush()

    def flush(self, *, wait: bool = True) -> None:
        """Apply and save the queued files (safe to call again if it was interrupted). With
        ``wait=False`` (an interrupted run) a shard another writer holds is not waited for:
        the queued files are told as not saved."""
        substrate = self.substrate
        if self.pending:
            if substrate.root is None:
                for change in self.pending:
                    for item_id in change.removes:
                        substrate.remove(item_id)
                    for item in change.items:
                        substrate.put(item)
                    for _, line in change.encoded:
                        substrate.put(decode(line))
                self.record_pending()
            else:  # no other writer between the catch-up and the append
                with ExitStack() as held:
                    try:
                        held.enter_context(substrate.writer_lock(wait=wait))
                        self.catch_up_pending()
                        if self.authorize is not None:  # against the settings saved now
                            substrate.reload_settings()
                            self.authorize()
                    except LockBusy:
                        if wait:  # waited as long as it may (``wait_for_locks_at_most``)
                            self.unsaid("another process was writing to the shard")
                            raise
                        # an interrupted run on its way out: nothing of these files is
                        # stored, as of the files after them, and a rerun reads them all
                        self.unsaid("", reached=False)
                        return
                    except (OSError, ShardError) as exc:  # a lock file that cannot be opened
                        self.unsaid(getattr(exc, "strerror", None) or str(exc))
                        raise
                    covered = self.cache.watermark
                    last = substrate.last_append
                    # one append, or nothing if interrupted: the removals, then the items
                    try:
                        substrate.save_encoded(
                            [line for change in self.pending for line in change.lines()],
                            [item_id for change in self.pending for item_id in change.removes],
                            bulk=True,  # ``finish`` folds what the run saved
                        )
                        self.cache.watermark = self.covered_after_save(covered)
                        self.record_pending()
                    except BaseException as exc:  # Ctrl-C, a full disk: perhaps once appended
                        if not self.kept_if_appended(covered, last) and isinstance(
                            exc, OSError | ShardError
                        ):  # this batch is lost (a Ctrl-C leaves it queued for the way out)
                            self.unsaid(getattr(exc, "strerror", None) or str(exc))
                        raise
        self.last_flush = time.monotonic()

    def record_pending(self) -> None:
        """Record the queued changes, saved, in the source cache."""
        for change in self.pending:
            if change.state is None:
                self.cache.drop(change.key)
            else:
                self.cache.record(change.key, change.state, change.named)
        self.pending.clear()
        self.pending_items = 0

    def kept_if_appended(self, covered: Watermark, last: Any) -> bool:
        """After a save that failed or was interrupted, record the queued changes if their
        append was committed all the same (the catalog's write after it failed, a Ctrl-C
        came during its last steps). Left queued, the next flush would read the batch back as
        another run's and tell its files as unchanged; told as lost, they would be stored
        and said not to be.

        ``covered``: the log's committed end before the save, which the catch-up under the
        writer lock brought the cache to; ``last``: the store's ``last_append`` then. A new
        ``last_append`` is the proof; without one (a Ctrl-C between the commit and its
        record), a log whose end moved within the same generation holds the batch, as the
        lock is held (a header-less log's conversion, or a first batch, renews the
        generation: then nothing proves it, and the batch is taken as not appended)."""
        written = self.substrate.last_append
        if written is not None and written is not last:
            appended = written[1]
        else:
            try:
                appended = committed_watermark(self.substrate)
            except (OSError, ShardError):  # unreadable now: taken as not appended
                return False
            if appended == covered or appended.generation != covered.generation:
                return False
        if self.cache.watermark == covered:  # else it was moved past the batch already
            self.cache.watermark = appended
        self.record_pending()
        return True

    def unsaid(self, why: str, *, reached: bool = True) -> None:
        """Take back what the report told of the queued changes, which could not be saved:
        their files failed (``why``), or, not ``reached``, are told as the files a run stopped
        early did not reach; their items were neither added nor removed."""
        report = self.report
        lost: set[str] = set()
        for change in self.pending:
            lost.update(item.id for item in change.items)
            lost.update(item_id for item_id, _ in change.encoded)
            if change.tally is not None:
                report.take_back_tally(change.tally)
            told = change.told
            if told is not None:
                report.take_back_items(told)
                told.items_added = told.items_rewritten = told.items_removed = 0
                told.status, told.reason = status.FAILED, f"not saved: {why}"
                if not reached:
                    _take_back(report, told)
        report.ids = [item_id for item_id in report.ids if item_id not in lost]
        self.pending.clear()  # told as failed: a later save must not store them after all
        self.pending_items = 0

    def catch_up_pending(self) -> None:
        """Fold in what other writers saved since the cache was read, and have each queued
        change remove too the items another run gave its source meanwhile: of two runs
        ingesting one source at once, the later one's items replace both runs' (its removals
        were worked out before the other's items existed). Items other runs published
        meanwhile stay where they went (``leave_published``), and what they removed is left
        out of the removals (``keeps_removals``)."""
        before = self.cache.watermark
        if not self.cache.catch_up(self.substrate):
            # the log was rewritten (compacted): what other runs did is not known item by
            # item; the items themselves tell which were published
            elsewhere = self.now_elsewhere()
            self.pending = [c for c in self.pending if self.leave_published(c, elsewhere)]
            return
        if self.cache.watermark == before:
            return
        still: list[_Change] = []
        elsewhere = self.cache.published_meanwhile
        for change in self.pending:
            if not self.leave_published(change, elsewhere):
                continue  # a gone file's items, all published meanwhile: taken back
            state = self.cache.get(change.key)
            if change.pruned and self.cache.stored_meanwhile(change.key):
                self.unprune(change)
                continue
            if change.removes and not self.keeps_removals(change, state):
                continue  # a gone file's items, all removed by another run: taken back
            if change.pruned or state is None:
                still.append(change)
            elif _same_version(state, change.state):
                self.done_elsewhere(change)
            else:
                kept = set(change.removes).union(change.state.ids if change.state else ())
                # (never what this run wrote, as an earlier save of it may hold them, nor
                # what was published meanwhile)
                written = self.written
                others = [
                    i
                    for i in state.ids
                    if i not in kept and i not in written and i not in elsewhere
                ]
                if others:
                    self.told_of(change)
                    change.removes += others
                    self.recount_removals(change, len(others))
                if change.state is not None:  # the source stays known by its published items
                    published = [i for i in state.ids if i in elsewhere and i not in kept]
                    change.state.ids += published
                still.append(change)
        self.pending = still

    def now_elsewhere(self) -> set[str]:
        """Of the items the queued changes remove or write again, those stored now in
        another scope than the one ingested into (published)."""
        ids = {i for change in self.pending for i in change.removes}
        ids.update(i for change in self.pending for i in change.written_ids())
        return self.moved_elsewhere(self.substrate.read_items(ids, keep=False))

    def told_of(self, change: _Change) -> FileOutcome:
        """What the report says of a queued change; a file told unchanged (touched only) is
        told updated now: it also removes what another run gave it meanwhile."""
        if change.told is None:
            told = FileOutcome(change.source, status.UPDATED, change.key)
            told.items_rewritten = sum(1 for _ in change.written_ids())
            self.report.items_rewritten += told.items_rewritten
            change.told = told
            self.report.files.append(told)
            self.report.unchanged.remove(change.source)
        return change.told

    def leave_published(self, change: _Change, elsewhere: set[str]) -> bool:
        """Have a queued change neither remove nor write again the items another run
        published meanwhile (``elsewhere``): they stay where they went, and the source stays
        known by them, so that its file, restored, does not write its items over them. False
        when a gone file's removal is left with nothing to remove: it is taken back."""
        removed = [i for i in change.removes if i in elsewhere]
        rewritten = [i for i in change.written_ids() if i in elsewhere]
        if not (removed or rewritten):
            return True
        if change.pruned and len(removed) == len(change.removes):
            self.unprune(change)
            return False
        gone = set(removed).union(rewritten)
        # approved (published) since it was read: its proposal was not withdrawn after all
        leads = tuple(withdrawal_lead(i) for i in gone)
        self.report.notices = [n for n in self.report.notices if not n.reason.startswith(leads)]
        change.removes = [i for i in change.removes if i not in gone]
        change.items = [item for item in change.items if item.id not in gone]
        change.encoded = [line for line in change.encoded if line[0] not in gone]
        if change.state is None:
            change.state = _known_by_published([], self.cache_key)
        change.state.ids += sorted(gone.difference(change.state.ids))
        report, told = self.report, change.told
        report.ids = [i for i in report.ids if i not in gone]
        if told is None:  # told unchanged (touched only): nothing of it was counted
            return True
        # stored before, so told as rewritten (unless another run wrote them first)
        as_rewritten = min(len(rewritten), told.items_rewritten)
        as_added = len(rewritten) - as_rewritten
        self.recount_removals(change, -len(removed))
        report.items_rewritten -= as_rewritten
        report.items_added -= as_added
        told.items_rewritten -= as_rewritten
        told.items_added -= as_added
        return True

    def done_elsewhere(self, change: _Change) -> None:
        """Report as unchanged a queued file that another run stored meanwhile, item for item
        as this one would (two runs over one tree at once): saving it again would only
        rewrite it."""
        report = self.report
        if change.tally is not None:  # the other run's redactions: counted there
            report.take_back_tally(change.tally)
        told = change.told
        if told is not None:
            report.take_back_items(told)
            report.files.remove(told)
            report.unchanged.append(told.source)
        written = {item.id for item in change.items}.union(i for i, _ in change.encoded)
        report.ids = [item_id for item_id in report.ids if item_id not in written]

    def keeps_removals(self, change: _Change, state: SourceState | None) -> bool:
        """Leave out of a queued change's removals the items another run removed since it
        was queued (its report tells it). False when a gone file's removal has nothing left:
        it is taken back."""
        owned = set(state.ids) if state is not None else set()
        left = [i for i in change.removes if i in owned]
        if len(left) == len(change.removes):
            return True
        if change.pruned and not left:
            self.unprune(change)
            return False
        self.recount_removals(change, len(left) - len(change.removes))
        change.removes = left
        return True

    def recount_removals(self, change: _Change, more: int) -> None:
        """Count ``more`` removals (fewer when negative) in what a queued change is told and
        in the report's total, which is the sum of the files'."""
        if change.told is not None:
            change.told.items_removed += more
            self.report.items_removed += more

    def unprune(self, change: _Change) -> None:
        """Take back the prune of a file another run stored after this run's walk began: the
        walk may have passed its folder before the file was there."""
        report, told = self.report, change.told
        if told is not None:
            report.take_back_items(told)  # (a prune's: removed items alone)
            _take_back(report, told)

    def covered_after_save(self, covered: Watermark) -> Watermark:
        """How far into the log the cache reaches once this run's batch is recorded in it.

        The end of the batch when the batch directly followed what the cache covered; else
        another writer slipped lines in between, and the cache stays where it was, so that the
        next catch-up folds them (and this batch again, which changes nothing).
        """
        written = self.substrate.last_append
        if written is None:
            return covered
        start, end = written
        if start == covered or (start.offset == 0 and covered.offset == 0):
            return end
        return covered

    def finish(self, *, checkpoint: bool = True, wait: bool = True) -> None:
        """Save what is queued and the source cache; with ``checkpoint``, fold the lines this
        run wrote into the catalog when they are many (an interrupted run leaves that to the
        next open: it only saves time); ``wait``: as ``flush`` has it."""
        self.record_waiting()
        self.flush(wait=wait)
        if self.substrate.root is not None:
            self.cache.catch_up(self.substrate)  # what other writers added since the last save
        index_dir = self.cache.index_dir
        if self.cache.watermark.offset or index_dir is None or index_dir.exists():
            self.cache.save(self.cache.watermark)
        # else a new shard was given no item (interrupted at once, every file skipped): with no
        # log it is no shard, and a cache alone would only leave a folder that looks like one
        report = self.report
        if checkpoint and (report.items_added or report.items_rewritten or report.items_removed):
            # every later open would fold the lines this run wrote; fold them once now, when
            # they are many next to the shard (a catalog write costs one pass over it)
            threshold = max(CHECKPOINT_LINES, len(self.substrate) // 512)
            self.substrate.checkpoint(min_lines=threshold)

    def tick(self, *, force: bool = False) -> None:
        """Report progress: files settled, files found so far (final once the walk ends)."""
        if self.progress is None:
            return
        now = time.monotonic()
        if force or now - self.last_progress >= PROGRESS_INTERVAL_S:
            self.last_progress = now
            report = self.report
            self.progress(self.files_done, self.files_found, report.items_added, report.bytes_read)

    # -- one file ---------------------------------------------------------------------------

    def settle(self, record: Callable[..., object], *args: Any) -> None:
        """Call ``record(*args)`` to report a file settled without reading it: now, or, when
        files planned before it are still being read, once they have been applied."""
        if self.applied == self.handed_out:
            record(*args)
        else:
            self.waiting.append((self.handed_out, record, args))

    def record_waiting(self, upto: int | None = None) -> None:
        """Report the waiting files that come before ticket number ``upto`` (all if None)."""
        waiting = self.waiting
        while waiting and (upto is None or waiting[0][0] <= upto):
            _, record, args = waiting.popleft()
            record(*args)

    def outcome(self, source: str, path: str | None, state: str, reason: str = "") -> FileOutcome:
        result = FileOutcome(source, state, path, reason)
        self.report.files.append(result)
        return result

    def as_last_read(self, source: str, key: str, last: LastRead) -> None:
        """Report a file found as it was last read: skipped again (``last.skipped``: why), or
        unchanged."""
        if last.skipped:  # binary, or empty: nothing it holds is stored
            self.outcome(source, key, status.SKIPPED, last.skipped)
        else:
            self.unchanged(source, key, last)

    def unchanged(self, source: str, path: str, last: LastRead) -> None:
        """Note an unchanged file, and again the lines of it its parser rejected last time: a
        run that reads nothing must not make them look fixed (a cron job would go quiet)."""
        self.report.unchanged.append(source)
        for line, reason in last.rejected:
            told = f"{reason}; still there (the file is unchanged since it was read)"
            self.report.note(IngestIssue(source, told, line, path=path))
        more = last.problems - len(last.rejected)
        if more > 0:
            others = "more " if last.rejected else ""
            reason = f"{more} {others}line(s) rejected when this file was read are still there"
            self.report.note(
                IngestIssue(source, reason + "; fix them and ingest it again", path=path)
            )

    def fail(self, source: str, path: str | None, reason: str, **where: int | None) -> None:
        self.report.failed(source, path, reason, where.get("line"), where.get("byte"))

    def name_from(self, folder: Path, walked: Path) -> None:
        """Name each file by its path from ``folder``, which holds the ``walked`` one (the
        folder counts among the options: a file named from another is read again)."""
        self.cache_key = self.key_for(folder)
        self.naming_folder = str(folder)
        prefix = walked.relative_to(folder).as_posix()
        self.name_prefix = "" if prefix == "." else prefix

    def key_for(self, folder: Path) -> str:
        """The ``naming_key`` of files named from ``folder``, whose name is masked as the
        items' paths mask it (a cache rebuilt from them must find the same key)."""
        shown = safe_path(str(folder)) if self.options.redact else str(folder)
        return naming_key(self.fingerprint, shown)

    def source_of(self, rel: str) -> str:
        """The source name of the file at ``rel`` in the folder walked."""
        return f"{self.name_prefix}/{rel}" if self.name_prefix else rel

    def planned(
        self,
        folders: Iterable[list[FileEntry]],
        seen: set[str],
        max_size: int,
        *,
        asked_for: bool,
    ) -> Iterator[Ticket]:
        """The tickets of the files that must be read, planned (``plan``) a folder's files at a
        time as the walk hands them out; the paths of all of them are added to ``seen``. Stops
        early when the run is cancelled; ``walked_all`` tells whether it went through."""
        cancel, progress = self.cancel, self.progress
        again = bool(seen)  # a report gathering several paths: a file walked already is done
        for files in folders:
            if cancel is not None and cancel.is_set():
                return
            if again:  # (``ingest notes notes/sub``: counted and reported once)
                files = [entry for entry in files if entry.path not in seen]
            seen.update([entry.path for entry in files])
            self.files_found += len(files)
            self.report.files_scanned += len(files)  # a report may gather several paths
            for entry in files:
                ticket = self.plan(entry, self.source_of(entry.rel), max_size, asked_for=asked_for)
                if ticket is None:
                    self.files_done += 1
                    if progress is not None:  # an unchanged tree is planned file after file
                        self.tick()
                else:
                    self.handed_out += 1
                    yield ticket
        self.walked_all = True

    def only_grew(self, entry: FileEntry, cached: SourceState) -> bool:
        """Whether the file of ``entry``, read before as ``cached``, has only grown since by
        lines read alike (a log): its first bytes, up to the size it had, hash as they did."""
        if not reads_alike_grown(self.format_of(entry), cached.size):
            return False
        try:  # (read as a file to ingest is: a link or a FIFO put in its place is not read)
            head = read_head(entry.path, self.within, cached.size)
        except OSError:
            return False
        known = LinesDigest.parse(cached.content_hash)  # (one that held a secret)
        if known is not None:
            return known.of(head, cached.size) == known.digest
        return LinePrefixes(entry.path, head).of(cached.size) == cached.content_hash

    def format_of(self, entry: FileEntry) -> str | None:
        """The parser a walked file gets: the one forced or its name implies, else plain text
        when an ``as_text`` rule matches its name (or, compressed, the name it holds: "*.conf"
        takes "app.conf.gz")."""
        fmt = file_format(self.options.as_format, entry.rel)
        if fmt is not None:
            return fmt
        names = (entry.rel, inner_name(entry.rel)) if compressed_name(entry.rel) else (entry.rel,)
        if any(self.as_text.ignored(rel, rel.rsplit("/", 1)[-1], False) for rel in names):
            return "text"
        return None

    def plan(
        self, entry: FileEntry, source: str, max_size: int, *, asked_for: bool = False
    ) -> Ticket | None:
        """What to do with a walked file: None when it is settled without reading it (and
        reported through ``settle``).

        ``asked_for``: the caller named this very file, so a format it cannot tell, or a
        size over the limit, is a failure, not a file a folder's walk passes over.
        """
        key = entry.path
        if entry.size > max_size:  # first: a limit lowered since applies to unchanged files too
            if not asked_for and self.format_of(entry) is None:
                # never read, whatever its size: the limit is not what keeps it out
                self.settle(self.outcome, source, key, status.SKIPPED, "unsupported format")
                return None
            reason = too_large(entry.size, max_size)
            cached = self.cache.get(key)
            # not read, so its size tells whether it changed; a state without a content hash
            # was already recorded as left out. Named, it is not stored: a failure (exit 1)
            if cached is not None and cached.size != entry.size and cached.content_hash:
                if not self.only_grew(entry, cached):
                    # it grew past the limit: what it held before is gone (another limit may
                    # take it again, so the skip itself is not remembered)
                    self.settle(
                        self.skip_with_earlier_items, key, source, reason, None, "", asked_for
                    )
                    return None
                reason += "; it only grew: its earlier items kept, the lines added not read"
            if asked_for:
                self.settle(self.fail, source, key, reason)
            else:
                self.settle(self.outcome, source, key, status.SKIPPED, reason)
            return None
        copy = not asked_for and tool_copy(entry.rel)
        if copy or (not asked_for and lock_file(entry.rel)):
            why = status.TOOL_COPY if copy else status.LOCK_FILE
            self.settle(self.outcome, source, key, status.SKIPPED, why)
            self.unclaim(key)  # (ingested before it was known so: its items go)
            return None
        known = None
        if not self.rehash:
            known = self.cache.unchanged(
                key, entry.size, entry.mtime_ns, self.cache_key, entry.stamp
            )
            if known is None and self.cache.other_options(
                key, entry.size, entry.mtime_ns, self.cache_key
            ):
                self.report.files_reoptioned += 1
        if known is not None:
            if self.applied == self.handed_out and not any(known):
                # nothing to tell of it (not skipped, no rejected lines): what ``settle`` and
                # ``as_last_read`` would do, without their calls for most files of a re-ingest
                self.report.unchanged.append(source)
            else:
                self.settle(self.as_last_read, source, key, known)
            return None
        fmt = self.format_of(entry)
        if fmt == "artifact" and not asked_for and detect_format(entry.rel) != "artifact":
            # an artifact folder holds its weights, card and vocabulary beside the manifest:
            # referenced by it, not manifests themselves
            self.settle(self.outcome, source, key, status.SKIPPED, "not a manifest.json")
            return None
        if fmt is None:
            if asked_for:
                self.settle(self.unknown_format, source, key)
            else:
                self.settle(self.outcome, source, key, status.SKIPPED, "unsupported format")
                # read as plain text under these options before (--as-text): it loses its
                # items, as a file gone does
                self.unclaim(key)
            return None
        known_size, digest = self.known_version(key)
        size, mtime_ns = entry.size, entry.mtime_ns
        return Ticket(
            key,
            source,
            key,
            fmt,
            size,
            mtime_ns,
            digest,
            within=self.within,
            stamp=entry.stamp,
            known_size=known_size,
            asked_for=asked_for,
        )

    def unclaim(self, key: str) -> None:
        """Let the items of a file this walk passes over go, as a file gone does, when it was
        read under these options before (one read with other options, such as --as text,
        keeps them, as a file skipped does)."""
        state = self.cache.get(key)
        if state is not None and state.options == self.cache_key:
            self.unclaimed.add(key)

    def unknown_format(self, source: str, key: str) -> None:
        """A file asked for by name whose format is unknown: a failure, unless it is binary
        (an image in a shell glob is no failure)."""
        try:
            binary = starts_binary(key)
        except OSError as exc:
            self.fail(source, key, f"cannot read: {exc.strerror or exc}")
            return
        if binary and not compressed_name(key):  # (a gzip file holds what its name tells)
            self.outcome(source, key, status.SKIPPED, status.BINARY)
        else:
            self.fail(source, key, "unsupported format (choose one with --as)")

    def known_version(self, key: str) -> tuple[int, str]:
        """The size and content hash stored for ``key`` under the same options ((0, "") when
        none, and with ``rehash``: every file is parsed and gated again, its items compared
        with those stored, so that what the gate now does, such as withholding the hash of a
        file that holds a secret, reaches items stored before)."""
        return (0, "") if self.rehash else self.cache.known_version(key, self.cache_key)

    def prepare_here(
        self, tickets: Iterable[Ticket]
    ) -> Generator[tuple[Ticket, Prepared], None, None]:
        """Prepare tickets in this process, a chunk at a time (``prepare_many``)."""
        # for a shard on disk, as log lines: a file's items are held until its one append
        on_disk = self.substrate.root is not None
        for chunk in chunks(tickets):
            yield from zip(
                chunk,
                prepare_many(chunk, self.options, self.fingerprint, encoded=on_disk),
                strict=True,
            )

    def apply(self, ticket: Ticket, done: Prepared) -> None:
        """Record a prepared file: its outcome, and its items queued for the next save."""
        if self.waiting:
            self.record_waiting(self.applied)
        self.applied += 1
        report = self.report
        key, source = ticket.key, ticket.source
        report.bytes_read += done.bytes_read
        all_removed = self.rehash and self.leave_out_removed(ticket, done)
        same = done.status == prep.SAME or all_removed or self.stored_meanwhile(ticket, done)
        touched = not same and self.touched_only(ticket, done)
        counted = done.tally if not (same or touched) else None
        if counted is not None:
            report.add_tally(counted)
        if done.status == prep.FAILED:
            reason = done.reason + self.kept_from_before(key)
            self.fail(source, ticket.path, reason, line=done.line, byte=done.byte)
        elif done.status == prep.GONE:
            self.removed_since_listed(ticket)
        elif done.status == prep.BINARY:
            self.binary(ticket, done)
        elif done.status == prep.TOO_LARGE:  # (not remembered: another limit may take it)
            self.skip_with_earlier_items(key, source, done.reason, None, failed=ticket.asked_for)
        elif same:
            if ticket.size is not None and ticket.mtime_ns is not None:
                settled = settled_mtime(ticket.mtime_ns, done.prepared_at)
                # the size of the bytes hashed: without a line still being written, it is
                # the size the file grows from
                self.cache.touch(key, done.bytes_read, settled, ticket.stamp)
            self.as_last_read(source, key, self.cache.last_read(key))
        elif self.emptied(ticket, done):
            return  # failed, keeping its earlier items
        elif done.issues and not (done.items or done.encoded or done.lines_before):
            # every line was rejected: a broken file, whose earlier items are kept (not a file
            # that only grew by rejected lines: its earlier lines' items are stored)
            for reason, line in done.issues:
                report.note(IngestIssue(source, reason, line, path=ticket.path))
            empty = done.tally.items_dropped if done.tally is not None else 0
            reason = status.nothing_parsed(len(done.issues), empty) + self.kept_from_before(key)
            self.fail(source, ticket.path, reason)
        else:
            # looked for before anything is told or queued: a Ctrl-C during the look-up
            # (it reads the disk and the shard) then leaves neither said nor saved
            moved = self.moved_from(ticket, done) if self.let_go_of_moved else None
            change = self.change_of(ticket, done, touched=touched)
            change.tally = counted
            if moved is None:
                self.queue(change)
            else:
                self.queue_moved(change, ticket, moved)

    def touched_only(self, ticket: Ticket, done: Prepared) -> bool:
        """Whether a file holding a secret (no hash of it is kept) was read again for a new
        size or modification time and gives the items it gave, with the same options: its
        items are written again with the time freshness reads, but the file is unchanged, and
        its secrets are no new redactions. The items removed from it by hand since are left
        out of ``done``, as ``leave_out_removed`` leaves them out of an unchanged file."""
        if done.status != prep.PARSED or done.recorded_hash():
            return False
        cached = self.cache.get(ticket.key)
        if cached is None or cached.skipped or cached.options != self.cache_key:
            return False
        if cached.content_hash:  # stored by an earlier mixle with it: written again without
            return False
        new = done.built_items()
        known = set(cached.ids)
        if not known or not known <= {item.id for item in new}:
            return False
        stored = self.substrate.read_items(cached.ids, keep=False)
        moved = self.moved_elsewhere(stored)  # published since: left where they are
        if not all(
            item.id in moved or (item.id in stored and _same_but_when(item, stored[item.id]))
            for item in new
            if item.id in known
        ):
            return False
        # the others were removed by hand: every item records the file's size and its lines,
        # so an edit that added one would have told in those the file still gives
        done.items = [item for item in done.items if item.id in known]
        if done.encoded:
            done.encoded = [(i, line) for i, line in done.encoded if i in known]
        return True

    def leave_out_removed(self, ticket: Ticket, done: Prepared) -> bool:
        """Leave out of a file read again (``rehash``) the items removed from it by hand
        (``mixle rm``) since it was last ingested, when its content and options are those
        recorded: the file is unchanged, so they stay removed, as they do when it is not read.
        An item that the gate now masks otherwise lies where a stored item does, and replaces
        it. Whether the file gave items, and all of them were left out."""
        cached = self.cache.get(ticket.key)
        digest = done.recorded_hash()
        if done.status != prep.PARSED or not digest or cached is None or cached.skipped:
            return False
        if (cached.content_hash, cached.options) != (digest, self.cache_key):
            return False
        known = set(cached.ids)
        if known.issuperset(done.item_ids()):
            return False
        stored = self.substrate.read_items(cached.ids, keep=False).values()
        places = {place_value(item.provenance.get("index")) for item in stored}

        def taken(item: SubstrateItem) -> bool:  # its place is a stored item's
            return place_value(item.provenance.get("index")) in places

        done.items = [item for item in done.items if item.id in known or taken(item)]
        if done.encoded:  # (a line is decoded only for an id not stored)
            done.encoded = [
                (i, line) for i, line in done.encoded if i in known or taken(decode(line))
            ]
        return not (done.items or done.encoded)

    def stored_meanwhile(self, ticket: Ticket, done: Prepared) -> bool:
        """Whether the file's items are stored already, item for item, as this reading gives
        them: another run stored this very content after it was planned (a file read ahead in
        a worker is applied after a save that folded the other run's writes in), or the file
        holds a secret, so that no hash of it tells it unchanged, and only its items can.
        Written again, its items would only be rewritten, and the file told as updated."""
        if done.status != prep.PARSED:
            return False
        cached = self.cache.get(ticket.key)
        if cached is None or cached.skipped:
            return False
        if not done.recorded_hash() and not self.recorded_as_read(cached, ticket):
            return False  # touched: its items are written again with the time freshness reads
        ids = done.item_ids()
        found = SourceState(0, 0, done.recorded_hash(), self.cache_key, ids)
        return bool(ids) and _same_version(cached, found)

    def recorded_as_read(self, cached: SourceState, ticket: Ticket) -> bool:
        """Whether the file's stored items record the size and modification time it has now.
        The cache forgets a time too close to its ingest to be trusted (-1), so that an
        edit within it is read; the items keep it, and a file read again within that window
        needs no new copy of them."""
        if ticket.mtime_ns is None or cached.mtime_ns == ticket.mtime_ns:
            return True
        if cached.mtime_ns != -1 or not cached.ids:
            return False
        first = self.substrate.read_items(cached.ids[:1], keep=False).get(cached.ids[0])
        recorded = first.provenance if first is not None else {}
        return (recorded.get("mtime_ns"), recorded.get("size")) == (ticket.mtime_ns, ticket.size)

    def change_of(self, ticket: Ticket, done: Prepared, *, touched: bool = False) -> _Change:
        """The store change a parsed file makes: new items, and old ones it no longer has;
        a file ``touched`` only is told unchanged (``touched_only``)."""
        report = self.report
        items, encoded = done.items, done.encoded or []
        for reason, line in done.issues:
            report.note(IngestIssue(ticket.source, reason, line, path=ticket.path))
        cached = self.cache.get(ticket.key)
        old_ids = cached.ids if cached is not None else []
        # a file that only grew, whose added lines alone were built: its earlier items are
        # stored as they are, and stay its own without being read or compared
        carried = old_ids if done.lines_before else []
        compared = [] if carried else old_ids
        ids = [item.id for item in items] or [item_id for item_id, _ in encoded]
        if len(set(ids)) != len(ids):  # only on a hash collision: keep the last of each id
            items = list({item.id: item for item in items}.values())
            encoded = list(dict(encoded).items())
            ids = [item.id for item in items] or [item_id for item_id, _ in encoded]
        removes: list[str] = []
        rewritten = 0  # items already stored under the same id (same content, new provenance)
        left = 0  # items of lines a file that only grew holds as before: stored, left as they are
        owned = ids  # what the source gives, published items included: the cache keeps them
        taken: set[str] = set()  # what it gives that a merge made another source's
        # a file known before (even with no item left: all merged away) may give ids stored
        # already; a file new to the shard is not looked up item by item
        if cached is not None:
            new_ids = set(ids)
            removes = [i for i in compared if i not in new_ids]
            kept = new_ids.intersection(compared)
            # a new id may be stored already: published, or merged into another file's item
            fresh = new_ids.difference(old_ids)
            previous = self.substrate.read_items([*removes, *kept, *fresh], keep=False)
            moved = self.moved_elsewhere(previous)
            taken = _taken_by_another_file(fresh.difference(moved), previous, items, encoded)
            if taken:  # left as the merge made it; not this file's to remove later either
                items = [item for item in items if item.id not in taken]
                encoded = [line for line in encoded if line[0] not in taken]
                ids = owned = [i for i in ids if i not in taken]
            notices: list[str] = [  # said: their readers now read what the file no longer says
                _PUBLISHED_AS_WAS.format(id=i, scope=previous[i].scope)
                for i in removes
                if i in moved and previous[i].scope in self.readable  # (not: another team's)
            ]
            if moved:  # published since: left where they are, neither removed nor rewritten
                removes = [i for i in removes if i not in moved]
                kept -= moved
                items = [item for item in items if item.id not in moved]
                encoded = [line for line in encoded if line[0] not in moved]
                ids = [i for i in ids if i not in moved]
                # and still known as the source's: content that gives one of them again
                # (an edit undone) must find it here, not write over it
                owned = [*owned, *sorted(moved.difference(owned))]
            rejected = (line for _, line in done.issues)
            held = held_by_rejected_lines(removes, previous, rejected, done.rejected_words)
            if held:
                removes = [i for i in removes if i not in held]
                owned = [*owned, *held]
                notices.append(
                    f"{len(held)} earlier item(s) kept as they were: their line is now rejected"
                )
            own = {i: item for i, item in previous.items() if i not in moved and i not in taken}
            if done.tally is not None and done.tally.redactions and _held_unmasked(own):
                notices.append(_UNMASKED_BEFORE)
            if kept and _left_as_stored(done, kept, previous):
                # its old lines' items hold what they held: written again, each would only
                # record the file's new size, and a log appended to would add a copy of itself
                # to the shard's log at each ingest
                items = [item for item in items if item.id not in kept]
                encoded = [line for line in encoded if line[0] not in kept]
                left = len(kept)
            elif kept:
                notices += carry_over(items, previous)
                encoded = [carried_line(pair, previous, notices) for pair in encoded]
                rewritten = len(kept.intersection(previous))
            gone = [previous[i] for i in removes if i in previous]
            told = withdrawn_proposals(gone, _REPLACED) + notices
            report.tell(ticket.source, told, ticket.path)
        mtime_ns = ticket.mtime_ns
        mtime_state = settled_mtime(mtime_ns, done.prepared_at) if mtime_ns is not None else -1
        size = done.bytes_read  # the bytes hashed, as the items record them
        if carried:
            earlier = set(carried)
            owned = [*carried, *(i for i in owned if i not in earlier)]
        # a file with nothing to store is reported skipped again, as a binary one is (not one
        # whose every item was merged into another's: it has content, and is unchanged)
        empty = "" if owned or taken else status.NO_CONTENT
        first = [[line, _kept(reason)] for reason, line in done.issues[:KEPT_REJECTIONS]]
        digest, issues = done.recorded_hash(), len(done.issues)
        state = SourceState(size, mtime_state, digest, self.cache_key, owned, empty, issues, first)
        state.stamp = ticket.stamp
        change = _Change(ticket.key, items, removes, state, encoded, done.named)
        change.source = ticket.source
        report.ids.extend(ids)
        self.written.update(ids)
        if (touched or (taken and not ids)) and not removes:
            report.unchanged.append(ticket.source)
            return change
        if old_ids:
            result = status.UPDATED
        elif ids:
            result = status.ADDED
        else:
            result = status.SKIPPED
        said = "" if ids or taken else status.NO_CONTENT
        outcome = self.outcome(ticket.source, ticket.path, result, said)
        outcome.items_added = len(ids) - rewritten - left
        outcome.items_rewritten = rewritten
        outcome.items_removed = len(removes)
        outcome.errors = len(done.issues)
        report.items_added += len(ids) - rewritten - left
        report.items_rewritten += rewritten
        report.items_removed += len(removes)
        change.told = outcome
        return change

    def earlier_text_items(self, key: str) -> int:
        """How many items the text source ``key`` gave that are still stored (0 for one last
        left out, as binary or too large)."""
        cached = self.cache.get(key)
        if cached is None or cached.skipped or not cached.ids:
            return 0
        return len(self.substrate.read_items(cached.ids, keep=False))

    def removed_since_listed(self, ticket: Ticket) -> None:
        """A file of a folder removed since the walk listed it: no input rejected, but one
        gone, as a file the walk did not find is (its items removed, unless pruning is off).
        A file named on its own that is gone by the time it is read fails, keeping them."""
        reason = "removed since it was listed"
        if ticket.path == self.within:
            self.fail(ticket.source, ticket.path, reason + self.kept_from_before(ticket.key))
        elif self.let_go_of_moved:
            self.skip_with_earlier_items(ticket.key, ticket.source, reason, None)
        else:
            kept = self.kept_from_before(ticket.key)
            self.outcome(ticket.source, ticket.key, status.SKIPPED, reason + kept)

    def kept_from_before(self, key: str) -> str:
        """What a failed file keeps, for its reason: its items from an earlier run, if any."""
        cached = self.cache.get(key)
        kept = len(cached.ids) if cached is not None and not cached.skipped else 0
        return f"; its {kept} earlier item(s) are kept" if kept else ""

    def emptied(self, ticket: Ticket, done: Prepared) -> bool:
        """Whether a file read as 0 bytes gave items that are still stored: then it fails and
        keeps them (told here). A file truncated to nothing is what a crash or a failed save
        leaves, as a NUL-filled one is (``binary``); a file meant to go is deleted."""
        if done.bytes_read or ticket.path is None or done.items or done.encoded:
            return False
        kept = self.earlier_text_items(ticket.key)
        if kept and settled_mtime(ticket.mtime_ns or 0, done.prepared_at) == -1:
            # not yet a failure: the run after the save reads it (its state is not recorded)
            self.outcome(ticket.source, ticket.path, status.SKIPPED, _BEING_SAVED.format(kept))
        elif kept:
            self.fail(ticket.source, ticket.path, _NOW_EMPTY.format(kept))
        return bool(kept)

    def binary(self, ticket: Ticket, done: Prepared) -> None:
        """A file that reads as binary: skipped, unless it gave text items that are still
        stored. Then it fails and keeps them: a text file filled with NUL bytes is what a
        crash or a full disk leaves, and its items may be all that remains of its text."""
        key, source = ticket.key, ticket.source
        kept = self.earlier_text_items(key)
        if kept:
            self.fail(source, ticket.path, _NOW_BINARY.format(kept))
            return
        mtime_ns = settled_mtime(ticket.mtime_ns or 0, done.prepared_at)
        reason = done.reason or status.BINARY
        skip = SourceState(ticket.size or 0, mtime_ns, "", self.cache_key, [], reason)
        skip.stamp = ticket.stamp
        self.skip_with_earlier_items(key, source, reason, skip, done.named)

    def skip_with_earlier_items(
        self,
        key: str,
        source: str,
        reason: str,
        skip: SourceState | None,
        named: str = "",
        failed: bool = False,
    ) -> None:
        """Skip a file that may have given items before (it turned binary, or too large): they
        describe content the file no longer has, so they are removed, except those published
        elsewhere since. ``skip`` is the state to remember it by (None: forget it); ``failed``:
        the file was named, and is told as a failure."""
        cached = self.cache.get(key)
        ids = cached.ids if cached is not None else []
        earlier = self.substrate.read_items(ids, keep=False)
        moved = self.moved_elsewhere(earlier)
        removes = [i for i in ids if i not in moved]
        told = f"{reason}; its {len(removes)} earlier item(s) removed" if removes else reason
        if failed:
            result = self.report.failed(source, key, told)
        else:
            result = self.outcome(source, key, status.SKIPPED, told)
        if removes:
            result.items_removed = len(removes)
            self.report.items_removed += len(removes)
            gone = [earlier[i] for i in removes if i in earlier]
            why = f"the file is skipped ({reason})"
            self.report.tell(source, withdrawn_proposals(gone, why), key)
        if skip is not None:
            skip.ids = sorted(moved)
        elif moved:  # known by its published items, so that they are not written over
            skip = _known_by_published(sorted(moved), self.cache_key)
        self.queue(_Change(key, [], removes, skip, named=named, told=result))

    @functools.cached_property
    def readable(self) -> frozenset[str]:
        """The scopes a reader of the scope ingested into reads: its own and the shared."""
        from substrate.visibility import reader_scopes

        scopes = reader_scopes(self.options.scope, self.substrate.settings)
        assert scopes is not None  # (an ingest's scope is always one: it is read as a team's)
        return scopes

    def moved_elsewhere(self, items: dict[str, SubstrateItem]) -> set[str]:
        """Which of a source's stored ``items`` now live in another scope than the one
        ingested into (published or merged since): no longer this ingest's to change."""
        return {item_id for item_id, item in items.items() if item.scope != self.options.scope}

    def prune(
        self,
        root: str,
        seen: set[str],
        unreadable: Iterable[str] = (),
        *,
        found_none: bool = False,
    ) -> None:
        """Remove the items of sources under ``root`` that the walk no longer found; what lies
        under an ``unreadable`` path is unknown, so it is kept. When the walk ``found_none``
        (an unmounted drive or share looks so), nothing is removed, and an issue says what was
        kept (``ingest_path``'s ``prune_empty``)."""
        kept = tuple(unreadable)
        spared = 0
        # a masked name cannot be placed under an unreadable folder whose own name is masked
        masked_kept = any(cache_origin(path) != path for path in kept)
        for key in self.cache.missing_under(root, seen):
            if key in self.gone or self.cache.stored_meanwhile(key):  # perhaps after the walk
                continue  # passed its folder
            shown = shown_origin(key)
            if any(shown == path or shown.startswith(path + os.sep) for path in kept):
                continue
            if masked_kept and shown != key:
                continue
            if in_the_cloud(shown):  # not gone: its items stay until it is back
                source = self.source_of(os.path.relpath(shown, root).replace(os.sep, "/"))
                self.outcome(source, shown, status.SKIPPED, status.IN_THE_CLOUD)
                continue
            removal = self.removal_of_gone(key)
            if removal is None:
                continue
            source = self.source_of(os.path.relpath(shown, root).replace(os.sep, "/"))
            self.report.tell(source, removal.notices, shown)  # (published: it stays, even so)
            if not removal.told:  # nothing of this scope to remove: known by its published
                self.queue(removal.change)  # items alone, if any, or forgotten
                continue
            if found_none:  # kept from the prune of a root around this one too (a drive not
                spared += 1  # mounted looks so)
                seen.add(shown)
                continue
            why = _UNCLAIMED if key in self.unclaimed else _why_gone(shown)
            told = "its file is no longer there" if why == _GONE else "its file is now left out"
            self.tell_removed(removal, source, why, told)
            self.queue(removal.change)
        if spared:
            self.report.note(
                IngestIssue(
                    root,
                    f"found no file to ingest; the items of the {spared} file(s) ingested from "
                    "it before were kept (an unmounted drive or share?): to remove them, "
                    "ingest it with --prune-empty",
                )
            )

    def removal_of_gone(self, key: str) -> _Removal | None:
        """The change that removes the source ``key``, whose file is gone: the items it gave
        in this scope, but not those this run wrote (a source the cache knew by another name
        was read again). A source left with no item to remove is only recorded as gone (not
        ``told``); None when it was recorded so before."""
        state = self.cache.get(key)
        ids = state.ids if state is not None else []
        earlier = self.substrate.read_items(ids, keep=False)
        moved = self.moved_elsewhere(earlier)
        ids = [i for i in ids if i not in moved and i not in self.written]
        # a source that gave published items stays known by them, so that the file,
        # restored, does not write its items over them
        keep = _known_by_published(sorted(moved), self.cache_key) if moved else None
        if moved and not ids and (state is None or _published_alone(state)):
            return None  # known by its published items alone already
        change = _Change(key, [], ids, keep, pruned=True)
        # never gave an item (left out as empty or binary), or only published ones: forgotten
        # (or known by those), not reported removed, as a file of a format never read is not
        told = bool(ids) or (not moved and state is not None and bool(state.ids))
        # what stays published is said (not of another team's scope: nothing of it is)
        published = [earlier[i] for i in sorted(moved) if earlier[i].scope in self.readable]
        return _Removal(change, earlier, told, published)

    def tell_removed(self, removal: _Removal, source: str, why: str, told: str) -> None:
        """Report the removal of a source's items (``why``); its pending proposals are
        withdrawn, their authors ``told`` why."""
        change, earlier = removal.change, removal.earlier
        shown = shown_origin(change.key)
        result = self.outcome(source, shown, status.REMOVED, why)
        result.items_removed = len(change.removes)
        self.report.items_removed += len(change.removes)
        gone = [earlier[i] for i in change.removes if i in earlier]
        self.report.tell(source, withdrawn_proposals(gone, told), shown)
        change.told = result

    def queue_moved(self, change: _Change, ticket: Ticket, moved: _Removal) -> None:
        """Queue the change of a new file, and with it the removal of the items of the file
        it was ``moved`` from (``moved_from``). Both go into one save: a rerun finds the new
        file unchanged, and would never remove the gone one's items."""
        gone = self.name_of_gone(moved.change.key)
        moved_to = status.MOVED_TO + ticket.source
        if moved.told:
            told = f"its file {moved_to}: propose the item it gives there to send it"
            self.tell_removed(moved, gone, moved_to, told)
        published = [
            _PUBLISHED_MOVED.format(id=item.id, scope=item.scope, moved=moved_to)
            for item in moved.published
        ]
        self.report.tell(gone, published, shown_origin(moved.change.key))
        self.queue(change, moved.change)

    def moved_from(self, ticket: Ticket, done: Prepared) -> _Removal | None:
        """The removal of the items of the gone file this file, new to the shard, was moved
        from (``MovedFiles.origin``), if any."""
        key = self.moves.origin(ticket, done)
        return self.removal_of_gone(key) if key is not None else None

    def name_of_gone(self, key: str) -> str:
        """The source name of a gone file: its path from the folder naming this run's files
        when it lies there (as the walk would have named it), else its own path."""
        folder = self.naming_folder
        if folder and key.startswith(folder.rstrip(os.sep) + os.sep):
            return os.path.relpath(key, folder).replace(os.sep, "/")
        return key

    def tell_unpruned(self, root: str, seen: set[str]) -> None:
        """Say how many files under ``root`` that gave items before the walk no longer found:
        not pruned (``prune=False``), their items stay, and the shard should not hold them
        unbeknown."""
        states = (self.cache.get(key) for key in self.cache.missing_under(root, seen))
        kept = sum(1 for state in states if state is not None and state.ids)
        if kept:
            said = f"{kept} file(s) ingested before were not found (gone, or now left out): "
            self.report.tell(root, [said + "their items were kept, as --no-prune asks"])


_GONE = "no longer present"
# A reason kept in the source cache is cut to this length (a parser's message is short)
_KEPT_REASON = 200


def _kept(reason: str) -> str:
    """A rejected line's ``reason`` as the source cache keeps it: masked, as it is shown, and
    bounded."""
    return safe_text(reason)[:_KEPT_REASON]


def _same_version(stored: SourceState, planned: SourceState | None) -> bool:
    """Whether a source's state in the shard is the one a queued change would record: the
    same content read with the same options into the same items (with no hash, withheld from
    a file holding a secret, the items alone tell)."""
    if planned is None or not (planned.content_hash or planned.ids):
        return False
    return (stored.content_hash, stored.options, stored.ids) == (
        planned.content_hash,
        planned.options,
        planned.ids,
    )


class _Removal(NamedTuple):
    """The removal of a source whose file is gone: the change that removes its items (its
    state then keeps it known by its published items, or is None: it is forgotten), its
    stored items, whether it is told as removed (it had items of this scope), and its items
    published into a scope the ingest's readers read, which stay there (and are said to)."""

    change: _Change
    earlier: dict[str, SubstrateItem]
    told: bool
    published: list[SubstrateItem]

    @property
    def notices(self) -> list[str]:
        """What to say of the items that stay published, the file gone."""
        return [_PUBLISHED_GONE.format(id=item.id, scope=item.scope) for item in self.published]


def _known_by_published(ids: list[str], options: str) -> SourceState:
    """The state of a source gone from the disk that stays known by its items published
    since (``ids``): of no size, time or hash, which no file read has."""
    return SourceState(0, -1, "", options, ids)


def _published_alone(state: SourceState) -> bool:
    """Whether ``state`` is one ``_known_by_published`` gave."""
    return state.size == 0 and state.mtime_ns == -1 and not state.content_hash


# Why the items of a file read as plain text before are removed: no as_text rule takes it now
_UNCLAIMED = "of no format mixle reads, and no as_text pattern takes it now"


def _why_gone(path: str) -> str:
    """Why the walk no longer gave the file at ``path`` whose items are removed."""
    try:
        mode = os.lstat(path).st_mode
    except (OSError, ValueError):  # ValueError: a name the locale's file-system encoding lacks
        return _GONE
    if stat.S_ISDIR(mode):
        return "now a folder"
    if stat.S_ISLNK(mode):
        return "now a symbolic link the walk does not follow"
    if not stat.S_ISREG(mode):
        return "no longer a regular file"
    # a file still there was left out by the walk: an ignore rule, a hidden folder
    return "no longer walked (ignored or hidden)"


def _take_back(report: IngestReport, told: FileOutcome) -> None:
    """Take out of the report the outcome ``told`` and what was said of its file (rejected
    lines, notices): a file not reached after all, or a prune taken back."""
    report.files.remove(told)
    said = (told.source, told.path)
    report.issues = [i for i in report.issues if (i.source, i.path) != said]
    report.notices = [n for n in report.notices if (n.source, n.path) != said]
