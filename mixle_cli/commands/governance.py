"""Sharing and promotion: publish, history, merge, propose, approve, reject, withdraw, pending,
approvers.

The caller acts as a name (``by``): ``--by NAME``, else the team it reads as (``--as``,
``MIXLE_TEAM`` or ``[shard] team``), else the login name. Names are asserted, not
authenticated: mixle is a local tool, and the file system guards the shard itself.
Every command validates all the ids it was given before it changes anything, and saves once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from mixle_cli import output
from mixle_cli.context import AppState, check_scope_name, state
from mixle_cli.errors import FOUND, fail, usage
from mixle_cli.evidence import given_ids, item_title, listed_ids, shown_title
from mixle_cli.output import JsonlOpt, JsonOpt, Mode
from substrate import (
    PENDING,
    PUBLIC,
    NotFoundError,
    SubstrateItem,
    already_proposed,
    approve,
    authorize_publish,
    grant_approver,
    history,
    load_governance,
    merge_versions,
    pending,
    proposal_events,
    proposal_of,
    propose,
    publish,
    reject,
    require_items,
    require_readable,
    revoke_approver,
    safe_repr,
    safe_text,
    scope_in_use,
    version_of,
    visible_item,
    withdraw,
)

IdsArg = Annotated[
    list[str],
    typer.Argument(
        help="Item ids; - reads them from standard input.",
        show_default=False,
        callback=listed_ids,
    ),
]
ByOpt = Annotated[
    str | None,
    typer.Option(
        "--by",
        help="Act as this name (recorded in the history and checked against the approvers). "
        "Default: the team you read as, else your login name.",
    ),
]


GrantByOpt = Annotated[
    str | None,
    typer.Option(
        "--by",
        help="Act as this approver of SCOPE (checked against its approvers; mixle.toml keeps "
        "the list, not who changed it). Default: the team you read as, else your login name.",
    ),
]


def _when(at: Any) -> float:
    """A proposal's time for sorting (0 for a hand-made one without a usable time)."""
    return float(at) if isinstance(at, int | float) and not isinstance(at, bool) else 0.0


def _shared(app_state: AppState) -> list[str]:
    from substrate import shared_scopes

    return shared_scopes(app_state.substrate().settings)


# An item stored with --no-redact keeps its secrets for the readers of its own scope
AllowSecretsOpt = Annotated[
    bool,
    typer.Option(
        "--allow-secrets",
        help="Share an item holding a secret (stored with --no-redact) all the same; "
        "without it, such an item is refused, named with the kind of secret it holds.",
    ),
]


def publish_cmd(
    ctx: typer.Context,
    ids: IdsArg,
    to: Annotated[str, typer.Option("--to", help="The scope to publish into.")] = PUBLIC,
    by: ByOpt = None,
    allow_secrets: AllowSecretsOpt = False,
    json: JsonOpt = False,
) -> None:
    """Move items into a scope (default: public), bumping their version; they keep their ids
    (an item already in that scope is left as it is).

    A team publishes its own items, into its own scope or a shared one. A scope with
    approvers takes direct publishes from them only; everyone else uses `mixle propose`.
    """
    # (an empty pipe: typer gives None, nothing to do; an id given twice is one)
    ids = list(dict.fromkeys(ids or []))
    app_state = state(ctx)
    substrate = app_state.substrate()
    who = app_state.acting_name(by)
    team = app_state.team
    scopes = app_state.scopes
    check_scope_name(to, "--to", empty_hint=": name the scope")  # whoever the caller reads as
    require_readable(to, scopes, team=team, action="publish")  # before any id is looked up
    with substrate.exclusive():  # read, change and save as one step
        # every missing id is said, before a refusal of the target
        found = require_items(substrate, ids, scopes, undone="nothing published")
        # a publish run again (from cron, say) changes nothing
        there = [item.id for item in found if item.scope == to]
        done = publish(
            substrate,
            [i for i in ids if i not in there],
            to=to,
            by=who,
            from_scope=team,
            scopes=scopes,
            strict=True,
            team=team,
            shared=_shared(app_state),
            allow_secrets=allow_secrets,
        )
        substrate.save()
    versions = {i: version_of(substrate.get(i)) for i in [*done, *there]}
    if json:
        output.emit_json(
            {"published": done, "to": to, "by": who, "versions": versions, "already": there}
        )
        return
    for item_id in ids:
        if item_id in there:
            output.emit_text(f"{item_id} is in {to} already (version {versions[item_id]})")
        else:
            output.emit_text(f"published {item_id} to {to} (version {versions[item_id]})")


