"""Which gone file a file new to the shard was moved from.

After ``mv notes archive`` and ``mixle ingest archive``, each file of ``archive`` takes the
place of the file it was: that file's items are removed in the same save (``IngestSession``
does that), else the shard would hold the content twice until ``notes`` was ingested again.
A file is known by its content hash; one that keeps no hash (a secret was masked in it) by its
size, modification time and name, as ``mv`` keeps them, and by how its stored items read.
A file that cannot be looked at, or that may lie on a drive or share not mounted
(``DiskLook.gone``), is not gone.
"""

from __future__ import annotations

import hashlib
import os
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING

import orjson

from substrate.ingest.disklook import DiskLook
from substrate.ingest.prepare import Prepared, Ticket
from substrate.ingest.sources import SourceCache, SourceState
from substrate.linesdigest import whole_file_hash

if TYPE_CHECKING:
    from substrate.item import SubstrateItem
    from substrate.store import Substrate

# Files that read alike, by each end of their path (``_ends``: ``README.md``,
# ``p2/README.md``, ...), each with whether it was gone from the disk when first looked at
_Places = dict[str, list[tuple[str, bool]]]
# A file's look without its hash: size, modification time (ns) and name
_Look = tuple[int, int, str]


class MovedFiles:
    """Finds, for one run, the gone file each new file was moved from. Each gone file is
    judged once: it is found moved, or still there, or taken by the file first read."""

    def __init__(
        self, substrate: Substrate, cache: SourceCache, gone: set[str], written: set[str]
    ) -> None:
        self.substrate = substrate
        self.cache = cache
        self.gone = gone  # the session's: sources whose items the run removes
        self.written = written  # the session's: ids of items the run writes
        self.disk = DiskLook()
        self._by_hash: dict[str, deque[str]] | None = None  # (``by_hash``)
        self._by_look: dict[_Look, list[str]] | None = None  # (``known_by_reading``)
        self._by_reading: dict[_Look, dict[bytes, _Places]] = {}

    def origin(self, ticket: Ticket, done: Prepared) -> str | None:
        """The source key of the file this file, new to the shard, was moved from: the
        first file of this scope, gone from the disk, last read with the same content."""
        # asked of every file read, the cheap tests first: a file known with its hash was
        # read again for a change (unless it gave no item, as an empty one), and the hashes of
        # all files are gathered only for another one
        if ticket.path is None:
            return None
        if not done.digest:  # (rare: a secret was masked in it)
            return self.origin_without_hash(ticket, done)
        known = self.cache.get(ticket.key) if ticket.known_hash else None
        if known is not None and known.ids:
            return None
        candidates = self.by_hash().get(done.digest)
        ids = self.ids_of_new(ticket, done) if candidates else None
        while candidates and ids:
            key = candidates.popleft()  # judged once: present now, or taken by this file
            if key == ticket.key or key in self.gone or self.cache.stored_meanwhile(key):
                continue
            state = self.cache.get(key)
            if state is None or state.content_hash != done.digest or state.skipped:
                continue
            # this very file, known by another name before (the prune judges it)
            if not self.written.isdisjoint(state.ids) or not set(ids).isdisjoint(state.ids):
                continue
            if self.disk.gone(key):
                return key
        return None

    def origin_without_hash(self, ticket: Ticket, done: Prepared) -> str | None:
        """``origin`` of a file that keeps no content hash: a gone file of this scope known
        without one, of the same look, whose stored items read as this file's do. Of several
        that read alike (their secrets masked, only those differ), the one whose path ends as
        this file's does (``p2/README.md`` from ``notes/p2/README.md``); when that one is
        still on disk, this file is its copy, and takes no place."""
        ids = self.ids_of_new(ticket, done)
        if ticket.size is None or ticket.mtime_ns is None or not ids:
            return None
        look = (ticket.size, ticket.mtime_ns, os.path.basename(ticket.key))
        by_reading = self.known_by_reading(look)
        if not by_reading:  # (the common case: nothing known looks so; no item is decoded)
            return None
        new = done.built_items()
        alike = by_reading.get(_reading(new))
        if not alike:
            return None
        for end in _ends(ticket.key):  # the longest end first: a folder moved keeps its
            fits = self.fits(alike.get(end, []), ticket.key, ids)  # files' places in it
            if not fits:
                continue
            key, gone = max(fits, key=lambda fit: fit[1])  # (a gone one first of equals)
            # (still there, now or when first looked at: a copy of it)
            return key if gone and self.disk.gone(key) else None
        return None

    def ids_of_new(self, ticket: Ticket, done: Prepared) -> list[str]:
        """The ids of the items of a file new to the shard (known to it by no item, under
        any options), which may take a gone file's place; [] for any other file."""
        known = self.cache.get(ticket.key)
        return [] if known is not None and known.ids else done.item_ids()

    def fits(
        self, entries: list[tuple[str, bool]], key: str, ids: list[str]
    ) -> list[tuple[str, bool]]:
        """Those of ``entries`` (files known without a hash that read alike, each with
        whether it was gone) that the file ``key`` giving ``ids`` may take the place of."""
        fits = []
        for entry in entries:
            state = self.cache.get(entry[0])
            if state is None or entry[0] == key or not self.may_be_moved(entry[0], state):
                continue
            if set(ids).isdisjoint(state.ids):  # (else this very file, known by another name)
                fits.append(entry)
        return fits

    def known_by_reading(self, look: _Look) -> dict[bytes, _Places]:
        """The files of this scope known without a hash that have ``look``, by how their stored
        items read (``_reading``), then by each end of their path (``_Places``); worked out
        once per look and run (a store read and a look at the disk per file)."""
        if self._by_look is None:
            self._by_look = self.cache.hashless_files_by_look()
        if look not in self._by_reading:
            by_reading: dict[bytes, _Places] = {}
            for key in self._by_look.get(look, []):
                state = self.cache.get(key)
                if state is None or not state.ids or not self.may_be_moved(key, state):
                    continue
                stored = self.substrate.read_items(state.ids, keep=False)
                if len(stored) == len(state.ids):  # (else some were removed by hand: no move)
                    places = by_reading.setdefault(_reading(stored.values()), {})
                    entry = (key, self.disk.gone(key))
                    for end in _ends(key):
                        places.setdefault(end, []).append(entry)
            self._by_reading[look] = by_reading
        return self._by_reading[look]

    def may_be_moved(self, key: str, state: SourceState) -> bool:
        """Whether the file ``key``, known with no hash, may be found moved by this run: not
        judged yet, nor changed by another run meanwhile, nor written by this one."""
        if key in self.gone or self.cache.stored_meanwhile(key):
            return False
        known = whole_file_hash(state.content_hash)
        return not (known or state.skipped) and self.written.isdisjoint(state.ids)

    def by_hash(self) -> dict[str, deque[str]]:
        """The files of this scope the cache knows, by content hash (``origin`` takes each
        out as it judges it), gathered the first time a move is looked for."""
        if self._by_hash is None:
            known = self.cache.files_by_hash()
            self._by_hash = {digest: deque(files) for digest, files in known.items()}
        return self._by_hash


def _reading(items: Iterable[SubstrateItem]) -> bytes:
    """A digest of how ``items`` read, known without their file's hash: their kinds,
    sections and masked texts, in an order of their own."""
    read = sorted((i.kind, str(i.provenance.get("section")), i.text) for i in items)
    return hashlib.blake2b(orjson.dumps(read), digest_size=16).digest()


def _ends(path: str) -> list[str]:
    """Each end of ``path``, the longest first: ``a/b/c``, ``b/c``, ``c``."""
    parts = path.split(os.sep)
    return [os.sep.join(parts[n:]) for n in range(len(parts))]
