"""Term counts per document (a forward index) built from analysed text.

The forward index is the one structure every other is derived from: BM25 postings, the
embedding's TF-IDF input, and feedback terms for query expansion. Keeping it means segments can
be merged and the embedding refitted without reading the log again.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from substrate.search.tokenize import Analyzer

_BLOCK = 50_000  # documents counted per numpy pass, to bound temporary memory


@dataclass(slots=True)
class Counts:
    """A CSR matrix of term counts: row = document, column = term id in ``terms``.

    Attributes:
        terms: the vocabulary; column ``j`` is ``terms[j]`` (a list, or packed strings when
            the matrix was loaded from disk).
        indptr: row start offsets (``n_docs + 1``, int64).
        indices: term ids per entry, sorted within each row (int32).
        counts: occurrences per entry (int32).
        doc_len: tokens per document, repeats included (int32).
    """

    terms: Sequence[str]
    indptr: np.ndarray
    indices: np.ndarray
    counts: np.ndarray
    doc_len: np.ndarray

    @property
    def n_docs(self) -> int:
        return int(self.indptr.shape[0] - 1)

    def row(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Term ids and counts of document ``i``."""
        lo, hi = int(self.indptr[i]), int(self.indptr[i + 1])
        return self.indices[lo:hi], self.counts[lo:hi]

    def take(self, rows: np.ndarray) -> Counts:
        """A new matrix with only ``rows`` (in that order), sharing the vocabulary."""
        starts = self.indptr[rows]
        lengths = self.indptr[rows + 1] - starts
        indptr = np.zeros(rows.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        gather = _ranges(starts, lengths)
        return Counts(
            self.terms,
            indptr,
            self.indices[gather],
            self.counts[gather],
            self.doc_len[rows],
        )


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(s, s + n)`` for each pair, without a Python loop."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    offsets = np.repeat(starts - (ends - lengths), lengths)
    out: np.ndarray = np.arange(total, dtype=np.int64) + offsets
    return out


def count_texts(analyzer: Analyzer, texts: Iterable[str]) -> Counts:
    """Analyse ``texts`` and count their terms into a new vocabulary."""
    vocab: dict[str, int] = {}
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    ids = array("i")
    lengths = array("q")
    for text in texts:
        terms = analyzer.terms(text)
        lengths.append(len(terms))
        ids.extend([vocab.setdefault(t, len(vocab)) for t in terms])
        if len(lengths) >= _BLOCK:
            parts.append(_count_block(ids, lengths))
            ids = array("i")
            lengths = array("q")
    if lengths or not parts:
        parts.append(_count_block(ids, lengths))
    return _stack(list(vocab), parts)


def _count_block(
    ids: array[int], lengths: array[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    tok = np.frombuffer(ids, dtype=np.int32) if len(ids) else np.zeros(0, np.int32)
    lens = np.frombuffer(lengths, dtype=np.int64) if len(lengths) else np.zeros(0, np.int64)
    n = lens.shape[0]
    doc = np.repeat(np.arange(n, dtype=np.int64), lens)
    key = doc << 32 | tok.astype(np.int64)
    uniq, cnt = np.unique(key, return_counts=True)
    rows = uniq >> 32
    per_row = np.bincount(rows, minlength=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(per_row, out=indptr[1:])
    return (
        indptr,
        (uniq & 0xFFFFFFFF).astype(np.int32),
        cnt.astype(np.int32),
        lens.astype(np.int32),
    )


def _stack(
    terms: Sequence[str], parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]
) -> Counts:
    indptrs = []
    base = 0
    for i, (indptr, indices, _, _) in enumerate(parts):
        indptrs.append(indptr[(0 if i == 0 else 1) :] + base)
        base += indices.shape[0]
    return Counts(
        terms,
        np.concatenate(indptrs).astype(np.int64),
        np.concatenate([p[1] for p in parts]).astype(np.int32),
        np.concatenate([p[2] for p in parts]).astype(np.int32),
        np.concatenate([p[3] for p in parts]).astype(np.int32),
    )


def concat_counts(parts: list[Counts]) -> Counts:
    """Stack several matrices (each with its own vocabulary) into one with a merged vocabulary."""
    vocab: dict[str, int] = {}
    blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    for part in parts:
        remap = np.fromiter(
            (vocab.setdefault(t, len(vocab)) for t in part.terms),
            dtype=np.int32,
            count=len(part.terms),
        )
        indices = remap[part.indices] if part.indices.shape[0] else part.indices
        # Keep indices sorted within rows after remapping (postings rely on doc order only,
        # but a canonical order keeps stored files deterministic).
        order = np.lexsort((indices, np.repeat(np.arange(part.n_docs), np.diff(part.indptr))))
        blocks.append((part.indptr, indices[order], part.counts[order], part.doc_len))
    if not blocks:
        empty = np.zeros(0, np.int32)
        return Counts([], np.zeros(1, np.int64), empty, empty.copy(), empty.copy())
    return _stack(list(vocab), blocks)
