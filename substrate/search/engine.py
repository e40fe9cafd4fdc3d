"""The search engine behind ``Substrate.search`` and ``Substrate.reindex``.

``search`` ranks with BM25 fused with a learned embedding (see ``ranker``) over an index kept in
step with the store (see ``sync``); ``reindex`` rebuilds that index; ``index_status`` describes
it without loading it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from substrate.errors import InvalidInputError, ShardFormatError
from substrate.item import SubstrateItem
from substrate.search.filters import SearchFilters
from substrate.search.index_files import MANIFEST, PREFIX, StaleIndex
from substrate.search.index_read import read_manifest_meta
from substrate.search.params import DEFAULT_PARAMS, FORMAT_VERSION
from substrate.search.ranker import rank
from substrate.search.state import Coverage, IndexState, build_state
from substrate.search.sync import (
    CACHE_ATTR,
    Cache,
    analyzer_of,
    build_from_log,
    current,
    fingerprints,
    index_lock,
    pending_count,
    persist,
    with_overlay,
)

__all__ = ["Hit", "IndexStats", "SearchFilters", "index_status", "reindex", "search"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Hit:
    """One search result: the item, its score in [0, 1], and optionally how it was scored."""

    item: SubstrateItem
    score: float
    explain: dict[str, float] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The hit as plain JSON-ready data."""
        out: dict[str, Any] = {"item": self.item.to_json(), "score": self.score}
        if self.explain is not None:
            out["explain"] = dict(self.explain)
        return out


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What a full rebuild produced."""

    items: int
    segments: int
    mode: str
    dim: int
    vocabulary: int
    seconds: float
    path: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "segments": self.segments,
            "mode": self.mode,
            "dim": self.dim,
            "vocabulary": self.vocabulary,
            "seconds": self.seconds,
            "path": self.path,
        }


# -- public API ---------------------------------------------------------------------------------


def search(
    substrate: Any,
    query: str,
    k: int = 5,
    *,
    filters: SearchFilters | None = None,
    explain: bool = False,
) -> list[Hit]:
    """The ``k`` most relevant live items for ``query``, best first.

    Args:
        substrate: the shard (a ``Substrate``).
        query: free text; an empty or stopword-only query matches nothing.
        k: how many results at most; 0 or less returns ``[]``.
        filters: restrictions applied inside the index before ranking.
        explain: attach each channel's contribution to every hit.

    Returns:
        Hits with scores in [0, 1], ties broken by insertion order. Items that share no term
        and no meaning with the query are not returned.

    Raises:
        InvalidInputError: ``k`` is not an integer or ``filters`` is not a SearchFilters.
        ShardFormatError: the index was written by a newer, incompatible version.
    """
    if isinstance(k, bool) or not isinstance(k, int):
        raise InvalidInputError(f"k must be an integer, not {k!r}")
    if filters is not None and not isinstance(filters, SearchFilters):
        raise InvalidInputError("filters must be a SearchFilters")
    if k <= 0:
        return []
    text = query if isinstance(query, str) else str(query)
    cache = current(substrate)
    ranked = rank(cache.view, cache.analyzer, text, k, filters, explain=explain)
    if not ranked:
        return []
    items = substrate.read_items([r.item_id for r in ranked])
    hits = []
    for r in ranked:
        item = items.get(r.item_id)
        if item is None:  # the index and the store disagree; never return a ghost
            log.debug("search index lists %s but the store does not have it", r.item_id)
            continue
        hits.append(Hit(item, min(1.0, r.score), r.explain))
    return hits


def reindex(substrate: Any, *, progress: Callable[[int, int], None] | None = None) -> IndexStats:
    """Rebuild the whole index from the store and refit the embedding.

    Args:
        substrate: the shard.
        progress: called as ``progress(done, total)`` while items are analysed.

    Returns:
        Sizes of the new index and the time it took.
    """
    started = time.perf_counter()
    params = DEFAULT_PARAMS
    analyzer = analyzer_of(substrate)
    root: Path | None = substrate.root
    if root is None:
        items = list(substrate.iter_items())
        state = build_state(
            analyzer, items, params, Coverage("memory", 0), total=len(items), progress=progress
        )
        cache = Cache(
            analyzer, None, state, state, substrate.mutation_count, None, fingerprints(items)
        )
    else:
        directory = root / "index"
        with index_lock(directory):
            state = build_from_log(substrate, analyzer, params, progress)
            persist(directory, state)
        cache = with_overlay(substrate, root, state, analyzer)
    setattr(substrate, CACHE_ATTR, cache)
    model = state.model
    return IndexStats(
        items=state.n_live,
        segments=len(state.segments),
        mode="lexical+semantic" if state.semantic else "lexical",
        dim=model.dim if model is not None else 0,
        vocabulary=sum(len(s.postings.terms) for s in state.segments),
        seconds=time.perf_counter() - started,
        path=str(root / "index") if root is not None else None,
    )


def index_status(substrate: Any) -> dict[str, Any]:
    """Describe the search index without building or loading it.

    Returns:
        ``state`` ("fresh", "behind" (saved changes not folded in yet: the next search folds
        them), "stale" (will be rebuilt), "missing", or "unsupported" (newer format)), plus
        files and sizes, item count, watermark, segments and the embedding's shape.
    """
    root: Path | None = substrate.root
    cache: Cache | None = getattr(substrate, CACHE_ATTR, None)
    if root is None:
        view = cache.view if cache is not None else None
        fresh = cache is not None and cache.mutation_count == substrate.mutation_count
        return {
            "path": None,
            "state": "fresh" if fresh else ("missing" if cache is None else "behind"),
            "format": FORMAT_VERSION,
            "items": view.n_live if view is not None else 0,
            "segments": len(view.segments) if view is not None else 0,
            "files": [],
            "bytes": 0,
            "watermark": None,
            "mode": _mode(view),
            "model": _model_info(view),
        }
    directory = root / "index"
    files = sorted(directory.glob(f"{PREFIX}*.parquet")) if directory.is_dir() else []
    out: dict[str, Any] = {
        "path": str(directory),
        "format": FORMAT_VERSION,
        "files": [{"name": p.name, "bytes": p.stat().st_size} for p in files],
        "bytes": sum(p.stat().st_size for p in files),
    }
    try:
        meta = read_manifest_meta(directory, DEFAULT_PARAMS)
    except ShardFormatError as exc:
        return {**out, "state": "unsupported", "error": str(exc)}
    except StaleIndex as exc:
        missing = not (directory / MANIFEST).exists()
        return {**out, "state": "missing" if missing else "stale", "reason": str(exc)}
    current = substrate.log_watermark()
    mark = meta.get("watermark") or ["", -1]
    if mark[0] != current.generation or mark[1] > current.offset:
        state = "stale"
    else:
        state = "fresh" if mark[1] == current.offset else "behind"
    return {
        **out,
        "state": state,
        "items": int(meta.get("live", 0)),
        "segments": sum(1 for f in files if f.name.endswith(".docs.parquet")),
        "watermark": {"generation": mark[0], "offset": mark[1]},
        "log_watermark": {"generation": current.generation, "offset": current.offset},
        "mode": "lexical+semantic" if meta.get("model") else "lexical",
        "model": {"file": meta.get("model"), "fitted_docs": meta.get("fitted_docs")},
        "pending_changes": bool(pending_count(substrate)),
    }


def _mode(view: IndexState | None) -> str:
    if view is None:
        return "none"
    return "lexical+semantic" if view.semantic else "lexical"


def _model_info(view: IndexState | None) -> dict[str, Any] | None:
    if view is None or view.model is None:
        return None
    return {
        "dim": view.model.dim,
        "terms": len(view.model.terms),
        "fitted_docs": view.model.fitted_docs,
    }
