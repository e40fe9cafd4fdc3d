"""Lineage: does every link of an item, followed transitively, lead to an item that exists?

``verify_lineage`` walks one item's links breadth first, so ``depth`` is the shortest distance to
the farthest ancestor. ``audit_substrate`` answers the same question for every item in one pass
over the shard: it builds the link graph once, condenses its cycles (Tarjan's algorithm) and
works out each item's dangling ancestors once per cycle, so the sweep is linear in the size of
the shard instead of one walk per item.

For a reader limited to some scopes, a link to an item outside them is hidden: it is not counted,
followed or named, exactly as if the item carrying it did not hold it. Such a reader cannot tell
an item of another team from one that exists nowhere (telling them apart would reveal that the
other team's item exists), so a link to a missing item is hidden from it too: dangling links are
reported to readers who see every scope.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from substrate.errors import InvalidInputError, scope_set
from substrate.item import SubstrateItem
from substrate.spaces import visible_item

if TYPE_CHECKING:
    from substrate.store import Substrate

_EMPTY: frozenset[str] = frozenset()
# A link graph read: each item's links as the indexes of the items they lead to, and the ids
# they lead to that no item is (``LinkGraph.resolve``)
_Resolved = tuple[list[list[int]], list[frozenset[str]]]


@dataclass
class LineageReport:
    """Whether an item's links resolve end to end, and where they break if they don't."""

    item_id: str
    intact: bool
    n_links: int
    dangling: list[str] = field(default_factory=list)
    depth: int = 0
    visited: int = 0
    # dangling id -> the item whose link it is (the root or an item it leads to); not part of
    # the seed's as_dict
    held_by: dict[str, str] = field(default_factory=dict)
    # links of the items at ``max_depth`` that lead on, not followed: "intact" holds that far
    unfollowed: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The report's six seed fields as plain data (``held_by`` and ``unfollowed`` left out)."""
        return {
            "item_id": self.item_id,
            "intact": self.intact,
            "n_links": self.n_links,
            "dangling": list(self.dangling),
            "depth": self.depth,
            "visited": self.visited,
        }


def verify_lineage(
    substrate: Substrate,
    item_id: str,
    *,
    max_depth: int = 20,
    scopes: Collection[str] | None = None,
    own_scope: str | None = None,
) -> LineageReport:
    """Walk ``item_id``'s links breadth first, reporting dangling links and the depth reached.

    Each item is visited once (cycles are safe). The links of items at ``max_depth`` are
    checked (a dangling one is reported) but not followed: ``unfollowed`` counts those that
    lead on. ``n_links`` counts every link checked (the unresolved links of the reader's own
    items as one) and ``visited`` includes the root. A
    missing root gives ``intact=False`` with the root itself as dangling.

    Args:
        substrate: the shard.
        item_id: where to start.
        max_depth: how many links deep to follow.
        scopes: the scopes the reader may see (None: all); other items are hidden.
        own_scope: the reader's own scope, whose items it wrote: a link of one of them to an
            item the reader cannot see is reported as ``UNRESOLVED`` (removed, or moved out
            of sight: the two look alike, so nothing is told of a hidden item). Without it,
            a reader with ``scopes`` is told of no link it cannot follow, even to an item
            removed: give it to find the broken links of the reader's own items.
    """
    if not isinstance(item_id, str):
        raise InvalidInputError(f"an item id is a string, not {type(item_id).__name__}")
    scopes = scope_set(scopes)
    root = visible_item(substrate, item_id, scopes)
    if root is None:
        return LineageReport(item_id, False, 0, [item_id], 0, 0)
    depth_of = {root.id: 0}
    queue: deque[tuple[SubstrateItem, int]] = deque([(root, 0)])
    dangling: dict[str, str] = {}  # -> the item holding the link
    n_links = 0
    deepest = 0
    unfollowed = 0
    while queue:
        item, depth = queue.popleft()
        expand = depth < max_depth
        for target in item.links:
            if not isinstance(target, str):
                continue
            if target in depth_of:
                n_links += 1
                continue
            found = substrate.peek(target)  # read to walk on, not kept
            if found is None and scopes is None:
                n_links += 1
                dangling.setdefault(target, item.id)
            elif found is not None and _in_sight(found, scopes):
                n_links += 1
                if not expand:  # past the depth asked for: checked, not followed
                    unfollowed += 1
                    continue
                depth_of[target] = depth + 1
                deepest = max(deepest, depth + 1)
                queue.append((found, depth + 1))
            elif own_scope is not None and item.scope == own_scope:
                # counted once, as it is reported once: how many there are would tell of them
                n_links += UNRESOLVED not in dangling
                dangling.setdefault(UNRESOLVED, item.id)
    return LineageReport(
        item_id=root.id,
        intact=not dangling,
        n_links=n_links,
        dangling=list(dangling),
        depth=deepest,
        visited=len(depth_of),
        held_by=dangling,
        unfollowed=unfollowed,
    )


