"""Governance: who may approve for which scope, and the checks that follow from it.

Who may approve for which scope is kept in ``mixle.toml``::

    [governance.approvers]
    public = ["alice", "platform"]

A scope with approvers is *gated*: publishing into it, writing to it directly, and taking
items out of it (publishing or proposing them elsewhere) need an approver; everyone else
proposes (``substrate.proposals``).

Identities (``by``) are names the caller asserts; mixle is a local tool and does not
authenticate them. Functions that take ``scopes`` act for a reader (``team``) who sees only
those scopes, and treat every other item exactly like a missing one. Such a reader may not act
on a scope outside them at all: the refusal comes before the scope's approvers are read (and,
when the caller names the scope, before any item is looked up), so it reads the same whoever
``by`` names, whether the scope has approvers and whether the item exists.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import orjson

from substrate.derived import LOG_FILE
from substrate.errors import (
    AccessDeniedError,
    InvalidInputError,
    NotFoundError,
    scope_set,
)
from substrate.gate import refuse_unfit_names
from substrate.secrets import safe_repr
from substrate.settings import Settings
from substrate.settingvalues import approvers_of
from substrate.visibility import visible_scopes

if TYPE_CHECKING:
    from substrate.item import SubstrateItem
    from substrate.store import Substrate


SECTION = "governance"
# A proposal's states (``substrate.proposals``), importable from here as the seed API has them
PENDING = "pending"
APPROVED = "approved"
REJECTED = "rejected"


@dataclass
class Governance:
    """Who may approve promotions into which scope (the organisation's ACL)."""

    approvers: dict[str, set[str]] = field(default_factory=dict)

    def may_approve(self, who: str | None, scope: str) -> bool:
        """True when ``who`` is one of the approvers of ``scope`` (never for None)."""
        return who is not None and who in self.approvers.get(scope, set())

    def grant(self, who: str, scope: str) -> Governance:
        """Add ``who`` as an approver for ``scope`` (chainable)."""
        if not who or not scope:
            raise InvalidInputError("grant needs a name and a scope")
        refuse_unfit_names(approver=who, scope=scope)
        self.approvers.setdefault(scope, set()).add(who)
        return self

    def revoke(self, who: str, scope: str) -> Governance:
        """Remove ``who`` from the approvers of ``scope`` (chainable).

        Raises:
            NotFoundError: ``who`` is not an approver for ``scope``.
        """
        names = self.approvers.get(scope, set())
        if who not in names:
            raise NotFoundError(f"{safe_repr(who)} is not an approver for scope {safe_repr(scope)}")
        names.discard(who)
        if not names:
            del self.approvers[scope]
        return self

    def gated(self, scope: str) -> bool:
        """True when ``scope`` has approvers, so entering it needs one of them."""
        return bool(self.approvers.get(scope))

    def as_dict(self) -> dict[str, list[str]]:
        """Each scope that has approvers, mapped to their sorted names (as saved)."""
        return {scope: sorted(names) for scope, names in sorted(self.approvers.items()) if names}

    @classmethod
    def from_settings(cls, settings: Settings) -> Governance:
        """Read ``[governance.approvers]`` from a shard's settings.

        Raises:
            ShardError: the table is malformed, or holds a name ``grant`` would refuse.
        """
        return cls(approvers_of(settings))

    def to_settings(self, settings: Settings) -> None:
        """Write the approvers into ``settings`` (call ``settings.save()`` to persist)."""
        settings.section(SECTION)["approvers"] = self.as_dict()


def load_governance(substrate: Substrate) -> Governance:
    """The approvers configured in the shard's ``mixle.toml``."""
    return Governance.from_settings(substrate.settings)


def scope_in_use(substrate: Substrate, scope: str, scopes: Collection[str] | None = None) -> bool:
    """Whether ``scope`` has approvers, or holds an item (one the reader of ``scopes`` may
    read): a name the shard knows, not one mistyped."""
    if load_governance(substrate).gated(scope):
        return True
    if (scopes is None or scope in scopes) and _written_lately(substrate, scope):
        return True  # (a team adding note after note: found without reading the whole log)
    return next(iter(substrate.iter_items(scope=scope, scopes=scopes)), None) is not None


# How much of the log's end is read for a scope written lately, before the log is read whole
_LATELY_BYTES = 1 << 20


def _written_lately(substrate: Substrate, scope: str) -> bool:
    """Whether the last ``_LATELY_BYTES`` of the shard's log name ``scope`` as an item's (a
    line written there, perhaps removed since: a name the shard knows all the same)."""
    if substrate.root is None:
        return False
    named = b'"scope":' + orjson.dumps(scope)
    try:
        with open(substrate.root / LOG_FILE, "rb") as fh:
            fh.seek(max(0, fh.seek(0, os.SEEK_END) - _LATELY_BYTES))
            return named in fh.read()
    except OSError:
        return False


def save_governance(substrate: Substrate, governance: Governance) -> None:
    """Persist ``governance`` into the shard's ``mixle.toml`` (atomically)."""
    governance.to_settings(substrate.settings)
    substrate.settings.save_table(SECTION, "approvers")  # a person's comments elsewhere kept


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
    scopes = scope_set(scopes)
    if scopes is None or scope in scopes:
        return
    who = safe_repr(team) if team is not None else "this reader"
    if action == "administer":  # what a reader without the right gets for a scope it reads
        raise _refuse_administration(who, scope)
    if action in ("propose", "publish"):
        who = f"team {who}" if team is not None else who
        message = f"{who} may {action} only into its own or a shared scope, not {safe_repr(scope)}"
    else:  # (whoever --by names: reading as the team, its scope cannot be read)
        message = (
            f"{who} may not {action} promotions into scope {safe_repr(scope)}, which it cannot "
            "read: those granted it act reading as no team, or as the team that owns it"
        )
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
        f"{who} may not change the approvers of scope {safe_repr(scope)} (its approvers may, "
        "or, while it has none, a team that reads it)"
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
    refuse_unfit_names(approver=who, scope=scope)  # before a refusal repeats the scope's name
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
) -> int:
    """Remove ``who`` from the approvers of ``scope`` and save it; returns how many approvers
    it has left (0: the scope is no longer gated, and anyone who reads it may publish into it).

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
        return len(governance.approvers.get(scope, ()))


def authorize_publish(
    governance: Governance,
    *,
    to: str,
    by: str | None,
    team: str | None,
    shared: Iterable[str],
    action: str = "publish",
) -> None:
    """Check that ``by`` (reading as ``team``) may publish straight into scope ``to`` (or
    change it so, ``action``: "merge").

    A team publishes only into scopes it can read (its own and the shared ones); a gated scope
    takes direct publishes from its approvers only.

    Raises:
        AccessDeniedError: with the reason and what to do instead.
    """
    if team is not None:
        require_readable(to, visible_scopes(team, shared=shared), team=team, action=action)
    instead = f"use `mixle propose ID --to {to}`" if action == "publish" else _ASK_AN_APPROVER
    _require_approver(governance, by, to, instead=instead)


_ASK_AN_APPROVER = "one of them may, acting with --by NAME, see `mixle approvers`"


def authorize_write(
    substrate: Substrate, scope: str, *, by: str | None, adding: bool = True
) -> None:
    """Check that ``by`` may add items to ``scope`` (or, not ``adding``, remove or merge
    them) directly: a gated scope takes changes from its approvers only, as it takes
    publishes (the others propose what they add).

    Raises:
        AccessDeniedError: with what to do instead.
    """
    instead = _ASK_AN_APPROVER
    if adding:  # not "write it elsewhere, then propose": a team's only other scopes are shared
        instead += f"; an item kept elsewhere enters it by `mixle propose ID --to {scope}`"
    _require_approver(load_governance(substrate), by, scope, instead=instead)


def authorize_moving_out(
    governance: Governance, items: Iterable[SubstrateItem], *, to: str, by: str | None, action: str
) -> None:
    """Check that ``by`` may take ``items`` out of their scopes into ``to``: a gated scope
    loses items only through its approvers, as it gains them and as ``rm`` removes them, so
    publishing or proposing an item elsewhere needs one of them (``action``: what one of them
    may do instead).

    Raises:
        AccessDeniedError: an item lies in a gated scope ``by`` does not approve for.
    """
    for scope in dict.fromkeys(item.scope for item in items if item.scope != to):
        _require_approver(governance, by, scope, instead=f"one of them may {action}", leaving=True)


def _require_approver(
    governance: Governance, by: str | None, scope: str, *, instead: str, leaving: bool = False
) -> None:
    """Refuse a direct change to a gated scope by anyone but its approvers (``leaving``: an
    item taken out of it, which an approval into another scope may do, named as such)."""
    if governance.gated(scope) and not governance.may_approve(by, scope):
        what = " for an item to leave it" if leaving else ""
        raise AccessDeniedError(
            f"scope {safe_repr(scope)} needs approval{what}; {safe_repr(by)} is not one of its "
            f"approvers ({instead})"
        )
