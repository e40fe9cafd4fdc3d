"""Proposals: an item enters a gated scope when one of its approvers agrees.

Each item keeps its proposal record in its provenance: ``proposal`` holds the current state
(the reference layout: ``to``, ``by``, ``status`` plus ``approved_by`` or ``rejected_by`` and
``reason``, and ``content``, a digest of what was proposed) and ``proposals`` is an append-only
list of events, so a new proposal never erases what happened to an earlier one. Who may approve
is the shard's governance (``substrate.governance``).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any

import orjson

from substrate.errors import AccessDeniedError, InvalidInputError, NotFoundError, scope_set
from substrate.gate import refuse_unfit_names
from substrate.governance import (
    APPROVED,
    PENDING,
    REJECTED,
    Governance,
    authorize_moving_out,
    load_governance,
    require_readable,
)
from substrate.item import SubstrateItem, dict_entries
from substrate.secrets import safe_repr, safe_text
from substrate.spaces import owned_items, published_copy, visible_item, without_held_secrets
from substrate.visibility import reader_view

if TYPE_CHECKING:
    from substrate.store import Substrate

log = logging.getLogger(__name__)


# a proposal its proposer took back, or that a change to the item or a direct publish ended
WITHDRAWN = "withdrawn"


def proposal_of(item: SubstrateItem) -> dict[str, Any] | None:
    """The item's current proposal (``to``, ``by``, ``status``, ...), or None."""
    proposal = item.provenance.get("proposal")
    return proposal if isinstance(proposal, dict) else None


def proposal_events(item: SubstrateItem) -> list[dict[str, Any]]:
    """Every proposal, approval and rejection of the item, oldest first."""
    return [dict(event) for event in dict_entries(item.provenance.get("proposals"))]


def _with_event(
    item: SubstrateItem, proposal: dict[str, Any], event: dict[str, Any]
) -> SubstrateItem:
    prov = item.provenance
    events = dict_entries(prov.get("proposals"))
    events.append({**event, "at": time.time()})
    prov["proposals"] = events
    prov["proposal"] = proposal
    return item


def propose(
    substrate: Substrate,
    ids: Iterable[str],
    *,
    to: str,
    by: str | None = None,
    from_scope: str | None = None,
    scopes: Collection[str] | None = None,
    team: str | None = None,
    strict: bool = False,
    allow_secrets: bool = False,
) -> list[str]:
    """Mark items as pending promotion to scope ``to`` (they are not visible there yet).

    An item is proposed to one scope at a time: a pending proposal to another scope is
    withdrawn (a ``withdrawn`` event in its history).

    Args:
        substrate: the shard.
        ids: the items to propose.
        to: the scope they should enter.
        by: who proposes.
        from_scope: only items in this scope may be proposed (the owner's guard).
        scopes: the scopes the caller may read; other items count as missing, and ``to`` must
            be one of them.
        team: the team the caller reads as (named in a refusal).
        strict: raise instead of skipping; every id is checked before anything changes.
        allow_secrets: propose an item holding a secret all the same
            (``spaces.without_held_secrets``).

    Returns:
        The ids proposed, in input order.

    Raises:
        NotFoundError: (strict) an id does not exist or is not visible.
        AccessDeniedError: the caller cannot read ``to`` (checked before any id, strict or
            not), or (strict) an item is outside ``from_scope`` or holds a secret.
        InvalidInputError: ``to`` is empty, or (strict) an item is already in ``to``.
    """
    if not to or not isinstance(to, str):
        raise InvalidInputError("propose needs a target scope")
    refuse_unfit_names(target_scope=to, proposer=by)
    require_readable(to, scopes, team=team, action="propose")
    items = owned_items(substrate, ids, scopes, from_scope, strict=strict, action="proposed")
    there = [i.id for i in items if i.scope == to]
    if strict and there:
        raise InvalidInputError(f"already in scope {safe_repr(to)}: {', '.join(there)}")
    # an approval will take the item out of its scope: a gated one lets only its approvers
    governance = load_governance(substrate)
    authorize_moving_out(governance, items, to=to, by=by, action="propose it")
    if not allow_secrets:
        items = without_held_secrets(items, to=to, action="proposed", strict=strict)
    for item in items:
        if already_proposed(item, to, by, governance):  # no second event for one proposal
            continue
        earlier = _pending(item)
        if earlier is not None and earlier.get("to") != to:
            # one proposal at a time: the one it replaces is withdrawn, and the history says so
            item = _withdrawn(item, earlier, by, f"proposed to {to}")
        proposal = _proposal(item, to, by)
        substrate.put(_with_event(item, proposal, {"event": "proposed", "to": to, "by": by}))
    return [item.id for item in items]