def history_cmd(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(help="Item id.", callback=given_ids)],
    json: JsonOpt = False,
) -> None:
    """Show an item's versions (publishes and merges) and its proposals."""
    app_state = state(ctx)
    substrate = app_state.substrate()
    item = visible_item(substrate, item_id, app_state.scopes)
    if item is None:
        raise NotFoundError(f"no item with id {item_id}")
    versions = history(substrate, item.id, scopes=app_state.scopes)
    proposals = proposal_events(item)
    if json:
        output.emit_json(
            {
                "id": item.id,
                "scope": item.scope,
                "version": version_of(item),
                "history": versions,
                "proposal": proposal_of(item),
                "proposals": proposals,
            }
        )
        return
    output.emit_text(output.one_line(f"{item.id}  scope={item.scope}  version={version_of(item)}"))
    if not versions and not proposals:
        output.emit_text("never published, merged or proposed")
        return
    if versions:
        output.table(
            ["version", "when", "what", "by", "from", "to"],
            (_version_row(e) for e in versions),
            title="versions",
        )
    if proposals:
        output.table(
            ["when", "event", "by", "to", "reason"],
            (
                [
                    output.when(e.get("at")),
                    e.get("event"),
                    e.get("by"),
                    e.get("to"),
                    e.get("reason", ""),
                ]
                for e in proposals
            ),
            title="proposals",
        )


def _version_row(entry: dict[str, Any]) -> list[Any]:
    if "merged_from" in entry:
        return [
            entry.get("version"),
            output.when(entry.get("at")),
            f"merged {entry.get('merged_from')}",
            entry.get("merged_by"),
            "",
            "",
        ]
    return [
        entry.get("version"),
        output.when(entry.get("at")),
        "published",
        entry.get("published_by"),
        entry.get("published_from"),
        entry.get("to"),
    ]


def merge_cmd(
    ctx: typer.Context,
    keep: Annotated[str, typer.Argument(help="The item that stays.", callback=given_ids)],
    other: Annotated[
        str, typer.Argument(help="The item merged into it and then removed.", callback=given_ids)
    ],
    prefer: Annotated[
        str,
        typer.Option(
            "--prefer",
            help="Whose text wins: 'latest' (the higher version; on a tie, KEEP's), 'keep' or "
            "'other' (OTHER's text under KEEP's id, which links and citations name).",
        ),
    ] = "latest",
    by: ByOpt = None,
    json: JsonOpt = False,
) -> None:
    """Merge two versions of the same knowledge into KEEP; OTHER's record is kept in its history.

    Links that pointed at OTHER are re-pointed at KEEP in the items you may change; those in
    another team's items, or in a scope with approvers you are not one of, are left as they
    are (a warning counts the ones you can read). Both items must be in the same scope.

    The text not kept stays in the item's history until the item is published. A section of a
    file merged away, or whose text the merge replaced, is not read again while the file is
    unchanged (as after `rm`).
    """
    from substrate import MERGE_PREFERENCES

    if prefer not in MERGE_PREFERENCES:  # a usage error, before any permission is weighed
        usage(f"--prefer must be one of {', '.join(MERGE_PREFERENCES)}, not {safe_repr(prefer)}")
    app_state = state(ctx)
    substrate = app_state.substrate()
    who = app_state.acting_name(by)
    scopes = app_state.scopes
    with substrate.exclusive():  # read, change and save as one step
        missing = [i for i in (keep, other) if visible_item(substrate, i, scopes) is None]
        if missing and keep != other:
            raise NotFoundError(
                f"no item with id {', '.join(dict.fromkeys(missing))}; nothing merged"
            )
        kept = visible_item(substrate, keep, scopes)
        if kept is not None and keep != other:
            authorize_publish(
                load_governance(substrate),
                to=kept.scope,
                by=who,
                team=app_state.team,
                shared=_shared(app_state),
                action="merge",
            )
        before = {i: substrate.get(i) for i in (keep, other)}
        pending_before = {i: _pending_to(item) for i, item in before.items()}
        merge_versions(substrate, keep, other, by=who, prefer=prefer, scopes=scopes, strict=True)
        substrate.save()
    merged = substrate.get(keep)
    version = version_of(merged)
    text_from = _text_kept(before[keep], before[other], merged)
    if json:
        output.emit_json(
            {"kept": keep, "removed": other, "version": version, "by": who, "text": text_from}
        )
    else:
        shown = {"keep": f"{keep}'s text", "other": f"{other}'s text", "same": "the same text"}
        output.emit_text(f"merged {other} into {keep} (version {version}, {shown[text_from]})")
    tied = prefer == "latest" and version_of(before[keep]) == version_of(before[other])
    if tied and text_from == "keep":  # "latest" could not tell them apart
        output.note(
            f"note: both were version {version - 1}, so {keep}'s text was kept; "
            f"{other}'s is in `mixle history {keep} --json` (--prefer other keeps that one)"
        )
    # said even with --json: someone's proposal is gone
    withdrawn = {other: f"merged into {keep}", keep: "the merge changed it; propose it again"}
    for item_id, why in withdrawn.items():
        to = pending_before[item_id]
        if to is not None and (item_id == other or _pending_to(merged) is None):
            output.note(
                f"note: the pending proposal of item {item_id} for {to} is withdrawn: {why}"
            )


