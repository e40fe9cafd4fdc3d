"""How the ingest source cache names a source, and why a name may be masked.

A source is a file (its absolute path) or a stream (``stream:<name>``), ingested into a scope;
its cache key is the scope, a NUL character and the source's name.

A secret pasted into a file name must not reach the cache on disk any more than the items:
such a source is named as the write-time gate masks it in provenance, followed by a digest of
its real name (``cache_origin``). The digest tells apart names that mask alike and finds the
entry again from the real name; ingestion records it in the items (``origin_digest``), so that
a cache rebuilt from the items names the source the same way.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

from substrate.secrets.hits import MASK_LEAD
from substrate.secrets.paths import safe_path

if TYPE_CHECKING:
    from substrate.item import SubstrateItem

STREAM_PREFIX = "stream:"

# Between a masked source name and the digest of its real name: a path cannot hold it.
DIGEST_SEP = "\x00"
DIGEST_KEY = "origin_digest"  # the provenance field that records the digest


def origin_digest(origin: str) -> str:
    """A short digest of a source's real name (a path, or ``stream:<name>``)."""
    raw = origin.encode("utf-8", "surrogateescape")
    return hashlib.blake2b(raw, digest_size=8).hexdigest()


def cache_origin(origin: str) -> str:
    """How the cache names ``origin``: as it is, or, when its name holds a secret, the name as
    the write-time gate masks it in provenance, ``DIGEST_SEP`` and ``origin_digest``."""
    prefix = STREAM_PREFIX if origin.startswith(STREAM_PREFIX) else ""
    name = origin[len(prefix) :]
    masked = safe_path(name)
    if masked == name:
        return origin
    return f"{prefix}{masked}{DIGEST_SEP}{origin_digest(origin)}"


class MaskedFiles:
    """Finds the files on disk that paths with secrets masked stand for, listing each folder
    once however many of its files are looked for."""

    def __init__(self) -> None:
        self._masked_names: dict[str, dict[str, list[str]]] = {}

    def find(self, shown: str, digest: str) -> str | None:
        """The file that ``shown``, an absolute path with secrets masked, stands for: the one
        whose ``cache_origin`` is ``shown`` with ``digest``, or None when there is none."""
        wanted = f"{shown}{DIGEST_SEP}{digest}"
        return next((path for path in self.paths(shown) if cache_origin(path) == wanted), None)

    def paths(self, shown: str) -> list[str]:
        """The paths on disk that mask to ``shown`` (an absolute path), component by
        component: each masked one stands for the names of its folder that mask to it."""
        paths = [os.sep]
        for part in shown.split(os.sep)[1:]:
            if MASK_LEAD in part:  # the names of the folder that mask to this one
                paths = [os.path.join(p, name) for p in paths for name in self._alike(p, part)]
            else:
                paths = [os.path.join(p, part) for p in paths]
        return paths

    def _alike(self, folder: str, part: str) -> list[str]:
        names = self._masked_names.get(folder)
        if names is None:
            names = self._masked_names[folder] = _names_by_mask(folder)
        return names.get(part, [])


def _names_by_mask(folder: str) -> dict[str, list[str]]:
    """The names in ``folder`` that hold a secret, by how the gate masks them."""
    try:
        listed = os.listdir(folder)
    except OSError:
        return {}
    found: dict[str, list[str]] = {}
    for name in listed:
        masked = safe_path(name)
        if masked != name:
            found.setdefault(masked, []).append(name)
    return found


def shown_origin(origin: str) -> str:
    """``origin`` as a cache names it, without the digest of a masked name."""
    return origin.split(DIGEST_SEP, 1)[0]


def scoped_key(origin: str, scope: str) -> str:
    """The cache key of source ``origin`` (a path or ``stream:<name>``) ingested into ``scope``."""
    return f"{scope}\x00{origin}"  # scope first: the path part groups by directory on disk


def is_masked(key: str) -> bool:
    """Whether a cache key names its source by a masked name (``cache_origin``)."""
    return key.count(DIGEST_SEP) > 1  # one after the scope, one before the digest


def source_key(item: SubstrateItem) -> str | None:
    """The cache key of an item written by ``ingest_path``/``ingest_text``, else None.

    The scope is the one the item was ingested into: an item published into another scope
    since still belongs to the source of the team that ingested it.
    """
    provenance = item.provenance
    if "ingest_options" not in provenance:
        return None
    scope = provenance.get("ingest_scope")
    if not isinstance(scope, str):
        scope = item.scope  # ingested before the ingest scope was recorded
    path = provenance.get("path")
    if isinstance(path, str) and path:
        origin = path
    else:
        source = provenance.get("source")
        if not isinstance(source, str):
            return None
        origin = f"{STREAM_PREFIX}{source}"
    digest = provenance.get(DIGEST_KEY)
    if isinstance(digest, str) and digest:  # the gate masked the name (see cache_origin)
        origin = f"{origin}{DIGEST_SEP}{digest}"
    return scoped_key(origin, scope)
