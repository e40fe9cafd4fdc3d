"""Binary signatures of embedding vectors and a Hamming-distance first pass.

The sign of each coordinate is one bit, so a 64-dimensional vector packs into 8 bytes. The
Hamming distance between two signatures tracks the angle between the vectors, which makes it a
cheap filter over a large shard: only the closest signatures are scored exactly.
"""

from __future__ import annotations

import numpy as np


def pack_signatures(vectors: np.ndarray) -> np.ndarray:
    """Sign bits of each row, packed into bytes (shape ``(n, ceil(dim / 8))``, uint8)."""
    return np.packbits(vectors > 0, axis=1)


def hamming(signatures: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Hamming distance of every row of ``signatures`` to ``query`` (uint16 or wider)."""
    width = signatures.shape[1]
    if width % 8 == 0 and signatures.flags.c_contiguous:
        # Whole 64-bit words: one xor and one popcount per word.
        words = signatures.view(np.uint64)
        qwords = np.ascontiguousarray(query).view(np.uint64)
        dist: np.ndarray = np.bitwise_count(words ^ qwords).sum(axis=1, dtype=np.int32)
        return dist
    bytewise: np.ndarray = np.bitwise_count(signatures ^ query).sum(axis=1, dtype=np.int32)
    return bytewise


def nearest(signatures: np.ndarray, query: np.ndarray, allowed: np.ndarray, n: int) -> np.ndarray:
    """Rows (ascending) of the ``n`` allowed signatures closest to ``query``.

    Ties at the cut are all kept, so the result does not depend on how a partition breaks them.
    """
    dist = hamming(signatures, query)
    big = np.int32(signatures.shape[1] * 8 + 1)
    dist = np.where(allowed, dist, big)
    n_allowed = int(allowed.sum())
    if n_allowed == 0:
        return np.zeros(0, dtype=np.int64)
    if n >= n_allowed:
        return np.flatnonzero(allowed)
    # Distances are small integers: a histogram finds the cut faster than a partition.
    cumulative = np.cumsum(np.bincount(dist))
    cut = int(np.searchsorted(cumulative, n))
    return np.flatnonzero(dist <= cut)
