"""Secrets that chunking cuts apart, found in the whole text and masked in every piece.

A section longer than the chunk size becomes several items. The write-time gate sees one item
at a time, so a secret cut by a chunk edge (a private key block spanning three chunks, a token
in a long line split at the size bound) or a value whose keyword sits in the chunk before
would reach the store with its pieces readable. The text being chunked is scanned once as a
whole instead, and each chunk carries the spans of the secrets it holds part of.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from substrate.secrets.engine import find_secrets
from substrate.secrets.scan import DEFAULT_MASK


@dataclass(frozen=True, slots=True)
class CutSecret:
    """The part of one secret that lies in a chunk.

    Attributes:
        start: where the part begins in the chunk's text.
        end: where it ends.
        rule: the rule that found the secret.
        first: the secret's first part (a secret is counted once, with this part).
    """

    start: int
    end: int
    rule: str
    first: bool


def cut_secrets(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[CutSecret, ...]]:
    """For ``text`` cut into the chunks ``spans`` (``(start, end)`` in ``text``, in order), the
    parts of the secrets of the whole text that each chunk holds; nothing when there is a
    single chunk, which the gate sees whole."""
    parts: list[list[CutSecret]] = [[] for _ in spans]
    if len(spans) > 1:
        for hit in find_secrets(text):
            first = True
            for i, (start, end) in enumerate(spans):
                lo, hi = max(hit.start, start), min(hit.end, end)
                if lo < hi:
                    parts[i].append(CutSecret(lo - start, hi - start, hit.rule, first))
                    first = False
    return [tuple(p) for p in parts]


def mask_cut(text: str, parts: Sequence[CutSecret]) -> str:
    """``text`` with each part of a cut secret masked (parts in order, not overlapping)."""
    out: list[str] = []
    pos = 0
    for part in parts:
        out.append(text[pos : part.start])
        out.append(DEFAULT_MASK.format(rule=part.rule))
        pos = part.end
    out.append(text[pos:])
    return "".join(out)
