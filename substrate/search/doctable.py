"""The search catalog of one segment: the filterable fields of each indexed item.

Filters (kind, scope, tags, source prefix, time range) are evaluated here, as boolean masks over
all rows, before ranking, so a filter never shortens a result list that was cut too early.
Strings with few distinct values are stored once and referenced by code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from substrate.folding import composed
from substrate.item import SubstrateItem
from substrate.search.filters import (
    PATH_SEP,
    SearchFilters,
    has_tag,
    item_source,
    source_matcher,
    tag_key,
)
from substrate.search.strings import PackedStrings


def _seconds(value: object) -> float:
    """A creation time as float seconds; NaN (matching no time filter) if it is not a number."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return float("nan")


def _encode(values: Sequence[str]) -> tuple[list[str], np.ndarray]:
    table: dict[str, int] = {}
    codes = np.fromiter(
        (table.setdefault(v, len(table)) for v in values), dtype=np.int32, count=len(values)
    )
    return list(table), codes


@dataclass(slots=True)
class DocTable:
    """Catalog columns of one segment (row ``i`` describes the segment's document ``i``).

    String columns are lists (or an object array for ids) when built in memory, and packed
    strings when loaded from disk.
    """

    ids: np.ndarray | PackedStrings  # object array of str
    kinds: list[str]
    kind_codes: np.ndarray
    scopes: list[str]
    scope_codes: np.ndarray
    sources: Sequence[str]
    source_codes: np.ndarray
    created_at: np.ndarray  # float64 seconds since the epoch
    seq: np.ndarray  # int64 insertion order across the shard (ties rank in this order)
    tag_names: Sequence[str]
    tag_indptr: np.ndarray  # int64, per row
    tag_codes: np.ndarray  # int32
    _tag_rows: np.ndarray | None = field(default=None, repr=False)
    _files: tuple[dict[str, list[int]], dict[str, list[int]]] | None = field(
        default=None, repr=False
    )

    @property
    def n_rows(self) -> int:
        return len(self.ids)

    @classmethod
    def from_items(cls, items: Sequence[SubstrateItem], seq: Iterable[int]) -> DocTable:
        """Catalog rows for ``items`` with the given insertion sequence numbers."""
        kinds, kind_codes = _encode([it.kind for it in items])
        scopes, scope_codes = _encode([str(it.scope) for it in items])
        sources, source_codes = _encode([item_source(it) for it in items])
        tag_lists = [
            [str(t) for t in it.tags] if isinstance(it.tags, list | tuple) else [] for it in items
        ]
        return cls.from_columns(
            ids=[it.id for it in items],
            kinds=kinds,
            kind_codes=kind_codes,
            scopes=scopes,
            scope_codes=scope_codes,
            sources=sources,
            source_codes=source_codes,
            created_at=np.fromiter(
                (_seconds(it.created_at) for it in items), dtype=np.float64, count=len(items)
            ),
            seq=np.fromiter(seq, dtype=np.int64, count=len(items)),
            tag_lists=tag_lists,
        )

    @classmethod
    def from_columns(
        cls,
        *,
        ids: Sequence[str],
        kinds: list[str],
        kind_codes: np.ndarray,
        scopes: list[str],
        scope_codes: np.ndarray,
        sources: Sequence[str],
        source_codes: np.ndarray,
        created_at: np.ndarray,
        seq: np.ndarray,
        tag_lists: Sequence[Sequence[str]],
    ) -> DocTable:
        names, codes = _encode([t for tags in tag_lists for t in tags])
        indptr = np.zeros(len(tag_lists) + 1, dtype=np.int64)
        np.cumsum([len(t) for t in tag_lists], out=indptr[1:])
        id_array = np.empty(len(ids), dtype=object)
        id_array[:] = list(ids)
        return cls(
            id_array,
            kinds,
            kind_codes.astype(np.int32),
            scopes,
            scope_codes.astype(np.int32),
            sources,
            source_codes.astype(np.int32),
            created_at.astype(np.float64),
            seq.astype(np.int64),
            names,
            indptr,
            codes,
        )

    def tags_of(self, row: int) -> list[str]:
        lo, hi = int(self.tag_indptr[row]), int(self.tag_indptr[row + 1])
        return [self.tag_names[c] for c in self.tag_codes[lo:hi]]

    def take(self, rows: np.ndarray) -> DocTable:
        """A new table with only ``rows``, in that order."""
        if isinstance(self.ids, PackedStrings):
            every = list(self.ids)  # decoding the blob once beats one decode per row
            ids = [every[r] for r in rows.tolist()]
        else:
            ids = list(self.ids[rows])
        return DocTable.from_columns(
            ids=ids,
            kinds=self.kinds,
            kind_codes=self.kind_codes[rows],
            scopes=self.scopes,
            scope_codes=self.scope_codes[rows],
            sources=self.sources,
            source_codes=self.source_codes[rows],
            created_at=self.created_at[rows],
            seq=self.seq[rows],
            tag_lists=[self.tags_of(int(r)) for r in rows],
        )

    def files(self) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
        """The source codes of each absolute path, and of each file name (case-folded):
        a link followed looks up its note here instead of testing every source."""
        if self._files is None:
            by_path: dict[str, list[int]] = {}
            by_name: dict[str, list[int]] = {}
            for code, entry in enumerate(self.sources):
                path = entry.rpartition(PATH_SEP)[2]
                by_path.setdefault(path, []).append(code)
                by_name.setdefault(_name_key(path.rpartition("/")[2]), []).append(code)
            self._files = (by_path, by_name)
        return self._files

    def rows_with_tag(self, tag: str) -> np.ndarray:
        """Rows carrying ``tag``, whatever its case ("ADR" finds "adr"), or a tag nested under
        it (``has_tag``), ascending."""
        wanted = tag_key(tag)
        codes = [code for code, name in enumerate(self.tag_names) if has_tag((name,), wanted)]
        if not codes:
            return np.zeros(0, dtype=np.int64)
        if self._tag_rows is None:
            self._tag_rows = np.repeat(np.arange(self.n_rows), np.diff(self.tag_indptr))
        return distinct(self._tag_rows[np.isin(self.tag_codes, codes)])


