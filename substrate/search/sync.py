"""Keeping a Substrate's search index in step with the store.

A rooted shard keeps its index in Parquet files under ``<shard>/index/``; an in-memory shard
keeps it on the ``Substrate`` object. Either way the index is checked against the store before
each query:

* changes saved to the log since the index's watermark are folded in as a delta segment (and
  persisted), with automatic merges and an occasional refit of the embedding;
* changes made in this process and not saved yet are laid over the index as an ephemeral
  segment that is never written to disk;
* an index from another log generation (after compaction), built with other parameters, or
  unreadable, is rebuilt from the log.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from substrate.derived import derived_dir, failure, system_words
from substrate.errors import ShardError
from substrate.indexnames import remove_folders_in_place
from substrate.item import SubstrateItem
from substrate.locking import LockBusy, exclusive_lock
from substrate.search.coverage import Coverage
from substrate.search.layout import CACHE_ATTR, MANIFEST, StaleIndex
from substrate.search.mirror import read_mirrored, write_mirrors
from substrate.search.params import DEFAULT_PARAMS, SearchParams
from substrate.search.state import IndexState, build_state
from substrate.search.tokenize import Analyzer

if TYPE_CHECKING:
    from substrate.store import Substrate

log = logging.getLogger(__name__)

_LOCK_NAME = ".search.lock"


@dataclass(slots=True)
class Cache:
    """The index of one Substrate instance, and what it was checked against."""

    analyzer: Analyzer
    root: Path | None
    state: IndexState  # persisted (rooted shard) or complete (in-memory shard)
    view: IndexState  # ``state`` plus unsaved changes
    mutation_count: int
    watermark: Any
    fingerprints: dict[str, tuple[Any, ...]] | None = None


def analyzer_of(substrate: Any) -> Analyzer:
    """The analyzer cached with ``substrate``'s index (it memoises word analysis), or a new one."""
    cache = getattr(substrate, CACHE_ATTR, None)
    return cache.analyzer if isinstance(cache, Cache) else Analyzer()


# -- keeping the index current ------------------------------------------------------------------


def current(substrate: Any) -> Cache:
    """The cached index of ``substrate``, brought up to date with the store."""
    cache: Cache | None = getattr(substrate, CACHE_ATTR, None)
    root: Path | None = substrate.root
    if root is None:
        cache = _current_in_memory(substrate, cache)
    else:
        cache = _current_on_disk(substrate, root, cache)
    setattr(substrate, CACHE_ATTR, cache)
    return cache


def fingerprints(items: list[SubstrateItem]) -> dict[str, tuple[Any, ...]]:
    # Object identity plus the cheap fields: a replaced object or a put() of a changed one is
    # seen; hash(str) is cached by Python, so this stays O(1) per item after the first pass.
    return {
        it.id: (
            id(it),
            it.kind,
            hash(it.text) if isinstance(it.text, str) else repr(it.text),
            it.scope,
            tuple(map(str, it.tags)) if isinstance(it.tags, list) else (),
            it.created_at,
        )
        for it in items
    }


def _current_in_memory(substrate: Any, cache: Cache | None) -> Cache:
    count = substrate.mutation_count
    if cache is not None and cache.root is None and cache.mutation_count == count:
        return cache
    analyzer = analyzer_of(substrate)
    items = list(substrate.iter_items())
    prints = fingerprints(items)
    coverage = Coverage("memory", count)
    if cache is None or cache.root is not None or cache.fingerprints is None:
        state = build_state(analyzer, items, DEFAULT_PARAMS, coverage)
    else:
        old = cache.fingerprints
        put = substrate.put_since(cache.mutation_count)  # catches payload-only changes
        upserts = [it for it in items if it.id in put or old.get(it.id) != prints[it.id]]
        removed = [item_id for item_id in old if item_id not in prints]
        state = cache.state
        if upserts or removed:
            state = state.with_changes(
                analyzer, upserts, removed, coverage=coverage, take_locations=True
            ).maintained()
    return Cache(analyzer, None, state, state, count, None, prints)


def _current_on_disk(substrate: Any, root: Path, cache: Cache | None) -> Cache:
    _refuse_undecodable(root)
    watermark = substrate.log_watermark()
    count = substrate.mutation_count
    if cache is not None and cache.root == root:
        same = cache.watermark == watermark and cache.mutation_count == count
        if same and cache.fingerprints == fingerprints(substrate.held_items()):
            return cache  # nothing saved, put, removed or changed in place since
        state = cache.state
        if state.coverage != _coverage(watermark):
            state = _refresh(substrate, root, state)
    else:
        state = _refresh(substrate, root, None)
    return with_overlay(substrate, root, state, analyzer_of(substrate))


def _refuse_undecodable(root: Path) -> None:
    """A shard made at a path that is not valid UTF-8 (by an earlier mixle) keeps its items,
    but no search index (``shardfiles.undecodable_path``)."""
    from substrate.shardfiles import undecodable_path

    shown = undecodable_path(root)
    if shown is not None:
        raise ShardError(
            f"the shard path '{shown}' is not valid UTF-8, and no search index can be kept "
            "there: rename the folder (its items are read as ever)"
        )


def _coverage(watermark: Any, substrate: Any = None) -> Coverage:
    """The coverage of ``watermark``; sealed when ``substrate`` is given (to be persisted)."""
    seal = None if substrate is None else substrate.log_seal(watermark.offset)
    return Coverage(str(watermark.generation), int(watermark.offset), seal)