def _text_kept(
    keep: SubstrateItem | None, other: SubstrateItem | None, merged: SubstrateItem | None
) -> str:
    """Whose text a merge kept: ``keep``, ``other``, or ``same`` when they did not differ."""
    assert keep is not None and other is not None and merged is not None
    if (keep.text, keep.payload) == (other.text, other.payload):
        return "same"
    return "keep" if (merged.text, merged.payload) == (keep.text, keep.payload) else "other"


def _pending_to(item: SubstrateItem | None) -> str | None:
    """The scope ``item`` is pending promotion to, if it is."""
    proposal = proposal_of(item) if item is not None else None
    if proposal is None or proposal.get("status") != PENDING:
        return None
    return str(proposal.get("to"))


def propose_cmd(
    ctx: typer.Context,
    ids: IdsArg,
    to: Annotated[str, typer.Option("--to", help="The scope the items should enter.")],
    by: ByOpt = None,
    allow_secrets: AllowSecretsOpt = False,
    json: JsonOpt = False,
) -> None:
    """Ask for items to be promoted into a scope; an approver of that scope decides.

    An item is proposed to one scope at a time: proposing it to another withdraws the pending
    proposal (its history says so).
    """
    # (an empty pipe: typer gives None, nothing to do; an id given twice is one)
    ids = list(dict.fromkeys(ids or []))
    app_state = state(ctx)
    substrate = app_state.substrate()
    who = app_state.acting_name(by)
    team = app_state.team
    scopes = app_state.scopes
    check_scope_name(to, "--to", empty_hint=": name the scope")  # whoever the caller reads as
    require_readable(to, scopes, team=team, action="propose")  # before any id is looked up
    with substrate.exclusive():  # read, change and save as one step
        already: dict[str, object] = {}  # id -> who proposed it
        governance = load_governance(substrate)
        for item in require_items(substrate, ids, scopes, undone="nothing proposed"):
            if item.scope == to:  # a refusal (1) whichever team asks, as for another's item
                fail(f"{item.id} is in scope {safe_repr(to)} already; nothing proposed", FOUND)
            if already_proposed(item, to, who, governance):
                already[item.id] = (proposal_of(item) or {}).get("by")
        done = propose(
            substrate,
            ids,
            to=to,
            by=who,
            from_scope=team,
            scopes=scopes,
            team=team,
            strict=True,
            allow_secrets=allow_secrets,
        )
        substrate.save()
    if json:
        output.emit_json({"proposed": done, "to": to, "by": who, "already": sorted(already)})
    else:
        for item_id in done:
            again = ""
            if item_id in already and already[item_id] is None:
                again = " (already pending: nothing changed)"
            elif item_id in already:
                by_whom = output.printable(str(already[item_id]))
                again = f" (already pending, proposed by {by_whom}: nothing changed)"
            output.emit_text(f"proposed {item_id} for {to}{again}")
    if ids and not governance.gated(to):
        output.note(
            f"note: scope {safe_repr(to)} has no approvers, so nobody can approve this yet: grant "
            f"one (`mixle grant NAME {to}`), or publish directly (`mixle publish ID --to {to}`)"
        )


def approve_cmd(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(help="The pending item.", callback=given_ids)],
    to: Annotated[
        str | None,
        typer.Option(
            "--to",
            help="The scope you reviewed it for: refused if it is proposed for another now "
            "(proposed again since).",
        ),
    ] = None,
    by: ByOpt = None,
    allow_secrets: AllowSecretsOpt = False,
    json: JsonOpt = False,
) -> None:
    """Approve a pending proposal: the item is published into the scope it was proposed for."""
    app_state = state(ctx)
    substrate = app_state.substrate()
    who = app_state.acting_name(by)
    if to is not None:
        check_scope_name(to, "--to", empty_hint=": name the scope")
    with substrate.exclusive():  # read, change and save as one step
        approve(
            substrate,
            item_id,
            by=who,
            to=to,
            scopes=app_state.scopes,
            team=app_state.team,
            strict=True,
            allow_secrets=allow_secrets,
        )
        substrate.save()
    item = substrate.get(item_id)
    assert item is not None
    if json:
        output.emit_json(
            {"approved": item_id, "to": item.scope, "by": who, "version": version_of(item)}
        )
    else:
        output.emit_text(f"approved {item_id}: now in {item.scope} (version {version_of(item)})")


