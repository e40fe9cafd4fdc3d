"""The learned embedding: TF-IDF over the corpus's terms, reduced by truncated SVD.

Fitting happens only when an index is built or refitted: on a small corpus with numpy's exact
SVD of the dense matrix, else by a randomized SVD of the sparse matrix (scipy).
Everything a query needs (vocabulary, idf and the SVD components) is stored in the index and
applied with numpy alone, so a search process never imports scipy.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from substrate.search.counts import Counts
from substrate.search.params import SearchParams
from substrate.search.strings import PackedStrings

log = logging.getLogger(__name__)

# Up to this many postings, documents are projected with numpy alone (importing scipy costs
# more than that); beyond, by a sparse product, which builds no (postings x dim) temporary.
_DENSE_PROJECT_POSTINGS = 1 << 16
# Up to this many cells (documents x terms: 32 MB) and Gram-matrix multiply-adds, the TF-IDF
# matrix is decomposed dense (well under a second), not by the randomized SVD.
DENSE_SVD_CELLS = 4_000_000
DENSE_SVD_WORK = 1_000_000_000


def _small(n_docs: int, n_terms: int) -> bool:
    short, long = sorted((n_docs, n_terms))
    return n_docs * n_terms <= DENSE_SVD_CELLS and short * short * long <= DENSE_SVD_WORK


@dataclass(slots=True)
class EmbeddingModel:
    """A fitted TF-IDF + SVD projection.

    Attributes:
        terms: the model's vocabulary.
        idf: smoothed idf per term (float32).
        components: projection matrix, one row per term (float32, ``(V, dim)``).
        fitted_docs: live items in the corpus when the model was fitted.
        model_id: a digest of the model, recorded by the vectors built with it.
    """

    terms: Sequence[str]
    idf: np.ndarray
    components: np.ndarray
    fitted_docs: int
    model_id: str
    _index: dict[str, int] | None = field(default=None, repr=False)

    @property
    def dim(self) -> int:
        return int(self.components.shape[1])

    def _lookup(self) -> dict[str, int]:
        if self._index is None:
            self._index = {t: i for i, t in enumerate(self.terms)}
        return self._index

    def term_id(self, term: str) -> int:
        if self._index is None and isinstance(self.terms, PackedStrings):
            return self.terms.find(term)  # a query's few terms: bisect rather than build a dict
        return self._lookup().get(term, -1)

    def remap(self, terms: Sequence[str]) -> np.ndarray:
        """Model term id of each of ``terms`` (-1 where the model does not know the term)."""
        index = self._lookup()
        return np.fromiter((index.get(t, -1) for t in terms), dtype=np.int32, count=len(terms))

    def project_query(self, weights: Mapping[str, float]) -> np.ndarray | None:
        """Unit vector of a query given its term counts; None if no term is known."""
        ids = []
        vals = []
        for term, count in weights.items():
            tid = self.term_id(term)
            if tid >= 0:
                ids.append(tid)
                vals.append(math.log1p(count) * float(self.idf[tid]))
        if not ids:
            return None
        vec = np.asarray(vals, dtype=np.float32) @ self.components[np.asarray(ids)]
        norm = float(np.linalg.norm(vec))
        return (vec / norm).astype(np.float32) if norm > 0 else None

    def project(self, counts: Counts) -> np.ndarray:
        """Unit vectors (float32, ``(n_docs, dim)``) of every document of ``counts``.

        Documents with no term known to the model get a zero vector (cosine 0 to anything).
        """
        ids = self.remap(counts.terms)[counts.indices]
        known = ids >= 0
        ids = ids[known]
        weight = np.log1p(counts.counts[known].astype(np.float32)) * self.idf[ids]
        # where each document's postings of known terms start
        indptr = np.concatenate(([0], np.cumsum(known)))[counts.indptr]
        if ids.shape[0] <= _DENSE_PROJECT_POSTINGS:
            out = _summed_rows(indptr, ids, weight, self.components)
        else:
            from scipy import sparse  # index-time only

            shape = (counts.n_docs, self.components.shape[0])
            matrix = sparse.csr_matrix((weight, ids, indptr), shape=shape)
            out = np.asarray(matrix @ self.components, dtype=np.float32)
        norms = np.linalg.norm(out, axis=1)
        np.divide(out, norms[:, None], out=out, where=norms[:, None] > 0)
        return out


def _summed_rows(
    indptr: np.ndarray, ids: np.ndarray, weight: np.ndarray, rows: np.ndarray
) -> np.ndarray:
    """Per document, the sum of its terms' ``rows``, weighted (with numpy alone)."""
    n_docs = indptr.shape[0] - 1
    out = np.zeros((n_docs, rows.shape[1]), dtype=np.float32)
    if ids.shape[0]:
        docs = np.repeat(np.arange(n_docs), np.diff(indptr))
        # docs ascend, so each document's postings are one contiguous run
        firsts = np.flatnonzero(np.r_[True, docs[1:] != docs[:-1]])
        out[docs[firsts]] = np.add.reduceat(rows[ids] * weight[:, None], firsts, axis=0)
    return out


