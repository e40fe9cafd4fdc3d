"""Who sees what: a caller reads as a team and sees its own scope plus the shared scopes."""

from __future__ import annotations

import copy
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from substrate.errors import InvalidInputError, ShardError, scope_names, scope_set
from substrate.item import SubstrateItem
from substrate.settings import Settings

if TYPE_CHECKING:
    from substrate.store import Substrate

PUBLIC = "public"


def visible_scopes(team: str, *, shared: Iterable[str] = (PUBLIC,)) -> set[str]:
    """The scopes ``team`` may read: its own plus the shared ones (never another team's)."""
    return {team, *scope_names(() if shared is None else shared)}


def resolve_team(explicit: str | None, env: Mapping[str, str], settings: Settings) -> str | None:
    """``--as TEAM``, else ``MIXLE_TEAM``, else ``[shard] team`` in mixle.toml, else None.

    Raises:
        InvalidInputError: a team given, or ``MIXLE_TEAM`` set, but empty: most likely a
            variable that was not set (``--as "$TEAM"``), which must not read every scope.
    """
    if explicit is not None:
        if not explicit.strip():
            raise InvalidInputError("the team name is empty (was a variable left unset?)")
        return _team_name(explicit, "the team name")
    if "MIXLE_TEAM" in env:
        if not env["MIXLE_TEAM"].strip():
            raise InvalidInputError(  # (a team in mixle.toml is read once it is unset)
                "MIXLE_TEAM is set but empty; unset it to read as the [shard] team of "
                "mixle.toml, or every scope when it names none"
            )
        return _team_name(env["MIXLE_TEAM"], "MIXLE_TEAM")
    return configured_team(settings)


def configured_team(settings: Settings) -> str | None:
    """``[shard] team`` in mixle.toml, or None when it names none (every scope is read).

    Raises:
        ShardError: it is no team name.
    """
    team = settings.get("shard", "team")
    if team is None:  # no default team: every scope
        return None
    if not isinstance(team, str) or not team or team != team.strip():
        # empty (a template's unset variable must not open every scope), blank or spaced
        raise ShardError(
            f"{settings.path}: [shard] team must be a team name, not {team!r} (remove the "
            "line to read every scope)"
        )
    if not printable_name(team):
        raise ShardError(f"{settings.path}: [shard] team {UNFIT_NAME}")
    return team


# joiners are invisible, yet spell words of Persian and Indic scripts (and emoji sequences)
_JOINERS = str.maketrans("", "", "\u200c\u200d")


# why printable_name refused a name, in every refusal
UNFIT_NAME = (
    "cannot hold invisible or control characters, and must be in Unicode's composed form "
    "(NFC: an accent joined to its letter, as a keyboard types it)"
)


def printable_name(name: str) -> bool:
    """Whether ``name`` holds no control or invisible character and is in composed form
    (NFC): it is printed in messages, and must not pass for another name printed alike, as
    "Zu\u0308rich" would for "Z\u00fcrich". A zero-width (non-)joiner is allowed only where
    it changes how a name is written, in the scripts and emoji that join with it: elsewhere
    "alpha" and a joiner would print as "alpha"."""
    if not (name.translate(_JOINERS).isprintable() and unicodedata.is_normalized("NFC", name)):
        return False
    return all(_joins(name, at) for at, ch in enumerate(name) if ord(ch) in _JOINERS)


def _joins(name: str, at: int) -> bool:
    """Whether the joiner at ``at`` stands between two characters of the scripts that join
    with it (Arabic and its neighbours, the Indic scripts) or of emoji sequences."""
    if at == 0 or at == len(name) - 1:
        return False
    return all(_joined_by_joiners(ch) for ch in (name[at - 1], name[at + 1]))


# Arabic, Syriac, Thaana, NKo ... and the scripts of India and Sri Lanka, with Arabic's
# presentation forms: where a (non-)joiner changes how letters connect.
_JOINING_SCRIPTS = ((0x0600, 0x08FF), (0x0900, 0x0DFF), (0xFB50, 0xFDFF), (0xFE70, 0xFEFF))


def _joined_by_joiners(ch: str) -> bool:
    code = ord(ch)
    if any(low <= code <= high for low, high in _JOINING_SCRIPTS):
        return True
    # emoji sequences: symbols, their skin tones and variation selectors
    return unicodedata.category(ch) in ("So", "Sk") or code == 0xFE0F


def _team_name(team: str, what: str) -> str:
    if team != team.strip():
        raise InvalidInputError(f"{what} has white space around it")
    if not printable_name(team):  # it is printed in messages: no terminal escapes, no look-alikes
        raise InvalidInputError(f"{what} {UNFIT_NAME}")
    return team


def default_scope(settings: Settings) -> str:
    """``[shard] default_scope`` in mixle.toml (``local`` when unset): where writes go when
    neither a scope nor a team is given."""
    scope = settings.get("shard", "default_scope", "local")
    if not isinstance(scope, str) or not scope.strip():
        # a number would quietly become the scope "5" of every new item
        raise ShardError(
            f"{settings.path}: [shard] default_scope must be a scope name, not {scope!r}"
        )
    if scope in _WRITTEN_BY_INIT:
        return scope
    from substrate.gate import refuse_unfit_names  # the gate reads this module

    try:  # the file's to fix, not an argument's: the same checks, a shard error
        refuse_unfit_names(default_scope=scope)
    except InvalidInputError as exc:
        raise ShardError(f"{settings.path}: [shard] {exc}") from None
    return scope


