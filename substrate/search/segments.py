"""Segments: immutable slices of the index (catalog, forward index, postings, vectors).

A shard's index is one base segment plus a few small delta segments holding items written since
the base was built. Segments are never modified; a removed or replaced item is masked by the
index state's dead-row set, and merging folds several segments into a new one.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from substrate.item import SubstrateItem
from substrate.search.bm25 import Postings, build_postings
from substrate.search.counts import Counts, concat_counts, count_texts
from substrate.search.doctable import DocTable, concat_tables
from substrate.search.embedding import EmbeddingModel
from substrate.search.params import SearchParams
from substrate.search.signatures import pack_signatures
from substrate.search.tokenize import Analyzer, surface_of


@dataclass(slots=True)
class Segment:
    """One immutable slice of the index."""

    name: str
    docs: DocTable
    counts: Counts
    postings: Postings
    vectors: np.ndarray | None  # float32 (n, dim), unit rows; None without a model
    signatures: np.ndarray | None  # uint8 (n, ceil(dim / 8))
    model_id: str | None

    @property
    def n_rows(self) -> int:
        return self.docs.n_rows


def new_segment_name() -> str:
    """A unique, file-name-safe segment name."""
    return secrets.token_hex(6)


def analyse_items(
    analyzer: Analyzer, items: Sequence[SubstrateItem], seq: Sequence[int]
) -> tuple[DocTable, Counts]:
    """Catalog rows and term counts of ``items``."""
    docs = DocTable.from_items(items, seq)
    counts = count_texts(analyzer, (surface_of(it) for it in items))
    return docs, counts


def assemble(
    docs: DocTable,
    counts: Counts,
    *,
    avgdl: float,
    params: SearchParams,
    model: EmbeddingModel | None,
    vectors: np.ndarray | None = None,
) -> Segment:
    """Build postings (and, with a model, vectors and signatures) for analysed documents.

    ``vectors`` may be passed when they were already computed with ``model`` (a merge).
    """
    postings = build_postings(counts, avgdl, params.k1, params.b)
    if model is not None and vectors is None:
        vectors = model.project(counts)
    signatures = pack_signatures(vectors) if vectors is not None else None
    return Segment(
        new_segment_name(),
        docs,
        counts,
        postings,
        vectors,
        signatures,
        model.model_id if model is not None else None,
    )


def merge_segments(
    segments: Sequence[Segment],
    dead: Sequence[np.ndarray],
    *,
    avgdl: float | None,
    params: SearchParams,
    model: EmbeddingModel | None,
) -> tuple[Segment, float]:
    """Fold the live rows of ``segments`` into one new segment.

    Args:
        segments: the segments to merge, in order.
        dead: per segment, the mask of rows to drop.
        avgdl: the average document length to normalise with; None recomputes it.
        params: index parameters.
        model: the embedding; vectors are reused when they were made by this model.

    Returns:
        The new segment and the average document length it was built with.
    """
    keep = [np.flatnonzero(~d) for d in dead]
    counts = concat_counts([s.counts.take(k) for s, k in zip(segments, keep, strict=True)])
    docs = concat_tables([s.docs.take(k) for s, k in zip(segments, keep, strict=True)])
    if avgdl is None:
        avgdl = float(counts.doc_len.mean()) if counts.n_docs else 1.0
    vectors = None
    if model is not None and all(s.model_id == model.model_id for s in segments):
        parts = [s.vectors[k] for s, k in zip(segments, keep, strict=True) if s.vectors is not None]
        vectors = np.concatenate(parts) if parts else np.zeros((0, model.dim), np.float32)
    return assemble(docs, counts, avgdl=avgdl, params=params, model=model, vectors=vectors), avgdl