def fit_model(counts: Counts, params: SearchParams) -> EmbeddingModel | None:
    """Fit the embedding on the live documents of ``counts``; None if the corpus is too small.

    Terms seen in a single document carry no co-occurrence signal and are left out; the
    vocabulary is capped at ``params.max_model_terms`` most frequent terms. The SVD is fitted on
    an evenly spaced sample of at most ``params.fit_sample`` documents.
    """
    n_docs = counts.n_docs
    if n_docs < params.min_docs_semantic:
        return None
    df = np.bincount(counts.indices, minlength=len(counts.terms))
    candidates = np.flatnonzero(df >= 2)
    if candidates.shape[0] < params.min_vocab_semantic:
        return None
    # The model's terms in the order of their text, not of their ids (the order items came
    # in): the SVD's random probe is laid along the columns, so a shard rebuilt from its items
    # in another order (after a long history, or from a backup) ranks as a fresh one does.
    candidates = np.asarray(sorted(candidates.tolist(), key=counts.terms.__getitem__), np.int64)
    if candidates.shape[0] > params.max_model_terms:
        # most frequent first; ties by the terms' text (a stable sort keeps that order)
        by_freq = np.argsort(-df[candidates], kind="stable")
        candidates = candidates[np.sort(by_freq[: params.max_model_terms])]
    sample = _sample_rows(n_docs, params.fit_sample)
    dim = min(params.dim, sample.shape[0] - 1, candidates.shape[0] - 1)
    idf = (np.log((1.0 + n_docs) / (1.0 + df[candidates])) + 1.0).astype(np.float32)
    local = np.full(len(counts.terms), -1, dtype=np.int64)
    local[candidates] = np.arange(candidates.shape[0])
    fitted = counts.take(sample)
    if _small(fitted.n_docs, candidates.shape[0]):
        components = _dense_svd(_dense_tfidf(fitted, local, idf, candidates.shape[0]), dim)
    else:
        components = _svd(_tfidf_matrix(fitted, local, idf, candidates.shape[0]), dim)
    terms = [counts.terms[i] for i in candidates.tolist()]
    digest = hashlib.blake2b(components.tobytes(), digest_size=8).hexdigest()
    log.debug("fitted embedding: %d docs, %d terms, dim %d", n_docs, len(terms), dim)
    return EmbeddingModel(terms, idf, components, n_docs, digest)


def _sample_rows(n_docs: int, limit: int) -> np.ndarray:
    if n_docs <= limit:
        return np.arange(n_docs, dtype=np.int64)
    return np.unique(np.linspace(0, n_docs - 1, limit).astype(np.int64))


