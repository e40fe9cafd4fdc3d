"""The index state: segments, the rows they hold that are dead, the model, and what it covers.

States are treated as values: folding changes in returns a new state that shares the unchanged
segments with the old one. This lets a search add an ephemeral overlay of unsaved changes on top
of the persisted index without touching it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from substrate.item import SubstrateItem
from substrate.search.counts import Counts, concat_counts
from substrate.search.coverage import Coverage
from substrate.search.doctable import DocTable, concat_tables
from substrate.search.embedding import EmbeddingModel, fit_model
from substrate.search.params import SearchParams
from substrate.search.segments import Segment, analyse_items, assemble, merge_segments
from substrate.search.tokenize import Analyzer

log = logging.getLogger(__name__)

_CHUNK = 20_000  # items analysed per batch during a full build (bounds memory)

Progress = Callable[[int, int], None]


@dataclass(slots=True)
class IndexState:
    """Everything a query needs, plus the bookkeeping to fold in changes.

    Attributes:
        params: the parameters the index was built with.
        model: the embedding, or None (lexical ranking only).
        segments: base segment first, then deltas.
        dead: per segment, rows that were removed or replaced.
        avgdl: average document length used to build postings.
        next_seq: insertion sequence number for the next new item.
        fitted_docs: live items when the embedding was last fitted (or a fit was attempted).
        coverage: the log position this state reflects (None for an ephemeral overlay).
    """

    params: SearchParams
    model: EmbeddingModel | None
    segments: list[Segment]
    dead: list[np.ndarray]
    avgdl: float
    next_seq: int
    fitted_docs: int
    coverage: Coverage | None
    _locations: dict[str, tuple[int, int]] | None = field(default=None, repr=False)
    _derived: dict[str, object] = field(default_factory=dict, repr=False)

    # -- sizes ---------------------------------------------------------------------------------

    @property
    def n_rows(self) -> int:
        return sum(s.n_rows for s in self.segments)

    @property
    def n_live(self) -> int:
        cached = self._derived.get("n_live")
        if cached is None:
            cached = sum(
                int(s.n_rows - d.sum()) for s, d in zip(self.segments, self.dead, strict=True)
            )
            self._derived["n_live"] = cached
        return cached  # type: ignore[return-value]

    @property
    def semantic(self) -> bool:
        """True when the embedding channel takes part in ranking."""
        return self.model is not None and self.n_live >= self.params.min_docs_semantic

    def bases(self) -> np.ndarray:
        """Global row number of each segment's first row."""
        cached = self._derived.get("bases")
        if cached is None:
            cached = np.cumsum([0] + [s.n_rows for s in self.segments])[:-1].astype(np.int64)
            self._derived["bases"] = cached
        return cached  # type: ignore[return-value]

    def seq(self) -> np.ndarray:
        """Insertion sequence number of every row (global row order)."""
        cached = self._derived.get("seq")
        if cached is None:
            cached = np.concatenate([s.docs.seq for s in self.segments] or [np.zeros(0, np.int64)])
            self._derived["seq"] = cached
        return cached  # type: ignore[return-value]

    def live(self) -> np.ndarray:
        """Mask of live rows (global row order)."""
        cached = self._derived.get("live")
        if cached is None:
            cached = ~np.concatenate(self.dead or [np.zeros(0, bool)])
            self._derived["live"] = cached
        return cached  # type: ignore[return-value]

    def locations(self) -> dict[str, tuple[int, int]]:
        """Live item id -> (segment index, row)."""
        if self._locations is None:
            where: dict[str, tuple[int, int]] = {}
            for si, (seg, dead) in enumerate(zip(self.segments, self.dead, strict=True)):
                ids = list(seg.docs.ids)  # one decode of a loaded segment's packed ids
                for row in np.flatnonzero(~dead).tolist():
                    where[ids[row]] = (si, row)
            self._locations = where
        return self._locations

    # -- folding changes in ----------------------------------------------------------------------

    def with_changes(
        self,
        analyzer: Analyzer,
        upserts: Sequence[SubstrateItem],
        removed: Iterable[str],
        *,
        coverage: Coverage | None,
        take_locations: bool = False,
    ) -> IndexState:
        """A new state with ``upserts`` added as a delta segment and ``removed`` masked out.

        Replaced items keep their insertion sequence number, so ties still rank them where
        they were first added, as the store lists them; an id both removed and upserted was
        removed and then added again, and takes a new one. With ``take_locations`` the new
        state takes over (and updates) this state's id map instead of rebuilding it later;
        this state must then be dropped.
        """
        # One row per id: the last upsert of an id wins, and an upserted id is not "removed".
        upserts = list({item.id: item for item in upserts}.values())
        fresh = {item.id for item in upserts}
        named = list(dict.fromkeys(removed))
        readded = fresh.intersection(named)
        removed = [item_id for item_id in named if item_id not in fresh]
        where = self.locations()
        dead = list(self.dead)
        touched: set[int] = set()

        def kill(item_id: str) -> tuple[int, int] | None:
            loc = where.get(item_id)
            if loc is not None:
                si, row = loc
                if si not in touched:
                    dead[si] = dead[si].copy()
                    touched.add(si)
                dead[si][row] = True
            return loc

        for item_id in removed:
            kill(item_id)
        seqs: list[int] = []
        next_seq = self.next_seq
        for item in upserts:
            loc = kill(item.id)
            if loc is not None and item.id not in readded:
                seqs.append(int(self.segments[loc[0]].docs.seq[loc[1]]))
            else:
                seqs.append(next_seq)
                next_seq += 1
        segments = list(self.segments)
        avgdl = self.avgdl
        if upserts:
            docs, counts = analyse_items(analyzer, upserts, seqs)
            if self.n_rows == 0:  # the first documents set the length scale
                avgdl = _average_length(counts)
            segments.append(
                assemble(docs, counts, avgdl=avgdl, params=self.params, model=self.model)
            )
            dead.append(np.zeros(len(upserts), dtype=bool))
        locations = None
        if take_locations:
            locations = where
            for item_id in removed:
                locations.pop(item_id, None)
            si = len(segments) - 1
            for row, item in enumerate(upserts):
                locations[item.id] = (si, row)
            self._locations = None
        return replace(
            self,
            segments=segments,
            dead=dead,
            avgdl=avgdl,
            next_seq=next_seq,
            coverage=coverage,
            _locations=locations,
            _derived={},
        )

    # -- maintenance ---------------------------------------------------------------------------

    def maintenance_due(self) -> str | None:
        """What upkeep the state needs now: "refit", "merge", "merge-deltas" or None."""
        p = self.params
        live = self.n_live
        first_fit = self.fitted_docs == 0 or live >= p.refit_growth * self.fitted_docs
        if self.model is None and live >= p.min_docs_semantic and first_fit:
            return "refit"
        if self.model is not None and live > p.refit_growth * max(self.fitted_docs, 1):
            return "refit"
        if len(self.segments) <= 1:
            return None
        base = self.segments[0].n_rows
        delta_rows = sum(s.n_rows for s in self.segments[1:])
        dead_rows = sum(int(d.sum()) for d in self.dead)
        if delta_rows > p.merge_fraction * base or dead_rows > p.merge_fraction * self.n_rows:
            return "merge"
        if len(self.segments) - 1 > p.max_segments:
            return "merge-deltas"
        return None

    def maintained(self) -> IndexState:
        """This state after any due merge or refit (``self`` if nothing was due)."""
        due = self.maintenance_due()
        if due is None:
            return self
        log.debug("search index maintenance: %s", due)
        if due == "merge-deltas":
            merged, _ = merge_segments(
                self.segments[1:],
                self.dead[1:],
                avgdl=self.avgdl,
                params=self.params,
                model=self.model,
            )
            return replace(
                self,
                segments=[self.segments[0], merged],
                dead=[self.dead[0], np.zeros(merged.n_rows, dtype=bool)],
                _locations=None,
                _derived={},
            )
        model = self.model
        fitted = self.fitted_docs
        if due == "refit":
            keep = [np.flatnonzero(~d) for d in self.dead]
            pairs = zip(self.segments, keep, strict=True)
            live_counts = concat_counts([s.counts.take(k) for s, k in pairs])
            model = fit_model(live_counts, self.params)
            fitted = self.n_live
        merged, avgdl = merge_segments(
            self.segments, self.dead, avgdl=None, params=self.params, model=model
        )
        return replace(
            self,
            model=model,
            segments=[merged],
            dead=[np.zeros(merged.n_rows, dtype=bool)],
            avgdl=avgdl,
            fitted_docs=fitted,
            _locations=None,
            _derived={},
        )