def _in_sight(item: SubstrateItem | None, scopes: Collection[str] | None) -> bool:
    return item is not None and (scopes is None or item.scope in scopes)


# How a reader's own item's link to an item it cannot see is reported: removed, or moved to a
# scope it cannot read. Only the reader's own items are told of (it wrote them); which of the
# two it is, and the id, are not (either would tell of a hidden item).
UNRESOLVED = "(an item removed, or in a scope you cannot read)"


class LinkGraph:
    """The link graph of the items a reader sees, built item by item in one pass."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.index: dict[str, int] = {}
        self.links: list[tuple[str, ...]] = []
        self.audited: list[bool] = []
        self.own: list[bool] = []

    def add(self, item: SubstrateItem, *, audited: bool = True, own: bool = False) -> None:
        """Record ``item``; ``audited=False`` makes it resolvable but not reported on; ``own``:
        it is in the reader's own scope (a link to what the reader cannot see is
        ``UNRESOLVED``)."""
        self.index[item.id] = len(self.ids)
        self.ids.append(item.id)
        self.links.append(tuple(link for link in item.links if isinstance(link, str)))
        self.audited.append(audited)
        self.own.append(own)

    def audit(self, resolved: _Resolved) -> dict[str, Any]:
        """``{n_items, n_intact, n_broken, broken: [{item_id, dangling}]}`` over audited items
        of the graph as ``resolve`` read it."""
        succ, direct = resolved
        closure = _dangling_closure(succ, direct)
        broken = [
            {"item_id": self.ids[i], "dangling": sorted(closure[i])}
            for i in range(len(self.ids))
            if self.audited[i] and closure[i]
        ]
        n_items = sum(self.audited)
        return {
            "n_items": n_items,
            "n_intact": n_items - len(broken),
            "n_broken": len(broken),
            "broken": broken,
        }

    def nearest_holders(self, resolved: _Resolved) -> dict[str, dict[str, str]]:
        """For each item that leads to a dangling id, and each such id, the item nearest to
        it (itself, or one reached through its links, as ``verify_lineage`` names it) whose
        own link that is, in the graph as ``resolve`` read it. ``UNRESOLVED`` is named by no
        id, so held by none.

        One breadth-first walk back along the links from each dangling id's holders: an item
        is reached once per id it leads to, so the work is the size of the answer (naming
        every holder each item leads to was quadratic in a link many items hold).
        """
        succ, direct = resolved
        preds: list[list[int]] = [[] for _ in succ]
        for i, targets in enumerate(succ):
            for j in targets:
                preds[j].append(i)
        holders: dict[str, list[int]] = {}
        for i, missing in enumerate(direct):
            for target in missing - {UNRESOLVED}:
                holders.setdefault(target, []).append(i)
        nearest: dict[str, dict[str, str]] = {}
        for target, first in holders.items():
            held = {i: i for i in first}
            queue = deque(first)
            while queue:
                v = queue.popleft()
                for u in preds[v]:
                    if u not in held:
                        held[u] = held[v]
                        queue.append(u)
            for i, holder in held.items():
                nearest.setdefault(self.ids[i], {})[target] = self.ids[holder]
        return nearest

    def resolve(self, sees_every_scope: bool) -> _Resolved:
        """Each item's links as the indexes of the items they lead to, and the ids they lead
        to that no item is.

        Args:
            sees_every_scope: whether the graph holds every item. Then a link to an id not in
                it is dangling; otherwise it is hidden (another team's item or a missing one:
                the reader must not tell them apart), and ``UNRESOLVED`` in the reader's own
                items.
        """
        succ: list[list[int]] = []
        direct: list[frozenset[str]] = []
        index = self.index
        for links, own in zip(self.links, self.own, strict=True):
            targets: list[int] = []
            missing: list[str] = []
            for target in links:
                j = index.get(target)
                if j is not None:
                    targets.append(j)
                    continue
                if sees_every_scope:
                    missing.append(target)
                elif own:
                    missing.append(UNRESOLVED)
            succ.append(targets)
            direct.append(frozenset(missing) if missing else _EMPTY)
        return succ, direct


def _dangling_closure(succ: list[list[int]], direct: list[frozenset[str]]) -> list[frozenset[str]]:
    """For every node, the dangling ids reachable from it (Tarjan SCCs, iteratively).

    Strongly connected components come out in reverse topological order, so each component's
    answer is the union of its members' own dangling links and its successors' finished answers.
    Unions are shared when a component adds nothing new, which keeps long chains linear.
    """
    n = len(succ)
    order = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    done = [False] * n
    result: list[frozenset[str]] = [_EMPTY] * n
    stack: list[int] = []
    counter = 0
    for start in range(n):
        if order[start] != -1:
            continue
        order[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack[start] = True
        work = [(start, 0)]
        while work:
            v, i = work[-1]
            children = succ[v]
            if i < len(children):
                work[-1] = (v, i + 1)
                w = children[i]
                if order[w] == -1:
                    order[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w] and order[w] < low[v]:
                    low[v] = order[w]
                continue
            work.pop()
            if work:
                u = work[-1][0]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] != order[v]:
                continue
            members: list[int] = []
            while True:
                w = stack.pop()
                on_stack[w] = False
                members.append(w)
                if w == v:
                    break
            combined = _union(
                [direct[m] for m in members]
                + [result[w] for m in members for w in succ[m] if done[w]]
            )
            for m in members:
                result[m] = combined
                done[m] = True
    return result


def _union(parts: Iterable[frozenset[str]]) -> frozenset[str]:
    distinct: dict[int, frozenset[str]] = {}
    for part in parts:
        if part:
            distinct.setdefault(id(part), part)
    if not distinct:
        return _EMPTY
    if len(distinct) == 1:
        return next(iter(distinct.values()))
    first, *rest = distinct.values()
    merged = first.union(*rest)
    # Reuse an existing set when the union added nothing, so chains share one object.
    for part in distinct.values():
        if len(part) == len(merged):
            return part
    return merged


def audit_substrate(
    substrate: Substrate,
    *,
    scope: str | None = None,
    scopes: Collection[str] | None = None,
    own_scope: str | None = None,
) -> dict[str, Any]:
    """A knowledge-integrity sweep: how many items have intact lineage, and every broken one.

    Links resolve across the whole of what the reader sees, not only ``scope``. Unlike one
    ``verify_lineage`` per item, there is no depth limit: a dangling link any number of links
    away breaks every item that leads to it.

    Args:
        substrate: the shard.
        scope: audit only the items of this scope.
        scopes: the scopes the reader may see (None: all).
        own_scope: the reader's own scope (see ``verify_lineage``).

    Returns:
        ``{"n_items", "n_intact", "n_broken", "broken": [{"item_id", "dangling"}]}``.
    """
    return audit_with_holders(substrate, scope=scope, scopes=scopes, own_scope=own_scope)[0]


def audit_with_holders(
    substrate: Substrate,
    *,
    scope: str | None = None,
    scopes: Collection[str] | None = None,
    own_scope: str | None = None,
) -> tuple[dict[str, Any], dict[str, dict[str, str]]]:
    """``audit_substrate``'s report, and its graph's ``nearest_holders``."""
    graph = LinkGraph()
    for item in substrate.iter_items(scopes=scopes):
        audited = scope is None or item.scope == scope
        graph.add(item, audited=audited, own=own_scope is not None and item.scope == own_scope)
    resolved = graph.resolve(sees_every_scope=scopes is None)
    return graph.audit(resolved), graph.nearest_holders(resolved)
