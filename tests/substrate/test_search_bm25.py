"""BM25 scores against a direct reference implementation, and the count/postings structures."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from substrate.item import SubstrateItem
from substrate.search.bm25 import build_postings, idf
from substrate.search.counts import concat_counts, count_texts
from substrate.search.params import DEFAULT_PARAMS
from substrate.search.ranker import rank
from substrate.search.state import build_state
from substrate.search.tokenize import Analyzer

DOCS = [
    "the cat sat on the mat",
    "dogs and cats living together",
    "a dog chased the cat around the garden garden garden",
    "quantum physics of cats",
    "nothing relevant here at all",
    "gardening tips for the spring garden",
]


def reference_bm25(query: str, docs: list[str], k1: float, b: float) -> list[float]:
    an = Analyzer()
    tokenized = [an.terms(d) for d in docs]
    n = len(docs)
    avgdl = sum(len(t) for t in tokenized) / n
    q = Counter(an.terms(query))
    scores = []
    for terms in tokenized:
        tf = Counter(terms)
        s = 0.0
        for term, qtf in q.items():
            df = sum(1 for t in tokenized if term in t)
            idf_t = math.log(1 + (n - df + 0.5) / (df + 0.5))
            f = tf[term]
            s += qtf * idf_t * f * (k1 + 1) / (f + k1 * (1 - b + b * len(terms) / avgdl))
        scores.append(s)
    return scores


@pytest.mark.parametrize("query", ["cat garden", "dog", "garden garden spring", "physics"])
def test_scores_match_reference(query: str) -> None:
    items = [SubstrateItem("text", d, id=f"d{i}") for i, d in enumerate(DOCS)]
    state = build_state(Analyzer(), items, DEFAULT_PARAMS, None)
    assert not state.semantic  # six documents: lexical only
    hits = rank(state, Analyzer(), query, 10, explain=True)
    expected = reference_bm25(query, DOCS, DEFAULT_PARAMS.k1, DEFAULT_PARAMS.b)
    got = {h.item_id: h.explain["bm25"] for h in hits if h.explain}
    for i, score in enumerate(expected):
        if score > 0:
            assert got[f"d{i}"] == pytest.approx(score, rel=1e-5)
        else:
            assert f"d{i}" not in got
    order = [h.item_id for h in hits]
    assert order == sorted(order, key=lambda d: -expected[int(d[1:])])


def test_idf_is_positive_even_for_common_terms() -> None:
    assert idf(10, 10) > 0
    assert idf(1, 10) > idf(5, 10)


def test_postings_invert_the_forward_index() -> None:
    counts = count_texts(Analyzer(), ["red blue red", "blue green", "green green red"])
    assert counts.terms == ["red", "blue", "green"]
    assert counts.doc_len.tolist() == [3, 2, 3]
    postings = build_postings(counts, 8 / 3, 1.2, 0.75)
    assert postings.df.tolist() == [2, 2, 2]
    rows, weights = postings.posting(postings.term_id("red"))
    assert rows.tolist() == [0, 2]
    assert weights[0] > weights[1]  # two occurrences saturate higher than one
    assert postings.term_id("missing") == -1
    assert postings.doc_freq("missing") == 0


def test_concat_counts_merges_vocabularies_and_take_selects_rows() -> None:
    an = Analyzer()
    a = count_texts(an, ["alpha beta", ""])
    b = count_texts(an, ["beta gamma gamma"])
    merged = concat_counts([a, b])
    assert merged.terms == ["alpha", "beta", "gamma"]
    assert merged.n_docs == 3
    ids, cnt = merged.row(2)
    assert [merged.terms[i] for i in ids] == ["beta", "gamma"]
    assert cnt.tolist() == [1, 2]
    picked = merged.take(np.array([2, 0]))
    assert picked.doc_len.tolist() == [3, 2]
    assert [picked.terms[i] for i in picked.row(1)[0]] == ["alpha", "beta"]
    assert concat_counts([]).n_docs == 0


def test_counting_spans_several_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    import substrate.search.counts as counts_module

    monkeypatch.setattr(counts_module, "_BLOCK", 2)
    counts = count_texts(Analyzer(), ["one two", "two three", "three four", "four"])
    assert counts.n_docs == 4
    assert counts.indptr.tolist() == [0, 2, 4, 6, 7]
    assert [counts.terms[i] for i in counts.row(3)[0]] == ["four"]