def concat_tables(tables: list[DocTable]) -> DocTable:
    """Stack several tables into one (codes are re-encoded into shared dictionaries)."""

    def strings(names: str, codes: str) -> list[str]:
        out: list[str] = []
        for t in tables:
            table = getattr(t, names)
            out.extend(table[c] for c in getattr(t, codes))
        return out

    kinds, kind_codes = _encode(strings("kinds", "kind_codes"))
    scopes, scope_codes = _encode(strings("scopes", "scope_codes"))
    sources, source_codes = _encode(strings("sources", "source_codes"))
    empty = np.zeros(0)
    return DocTable.from_columns(
        ids=[i for t in tables for i in t.ids],
        kinds=kinds,
        kind_codes=kind_codes,
        scopes=scopes,
        scope_codes=scope_codes,
        sources=sources,
        source_codes=source_codes,
        created_at=np.concatenate([t.created_at for t in tables] or [empty]),
        seq=np.concatenate([t.seq for t in tables] or [empty]),
        tag_lists=[t.tags_of(r) for t in tables for r in range(t.n_rows)],
    )


def _codes_in(table: Sequence[str], wanted: set[str]) -> np.ndarray:
    return np.asarray([i for i, name in enumerate(table) if name in wanted], dtype=np.int32)


def filter_mask(docs: DocTable, filters: SearchFilters) -> np.ndarray | None:
    """Rows of ``docs`` that pass ``filters``; None when every row passes."""
    if filters.is_empty:
        return None
    mask = np.ones(docs.n_rows, dtype=bool)
    if filters.kinds is not None:
        mask &= np.isin(docs.kind_codes, _codes_in(docs.kinds, set(filters.kinds)))
    if filters.scopes is not None:
        mask &= np.isin(docs.scope_codes, _codes_in(docs.scopes, set(filters.scopes)))
    codes = _source_codes(docs, filters)
    if codes is not None:
        mask &= np.isin(docs.source_codes, codes)
    if filters.since is not None:
        mask &= docs.created_at >= filters.since
    if filters.until is not None:
        mask &= docs.created_at <= filters.until
    for tag in filters.tags:
        tagged = np.zeros(docs.n_rows, dtype=bool)
        tagged[docs.rows_with_tag(tag)] = True
        mask &= tagged
    return mask


def _name_key(name: str) -> str:
    """A file's name as links name it: letter case aside, and its accents composed (macOS and
    the tools syncing from it write "Tomás.md" with a decomposed "á", a link typed with one)."""
    return composed(name).casefold()


def _source_codes(docs: DocTable, filters: SearchFilters) -> np.ndarray | None:
    """The codes of the sources that pass the source filters (None: there are none)."""
    chosen: set[int] | None = None
    if filters.paths is not None:
        by_path = docs.files()[0]
        chosen = {code for path in filters.paths for code in by_path.get(path, ())}
    if filters.file_names is not None:
        by_name = docs.files()[1]
        named = {code for name in filters.file_names for code in by_name.get(_name_key(name), ())}
        chosen = named if chosen is None else chosen & named
    if filters.source_prefix is not None:
        matches = source_matcher(filters.source_prefix, docs.sources)
        if chosen is None:  # every source: decoded in one pass, not one at a time
            chosen = {code for code, names in enumerate(docs.sources) if matches(names)}
        else:
            chosen = {code for code in sorted(chosen) if matches(docs.sources[code])}
    return None if chosen is None else np.asarray(sorted(chosen), dtype=np.int32)


def distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (``np.unique`` would import numpy.ma: 25 ms on a cold start)."""
    ordered = np.sort(values)
    if ordered.shape[0] == 0:
        return ordered
    keep = np.empty(ordered.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]
