"""Team views over a shared shard, publishing between scopes, versions and merges.

An item's share history lives in its provenance: ``version`` (bumped by every publish and merge)
and ``version_history`` (one entry per publish or merge, never rewritten). Functions that take
``scopes`` act for a reader who sees only those scopes: an item outside them is treated exactly
like a missing one, so a refusal never reveals that it exists.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any

from substrate.errors import (
    AccessDeniedError,
    InvalidInputError,
    NotFoundError,
    scope_names,
    scope_set,
)
from substrate.gate import admit, refuse_non_list, refuse_unfit_names
from substrate.governance import (
    authorize_moving_out,
    authorize_publish,
    authorize_write,
    load_governance,
    require_readable,
)
from substrate.item import SubstrateItem, dict_entries, whole_number
from substrate.secrets import safe_repr
from substrate.visibility import (
    PUBLIC,
    reader_view,
    views_among,
    visible_history,
    visible_scopes,
)

if TYPE_CHECKING:
    from substrate.store import Substrate

log = logging.getLogger(__name__)

__all__ = [
    "PUBLIC",
    "Space",
    "history",
    "merge_versions",
    "publish",
    "version_of",
    "visible_scopes",
]


def version_of(item: Any) -> int:
    """The share version of an item (0 if never published); works on anything with provenance."""
    return whole_number(item.provenance.get("version", 0))


def visible_item(
    substrate: Substrate, item_id: str, scopes: Collection[str] | None
) -> SubstrateItem | None:
    """The item ``item_id`` if it exists and a reader of ``scopes`` (None: all) may see it.

    The stored object, to be changed: its links may name items the reader cannot see. What is
    shown to the reader goes through ``visibility.reader_view`` (as ``Space.get`` does).
    """
    scopes = scope_set(scopes)
    item = substrate.get(item_id)
    if item is None or (scopes is not None and item.scope not in scopes):
        return None
    return item


def require_items(
    substrate: Substrate,
    ids: Iterable[str],
    scopes: Collection[str] | None,
    *,
    undone: str = "",
) -> list[SubstrateItem]:
    """Every item of ``ids`` (in order, de-duplicated), or NotFoundError naming all the missing
    (hidden or made up alike), and ``undone``, what was therefore not done."""
    unique = list(dict.fromkeys(ids))
    found = [(i, visible_item(substrate, i, scopes)) for i in unique]
    missing = [i for i, item in found if item is None]
    if missing:
        said = f"; {undone}" if undone else ""
        raise NotFoundError(f"no item with id {', '.join(missing)}{said}")
    return [item for _, item in found if item is not None]


def _shareable_history(entries: Any) -> list[Any]:
    """History ``entries`` as they are published: without what merged-away items brought
    along that nobody chose to share, the text a merge did not keep (``replaced``) and the
    item's own record (``from_provenance``: its source file, sections, proposals and the
    reasons they were rejected), also in the histories they carried (``from_history``)."""
    if not isinstance(entries, list):
        return []
    out = []
    for entry in entries:
        if isinstance(entry, dict):
            entry = {k: v for k, v in entry.items() if k not in _NOT_SHARED}
            if "from_history" in entry:
                entry["from_history"] = _shareable_history(entry["from_history"])
        out.append(entry)
    return out


_NOT_SHARED = frozenset({"replaced", "from_provenance", "kept_provenance"})


def _without_reasons(prov: dict[str, Any]) -> None:
    """Leave out the ``reason`` of the proposal and of every proposal event in ``prov``."""
    proposal = prov.get("proposal")
    if isinstance(proposal, dict):
        proposal.pop("reason", None)
    events = prov.get("proposals")
    for event in events if isinstance(events, list) else []:
        if isinstance(event, dict):
            event.pop("reason", None)


def published_copy(item: SubstrateItem, *, to: str, by: str | None) -> SubstrateItem:
    """``item`` moved to scope ``to`` with its version bumped and the move recorded.

    The reasons its reviewers gave (a rejection's, a withdrawal's) stay behind: free text
    written for the item's own scope, which may quote what it objects to. Who did what, and
    when, moves with it.
    """
    prov = copy.deepcopy(item.provenance)
    _without_reasons(prov)
    version = version_of(item) + 1
    entries = _shareable_history(prov.get("version_history") or [])
    entries.append(
        {
            "version": version,
            "published_by": by,
            "published_from": item.scope,
            "to": to,
            "at": time.time(),
        }
    )
    prov["version_history"] = entries
    prov["version"] = version
    prov["published_by"] = by
    prov["published_from"] = item.scope
    return SubstrateItem(
        kind=item.kind,
        text=item.text,
        payload=copy.deepcopy(item.payload),
        provenance=prov,
        scope=to,
        tags=list(item.tags),
        links=list(item.links),
        id=item.id,
        created_at=item.created_at,
    )


def publish(
    substrate: Substrate,
    ids: Iterable[str],
    *,
    to: str = PUBLIC,
    by: str | None = None,
    from_scope: str | None = None,
    scopes: Collection[str] | None = None,
    strict: bool = False,
    team: str | None = None,
    shared: Iterable[str] = (PUBLIC,),
    allow_secrets: bool = False,
) -> list[str]:
    """Share items into scope ``to``, bumping each one's version and recording the move.

    Args:
        substrate: the shard.
        ids: the items to publish.
        to: the target scope.
        by: who published (recorded in the history).
        from_scope: only items currently in this scope are published (the owner's guard).
        scopes: the scopes the caller may read; other items count as missing.
        strict: raise instead of skipping. Every id is checked before anything changes, so a
            refusal leaves the shard untouched.
        team: the team the caller reads as, named in a refusal; a team publishes only into
            its own scope or one of ``shared``.
        shared: the scopes every team may read (as ``Space``: public).
        allow_secrets: move an item holding a secret all the same (``without_held_secrets``).

    Returns:
        The ids published, in input order (missing or guarded ids are skipped unless strict).

    Raises:
        NotFoundError: (strict) an id does not exist or is not visible to the caller.
        AccessDeniedError: the caller cannot read ``to``, or ``to`` takes direct publishes
            from its approvers only and ``by`` is not one (strict or not, before any id is
            looked up); (strict) an item is not in ``from_scope``, or holds a secret.
        InvalidInputError: ``to`` is empty, or ``ids`` is not a list of ids.
    """
    if not to or not isinstance(to, str):
        raise InvalidInputError("publish needs a target scope")
    refuse_non_ids(ids)
    refuse_unfit_names(target_scope=to, publisher=by)
    require_readable(to, scopes, team=team, action="publish")
    governance = load_governance(substrate)
    authorize_publish(governance, to=to, by=by, team=team, shared=shared)
    items = owned_items(substrate, ids, scopes, from_scope, strict=strict, action="published")
    authorize_moving_out(governance, items, to=to, by=by, action="publish it")
    if not allow_secrets:
        items = without_held_secrets(items, to=to, action="published", strict=strict)
    from substrate.proposals import withdrawn_by_publish  # (proposals builds on this module)

    for item in items:
        substrate.put(withdrawn_by_publish(published_copy(item, to=to, by=by), by=by))
    return [item.id for item in items]


def without_held_secrets(
    items: list[SubstrateItem], *, to: str, action: str, strict: bool
) -> list[SubstrateItem]:
    """``items`` but those that hold a secret (stored with ``redact=False``, ``--no-redact``,
    or before the scanner knew its kind), which moved into scope ``to`` would be shown to
    every reader of it, where no step of a review shows it to the approver: passed over (said
    in the log), or with ``strict`` refused. Named by rule, never by value.

    Raises:
        AccessDeniedError: (strict) one of ``items`` holds a secret (``action``: "published",
            ...).
    """
    from substrate.secrets import scan_item

    held: dict[str, list[str]] = {}
    for item in items:
        if item.scope != to and (found := scan_item(item).findings):
            held[item.id] = sorted({finding.rule for finding in found})
    if not held:
        return items
    named = "; ".join(f"{item_id} ({', '.join(rules)})" for item_id, rules in held.items())
    refusal = (
        f"not {action}: item(s) holding a secret stored unredacted: {named}; in scope "
        f"{safe_repr(to)} every reader of it would read the secret: add the item again "
        f"redacted, or allow its secrets (--allow-secrets, allow_secrets=True) to have it "
        f"{action} all the same"
    )
    if strict:
        raise AccessDeniedError(refusal)
    log.info("%s", refusal)
    return [item for item in items if item.id not in held]


def owned_items(
    substrate: Substrate,
    ids: Iterable[str],
    scopes: Collection[str] | None,
    from_scope: str | None,
    *,
    strict: bool,
    action: str,
) -> list[SubstrateItem]:
    """The items of ``ids`` (in order, once each) that a reader of ``scopes`` sees and that
    lie in ``from_scope`` (the owner's guard; None: any scope). Others are skipped, or with
    ``strict`` refused before anything changes.

    Raises:
        NotFoundError: (strict) an id does not exist or is not visible.
        AccessDeniedError: (strict) an item is outside ``from_scope``; ``action`` names what
            the refusal was for (``published``, ``proposed``).
        InvalidInputError: ``ids`` is not a list of ids (``refuse_non_ids``).
    """
    refuse_non_ids(ids)
    if strict:
        items = require_items(substrate, ids, scopes)
        foreign = [i.id for i in items if from_scope is not None and i.scope != from_scope]
        if foreign:
            raise AccessDeniedError(
                f"only items in scope {from_scope!r} may be {action}; not {', '.join(foreign)}"
            )
        return items
    found = (visible_item(substrate, i, scopes) for i in dict.fromkeys(ids))
    return [i for i in found if i is not None and from_scope in (None, i.scope)]


def refuse_non_ids(ids: object) -> None:
    """Refuse ``ids`` given as one string (its characters would be taken for ids) or as no
    list at all (None, a number), before any item is looked up."""
    if isinstance(ids, str):
        raise InvalidInputError(f"expected a list of ids, got one string: pass [{safe_repr(ids)}]")
    refuse_non_list(ids, "ids")


def history(
    substrate: Substrate, item_id: str, *, scopes: Collection[str] | None = None
) -> list[dict[str, Any]]:
    """The publish and merge history of an item, oldest first ([] for a missing item)."""
    item = visible_item(substrate, item_id, scopes)
    if item is None:
        return []
    entries = [dict(entry) for entry in dict_entries(item.provenance.get("version_history"))]
    return visible_history(substrate, entries, scopes)


# Whose text a merge keeps: the higher version's, KEEP's, or OTHER's (``merge_versions``)
MERGE_PREFERENCES = ("latest", "keep", "other")


def merge_versions(
    substrate: Substrate,
    keep_id: str,
    other_id: str,
    *,
    by: str | None = None,
    prefer: str = "latest",
    scopes: Collection[str] | None = None,
    strict: bool = False,
) -> str | None:
    """Merge ``other_id`` into ``keep_id``: one item, both lineages kept.

    The text and payload come from the item with the higher version (``prefer="latest"``, ties
    keep ``keep``), always from ``keep`` (``prefer="keep"``) or always from ``other``
    (``prefer="other"``: the newer text under the id that links and citations name). Tags
    and links become the sorted union. The merge entry in the history names both parents and
    carries the merged-away item's own history and provenance, and the text and payload not
    kept (``replaced``), so nothing either side recorded is lost. Links elsewhere that pointed
    at ``other_id`` are re-pointed at ``keep_id`` in the items the merger may change (in
    ``scopes``, and not gated but for their approvers), then ``other_id`` is removed, with
    its pending proposal. A pending proposal of ``keep_id`` is withdrawn when the merge changes
    what was proposed (it could no longer be approved).

    Returns:
        ``keep_id``, or None if either item is missing (strict: NotFoundError).

    Raises:
        InvalidInputError: ``keep_id == other_id`` (a merge with itself is not a deletion), or
            ``prefer`` is not ``latest``, ``keep`` or ``other``.
        NotFoundError: (strict) an item is missing or not visible.
        AccessDeniedError: (strict or not) the two items are in different scopes (a merge
            would carry one scope's content into the other), or their scope takes changes
            from its approvers only and ``by`` is not one.
    """
    if keep_id == other_id:
        raise InvalidInputError(f"cannot merge item {keep_id} with itself")
    if prefer not in MERGE_PREFERENCES:
        raise InvalidInputError(
            f"prefer must be one of {', '.join(MERGE_PREFERENCES)}, not {safe_repr(prefer)}"
        )
    refuse_unfit_names(merger=by)  # recorded in the history as it is, like a publisher
    if strict:
        keep, other = require_items(substrate, [keep_id, other_id], scopes)
    else:
        found_keep = visible_item(substrate, keep_id, scopes)
        found_other = visible_item(substrate, other_id, scopes)
        if found_keep is None or found_other is None:
            return None
        keep, other = found_keep, found_other
    if keep.scope != other.scope:
        raise AccessDeniedError(
            f"{keep_id} is in scope {keep.scope!r} and {other_id} in {other.scope!r}; "
            "publish one into the other's scope before merging"
        )
    authorize_write(substrate, keep.scope, by=by, adding=False)
    from substrate.proposals import withdrawn_if_changed  # it builds on this module

    why = f"changed by merging {other_id} into it; propose it again"
    substrate.put(withdrawn_if_changed(_merged(keep, other, by=by, prefer=prefer), by=by, why=why))
    _repoint_links(substrate, old=other_id, new=keep_id, scopes=scopes, by=by)
    substrate.remove(other_id)
    return keep_id


# What an item's provenance records of its own lineage and review, not of its text: kept by
# a merge whichever side's text it keeps (the source, lines and hash follow the text)
_LINEAGE_KEYS = (
    "version_history",
    "version",
    "merged",
    "published_by",
    "published_from",
    "proposal",
    "proposals",
)


def _merged(
    keep: SubstrateItem, other: SubstrateItem, *, by: str | None, prefer: str
) -> SubstrateItem:
    vk, vo = version_of(keep), version_of(other)
    winner = other if prefer == "other" or (prefer == "latest" and vo > vk) else keep
    prov = copy.deepcopy(keep.provenance)
    other_prov = copy.deepcopy(other.provenance)
    version = max(vk, vo) + 1
    entries: list[Any] = dict_entries(prov.get("version_history"))
    entry = {
        "version": version,
        "merged_by": by,
        "merged_from": other.id,
        "parents": [{"id": keep.id, "version": vk}, {"id": other.id, "version": vo}],
        "at": time.time(),
        # The merged-away item disappears; its own record travels here.
        "from_history": other_prov.pop("version_history", []) or [],
        "from_provenance": other_prov,
    }
    loser = keep if winner is other else other
    if (loser.text, loser.payload) != (winner.text, winner.payload):
        # the text not kept is kept here: a merge loses nothing either side wrote
        entry["replaced"] = {
            "id": loser.id,
            "text": loser.text,
            "payload": copy.deepcopy(loser.payload),
        }
    if winner is other:  # where the text comes from, and what its file said, go with it
        entry["kept_provenance"] = {k: v for k, v in prov.items() if k not in _LINEAGE_KEYS}
        located = {k: v for k, v in other_prov.items() if k not in _LINEAGE_KEYS}
        prov = {**located, **{k: prov[k] for k in _LINEAGE_KEYS if k in prov}}
    entries.append(entry)
    prov["version_history"] = entries
    prov["version"] = version
    prov["merged"] = True
    dropped = {keep.id, other.id}
    return SubstrateItem(
        kind=keep.kind,
        text=winner.text,
        payload=copy.deepcopy(winner.payload),
        provenance=prov,
        scope=keep.scope,
        tags=sorted(set(keep.tags) | set(other.tags)),
        links=sorted((set(keep.links) | set(other.links)) - dropped),
        id=keep.id,
        created_at=keep.created_at,
    )


def _repoint_links(
    substrate: Substrate,
    *,
    old: str,
    new: str,
    scopes: Collection[str] | None,
    by: str | None,
) -> int:
    """Point the links at ``old`` to ``new`` instead (one pass over the shard), in the items
    the merger may change: those of ``scopes`` (None: all) in a scope that takes its changes
    directly (``authorize_write``). Other links to ``old`` are left to dangle, as after
    ``remove``: a merge changes nothing the merger could not change itself. Those the merger
    can read (in a scope with approvers) are counted in a warning."""
    scopes = scope_set(scopes)
    writable: dict[str, bool] = {}

    def may_change(scope: str) -> bool:
        if scope not in writable:
            try:
                authorize_write(substrate, scope, by=by, adding=False)
                writable[scope] = scopes is None or scope in scopes
            except AccessDeniedError:
                writable[scope] = False
        return writable[scope]

    changed: list[SubstrateItem] = []
    kept = 0  # links left in items the merger may read: worth telling (another team's: not)
    for item in substrate.iter_items():
        if item.id in (new, old) or old not in item.links:
            continue
        if may_change(item.scope):
            changed.append(item)
        elif scopes is None or item.scope in scopes:
            kept += 1
    if kept:
        log.warning(
            "%d item(s) in a scope with approvers still link to %s, which is gone (only "
            "its approvers may change them)",
            kept,
            old,
        )
    for item in changed:
        # in order, once each, never itself (a dict keeps the order, and looks up at once)
        repointed = (new if target == old else target for target in item.links)
        item.links = list(dict.fromkeys(t for t in repointed if t != item.id))
        substrate.put(item)
    return len(changed)


class Space:
    """A team's view of a shared shard: its own scope plus the shared ones.

    Args:
        substrate: the shard.
        team: the team, which is also the name of its own scope.
        shared: the scopes every team may read.
    """

    def __init__(
        self, substrate: Substrate, team: str, *, shared: Iterable[str] = (PUBLIC,)
    ) -> None:
        if not team:
            raise InvalidInputError("a space needs a team name")
        self.substrate = substrate
        self.team = team
        self.shared = scope_names(shared)

    @property
    def scopes(self) -> set[str]:
        return visible_scopes(self.team, shared=self.shared)

    def all(self, *, kind: str | None = None) -> list[SubstrateItem]:
        """Every visible item (optionally of one kind), never another team's private one.

        Like ``get``, a view: links to items the team cannot read are left out.
        """
        visible: set[str] = set()  # of every kind: links to any of them are kept
        wanted = []
        for item in self.substrate.iter_items(scopes=self.scopes):
            visible.add(item.id)
            if kind is None or item.kind == kind:
                wanted.append(item)
        return views_among(visible, wanted)

    def add(
        self, *, scope: str | None = None, by: str | None = None, redact: bool = True, **kw: Any
    ) -> str:
        """Add an item to the team's scope (or to a shared scope it can see), as ``mixle add``
        does for the team: through the write-time gate (``redact=False`` keeps secrets),
        linking only to items the team can read, and into a scope with approvers only for
        one of them (``by``, default the team).

        The new item's id is always a fresh one: an id chosen by the caller would replace the
        item that has it, whatever its scope (another team's, hidden from this one).

        Raises:
            AccessDeniedError: the team may not write to the scope, or needs approval there.
            NotFoundError: a link names an item the team cannot read (or none).
            InvalidInputError: an ``id`` was given.
        """
        if "id" in kw:
            raise InvalidInputError(
                "a team adds new items only: leave out id (each gets a fresh one); "
                "change an item through publish or propose"
            )
        target = scope or self.team
        if target not in self.scopes:
            raise AccessDeniedError(f"team {self.team!r} may not write to scope {target!r}")
        authorize_write(self.substrate, target, by=by or self.team)
        item = SubstrateItem(scope=target, **kw)
        missing = [i for i in item.links if visible_item(self.substrate, i, self.scopes) is None]
        if missing:
            raise NotFoundError(f"no item with id {', '.join(missing)} to link to")
        return self.substrate.put(admit(item, redact=redact).item)

    def get(self, item_id: str) -> SubstrateItem | None:
        """The item if it is visible to the team, else None (as if it did not exist).

        A view, as the team may see it: links and references to items it cannot read are left
        out (``reader_view``), so change items through the substrate, not through the view.
        """
        item = visible_item(self.substrate, item_id, self.scopes)
        return None if item is None else reader_view(self.substrate, item, self.scopes)

    def retrieve(self, query: str, *, k: int = 8, **kw: Any) -> Any:
        """Retrieve over exactly the team's visible items, with cross-kind diversity."""
        from substrate.retrieval import retrieve

        if "scopes" in kw:
            raise InvalidInputError("a space reads its team's scopes: give scope= to narrow them")
        return retrieve(self.substrate, query, k=k, scopes=self.scopes, **kw)

    def publish(self, ids: Iterable[str], *, to: str = PUBLIC, by: str | None = None) -> list[str]:
        """Share the team's own items into ``to``; other items are skipped.

        Raises:
            AccessDeniedError: ``to`` is not a scope the team can read, or it takes direct
                publishes from its approvers only and ``by`` is not one (propose instead).
        """
        return publish(
            self.substrate,
            ids,
            to=to,
            by=by or self.team,
            from_scope=self.team,
            scopes=self.scopes,
            team=self.team,
            shared=self.shared,
        )
