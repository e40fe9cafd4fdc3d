"""Ranking: the lexical and semantic channels over an index state, fused on one scale.

Score of an item for a query (all parts in [0, 1]):

* ``bm25_norm``: its BM25 score (after feedback expansion) divided by the best one;
* ``cosine``: cosine of the item's and the query's embedding vectors, negatives clipped;
* ``fused``: ``(bm25_norm + w * cosine) / (1 + w)``, or ``bm25_norm`` alone for a corpus too
  small to learn an embedding;
* the reported score is ``fused * coverage``, where ``coverage`` is the share of the query's
  idf mass found in the best-covering item. It is one factor per query, so it never changes
  the order, but a query whose rare words appear nowhere gets honestly low scores, and one
  none of whose words any candidate holds finds nothing (semantic neighbours alone would all
  score 0).

Lexical floor: an item containing every rare query term literally is lifted above any item
that contains no query term at all, so a weak semantic match never buries an exact one.

Filters and what a reader cannot see: every statistic that depends on the candidates is taken
over the items that pass the filters only: document frequencies, the average length and the
document count (see ``corpus``), the best score that normalises BM25, the coverage factor, and
the documents feedback expansion reads. A search confined to some scopes (a reader who may not
see everything) also leaves out the semantic channel: the embedding is learned from every item
in the shard, so it would carry what other scopes contain into this reader's scores. Such a
search ranks by BM25 with feedback expansion, and its results (ids and scores) are the same
whatever the items outside its scopes are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from substrate.search.bm25 import idf
from substrate.search.corpus import CorpusStats
from substrate.search.doctable import distinct, filter_mask
from substrate.search.feedback import expand_query
from substrate.search.filters import SearchFilters
from substrate.search.signatures import nearest, pack_signatures
from substrate.search.state import IndexState
from substrate.search.tokenize import Analyzer

_FLOOR_EPS = 1e-6
_COVERAGE_ROWS = 64  # best lexical rows examined for the query-coverage factor


@dataclass(frozen=True, slots=True)
class Ranked:
    """One ranked row of the index."""

    segment: int
    row: int
    item_id: str
    score: float
    explain: dict[str, float] | None
    literal: bool  # holds a query term itself (not only feedback terms or a like meaning)


def allowed_rows(state: IndexState, filters: SearchFilters | None) -> np.ndarray:
    """Live rows passing ``filters`` (global row order)."""
    live = state.live()
    if filters is None or filters.is_empty:
        return live
    masks = []
    for seg in state.segments:
        mask = filter_mask(seg.docs, filters)
        masks.append(np.ones(seg.n_rows, dtype=bool) if mask is None else mask)
    allowed: np.ndarray = live & np.concatenate(masks)
    return allowed


def first_ids(state: IndexState, filters: SearchFilters, k: int) -> list[str]:
    """The ids of the first ``k`` live items passing ``filters``, in insertion order."""
    rows = np.flatnonzero(allowed_rows(state, filters))
    rows = rows[np.argsort(state.seq()[rows], kind="stable")][:k]
    return [str(state.segments[si].docs.ids[row]) for si, row in _locate(state, rows)]


def top_rows(scores: np.ndarray, k: int, seq: np.ndarray) -> np.ndarray:
    """Global rows of the ``k`` best positive scores; ties in insertion order."""
    cand = np.flatnonzero(scores > 0)
    if cand.shape[0] > k:
        kth = np.partition(scores[cand], cand.shape[0] - k)[cand.shape[0] - k]
        cand = cand[scores[cand] >= kth]
    order = np.lexsort((seq[cand], -scores[cand]))
    return cand[order[:k]]


def _locate(state: IndexState, rows: np.ndarray) -> list[tuple[int, int]]:
    bases = state.bases()
    segs = np.searchsorted(bases, rows, side="right") - 1
    return [(int(s), int(r - bases[s])) for s, r in zip(segs, rows, strict=True)]


def _cosines(
    state: IndexState, query_vec: np.ndarray, allowed: np.ndarray, lexical: np.ndarray
) -> np.ndarray:
    """Cosine to the query for every row (0 where not computed).

    Past ``signature_threshold`` rows, only the rows nearest by signature Hamming distance and
    the best lexical rows are scored exactly.
    """
    n = state.n_rows
    params = state.params
    out = np.zeros(n, dtype=np.float32)
    if n < params.signature_threshold:
        for seg, base in zip(state.segments, state.bases().tolist(), strict=True):
            if seg.vectors is not None:
                out[base : base + seg.n_rows] = seg.vectors @ query_vec
        return out
    qsig = pack_signatures(query_vec[None, :])[0]
    picked = [top_rows(lexical, params.signature_candidates, state.seq())]
    for seg, base in zip(state.segments, state.bases().tolist(), strict=True):
        if seg.signatures is not None:
            near = nearest(
                seg.signatures, qsig, allowed[base : base + seg.n_rows], params.signature_candidates
            )
            picked.append(near + base)
    rows = distinct(np.concatenate(picked))
    bases = state.bases()
    segs = np.searchsorted(bases, rows, side="right") - 1
    for si, seg in enumerate(state.segments):
        if seg.vectors is None:
            continue
        mine = rows[segs == si]
        out[mine] = seg.vectors[mine - bases[si]] @ query_vec
    return out


def rank(
    state: IndexState,
    analyzer: Analyzer,
    query: str,
    k: int,
    filters: SearchFilters | None = None,
    *,
    explain: bool = False,
) -> list[Ranked]:
    """The ``k`` best items of ``state`` for ``query`` (empty for an empty or stopword query)."""
    if k <= 0 or state.n_rows == 0:
        return []
    q = Counter(analyzer.terms(query))
    if not q:
        return []
    allowed = allowed_rows(state, filters)
    if not allowed.any():
        return []
    params = state.params
    n = state.n_rows
    seq = state.seq()
    filtered = filters is not None and not filters.is_empty
    stats = CorpusStats(state, allowed, local=filtered)
    confined = filters is not None and filters.scopes is not None
    semantic = state.semantic and not confined
    expand = semantic or (confined and stats.live_docs >= params.min_docs_semantic)
    idfs = {t: stats.idf(t) for t in q}
    mass = sum(q[t] * idfs[t] for t in q)
    lexical = np.zeros(n, dtype=np.float32)
    stats.accumulate({t: q[t] * idfs[t] for t in q}, lexical)
    lexical[~allowed] = 0.0
    literal = lexical > 0
    coverage = _coverage(
        state, stats, {t: q[t] * idfs[t] / mass for t in q}, top_rows(lexical, _COVERAGE_ROWS, seq)
    )
    if coverage == 0.0:  # no item the filters allow holds a query word: every score is 0
        return []

    cosine = np.zeros(n, dtype=np.float32)
    if expand:
        lexical = _with_feedback(state, stats, q, lexical, allowed)
    if semantic:
        assert state.model is not None
        query_vec = state.model.project_query(q)
        if query_vec is not None:
            cosine = _cosines(state, query_vec, allowed, lexical)

    best = float(lexical.max())
    bm25_norm = lexical / np.float32(best) if best > 0 else lexical
    weight = np.float32(params.semantic_weight) if semantic else np.float32(0.0)
    positive = np.where(cosine >= np.float32(max(params.min_cosine, 1e-9)), cosine, 0.0)
    fused = (bm25_norm + weight * positive) / (np.float32(1.0) + weight)
    fused[~allowed] = 0.0
    lifted = _lexical_floor(stats, q, fused, bm25_norm, literal & allowed, allowed)

    rows = top_rows(fused, k, seq)
    out = []
    for (si, row), g in zip(_locate(state, rows), rows.tolist(), strict=True):
        score = min(1.0, float(fused[g]) * coverage)
        detail = None
        if explain:  # (computed in float32: six places, not 0.4000000059604645)
            detail = {
                "bm25": float(lexical[g]),
                "bm25_norm": float(bm25_norm[g]),
                "cosine": float(cosine[g]),
                "semantic_weight": float(weight),
                "lexical_part": float(bm25_norm[g] / (1.0 + weight)),
                "semantic_part": float(weight * positive[g] / (1.0 + weight)),
                "fused": float(fused[g]),
                "coverage": coverage,
                "lexical_floor": 1.0 if lifted[g] else 0.0,
                "feedback": 1.0 if expand else 0.0,
                "filtered_statistics": 1.0 if filtered else 0.0,
                # why the semantic channel is off, when it is: a reading confined to some
                # scopes, fewer items than an embedding is learned from, or too few words
                # that recur for one
                "confined": 1.0 if confined else 0.0,
                "live_items": 0.0 if confined else float(state.n_live),  # (others' items)
                "semantic_min_items": float(params.min_docs_semantic),
                "score": score,
            }
            detail = {key: round(value, 6) for key, value in detail.items()}
        item_id = str(state.segments[si].docs.ids[row])
        out.append(Ranked(si, row, item_id, score, detail, bool(literal[g])))
    return out


def unseen_terms(
    state: IndexState,
    analyzer: Analyzer,
    text: str,
    filters: SearchFilters | None,
    alike: Mapping[str, frozenset[str]] | None = None,
) -> tuple[frozenset[str], float]:
    """The terms of ``text`` that no live item passing ``filters`` contains, and their share of
    its idf mass (0 for a text with no terms, 1 when no item passes). A term is mentioned too
    where one of the terms ``alike`` gives it is ("led" where "leads" is asked about).

    A term weighs its count times its idf over the items that pass, an unmentioned one as if
    one item held it: in a small shard, where every idf is low, absence alone would otherwise
    outweigh the rest of the text. What items outside ``filters`` hold changes nothing.
    """
    q = Counter(analyzer.terms(text))
    if not q:
        return frozenset(), 0.0
    allowed = allowed_rows(state, filters) if state.n_rows else None
    if allowed is None or not allowed.any():
        return frozenset(q), 1.0
    stats = CorpusStats(state, allowed, local=True)
    alike = alike or {}
    unseen = frozenset(
        t for t in q if stats.df(t) == 0 and not any(stats.df(a) for a in alike.get(t, ()))
    )
    weights = {t: q[t] * idf(max(stats.df(t), 1), stats.idf_docs) for t in q}  # all > 0
    return unseen, sum(weights[t] for t in unseen) / sum(weights.values())


def _with_feedback(
    state: IndexState,
    stats: CorpusStats,
    q: Mapping[str, int],
    lexical: np.ndarray,
    allowed: np.ndarray,
) -> np.ndarray:
    """BM25 scores of the query expanded with feedback terms from its best allowed matches.

    The original terms' part is the first-pass score rescaled, so only the added terms'
    postings are read again. ``lexical`` must be zero outside ``allowed``: the feedback
    documents are then allowed ones, never an item the search could not return.
    """
    params = state.params
    fb_rows = top_rows(lexical, params.feedback_docs, state.seq())
    if fb_rows.shape[0] == 0:
        return lexical
    top = [
        (state.segments[si], row, float(lexical[g]))
        for (si, row), g in zip(_locate(state, fb_rows), fb_rows.tolist(), strict=True)
    ]
    max_df = params.feedback_max_df * max(stats.live_docs, 1)

    def usable(term: str) -> bool:
        return stats.df(term) <= max_df

    expanded = expand_query(
        q, top, n_terms=params.feedback_terms, keep=params.feedback_keep, usable=usable
    )
    scale = params.feedback_keep / float(sum(q.values()))
    extra = {}
    for term, w in expanded.items():
        added = w - scale * q.get(term, 0)
        if added > 1e-9:
            extra[term] = added * stats.idf(term)
    out = lexical * np.float32(scale)
    stats.accumulate(extra, out)
    out[~allowed] = 0.0
    return out


def _coverage(
    state: IndexState, stats: CorpusStats, weights: Mapping[str, float], rows: np.ndarray
) -> float:
    """Largest share of the query's idf mass that one of ``rows`` contains (0 if none)."""
    if rows.shape[0] == 0:
        return 0.0
    best = np.zeros(rows.shape[0], dtype=np.float64)
    bases = state.bases()
    segs = np.searchsorted(bases, rows, side="right") - 1
    for si in distinct(segs).tolist():
        pick = np.flatnonzero(segs == si)
        local = rows[pick] - bases[si]
        postings = state.segments[si].postings
        for term, w in weights.items():
            tid = stats.term_id(si, term)
            if tid < 0:
                continue
            posting_rows = postings.posting(tid)[0]
            if posting_rows.shape[0] == 0:  # a term whose items were all removed since
                continue
            pos = np.minimum(np.searchsorted(posting_rows, local), posting_rows.shape[0] - 1)
            best[pick] += w * (posting_rows[pos] == local)
    return float(min(1.0, best.max()))


def _lexical_floor(
    stats: CorpusStats,
    q: Mapping[str, int],
    fused: np.ndarray,
    bm25_norm: np.ndarray,
    literal: np.ndarray,
    allowed: np.ndarray,
) -> np.ndarray:
    """Lift items holding every rare query term above all items holding no query term."""
    lifted = np.zeros(fused.shape[0], dtype=bool)
    n_live = max(stats.live_docs, 1)
    rare = [t for t in q if 0 < stats.df(t) <= stats.state.params.rare_fraction * n_live]
    if not rare:
        return lifted
    hits = np.zeros(fused.shape[0], dtype=np.float32)
    stats.indicator(rare, hits)
    exact = allowed & (hits >= len(rare))
    outside = allowed & ~literal & (fused > 0)
    if not exact.any() or not outside.any():
        return lifted
    ceiling = float(fused[outside].max())
    lifted = exact & (fused <= ceiling)
    fused[lifted] = np.float32(ceiling) + np.float32(_FLOOR_EPS) * (1.0 + bm25_norm[lifted])
    return lifted
