"""BM25 postings: per term, the documents containing it, their term frequency and its weight.

The length-normalised, saturated term frequency of each (term, document) pair is computed once
when a segment is built, as bm25s does with its sparse score matrix, using the average document
length of the index. A search over the whole index is then a handful of scatter-adds of posting
rows, with the inverse document frequency applied at query time (it depends on all segments).

The raw term frequency is kept beside the weight: a filtered search computes its statistics
(document count, document frequencies, average length) over the items that pass its filters
only, so that what a reader cannot see never moves what they can (see ``corpus``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from substrate.search.counts import Counts
from substrate.search.strings import PackedStrings


@dataclass(slots=True)
class Postings:
    """An inverted index over one segment.

    Attributes:
        terms: vocabulary of the segment (shared with its forward ``Counts``).
        df: documents containing each term (int32).
        offsets: start of each term's postings in ``rows``/``weights`` (int64, len V + 1).
        rows: document rows, ascending within a term (int32).
        weights: BM25 term-frequency component per posting, idf not applied (float32).
        tf: occurrences of the term in the document, per posting (int32).
    """

    terms: Sequence[str]
    df: np.ndarray
    offsets: np.ndarray
    rows: np.ndarray
    weights: np.ndarray
    tf: np.ndarray
    _index: dict[str, int] | None = field(default=None, repr=False)

    def term_id(self, term: str) -> int:
        """The id of ``term`` in this segment, or -1."""
        terms = self.terms
        if isinstance(terms, PackedStrings):  # loaded from disk: bisect, no dict to build
            return terms.find(term)
        if self._index is None:
            self._index = {t: i for i, t in enumerate(terms)}
        return self._index.get(term, -1)

    def doc_freq(self, term: str) -> int:
        tid = self.term_id(term)
        return int(self.df[tid]) if tid >= 0 else 0

    def posting(self, tid: int) -> tuple[np.ndarray, np.ndarray]:
        """Rows and precomputed weights of term ``tid``."""
        lo, hi = int(self.offsets[tid]), int(self.offsets[tid + 1])
        return self.rows[lo:hi], self.weights[lo:hi]

    def frequencies(self, tid: int) -> tuple[np.ndarray, np.ndarray]:
        """Rows and raw term frequencies of term ``tid``."""
        lo, hi = int(self.offsets[tid]), int(self.offsets[tid + 1])
        return self.rows[lo:hi], self.tf[lo:hi]


def saturate(
    counts: np.ndarray, doc_len: np.ndarray, avgdl: float, k1: float, b: float
) -> np.ndarray:
    """BM25's term-frequency component ``tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))``."""
    tf = counts.astype(np.float32)
    norm = np.float32(k1) * (
        np.float32(1.0 - b) + np.float32(b) * doc_len.astype(np.float32) / np.float32(avgdl)
    )
    return (tf * np.float32(k1 + 1.0) / (tf + norm)).astype(np.float32)


def build_postings(counts: Counts, avgdl: float, k1: float, b: float) -> Postings:
    """Invert a forward index into postings with precomputed term-frequency weights."""
    n_terms = len(counts.terms)
    row_of = np.repeat(np.arange(counts.n_docs, dtype=np.int32), np.diff(counts.indptr))
    weights = saturate(counts.counts, counts.doc_len[row_of], max(avgdl, 1e-9), k1, b)
    # A stable sort by term keeps rows ascending inside each term (the forward index is by row).
    order = np.argsort(counts.indices, kind="stable")
    df = np.bincount(counts.indices, minlength=n_terms).astype(np.int32)
    offsets = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(df, out=offsets[1:])
    return Postings(counts.terms, df, offsets, row_of[order], weights[order], counts.counts[order])


def idf(df: int, n_docs: int) -> float:
    """Lucene's BM25 idf, ``ln(1 + (N - df + 0.5) / (df + 0.5))``: always positive."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
