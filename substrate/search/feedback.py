"""Pseudo-relevance feedback: expand a query with the salient terms of its top results (RM3).

The top lexical results are read from the forward index; each contributes its term
distribution, weighted by how strongly it matched (a softmax over BM25 scores, so one clear
winner dominates and a flat list of weak matches adds little). The expansion is interpolated
with the original query, which keeps most of the weight.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from substrate.search.segments import Segment


def expand_query(
    query: Mapping[str, float],
    top: Sequence[tuple[Segment, int, float]],
    *,
    n_terms: int,
    keep: float,
    usable: Callable[[str], bool] | None = None,
) -> dict[str, float]:
    """Interpolated query term weights (summing to 1) after feedback from ``top``.

    Args:
        query: original term -> count.
        top: (segment, row, bm25 score) of the feedback documents, best first.
        n_terms: feedback terms kept.
        keep: weight of the original query.
        usable: feedback terms failing this test are skipped (too common to be worth it).
    """
    total_q = float(sum(query.values()))
    weights = {t: keep * c / total_q for t, c in query.items()}
    if not top or n_terms <= 0 or keep >= 1.0:
        return weights
    scores = np.asarray([s for _, _, s in top], dtype=np.float64)
    doc_weight = np.exp(scores - scores.max())
    feedback: dict[str, float] = defaultdict(float)
    for (segment, row, _), dw in zip(top, doc_weight, strict=True):
        ids, counts = segment.counts.row(row)
        length = float(counts.sum())
        if length <= 0:
            continue
        terms = segment.counts.terms
        for tid, c in zip(ids.tolist(), counts.tolist(), strict=True):
            feedback[terms[tid]] += float(dw) * c / length
    if not feedback:
        return weights
    ranked = sorted(feedback.items(), key=lambda kv: (-kv[1], kv[0]))
    best = [kv for kv in ranked if usable is None or usable(kv[0])][:n_terms]
    if not best:
        return weights
    norm = sum(w for _, w in best)
    for term, w in best:
        weights[term] = weights.get(term, 0.0) + (1.0 - keep) * w / norm
    return weights
