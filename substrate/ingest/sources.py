"""The per-source state cache: what each ingested file looked like and which items it gave.

It maps a source (the file's absolute path, or ``stream:<name>`` for text ingested from a
stream) and the scope it was ingested into to its size, mtime, content hash, the ingest options
used, and the ids of its items. The scope is part of the key: one file ingested by two teams
gives each its own items, and one team's ingest never replaces, prunes or reports the other's.
With it, a re-ingest decides "unchanged" from one ``stat`` per file without reading the log.
It lives in ``<shard>/index/`` (``sourcefile.py`` describes the files) and is derived data,
stamped with the log watermark it covers:

* stamp equal to the log's committed end: used as is;
* the log grew since (another command wrote): the new lines are folded in;
* missing, unreadable, or the log was rewritten (compaction): rebuilt from the provenance of the
  items (``path``, ``size``, ``mtime_ns``, ``content_hash``, ``ingest_options``).

Deleting ``index/`` therefore loses nothing. An in-memory shard computes it from its items.

A source whose name holds a secret is kept under its masked name (``sourcekeys``).
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from substrate.ingest import sourcefile
from substrate.ingest.sourcekeys import (
    DIGEST_SEP,
    MaskedFiles,
    is_masked,
    origin_digest,
    scoped_key,
    source_key,
)
from substrate.item import whole_number
from substrate.linesdigest import whole_file_hash
from substrate.log import LogFile, Watermark
from substrate.notelinks import ingest_root
from substrate.secrets.paths import safe_path

if TYPE_CHECKING:
    from collections.abc import Iterable

    from substrate.item import SubstrateItem
    from substrate.store import Changes, Substrate

log = logging.getLogger(__name__)

# A file modified this close to its ingest may change again within the same timestamp tick (or
# the file system's timestamps may be coarse), so its mtime proves nothing: such a "racy" entry
# is recorded with mtime -1, and the next run compares content hashes instead (as git does).
RACY_WINDOW_S = 2.0
# A save that changed at most this many sources (or an eighth of them) appends to the journal.
JOURNAL_MIN = 64


_K = TypeVar("_K")


def _sorted_lists(groups: dict[_K, list[str]]) -> dict[_K, list[str]]:
    """``groups`` with each list sorted, in place."""
    for members in groups.values():
        members.sort()
    return groups


# A file of a document per line written to within this many seconds may end in a line its
# writer is still writing (block-buffered writers leave one half-written for many seconds)
LINE_BEING_WRITTEN_S = 60.0


def being_written(mtime_ns: int, now: float) -> bool:
    """Whether a file last written at ``mtime_ns`` may still be being written at ``now``."""
    return abs(now - mtime_ns / 1e9) <= LINE_BEING_WRITTEN_S


def settled_mtime(mtime_ns: int, ingested_at: float) -> int:
    """``mtime_ns``, or -1 when it is too close to the ingest time to be trusted."""
    return -1 if abs(ingested_at - mtime_ns / 1e9) <= RACY_WINDOW_S else mtime_ns


@dataclass(slots=True)
class SourceState:
    """What a source looked like when it was last ingested.

    ``content_hash`` is empty when unknown (a binary file, or items that disagree), which forces
    the next ingest to parse the file again. ``skipped`` holds the reason for a file deliberately
    left out (``binary file``); its ``ids`` are those of the items of an earlier text version
    that were published elsewhere since, if any (the others were removed).
    ``problems`` counts the lines or rows its parser rejected, so that a run that skips the
    unchanged file can say they are still there, and ``rejected`` holds the first of them
    (``[line, reason]``, at most ``KEPT_REJECTIONS``), so that it can say where. ``stamp`` is
    the file's change time when it was read (``walk.file_stamp``; 0: unknown): two files of
    one size and time that swapped names, or a backup copied back over a file with its size
    and time, change it.
    """

    size: int
    mtime_ns: int
    content_hash: str
    options: str
    ids: list[str] = field(default_factory=list)
    skipped: str = ""
    problems: int = 0
    rejected: list[list[Any]] = field(default_factory=list)
    stamp: int = 0


# How many rejected lines a source's state keeps, to be told again while the file is unchanged
KEPT_REJECTIONS = 20


class LastRead(NamedTuple):
    """What the cache tells of a file found unchanged: why it was left out ("" when it was
    not), how many of its lines its parser rejected, and the first of those lines."""

    skipped: str = ""
    problems: int = 0
    rejected: list[list[Any]] = []


def _row_tail(last: LastRead) -> list[Any]:
    """The optional end of a cache row: ``[skipped]``, ``[skipped, problems]``, ``[skipped,
    problems, rejected]`` or nothing."""
    skipped, problems, rejected = last
    if rejected:
        return [skipped, problems, rejected]
    return [skipped, problems] if problems else [skipped] if skipped else []


def _read_tail(rest: list[Any]) -> LastRead:
    """``LastRead`` from the optional end of a cache row."""
    skipped = str(rest[0]) if rest else ""
    problems = rest[1] if len(rest) > 1 and isinstance(rest[1], int) else 0
    rejected = rest[2] if len(rest) > 2 and _rejections(rest[2]) else []
    return LastRead(skipped, problems, rejected)


_NOTHING_SKIPPED = LastRead()


def _last_read(state: SourceState) -> LastRead:
    return LastRead(state.skipped, state.problems, state.rejected)


def _rejections(value: Any) -> bool:
    """Whether ``value`` is a list of ``[line, reason]`` (a malformed one is left unsaid)."""
    return isinstance(value, list) and all(
        isinstance(pair, list)
        and len(pair) == 2
        and isinstance(pair[0], int | None)
        and isinstance(pair[1], str)
        for pair in value
    )


# The provenance field that records how many lines of the source its parser rejected, so that
# a cache rebuilt from the items still reports them (absent when none were).
REJECTED_KEY = "rejected_lines"


def naming_key(fingerprint: str, folder: str) -> str:
    """What the cache records a source under: its options' ``fingerprint`` and the ``folder``
    its name (``source``) is its path from, as another folder names it anew (a digest: the
    folder's name may hold a secret)."""
    return hashlib.blake2b(f"{fingerprint}\x1f{folder}".encode(), digest_size=8).hexdigest()


def _naming_key_of(provenance: dict[str, Any]) -> str:
    path, source = provenance.get("path"), provenance.get("source")
    folder = None
    if isinstance(path, str) and isinstance(source, str):
        folder = ingest_root(path, source)
    return naming_key(str(provenance.get("ingest_options") or ""), folder or "")


def _state_of(provenance: dict[str, Any]) -> SourceState:
    mtime_ns = whole_number(provenance.get("mtime_ns"))
    ingested_at = provenance.get("ingested_at")
    if isinstance(ingested_at, int | float):
        mtime_ns = settled_mtime(mtime_ns, float(ingested_at))
    rejected = provenance.get(REJECTED_KEY)
    return SourceState(
        whole_number(provenance.get("size")),
        mtime_ns,
        str(provenance.get("content_hash") or ""),
        _naming_key_of(provenance),
        problems=rejected if isinstance(rejected, int) else 0,
    )


def committed_watermark(substrate: Substrate) -> Watermark:
    """The committed end of the shard's log, found from the end of ``items.jsonl``.

    The same value as ``substrate.log_watermark()``, without bringing the store's catalog up to
    date, so that checking an unchanged tree does not pay for reading the log.
    """
    if substrate.root is None:
        return substrate.log_watermark()
    log_file = LogFile(substrate.root)
    return Watermark(log_file.generation(), log_file.tail_state().committed_end)


def _seal_at(substrate: Substrate, offset: int) -> int | None:
    """``LogFile.seal`` of the shard's log (one small read; the store's catalog is not
    brought up to date)."""
    return None if substrate.root is None else LogFile(substrate.root).seal(offset)


class SourceCache:
    """Source key -> ``SourceState``, plus the log watermark it is known to cover.

    It holds the sources of every scope, but its methods take a source's origin (path or
    stream key) and answer for the scope it was opened for. Entries read from disk stay
    compact rows (size, mtime, option index) until a caller needs more than the unchanged
    check; hashes and ids are read the first time they are needed.
    """

    def __init__(
        self, substrate: Substrate, index_dir: Path | None, watermark: Watermark, scope: str
    ) -> None:
        self.substrate = substrate
        self.index_dir = index_dir
        self.watermark = watermark
        self.scope = scope
        self._in_scope = scoped_key("", scope)  # a source's key: this, then its origin
        self.states: dict[str, SourceState | sourcefile.Row] = {}
        self.options: list[str] = []  # fingerprints the rows' option indexes refer to
        self.dirty = False  # the stats need writing
        self.items_dirty = False  # the hashes or ids changed too
        self.trusted = True  # False once the log was rewritten under us: not worth saving
        self._items: dict[str, list[Any]] | None = {}  # None: on disk, not read yet
        self._pair = ""
        self._stamp: Watermark | None = None  # what the files on disk cover
        self._seal: int | None = None  # the log's seal at the stamp, as the files record it
        self._option_index: dict[str, int] = {}
        self._owner: dict[str, str] | None = None  # id -> key, built when first needed
        self._changed: set[str] = set()  # keys changed since the files on disk were written
        self._journaled = 0  # keys the journal on disk already holds
        self._whole = False  # the next save rewrites the files (a rebuild or a fold)
        self._masked: dict[str, str] | None = None  # digest -> key of masked names (this scope)
        # keys of the sources other runs stored since the cache was opened: a walk that began
        # before may have passed their files by, and cannot tell they are gone
        self._stored_meanwhile: set[str] = set()
        # ids other runs stored in another scope since (published, or merged into another
        # team's item): this run neither removes nor writes them again
        self.published_meanwhile: set[str] = set()

    # -- opening ----------------------------------------------------------------------------

    @classmethod
    def open(cls, substrate: Substrate, scope: str) -> SourceCache:
        """The cache of ``substrate`` for ingesting into ``scope``, caught up with its log (see
        the module docstring).

        Raises:
            ShardError: the log lost committed lines, or one no longer parses (an unchanged
                tree writes nothing, and would otherwise pass that over).
        """
        if substrate.root is not None:
            LogFile(substrate.root).refuse_damage_before_a_write()
        current = committed_watermark(substrate)
        if substrate.root is None:
            cache = cls(substrate, None, current, scope)
            cache.absorb(substrate.iter_items())
            return cache
        index_dir = substrate.root / "index"
        stored = sourcefile.read_stats(index_dir)
        if stored is not None:
            cache = cls(substrate, index_dir, stored.watermark, scope)
            cache.states.update(stored.rows)
            cache.options = stored.options
            cache._option_index = {o: i for i, o in enumerate(stored.options)}
            cache._items = None
            cache._pair = stored.pair
            cache._stamp, cache._seal = stored.watermark, stored.seal
            cache._replay(sourcefile.read_journal(index_dir, stored.pair))
            if not cache._stamp_in_log(current):
                log.warning("the log was edited under the ingest source cache; rebuilding it")
            elif cache.watermark == current or cache.catch_up(substrate):
                cache._stored_meanwhile.clear()  # stored before this run: its walk judges them
                cache.published_meanwhile.clear()
                return cache
        return cls._rebuilt(substrate, index_dir, current, scope)

    @classmethod
    def _rebuilt(
        cls, substrate: Substrate, index_dir: Path, current: Watermark, scope: str
    ) -> SourceCache:
        log.info("rebuilding the ingest source cache from item provenance")
        cache = cls(substrate, index_dir, current, scope)
        cache.absorb(substrate.iter_items())
        cache.dirty = cache.items_dirty = cache._whole = True
        return cache

    def _replay(self, entries: list[dict[str, Any]]) -> None:
        """Apply journal lines read with the files (a malformed line ends the replay)."""
        for entry in entries:
            try:
                watermark = Watermark(str(entry["generation"]), int(entry["offset"]))
                rows, ids, gone = dict(entry["set"]), dict(entry["ids"]), list(entry["drop"])
            except (KeyError, TypeError, ValueError):
                log.warning("ignoring the rest of a malformed source cache journal")
                self._whole = True
                return
            for key in gone:
                self.states.pop(key, None)
            for key, row in rows.items():
                self._replay_row(key, row, ids.get(key))
            self.watermark = self._stamp = watermark
            self._seal = sourcefile.seal_of(entry)
            self._journaled += len(rows) + len(gone)

    def _replay_row(self, key: str, row: list[Any], ids: list[str] | None) -> None:
        size, mtime_ns, options, digest, stamp, *rest = row
        skipped, problems, rejected = _read_tail(rest)
        state = self.states.get(key)
        if ids is not None:
            self.states[key] = SourceState(
                size, mtime_ns, digest, options, list(ids), skipped, problems, rejected, stamp
            )
        elif isinstance(state, SourceState):  # touched after an earlier line set its ids
            state.size, state.mtime_ns, state.content_hash = size, mtime_ns, digest
            state.options, state.skipped, state.problems = options, skipped, problems
            state.rejected, state.stamp = rejected, stamp
        else:  # touched: the ids are those of the files
            at = self._option_index.get(options)
            if at is None:
                at = self._option_index[options] = len(self.options)
                self.options.append(options)
            self.states[key] = [
                size,
                mtime_ns,
                at,
                digest,
                stamp,
                *_row_tail(LastRead(skipped, problems, rejected)),
            ]

    def _stamp_in_log(self, current: Watermark) -> bool:
        """Whether the log, at ``current``, still holds unchanged what the files on disk cover
        (as far as their seal tells: a shard too small for a catalog has no other way to
        notice a batch removed by hand and another of the same length appended since). Files
        of another generation (after ``compact``) are left to ``catch_up``."""
        stamp = self._stamp
        if self._seal is None or stamp is None or stamp.generation != current.generation:
            return True
        return _seal_at(self.substrate, stamp.offset) == self._seal

    def _hashes_and_ids(self) -> dict[str, list[Any]]:
        """The on-disk hashes and ids, read now if needed (a mismatch forces a rebuild)."""
        if self._items is None:
            items = None
            if self.index_dir is not None:
                items = sourcefile.read_items(self.index_dir, self._pair)
            if items is None:
                assert self.index_dir is not None
                fresh = self._rebuilt(self.substrate, self.index_dir, self.watermark, self.scope)
                self.states, self.options = fresh.states, fresh.options
                self._option_index, self._owner = fresh._option_index, None
                self.dirty = self.items_dirty = self._whole = True
                items = {}
            self._items = items
        return self._items

    def catch_up(self, substrate: Substrate) -> bool:
        """Fold in what was saved since the stamp; False when the log was rewritten.

        After a False the cache is no longer trusted: it is not saved, and the next run reads
        the one the rewrite saved, or rebuilds it from the items.
        """
        committed = committed_watermark(substrate)
        if self.watermark == committed:
            return True
        since = self.watermark
        if since.offset == 0 and not self.states:  # opened before the log existed: all is new
            since = Watermark(committed.generation, 0)
        changes = substrate.saved_changes(since)
        if changes is None:
            self.trusted = False
            return False
        self.fold(changes)
        return True

    # -- reading ----------------------------------------------------------------------------

    def unchanged(
        self, origin: str, size: int, mtime_ns: int, options: str, stamp: int
    ) -> LastRead | None:
        """Whether ``origin`` is known with this size, mtime, options and ``stamp`` (0: not
        known), without decoding it: None when it is not, else what it was found to be last
        time. A state that knows no stamp (rebuilt from the items) learns this one."""
        # a re-ingest asks this of every file: its own name first, a masked one only if need be
        key = self._in_scope + origin
        state = self.states.get(key)
        if state is None:
            masked = self._masked_key(origin)
            if masked is None or (state := self.states.get(masked)) is None:
                return None
            key = masked
        if isinstance(state, SourceState):
            same = (state.size, state.mtime_ns, state.options) == (size, mtime_ns, options)
            if not same or (state.stamp and stamp and state.stamp != stamp):
                return None
            if stamp and not state.stamp:
                state.stamp = stamp
                self._note_touched(key)
            return _last_read(state)
        try:
            if (
                state[0] != size
                or state[1] != mtime_ns
                or state[2] != self._option_index.get(options)
            ):
                return None
            if state[4] != stamp and stamp:
                if state[4]:
                    return None  # another file bears its name, or one copied back over it
                state[4] = stamp
                self._note_touched(key)
            return _read_tail(state[5:]) if len(state) > 5 else _NOTHING_SKIPPED
        except (IndexError, TypeError):
            return None

    def other_options(self, origin: str, size: int, mtime_ns: int, options: str) -> bool:
        """Whether ``origin`` is known with this size and mtime, but other options."""
        state = self._stat_state(origin)
        if state is None:
            return False
        if isinstance(state, SourceState):
            return (state.size, state.mtime_ns) == (size, mtime_ns) and state.options != options
        try:
            same_stat = (state[0], state[1]) == (size, mtime_ns)
            return same_stat and state[2] != self._option_index.get(options)
        except (IndexError, TypeError):
            return False

    def _stat_state(self, origin: str) -> SourceState | sourcefile.Row | None:
        """The state of ``origin``, as ``unchanged`` reads it (a row not yet decoded)."""
        state = self.states.get(scoped_key(origin, self.scope))
        if state is None:
            key = self._masked_key(origin)
            state = self.states.get(key) if key is not None else None
        return state

    def _masked_key(self, origin: str) -> str | None:
        """The key of ``origin`` known under its masked name, if it is."""
        masked = self._masked_keys()
        return masked.get(origin_digest(origin)) if masked else None

    def known_keys(self) -> set[str]:
        """The ``naming_key`` of every source the cache knows."""
        known = set(self._option_index)
        known.update(s.options for s in self.states.values() if isinstance(s, SourceState))
        return known

    def naming_counts(self, folder: str) -> Counter[str]:
        """How many of this scope's sources inside ``folder`` each ``naming_key`` named."""
        inside = scoped_key(folder.rstrip(os.sep) + os.sep, self.scope)
        counts: Counter[str] = Counter()
        for key, state in self.states.items():
            if key.startswith(inside):
                if isinstance(state, SourceState):
                    counts[state.options] += 1
                else:
                    counts[self.options[int(state[2])]] += 1
        return counts

    def last_read(self, origin: str) -> LastRead:
        """What ``origin`` was found to be when it was last read; its item ids are not read."""
        state = self.states.get(self._key(origin))
        if state is None:
            return _NOTHING_SKIPPED
        if isinstance(state, SourceState):
            return _last_read(state)
        return _read_tail(state[5:])

    def get(self, origin: str) -> SourceState | None:
        """The state of ``origin`` (a live object: changes need ``record`` to be saved)."""
        return self._state(self._key(origin))

    def _key(self, origin: str) -> str:
        """The key ``origin`` is known under: its own, or that of its masked name."""
        key = scoped_key(origin, self.scope)
        if key in self.states:
            return key
        masked = self._masked_keys()
        return masked.get(origin_digest(origin), key) if masked else key

    def _masked_keys(self) -> dict[str, str]:
        """Digest -> key of this scope's sources with masked names, worked out when needed."""
        if self._masked is None:
            prefix = scoped_key("", self.scope)
            self._masked = {
                key.rsplit(DIGEST_SEP, 1)[1]: key
                for key in self.states
                if is_masked(key) and key.startswith(prefix)
            }
        return self._masked

    def _state(self, key: str) -> SourceState | None:
        state = self.states.get(key)
        if state is None or isinstance(state, SourceState):
            return state
        items = self._hashes_and_ids()
        state = self.states.get(key)  # reading may have rebuilt the cache
        if state is None or isinstance(state, SourceState):
            return state
        try:
            _, ids = items.get(key, ("", []))
            full = SourceState(
                int(state[0]),
                int(state[1]),
                str(state[3]),
                self.options[int(state[2])],
                [str(i) for i in ids],
                *_read_tail(state[5:]),
                stamp=int(state[4]),
            )
        except (IndexError, TypeError, ValueError):
            log.warning("ignoring a malformed source cache entry for %s", key)
            del self.states[key]
            return None
        self.states[key] = full
        return full

    def known_version(self, origin: str, options: str) -> tuple[int, str]:
        """The size and content hash stored for ``origin`` under ``options`` ((0, "") when
        none); it does not read the item ids, so a touched file costs no more than its own
        hash."""
        state = self.states.get(self._key(origin))
        if state is None:
            return 0, ""
        if isinstance(state, SourceState):
            return (state.size, state.content_hash) if state.options == options else (0, "")
        try:
            same = state[2] == self._option_index.get(options)
            return (int(state[0]), str(state[3])) if same else (0, "")
        except (IndexError, TypeError, ValueError):
            return 0, ""

    def files_by_hash(self) -> dict[str, list[str]]:
        """The files of this scope by the content hash they were last read with, each list
        sorted (never a stream, nor a file known by a masked name: neither can be looked for
        on disk)."""
        by_hash: dict[str, list[str]] = {}
        for path, _, _, found in self._files_on_disk():
            if found:
                by_hash.setdefault(str(found), []).append(path)
        return _sorted_lists(by_hash)

    def hashless_files_by_look(self) -> dict[tuple[int, int, str], list[str]]:
        """The files of this scope known with no hash of their bytes (a secret was masked in
        them: none, or ``linesdigest``'s) by their size, modification time and name, as a
        move keeps them; each list sorted. Not those last read too close to their
        modification for the time to be trusted."""
        by_look: dict[tuple[int, int, str], list[str]] = {}
        for path, size, mtime_ns, found in self._files_on_disk():
            # (nor a malformed entry: ``_state`` passes it over when asked)
            hashless = not (whole_file_hash(found) if isinstance(found, str) else found)
            if hashless and mtime_ns != -1 and isinstance(size, int) and isinstance(mtime_ns, int):
                by_look.setdefault((size, mtime_ns, os.path.basename(path)), []).append(path)
        return _sorted_lists(by_look)

    def _files_on_disk(self) -> Iterator[tuple[str, Any, Any, Any]]:
        """``(path, size, mtime_ns, content hash)`` of each file of this scope the cache
        knows, as stored (an entry read from disk is not decoded): never a stream, nor a file
        known by a masked name (neither can be looked for on disk)."""
        start = len(scoped_key("", self.scope))
        prefix = scoped_key(os.sep, self.scope)
        for key, state in self.states.items():
            if not key.startswith(prefix) or is_masked(key):
                continue
            if isinstance(state, SourceState):
                yield key[start:], state.size, state.mtime_ns, state.content_hash
            else:
                yield key[start:], state[0], state[1], state[3] if len(state) > 3 else ""

    def missing_under(self, directory: str, present: set[str]) -> list[str]:
        """The files of this scope inside ``directory`` (an absolute path) not in ``present``,
        sorted, and one that was at its own path before it was a folder; a file with a masked
        name is given as the cache names it.

        Masking keeps a name's text up to its first secret, so a masked name lies under
        ``directory`` when it starts with it. When the directory's own name holds the secret,
        every name under it is masked, and names under another folder that masks alike
        (``w_ghp_…`` beside ``w_ghp_…`` of another token) read the same: its files are given
        only when no other folder on disk masks alike. Else their items are kept, never
        removed by mistake (a folder that masked alike and is gone from the disk reads as
        this one's files, deleted, and its items go too).
        """
        start = len(scoped_key("", self.scope))
        prefixes = [directory.rstrip(os.sep) + os.sep]
        shown = safe_path(directory)
        if shown != directory and MaskedFiles().paths(shown) == [directory]:
            prefixes.append(shown.rstrip(os.sep) + os.sep)
        keys = tuple(scoped_key(prefix, self.scope) for prefix in prefixes)
        itself = scoped_key(directory.rstrip(os.sep), self.scope)  # a file there before
        origins = [k[start:] for k in self.states if k.startswith(keys) or k == itself]
        digests: set[str] | None = None
        missing = []
        for origin in origins:
            if DIGEST_SEP in origin:
                if digests is None:
                    digests = {origin_digest(path) for path in present}
                if origin.rsplit(DIGEST_SEP, 1)[1] in digests:
                    continue
            elif origin in present:
                continue
            missing.append(origin)
        return sorted(missing)

    # -- updating ---------------------------------------------------------------------------

    def absorb(self, items: Iterable[SubstrateItem]) -> None:
        """Add items to the states of their sources (a rebuild, or a fold of new lines)."""
        self._owners()  # (whose item each id is: what tells one known already, at once)
        for item in items:
            key = source_key(item)
            if key is not None:
                self._attach(key, item.id, _state_of(item.provenance))

    def _attach(self, key: str, item_id: str, seen: SourceState) -> None:
        owners = self._owners()
        previous = owners.get(item_id)
        if previous is not None and previous != key:
            self._detach(item_id)
        owners[item_id] = key
        state = self._state(key)
        if state is None:
            seen.ids = [item_id]
            self.states[key] = seen
            if is_masked(key):
                self._masked = None
            return
        if (state.content_hash, state.options) != (seen.content_hash, seen.options):
            # items from two versions of the file: force the next ingest to re-parse it, which
            # replaces all of them
            state.content_hash = ""
        if previous != key:  # (a look-up in the list, per item, took time quadratic in it)
            state.ids.append(item_id)

    def _detach(self, item_id: str) -> None:
        key = self._owners().pop(item_id, None)
        state = self._state(key) if key is not None else None
        if state is not None and item_id in state.ids:
            state.ids.remove(item_id)

    def _owners(self) -> dict[str, str]:
        if self._owner is None:
            owners: dict[str, str] = {}
            for key in list(self.states):
                state = self._state(key)
                for item_id in state.ids if state is not None else ():
                    owners[item_id] = key
            self._owner = owners
        return self._owner

    def fold(self, changes: Changes) -> None:
        """Apply items written and ids removed by other commands."""
        self._owners()
        published = self.published_meanwhile
        for item_id in changes.removed:
            self._detach(item_id)
            published.discard(item_id)
        stored: dict[str, dict[str, SourceState]] = {}
        for item in changes.upserts:
            key = source_key(item)
            if key is None:
                self._detach(item.id)
            else:
                seen = _state_of(item.provenance)
                self._attach(key, item.id, seen)
                stored.setdefault(key, {})[item.id] = seen
                if item.scope == self.scope:
                    published.discard(item.id)
                else:  # (or merged into another team's item: no longer this scope's either)
                    published.add(item.id)
        for key, version in stored.items():
            self._stored_meanwhile.add(key)
            self._take_version(key, version)
        self.watermark = changes.until
        self.dirty = self.items_dirty = self._whole = True

    def _take_version(self, key: str, seen: dict[str, SourceState]) -> None:
        """Take as ``key``'s state the version of its file another run stored whole: items of
        one content and options, and no other item of the file left. Its size and time are
        then known, as if this run had read it: the next ingest of the unchanged file skips it,
        where one that found the state of the version before (a cache that a compaction wrote
        while that run went on) parsed the file again and wrote its items once more."""
        state = self._state(key)
        first = next(iter(seen.values()))
        one_version = all(
            (s.content_hash, s.options) == (first.content_hash, first.options)
            for s in seen.values()
        )
        if state is None or not one_version or not first.content_hash:
            return
        if set(state.ids) != seen.keys():  # (the items of an earlier version are left too)
            return
        state.size, state.mtime_ns, state.content_hash = (
            first.size,
            first.mtime_ns,
            first.content_hash,
        )
        state.options, state.problems, state.stamp = first.options, first.problems, 0
        state.skipped, state.rejected = "", []

    def stored_meanwhile(self, origin: str) -> bool:
        """Whether another run stored ``origin`` since this cache was opened (see ``fold``)."""
        return self._key(origin) in self._stored_meanwhile

    def record(self, origin: str, state: SourceState, named: str = "") -> None:
        """Set the state of ``origin`` after it was ingested (or skipped).

        ``named`` is how the cache names it (``cache_origin``), when that is not ``origin``.
        """
        key = scoped_key(named or origin, self.scope)
        known = self._key(origin)
        if known != key and known in self.states:  # named the other way before
            self._forget(known)
        if named:
            self._masked = None
        if self._owner is not None:
            old = self._state(key)
            for item_id in old.ids if old is not None else ():
                self._owner.pop(item_id, None)
            for item_id in state.ids:
                self._owner[item_id] = key
        self.states[key] = state
        self._changed.add(key)
        self.dirty = self.items_dirty = True

    def touch(self, origin: str, size: int, mtime_ns: int, stamp: int) -> None:
        """Note a new size, mtime and stamp for a source whose content did not change."""
        key = self._key(origin)
        state = self.states.get(key)
        if isinstance(state, SourceState):
            state.size, state.mtime_ns, state.stamp = size, mtime_ns, stamp
        elif state is not None:  # a row as read: no need to read the item ids
            state[0], state[1], state[4] = size, mtime_ns, stamp
        else:
            return
        self._note_touched(key)

    def _note_touched(self, key: str) -> None:
        """``key``'s stat changed: saved with the next save, its ids as they are."""
        self._changed.add(key)
        self.dirty = True

    def drop(self, origin: str) -> None:
        """Forget a source (its items were removed)."""
        self._forget(self._key(origin))

    def _forget(self, key: str) -> None:
        if self._owner is not None:
            state = self._state(key)
            for item_id in state.ids if state is not None else ():
                self._owner.pop(item_id, None)
        if self.states.pop(key, None) is not None and is_masked(key):
            self._masked = None
        self._changed.add(key)
        self.dirty = self.items_dirty = True

    # -- compaction -------------------------------------------------------------------------

    @classmethod
    def before_compaction(cls, substrate: Substrate) -> SourceCache | None:
        """The cache as the log stands before ``substrate`` compacts it (None when there is
        none on disk), to be stamped again after (``after_compaction``). A compaction keeps
        every live item, so all the cache says of each source stays true, down to the files
        whose items were all removed by hand: a cache rebuilt from the items would know
        nothing of those, and ingest them again."""
        if substrate.root is None:
            return None
        if not (substrate.root / "index" / sourcefile.STATS_FILE).exists():
            return None
        return cls.open(substrate, "")

    def after_compaction(self, watermark: Watermark) -> None:
        """Write the cache again, stamped with the compacted log's ``watermark``."""
        self.dirty = self.items_dirty = self._whole = True
        self.save(watermark)

    # -- saving -----------------------------------------------------------------------------

    def save(self, watermark: Watermark) -> None:
        """Write the cache stamped with ``watermark`` (atomically; failures only logged)."""
        self.watermark = watermark
        index_dir = self.index_dir
        if index_dir is None:
            return
        if not self.trusted:
            # the files on disk are stamped with the log they cover: those of the rewrite
            # (a compaction's) go on from there, and older ones are rebuilt on the next open
            return
        if not (self.dirty or self.items_dirty or watermark != self._stamp):
            return
        seal = _seal_at(self.substrate, watermark.offset)
        entry = self._entry(watermark, seal) if self._journal_fits() else None
        if entry is not None and sourcefile.append_journal(index_dir, entry):
            self._journaled += len(self._changed)
            self._changed.clear()
            self._stamp, self._seal = watermark, seal
            self.dirty = self.items_dirty = False
            return
        # (a journal may hold ids the items file lacks: the rewrite drops it, so writes both)
        if self.items_dirty or self._journaled:
            items = self._hashes_and_ids()
            rows: dict[str, list[Any]] = {}
            for key, state in self.states.items():
                if isinstance(state, SourceState):
                    rows[key] = [state.content_hash, state.ids]
                else:
                    rows[key] = items.get(key, ["", []])
            pair = sourcefile.write_items(index_dir, rows)
            if pair is None:
                return
            self._pair = pair
        options: list[str] = []
        index: dict[str, int] = {}
        stats: dict[str, sourcefile.Row] = {}
        row: sourcefile.Row
        for key, state in self.states.items():
            if isinstance(state, SourceState):
                fingerprint = state.options
                row = [state.size, state.mtime_ns, 0, state.content_hash, state.stamp]
                row += _row_tail(_last_read(state))
            else:
                try:
                    fingerprint, row = self.options[state[2]], list(state)
                except (IndexError, TypeError):
                    continue  # a malformed row: forgotten, so the file is ingested again
            at = index.get(fingerprint)
            if at is None:
                at = index[fingerprint] = len(options)
                options.append(fingerprint)
            row[2] = at
            stats[key] = row
        if sourcefile.write_stats(index_dir, watermark, seal, self._pair, options, stats):
            sourcefile.remove_journal(index_dir)
            self._stamp, self._seal = watermark, seal
            self.dirty = self.items_dirty = self._whole = False
            self._changed.clear()
            self._journaled = 0

    def _journal_fits(self) -> bool:
        """Whether this save may be a journal line: the files on disk hold everything but the
        changed keys, and the journal stays small next to them."""
        if self._whole or not self._pair or self._stamp is None:
            return False
        return self._journaled + len(self._changed) <= max(JOURNAL_MIN, len(self.states) // 8)

    def _entry(self, watermark: Watermark, seal: int | None) -> dict[str, Any]:
        """The journal line for the changed keys."""
        rows: dict[str, list[Any]] = {}
        ids: dict[str, list[str]] = {}
        gone: list[str] = []
        for key in sorted(self._changed):
            state = self.states.get(key)
            if state is None:
                gone.append(key)
            elif isinstance(state, SourceState):
                rows[key] = [state.size, state.mtime_ns, state.options, state.content_hash]
                rows[key] += [state.stamp, *_row_tail(_last_read(state))]
                ids[key] = state.ids
            else:  # a touched row: same ids as on disk
                rows[key] = [state[0], state[1], self.options[state[2]], *state[3:]]
        return {
            "pair": self._pair,
            "generation": watermark.generation,
            "offset": watermark.offset,
            "seal": seal,
            "set": rows,
            "ids": ids,
            "drop": gone,
        }
