"""The search engine behind ``Substrate.search`` and ``Substrate.reindex``.

``search`` ranks with BM25 fused with a learned embedding (see ``ranker``) over an index kept in
step with the store (see ``sync``); ``reindex`` rebuilds that index; ``index_status`` (from
``status``) describes it without loading it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from substrate.errors import InvalidInputError, require_count
from substrate.item import SubstrateItem
from substrate.search.coverage import Coverage
from substrate.search.filters import SearchFilters
from substrate.search.layout import CACHE_ATTR
from substrate.search.params import DEFAULT_PARAMS
from substrate.search.ranker import first_ids, rank, unseen_terms
from substrate.search.state import build_state
from substrate.search.status import index_status
from substrate.search.sync import (
    Cache,
    analyzer_of,
    build_from_log,
    current,
    fingerprints,
    index_lock,
    persist,
    with_overlay,
)

__all__ = ["Hit", "IndexStats", "SearchFilters", "index_status", "reindex", "search"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Hit:
    """One search result: the item, its score in [0, 1], and optionally how it was scored.

    ``literal`` is False for an item holding none of the query's terms, found through the
    words of the best matches (feedback) or by meaning alone.
    """

    item: SubstrateItem
    score: float
    explain: dict[str, float] | None = None
    literal: bool = True

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
    keep: bool = True,
    skip: Collection[str] = (),
) -> list[Hit]:
    """The ``k`` most relevant live items for ``query``, best first.

    Args:
        substrate: the shard (a ``Substrate``).
        query: free text; an empty or stopword-only query matches nothing.
        k: how many results at most (a whole number >= 0; 0 returns ``[]``).
        filters: restrictions applied inside the index before ranking. A filtered search is
            scored as if the shard held only the items that pass (see ``ranker``); one
            confined to some scopes also leaves out the learned embedding, so its results never
            depend on items outside those scopes.
        explain: attach each channel's contribution to every hit.
        keep: hand out the store's own objects, kept as ``get`` keeps them (a change made to
            one in place is saved); ``False`` reads them as ``peek`` does. A process that
            searches many times and changes nothing (a multi-hop walk) keeps none: each item
            the store keeps is compared with its saved line before every later search.
        skip: ids left out, unread (those a walk has met): the ranking goes as much deeper,
            and the ``k`` best of the others come back, as a search without ``skip`` ranks
            them.

    Returns:
        Hits with scores in [0, 1], ties broken by insertion order. Items that share no term
        and no meaning with the query are not returned.

    Raises:
        InvalidInputError: ``k`` is not a whole number >= 0 or ``filters`` is not a
            SearchFilters.
        ShardFormatError: the index was written by a newer, incompatible version.
    """
    require_count(k, "k")  # a negative k is a slip, not a request for nothing
    if filters is not None and not isinstance(filters, SearchFilters):
        raise InvalidInputError("filters must be a SearchFilters")
    if isinstance(skip, str):  # its letters would be read as ids
        raise InvalidInputError("skip must be a collection of ids, not one string")
    if k == 0:
        return []
    from substrate.secrets.scan import without_secrets

    # nothing stored holds a secret: one pasted into the query would only dilute it
    text = without_secrets(query if isinstance(query, str) else str(query))
    cache = current(substrate)
    ranked = rank(cache.view, cache.analyzer, text, k + len(skip), filters, explain=explain)
    if skip:
        ranked = [r for r in ranked if r.item_id not in skip][:k]
    if not ranked:
        return []
    items = substrate.read_items([r.item_id for r in ranked], keep=keep)
    hits = []
    for r in ranked:
        item = items.get(r.item_id)
        if item is None:  # the index and the store disagree; never return a ghost
            log.debug("search index lists %s but the store does not have it", r.item_id)
            continue
        if filters is not None and not _still_fits(item, filters):
            continue
        hits.append(Hit(item, min(1.0, r.score), r.explain, r.literal))
    return hits


def _still_fits(item: SubstrateItem, filters: SearchFilters) -> bool:
    """Whether a live item still has the scope and kind the index matched it by: an item of
    an in-memory store changed in place (``get`` hands out the stored object) is indexed as
    it was until it is put again, and a scope is a boundary whatever the index says."""
    if filters.scopes is not None and item.scope not in filters.scopes:
        return False
    kinds = filters.kind
    return kinds is None or item.kind == kinds or (isinstance(kinds, tuple) and item.kind in kinds)


def first_items(substrate: Any, filters: SearchFilters, k: int) -> list[SubstrateItem]:
    """The first ``k`` live items passing ``filters``, in the order they were stored: what
    a note holds, found through the index without a query."""
    if k <= 0:
        return []
    cache = current(substrate)
    ids = first_ids(cache.view, filters, k)
    items = substrate.read_items(ids, keep=False)  # looked at, not kept in the store
    found = (items[item_id] for item_id in ids if item_id in items)
    return [item for item in found if _still_fits(item, filters)]


def unmentioned(
    substrate: Any,
    text: str,
    *,
    filters: SearchFilters | None = None,
    alike: Mapping[str, frozenset[str]] | None = None,
) -> tuple[frozenset[str], float]:
    """The index terms of ``text`` that no item passing ``filters`` mentions (nor any term
    ``alike`` gives it), and their share of the text's idf mass: how much of a question is about
    what the shard never mentions."""
    cache = current(substrate)
    return unseen_terms(cache.view, cache.analyzer, text, filters, alike)


def spelling_suggestions(
    substrate: Any, text: str, *, filters: SearchFilters | None = None
) -> dict[str, str]:
    """For each word of ``text`` that no item passing ``filters`` mentions, a word one or two
    edits away that such items do mention, as they write it ({"pgbouncr": "pgbouncer"})."""
    from substrate.search.suggest import suggestions

    cache = current(substrate)
    return suggestions(cache.view, cache.analyzer, text, filters, substrate.peek)


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
    elif not (root / "items.jsonl").exists():
        # nothing saved, nothing to index on disk: a mistyped root must not become a shard
        state = build_from_log(substrate, analyzer, params, progress)
        cache = with_overlay(substrate, root, state, analyzer)
    else:
        directory = root / "index"
        with index_lock(directory):
            state = build_from_log(substrate, analyzer, params, progress)
            persist(directory, state, required=True)
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
