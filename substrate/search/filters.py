"""Search filters: what a query may return, evaluated inside the index (see ``doctable``).

This module imports nothing heavy, so callers can build filters without loading numpy.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from substrate.errors import InvalidInputError, scope_set
from substrate.folding import composed, without_marks
from substrate.item import SubstrateItem, require_kind


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Restrictions applied before ranking.

    Attributes:
        kind: only items of this kind (or of any of these kinds, a tuple once built).
        scopes: only items whose scope is one of these (e.g. the scopes visible to a caller).
        tags: only items carrying every one of these tags (in any case: "ADR" is "adr"; a
            "#" before one aside), or a tag nested under it ("project/alpha" for "project").
        source_prefix: only items whose source (``provenance["source"]``, relative to the
            folder ingested) or absolute path (``["path"]``) is this path or lies under it
            (``docs`` matches ``docs/a.md`` but not ``docsx/a.md``), or whose path ends with
            it, as results name a source told apart from another (``teamA/refunds.md``); a
            tuple of paths matches items under any of them.
        since: only items created at or after this time (seconds since the epoch).
        until: only items created at or before this time.
        paths: only items whose file (``provenance["path"]``, absolute) is one of these.
        file_names: only items whose file's name (its path's last part, extension included)
            is one of these, letter case aside (``Project Hermes.md`` matches
            ``…/project hermes.md``): a note named as wiki-style links name one.
    """

    kind: str | tuple[str, ...] | None = None
    scopes: frozenset[str] | None = None
    tags: tuple[str, ...] = field(default=())
    source_prefix: str | tuple[str, ...] | None = None  # a tuple once built
    since: float | None = None
    until: float | None = None
    paths: tuple[str, ...] | None = None
    file_names: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.scopes is not None and not isinstance(self.scopes, frozenset):
            object.__setattr__(self, "scopes", scope_set(self.scopes))
        if isinstance(self.tags, str):
            raise InvalidInputError("tags must be a sequence of tag names, not one string")
        object.__setattr__(self, "tags", tuple(str(t) for t in self.tags))
        if self.kind is not None and not isinstance(self.kind, str):
            if not isinstance(self.kind, Iterable) or not self.kind:  # (none: matches nothing)
                raise InvalidInputError(f"kind names no kind: {self.kind!r}")
            object.__setattr__(self, "kind", tuple(dict.fromkeys(str(k) for k in self.kind)))
        for kind in (self.kind,) if isinstance(self.kind, str) else self.kind or ():
            require_kind(kind)
        if self.source_prefix is not None:
            given = self.source_prefix
            prefixes = (given,) if isinstance(given, str) else tuple(str(p) for p in given)
            if not prefixes:
                raise InvalidInputError("source_prefix needs at least one path")
            object.__setattr__(self, "source_prefix", prefixes)
        for name in ("paths", "file_names"):
            value = getattr(self, name)
            if isinstance(value, str):
                raise InvalidInputError(f"{name} must be a sequence of names, not one string")
            if value is not None:
                object.__setattr__(self, name, tuple(str(v) for v in value))
        for name in ("since", "until"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int | float) or math.isnan(value)):
                raise InvalidInputError(f"{name} must be a number of seconds, not {value!r}")
        if self.since is not None and self.until is not None and self.since > self.until:
            raise InvalidInputError("since is later than until: no item can match")

    @property
    def kinds(self) -> frozenset[str] | None:
        """The kinds items may have (None: any)."""
        if self.kind is None:
            return None
        return frozenset((self.kind,) if isinstance(self.kind, str) else self.kind)

    @property
    def is_empty(self) -> bool:
        """True when no restriction is set."""
        return (
            self.kind is None
            and self.scopes is None
            and not self.tags
            and self.source_prefix is None
            and self.since is None
            and self.until is None
            and self.paths is None
            and self.file_names is None
        )


# Between an item's source name and its absolute path in the index's one source column.
PATH_SEP = "\x1f"


