"""Who sees what: a caller reads as a team and sees its own scope plus the shared scopes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from substrate.settings import Settings

PUBLIC = "public"


def visible_scopes(team: str, *, shared: Iterable[str] = (PUBLIC,)) -> set[str]:
    """The scopes ``team`` may read: its own plus the shared ones (never another team's)."""
    return {team, *shared}


def resolve_team(explicit: str | None, env: Mapping[str, str], settings: Settings) -> str | None:
    """``--as TEAM``, else ``MIXLE_TEAM``, else ``[shard] team`` in mixle.toml, else None."""
    if explicit:
        return explicit
    if env.get("MIXLE_TEAM"):
        return env["MIXLE_TEAM"]
    team = settings.get("shard", "team")
    return str(team) if team else None


def reader_scopes(team: str | None, settings: Settings) -> frozenset[str] | None:
    """The scopes a caller may read; None means no team is set (a single-user shard: all)."""
    if team is None:
        return None
    shared = settings.get("shard", "shared_scopes", [PUBLIC])
    return frozenset(visible_scopes(team, shared=shared))
