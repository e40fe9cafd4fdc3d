"""The learned embedding (its fit; numpy projection vs. the sparse product), binary signatures."""

from __future__ import annotations

import random

import numpy as np
import pytest

from substrate.search.counts import count_texts
from substrate.search.embedding import fit_model
from substrate.search.params import DEFAULT_PARAMS, SearchParams
from substrate.search.signatures import hamming, nearest, pack_signatures
from substrate.search.tokenize import Analyzer


def corpus(n: int = 120, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    groups = [[f"g{g}w{j}" for j in range(60)] for g in range(4)]
    return [" ".join(rng.sample(groups[i % 4], 10)) for i in range(n)]


def test_too_small_corpus_gives_no_model() -> None:
    an = Analyzer()
    assert fit_model(count_texts(an, corpus(20)), DEFAULT_PARAMS) is None
    tiny_vocab = count_texts(an, ["alpha beta"] * 100)
    assert fit_model(tiny_vocab, DEFAULT_PARAMS) is None


def test_model_shape_and_unit_vectors() -> None:
    counts = count_texts(Analyzer(), corpus())
    model = fit_model(counts, DEFAULT_PARAMS)
    assert model is not None
    assert model.components.shape == (len(model.terms), model.dim)
    assert model.components.dtype == np.float32
    vectors = model.project(counts)
    assert vectors.shape == (counts.n_docs, model.dim)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_fitting_is_deterministic() -> None:
    counts = count_texts(Analyzer(), corpus())
    a = fit_model(counts, DEFAULT_PARAMS)
    b = fit_model(counts, DEFAULT_PARAMS)
    assert a is not None and b is not None
    assert a.model_id == b.model_id
    assert np.array_equal(a.components, b.components)


def test_the_fit_does_not_depend_on_the_order_items_came_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the random probe was laid along term ids, which follow first appearance: a shard rebuilt
    # after a long history ranked otherwise than a fresh one of the same items
    monkeypatch.setattr("substrate.search.embedding.DENSE_SVD_CELLS", 0)  # the randomized SVD
    texts = corpus(300)
    a = fit_model(count_texts(Analyzer(), texts), DEFAULT_PARAMS)
    b = fit_model(count_texts(Analyzer(), texts[::-1]), DEFAULT_PARAMS)
    assert a is not None and b is not None and a.terms == b.terms
    counts = count_texts(Analyzer(), texts)
    alike, other = a.project(counts), b.project(counts)  # the similarities search ranks by
    assert np.abs(alike @ alike.T - other @ other.T).max() < 1e-4  # (it was 0.2)


def test_numpy_projection_matches_the_sparse_product() -> None:
    from scipy import sparse

    texts = corpus()
    counts = count_texts(Analyzer(), texts)
    model = fit_model(counts, DEFAULT_PARAMS)
    assert model is not None
    remap = model.remap(counts.terms)
    rows = np.repeat(np.arange(counts.n_docs), np.diff(counts.indptr))
    cols = remap[counts.indices]
    keep = cols >= 0
    vals = np.log1p(counts.counts[keep]) * model.idf[cols[keep]]
    tfidf = sparse.csr_matrix(
        (vals, (rows[keep], cols[keep])), shape=(counts.n_docs, len(model.terms))
    )
    reference = tfidf @ model.components  # the stored components are the fitted ones
    reference /= np.linalg.norm(reference, axis=1, keepdims=True)
    assert np.allclose(model.project(counts), reference, atol=1e-4)


def test_query_projection_matches_document_projection() -> None:
    an = Analyzer()
    texts = corpus()
    counts = count_texts(an, texts)
    model = fit_model(counts, DEFAULT_PARAMS)
    assert model is not None
    doc = model.project(counts)[7]
    terms: dict[str, float] = {}
    for t in an.terms(texts[7]):
        terms[t] = terms.get(t, 0) + 1
    q = model.project_query(terms)
    assert q is not None
    assert float(q @ doc) == pytest.approx(1.0, abs=1e-4)
    assert model.project_query({"unknownterm": 1}) is None


def test_documents_without_known_terms_get_zero_vectors() -> None:
    an = Analyzer()
    model = fit_model(count_texts(an, corpus()), DEFAULT_PARAMS)
    assert model is not None
    vectors = model.project(count_texts(an, ["", "zzz qqq", texts_of_group_zero()]))
    assert not vectors[0].any() and not vectors[1].any()
    assert vectors[2].any()


def test_a_large_corpus_is_projected_by_a_sparse_product_to_the_same_vectors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    an = Analyzer()
    model = fit_model(count_texts(an, corpus()), DEFAULT_PARAMS)
    assert model is not None
    # documents without a known term (first, in the middle, last) keep the rows in step
    texts = ["zzz", *corpus(40, seed=9), "", "qqq g1w3", texts_of_group_zero(), ""]
    counts = count_texts(an, texts)
    with_numpy = model.project(counts)
    monkeypatch.setattr("substrate.search.embedding._DENSE_PROJECT_POSTINGS", 0)
    sparse = model.project(counts)
    assert sparse.dtype == np.float32 and sparse.shape == with_numpy.shape
    assert np.allclose(sparse, with_numpy, atol=1e-6)
    assert not sparse[0].any() and not sparse[41].any() and sparse[42].any()


def texts_of_group_zero() -> str:
    return " ".join(f"g0w{j}" for j in range(5))


def test_fit_on_a_sample_still_covers_everyone() -> None:
    counts = count_texts(Analyzer(), corpus(200))
    model = fit_model(counts, SearchParams(fit_sample=60))
    assert model is not None and model.fitted_docs == 200
    assert np.allclose(np.linalg.norm(model.project(counts), axis=1), 1.0, atol=1e-5)


def test_vocabulary_cap_keeps_the_most_frequent_terms() -> None:
    counts = count_texts(Analyzer(), corpus())
    model = fit_model(counts, SearchParams(max_model_terms=150, min_vocab_semantic=100))
    assert model is not None and len(model.terms) == 150


def test_signatures_pack_sign_bits() -> None:
    vectors = np.array([[1.0, -1.0] * 32, [-1.0, 1.0] * 32, [1.0, -1.0] * 32], np.float32)
    sigs = pack_signatures(vectors)
    assert sigs.shape == (3, 8) and sigs.dtype == np.uint8
    assert hamming(sigs, sigs[0]).tolist() == [0, 64, 0]
    odd = pack_signatures(np.ones((2, 12), np.float32))
    assert odd.shape == (2, 2)
    assert hamming(odd, odd[0]).tolist() == [0, 0]


def test_nearest_respects_the_mask_and_keeps_ties() -> None:
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((50, 64)).astype(np.float32)
    sigs = pack_signatures(vectors)
    allowed = np.ones(50, dtype=bool)
    allowed[0] = False
    picked = nearest(sigs, sigs[0], allowed, 5)
    assert 0 not in picked.tolist()
    assert len(picked) >= 5
    assert nearest(sigs, sigs[0], np.zeros(50, dtype=bool), 5).size == 0
    assert nearest(sigs, sigs[0], allowed, 100).tolist() == list(range(1, 50))


def test_a_small_corpus_is_decomposed_exactly_as_the_randomized_svd_approximates_it() -> None:
    from scipy import sparse

    from substrate.search.embedding import _dense_svd, _svd

    rng = np.random.default_rng(3)
    # rank 8 with well separated singular values, plus a little noise
    basis = np.linalg.qr(rng.standard_normal((300, 8)))[0]
    topics = np.linalg.qr(rng.standard_normal((500, 8)))[0]
    matrix = basis * np.linspace(10.0, 3.0, 8) @ topics.T
    matrix += 0.01 * rng.standard_normal(matrix.shape)
    dense = _dense_svd(matrix, 8)
    randomized = _svd(sparse.csr_matrix(matrix.astype(np.float32)), 8)
    assert dense.shape == randomized.shape == (500, 8)
    assert np.allclose(np.abs(dense.T @ randomized), np.eye(8), atol=1e-3)
    # a rank-deficient matrix leaves the directions beyond its rank zero
    assert not _dense_svd(matrix[:, :3] @ np.eye(3, 500), 8)[:, 3:].any()


@pytest.mark.parametrize(("cells", "fit_needs_scipy"), [(None, False), (0, True)])
def test_scipy_is_imported_by_a_large_corpus_s_fit_alone(
    cells: int | None, fit_needs_scipy: bool
) -> None:
    # a small corpus is fitted with numpy's exact SVD, a large one by a randomized SVD on
    # scipy; a query is projected with numpy alone, so a search process never imports scipy
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from substrate.search import embedding\n"
        "from substrate.search.counts import count_texts\n"
        "from substrate.search.params import DEFAULT_PARAMS\n"
        "from substrate.search.tokenize import Analyzer\n"
        # 0 cells: decomposed as a large corpus is, by the randomized SVD
        + (f"embedding.DENSE_SVD_CELLS = {cells}\n" if cells is not None else "")
        + f"texts = {corpus()!r}\n"
        "model = embedding.fit_model(count_texts(Analyzer(), texts), DEFAULT_PARAMS)\n"
        "assert model is not None\n"
        "fitted = 'scipy' in sys.modules\n"
        "for name in [m for m in sys.modules if m == 'scipy' or m.startswith('scipy.')]:\n"
        "    del sys.modules[name]\n"
        "assert model.project_query({'g0w1': 1.0, 'g0w2': 1.0}) is not None\n"
        "print(fitted, 'scipy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(fit_needs_scipy), "False"]