def item_source(item: SubstrateItem) -> str:
    """Where an item came from, for source filters: ``provenance["source"]`` (a path relative
    to the folder ingested, as results show it) and ``provenance["path"]`` (absolute), either
    or both, joined by ``PATH_SEP``; '' when neither is known."""
    prov = item.provenance if isinstance(item.provenance, dict) else {}
    names = [str(prov.get(key) or "") for key in ("source", "path")]
    source, path = names
    if source and path and path != source:
        return f"{source}{PATH_SEP}{path}"
    return source or path


def tag_key(tag: str) -> str:
    """A tag as filters compare it: letter case and accents aside ("ADR" is "adr", "İstanbul"
    is "istanbul", "Café" is "cafe"), and the "#" notes write before one ("#urgent")."""
    return without_marks(tag.casefold()).removeprefix("#").rstrip("/")  # ("project/" too)


def has_tag(tags: Iterable[str], wanted: str) -> bool:
    """Whether one of ``tags`` is the tag ``wanted`` (a ``tag_key``) or is nested under it:
    "project/alpha" is found by "project", as note-taking apps nest tags."""
    nested = wanted + "/"
    return any(key == wanted or key.startswith(nested) for key in map(tag_key, tags))


def source_matcher(
    prefixes: Sequence[str], sources: Iterable[str] | None = None
) -> Callable[[str], bool]:
    """A test of one source column entry (``source``, or ``source PATH_SEP path``): whether
    either name is one of ``prefixes`` or lies under one. It works on the joined entry as it
    is, since it runs on every distinct source of every filtered query.

    Accents are compared composed on both sides (macOS writes "Café.md" decomposed, a user
    types it not), except for a prefix one of ``sources`` (the entries it will be asked of)
    is named by as written: that one is matched as written, so a file is not taken for
    another whose name differs only in how its accents are spelt (``ls --source`` piped to
    ``rm -`` removed both).
    """
    if not all(prefixes):
        return lambda names: True
    written: list[str] = []  # the prefixes some source is named by as written
    if sources is not None and not all(p.isascii() for p in prefixes):
        known = set(sources)
        written = [p for p in prefixes if any(map(_prefix_matcher([p], fold=False), known))]
    folded = [composed(p) for p in prefixes if p not in written]
    as_written = _prefix_matcher(written, fold=False) if written else None
    accents_aside = _prefix_matcher(folded, fold=True) if folded else None
    if as_written is None or accents_aside is None:
        return as_written or accents_aside or (lambda names: False)
    return lambda names: as_written(names) or accents_aside(names)


def _prefix_matcher(prefixes: Sequence[str], *, fold: bool) -> Callable[[str], bool]:
    """``source_matcher``'s test, names composed first with ``fold``."""
    stems = tuple(p if p.endswith(("/", "\\")) else p + "/" for p in prefixes)
    exact = frozenset(prefixes)
    heads = (*stems, *(p + PATH_SEP for p in prefixes))  # the first name
    tails = tuple(PATH_SEP + p for p in prefixes)  # the second name, whole
    inner = tuple(PATH_SEP + stem for stem in stems)  # the second name, under a prefix

    # results name a source by the end of its path when two would read the same
    # (``shown_sources``): "teamA/refunds.md" for the source "refunds.md" in /srv/teamA
    path_tails = tuple(("/" + p, p.count("/")) for p in prefixes if "/" in p.strip("/"))

    def matches(names: str) -> bool:
        if fold:
            names = composed(names)
        return (
            names in exact
            or names.startswith(heads)
            or names.endswith(tails)
            or any(stem in names for stem in inner)
            or bool(path_tails)
            and _ends_a_path(names, path_tails)
        )

    return matches


def _ends_a_path(names: str, tails: Sequence[tuple[str, int]]) -> bool:
    """Whether the path of a source column entry ends with one of ``tails`` longer (in
    folders) than its source name."""
    source, _, path = names.partition(PATH_SEP)
    depth = source.count("/")
    return any(path.endswith(tail) and folders > depth for tail, folders in tails)
