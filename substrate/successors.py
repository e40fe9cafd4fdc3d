"""Evidence in force: the notes a newer note replaced passed over, and the newer notes their
front matter names brought in.

``current_evidence`` passes over a note whose ``superseded_by`` names its successor, wherever
that one is. When the successor is not in the evidence (a search for the question's words did
not find it: "Move the ledger to CockroachDB" says no "database"), an answer was taken from what
was left, however weakly it matched ("If the database connection pool is exhausted, ...").
``in_force`` looks each named successor up, as a link to it is followed, for the reader's
scopes only, and puts its passages in the place of the note it replaced. It tells which notes
were replaced and which items replaced them: an answer citing none of those, from a source
that matched the question less than an old note did, answers what was decided against.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, NamedTuple

from substrate.item import SubstrateItem
from substrate.notelinks import named_note
from substrate.supersession import (
    current_evidence,
    replaced_notes,
    replacing_notes,
    successor_names,
)

if TYPE_CHECKING:
    from substrate.store import Substrate

# Successors of successors looked up at most this many times (a chain adr-001 -> 002 -> 004
# whose middle note the search did not find either)
MAX_ROUNDS = 3
# Passages of a successor brought in: a decision record's status, context and decision
SUCCESSOR_ITEMS = 3


class InForce(NamedTuple):
    items: list[SubstrateItem]  # the evidence kept, with successors brought in
    scores: list[float]
    passed_over: list[SubstrateItem]  # replaced notes and outdated copies
    replaced: frozenset[str]  # the ids of those a newer note replaced (not copies)
    successors: frozenset[str]  # the ids of the kept items that replaced one passed over


def in_force(
    substrate: Substrate,
    query: str,
    items: Sequence[SubstrateItem],
    scores: Sequence[float],
    *,
    scopes: frozenset[str] | None,
    asked_of: Collection[str] = (),
) -> InForce:
    """``current_evidence`` of ``items`` (with their ``scores``) once the successors the
    replaced notes name are among them: up to ``SUCCESSOR_ITEMS`` passages of each, those
    ``query`` fits first, at the score of the note it replaced, unless a passage of that note
    is there already."""
    pairs = list(zip(items, scores, strict=True))
    confined = scopes is not None  # read as a team: a note retires only its team's (may_retire)
    looked_up: set[tuple[str, str]] = set()
    for _ in range(MAX_ROUNDS):
        _, _, retired = current_evidence(*_unzipped(pairs), asked_of=asked_of, confined=confined)
        gone = {item.id for item in retired}
        present = {_file_of(item) for item, _ in pairs} | {item.id for item, _ in pairs}
        grown: list[tuple[SubstrateItem, float]] = []
        for item, score in pairs:
            grown.append((item, score))
            if item.id not in gone:
                continue
            for name in successor_names(item):
                key = (_file_of(item), name)
                if key in looked_up:
                    continue
                looked_up.add(key)
                newer = named_note(substrate, item, name, query, scopes, SUCCESSOR_ITEMS)
                if newer and _file_of(newer[0]) not in present:
                    present |= {_file_of(newer[0])} | {n.id for n in newer}
                    grown.extend((n, score) for n in newer)
        if len(grown) == len(pairs):
            break
        pairs = grown
    kept, kept_scores, retired = current_evidence(
        *_unzipped(pairs), asked_of=asked_of, confined=confined
    )
    # (of the notes replaced: an older copy of a passage is outranked by its newer content)
    items = [item for item, _ in pairs]
    replaced = {item.id for item in retired} & replaced_notes(items, confined=confined).keys()
    successors = frozenset(replacing_notes(items, confined=confined))
    ranked = _in_their_place(pairs, list(zip(kept, kept_scores, strict=True)), replaced, successors)
    return InForce(*_unzipped(ranked), retired, frozenset(replaced), successors)


def _in_their_place(
    pairs: list[tuple[SubstrateItem, float]],
    kept: list[tuple[SubstrateItem, float]],
    replaced: set[str],
    successors: frozenset[str],
) -> list[tuple[SubstrateItem, float]]:
    """``kept`` (of ``pairs``, in order) with the ``successors`` found after the first of the
    notes ``replaced`` moved to its place, at its score: the note in force ranks as the one
    it replaced did (found by the question's words), not as a side match."""
    first = next((n for n, (item, _) in enumerate(pairs) if item.id in replaced), None)
    if first is None:
        return kept
    before = {item.id for item, _ in pairs[:first]}
    score = pairs[first][1]
    moved = [(i, max(s, score)) for i, s in kept if i.id in successors and i.id not in before]
    stay = [(i, s) for i, s in kept if not (i.id in successors and i.id not in before)]
    at = sum(1 for item, _ in stay if item.id in before)
    return stay[:at] + moved + stay[at:]


def _unzipped(
    pairs: list[tuple[SubstrateItem, float]],
) -> tuple[list[SubstrateItem], list[float]]:
    return [item for item, _ in pairs], [score for _, score in pairs]


def _file_of(item: SubstrateItem) -> str:
    """The file ``item`` was read from (its id when it has none)."""
    prov = item.provenance if isinstance(item.provenance, dict) else {}
    where = prov.get("path") or prov.get("source")
    return where if isinstance(where, str) and where else item.id
