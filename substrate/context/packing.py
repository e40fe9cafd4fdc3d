"""Packing ranked items into a budget, measuring the real rendered text.

Unlike the reference, the rendered packet never exceeds its budget: every piece is measured as
it will be written (header and separators included), an item that does not fit is skipped and
the next one tried, and compression is held to the room that is left.

A packet is made to be handed to a model, often a remote one: secrets in what it shows (an
item stored with ``--no-redact``, a secret typed into the task) are masked before measuring.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from substrate.context import render
from substrate.context.compress import Relevant, compress_text, lead_sentence
from substrate.context.packet import ContextBudget, ContextPacket, item_text, used_text
from substrate.errors import InvalidInputError
from substrate.identifiers import identifiers
from substrate.item import SubstrateItem
from substrate.retrieval import (
    NOISE_FLOOR,
    merge_scopes,
    ranked,
    relevance_floor,
    shown_sources,
)
from substrate.secrets import safe_text
from substrate.successors import in_force
from substrate.telemetry import Recorder, emit

if TYPE_CHECKING:
    from substrate.store import Substrate

# A summary shorter than this rarely carries a usable fact; below it an item is skipped.
MIN_SUMMARY = 40
# The best item may take this part of the room (a quarter), not only its even share: cut to a
# sixteenth, a short decision record kept "Status: rejected." and lost the reason why.
BEST_ITEM_PART = 4


def pack_context(
    task: str,
    items: Sequence[SubstrateItem],
    scores: Sequence[float],
    *,
    budget: ContextBudget | None = None,
    compress: bool = False,
    kind: str | None = None,
    scope: str | None = None,
    scopes: Iterable[str] | None = None,
    min_score: float | None = None,
    n_candidates: int | None = None,
    telemetry: Recorder | None = None,
    also_relevant: Relevant | None = None,
) -> ContextPacket:
    """Pack already-ranked items into a ``ContextPacket`` (no search; their scores are kept).

    Items are taken in the order given. One that does not fit whole is skipped (or, with
    ``compress``, summarised to the room left) and the next one is tried. With ``compress``,
    the room is shared across the items still to place, so more sources fit (the first may take
    a quarter of it), and what is left at the end widens the items cut to their share, most
    relevant first.

    Args:
        task: what the packet is for; its terms decide what compression keeps.
        items: candidate items, most relevant first.
        scores: their relevance scores (same length).
        budget: the receiver's budget (default ``ContextBudget()``).
        compress: summarise items that do not fit whole.
        kind: keep only items of this kind.
        scope: keep only items in this scope.
        scopes: keep only items in these scopes.
        min_score: drop items scoring below this.
        n_candidates: how many candidates the caller considered (default: ``len(items)``).
        telemetry: an optional recorder; one ``context`` event per call.
        also_relevant: sentences compression keeps as if they held a term of the task
            (one stating the place "Where is Priya based?" asks for: "Location: Millbrook").
    """
    if len(items) != len(scores):
        raise InvalidInputError("items and scores must have the same length")
    budget = ContextBudget.given(budget)
    allowed = merge_scopes(scope, scopes)
    seen: set[str] = set()
    said: set[tuple[str, str]] = set()  # a copy of a passage (a file kept twice) adds nothing
    candidates: list[tuple[SubstrateItem, float]] = []
    for item, score in zip(items, scores, strict=True):
        if item.id in seen or (kind is not None and item.kind != kind):
            continue
        if allowed is not None and item.scope not in allowed:
            continue
        if min_score is not None and score < min_score:
            continue
        seen.add(item.id)
        content = (item.kind, _gist(item_text(item)))
        if content in said:
            continue
        said.add(content)
        candidates.append((item, float(score)))
    packer = _Packer(task, budget, compress, also_relevant)
    packer.run(candidates)
    packet = ContextPacket(
        task=task,
        items=packer.items,
        scores=packer.scores,
        budget=budget,
        used_chars=packer.rendered_length(),
        n_candidates=len(candidates) if n_candidates is None else n_candidates,
        texts=packer.texts,
        sources=packer.sources,
        compressed=packer.compressed,
        skipped=packer.skipped,
        best_left_out=packer.best_left_out,
    )
    emit(
        telemetry,
        "context",
        features={
            "budget_chars": budget.char_limit,
            "max_items": budget.max_items,
            "shape": budget.shape,
            "n_candidates": packet.n_candidates,
        },
        choice=[i.id for i in packet.items],
        outcome={
            "n_selected": len(packet),
            "used_chars": packet.used_chars,
            "compressed": packet.compressed,
            "compression_ratio": packet.compression_ratio,
        },
    )
    return packet


def assemble_context(
    substrate: Substrate,
    task: str,
    *,
    budget: ContextBudget | None = None,
    kind: str | tuple[str, ...] | None = None,
    scope: str | None = None,
    scopes: Iterable[str] | None = None,
    compress: bool = False,
    min_score: float | None = None,
    relevant_only: bool = False,
    telemetry: Recorder | None = None,
) -> ContextPacket:
    """Assemble the best-affordable ``ContextPacket`` for ``task`` from ``substrate``.

    One ranked search (``2 * max_items`` deep, at least 8), then ``pack_context``. A note a
    newer one replaced is passed over for the newer one, as ``ask`` passes it over
    (``passed_over``). The rendered packet never exceeds the budget; when not even the most
    relevant item fits, the packet is empty while ``n_candidates`` says how many there were.

    Args:
        substrate: the shard to search.
        task: what the packet is for.
        budget: the receiver's budget (default ``ContextBudget()``).
        kind: only items of this kind (or of any of these kinds).
        scope: only items in this scope.
        scopes: the scopes the caller may read (None: all).
        compress: summarise items that do not fit whole.
        min_score: drop hits scoring below this.
        relevant_only: also drop the hits ``ask`` would not take as evidence: under a third of
            the best score, or under ``min_score`` (default 0.1). A budget is then left unused
            rather than filled with side matches.
        telemetry: an optional recorder; one ``context`` event per call.
    """
    budget = ContextBudget.given(budget)
    hits = ranked(
        substrate,
        task,
        max(2 * budget.max_items, 8),
        kind=kind,
        scopes=merge_scopes(scope, scopes),
    )
    if relevant_only and hits:
        floor = relevance_floor(hits[0][1], NOISE_FLOOR if min_score is None else min_score)
        hits = [(item, score) for item, score in hits if score >= floor]
    items, scores, passed_over = _in_force(substrate, task, hits, kind, merge_scopes(scope, scopes))
    packet = pack_context(
        task,
        items,
        scores,
        budget=budget,
        compress=compress,
        min_score=min_score,
        telemetry=telemetry,
    )
    packet.passed_over = passed_over
    return packet


@dataclass
class ReceiverProfile:
    """A named receiver and what it can take."""

    name: str
    max_chars: int = 2000
    max_items: int = 20
    shape: str = "passages"
    compress: bool = False

    def to_budget(self) -> ContextBudget:
        return ContextBudget(self.max_chars, self.max_items, self.shape)


def assemble_for_receivers(
    substrate: Substrate,
    task: str,
    receivers: Iterable[ReceiverProfile],
    *,
    kind: str | None = None,
    scope: str | None = None,
    scopes: Iterable[str] | None = None,
    telemetry: Recorder | None = None,
) -> dict[str, ContextPacket]:
    """One packet per receiver from a single search (a repeated name: the last one wins)."""
    allowed = merge_scopes(scope, scopes)  # (first: scopes given as one string are refused)
    profiles = list(receivers)
    if not profiles:
        return {}
    depth = max(max(2 * p.max_items for p in profiles), 8)
    hits = ranked(substrate, task, depth, kind=kind, scopes=allowed)
    items, scores, passed_over = _in_force(substrate, task, hits, kind, allowed)
    packets = {}
    for p in profiles:
        packet = pack_context(
            task,
            items[: max(2 * p.max_items, 8)],
            scores[: max(2 * p.max_items, 8)],
            budget=p.to_budget(),
            compress=p.compress,
            telemetry=telemetry,
        )
        packet.passed_over = passed_over
        packets[p.name] = packet
    return packets


def _in_force(
    substrate: Substrate,
    task: str,
    hits: list[tuple[SubstrateItem, float]],
    kind: str | tuple[str, ...] | None,
    allowed: frozenset[str] | None,
) -> tuple[list[SubstrateItem], list[float], list[SubstrateItem]]:
    """The hits' items and scores with the notes a newer one replaced passed over for it, as
    ``ask`` takes evidence (a replaced note packed unmarked reads as current), and those
    passed over."""
    items, scores = [i for i, _ in hits], [s for _, s in hits]
    kept = in_force(substrate, task, items, scores, scopes=allowed, asked_of=identifiers(task))
    kinds = (kind,) if isinstance(kind, str) else kind  # (a successor is a note)
    pairs = [
        (i, s) for i, s in zip(kept.items, kept.scores, strict=True) if not kinds or i.kind in kinds
    ]
    return [i for i, _ in pairs], [s for _, s in pairs], kept.passed_over


def _gist(text: str) -> str:
    """``text`` in small letters, its spacing and the marks that end its sentences and clauses
    aside: two passages alike but for those ("... take 14 days." and "... take 14 days!") say
    the same, once. Signs are kept: "€500" is not "$500", nor "> 200" "< 200"."""
    return " ".join(_STOPS.sub(" ", text.casefold()).split())


_STOPS = re.compile(r"[.!?;:,…]+(?=\s|$)")


class _Packer:
    """Greedy packing with exact accounting of the rendered length."""

    def __init__(
        self, task: str, budget: ContextBudget, compress: bool, also_relevant: Relevant | None
    ) -> None:
        self.task = task
        self.also_relevant = also_relevant
        self.budget = budget
        self.compress = compress
        self.limit = budget.char_limit
        self.frame = render.frame(safe_text(task), budget.format, budget.shape, limit=self.limit)
        self.items: list[SubstrateItem] = []
        self.scores: list[float] = []
        self.texts: list[str] = []
        self.sources: list[str | None] = []  # as the pieces name them
        self.pieces: list[str] = []
        self.said: set[str] = set()  # the ``_gist`` of each text packed
        self.used = self.frame.fixed if self.frame is not None else 0
        self.skipped = 0
        self.best_left_out = False  # the first candidate did not fit
        self.compressed = False  # an item's text was shortened to fit (``_widen``)

    def rendered_length(self) -> int:
        if self.frame is None:
            return 0
        return len(render.join(self.frame, self.pieces))

    def run(self, candidates: list[tuple[SubstrateItem, float]]) -> None:
        if self.frame is None:  # not even the header fits
            self.skipped = len(candidates)
            self.best_left_out = bool(candidates)
            return
        # named among all the candidates: a packed subset reads no longer (``shown_sources``)
        names = shown_sources([item for item, _ in candidates])
        # Each item's share of the room, set once: the room a short item leaves goes to the
        # items ranked above the others at the end (``_widen``), not to the next in line,
        # which would cut the best item to its share and give lower ones theirs and more.
        even = self._share(self.limit - self.used, min(self.budget.max_items, len(candidates)))
        for pos, ((item, score), source) in enumerate(zip(candidates, names, strict=True)):
            if len(self.items) >= self.budget.max_items:
                break
            sep = len(self.frame.sep) if self.items else 0
            room = self.limit - self.used - sep
            # what is left shared across the items still to place, so compression fits more
            # sources; no more than the share set at the start
            left = min(self.budget.max_items - len(self.items), len(candidates) - pos)
            share = min(even, self._share(room, left))
            if not self.items:  # the best most likely holds the answer: whole, or more of it
                share = max(share, room // BEST_ITEM_PART)
            full = used_text(item, self.task, self.budget.shape)
            if not full.strip():  # nothing to give (an item found by its tags alone)
                self.skipped += 1
                continue
            placed = self._place(item, source, full, room, share, n=len(self.items) + 1)
            if placed is None:  # no room for it
                self.skipped += 1
                if pos == 0:
                    self.best_left_out = True
                continue
            text, piece = placed
            gist = _gist(text)
            if gist in self.said:
                continue  # its summary is one packed already (near copies of one note)
            self.said.add(gist)
            self.items.append(item)
            self.scores.append(score)
            self.texts.append(text)
            self.sources.append(source)
            self.pieces.append(piece)
            self.used += sep + len(piece)
        self._widen()

    def _share(self, room: int, places: int) -> int:
        """What each of ``places`` items gets of ``room``, the separators between them left
        out."""
        assert self.frame is not None
        places = max(places, 1)
        return (room - len(self.frame.sep) * (places - 1)) // places

    def _widen(self) -> None:
        """Give the room left over to the items cut to their share, best first: the items
        their shares were kept for may not have fitted after all, or needed less."""
        for at, item in enumerate(self.items):
            full = used_text(item, self.task, self.budget.shape)
            spare = self.limit - self.used
            if self.texts[at] != full and spare > 0:
                piece = self.pieces[at]
                room = len(piece) + spare
                placed = self._place(item, self.sources[at], full, room, room, n=at + 1)
                if placed is not None and len(placed[1]) > len(piece):
                    self.texts[at], self.pieces[at] = placed
                    self.used += len(placed[1]) - len(piece)
            self.compressed = self.compressed or self.texts[at] != full

    def _place(
        self, item: SubstrateItem, source: str | None, full: str, room: int, share: int, n: int
    ) -> tuple[str, str] | None:
        """The text and rendered piece of ``item`` (whose text is ``full``, named ``source``,
        numbered ``n``) in ``room`` characters, compressed to its ``share`` of them; None when it
        cannot fit."""
        assert self.frame is not None
        fmt, shape = self.budget.format, self.budget.shape
        whole = render.piece(item, full, n, fmt, shape, source)
        if not self.compress:
            return (full, whole) if len(whole) <= room else None
        overhead = len(render.piece(item, "", n, fmt, shape, source))
        allowance = min(room, max(share, overhead + MIN_SUMMARY))
        if len(whole) <= allowance:
            return full, whole
        # The share may be shorter than the item's most relevant sentence; cutting that sentence
        # mid-way loses the point of the item, so it may take more than its share when it fits
        # whole (cut anyway, it would only starve the items after it).
        lead = len(lead_sentence(full, self.task, self.also_relevant))
        whole_lead = lead if lead <= room - overhead else 0
        text_room = max(allowance - overhead, whole_lead)
        allowance = max(allowance, min(room, text_room + overhead))
        for _ in range(4):  # escaping can lengthen a summary; shrink by the overflow and retry
            if text_room < min(MIN_SUMMARY, len(full)):
                return None
            summary = compress_text(full, self.task, text_room, self.also_relevant)
            if not summary:
                return None
            piece = render.piece(item, summary, n, fmt, shape, source)
            if len(piece) <= allowance:
                return summary, piece
            text_room -= len(piece) - allowance
        return None