def _average_length(counts: Counts) -> float:
    if counts.n_docs == 0:
        return 1.0
    return max(float(counts.doc_len.mean()), 1.0)


def empty_state(params: SearchParams, coverage: Coverage | None) -> IndexState:
    """A state with no documents."""
    return IndexState(params, None, [], [], 1.0, 0, 0, coverage)


def build_state(
    analyzer: Analyzer,
    items: Iterable[SubstrateItem],
    params: SearchParams,
    coverage: Coverage | None,
    *,
    total: int = 0,
    progress: Progress | None = None,
) -> IndexState:
    """A fresh state over ``items`` (streamed in batches): one base segment, model fitted."""
    tables: list[DocTable] = []
    parts: list[Counts] = []
    seen: set[str] = set()
    batch: list[SubstrateItem] = []
    done = 0

    def flush() -> None:
        nonlocal done
        seq = range(done, done + len(batch))
        docs, counts = analyse_items(analyzer, batch, list(seq))
        tables.append(docs)
        parts.append(counts)
        done += len(batch)
        batch.clear()
        if progress is not None:
            progress(done, max(total, done))

    for item in items:
        if item.id in seen:  # defensive: one row per id even if the source repeats one
            continue
        seen.add(item.id)
        batch.append(item)
        if len(batch) >= _CHUNK:
            flush()
    if batch or not tables:
        flush()
    counts = concat_counts(parts) if len(parts) > 1 else parts[0]
    docs = concat_tables(tables) if len(tables) > 1 else tables[0]
    avgdl = _average_length(counts)
    model = fit_model(counts, params)
    segment = assemble(docs, counts, avgdl=avgdl, params=params, model=model)
    return IndexState(
        params,
        model,
        [segment],
        [np.zeros(segment.n_rows, dtype=bool)],
        avgdl,
        segment.n_rows,
        segment.n_rows,
        coverage,
    )
