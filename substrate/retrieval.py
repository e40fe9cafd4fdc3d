"""Cross-kind retrieval: one ranked pass over the index, regrouped by kind.

The reference ran one full search per kind. Here ``retrieve`` asks the index for a pool a few
times deeper than ``k`` (with the caller's visible scopes and kinds pushed into the search),
groups the pool by kind, applies per-kind weights and interleaves the kinds round-robin. A kind
the caller names (or weights up) can be crowded out of the pool by a more common one: then the
same pass is asked again, deeper, until it holds that kind or the hits run out (at most
``MAX_POOL``), so every score stays on one scale.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from substrate.errors import (
    InvalidInputError,
    require_count,
    require_number,
    require_text,
    scope_set,
)
from substrate.item import MODALITIES, SubstrateItem, require_kind
from substrate.secrets import masked_repr, safe_repr, safe_text
from substrate.sourcenames import distinct_names, ending_in
from substrate.telemetry import Recorder, emit
from substrate.visibility import reader_view

if TYPE_CHECKING:
    from substrate.context import ContextPacket
    from substrate.search.filters import SearchFilters
    from substrate.store import Substrate

log = logging.getLogger(__name__)

# How much deeper than k the pass looks when kinds are interleaved or weighted; when a kind
# asked for (or weighted up) has no hit in it, it looks this many times deeper again, up to
# MAX_POOL.
POOL_FACTOR = 4
MIN_POOL = 32
MAX_POOL = 4096
# Retrieval scores are normalised to about 0..1; below this floor a hit is treated as noise.
NOISE_FLOOR = 0.1
# A hit scoring under a third of the best hit is a side match, not evidence.
RELATIVE_FLOOR = 1 / 3


def relevance_floor(top: float, min_score: float = NOISE_FLOOR) -> float:
    """The lowest score a hit needs to count as relevant next to a best hit of ``top``."""
    return max(min_score, RELATIVE_FLOOR * top)


def merge_scopes(scope: str | None, scopes: Iterable[str] | None) -> frozenset[str] | None:
    """The scopes a call may read: ``scopes`` narrowed to ``scope``; None means every scope."""
    if scopes is None:
        return None if scope is None else frozenset([scope])
    allowed = scope_set(scopes) or frozenset()
    return allowed & {scope} if scope is not None else allowed


def ranked(
    substrate: Substrate,
    query: str,
    k: int,
    *,
    kind: str | tuple[str, ...] | None = None,
    scopes: frozenset[str] | None = None,
    filters: SearchFilters | None = None,
    skip: Collection[str] = (),
) -> list[tuple[SubstrateItem, float]]:
    """One ranked pass over the index: ``(item, score)`` best first, visibility enforced;
    the items of ``skip`` left out, after ranking.

    Every retrieval in this package goes through here, so the visibility rule lives in one
    place: an item outside ``scopes`` is never returned, and an item returned holds no link
    or reference to one (``reader_view``). ``filters``, when given, replaces ``kind`` and
    ``scopes`` (its own scopes are the reader's).
    """
    require_text(query, "a query")
    if filters is None:
        from substrate.search.filters import SearchFilters

        filters = SearchFilters(kind=kind, scopes=scopes)
    elif kind is not None or scopes is not None:  # one of them would be ignored: the scopes
        raise InvalidInputError("ranked() takes filters, or kind and scopes, not both")
    scopes = filters.scopes
    if k <= 0 or scopes is not None and not scopes or not query.strip():
        return []
    kinds = filters.kinds
    # read as peek reads: a retrieval changes nothing, and a walk of many searches must not
    # keep every item it met (each kept item is compared with its line before a search)
    hits = _search_without_keeping(substrate, query, k, filters, skip)
    # Defence in depth: the filter is pushed into the index, and checked again here.
    return [
        (item if scopes is None else reader_view(substrate, item, scopes), float(score))
        for item, score in hits
        if (scopes is None or item.scope in scopes) and (kinds is None or item.kind in kinds)
    ]


def _search_without_keeping(
    substrate: Substrate, query: str, k: int, filters: SearchFilters, skip: Collection[str]
) -> list[tuple[SubstrateItem, float]]:
    """``substrate.search``, the items read as ``peek`` reads them (a retrieval changes
    nothing, and a walk of many searches must not keep every item it meets: each item the
    store keeps is compared with its saved line before every later search), those of
    ``skip`` left unread. A search of a class's own (a subclass's, a stand-in's) is called
    as the seed calls it."""
    from substrate.store import Substrate

    if type(substrate).search is Substrate.search:
        return substrate.search(query, k, filters=filters, keep=False, skip=skip)
    hits = substrate.search(query, k + len(skip), filters=filters)
    return [hit for hit in hits if hit[0].id not in skip][:k]


def source_of(item: SubstrateItem) -> str | None:
    """Where an item came from: ``provenance.source``, else ``provenance.path``."""
    prov = item.provenance
    value = prov.get("source") or prov.get("path")
    return str(value) if value else None


def shown_source(item: SubstrateItem) -> str | None:
    """Where ``item`` came from, as results show it: a secret in a source name stored as it
    was (an item kept with ``--no-redact``, an older shard) is masked."""
    source = source_of(item)
    return _safe_name(source) if source else source


# Masked once per name: the sections of a file share it, and a listing of a whole shard
# (200,000 items of 49,000 files) scanned every name a few times over
_safe_name = functools.lru_cache(maxsize=1 << 16)(safe_text)


def shown_sources(items: Sequence[SubstrateItem]) -> list[str | None]:
    """``shown_source`` of each item, lengthened where two files would read the same
    (``sourcenames.distinct_names``, from the masked path: a secret in a folder's name stays
    masked)."""
    shown = [shown_source(item) for item in items]
    paths = [ending_in(shown_path_of(item), name) for item, name in zip(items, shown, strict=True)]
    return distinct_names(shown, paths)


def shown_path_of(item: SubstrateItem) -> str | None:
    """The path of the file ``item`` came from (a secret in it masked), or None."""
    path = item.provenance.get("path")
    return _safe_name(path) if isinstance(path, str) and path else None


def provenance_entry(
    item: SubstrateItem, score: float, source: str | None = None
) -> dict[str, Any]:
    """The citation of one item: id, kind, source (masked; ``source`` when given, as
    ``shown_sources`` names it), score, and lines when known."""
    start, end = lines_of(item)
    return {
        "id": item.id,
        "kind": item.kind,
        "source": source if source is not None else shown_source(item),
        "score": round(float(score), 4),
        "line_start": start,
        "line_end": end,
    }


def one_score_each(items: Sequence[SubstrateItem], scores: list[float]) -> list[float]:
    """``scores`` checked to give one score to each of ``items`` (a result built by hand
    with none: each 0.0, as the seed's signatures let one be built), so that a mismatch is
    refused where it is made, not met in a later ``provenance()``."""
    given = list(scores)  # (a numpy array has no truth value)
    if not given:
        return [0.0] * len(items)
    if len(given) != len(items):
        raise InvalidInputError(
            f"{len(items)} items and {len(given)} scores: give one score per item, or none"
        )
    return given


def unscored_entries(items: Iterable[SubstrateItem]) -> list[dict[str, Any]]:
    """Where each of ``items`` came from, as ``provenance_entry`` says it, with no score (items
    passed over, which no search ranked for the answer)."""
    return [
        {k: v for k, v in provenance_entry(item, 0.0).items() if k != "score"} for item in items
    ]


def lines_of(item: SubstrateItem) -> tuple[int | None, int | None]:
    """The first and last line of ``item`` in its source, as citations show them: a section's
    range, or the line of a data file's row (to ``line_end`` for a JSON value over several), a
    passage or a trace (``line``). Anything but a line number there (a caller's own
    provenance) is no line."""
    prov = item.provenance
    start = _line_number(prov.get("line_start")) or _line_number(prov.get("line"))
    end = _line_number(prov.get("line_end")) or start
    return (start, end) if start is not None else (None, None)


def heading_path(item: SubstrateItem) -> str:
    """``item``'s section path (``Install > Linux``), led by its page's title when front
    matter gave one that no heading repeats (``What's new in v2 > Breaking changes``): a docs
    site titles its pages so, with no ``#`` heading; "" when it has neither."""
    prov = item.provenance if isinstance(item.provenance, dict) else {}
    section = prov.get("section")
    section = section if isinstance(section, str) else ""
    title = item.payload.get("title") if prov.get("format") == "markdown" else None
    if not isinstance(title, str) or not title.strip():
        return section
    title = " ".join(title.split())
    if not section:
        return title
    return (
        section if section == title or section.startswith(f"{title} > ") else f"{title} > {section}"
    )


def innermost_heading(item: SubstrateItem) -> str:
    """The last heading of ``item``'s section path (``Install > Linux``: ``Linux``); "" when
    it has none."""
    section = item.provenance.get("section") if isinstance(item.provenance, dict) else None
    return section.rpartition(" > ")[2] if isinstance(section, str) else ""


def _line_number(value: Any) -> int | None:
    return value if type(value) is int and value >= 1 else None


@dataclass
class Retrieval:
    """A planned, cross-kind retrieval result: items in merged relevance order."""

    __repr__ = masked_repr  # a secret typed in is not printed back

    query: str
    items: list[SubstrateItem] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)  # one per item (none: each 0.0)

    def __post_init__(self) -> None:
        self.scores = one_score_each(self.items, self.scores)

    def by_kind(self) -> dict[str, list[SubstrateItem]]:
        """Items grouped by kind, kinds in first-seen order."""
        groups: dict[str, list[SubstrateItem]] = {}
        for item in self.items:
            groups.setdefault(item.kind, []).append(item)
        return groups

    def kinds(self) -> list[str]:
        """The kinds among the items, sorted."""
        return sorted({item.kind for item in self.items})

    def top(self, n: int) -> list[SubstrateItem]:
        """The best ``n`` items (fewer when there are fewer)."""
        return self.items[:n]

    def provenance(self) -> list[dict[str, Any]]:
        """Where every item came from, with its (weighted) score."""
        names = shown_sources(self.items)
        return [
            provenance_entry(i, s, name)
            for i, s, name in zip(self.items, self.scores, names, strict=True)
        ]

    def to_context(self, task: str | None = None, **assemble_kw: Any) -> ContextPacket:
        """Pack these items into a ``ContextPacket``, reusing their scores (no new search).

        Args:
            task: the task the packet is for (default: the query).
            **assemble_kw: ``budget``, ``compress``, ``kind``, ``scope``, ``scopes``,
                ``min_score``, ``telemetry``, as for ``assemble_context``.
        """
        from substrate.context import pack_context

        return pack_context(task or self.query, self.items, self.scores, **assemble_kw)

    def as_dict(self) -> dict[str, Any]:
        """The query (secrets masked), the number of items and each one's provenance."""
        return {"query": safe_text(self.query), "n": len(self.items), "items": self.provenance()}

    def __len__(self) -> int:
        return len(self.items)


def retrieve(
    substrate: Substrate,
    query: str,
    *,
    k: int = 8,
    kinds: Sequence[str] | None = None,
    weights: Mapping[str, float] | None = None,
    diversify: bool = True,
    scope: str | None = None,
    scopes: Iterable[str] | None = None,
    min_score: float | None = None,
    telemetry: Recorder | None = None,
) -> Retrieval:
    """Plan a cross-kind retrieval for ``query`` from one ranked pass over the index (a
    deeper one when a kind asked for, or weighted up, has no hit in the first).

    Args:
        substrate: the shard to search.
        query: what to look for.
        k: total items to return.
        kinds: restrict to these kinds (default: every kind that matches); ``[]`` returns nothing.
        weights: per-kind score multipliers, e.g. ``{"artifact": 1.2}``; 0 leaves a kind out.
        diversify: interleave the best hits of each kind (True) or take a flat merged top-k.
        scope: restrict to one access scope.
        scopes: the set of scopes the caller may read (None: all).
        min_score: drop hits whose raw score is below this (default: keep every hit).
        telemetry: an optional recorder; one ``reason`` event per call.

    Returns:
        A ``Retrieval`` whose scores are the weighted scores.
    """
    require_count(k, "k")
    if min_score is not None:
        require_number(min_score, "min_score")
    if weights is not None and not isinstance(weights, Mapping):
        raise InvalidInputError(
            f"weights must map kinds to numbers ({{'artifact': 1.2}}), not {type(weights).__name__}"
        )
    weights = dict(weights or {})
    for kd, w in weights.items():
        if not isinstance(w, int | float) or not math.isfinite(w) or w < 0:
            raise InvalidInputError(
                f"weight for {safe_repr(kd)} must be a finite number >= 0, got {safe_repr(w)}"
            )
    wanted = _check_kinds(kinds)
    # a weight of 0 leaves a kind out (its hits scored 0 would rank above real matches when
    # interleaved), out of the pass itself: a pool filled with them left nothing to return
    left_out = {kd for kd, w in weights.items() if w == 0}
    if left_out:
        wanted = [kd for kd in (MODALITIES if wanted is None else wanted) if kd not in left_out]
    allowed = merge_scopes(scope, scopes)
    groups: dict[str, list[tuple[SubstrateItem, float]]] = {}
    order: dict[str, int] = {}  # global rank in the pass: the tie-break of a flat merge
    if k > 0 and (wanted is None or wanted):
        deep = diversify or bool(weights)
        # the kinds that must not be crowded out of the pool by a more common one
        needed = set(wanted or ()) if diversify else set()
        needed |= {kd for kd, w in weights.items() if w > 1 and (wanted is None or kd in wanted)}
        hits = _pool(substrate, query, k, deep, needed, tuple(wanted or ()) or None, allowed)
        for item, score in hits:
            if min_score is not None and score < min_score:
                continue
            order.setdefault(item.id, len(order))
            groups.setdefault(item.kind, []).append((item, score * weights.get(item.kind, 1.0)))
    present = [kd for kd in wanted if kd in groups] if wanted is not None else sorted(groups)
    if diversify:
        merged = _round_robin(groups, present, k)
    else:
        merged = sorted(
            (pair for kd in present for pair in groups[kd]),
            key=lambda pair: (-pair[1], order[pair[0].id]),
        )[:k]
    result = Retrieval(query, [i for i, _ in merged], [float(s) for _, s in merged])
    emit(
        telemetry,
        "reason",
        features={"queried_kinds": present, "diversify": diversify, "action": "retrieve"},
        choice=[i.id for i in result.items],
        outcome={"n": len(result), "kinds_covered": len(result.kinds())},
    )
    return result


def _pool(
    substrate: Substrate,
    query: str,
    k: int,
    deep: bool,
    needed: set[str],
    kinds: tuple[str, ...] | None,
    scopes: frozenset[str] | None,
) -> list[tuple[SubstrateItem, float]]:
    """The ranked hits retrieval chooses from: ``k`` of them, or a deeper pool when kinds are
    interleaved or weighted, deepened while a ``needed`` kind has no hit and more remain."""
    depth = max(k * POOL_FACTOR, MIN_POOL) if deep else k
    while True:
        hits = ranked(substrate, query, depth, kind=kinds, scopes=scopes)
        missing = needed - {item.kind for item, _ in hits}
        if not missing or len(hits) < depth or depth >= MAX_POOL:
            return hits
        depth = min(depth * POOL_FACTOR, MAX_POOL)


def _check_kinds(kinds: Sequence[str] | None) -> list[str] | None:
    if kinds is None:
        return None
    if isinstance(kinds, str):
        kinds = [kinds]
    for kind in kinds:
        require_kind(kind)
    return list(dict.fromkeys(kinds))


def _round_robin(
    groups: dict[str, list[tuple[SubstrateItem, float]]], present: list[str], k: int
) -> list[tuple[SubstrateItem, float]]:
    """Layer r holds each kind's rank-r hit; layers are taken in order, best-first within."""
    merged: list[tuple[SubstrateItem, float]] = []
    seen: set[str] = set()
    rank = 0
    while len(merged) < k:
        layer = [groups[kd][rank] for kd in present if rank < len(groups[kd])]
        if not layer:
            break
        layer.sort(key=lambda pair: -pair[1])
        for item, score in layer:
            if len(merged) >= k:
                break
            if item.id not in seen:
                seen.add(item.id)
                merged.append((item, score))
        rank += 1
    return merged