def reject_cmd(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(help="The pending item.", callback=given_ids)],
    reason: Annotated[
        str,
        typer.Option(
            "--reason",
            help=(
                "Why (kept in the item's history until it leaves its scope: a publish or an "
                "approval carries who rejected it, not why)."
            ),
        ),
    ],
    by: ByOpt = None,
    json: JsonOpt = False,
) -> None:
    """Reject a pending proposal (needs the same right as approving); the item stays put."""
    if not reason.strip():
        usage("--reason is empty: say why the proposal is rejected")
    app_state = state(ctx)
    substrate = app_state.substrate()
    who = app_state.acting_name(by)
    with substrate.exclusive():  # read, change and save as one step
        item = visible_item(substrate, item_id, app_state.scopes)
        target = (proposal_of(item) or {}).get("to") if item is not None else None
        reject(
            substrate,
            item_id,
            by=who,
            reason=reason,
            scopes=app_state.scopes,
            team=app_state.team,
            strict=True,
        )
        substrate.save()
    if json:
        # as stored: masked (the reason is free text, and may quote what it rejects)
        output.emit_json(
            {"rejected": item_id, "to": target, "by": who, "reason": safe_text(reason)}
        )
    else:
        output.emit_text(f"rejected {item_id}")


def _known_scope(app_state: AppState, scope: str) -> bool:
    """Whether ``scope`` is the caller's team's or a shared one, has approvers, or holds an
    item the caller reads."""
    if scope in (app_state.team, *_shared(app_state)):
        return True
    return scope_in_use(app_state.substrate(), scope, app_state.scopes)


def pending_cmd(
    ctx: typer.Context,
    to: Annotated[str | None, typer.Option("--to", help="Only proposals for this scope.")] = None,
    json: JsonOpt = False,
    jsonl: JsonlOpt = False,
) -> None:
    """List the items you can see that await approval, oldest first.

    A proposal of another team's item is seen by reading as that team (`--as TEAM`), or with
    no team set: reading as your own team, its item is hidden as that team's items are.
    """
    how = output.mode(json, jsonl)
    app_state = state(ctx)
    rows: list[dict[str, Any]] = []
    to = app_state.read_scope(to)  # a scope the caller may not read holds nothing for it
    for item in pending(app_state.substrate(), to=to, scopes=app_state.scopes):
        proposal = proposal_of(item) or {}
        events = proposal_events(item)
        rows.append(
            {
                "id": item.id,
                "scope": item.scope,
                "to": proposal.get("to"),
                "by": proposal.get("by"),
                "proposed_at": events[-1].get("at") if events else None,
                "title": item_title(item),
            }
        )
    # oldest proposal first (store order is when the item was first saved, not proposed)
    rows.sort(key=lambda row: _when(row["proposed_at"]))
    if how is Mode.JSON:
        output.emit_json(rows)
    elif how is Mode.JSONL:
        output.emit_jsonl(rows)
    elif not rows and app_state.team is not None:
        # (an approver reading as its own team sees no other team's proposal into its scope:
        # "nothing is pending" read as none waiting for review)
        output.note(
            f"nothing is pending that team {output.printable(app_state.team)} can see; another "
            "team's proposals are seen reading as that team, or with no team"
        )
    elif not rows:
        output.note("nothing is pending")
    else:
        output.table(
            ["id", "scope", "to", "by", "proposed", "title"],
            (
                [
                    r["id"],
                    r["scope"],
                    r["to"],
                    r["by"],
                    output.when(r["proposed_at"]),
                    shown_title(r["title"]),
                ]  # fmt: skip
                for r in rows
            ),
        )
    if not rows and to is not None and not _known_scope(app_state, to):  # a typo, perhaps
        output.note(f"note: no item you can read is in {to}, and nobody approves for it")


