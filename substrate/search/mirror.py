"""Memory-mappable mirrors of the Parquet index files: how a search opens the index quickly.

Loading the Parquet files of a 100k-item index means importing pyarrow, decompressing every
column and building Python lists and dicts of every id and term: about a third of a second
before the first query. The mirrors hold the same arrays raw (see ``packs``): opening the index
is a few ``mmap`` calls, term lookups bisect packed vocabularies, and a query reads only the
pages of the postings, rows and vectors it touches.

A mirror records what identifies each Parquet file it mirrors (see ``layout.unchanged``) and is
used only while those files are unchanged. Anything unexpected (a missing or damaged
pack, a rewritten manifest, other parameters, another format) makes ``read_mirrored`` return
None, and the caller falls back to the Parquet files, which decide between loading, rebuilding
and refusing a newer format.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from substrate.derived import system_words
from substrate.search.bm25 import Postings
from substrate.search.counts import Counts
from substrate.search.coverage import Coverage
from substrate.search.doctable import DocTable
from substrate.search.embedding import EmbeddingModel
from substrate.search.layout import (
    MANIFEST,
    MANIFEST_PACK,
    content_identity,
    identity,
    manifest_stamp,
    model_file,
    pack_of,
    segment_files,
    stamp,
    unchanged,
)
from substrate.search.packs import Pack, PackError, open_pack, write_pack
from substrate.search.params import FORMAT_VERSION, SearchParams
from substrate.search.segments import Segment
from substrate.search.state import IndexState
from substrate.search.strings import PackedStrings, pack_strings

log = logging.getLogger(__name__)


def _open(directory: Path, name: str, params: SearchParams) -> Pack | None:
    try:
        pack = open_pack(directory / name)
    except PackError as exc:
        log.debug("index mirror %s unusable: %s", name, exc)
        return None
    meta = pack.meta
    if meta.get("format") != FORMAT_VERSION or meta.get("build_key") != params.build_key():
        return None
    if not unchanged(directory, meta.get("mirrors")):
        return None
    return pack


# -- writing ------------------------------------------------------------------------------------


def _strings(
    prefix: str, values: Sequence[str] | np.ndarray, *, lookup: bool
) -> dict[str, np.ndarray]:
    """The arrays of ``values`` as packed strings, named ``<prefix>_<array>``."""
    arrays = values.arrays() if isinstance(values, PackedStrings) else None
    if arrays is None or (lookup and arrays.order is None):
        arrays = pack_strings(values, lookup=lookup)
    out = {f"{prefix}_blob": arrays.blob, f"{prefix}_offsets": arrays.offsets}
    if lookup:
        assert arrays.order is not None and arrays.keys is not None
        out[f"{prefix}_order"] = arrays.order
        out[f"{prefix}_keys"] = arrays.keys
    return out


def _write_segment_pack(
    directory: Path,
    segment: Segment,
    params: SearchParams,
    coverage: Coverage | None,
    force: bool,
) -> None:
    names = segment_files(segment.name)
    target = directory / pack_of(names[0])
    if not force and _open(directory, target.name, params) is not None:
        return  # segments are immutable: a valid mirror is the right one
    d, c, p = segment.docs, segment.counts, segment.postings
    arrays: dict[str, np.ndarray] = {
        **_strings("ids", d.ids, lookup=False),
        "kind_codes": d.kind_codes,
        "scope_codes": d.scope_codes,
        **_strings("sources", d.sources, lookup=False),
        "source_codes": d.source_codes,
        "created_at": d.created_at,
        "seq": d.seq,
        **_strings("tags", d.tag_names, lookup=True),
        "tag_indptr": d.tag_indptr,
        "tag_codes": d.tag_codes,
        **_strings("terms", c.terms, lookup=True),
        "indptr": c.indptr,
        "indices": c.indices,
        "counts": c.counts,
        "doc_len": c.doc_len,
        "df": p.df,
        "offsets": p.offsets,
        "rows": p.rows,
        "weights": p.weights,
        "tf": p.tf,
    }
    if segment.vectors is not None and segment.signatures is not None:
        arrays["vectors"] = segment.vectors
        arrays["signatures"] = segment.signatures
    meta = stamp(
        "segment",
        params,
        coverage,
        segment=segment.name,
        model_id=segment.model_id,
        rows=segment.n_rows,
        kinds=list(d.kinds),
        scopes=list(d.scopes),
        mirrors={name: identity(directory / name) for name in names},
    )
    write_pack(target, meta, arrays)


def _write_model_pack(
    directory: Path, model: EmbeddingModel, params: SearchParams, force: bool
) -> None:
    name = model_file(model.model_id)
    target = directory / pack_of(name)
    if not force and _open(directory, target.name, params) is not None:
        return
    meta = stamp(
        "model",
        params,
        None,
        model_id=model.model_id,
        fitted_docs=model.fitted_docs,
        mirrors={name: identity(directory / name)},
    )
    arrays = {
        **_strings("terms", model.terms, lookup=True),
        "idf": model.idf,
        "components": model.components,
    }
    write_pack(target, meta, arrays)


def write_mirrors(directory: Path, state: IndexState, *, force: bool = False) -> None:
    """Write the mirrors of ``state``'s Parquet files (which must already be on disk).

    Mirrors of immutable files (segments, the model) that look current are kept, unless
    ``force``: after the mirrors failed to load, none of them is taken on trust.
    Best effort: a mirror that cannot be written only means the next search reads Parquet.
    """
    try:
        if state.model is not None:
            _write_model_pack(directory, state.model, state.params, force)
        for segment in state.segments:
            _write_segment_pack(directory, segment, state.params, state.coverage, force)
        dead_rows = [np.flatnonzero(d).astype(np.int32) for d in state.dead]
        dead_offsets = np.zeros(len(dead_rows) + 1, dtype=np.int64)
        np.cumsum([r.shape[0] for r in dead_rows], out=dead_offsets[1:])
        meta = {
            **manifest_stamp(state),
            "segments": [[s.name, s.n_rows] for s in state.segments],
            "mirrors": {MANIFEST: content_identity(directory / MANIFEST)},
        }
        flat = np.concatenate(dead_rows) if dead_rows else np.zeros(0, np.int32)
        write_pack(
            directory / MANIFEST_PACK, meta, {"dead_offsets": dead_offsets, "dead_rows": flat}
        )
    except OSError as exc:
        log.warning(
            "could not write the search index mirrors in %s: %s", directory, system_words(exc)
        )


# -- reading ------------------------------------------------------------------------------------


def _packed(pack: Pack, prefix: str, *, lookup: bool) -> PackedStrings:
    blob = pack.array(f"{prefix}_blob")
    offsets = pack.array(f"{prefix}_offsets")
    order = pack.array(f"{prefix}_order") if lookup else None
    keys = pack.array(f"{prefix}_keys") if lookup else None
    if offsets.shape[0] == 0 or int(offsets[-1]) > blob.shape[0]:
        raise PackError(f"{prefix}: offsets run past the strings")
    if blob.shape[0] == 0:
        return PackedStrings(b"", offsets, order, keys)
    # Slicing the memory map itself yields bytes directly, without numpy in between.
    return PackedStrings(pack.buffer, offsets, order, keys, pack.offset_of(f"{prefix}_blob"))


def _read_segment(pack: Pack, model_id: str | None) -> Segment:
    meta = pack.meta
    n = int(meta["rows"])
    docs = DocTable(
        _packed(pack, "ids", lookup=False),
        [str(k) for k in meta["kinds"]],
        pack.array("kind_codes"),
        [str(s) for s in meta["scopes"]],
        pack.array("scope_codes"),
        _packed(pack, "sources", lookup=False),
        pack.array("source_codes"),
        pack.array("created_at"),
        pack.array("seq"),
        _packed(pack, "tags", lookup=True),
        pack.array("tag_indptr"),
        pack.array("tag_codes"),
    )
    terms = _packed(pack, "terms", lookup=True)
    counts = Counts(
        terms,
        pack.array("indptr"),
        pack.array("indices"),
        pack.array("counts"),
        pack.array("doc_len"),
    )
    postings = Postings(
        terms,
        pack.array("df"),
        pack.array("offsets"),
        pack.array("rows"),
        pack.array("weights"),
        pack.array("tf"),
    )
    vectors = signatures = None
    if "vectors" in pack:
        vectors, signatures = pack.array("vectors"), pack.array("signatures")
    if docs.n_rows != n or counts.n_docs != n or (vectors is not None and vectors.shape[0] != n):
        raise PackError(f"segment {meta.get('segment')}: columns disagree on the row count")
    return Segment(str(meta["segment"]), docs, counts, postings, vectors, signatures, model_id)


_MAX_BUMP = 32 << 20  # glibc's ceiling for its adaptive mmap threshold on 64-bit systems


def _recycle_temporaries(rows: int) -> None:
    """Let the allocator reuse the per-query arrays (a few per row of the index).

    glibc serves allocations above its mmap threshold (128 KiB at start) with fresh mappings:
    each temporary of a query over a large index would be mapped, page-faulted in and unmapped
    again, which doubled the time of a warm 100k-item query. Freeing one mapped block raises the
    threshold to its size (glibc adapts it), after which temporaries are recycled from the heap.
    Reading Parquet did this as a side effect; mapping the index does not. The block is never
    touched, so this costs a map and an unmap; other allocators are unaffected.
    """
    size = min(max(rows, 1) * 16, _MAX_BUMP)
    if size > 128 << 10:
        block = np.empty(size, dtype=np.uint8)
        del block


def read_mirrored(directory: Path, params: SearchParams) -> IndexState | None:
    """The index from its mirrors, or None when they are missing, stale or unusable."""
    manifest = _open(directory, MANIFEST_PACK, params)
    if manifest is None:
        return None
    meta = manifest.meta
    try:
        model = None
        if meta.get("model"):
            model_pack = _open(directory, pack_of(str(meta["model"])), params)
            if model_pack is None:
                return None
            model = EmbeddingModel(
                _packed(model_pack, "terms", lookup=True),
                model_pack.array("idf"),
                model_pack.array("components"),
                int(model_pack.meta["fitted_docs"]),
                str(model_pack.meta["model_id"]),
            )
        dead_offsets = manifest.array("dead_offsets")
        dead_rows = manifest.array("dead_rows")
        segments: list[Segment] = []
        dead: list[np.ndarray] = []
        for i, (name, rows) in enumerate(meta["segments"]):
            pack = _open(directory, pack_of(segment_files(str(name))[0]), params)
            if pack is None or int(pack.meta["rows"]) != int(rows):
                return None
            segments.append(_read_segment(pack, pack.meta.get("model_id")))
            mask = np.zeros(int(rows), dtype=bool)
            mask[dead_rows[int(dead_offsets[i]) : int(dead_offsets[i + 1])]] = True
            dead.append(mask)
        coverage = Coverage.from_meta(meta.get("watermark"))
        _recycle_temporaries(sum(int(rows) for _, rows in meta["segments"]))
        return IndexState(
            params,
            model,
            segments,
            dead,
            float(meta["avgdl"]),
            int(meta["next_seq"]),
            int(meta["fitted_docs"]),
            coverage,
        )
    except (PackError, KeyError, ValueError, TypeError, IndexError) as exc:
        log.debug("index mirrors unusable, reading Parquet: %s", exc)
        return None