def withdrawn_if_changed(item: SubstrateItem, *, by: str | None, why: str) -> SubstrateItem:
    """``item`` with its pending proposal withdrawn when its content is no longer what was
    proposed (a merge changed it): it could not be approved, yet would stay listed as pending
    for reviewers. ``why`` goes into the ``withdrawn`` event."""
    proposal = _pending(item)
    if proposal is None or proposal.get("content") in (None, proposed_content(item)):
        return item
    return _withdrawn(item, proposal, by, why)


def withdrawn_by_publish(item: SubstrateItem, *, by: str | None) -> SubstrateItem:
    """``item``, just published into its scope, with its pending proposal withdrawn: the move
    it asked for is done, or another took its place, and approving it now would publish the
    item again (into where it already is, or out of the scope it was published into)."""
    proposal = _pending(item)
    if proposal is None:
        return item
    return _withdrawn(item, proposal, by, f"published into {item.scope} directly")


def _pending(item: SubstrateItem) -> dict[str, Any] | None:
    proposal = proposal_of(item)
    return proposal if proposal is not None and proposal.get("status") == PENDING else None


def _withdrawn(
    item: SubstrateItem, proposal: dict[str, Any], by: str | None, why: str
) -> SubstrateItem:
    """``item`` with ``proposal`` withdrawn, and the history saying why."""
    event = {"event": WITHDRAWN, "to": proposal.get("to"), "by": by, "reason": why}
    return _with_event(item, {**proposal, "status": WITHDRAWN, "withdrawn_by": by}, event)


def already_proposed(
    item: SubstrateItem, to: str, by: str | None = None, governance: Governance | None = None
) -> bool:
    """Whether ``item`` is pending for ``to`` with the content it has: proposed again by
    another, it keeps its proposer and its place in the reviewers' queue (the second proposer
    replaced the first, silently, at the back of the queue). Unless, with ``governance``, its
    proposer may no longer release it from its gated scope and ``by`` may: then the proposal
    is ``by``'s to make again (what the refusal of its approval asks for)."""
    proposal = proposal_of(item)
    if proposal is None or {**proposal, "by": None} != _proposal(item, to, None):
        return False
    proposer = proposal.get("by")
    if governance is None or by is None or proposer == by or not governance.gated(item.scope):
        return True
    releases = isinstance(proposer, str) and governance.may_approve(proposer, item.scope)
    return releases or not governance.may_approve(by, item.scope)


def _proposal(item: SubstrateItem, to: str, by: str | None) -> dict[str, Any]:
    return {"to": to, "by": by, "status": PENDING, "content": proposed_content(item)}


def proposed_content(item: SubstrateItem) -> str:
    """A digest of what a reviewer approves: the item's kind, text, payload and tags. An
    approval of an item changed since its proposal would publish what nobody reviewed."""
    body = orjson.dumps(
        [item.kind, item.text, item.payload, item.tags],
        option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS,
        default=str,
    )
    return hashlib.blake2b(body, digest_size=8).hexdigest()


def pending(
    substrate: Substrate, *, to: str | None = None, scopes: Collection[str] | None = None
) -> list[SubstrateItem]:
    """Items awaiting approval (only those proposed to ``to``, if given), in store order.

    With ``scopes``, each as a reader of those scopes sees it: links and references to items
    outside them left out (``reader_view``); without, the stored objects, as the reference
    hands them out.
    """
    found: list[SubstrateItem] = []
    for item in substrate.iter_items(scopes=scopes):
        proposal = proposal_of(item)
        if proposal is None or proposal.get("status") != PENDING:
            continue
        if to is not None and proposal.get("to") != to:
            continue
        live = substrate.get(item.id)
        live = live if live is not None else item
        found.append(live if scopes is None else reader_view(substrate, live, scopes))
    return found


def _pending_proposal(
    substrate: Substrate, item_id: str, scopes: Collection[str] | None
) -> tuple[SubstrateItem, dict[str, Any]]:
    item = visible_item(substrate, item_id, scopes)
    if item is None:
        raise NotFoundError(f"no item with id {item_id}")
    proposal = proposal_of(item)
    if proposal is None or proposal.get("status") != PENDING:
        raise NotFoundError(f"item {item_id} has no pending proposal{_decided(proposal)}")
    return item, proposal


