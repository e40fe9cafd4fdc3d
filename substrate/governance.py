"""Promotion gates: items are proposed for a scope and enter it only when an approver agrees.

Who may approve for which scope is kept in ``mixle.toml``::

    [governance.approvers]
    public = ["alice", "platform"]

A scope with approvers is *gated*: publishing into it directly needs an approver, everyone else
proposes. Each item keeps its proposal record in its provenance: ``proposal`` holds the current
state (the reference layout: ``to``, ``by``, ``status`` plus ``approved_by`` or ``rejected_by``
and ``reason``) and ``proposals`` is an append-only list of events, so a new proposal never
erases what happened to an earlier one.

Identities (``by``) are names the caller asserts; mixle is a local tool and does not
authenticate them. Functions that take ``scopes`` act for a reader (``team``) who sees only
those scopes, and treat every other item exactly like a missing one. Such a reader may not act
on a scope outside them at all: the refusal comes before the scope's approvers are read (and,
when the caller names the scope, before any item is looked up), so it reads the same whoever
``by`` names, whether the scope has approvers and whether the item exists.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from substrate.errors import AccessDeniedError, InvalidInputError, NotFoundError, ShardError
from substrate.gate import refuse_secret_names
from substrate.item import SubstrateItem
from substrate.secrets import safe_text
from substrate.settings import Settings
from substrate.spaces import published_copy, require_items, visible_item
from substrate.visibility import visible_scopes

if TYPE_CHECKING:
    from substrate.store import Substrate

PENDING = "pending"
APPROVED = "approved"
REJECTED = "rejected"

SECTION = "governance"


@dataclass
class Governance:
    """Who may approve promotions into which scope (the organisation's ACL)."""

    approvers: dict[str, set[str]] = field(default_factory=dict)

    def may_approve(self, who: str | None, scope: str) -> bool:
        return who is not None and who in self.approvers.get(scope, set())

    def grant(self, who: str, scope: str) -> Governance:
        """Add ``who`` as an approver for ``scope`` (chainable)."""
        if not who or not scope:
            raise InvalidInputError("grant needs a name and a scope")
        refuse_secret_names(approver=who, scope=scope)
        self.approvers.setdefault(scope, set()).add(who)
        return self

    def revoke(self, who: str, scope: str) -> Governance:
        """Remove ``who`` from the approvers of ``scope`` (chainable).

        Raises:
            NotFoundError: ``who`` is not an approver for ``scope``.
        """
        names = self.approvers.get(scope, set())
        if who not in names:
            raise NotFoundError(f"{who!r} is not an approver for scope {scope!r}")
        names.discard(who)
        if not names:
            del self.approvers[scope]
        return self

    def gated(self, scope: str) -> bool:
        """True when ``scope`` has approvers, so entering it needs one of them."""
        return bool(self.approvers.get(scope))

    def as_dict(self) -> dict[str, list[str]]:
        return {scope: sorted(names) for scope, names in sorted(self.approvers.items()) if names}

    @classmethod
    def from_settings(cls, settings: Settings) -> Governance:
        """Read ``[governance.approvers]`` from a shard's settings.

        Raises:
            ShardError: the table is malformed.
        """
        raw = settings.get(SECTION, "approvers", {})
        where = f"{settings.path or 'mixle.toml'}: [governance.approvers]"
        if not isinstance(raw, dict):
            raise ShardError(f"{where} must be a table of scope = [names]")
        approvers: dict[str, set[str]] = {}
        for scope, names in raw.items():
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise ShardError(f"{where}: {scope!r} must be a list of names")
            if names:
                approvers[str(scope)] = set(names)
        return cls(approvers)

    def to_settings(self, settings: Settings) -> None:
        """Write the approvers into ``settings`` (call ``settings.save()`` to persist)."""
        settings.section(SECTION)["approvers"] = self.as_dict()


def load_governance(substrate: Substrate) -> Governance:
    """The approvers configured in the shard's ``mixle.toml``."""
    return Governance.from_settings(substrate.settings)


def save_governance(substrate: Substrate, governance: Governance) -> None:
    """Persist ``governance`` into the shard's ``mixle.toml`` (atomically)."""
    governance.to_settings(substrate.settings)
    substrate.settings.save()


def require_readable(
    scope: str, scopes: Collection[str] | None, *, team: str | None, action: str
) -> None:
    """Refuse a governance ``action`` on ``scope`` unless the reader of ``scopes`` may read it.

    Called before anything about the scope is looked at, so the refusal depends only on the
    caller's own input: the same whether or not the scope has approvers, whoever ``by`` names,
    and whether the item involved exists.

    Args:
        scope: the scope acted on.
        scopes: the scopes the caller may read; None reads everything (never refused).
        team: the team the caller reads as, named in the refusal.
        action: ``administer`` (grant, revoke), ``approve``, ``reject``, ``propose`` or
            ``publish``.

    Raises:
        AccessDeniedError: ``scope`` is not among ``scopes``.
    """
    if scopes is None or scope in scopes:
        return
    who = repr(team) if team is not None else "this reader"
    if action == "administer":  # what a reader without the right gets for a scope it reads
        raise _refuse_administration(who, scope)
    if action in ("propose", "publish"):
        who = f"team {who}" if team is not None else who
        message = f"{who} may {action} only into its own or a shared scope, not {scope!r}"
    else:
        message = f"{who} may not {action} promotions into scope {scope!r}"
    raise AccessDeniedError(message)


@contextlib.contextmanager
def _changing_governance(substrate: Substrate) -> Iterator[Governance]:
    """The approvers as ``mixle.toml`` holds them now, saved after the block changed them.

    Read and written under the shard's writer lock, so that two processes granting at once
    each keep their change (each would otherwise write back what it read before the other).
    An exception in the block saves nothing.
    """
    with substrate.exclusive():  # a first grant saves mixle.toml, which creates the shard
        if substrate.root is not None:
            substrate.settings = Settings.load(substrate.root)
        governance = load_governance(substrate)
        yield governance
        save_governance(substrate, governance)


def _may_administer(governance: Governance, by: str | None, scope: str) -> bool:
    # An approver manages the list; an ungated scope can be claimed by anyone who reads it
    # (require_readable already refused everyone else, so no team can make itself approver
    # of another team's private scope).
    return governance.may_approve(by, scope) or not governance.gated(scope)


def _refuse_administration(who: str, scope: str) -> AccessDeniedError:
    """The refusal to change the approvers of ``scope``; ``who`` as it is shown."""
    return AccessDeniedError(
        f"{who} may not change the approvers of scope {scope!r}; ask one of its approvers"
    )


def grant_approver(
    substrate: Substrate,
    who: str,
    scope: str,
    *,
    by: str | None,
    scopes: Collection[str] | None = None,
    team: str | None = None,
) -> bool:
    """Make ``who`` an approver for ``scope`` and save it; False if they already were.

    Args:
        substrate: the shard.
        who: the new approver.
        scope: the scope they approve for.
        by: who grants (an approver of ``scope``, or anyone who reads it while it has none).
        scopes: the scopes the caller may read; None reads everything.
        team: the team the caller reads as (named in a refusal).

    Raises:
        InvalidInputError: ``who`` or ``scope`` is empty or looks like a secret.
        AccessDeniedError: the caller cannot read ``scope`` (checked first), or ``by`` is not
            an approver of a gated ``scope``.
    """
    if not who or not scope:
        raise InvalidInputError("grant needs a name and a scope")
    refuse_secret_names(approver=who, scope=scope)  # before a refusal repeats the scope's name
    require_readable(scope, scopes, team=team, action="administer")
    with _changing_governance(substrate) as governance:
        if not _may_administer(governance, by, scope):
            raise _refuse_administration(repr(by), scope)
        if governance.may_approve(who, scope):
            return False
        governance.grant(who, scope)
    return True


def revoke_approver(
    substrate: Substrate,
    who: str,
    scope: str,
    *,
    by: str | None,
    scopes: Collection[str] | None = None,
    team: str | None = None,
) -> None:
    """Remove ``who`` from the approvers of ``scope`` and save it.

    Args:
        substrate: the shard.
        who: the approver to remove.
        scope: the scope.
        by: who revokes (an approver of ``scope``).
        scopes: the scopes the caller may read; None reads everything.
        team: the team the caller reads as (named in a refusal).

    Raises:
        AccessDeniedError: the caller cannot read ``scope`` (checked first, so nothing tells
            who its approvers are), or ``by`` is not an approver of ``scope``.
        NotFoundError: ``who`` is not an approver of ``scope``.
    """
    require_readable(scope, scopes, team=team, action="administer")
    with _changing_governance(substrate) as governance:
        if not _may_administer(governance, by, scope):
            raise _refuse_administration(repr(by), scope)
        governance.revoke(who, scope)


def authorize_publish(
    governance: Governance,
    *,
    to: str,
    by: str | None,
    team: str | None,
    shared: Iterable[str],
) -> None:
    """Check that ``by`` (reading as ``team``) may publish straight into scope ``to``.

    A team publishes only into scopes it can read (its own and the shared ones); a gated scope
    takes direct publishes from its approvers only.

    Raises:
        AccessDeniedError: with the reason and what to do instead.
    """
    if team is not None:
        require_readable(to, visible_scopes(team, shared=shared), team=team, action="publish")
    _require_approver(governance, by, to, instead=f"use `mixle propose ID --to {to}`")


def authorize_write(substrate: Substrate, scope: str, *, by: str | None) -> None:
    """Check that ``by`` may add items to ``scope``, or remove them from it, directly: a gated
    scope takes changes from its approvers only, as it takes publishes (the others propose).

    Raises:
        AccessDeniedError: with what to do instead.
    """
    instead = f"write to your own scope, then `mixle propose ID --to {scope}`"
    _require_approver(load_governance(substrate), by, scope, instead=instead)


def _require_approver(governance: Governance, by: str | None, scope: str, *, instead: str) -> None:
    """Refuse a direct change to a gated scope by anyone but its approvers."""
    if governance.gated(scope) and not governance.may_approve(by, scope):
        raise AccessDeniedError(
            f"scope {scope!r} needs approval; {by!r} is not one of its approvers ({instead})"
        )


def proposal_of(item: SubstrateItem) -> dict[str, Any] | None:
    """The item's current proposal (``to``, ``by``, ``status``, ...), or None."""
    proposal = item.provenance.get("proposal")
    return proposal if isinstance(proposal, dict) else None


def proposal_events(item: SubstrateItem) -> list[dict[str, Any]]:
    """Every proposal, approval and rejection of the item, oldest first."""
    events = item.provenance.get("proposals")
    return [dict(e) for e in events if isinstance(e, dict)] if isinstance(events, list) else []


def _with_event(
    item: SubstrateItem, proposal: dict[str, Any], event: dict[str, Any]
) -> SubstrateItem:
    prov = item.provenance
    events = list(prov.get("proposals") or [])
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
) -> list[str]:
    """Mark items as pending promotion to scope ``to`` (they are not visible there yet).

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

    Returns:
        The ids proposed, in input order.

    Raises:
        NotFoundError: (strict) an id does not exist or is not visible.
        AccessDeniedError: the caller cannot read ``to`` (checked before any id, strict or
            not), or (strict) an item is outside ``from_scope``.
        InvalidInputError: ``to`` is empty, or (strict) an item is already in ``to``.
    """
    if not to or not isinstance(to, str):
        raise InvalidInputError("propose needs a target scope")
    refuse_secret_names(target_scope=to, proposer=by)
    require_readable(to, scopes, team=team, action="propose")
    if strict:
        items = require_items(substrate, ids, scopes)
        foreign = [i.id for i in items if from_scope is not None and i.scope != from_scope]
        if foreign:
            raise AccessDeniedError(
                f"only items in scope {from_scope!r} may be proposed; not {', '.join(foreign)}"
            )
        there = [i.id for i in items if i.scope == to]
        if there:
            raise InvalidInputError(f"already in scope {to!r}: {', '.join(there)}")
    else:
        items = []
        for item_id in dict.fromkeys(ids):
            item = visible_item(substrate, item_id, scopes)
            if item is not None and (from_scope is None or item.scope == from_scope):
                items.append(item)
    for item in items:
        proposal = {"to": to, "by": by, "status": PENDING, "content": proposed_content(item)}
        substrate.put(_with_event(item, proposal, {"event": "proposed", "to": to, "by": by}))
    return [item.id for item in items]


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
    """Items awaiting approval (only those proposed to ``to``, if given), in store order."""
    found: list[SubstrateItem] = []
    for item in substrate.iter_items(scopes=scopes):
        proposal = proposal_of(item)
        if proposal is None or proposal.get("status") != PENDING:
            continue
        if to is not None and proposal.get("to") != to:
            continue
        live = substrate.get(item.id)  # hand out the stored object, as the reference does
        found.append(live if live is not None else item)
    return found


