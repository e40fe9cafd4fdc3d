"""Planned multi-hop retrieval: seeds, then link hops and content hops, with evidence paths.

Hops never leave the caller's visible scopes. A link to an item the caller cannot read is
treated exactly like a link to nothing: it is not followed, returned, counted against the branch
limit, or reported. Results are deterministic for the same shard and query: frontiers are walked
in chain order and every sort is stable.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from substrate.bridging import bridge_query
from substrate.context.packet import item_text
from substrate.errors import require_count, require_number, require_text
from substrate.item import SubstrateItem, facts_of
from substrate.notelinks import linked_notes
from substrate.retrieval import lines_of, merge_scopes, ranked, shown_sources
from substrate.search.tokenize import item_surface
from substrate.secrets import masked_repr, safe_text
from substrate.telemetry import Recorder, emit
from substrate.visibility import reader_view

if TYPE_CHECKING:
    from substrate.context import ContextPacket
    from substrate.store import Substrate

log = logging.getLogger(__name__)

# A content hop searches with the frontier item's text; long texts are cut to their opening
# words, which keeps each hop's query (and its cost) bounded while still naming the topic.
CONTENT_QUERY_WORDS = 48
# An entity hop goes on from at most this many names of a graph item per branch taken: one of
# thousands of triples would cost a search for each of its names
ENTITY_NAMES = 4


@dataclass
class HopStep:
    """One item in the chain and how it was reached."""

    __repr__ = masked_repr  # how it was reached may quote the question

    item: SubstrateItem
    depth: int
    via: str
    parent_id: str | None
    score: float = 0.0


@dataclass
class HopChain:
    """A multi-hop retrieval result: the items found and the evidence path to each."""

    __repr__ = masked_repr  # a secret typed in is not printed back

    query: str
    steps: list[HopStep] = field(default_factory=list)

    @property
    def items(self) -> list[SubstrateItem]:
        """The items reached, in the order they were reached."""
        return [s.item for s in self.steps]

    def by_depth(self) -> dict[int, list[SubstrateItem]]:
        """The items grouped by the hop that reached them (0: the seeds), in step order."""
        out: dict[int, list[SubstrateItem]] = {}
        for s in self.steps:
            out.setdefault(s.depth, []).append(s.item)
        return out

    def max_depth(self) -> int:
        """The deepest hop any item was reached at (0 for an empty chain)."""
        return max((s.depth for s in self.steps), default=0)

    def step(self, item_id: str) -> HopStep | None:
        """The step that reached ``item_id``, or None."""
        for s in self.steps:
            if s.item.id == item_id:
                return s
        return None

    def path_to(self, item_id: str, by_id: dict[str, HopStep] | None = None) -> list[SubstrateItem]:
        """The evidence chain from a seed to ``item_id`` ([] for an unknown id); ``by_id``,
        the steps by item id, when the caller has it (asked for every step, working it out
        each time made a chain's cost grow with the square of its steps)."""
        if by_id is None:
            by_id = self._by_id()
        path: list[SubstrateItem] = []
        seen: set[str] = set()
        current = by_id.get(item_id)
        while current is not None and current.item.id not in seen:
            seen.add(current.item.id)
            path.append(current.item)
            current = by_id.get(current.parent_id) if current.parent_id else None
        return path[::-1]

    def provenance(self) -> list[dict[str, Any]]:
        """Each step: id, kind, depth, how it was reached, its parent, score, source and lines."""
        names = shown_sources([s.item for s in self.steps])
        return [
            {
                "id": s.item.id,
                "kind": s.item.kind,
                "depth": s.depth,
                "via": s.via,
                "parent": s.parent_id,
                "score": round(float(s.score), 4),
                "source": name,
                "line_start": lines_of(s.item)[0],
                "line_end": lines_of(s.item)[1],
            }
            for s, name in zip(self.steps, names, strict=True)
        ]

    def to_context(self, task: str | None = None, **assemble_kw: Any) -> ContextPacket:
        """Pack the chain's items, in chain order, reusing their scores (no new search)."""
        from substrate.context import pack_context

        return pack_context(
            task or self.query, self.items, [s.score for s in self.steps], **assemble_kw
        )

    def _by_id(self) -> dict[str, HopStep]:
        return {s.item.id: s for s in self.steps}

    def as_dict(self) -> dict[str, Any]:
        """The chain as plain data: the query (secrets masked), its size and depth, and each
        step's provenance with the path of ids that leads to it."""
        steps = self.provenance()
        by_id = self._by_id()
        for entry in steps:
            entry["path"] = [i.id for i in self.path_to(entry["id"], by_id)]
        return {
            "query": safe_text(self.query),  # a secret typed in is not given back
            "n": len(self.steps),
            "max_depth": self.max_depth(),
            "steps": steps,
        }

    def __len__(self) -> int:
        return len(self.steps)


def multihop(
    substrate: Substrate,
    query: str,
    *,
    max_hops: int = 2,
    seeds: int = 3,
    branch: int = 2,
    max_items: int = 12,
    min_score: float = 0.0,
    min_relative: float = 0.0,
    scope: str | None = None,
    scopes: Iterable[str] | None = None,
    telemetry: Recorder | None = None,
) -> HopChain:
    """Chain hops from ``query`` across the substrate, recording the evidence path.

    Args:
        substrate: the shard to search.
        query: where to start.
        max_hops: how many hops out from the seeds.
        seeds: how many top matches start the chain (depth 0).
        branch: how many new neighbours each frontier item may add per hop, per hop type.
        max_items: cap on the chain's size.
        min_score: seed and content hops must score strictly above this; link hops are
            explicit edges and are always followed (within the visible scopes).
        min_relative: seed and content hops must also score at least this fraction of the
            best seed's score (0 disables it), so side matches do not enter the chain.
        scope: restrict to one access scope.
        scopes: the scopes the caller may read (None: all).
        telemetry: an optional recorder; one ``reason`` event per call.
    """
    require_count(max_hops, "max_hops")
    for name, value in (("seeds", seeds), ("branch", branch), ("max_items", max_items)):
        require_count(value, name, minimum=1)  # 0 would give an empty or seeds-only chain
    require_number(min_score, "min_score")
    require_number(min_relative, "min_relative")
    require_text(query, "a query")
    allowed = merge_scopes(scope, scopes)
    chain = HopChain(query)
    seen: set[str] = set()

    def add(item: SubstrateItem, depth: int, via: str, parent: str | None, score: float) -> None:
        seen.add(item.id)
        chain.steps.append(HopStep(item, depth, via, parent, float(score)))

    seed_hits = ranked(substrate, query, seeds, scopes=allowed)
    floor = min_relative * max((score for _, score in seed_hits), default=0.0)

    def relevant(score: float) -> bool:
        return score > min_score and score >= floor

    for item, score in seed_hits:
        if len(chain) >= max_items:
            break
        if relevant(score) and item.id not in seen:
            add(item, 0, "seed", None, score)
    frontier = list(chain.steps)
    walked: set[str] = set()  # the names entity hops went on from (``_shared_entities``)
    for depth in range(1, max_hops + 1):
        if len(chain) >= max_items or not frontier:
            break
        before = len(chain)
        for step in frontier:  # link hops first: explicit edges are the strongest evidence
            for target in _visible_links(substrate, step.item, allowed, seen, branch, query):
                if len(chain) >= max_items:
                    break
                add(target, depth, "link", step.item.id, 1.0)
        for step in frontier:  # then the facts that go on from a fact's names
            for target in _shared_entities(substrate, step.item, allowed, seen, branch, walked):
                if len(chain) >= max_items:
                    break
                add(target, depth, "entity", step.item.id, 1.0)
        for step in frontier:
            if len(chain) >= max_items:
                break
            text = _content_query(step.item, query)
            if not text:
                continue
            added = 0
            # the seen left unread: each search of a long walk read all the walk had met
            for item, score in ranked(substrate, text, branch, scopes=allowed, skip=seen):
                if added >= branch or len(chain) >= max_items:
                    break
                if item.id in seen or not relevant(score):
                    continue
                add(item, depth, "content", step.item.id, score)
                added += 1
        if len(chain) == before:
            break
        frontier = chain.steps[before:]
    emit(
        telemetry,
        "reason",
        features={"action": "multihop", "max_hops": max_hops},
        choice=[i.id for i in chain.items],
        outcome={"n": len(chain), "reached_depth": chain.max_depth()},
    )
    return chain


def _visible_links(
    substrate: Substrate,
    item: SubstrateItem,
    allowed: frozenset[str] | None,
    seen: set[str],
    branch: int,
    query: str,
) -> list[SubstrateItem]:
    """Up to ``branch`` unseen, existing, visible link targets of ``item``, in link order:
    its item links, then the notes it links to (``notelinks``: for each, its item that
    best fits ``query``)."""
    found: list[SubstrateItem] = []
    for target_id in dict.fromkeys(item.links):
        if len(found) >= branch:
            break
        if not isinstance(target_id, str) or target_id in seen:
            continue
        target = substrate.get(target_id)
        if target is None or (allowed is not None and target.scope not in allowed):
            continue  # dangling or invisible: indistinguishable, and never reported
        found.append(target if allowed is None else reader_view(substrate, target, allowed))
    if len(found) < branch:
        taken = seen | {target.id for target in found}
        found += linked_notes(substrate, item, query, allowed, taken, branch - len(found))
    return found


def _shared_entities(
    substrate: Substrate,
    item: SubstrateItem,
    allowed: frozenset[str] | None,
    seen: set[str],
    branch: int,
    walked: set[str],
) -> list[SubstrateItem]:
    """Up to ``branch`` unseen, visible graph items with a triple that starts or ends at a
    name ``item``'s triples end or start at: (INC-101, affected, billing-api) goes on to
    (billing-api, owned_by, Payments team). A fact's names are explicit edges, as links
    are; tails first (the way the facts read), each name gone on from once (``walked``)."""
    found: list[SubstrateItem] = []
    for name in _names_of(item)[: ENTITY_NAMES * branch]:
        if len(found) >= branch:
            break
        if name in walked:
            continue
        walked.add(name)
        taken = seen | {target.id for target in found}
        for target, _ in ranked(substrate, name, branch, kind="graph", scopes=allowed, skip=taken):
            if len(found) < branch and name in _names_of(target):
                found.append(target)
    return found


def _names_of(item: SubstrateItem) -> list[str]:
    """The names a graph item's triples end at, then those they start at (case folded),
    each once; none for another kind of item."""
    facts = facts_of(item)
    names = [str(t[2]) for t in facts] + [str(t[0]) for t in facts]
    return list(dict.fromkeys(name.strip().casefold() for name in names))


def _content_query(item: SubstrateItem, query: str) -> str:
    """What a content hop from ``item`` searches for: where it says part of ``query``, the
    rest of the query with the names it gives (``bridge_query``: the team that owns a
    service leads to that team's page), else its opening words (items on its topic)."""
    if item.kind == "graph":  # its triples as sentences, one of which says most
        surface = item_text(item)
    else:
        surface = item.text or item_surface("", item.payload, ())
    directed = bridge_query(query, surface)
    if directed:
        return directed
    words = surface.split()
    return " ".join(words[:CONTENT_QUERY_WORDS])