def with_overlay(substrate: Any, root: Path, state: IndexState, analyzer: Analyzer) -> Cache:
    watermark = substrate.log_watermark()
    pending = substrate.pending_changes()
    view = state
    if pending.upserts or pending.removed:
        view = state.with_changes(analyzer, pending.upserts, pending.removed, coverage=None)
    held = fingerprints(substrate.held_items())
    return Cache(analyzer, root, state, view, substrate.mutation_count, watermark, held)


def _refresh(substrate: Any, root: Path, state: IndexState | None) -> IndexState:
    """The persisted index brought up to the log's committed end (loaded, folded or rebuilt)."""
    directory = root / "index"
    analyzer = analyzer_of(substrate)
    params = DEFAULT_PARAMS
    if not (root / "items.jsonl").exists():
        # nothing saved, nothing to index on disk: a mistyped --shard must not become a shard
        return build_from_log(substrate, analyzer, params, None)
    with index_lock(directory):
        if state is None or not _usable(state, substrate.log_watermark()):
            state = _load(directory, params)
            if state is not None and state.coverage and not state.coverage.sealed_in(substrate):
                log.warning("the log was edited under the search index; rebuilding it")
                state = None
        changed = True
        if state is not None:
            folded = _fold_saved(substrate, analyzer, state)
            changed = folded is not state
            state = folded
        if state is None:
            state = build_from_log(substrate, analyzer, params, None)
        if changed:
            persist(directory, state)
    return state


def _usable(state: IndexState, watermark: Any) -> bool:
    cov = state.coverage
    return (
        cov is not None
        and cov.generation == watermark.generation
        and (cov.offset <= watermark.offset)
    )


def _load(directory: Path, params: SearchParams) -> IndexState | None:
    """The persisted index: from its mirrors when they are current, else from Parquet (and
    then the mirrors are rewritten for the next process); None when it must be rebuilt."""
    state = read_mirrored(directory, params)
    if state is not None:
        return state
    from substrate.search.index_read import read_state  # pyarrow: only when mirrors fail

    try:
        state = read_state(directory, params)
    except StaleIndex as exc:
        if (directory / MANIFEST).exists():
            log.info("search index will be rebuilt: %s", exc)
        return None
    write_mirrors(directory, state, force=True)
    return state


def _fold_saved(substrate: Any, analyzer: Analyzer, state: IndexState) -> IndexState | None:
    """``state`` with the log's saved changes since its watermark folded in; None: rebuild."""
    from substrate.log import Watermark

    current = substrate.log_watermark()
    if not _usable(state, current):
        return None
    assert state.coverage is not None
    if state.coverage.offset == current.offset:
        return state
    changes = substrate.saved_changes(Watermark(state.coverage.generation, state.coverage.offset))
    if changes is None:
        return None
    return state.with_changes(
        analyzer,
        changes.upserts,
        changes.removed,
        coverage=_coverage(changes.until, substrate),
        take_locations=True,
    ).maintained()


def build_from_log(
    substrate: Any,
    analyzer: Analyzer,
    params: SearchParams,
    progress: Callable[[int, int], None] | None,
) -> IndexState:
    watermark = substrate.log_watermark()
    total = _saved_count(substrate)
    return build_state(
        analyzer,
        _iter_saved(substrate),
        params,
        _coverage(watermark, substrate),
        total=total,
        progress=progress,
    )


def persist(directory: Path, state: IndexState, *, required: bool = False) -> None:
    """Write the index; a failure is a warning (a read-only shard still searches, from
    memory) unless the write was the point (``required``: ``reindex``, which first removes
    any folder standing where a file of ``index/`` belongs, the search index's or another's:
    none of them could be written, and nothing else repairs them; and writes every file
    again, a damaged one too)."""
    from substrate.search.index_files import write_state  # pyarrow: only when writing

    _refuse_undecodable(directory.parent)  # (reindex comes here first)
    try:
        if required:
            remove_folders_in_place(directory)
        write_state(directory, state, rewrite=required)
    except OSError as exc:
        if required:
            raise ShardError(
                f"cannot write the search index to {directory}: {system_words(exc)}"
            ) from exc
        named = exc.filename2 or exc.filename  # (a rename's is second)
        # pyarrow's errors name no file: then its words ("No space left on device"), not the
        # folder the index lives in
        reason = failure(Path(named), exc) if named else system_words(exc)
        log.warning("could not write the search index to %s: %s", directory, reason)


@contextlib.contextmanager
def index_lock(directory: Path) -> Iterator[None]:
    """Serialise index writers of one shard; proceed unlocked where the shard is read-only."""
    try:
        derived_dir(directory)
    except OSError:
        yield
        return
    try:
        lock = exclusive_lock(directory / _LOCK_NAME)
        lock.__enter__()
    except LockBusy:  # waited as long as it may (``wait_for_locks_at_most``): not read-only
        raise
    except ShardError as exc:  # read-only; a lock file that is a link is said, not hidden
        if (directory / _LOCK_NAME).is_symlink():
            log.warning("writing the search index without its lock: %s", exc)
        yield
        return
    try:
        yield
    finally:
        lock.__exit__(None, None, None)


# -- store access -------------------------------------------------------------------------------
# Persisted index files must never contain unsaved changes, so they are built from the saved
# items only; unsaved ones live in an in-memory overlay.


def _iter_saved(substrate: Substrate) -> Iterator[SubstrateItem]:
    return substrate.iter_saved_items()


def _saved_count(substrate: Substrate) -> int:
    return substrate.saved_count()
