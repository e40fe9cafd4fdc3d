"""Tunable parameters of the search index, and the index format version.

The defaults were chosen on four public test collections and hold across them; they are not
tuned per collection. Every index file records the parameters it was built with, and a file
built with different ones is rebuilt rather than mixed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# Bump when the layout or the meaning of a stored column changes.
FORMAT_VERSION = 3  # 3: the source column holds the absolute path too
# Bump when the analyzer's output changes (stopwords, stemmer, CJK rules): terms must match.
# 2: NFKC before splitting words; 3: accents dropped from Latin words; 4: sections searched;
# 5: a number with thousands separators is one term; 6: and its parts too; 7: acronyms'
# plurals are their singulars, characters that print nothing dropped; 8: by a list of plurals;
# 9: a record's table (its file's name) searched; 11: "C++", "C#", "F#" are terms (10 was
# tried and withdrawn: an index of it must be rebuilt too); 12: Polish "ł", Turkish "ı",
# Greek accents and Arabic and Hebrew vowel points folded away; 13: Russian "ё", Arabic's
# alef forms, taa marbuta, alef maksura and tatweel, and Arabic and Devanagari digits folded;
# 14: Arabic's article joined to a word ("ال", "وال", "لل"...) dropped
ANALYZER_VERSION = 14


@dataclass(frozen=True, slots=True)
class SearchParams:
    """Ranking and maintenance parameters.

    Attributes:
        k1: BM25 term-frequency saturation.
        b: BM25 length normalisation.
        dim: dimensions of the learned (TF-IDF + truncated SVD) embedding.
        semantic_weight: weight of the semantic cosine beside the normalised BM25 score.
        min_cosine: cosines below this count as no semantic match (noise, not meaning).
        min_docs_semantic: below this many items the embedding is not learned (lexical only).
        min_vocab_semantic: below this many repeated terms the embedding is not learned.
        max_model_terms: the embedding vocabulary keeps at most this many terms (by frequency).
        fit_sample: the embedding is fitted on at most this many items (then applied to all).
        feedback_docs: pseudo-relevance feedback reads this many top items.
        feedback_terms: and adds at most this many of their terms to the query.
        feedback_max_df: feedback terms found in more than this fraction of items are skipped:
            they discriminate little and their long postings are the slowest to score.
        feedback_keep: weight kept by the original query terms (the rest goes to feedback).
        rare_fraction: a query term is "rare" if at most this fraction of items contain it.
        signature_threshold: from this many rows, binary signatures give the semantic first pass.
        signature_candidates: rows kept by the Hamming first pass.
        max_segments: more delta segments than this are merged into one.
        merge_fraction: deltas (or removed rows) above this fraction of the base trigger a merge.
        refit_growth: the embedding is refitted when the live corpus grew by this factor.
    """

    k1: float = 1.2
    b: float = 0.75
    dim: int = 64
    semantic_weight: float = 0.4
    min_cosine: float = 0.2
    min_docs_semantic: int = 50
    min_vocab_semantic: int = 128
    max_model_terms: int = 100_000
    fit_sample: int = 100_000
    feedback_docs: int = 10
    feedback_terms: int = 25
    feedback_keep: float = 0.6
    feedback_max_df: float = 0.1
    rare_fraction: float = 0.05
    signature_threshold: int = 200_000
    signature_candidates: int = 4096
    max_segments: int = 8
    merge_fraction: float = 0.2
    refit_growth: float = 2.0

    def as_dict(self) -> dict[str, Any]:
        """The parameters as a plain dict (stored in index metadata)."""
        return asdict(self)

    def build_key(self) -> dict[str, Any]:
        """The parameters that shape stored data; a mismatch means the index must be rebuilt."""
        return {
            "k1": self.k1,
            "b": self.b,
            "dim": self.dim,
            "max_model_terms": self.max_model_terms,
            "analyzer": ANALYZER_VERSION,
        }


DEFAULT_PARAMS = SearchParams()