# The scope names `mixle init` writes into every mixle.toml: fit names, and checking them
# would load the secret rules for every shard opened (35 ms), which reading alone never needs.
_WRITTEN_BY_INIT = frozenset({"local", PUBLIC})


def reader_scopes(team: str | None, settings: Settings) -> frozenset[str] | None:
    """The scopes a caller may read; None means no team is set (a single-user shard: all)."""
    if team is None:
        return None
    return frozenset(visible_scopes(team, shared=shared_scopes(settings)))


def own_scope(team: str | None, settings: Settings) -> str | None:
    """The scope only ``team`` reads (its own), or None: no team, or a team named after a
    shared scope (every reader's)."""
    if team is None or team in shared_scopes(settings):
        return None
    return team


def shared_scopes(settings: Settings) -> list[str]:
    """``[shard] shared_scopes``: the scopes every team reads (``public`` when unset)."""
    shared = settings.get("shard", "shared_scopes", [PUBLIC])
    if not isinstance(shared, list) or not all(isinstance(s, str) for s in shared):
        raise ShardError(f"{settings.path}: [shard] shared_scopes must be a list of strings")
    for scope in shared:  # as every other scope name is held: "public " is not "public"
        if scope in _WRITTEN_BY_INIT:
            continue
        from substrate.gate import refuse_unfit_names  # the gate reads this module

        try:
            if not scope:
                raise InvalidInputError("the shared scope is empty")
            refuse_unfit_names(shared_scope=scope)
        except InvalidInputError as exc:
            raise ShardError(f"{settings.path}: [shard] shared_scopes: {exc}") from None
    return shared


# Provenance fields that name other items (lineage and supersession edges). Not ``parent``:
# an artifact's names the model it was derived from, not an item.
_ITEM_REFERENCES = ("supersedes", "replaces", "superseded_by", "merged_into")


def reader_view(
    substrate: Substrate, item: SubstrateItem, scopes: Collection[str] | None
) -> SubstrateItem:
    """``item`` as a reader of ``scopes`` may see it: links and item references in provenance
    that lead outside those scopes (or nowhere, which must look the same) are left out, in
    the provenance a merge kept of the item merged away too."""
    if scopes is None:
        return item
    return _view(item, _visibility(substrate, scopes))


def views_among(visible: set[str], items: list[SubstrateItem]) -> list[SubstrateItem]:
    """``reader_view`` of each of ``items``, given the ids of ``visible`` items, every one the
    reader may see: a link leads somewhere visible exactly when it leads to one of them
    (nothing is read again)."""
    return [_view(item, visible.__contains__) for item in items]


def _view(item: SubstrateItem, visible: Callable[[object], bool]) -> SubstrateItem:
    shown = copy.copy(item)
    shown.links = [link for link in item.links if visible(link)]
    shown.provenance = _visible_references(item.provenance, visible)
    return shown


def visible_history(
    substrate: Substrate, entries: list[dict[str, Any]], scopes: Collection[str] | None
) -> list[dict[str, Any]]:
    """An item's ``version_history`` as a reader of ``scopes`` may see it (``reader_view``)."""
    if scopes is None:
        return entries
    visible = _visibility(substrate, scopes)
    return [_visible_entry(entry, visible) for entry in entries]


def _visibility(substrate: Substrate, scopes: Collection[str]) -> Callable[[object], bool]:
    scopes = scope_set(scopes) or frozenset()

    def visible(item_id: object) -> bool:
        if not isinstance(item_id, str):
            return False
        target = substrate.peek(item_id)  # only its scope is wanted: nothing kept
        return target is not None and target.scope in scopes

    return visible


def _visible_references(
    provenance: dict[str, Any], visible: Callable[[object], bool]
) -> dict[str, Any]:
    shown = dict(provenance)
    for key in _ITEM_REFERENCES:
        value = shown.get(key)
        if isinstance(value, str) and not visible(value):
            del shown[key]
        elif isinstance(value, list):
            shown[key] = [v for v in value if visible(v)]
    history = shown.get("version_history")
    if isinstance(history, list):
        shown["version_history"] = [_visible_entry(entry, visible) for entry in history]
    return shown


def _visible_entry(entry: Any, visible: Callable[[object], bool]) -> Any:
    """A history entry, with the provenance and history of a merged-away item filtered (the
    item merged into this one was in its scope, so the entry's own ids are left as they are)."""
    if not isinstance(entry, dict):
        return entry
    shown = dict(entry)
    for recorded in ("from_provenance", "kept_provenance"):
        if isinstance(shown.get(recorded), dict):
            shown[recorded] = _visible_references(shown[recorded], visible)
    if isinstance(shown.get("from_history"), list):
        shown["from_history"] = [_visible_entry(inner, visible) for inner in shown["from_history"]]
    return shown