def _pending_proposal(
    substrate: Substrate, item_id: str, scopes: Collection[str] | None
) -> tuple[SubstrateItem, dict[str, Any]]:
    item = visible_item(substrate, item_id, scopes)
    if item is None:
        raise NotFoundError(f"no item with id {item_id}")
    proposal = proposal_of(item)
    if proposal is None or proposal.get("status") != PENDING:
        raise NotFoundError(f"item {item_id} has no pending proposal")
    return item, proposal


def _check_approver(governance: Governance, by: str | None, target: str, action: str) -> None:
    if governance.may_approve(by, target):
        return
    if not governance.gated(target):
        raise AccessDeniedError(
            f"scope {target!r} has no approvers, so nobody may {action} for it "
            f"(add one with `mixle grant NAME {target}`)"
        )
    raise AccessDeniedError(
        f"{by!r} may not {action} promotions into scope {target!r}: only its approvers may "
        f"(ask one of them; see `mixle approvers`)"
    )


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
) -> bool:
    """Promote a pending item into its proposed scope, if ``by`` may approve for that scope.

    The item is published (version bumped, history appended) and its proposal marked approved.

    Args:
        substrate: the shard.
        item_id: the pending item.
        by: the approver.
        governance: the ACL; default: the approvers in the shard's ``mixle.toml``.
        to: if given, must equal the proposed scope (an approval never re-targets).
        scopes: the scopes the caller may read; other items count as missing, and the caller
            may approve only into one of them.
        team: the team the caller reads as (named in a refusal).
        strict: raise with the reason instead of returning False.

    Returns:
        True if promoted; False (nothing changed) when refused and not strict.

    Raises:
        NotFoundError: (strict) no such visible item, or it has no pending proposal.
        AccessDeniedError: (strict) the caller cannot read ``to`` (checked before the item is
            looked up) or the proposed scope (checked before its approvers), ``by`` may not
            approve for the proposed scope, or the item changed since it was proposed.
        InvalidInputError: (strict) ``to`` differs from the proposed scope.
    """
    try:
        if to is not None:
            require_readable(to, scopes, team=team, action="approve")
        item, proposal = _pending_proposal(substrate, item_id, scopes)
        target = str(proposal.get("to"))
        require_readable(target, scopes, team=team, action="approve")
        if to is not None and to != target:
            raise InvalidInputError(f"item {item_id} was proposed for scope {target!r}, not {to!r}")
        gov = governance if governance is not None else load_governance(substrate)
        _check_approver(gov, by, target, "approve")
        pinned = proposal.get("content")  # absent from proposals made before it was kept
        if pinned is not None and pinned != proposed_content(item):
            raise AccessDeniedError(
                f"item {item_id} changed since it was proposed; it must be proposed again "
                "before it can be approved"
            )
    except (NotFoundError, AccessDeniedError, InvalidInputError):
        if strict:
            raise
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
    item was proposed to. A reader of ``scopes`` (as ``team``) may reject only proposals into
    a scope it can read, and is refused before the scope's approvers are looked at.

    Returns:
        True if rejected; False (nothing changed) when refused and not strict.

    Raises:
        NotFoundError: (strict) no such visible item, or it has no pending proposal.
        AccessDeniedError: (strict) the caller cannot read the proposed scope, or ``by`` may
            not approve for it.
    """
    try:
        item, proposal = _pending_proposal(substrate, item_id, scopes)
        target = str(proposal.get("to"))
        require_readable(target, scopes, team=team, action="reject")
        gov = governance if governance is not None else load_governance(substrate)
        _check_approver(gov, by, target, "reject")
    except (NotFoundError, AccessDeniedError):
        if strict:
            raise
        return False
    reason = safe_text(reason)  # free text, stored in the item's provenance
    state = {**proposal, "status": REJECTED, "rejected_by": by, "reason": reason}
    event = {"event": "rejected", "to": target, "by": by, "reason": reason}
    substrate.put(_with_event(item, state, event))
    return True