def grant_cmd(
    ctx: typer.Context,
    who: Annotated[str, typer.Argument(help="The name to make an approver.")],
    scope: Annotated[str, typer.Argument(help="The scope they approve for.")],
    by: GrantByOpt = None,
    json: JsonOpt = False,
) -> None:
    """Let WHO approve promotions into SCOPE (saved in mixle.toml).

    Only an approver of SCOPE may change its approvers; the first one may be named by anyone
    who can read SCOPE.
    """
    app_state = state(ctx)
    acting = app_state.acting_name(by)
    # a shared scope named as the approver (approvers are people or teams, and a team's name
    # is its scope's), and a scope that holds nothing: asked first, as once granted the
    # scope has an approver, and is known
    swapped = who in _shared(app_state) and not _known_scope(app_state, scope)
    changed = grant_approver(
        app_state.substrate(), who, scope, by=acting, scopes=app_state.scopes, team=app_state.team
    )
    if json:
        output.emit_json({"granted": who, "scope": scope, "changed": changed})
    else:
        output.emit_text(f"{who} may approve for {scope}" + ("" if changed else " (already could)"))
    if changed and swapped:
        output.note(  # `mixle grant public bob`: the two swapped
            f"note: {safe_repr(who)} is a shared scope, and {safe_repr(scope)} holds nothing "
            f"you can read: the approver's name comes first (`mixle grant NAME SCOPE`); undo "
            f"this with `mixle revoke {who} {scope}`"
        )


def revoke_cmd(
    ctx: typer.Context,
    who: Annotated[str, typer.Argument(help="The approver to remove.")],
    scope: Annotated[str, typer.Argument(help="The scope.")],
    by: GrantByOpt = None,
    json: JsonOpt = False,
) -> None:
    """Stop WHO approving promotions into SCOPE (saved in mixle.toml)."""
    app_state = state(ctx)
    acting = app_state.acting_name(by)
    left = revoke_approver(
        app_state.substrate(), who, scope, by=acting, scopes=app_state.scopes, team=app_state.team
    )
    if json:
        output.emit_json({"revoked": who, "scope": scope, "approvers_left": left})
    else:
        output.emit_text(f"{who} may no longer approve for {scope}")
    if not left:  # said, never silent: the scope's gate is gone with its last approver
        stuck = ""
        if app_state.scopes is not None:  # other teams' proposals are not the team's to count
            stuck = ", and any pending proposal into it cannot be approved"
        elif waiting := len(pending(app_state.substrate(), to=scope)):
            stuck = f", and its {waiting} pending proposal(s) cannot be approved"
        output.note(
            f"warning: {scope} has no approver now: anyone who reads it may publish into it"
            f"{stuck} (grant an approver to gate it again: `mixle grant NAME {scope}`)"
        )


def approvers_cmd(ctx: typer.Context, json: JsonOpt = False, jsonl: JsonlOpt = False) -> None:
    """Show who may approve changes to each scope you can read that has approvers.

    A scope with none is left out: anyone who may write it changes it directly.
    """
    how = output.mode(json, jsonl)
    app_state = state(ctx)
    scopes = app_state.scopes
    table = {
        scope: names
        for scope, names in load_governance(app_state.substrate()).as_dict().items()
        if scopes is None or scope in scopes
    }
    # {"scope", "approvers"} per scope: --json is the list of what --jsonl prints, as in ls
    rows = [{"scope": scope, "approvers": names} for scope, names in table.items()]
    if how is Mode.JSON:
        output.emit_json(rows)
    elif how is Mode.JSONL:
        output.emit_jsonl(rows)
    elif not table:
        output.note("no scope has approvers; grant one with `mixle grant NAME SCOPE`")
    else:
        output.table(["scope", "approvers"], ([s, ", ".join(n)] for s, n in table.items()))


def withdraw_cmd(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(help="The pending item.", callback=given_ids)],
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the item's history).")] = "",
    by: ByOpt = None,
    json: JsonOpt = False,
) -> None:
    """Take back a pending proposal of your own item; it stays where it is.

    As a team (`--as`), only proposals of the team's own items; the target's approvers refuse
    others' with `mixle reject`.
    """
    app_state = state(ctx)
    substrate = app_state.substrate()
    who = app_state.acting_name(by)
    with substrate.exclusive():  # read, change and save as one step
        target = withdraw(
            substrate,
            item_id,
            by=who,
            reason=reason,
            scopes=app_state.scopes,
            team=app_state.team,
        )
        substrate.save()
    if json:
        output.emit_json({"withdrawn": item_id, "to": target, "by": who})
    else:
        output.emit_text(f"withdrew the proposal of {item_id} for {target}")


COMMANDS: dict[str, Callable[..., None]] = {
    "publish": publish_cmd,
    "history": history_cmd,
    "merge": merge_cmd,
    "propose": propose_cmd,
    "approve": approve_cmd,
    "reject": reject_cmd,
    "withdraw": withdraw_cmd,
    "pending": pending_cmd,
    "grant": grant_cmd,
    "revoke": revoke_cmd,
    "approvers": approvers_cmd,
}
