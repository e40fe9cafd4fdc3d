"""Secrets that chunking cuts apart, found in the whole text and masked in every piece.

A section longer than the chunk size becomes several items. The write-time gate sees one item
at a time, so a secret cut by a chunk edge (a private key block spanning three chunks, a token
in a long line split at the size bound) or a value whose keyword sits in the chunk before
would reach the store with its pieces readable. The text being chunked is scanned once as a
whole instead, and each chunk carries the spans of the secrets it holds part of.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from substrate.secrets.copies import Copies, copies_of_hits, mask_spans
from substrate.secrets.engine import find_secrets
from substrate.secrets.hits import Hit
from substrate.secrets.screen import slices_may_hold_secrets


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


@dataclass(frozen=True, slots=True)
class ChunkSecrets:
    """What a chunk knows of the secrets of the text it was cut from.

    Attributes:
        parts: the parts of secrets lying in this chunk, in order.
        copies: how to find copies of every secret of the whole text (``secrets.copies``),
            worked out once for all the chunks: copies elsewhere in the chunk's item (its
            text, section title, tags, payload) are masked too.
    """

    parts: tuple[CutSecret, ...]
    copies: Copies | None


def cut_secrets(text: str, spans: Sequence[tuple[int, int]]) -> list[ChunkSecrets | None]:
    """For ``text`` cut into the chunks ``spans`` (``(start, end)`` in ``text``, in order, not
    overlapping), what each chunk knows of the secrets of the whole text; None for every chunk
    when the text holds none, or is a single chunk, which the gate sees whole."""
    # the screen answers for the whole text and costs a few percent of a scan
    many = len(spans) > 1 and slices_may_hold_secrets(text)
    return _cut(text, spans, find_secrets(text) if many else [])


def _cut(text: str, spans: Sequence[tuple[int, int]], hits: list[Hit]) -> list[ChunkSecrets | None]:
    """``cut_secrets`` of ``text`` holding the secrets ``hits``."""
    if not hits:
        return [None] * len(spans)
    parts: list[list[CutSecret]] = [[] for _ in spans]
    starts = [start for start, _ in spans]
    for hit in hits:
        first = True
        # from the chunk holding the hit's start (or the one before it) to its end
        for i in range(_chunk_at(starts, hit.start), len(spans)):
            start, end = spans[i]
            if start >= hit.end:
                break
            lo, hi = max(hit.start, start), min(hit.end, end)
            if lo < hi:
                parts[i].append(CutSecret(lo - start, hi - start, hit.rule, first))
                first = False
    copies = copies_of_hits(text, hits)
    return [ChunkSecrets(tuple(p), copies) for p in parts]


def _chunk_at(starts: list[int], at: int) -> int:
    """The chunk holding the offset ``at`` (or the one before it, ``at`` between two)."""
    return max(bisect.bisect_right(starts, at) - 1, 0)


def mask_cut(text: str, parts: Sequence[CutSecret]) -> str:
    """``text`` with each part of a cut secret masked."""
    return mask_spans(text, [(part.start, part.end, part.rule) for part in parts])


def secrets_across(texts: Sequence[str], *, apart: bool = False) -> list[ChunkSecrets | None]:
    """``cut_secrets`` of texts stored as an item each that follow one another in a source: a
    secret over several of them, which the gate, seeing one item at a time, would leave
    readable in all but one (a private key's block, a line an item), is found in their text
    joined by line breaks, and each one's part of it masked.

    ``apart``: the texts are passages of their own (a list of documents, the rows of a log),
    not lines of one text: only a private key's block over several of them, made of key
    material (base64 lines, armor headers), is carried across; a key's header in one passage
    and its footer in another, or a keyword in one and a value in the next, make no secret of
    what lies between.
    """
    if len(texts) < 2 or (apart and not any("PRIVATE KEY" in text for text in texts)):
        return [None] * len(texts)  # (passages: only a key's block is looked for)
    spans = []
    at = 0
    for text in texts:
        spans.append((at, at + len(text)))
        at += len(text) + 1
    joined = "\n".join(texts)
    if not slices_may_hold_secrets(joined):
        return [None] * len(spans)
    starts = [start for start, _ in spans]
    hits = find_secrets(joined)
    if apart:
        hits = [hit for hit in hits if hit.rule == _KEY_BLOCK and _key_lines(joined, hit, starts)]
    return _cut(joined, spans, [_from_its_header(joined, hit, spans, starts) for hit in hits])


_KEY_BLOCK = "private_key_block"  # the rule of a PEM, OpenSSH or PGP private key's block


def _key_lines(text: str, hit: Hit, starts: list[int]) -> bool:
    """Whether ``hit`` spans several of the joined texts, each line of it a line of key
    material (indented or not): no white space, or an armor header (``Version: GnuPG v2``,
    ``Proc-Type: 4,ENCRYPTED``)."""
    crosses = _chunk_at(starts, hit.start) != _chunk_at(starts, hit.end - 1)
    lines = text[hit.start : hit.end].split("\n")
    return crosses and all(_KEY_LINE.fullmatch(line.strip()) for line in lines)


_KEY_LINE = re.compile(r"\S*|[A-Za-z][\w-]*: [^\n]*")


def _from_its_header(
    text: str, hit: Hit, spans: Sequence[tuple[int, int]], starts: list[int]
) -> Hit:
    """``hit`` from the start of its match, when that lies in a text of its own which the gate
    would mask alone: a key block's header line, which would count the key twice."""
    start, end = spans[_chunk_at(starts, hit.match_start)]
    if end > hit.start or not find_secrets(text[start:end]):
        return hit  # (one text holds both; or the match began with a name: "password:")
    return Hit(hit.rule, hit.match_start, hit.end, hit.prefix, hit.match_start, hit.match_end)