def _tfidf_entries(
    counts: Counts, local: np.ndarray, idf: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row, column and log-scaled TF-IDF weight of every count of a model term."""
    cols = local[counts.indices]
    keep = cols >= 0
    rows = np.repeat(np.arange(counts.n_docs), np.diff(counts.indptr))[keep]
    vals = np.log1p(counts.counts[keep].astype(np.float32)) * idf[cols[keep]]
    return rows, cols[keep], vals


def _tfidf_matrix(counts: Counts, local: np.ndarray, idf: np.ndarray, n_terms: int) -> object:
    from scipy import sparse  # index-time only

    rows, cols, vals = _tfidf_entries(counts, local, idf)
    matrix = sparse.csr_matrix((vals, (rows, cols)), shape=(counts.n_docs, n_terms))
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sparse.diags((1.0 / norms).astype(np.float32)) @ matrix


def _dense_tfidf(counts: Counts, local: np.ndarray, idf: np.ndarray, n_terms: int) -> np.ndarray:
    """``_tfidf_matrix`` as a dense array (rows normalised to unit length)."""
    rows, cols, vals = _tfidf_entries(counts, local, idf)
    matrix = np.zeros((counts.n_docs, n_terms), dtype=np.float64)
    np.add.at(matrix, (rows, cols), vals)
    norms = np.linalg.norm(matrix, axis=1)
    norms[norms == 0] = 1.0
    normalised: np.ndarray = matrix / norms[:, None]
    return normalised


def _dense_svd(matrix: np.ndarray, dim: int) -> np.ndarray:
    """The ``dim`` leading right singular vectors of ``matrix``, as columns, exactly.

    They are found through the smaller of the two Gram matrices (documents x documents for a
    corpus of fewer documents than terms), whose eigenvectors cost a fraction of a full SVD.
    Directions of a rank-deficient matrix beyond its rank are left zero.
    """
    m, n = matrix.shape
    gram = matrix @ matrix.T if m <= n else matrix.T @ matrix
    values, vectors = np.linalg.eigh(gram)  # ascending
    order = np.argsort(values)[::-1][:dim]
    sigma = np.sqrt(np.clip(values[order], 0.0, None))
    # below this share of the largest, a value is the Gram matrix's rounding, not a direction
    real = sigma > 1e-6 * max(float(sigma[0]) if sigma.size else 0.0, 1e-30)
    found = vectors[:, order[real]]
    if m <= n:  # those were the left singular vectors u: v = A^T u / sigma
        found = matrix.T @ found / sigma[real]
    out = np.zeros((n, dim), dtype=np.float64)
    out[:, : found.shape[1]] = found
    return _signed(np.ascontiguousarray(out, dtype=np.float32))


# The randomized SVD's extra probe directions and power iterations (Halko, Martinsson and
# Tropp, 2011): with these, the leading directions of a TF-IDF matrix, whose singular values
# decay slowly, come out as a full SVD would give them.
SVD_OVERSAMPLE = 10
SVD_POWER_ITERATIONS = 7


def _svd(matrix: Any, dim: int) -> np.ndarray:
    """The ``dim`` leading right singular vectors of the sparse ``matrix``, as columns, by a
    randomized SVD: a few products with the matrix, and a small dense SVD. (scikit-learn's
    ``TruncatedSVD`` does the same; importing it took longer than the whole fit of a
    shard of a few thousand notes.)"""
    from scipy import linalg  # index-time only

    rng = np.random.default_rng(0)  # the same matrix gives the same embedding
    probe = rng.standard_normal((matrix.shape[1], dim + SVD_OVERSAMPLE)).astype(np.float32)
    basis = matrix @ probe  # a sample of the matrix's range
    for _ in range(SVD_POWER_ITERATIONS):  # turned towards its leading directions
        # kept well apart (else rounding loses all but the first), by an LU factor: cheaper
        # than an orthonormal basis, and as good between iterations
        basis = linalg.lu(basis, permute_l=True, check_finite=False)[0]
        basis = matrix @ (matrix.T @ basis)
    basis = linalg.qr(basis, mode="economic", check_finite=False)[0]
    projected = np.asarray((matrix.T @ basis).T)  # the matrix within that range, small
    leading = linalg.svd(projected, full_matrices=False, check_finite=False)[2][:dim]
    return _signed(np.ascontiguousarray(leading.T, dtype=np.float32))


def _signed(components: np.ndarray) -> np.ndarray:
    dim = components.shape[1]
    # Fix each axis's sign (SVD leaves it arbitrary) so refits on the same data agree.
    flip = np.sign(components[np.abs(components).argmax(axis=0), np.arange(dim)])
    flip[flip == 0] = 1.0
    fixed: np.ndarray = (components * flip).astype(np.float32)
    return fixed