def _decided(proposal: dict[str, Any] | None) -> str:
    """How the item's last proposal ended, for a refusal to decide it again."""
    status = proposal.get("status") if proposal is not None else None
    if status not in (APPROVED, REJECTED, WITHDRAWN):
        return ""
    assert proposal is not None
    who = proposal.get(f"{status}_by")
    by = f" by {safe_repr(who)}" if isinstance(who, str) else ""
    return f": its proposal into {safe_repr(proposal.get('to'))} was {status}{by}"


def _in_force(substrate: Substrate, given: Governance | None) -> Governance:
    """The approvers that decide: those saved in the shard's ``mixle.toml`` for each scope that
    has some, and for the others those of the ``given`` ACL (the reference API's in-memory
    one). A caller's object can thus never let anyone past the approvers a shard saved."""
    saved = load_governance(substrate)
    if given is None:
        return saved
    merged = {scope: set(names) for scope, names in given.approvers.items()}
    merged.update((scope, set(names)) for scope, names in saved.approvers.items())
    return Governance(merged)


def _check_approver(governance: Governance, by: str | None, target: str, action: str) -> None:
    if governance.may_approve(by, target):
        return
    if not governance.gated(target):
        raise AccessDeniedError(
            f"scope {safe_repr(target)} has no approvers, so nobody may {action} for it "
            f"(add one with `mixle grant NAME {target}`)"
        )
    raise AccessDeniedError(
        f"{safe_repr(by)} may not {action} promotions into scope {safe_repr(target)}: only its "
        "approvers may (ask one of them; see `mixle approvers`)"
    )


def _check_release(
    governance: Governance, item: SubstrateItem, proposal: dict[str, Any], by: str
) -> None:
    """Refuse an approval that would take ``item`` out of a gated scope none of whose
    approvers agreed: neither the proposer (a proposal made before the scope had approvers)
    nor the one approving. ``propose`` refuses such proposals now."""
    proposer = proposal.get("by")
    if isinstance(proposer, str) and governance.may_approve(proposer, item.scope):
        return
    to = str(proposal.get("to"))
    # one of them proposes it again (approving into ``to`` is for ``to``'s approvers)
    again = f"propose it again: `mixle propose {item.id} --to {to} --by NAME`"
    authorize_moving_out(governance, [item], to=to, by=by, action=again)


def approve(
    substrate: Substrate,
    item_id: str,
    *,
    by: str,
    governance: Governance | None = None,
    to: str | None = None,
    scopes: Collection[str] | None = None,
    team: str | None = None,
    strict: bool = False,
    allow_secrets: bool = False,
) -> bool:
    """Promote a pending item into its proposed scope, if ``by`` may approve for that scope.

    The item is published (version bumped, history appended) and its proposal marked approved.

    Args:
        substrate: the shard.
        item_id: the pending item.
        by: the approver.
        governance: approvers for the scopes ``mixle.toml`` names none for; a scope with
            approvers saved there is approved for by them alone (``_in_force``).
        to: if given, must equal the proposed scope (an approval never re-targets).
        scopes: the scopes the caller may read; other items count as missing, and the caller
            may approve only into one of them.
        team: the team the caller reads as (named in a refusal).
        strict: raise with the reason instead of returning False.
        allow_secrets: approve an item holding a secret all the same (the approver's own
            choice, whatever the proposer chose; ``spaces.without_held_secrets``).

    Returns:
        True if promoted; False (nothing changed) when refused and not strict.

    Raises:
        NotFoundError: (strict) no such visible item, or it has no pending proposal.
        AccessDeniedError: (strict) the caller cannot read ``to`` (checked before the item is
            looked up) or the proposed scope (checked before its approvers), ``by`` may not
            approve for the proposed scope, the item changed since it was proposed, or it
            holds a secret.
        InvalidInputError: (strict) ``to`` differs from the proposed scope.
    """
    scopes = scope_set(scopes)  # one string is refused, strict or not
    try:
        if to is not None:
            require_readable(to, scopes, team=team, action="approve")
        item, proposal = _pending_proposal(substrate, item_id, scopes)
        target = str(proposal.get("to"))
        require_readable(target, scopes, team=team, action="approve")
        if to is not None and to != target:
            raise InvalidInputError(
                f"item {item_id} was proposed for scope {safe_repr(target)}, not {safe_repr(to)}"
            )
        gov = _in_force(substrate, governance)
        _check_approver(gov, by, target, "approve")
        _check_release(gov, item, proposal, by)
        pinned = proposal.get("content")  # absent from proposals made before it was kept
        if pinned is not None and pinned != proposed_content(item):
            raise AccessDeniedError(
                f"item {item_id} changed since it was proposed; it must be proposed again "
                "before it can be approved"
            )
        if not allow_secrets:
            without_held_secrets([item], to=target, action="approved", strict=True)
    except (NotFoundError, AccessDeniedError, InvalidInputError) as exc:
        if strict:
            raise
        log.info("approve of %s refused: %s", safe_repr(item_id), exc)  # why False, for a caller
        return False
    promoted = published_copy(item, to=target, by=by)
    state = {**proposal, "status": APPROVED, "approved_by": by, "to": target}
    event = {"event": "approved", "to": target, "by": by, "version": promoted.provenance["version"]}
    substrate.put(_with_event(promoted, state, event))
    return True


