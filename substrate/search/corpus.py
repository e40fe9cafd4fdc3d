"""The corpus a query is scored against: document count, document frequencies, average length.

An unfiltered search uses the statistics of the whole index, with the BM25 weights stored at
build time. A filtered search computes them over the items that pass its filters and nothing
else, as if the shard held only those items. This is what keeps a reader's results independent
of what they cannot see: with statistics over every item, the inverse document frequency of a
term would count another team's items that contain it, and a reader comparing the scores of
their own items could learn that such items exist.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from substrate.search.bm25 import idf, saturate
from substrate.search.state import IndexState


class CorpusStats:
    """Statistics for one query, computed lazily and cached.

    Args:
        state: the index.
        allowed: live rows the query may return (global row order).
        local: compute the statistics over ``allowed`` only (a filtered search).

    Attributes:
        idf_docs: the document count in the idf formula.
        live_docs: the document count thresholds are fractions of (rare terms, feedback).
        avgdl: the average document length BM25 normalises by.
    """

    def __init__(self, state: IndexState, allowed: np.ndarray, *, local: bool) -> None:
        self.state = state
        self.allowed = allowed
        self.local = local
        self._df: dict[str, int] = {}
        self._tids: dict[tuple[int, str], int] = {}
        self._masks: list[np.ndarray] | None = None
        if local:
            self.idf_docs = self.live_docs = int(allowed.sum())
            lengths = np.concatenate(
                [s.counts.doc_len[m] for s, m in zip(state.segments, self.masks(), strict=True)]
            )
            # Integer sums are exact in float64, so the mean does not depend on row order.
            self.avgdl = max(float(lengths.sum(dtype=np.int64)) / max(lengths.shape[0], 1), 1.0)
        else:
            # Removed rows stay in the postings until a merge drops them, as in Lucene.
            self.idf_docs = state.n_rows
            self.live_docs = state.n_live
            self.avgdl = state.avgdl

    def masks(self) -> list[np.ndarray]:
        """``allowed`` cut into one mask per segment."""
        if self._masks is None:
            bases = self.state.bases().tolist()
            self._masks = [
                self.allowed[b : b + s.n_rows]
                for s, b in zip(self.state.segments, bases, strict=True)
            ]
        return self._masks

    def term_id(self, si: int, term: str) -> int:
        key = (si, term)
        tid = self._tids.get(key)
        if tid is None:
            tid = self._tids[key] = self.state.segments[si].postings.term_id(term)
        return tid

    def df(self, term: str) -> int:
        """Documents containing ``term`` (allowed ones only for a local corpus)."""
        count = self._df.get(term)
        if count is None:
            count = 0
            for si, seg in enumerate(self.state.segments):
                tid = self.term_id(si, term)
                if tid < 0:
                    continue
                if self.local:
                    rows, _ = seg.postings.frequencies(tid)
                    count += int(np.count_nonzero(self.masks()[si][rows]))
                else:
                    count += int(seg.postings.df[tid])
            self._df[term] = count
        return count

    def idf(self, term: str) -> float:
        return idf(self.df(term), self.idf_docs)

    def accumulate(self, weights: Mapping[str, float], out: np.ndarray) -> None:
        """Add ``weight * BM25 tf-component`` of each term's postings into ``out`` (global rows).

        Rows outside ``allowed`` may receive values too; the caller masks them.
        """
        params = self.state.params
        bases = self.state.bases().tolist()
        for si, (seg, base) in enumerate(zip(self.state.segments, bases, strict=True)):
            postings = seg.postings
            target = out[base : base + seg.n_rows]
            for term, weight in weights.items():
                tid = self.term_id(si, term)
                if tid < 0:
                    continue
                if self.local:
                    rows, tf = postings.frequencies(tid)
                    lengths = seg.counts.doc_len[rows]
                    vals = saturate(tf, lengths, self.avgdl, params.k1, params.b)
                else:
                    rows, vals = postings.posting(tid)
                target[rows] += np.float32(weight) * vals

    def indicator(self, terms: list[str], out: np.ndarray) -> None:
        """Add 1 into ``out`` for each of ``terms`` a row contains."""
        bases = self.state.bases().tolist()
        for si, (seg, base) in enumerate(zip(self.state.segments, bases, strict=True)):
            target = out[base : base + seg.n_rows]
            for term in terms:
                tid = self.term_id(si, term)
                if tid >= 0:
                    target[seg.postings.posting(tid)[0]] += np.float32(1.0)
