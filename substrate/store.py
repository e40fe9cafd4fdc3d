"""The shard: ``Substrate``, a store of items kept in memory or in a directory on disk.

A rooted shard never loads the whole log. Reads go through the catalog (see ``view.py``); writes
are buffered until ``save()``, which appends them as one committed, fsynced batch. Objects handed
out by ``get``/``all`` are live: mutate one and ``save()`` persists the change, as in the
reference implementation.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import threading
from collections.abc import Callable, Collection, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from substrate.catalog import StaleCatalogError
from substrate.derived import INDEX_DIR, LOG_FILE, is_folder
from substrate.errors import (
    CorruptShardError,
    InvalidInputError,
    LostCommitsError,
    MissingShardError,
    ShardError,
    SubstrateError,
    scope_set,
)
from substrate.item import SubstrateItem, require_kind
from substrate.itemline import encode, put_problem
from substrate.locking import shard_lock
from substrate.log import LogFile, Watermark, encode_tombstone
from substrate.replacing import made_read_only, make_folder
from substrate.settings import Settings
from substrate.shardfiles import refuse_special_files, refuse_undecodable_path
from substrate.view import LogView

if TYPE_CHECKING:
    from substrate.ingest.sources import SourceCache
    from substrate.search.engine import Hit, IndexStats, SearchFilters

log = logging.getLogger(__name__)

_NOT_PENDING = object()  # no unsaved change to an id (None is an unsaved removal)
_ITEM_FIELDS = frozenset(f.name for f in fields(SubstrateItem))
_P = ParamSpec("_P")
_R = TypeVar("_R")


def _serialized(
    method: Callable[Concatenate[Substrate, _P], _R],
) -> Callable[Concatenate[Substrate, _P], _R]:
    """Run ``method`` holding the store's own lock: threads sharing one ``Substrate`` take
    turns with its buffers (a save must not drop a removal made while it wrote). What a
    caller changes in place on a live item is the caller's to order. A file of the shard the
    system will not let it use (permissions, a folder where a file belongs) is a
    ``ShardError``, as the library's callers are promised, not a bare ``OSError``."""

    @functools.wraps(method)
    def serialized(self: Substrate, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._guard:
            try:
                return method(self, *args, **kwargs)
            except SubstrateError:
                raise
            except OSError as exc:
                raise _unusable(exc) from exc

    return serialized


@dataclass(slots=True)
class Changes:
    """Items written and ids removed between two points of the log (or not yet saved). An id
    in both was removed and then written again: it takes a new place in the order."""

    upserts: list[SubstrateItem] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    until: Watermark = field(default_factory=lambda: Watermark("", 0))


@dataclass(frozen=True, slots=True)
class CompactStats:
    bytes_before: int
    bytes_after: int
    live_items: int


def _shard_path(root: object) -> Path:
    """``root`` as the path of a shard; "" (which would be the working folder, a slip of an
    unset variable) and what is no path are refused."""
    if not isinstance(root, str | os.PathLike) or isinstance(os.fspath(root), bytes):
        raise InvalidInputError(
            f"root must be a path as text (str, or os.PathLike of str), not {type(root).__name__}"
        )
    if not os.fspath(root):
        raise InvalidInputError('root is empty: give the shard\'s folder ("." for this one)')
    return Path(root)


def _unusable(exc: OSError) -> ShardError:
    from substrate.secrets.sources import shown_path  # (a name written safely: rarely needed)

    where = f" {shown_path(os.fsdecode(exc.filename))}" if exc.filename else ""
    return ShardError(f"cannot use{where}: {exc.strerror or exc}")


class Substrate:
    """A local shard of the knowledge substrate.

    Threads may share one object: its methods take turns on its lock. A change made in place
    to a live item (from ``get``) is saved by whichever save reads it first.

    Args:
        root: the shard directory. ``None`` keeps everything in memory until ``save(root)``.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self._guard = threading.RLock()  # (``_serialized``)
        self.root: Path | None = None
        self.settings = Settings()
        self.mutation_count = 0
        # where the batch of the last save() began and ended in the log (None: it wrote nothing)
        self.last_append: tuple[Watermark, Watermark] | None = None
        self.compacted = False  # compact() replaced the log: a change saved, like an append
        self._mem: dict[str, SubstrateItem] = {}
        # in memory: id -> mutation_count of its last put, so that a search index can refresh
        # what was put since (payload changes included, which it cannot see otherwise)
        self._put_at: dict[str, int] = {}
        self._pending: dict[str, SubstrateItem | None] = {}
        self._cache: dict[str, tuple[SubstrateItem, bytes]] = {}
        self._log: LogFile | None = None
        self._view: LogView | None = None
        self._fd: int | None = None
        self._fd_ino = -1
        if root is not None:
            self._bind(_shard_path(root))

    @_serialized
    def _bind(self, root: Path) -> None:
        # what may refuse the shard (a FIFO, a bad mixle.toml) comes before anything is let go
        refuse_undecodable_path(root)
        refuse_special_files(root)
        settings = Settings.load(root)
        log = LogFile(root)
        self.close()
        self.root, self.settings, self._log = root, settings, log
        self._view = LogView(log)
        self._cache.clear()

    # -- the seed API ------------------------------------------------------------------------

    def put(self, item: SubstrateItem) -> str:
        """Add or replace an item; returns its id. Persisted by the next ``save()``.

        The item is kept exactly as given, as the seed API's store does: nothing masks its
        secrets here (``add`` does). One with a field of the wrong type (``tags`` not a list of
        strings, a ``text`` that is not a string) raises ``InvalidInputError``, in memory too,
        where it would stop every later search; in a shard on disk, so does one that could
        not be saved (a payload JSON cannot hold). Text from elsewhere goes through the write-time
        gate first, ``put(admit(item).item)``, as every ``mixle`` command and ingest function
        does.
        """
        if not isinstance(item, SubstrateItem):
            raise InvalidInputError(f"put() takes a SubstrateItem, not {type(item).__name__}")
        self._refuse_unfit(item)
        return self._keep(item)

    @_serialized
    def _keep(self, item: SubstrateItem) -> str:
        """``put`` of an item whose fields were found fit (``_refuse_unfit``)."""
        if self.root is None:  # kept as given, as the seed's store keeps it in memory
            self._mem[item.id] = item
            self._put_at[item.id] = self.mutation_count + 1
        else:
            encode(item)  # refused here, not by the save() it would stop for every item
            self._pending[item.id] = item
            self._cache.pop(item.id, None)
        self.mutation_count += 1
        return item.id

    def _refuse_unfit(self, item: SubstrateItem) -> None:
        problem = put_problem(item)
        if problem is not None:
            kept = "kept" if self.root is None else "saved"
            raise InvalidInputError(f"item {item.id!r} cannot be {kept}: {problem}")

    def add(self, kind: str, text: str = "", *, redact: bool = True, **kw: Any) -> str:
        """Build a ``SubstrateItem`` (``kw``: its other fields) and ``put`` it through the
        write-time gate, which masks its secrets; ``redact=False`` keeps them, and notes in
        its provenance how many it kept (``gate.admit``)."""
        if isinstance(kind, SubstrateItem):  # a common slip, which read as an unknown kind
            raise InvalidInputError("add() takes a kind and a text; store an item with put(item)")
        from substrate.gate import admit  # (the secret rules: only for a process that writes)

        unknown = sorted(set(kw) - _ITEM_FIELDS)
        if unknown:  # (the item's constructor said so as a TypeError)
            known = ", ".join(sorted(_ITEM_FIELDS - {"kind", "text"}))
            raise InvalidInputError(f"add() has no field {', '.join(unknown)}; an item has {known}")
        item = SubstrateItem(kind=kind, text=text, **kw)
        self._refuse_unfit(item)  # as put refuses it, before the gate reads its fields
        return self._keep(admit(item, redact=redact).item)

    def get(self, item_id: str) -> SubstrateItem | None:
        """The live item ``item_id``, or None (an unknown or removed id).

        It is the store's own object: a change made to it in place is saved by the next
        ``save()``, as if it were ``put`` again. Where another process may change the same
        item meanwhile, hold ``exclusive()`` around reading, changing and saving it: without
        the lock, the last save wins, whole item against whole item, and a change made to an
        item after this store saw another process replace or remove it is not saved (``get``
        gives the new version instead). ``peek`` reads without keeping.
        """
        return self._fetch(item_id, keep=True)

    def peek(self, item_id: str) -> SubstrateItem | None:
        """The item ``get`` would give, without this store keeping what it reads from disk:
        looking at many items one after another holds none of them (``get`` keeps each item
        it reads, to save changes made to it in place). An item unsaved or already kept is the
        store's own object, as from ``get``; one read here is a copy whose changes save
        nothing."""
        return self._fetch(item_id, keep=False)

    @_serialized
    def _fetch(
        self, item_id: str, *, keep: bool, view: LogView | None = None
    ) -> SubstrateItem | None:
        """The live item ``item_id``, or None; ``view``: the log as just brought up to date
        (a caller reading many items does that once)."""
        if self.root is None:
            return self._mem.get(item_id)
        if item_id in self._pending:
            return self._pending[item_id]
        if view is None:
            view = self._fresh_view()  # a stat when nothing changed; drops copies replaced
        cached = self._cache.get(item_id)
        if cached is not None:
            return cached[0]
        load = self._load if keep else SubstrateItem.from_json
        entry = view.locate(item_id)
        if entry is None:
            return None
        try:
            data = self._read(entry.offset, entry.length)
            if data.get("id") == item_id:
                return load(data)
        except CorruptShardError:
            pass
        # The catalog sent the read to the wrong line: rebuild it from the log (which raises
        # if the log itself is corrupt) and look again.
        view.rebuild()
        entry = view.locate(item_id)
        return None if entry is None else load(self._read(entry.offset, entry.length))

    def put_since(self, count: int) -> set[str]:
        """In memory: the ids put after ``mutation_count`` was ``count`` (empty on disk, where
        saved changes are read from the log)."""
        return {item_id for item_id, at in self._put_at.items() if at > count}

    @_serialized
    def remove(self, item_id: str) -> bool:
        """Remove ``item_id`` (on disk, a tombstone is appended by the next ``save()``);
        whether it was live."""
        if self.root is None:
            removed = self._mem.pop(item_id, None) is not None
            self._put_at.pop(item_id, None)
        else:
            removed = self._exists(item_id)
            if removed:
                self._pending[item_id] = None
                self._cache.pop(item_id, None)
        if removed:
            self.mutation_count += 1
        return removed

    def all(self, *, kind: str | None = None, scope: str | None = None) -> list[SubstrateItem]:
        """Every live item in insertion order, optionally of one kind and/or one scope."""
        return list(self.iter_items(kind=kind, scope=scope, keep=True))

    @property
    def unsaved(self) -> int:
        """How many items have a change (an add or a removal) not saved yet."""
        return len(self._pending)

    @_serialized
    def __len__(self) -> int:
        if self.root is None:
            return len(self._mem)
        view = self._fresh_view()
        n = view.live_count
        for item_id, value in self._pending.items():
            on_disk = view.locate(item_id) is not None
            n += (value is not None) - on_disk
        return n

    def __contains__(self, item_id: object) -> bool:
        return isinstance(item_id, str) and self._exists(item_id)

    def save(self, root: str | os.PathLike[str] | None = None) -> str:
        """Persist every change since the last save as one durable append; returns the log path.

        Given a ``root`` other than this shard's, every item is written there and this store
        continues as that shard.

        Raises:
            InvalidInputError: neither ``root`` nor ``Substrate(root)`` gave a root (an
                in-memory store has nowhere to save; a ValueError, as the seed API raises).
            ShardError: the shard cannot be written (no such place, permissions, full disk).
        """
        target = _shard_path(root) if root is not None else self.root
        if target is None:
            raise InvalidInputError("save() needs a root: Substrate(root) or save(root)")
        if self.root is None or target.resolve() != self.root.resolve():
            return self._save_elsewhere(target)
        self.save_encoded(())
        assert self._log is not None
        return str(self._log.path)

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the shard's writer lock for a read-modify-write (publish, approve, merge...).

        What is read in the block is the latest saved state, and no other process saves until
        the block ends, so a change made from it cannot be lost to a concurrent one (two
        publishes of one item each keep their history entry). Save inside the block as usual;
        read the items you change inside it too. The settings are read again once the lock is
        held (settings changed in memory and not saved are dropped): a revoked approver must
        not approve on the strength of the ``mixle.toml`` this process read before. An
        in-memory shard has nothing to lock; a shard not created yet is created first, so
        that two first writes (two ``grant``s) take turns too.
        """
        with self.writer_lock():
            self.reload_settings()
            self.settings.refuse_unknown_governance()  # as it was saved, under the lock
            yield

    def reload_settings(self) -> None:
        """Read the settings again from the shard's ``mixle.toml``; those changed in memory
        and not saved are dropped. Under the writer lock, what another process saved is then
        what this one checks against (``exclusive``)."""
        if self.root is not None and self._log is not None:
            self.settings = Settings.load(self.root)

    @contextlib.contextmanager
    def writer_lock(self, *, wait: bool = True) -> Iterator[None]:
        """Hold the shard's writer lock for the block, as ``exclusive`` does, without reading
        the settings again: for a bulk writer that saves in batches (``ingest``), whose
        settings were read when it began. With ``wait=False``, a lock another process holds
        raises ``LockBusy`` at once."""
        if self.root is None or self._log is None:
            yield
            return
        try:
            make_folder(self.root)
        except OSError as exc:
            raise ShardError(f"cannot create the shard {self.root}: {exc.strerror or exc}") from exc
        # the shard's lock first, then the object's own, as a save takes them: a thread that
        # waits for another process's writer must not hold up every reader of this store
        # meanwhile (nor may two threads each hold one and wait for the other)
        with shard_lock(self._log.lock_path, wait=wait), self._guard:
            yield

    def save_encoded(
        self,
        lines: Sequence[tuple[str, bytes]],
        removed: Iterable[str] = (),
        *,
        bulk: bool = False,
    ) -> None:
        """Save every change since the last save, items given as log lines and the removal
        of ``removed`` ids, in one durable append (a shard on disk only).

        ``lines`` pairs an item id with ``encode(item)``, made where the item was built (a
        worker process): this process then neither rebuilds nor re-encodes the item. Like
        ``put`` and ``remove``, each replaces any unsaved change to the same id. Nothing is
        left half done: a call interrupted before its append changes nothing, not even the
        unsaved changes; once the append is committed it stands, even if the call is then
        interrupted (the log's committed end tells).

        ``bulk``: one save of many, after which the caller calls ``checkpoint``: the lines
        saved are folded into the catalog less often meanwhile (``view.BULK_TAIL_LIMIT``).
        """
        if self.root is None:
            raise InvalidInputError("save_encoded() needs a shard on disk: Substrate(root)")
        self.settings.refuse_unknown_governance()  # its gate may be off, by a typo
        removed = list(removed)
        if not lines and not removed and not self._unsaved():
            self.last_append = None  # (nothing written; no lock taken, none waited for)
            return
        with self.writer_lock():  # the shard's, then this store's own: see ``writer_lock``
            self._save_locked(lines, removed, bulk)

    @_serialized
    def _unsaved(self) -> bool:
        """Whether anything was changed and not saved."""
        return bool(self._pending) or next(self._changed_in_place(), None) is not None

    @_serialized
    def _save_locked(
        self, lines: Sequence[tuple[str, bytes]], removed: list[str], bulk: bool
    ) -> None:
        replaced = {item_id for item_id, _ in lines}
        removed = list(dict.fromkeys(removed))
        view = self._fresh_view() if removed else None
        gone = [i for i in removed if i not in replaced and self._exists(i, view)]
        settled = replaced.union(gone)
        ids, encoded, removals = self._collect_changes(skip=settled)
        ids += gone
        encoded += [encode_tombstone(item_id) for item_id in gone]
        removals += [True] * len(gone)
        ids += [item_id for item_id, _ in lines]
        encoded += [line for _, line in lines]
        removals += [False] * len(lines)
        self.last_append = None
        self._write_batch(ids, encoded, removals, bulk=bulk, settled=settled)

    @_serialized
    def load(self, root: str | os.PathLike[str] | None = None) -> None:
        """Forget unsaved changes and read the shard at ``root`` (default: this shard's root)."""
        target = _shard_path(root) if root is not None else self.root
        if target is None:
            raise InvalidInputError("load() needs a root")
        if not (target / LOG_FILE).exists():
            raise MissingShardError(f"no shard at {target}: {target / LOG_FILE} is missing")
        self._bind(target)  # a shard refused (a FIFO, a bad mixle.toml) loses nothing here
        self._mem.clear()
        self._put_at.clear()
        self._pending.clear()
        self.mutation_count += 1

    @_serialized
    def reindex(self, *, progress: Callable[[int, int], None] | None = None) -> IndexStats:
        """(Re)build the search index over the current items; returns what was built."""
        from substrate.search import engine

        return engine.reindex(self, progress=progress)

    def search(
        self,
        query: str,
        k: int = 5,
        *,
        kind: str | None = None,
        scope: str | None = None,
        filters: SearchFilters | None = None,
        keep: bool = True,
        skip: Collection[str] = (),
    ) -> list[tuple[SubstrateItem, float]]:
        """The ``k`` most relevant items to ``query`` as ``(item, score)``, best first.

        Args:
            query: free text; an empty or stopword-only query matches nothing.
            k: how many results at most (0 gives ``[]``).
            kind: only items of this kind.
            scope: only items in this scope.
            filters: a ``SearchFilters`` for finer restrictions (kinds, scopes, tags, times);
                given, it replaces ``kind`` and ``scope``.
            keep: hand out the store's own objects, as ``get`` does (a change made to one
                in place is saved); ``False`` reads them as ``peek`` does, for a caller that
                searches many times and changes nothing.
            skip: ids left out, unread (those a walk has met already): the ``k`` best of
                the others come back (``engine.search``).

        Returns:
            Up to ``k`` pairs whose scores lie in [0, 1], ties in insertion order. Items that
            share no term and no meaning with the query (score 0) are left out, where the
            seed API listed them too.

        Raises:
            InvalidInputError: ``k`` is not a whole number >= 0.
        """
        return [
            (hit.item, hit.score)
            for hit in self.hits(
                query, k, kind=kind, scope=scope, filters=filters, keep=keep, skip=skip
            )
        ]

    @_serialized
    def hits(
        self,
        query: str,
        k: int = 5,
        *,
        kind: str | None = None,
        scope: str | None = None,
        filters: SearchFilters | None = None,
        explain: bool = False,
        keep: bool = True,
        skip: Collection[str] = (),
    ) -> list[Hit]:
        """Like ``search``, as ``Hit`` records; with ``explain``, each channel's contribution;
        ``keep=False`` hands out the items as ``peek`` does, and the ids in ``skip`` are left
        out after ranking (``engine.search``)."""
        from substrate.search import engine

        if filters is None:
            if scope is not None and not isinstance(scope, str):  # (a list: scopes=)
                raise InvalidInputError(
                    f"scope must be text, not {type(scope).__name__} (several: filters="
                    "SearchFilters(scopes=...))"
                )
            filters = engine.SearchFilters(
                kind=kind, scopes=frozenset([scope]) if scope is not None else None
            )
        return engine.search(self, query, k, filters=filters, explain=explain, keep=keep, skip=skip)

    # -- streaming and the index contract -----------------------------------------------------

    def iter_items(
        self,
        *,
        kind: str | None = None,
        scope: str | None = None,
        scopes: Iterable[str] | None = None,
        keep: bool = False,
    ) -> Iterator[SubstrateItem]:
        """Stream live items in insertion order, filtered by kind and scope(s).

        With ``keep=False`` items not already handed out are not retained, so iterating a large
        shard runs in bounded memory; mutate such an item only through ``put``. A kind that is
        none is refused here, where the call is made.
        """
        if kind is not None:
            require_kind(kind)
        return self._items_of(kind, scope, scopes, keep)

    def _items_of(
        self, kind: str | None, scope: str | None, scopes: Iterable[str] | None, keep: bool
    ) -> Iterator[SubstrateItem]:
        allowed = scope_set(scopes)
        if scope is not None:
            allowed = frozenset([scope]) if allowed is None else allowed & {scope}

        def wanted(k: Any, s: Any) -> bool:
            return (kind is None or k == kind) and (allowed is None or s in allowed)

        if self.root is None:
            for item in list(self._mem.values()):
                if wanted(item.kind, item.scope):
                    yield item
            return
        seen: set[str] = set()
        for data in self._saved_records():
            item_id = data["id"]
            pending = self._pending.get(item_id, _NOT_PENDING)  # (one look: another thread)
            if pending is not _NOT_PENDING:
                seen.add(item_id)
                if isinstance(pending, SubstrateItem) and wanted(pending.kind, pending.scope):
                    yield pending
                continue
            cached = self._cache.get(item_id)
            if cached is not None:
                if wanted(cached[0].kind, cached[0].scope):
                    yield cached[0]
            elif wanted(data.get("kind"), data.get("scope", "local")):
                yield self._load(data) if keep else SubstrateItem.from_json(data)
        for item_id, pending in list(self._pending.items()):
            if pending is not None and item_id not in seen and wanted(pending.kind, pending.scope):
                yield pending

    def iter_saved_items(self) -> Iterator[SubstrateItem]:
        """Stream the items as the log holds them, without this process's unsaved changes."""
        if self.root is None:
            return
        for data in self._saved_records():
            yield SubstrateItem.from_json(data)

    def _saved_records(self) -> Iterator[dict[str, Any]]:
        """The live records of the log in insertion order.

        A catalog that sends a read to the wrong place (a damaged index file) is rebuilt from
        the log once and the walk resumes; corruption of the log itself is raised.
        """
        done: set[str] = set()
        for attempt in range(2):
            try:
                this_pass: set[str] = set()
                for offset, length in self._fresh_view().live_entries():
                    data = self._read(offset, length)
                    item_id = data["id"]
                    if data.get("tombstone") is True or item_id in this_pass:
                        # two records for one line, or one for a removal: the catalog is damaged
                        raise StaleCatalogError(f"the catalog points twice at {item_id!r}")
                    this_pass.add(item_id)
                    if item_id not in done:
                        done.add(item_id)
                        yield data
                return
            except (CorruptShardError, StaleCatalogError):
                if attempt:
                    raise
                self._fresh_view().rebuild()

    def saved_count(self) -> int:
        """How many live items the log holds (unsaved changes not counted)."""
        return 0 if self.root is None else self._fresh_view().live_count

    def log_watermark(self) -> Watermark:
        """The committed end of the log (what an index built now would cover)."""
        if self.root is None:
            return Watermark("memory", 0)
        return self._fresh_view().watermark

    def log_seal(self, offset: int) -> int | None:
        """The log's seal at ``offset`` (``LogFile.seal``); None in memory or past its end."""
        if self._log is None:
            return None
        view = self._fresh_view()
        if offset == view.watermark.offset and view.seal is not None:
            return view.seal  # taken when the view got there: no read
        return self._log.seal(offset)

    def saved_changes(self, since: Watermark) -> Changes | None:
        """Items written and removed in the log after ``since``; None if the log was rewritten."""
        if self.root is None:
            return None
        view = self._fresh_view()
        if since.generation != view.watermark.generation or since.offset > view.watermark.offset:
            return None
        assert self._log is not None
        if not self._log.ends_batch(since.offset):  # taken before a hand edit moved the lines
            return None
        # in the order the log gives the live items: an item written again keeps its place, one
        # removed and written again takes a new one (it is listed as removed too, to say so)
        latest: dict[str, dict[str, Any] | None] = {}
        readded: list[str] = []
        for record in self._log.records(since.offset, view.watermark.offset):
            if record.data is not None and record.id in latest and latest[record.id] is None:
                del latest[record.id]
                readded.append(record.id)
            latest[record.id] = record.data
        changes = Changes(until=view.watermark)
        for item_id, data in latest.items():
            if data is None:
                changes.removed.append(item_id)
            else:
                changes.upserts.append(SubstrateItem.from_json(data))
        changes.removed += [i for i in dict.fromkeys(readded) if latest[i] is not None]
        return changes

    @_serialized
    def pending_changes(self) -> Changes:
        """Changes made in this process and not yet saved: items put or removed, and items
        ``get`` kept that were changed in place (which the next ``save()`` writes too)."""
        changes = Changes(until=self.log_watermark())
        for item_id, item in self._pending.items():
            if item is None:
                changes.removed.append(item_id)
            else:
                changes.upserts.append(item)
        changes.upserts.extend(item for _, item, _ in self._changed_in_place(strict=False))
        return changes

    def _changed_in_place(
        self, *, strict: bool = True
    ) -> Iterator[tuple[str, SubstrateItem, bytes]]:
        """The items ``get`` kept (and not put since) whose log line is no longer the one read,
        with their new line. ``strict``: an item changed into one no line can hold raises
        ``InvalidInputError`` (as ``save()`` must); else it is passed over."""
        for item_id, (item, baseline) in self._cache.items():
            if item_id in self._pending:
                continue
            try:
                line = encode(item)
            except InvalidInputError:
                if strict:
                    raise
                continue
            if line != baseline:
                yield item_id, item, line

    @_serialized
    def held_items(self) -> list[SubstrateItem]:
        """The items this process holds and a caller may change in place: those put and not
        yet saved, and those ``get`` kept (a search compares them with what it indexed)."""
        held = [item for item in self._pending.values() if item is not None]
        held.extend(
            item for item_id, (item, _) in self._cache.items() if item_id not in self._pending
        )
        return held

    def read_items(self, ids: Iterable[str], *, keep: bool = True) -> dict[str, SubstrateItem]:
        """The live items among ``ids``, read in one pass; with ``keep=False`` as ``peek``
        reads them (looked at, not kept: changes to them save nothing)."""
        found: dict[str, SubstrateItem] = {}
        wanted = list(ids)
        if not wanted:
            return found
        view = self._fresh_view() if self.root is not None else None  # (once for all of them)
        for item_id in wanted:
            item = self._fetch(item_id, keep=keep, view=view)
            if item is not None:
                found[item_id] = item
        return found

    # -- maintenance ---------------------------------------------------------------------------

    def compact(self, *, accept_loss: bool = False) -> CompactStats:
        """Rewrite the log with only the live items (atomically), then rebuild the catalog.

        Args:
            accept_loss: rewrite a log whose committed batches lost or gained lines by hand
                (``miscounted_batches``) all the same, keeping what is left. Without it such a
                log is refused (``LostCommitsError``): the rewrite would make the loss of an
                item for good, and leave no trace of it for ``audit_substrate`` to find.
        """
        if self.root is None or self._log is None:
            raise InvalidInputError("compact() needs a shard on disk")
        log_file = self._log
        if not (log_file.path.exists() or log_file.end_path.exists() or self._unsaved()):
            return CompactStats(0, 0, 0)  # never written, nor to be: nothing made, not a lock
        # the shard's lock, then this store's own, as a save takes them: the other way round,
        # a thread saving meanwhile would hold one and wait for the other (``writer_lock``)
        with self.writer_lock():
            return self._compact(accept_loss)

    @_serialized
    def _compact(self, accept_loss: bool) -> CompactStats:
        assert self.root is not None and self._log is not None
        self.save()
        log_file = self._log
        if not log_file.path.exists() and not log_file.end_path.exists():
            return CompactStats(0, 0, 0)  # never written (nothing was saved): nothing to rewrite
        with shard_lock(log_file.lock_path):
            log_file.refuse_rewrite_over_a_loss()
            if not log_file.path.exists():  # (a note of its end, but never a commit)
                return CompactStats(0, 0, 0)
            if not accept_loss:
                _refuse_miscounted(log_file, self.miscounted_batches())
            if made_read_only(log_file.path):  # a rename would replace it all the same
                raise ShardError(f"cannot rewrite {log_file.path}: it is not writable")
            before = log_file.path.stat().st_size
            if not before:  # an empty log (a new shard): a rewrite would only add a header
                return CompactStats(0, 0, 0)
            # Never trust a derived file for what to keep: re-read the log itself.
            view = self._fresh_view()
            view.rebuild()
            entries = view.live_entries()

            def lines() -> Iterator[bytes]:  # read as written: never the whole log in memory
                return (self._read_raw(offset, length) for offset, length in entries)

            if log_file.holds_only(lines()):  # compacted already: a new generation would only
                log_file.remove_abandoned_rewrites()  # drop the search index
                return CompactStats(before, before, len(entries))
            sources = _ingest_sources_before_compaction(self)
            mark, _ = log_file.replace_with(lines(), read_size=before)
            # measured under the lock: what the next writer appends is no part of it
            after = log_file.path.stat().st_size
            self.compacted = True
            _drop_search_index(self.root / INDEX_DIR)
            if sources is not None:  # under the lock: no ingest comes in between
                sources.after_compaction(mark)
        self._reopen()
        self._fresh_view().write_catalog()
        return CompactStats(before, after, len(entries))

    @_serialized
    def checkpoint(self, *, min_lines: int = 0) -> bool:
        """Fold the lines saved since the catalog was written into it, so that opening the
        shard reads none of them (bulk writers call this when they finish).

        Args:
            min_lines: do nothing unless more lines than this wait to be folded.

        Returns:
            Whether the catalog was written (never for an in-memory shard, or one this process
            cannot write: opening it stays correct, only slower).
        """
        if self.root is None or self._log is None:
            return False
        view = self._fresh_view()
        if len(view.tail) <= min_lines:
            return False
        try:
            view.write_catalog()
        except ShardError as exc:
            log.info("not rewriting the catalog: %s", exc)
            return False
        return True

    def log_health(self) -> dict[str, Any]:
        """Size of the log, bytes of an unfinished write left behind, and the committed bytes
        it lacks: how far short of the end the last writer noted it ends (``lost_bytes``)."""
        if self.root is None or self._log is None:
            return {
                "path": None,
                "bytes": 0,
                "uncommitted_bytes": 0,
                "generation": "memory",
                "older_copy": False,
                "header_lost": False,
            }
        from substrate.logend import read_note

        # the note first: read after the log, a commit made in between would seem lost (and a
        # compaction made in between, the log read a copy from before it)
        noted = read_note(self._log.end_path)
        view = self._fresh_view()
        size = self._log.path.stat().st_size if self._log.path.exists() else 0
        generation = view.watermark.generation
        return {
            "path": str(self._log.path),
            "bytes": size,
            "uncommitted_bytes": view.uncommitted_bytes,
            "generation": generation,
            "committed_bytes": view.watermark.offset,
            "lost_bytes": max(0, noted.end - view.watermark.offset)
            if noted is not None and noted.generation == generation  # (a note of this log,
            else 0,  # not one compacted since)
            # a copy from before a compaction, put back: what came after is missing
            "older_copy": noted is not None and noted.of_an_older_copy(generation),
            # commits were noted, but the log has no header (its start cut off, or another
            # file put in its place): writes are refused (``refuse_lost_commits``)
            "header_lost": noted is not None and noted.lost_its_header(generation),
        }

    def live_bytes(self) -> int:
        """Bytes of the log's lines that hold live items: what a compaction keeps of it (and
        the log's header line)."""
        if self.root is None or self._log is None:
            return 0
        view = self._fresh_view()
        if view.catalog is None:  # a new or small shard: the tail alone, without numpy
            return sum(entry.length for entry in view.tail.values() if entry is not None)
        return int(view.live_records()["length"].sum())

    def check_every_line(self) -> None:
        """Parse every committed line of the log, those of items written again or removed
        since too (reads skip them, but a compaction or a rebuilt catalog reads them all).

        Raises:
            CorruptShardError: a line does not parse, naming it.
        """
        if self.root is None or self._log is None or not self._log.path.exists():
            return
        for _ in self._log.records(0, self._fresh_view().watermark.offset):
            pass

    def miscounted_batches(self) -> list[tuple[int, int, int]]:
        """Committed batches of the log whose lines were deleted or added by hand:
        ``(line of the commit, lines written, lines found)`` each (``LogFile``)."""
        if self.root is None or self._log is None or not self._log.path.exists():
            return []
        return self._log.miscounted_batches(self._fresh_view().watermark.offset)

    def __repr__(self) -> str:
        where = "in memory" if self.root is None else str(self.root)
        return f"<Substrate {where}>"

    def __getstate__(self) -> dict[str, Any]:
        """An in-memory shard pickles (and deep-copies) with its items; its search index is
        built again when searched. One on disk holds open files, a lock and a place in its
        log: it is opened again by its root wherever it is needed, not copied."""
        if self.root is not None:
            raise InvalidInputError(
                "a Substrate on disk cannot be pickled or copied; open "
                f"Substrate({str(self.root)!r}) where it is needed"
            )
        from substrate.search.layout import CACHE_ATTR

        state = self.__dict__.copy()
        state.pop(CACHE_ATTR, None)  # its compiled structures do not pickle: rebuilt when searched
        del state["_guard"]  # each copy has a lock of its own
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._guard = threading.RLock()

    @_serialized
    def close(self) -> None:
        """Release open files (the shard stays usable; they are reopened on demand)."""
        self._close_log_fd()
        if self._view is not None:
            self._view.close()

    def __enter__(self) -> Substrate:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # never raise from a finaliser
            self.close()

    # -- internals -----------------------------------------------------------------------------

    @_serialized
    def _fresh_view(self) -> LogView:
        view = self._view
        assert view is not None
        view.refresh()
        if view.reloaded:  # compacted by another process: what was removed is not in the log
            view.reloaded = False
            view.refolded.update(self._cache)
        if view.refolded:
            self._forget_replaced(view.refolded)
            view.refolded.clear()
        return view

    def _forget_replaced(self, ids: set[str]) -> None:
        """Drop cached copies of items another writer changed, unless this process changed
        them too (then its own version is kept, and saved over the other)."""
        for item_id in ids if len(ids) < len(self._cache) else list(self._cache):
            cached = self._cache.get(item_id)
            if cached is None or item_id not in ids:
                continue
            try:
                unchanged = encode(cached[0]) == cached[1]
            except InvalidInputError:
                unchanged = False
            if unchanged:
                del self._cache[item_id]

    @_serialized
    def _exists(self, item_id: str, view: LogView | None = None) -> bool:
        """Whether ``item_id`` is live; ``view``: the fresh view, when the caller has it."""
        if self.root is None:
            return item_id in self._mem
        if item_id in self._pending:
            return self._pending[item_id] is not None
        view = view or self._fresh_view()  # first: it drops copies another process removed
        return item_id in self._cache or view.locate(item_id) is not None

    def _reopen(self) -> None:
        self._close_log_fd()
        assert self._view is not None
        self._view.reset()

    def _close_log_fd(self) -> None:
        # forgotten before it is closed: a Ctrl-C between the two must not leave a number
        # that may already belong to another file, to be closed again later (as in Catalog)
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def _log_fd(self) -> int:
        """A descriptor of the log file the view last saw (reopened after a compaction)."""
        assert self._log is not None and self._view is not None
        ino = self._view._stat_seen[1]
        if self._fd is None or self._fd_ino != ino:
            self._close_log_fd()
            self._fd = os.open(self._log.path, os.O_RDONLY)
            self._fd_ino = os.fstat(self._fd).st_ino
        return self._fd

    # (each read holds the lock, so that close() in another thread cannot close the descriptor
    # between its look-up and the read; inline, not ``_serialized``: once per item read)
    def _read_raw(self, offset: int, length: int) -> bytes:
        with self._guard:
            return os.pread(self._log_fd(), length, offset)

    def _read(self, offset: int, length: int) -> dict[str, Any]:
        assert self._log is not None
        with self._guard:
            return self._log.read_line(self._log_fd(), offset, length)

    @_serialized
    def _load(self, data: dict[str, Any]) -> SubstrateItem:
        item = SubstrateItem.from_json(data)
        self._cache[item.id] = (item, encode(item))
        return item

    def _collect_changes(
        self, skip: Container[str] = ()
    ) -> tuple[list[str], list[bytes], list[bool]]:
        """The ids, log lines and removal flags of every unsaved change (but those of ``skip``)."""
        ids: list[str] = []
        lines: list[bytes] = []
        removed: list[bool] = []
        for item_id, item in self._pending.items():
            if item_id in skip:
                continue
            ids.append(item_id)
            lines.append(encode_tombstone(item_id) if item is None else encode(item))
            removed.append(item is None)
        for item_id, _, line in self._changed_in_place():
            if item_id not in skip:
                ids.append(item_id)
                lines.append(line)
                removed.append(False)
        return ids, lines, removed

    def _write_batch(
        self,
        ids: list[str],
        lines: list[bytes],
        removed: list[bool],
        *,
        bulk: bool = False,
        settled: Collection[str] = (),
    ) -> None:
        """Append the lines of ``ids`` to the log and note them written; ``settled``: the ids
        whose unsaved change the lines replace (given as lines already encoded, or removed)."""
        if not lines:
            return
        assert self._log is not None and self._view is not None
        settings = self.settings
        if settings.path is not None and not settings.lost and not settings.path.exists():
            settings.create()  # a shard created by save() gets its mixle.toml too
        view = self._fresh_view()
        before = view.watermark
        try:
            watermark, offsets, start, stat_after = self._log.append(lines)
        except BaseException:
            if self._log.appended:  # committed, then interrupted (noting the log's end)
                self._note_written(ids, lines, removed, settled)
            raise
        self.last_append = (Watermark(watermark.generation, start), watermark)
        # at once: committed, the batch stands though what follows is interrupted (a retry
        # would write it all again, over what another process wrote since)
        self._note_written(ids, lines, removed, settled)
        fresh_log = start == 0 and before.offset == 0
        in_step = fresh_log or (
            watermark.generation == before.generation and start == before.offset
        )
        if in_step:
            view.apply_batch(
                [
                    (item_id, offset, len(line), gone)
                    for item_id, offset, line, gone in zip(
                        ids, offsets, lines, removed, strict=True
                    )
                ]
            )
            view.note_written(watermark, stat_after)
            view.maybe_write_catalog(bulk=bulk)
        else:
            view.refresh()  # another writer got in first, or the log was created: re-read
            # what this save wrote is the latest of its ids (written last, under the lock):
            # not replaced by another process, whatever that process wrote before it
            view.refolded.difference_update(ids)

    def _note_written(
        self, ids: list[str], lines: list[bytes], removed: list[bool], settled: Collection[str]
    ) -> None:
        for item_id in settled:  # what was unsaved for these ids is superseded
            self._pending.pop(item_id, None)
            self._cache.pop(item_id, None)
        self.mutation_count += len(settled)
        for item_id, line, gone in zip(ids, lines, removed, strict=True):
            self._pending.pop(item_id, None)
            held = self._cache.get(item_id)
            if held is not None and not gone:  # changed in place and saved: its line now
                self._cache[item_id] = (held[0], line)

    @_serialized
    def _save_elsewhere(self, target: Path) -> str:
        """Write every live item to the shard at ``target`` and continue as that shard."""
        items = list(self._mem.values()) if self.root is None else self.all()
        # written through a separate store first: if the target cannot be written, this one
        # keeps its items and its place
        other = Substrate(target)
        for item in items:
            other._pending[item.id] = item
        changes = other._collect_changes()  # an item no line can hold refuses it here, first
        settings = other.settings
        if not settings.lost and not (settings.path and settings.path.exists()):
            settings.create()  # even with nothing to write, the target becomes a shard
        other._write_batch(*changes)
        other.close()
        self._mem.clear()
        self._put_at.clear()
        self._pending.clear()
        self._bind(target)
        assert self._log is not None
        return str(self._log.path)


def _ingest_sources_before_compaction(substrate: Substrate) -> SourceCache | None:
    # ingestion builds on the store: imported when needed
    from substrate.ingest.sources import SourceCache

    return SourceCache.before_compaction(substrate)


def _refuse_miscounted(log_file: LogFile, miscounted: list[tuple[int, int, int]]) -> None:
    """Raise ``LostCommitsError`` if a committed batch of the log lost or gained lines by
    hand (``miscounted``). Where, and how many lines, is left to ``mixle audit``: another
    team's batch is not a team's to place."""
    if miscounted:
        raise LostCommitsError(
            f"{log_file.path}: {len(miscounted)} committed batch(es) lost or gained lines by "
            "hand: an item may be missing, and a compaction would make that for good; restore "
            "items.jsonl from a backup (`mixle audit` says where), or compact with "
            "--accept-loss to keep what is left"
        )


def _drop_search_index(index_dir: Path) -> None:
    """Delete the search index files after a compaction: they describe the old log, so the
    next search rebuilds them anyway, and meanwhile they would still hold the words of every
    item the compaction reclaimed (a secret stored with ``redact=False``, then replaced)."""
    from substrate.search.layout import PREFIX
    from substrate.search.sync import index_lock

    # under the index's lock: a search writing an index it built from the old log finishes
    # first, and its files go too
    try:
        with index_lock(index_dir):
            for path in index_dir.glob(f"{PREFIX}*"):
                if is_folder(path):  # no index file, nor any word of one: `reindex` removes it
                    continue
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
    except OSError as exc:
        raise ShardError(
            f"the log was compacted, but the old search index could not be deleted "
            f"({exc.filename or index_dir}: {exc.strerror or exc}); it may still hold the words "
            f"of the items reclaimed: delete {index_dir / PREFIX}* by hand"
        ) from exc