def reject(
    substrate: Substrate,
    item_id: str,
    *,
    by: str,
    reason: str = "",
    governance: Governance | None = None,
    scopes: Collection[str] | None = None,
    team: str | None = None,
    strict: bool = False,
) -> bool:
    """Refuse a pending promotion: the item stays where it is and the refusal is recorded.

    Rejecting takes the same right as approving: ``by`` must be an approver for the scope the
    item was proposed to (the approvers in force as for ``approve``: ``governance`` counts
    only for a scope ``mixle.toml`` names none for). A reader of ``scopes`` (as ``team``) may
    reject only proposals into a scope it can read, and is refused before the scope's
    approvers are looked at.

    Returns:
        True if rejected; False (nothing changed) when refused and not strict.

    Raises:
        NotFoundError: (strict) no such visible item, or it has no pending proposal.
        AccessDeniedError: (strict) the caller cannot read the proposed scope, or ``by`` may
            not approve for it.
    """
    scopes = scope_set(scopes)  # one string is refused, strict or not
    try:
        item, proposal = _pending_proposal(substrate, item_id, scopes)
        target = str(proposal.get("to"))
        require_readable(target, scopes, team=team, action="reject")
        gov = _in_force(substrate, governance)
        _check_approver(gov, by, target, "reject")
    except (NotFoundError, AccessDeniedError) as exc:
        if strict:
            raise
        log.info("reject of %s refused: %s", safe_repr(item_id), exc)
        return False
    reason = safe_text(reason)  # free text, stored in the item's provenance
    state = {**proposal, "status": REJECTED, "rejected_by": by, "reason": reason}
    event = {"event": "rejected", "to": target, "by": by, "reason": reason}
    substrate.put(_with_event(item, state, event))
    return True


def withdraw(
    substrate: Substrate,
    item_id: str,
    *,
    by: str | None,
    reason: str = "",
    scopes: Collection[str] | None = None,
    team: str | None = None,
) -> str:
    """Take back ``item_id``'s pending proposal: the item stays where it is, and its history
    says who withdrew it and why.

    It is the proposer's side that withdraws: a reader as ``team`` a proposal of an item in
    the team's own scope; a reader of every scope acting as its proposer, or as an approver
    of its target (who may reject it as well).

    Returns:
        The scope the proposal was for.

    Raises:
        NotFoundError: no such visible item, or it has no pending proposal.
        AccessDeniedError: none of the above.
    """
    refuse_unfit_names(withdrawer=by)
    item, proposal = _pending_proposal(substrate, item_id, scopes)
    target = str(proposal.get("to"))
    if team is not None and item.scope != team:
        raise AccessDeniedError(
            f"only proposals of items in scope {team!r} may be withdrawn as team {team!r}; "
            f"{item_id} is in {safe_repr(item.scope)} (its target's approvers may reject it)"
        )
    proposer = proposal.get("by")
    if team is None and by != proposer and not load_governance(substrate).may_approve(by, target):
        raise AccessDeniedError(
            f"{safe_repr(by)} neither proposed {item_id} (its proposer: {safe_repr(proposer)}) "
            f"nor approves for {safe_repr(target)}; act as one of them with --by NAME"
        )
    substrate.put(_withdrawn(item, proposal, by, safe_text(reason)))  # as reject: none given
    return target
