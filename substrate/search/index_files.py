"""Reading and writing the search index as Parquet files under ``<shard>/index/``.

Files (all stamped in their schema metadata with the format version, the build parameters and
the log watermark they cover):

* ``search-manifest.parquet``: one row per live segment (name, rows, dead rows); its metadata
  holds the index-wide state. It is replaced atomically and is the only file a reader trusts:
  segment and model files are immutable and named uniquely, so a half-written update is
  invisible.
* ``search-model-<id>.parquet``: the embedding (term, idf, component vector).
* ``search-seg-<name>.docs.parquet``: the catalog (id, kind, scope, source, created_at, seq,
  tags), the forward index (terms, counts, doc_len), vectors (float32) and packed signatures.
* ``search-seg-<name>.terms.parquet``: BM25 postings (term, df, rows, weights, tf).

This module writes them (and holds what reading shares); ``index_read`` reads them back. Each
write also refreshes the memory-mappable mirrors of the files (see ``layout`` and ``mirror``).
"""

from __future__ import annotations

import base64
import json
import logging
import zlib
from contextlib import suppress
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from substrate.derived import derived_dir
from substrate.errors import ShardFormatError
from substrate.replacing import open_temporary, remove_abandoned_temporaries, replacing
from substrate.search.coverage import Coverage
from substrate.search.embedding import EmbeddingModel
from substrate.search.layout import (
    MANIFEST,
    MANIFEST_PACK,
    META_KEY,
    PREFIX,
    StaleIndex,
    manifest_stamp,
    model_file,
    pack_of,
    segment_files,
    stamp,
)
from substrate.search.mirror import write_mirrors
from substrate.search.params import FORMAT_VERSION, SearchParams
from substrate.search.segments import Segment
from substrate.search.state import IndexState

__all__ = ["MANIFEST", "META_KEY", "PREFIX", "StaleIndex", "read_meta", "write_state"]

log = logging.getLogger(__name__)


def _meta(kind: str, params: SearchParams, coverage: Coverage | None, **extra: Any) -> bytes:
    return _encode(stamp(kind, params, coverage, **extra))


def _encode(meta: dict[str, Any]) -> bytes:
    # the Parquet footer holding this has no checksum of its own: a flipped digit in the
    # watermark or the format must read as damage, not as another log offset or a newer mixle
    body = json.dumps(meta, sort_keys=True).encode()
    return json.dumps({**meta, CRC_FIELD: zlib.crc32(body)}, sort_keys=True).encode()


def _checked(meta: dict[str, Any]) -> bool:
    """Whether metadata read back matches its CRC (metadata written without one passes)."""
    crc = meta.pop(CRC_FIELD, None)
    return crc is None or crc == zlib.crc32(json.dumps(meta, sort_keys=True).encode())


CRC_FIELD = "crc"
_ARROW_SCHEMA = b"ARROW:schema"  # the Arrow schema a Parquet file written by Arrow embeds


def footer_damage(footer: pq.FileMetaData) -> str | None:
    """What is found damaged in the footer of an index file, or None.

    The footer has no checksum of its own (its pages have). The ``mixle.search`` metadata in
    it carries a CRC, and the footer holds that metadata twice: as a key of its own and in
    the Arrow schema it embeds (the copy that readers take). It holds the column names twice
    too, in the Parquet schema (the names that readers take) and in that Arrow schema, and the
    number of rows, for the file and for each row group (readers size their arrays by the
    first). So a flipped byte in either copy shows, without reading more than the footer.
    """
    keys = footer.metadata or {}
    raw = keys.get(META_KEY)
    if raw is None:
        return "no index metadata"
    try:
        if not _checked(json.loads(raw)):
            return "index metadata failing its checksum"
        groups = range(footer.num_row_groups)
        if footer.num_rows != sum(footer.row_group(group).num_rows for group in groups):
            return "a row count its row groups do not add up to"
        embedded = keys.get(_ARROW_SCHEMA)
        if embedded is None:  # written by another Parquet writer: nothing to compare
            return None
        arrow = pa.ipc.read_schema(pa.py_buffer(base64.b64decode(embedded, validate=True)))
        if (arrow.metadata or {}).get(META_KEY) != raw:
            return "index metadata differing from its other copy"
        if arrow.names != footer.schema.to_arrow_schema().names:
            return "column names differing from their other copy"
    except (ValueError, TypeError, AttributeError, pa.ArrowException) as exc:
        # (UnicodeDecodeError is a ValueError: a flipped byte in a name)
        return f"unreadable index metadata ({' '.join(str(exc).split())})"
    return None


def read_meta(path: Path, params: SearchParams) -> dict[str, Any]:
    try:
        footer = pq.read_metadata(path)
    except FileNotFoundError as exc:
        raise StaleIndex(f"{path.name} is missing") from exc
    except (OSError, ValueError, pa.ArrowException) as exc:  # ValueError: a damaged footer
        raise StaleIndex(f"{path.name} is unreadable: {exc}") from exc
    damage = footer_damage(footer)
    if damage is not None:
        raise StaleIndex(f"{path.name} has {damage}")
    meta = json.loads(footer.metadata[META_KEY])
    meta.pop(CRC_FIELD, None)
    try:
        version = int(meta.get("format", 0))
    except (ValueError, TypeError) as exc:  # a format that is no number
        raise StaleIndex(f"{path.name} has unreadable index metadata ({exc})") from exc
    if version > FORMAT_VERSION:
        raise ShardFormatError(
            f"{path} was written by a newer mixle (search index format {version}, this version "
            f"reads up to {FORMAT_VERSION}); upgrade mixle, or rebuild the index from the log "
            "(`mixle reindex`)"
        )
    if version < FORMAT_VERSION or meta.get("build_key") != params.build_key():
        raise StaleIndex(f"{path.name} was built with other parameters")
    return dict(meta)


_ROW_GROUP = 1 << 16  # rows per Parquet row group: bounds memory when reading vectors


_GROUP_ENTRIES = 1 << 20  # list entries (postings) per row group, for the same reason


def _groups(entry_offsets: np.ndarray | None, n_rows: int) -> list[tuple[int, int]]:
    """Row ranges of at most ``_ROW_GROUP`` rows and (roughly) ``_GROUP_ENTRIES`` entries."""
    bounds = []
    lo = 0
    while lo < n_rows:
        hi = min(n_rows, lo + _ROW_GROUP)
        if entry_offsets is not None:
            limit = entry_offsets[lo] + _GROUP_ENTRIES
            hi = min(hi, int(np.searchsorted(entry_offsets, limit, side="right")) - 1)
            hi = max(hi, lo + 1)
        bounds.append((lo, hi))
        lo = hi
    return bounds


def _write(table: pa.Table, path: Path, entry_offsets: np.ndarray | None = None) -> None:
    """Write atomically, in row groups small enough to read back in bounded memory."""
    # page checksums: a damaged page fails its read (and the index is rebuilt) instead of
    # decoding into wrong postings
    with (
        replacing(path) as tmp,
        open_temporary(tmp) as fh,
        pq.ParquetWriter(fh, table.schema, compression="zstd", write_page_checksum=True) as out,
    ):
        for lo, hi in _groups(entry_offsets, table.num_rows) or [(0, 0)]:
            out.write_table(table.slice(lo, hi - lo), row_group_size=max(hi - lo, 1))


def _list_array(offsets: np.ndarray, values: pa.Array) -> pa.Array:
    return pa.LargeListArray.from_arrays(pa.array(offsets.astype(np.int64)), values)


def list_parts(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """Offsets (int64) and flat values of a list column."""
    arr = column.combine_chunks()
    offsets = np.asarray(arr.offsets, dtype=np.int64)
    values = arr.values
    start = int(offsets[0])
    if start:
        offsets = offsets - start
    return offsets, values.slice(start, int(offsets[-1]))


def as_numpy(values: pa.Array, dtype: Any) -> np.ndarray:
    # Always copy into numpy-owned memory: arrays that view Arrow buffers were measured to
    # make the first few dozen queries of a process up to 50x slower.
    return np.array(values.to_numpy(zero_copy_only=False), dtype=dtype, copy=True)


# -- writing ------------------------------------------------------------------------------------


def write_model(
    directory: Path, model: EmbeddingModel, params: SearchParams, *, rewrite: bool = False
) -> str:
    """Write the embedding model (kept if already on disk, unless ``rewrite``); returns its
    file name."""
    name = model_file(model.model_id)
    if not rewrite and _current(directory / name, params):
        return name
    dim = model.dim
    table = pa.table(
        {
            "term": pa.array(list(model.terms), pa.string()),
            "idf": pa.array(model.idf, pa.float32()),
            "component": pa.FixedSizeListArray.from_arrays(
                pa.array(model.components.reshape(-1), pa.float32()), dim
            ),
        }
    )
    meta = _meta("model", params, None, fitted_docs=model.fitted_docs, model_id=model.model_id)
    _write(table.replace_schema_metadata({META_KEY: meta}), directory / name)
    return name


def _current(path: Path, params: SearchParams) -> bool:
    """True if ``path`` exists and was written in this format with these parameters.

    A model's file name is a digest of its content, so a refit on the same items finds the file
    of an earlier version of mixle under the same name: that one must be rewritten, not kept.
    """
    if not path.exists():
        return False
    try:
        read_meta(path, params)
    except (StaleIndex, ShardFormatError):
        return False
    return True


def write_segment(
    directory: Path,
    segment: Segment,
    params: SearchParams,
    coverage: Coverage | None,
    *,
    rewrite: bool = False,
) -> list[str]:
    """Write a segment's two files (skipped if already on disk, unless ``rewrite``); returns
    their names."""
    docs_name, terms_name = segment_files(segment.name)
    on_disk = (directory / docs_name).exists() and (directory / terms_name).exists()
    if on_disk and not rewrite:
        return [docs_name, terms_name]
    d = segment.docs
    c = segment.counts
    columns: dict[str, pa.Array] = {
        "id": pa.array(list(d.ids), pa.string()),  # list(): ids may be packed strings
        "kind": pa.DictionaryArray.from_arrays(
            pa.array(d.kind_codes), pa.array(d.kinds, pa.string())
        ),
        "scope": pa.DictionaryArray.from_arrays(
            pa.array(d.scope_codes), pa.array(d.scopes, pa.string())
        ),
        "source": pa.DictionaryArray.from_arrays(
            pa.array(d.source_codes), pa.array(list(d.sources), pa.string())
        ),
        "created_at": pa.array(d.created_at, pa.float64()),
        "seq": pa.array(d.seq, pa.int64()),
        "tags": _list_array(
            d.tag_indptr,
            pa.array([d.tag_names[i] for i in d.tag_codes.tolist()], pa.string()),
        ),
        "doc_len": pa.array(c.doc_len, pa.int32()),
        "terms": _list_array(c.indptr, pa.array(c.indices, pa.int32())),
        "counts": _list_array(c.indptr, pa.array(c.counts, pa.int32())),
    }
    if segment.vectors is not None and segment.signatures is not None:
        dim = segment.vectors.shape[1]
        columns["vector"] = pa.FixedSizeListArray.from_arrays(
            pa.array(segment.vectors.reshape(-1), pa.float32()), dim
        )
        width = segment.signatures.shape[1]
        columns["signature"] = pa.FixedSizeBinaryArray.from_buffers(
            pa.binary(width), segment.n_rows, [None, pa.py_buffer(segment.signatures.tobytes())]
        )
    meta = _meta(
        "segment-docs",
        params,
        coverage,
        segment=segment.name,
        model_id=segment.model_id,
        entries=int(c.indices.shape[0]),
    )
    _write(pa.table(columns).replace_schema_metadata({META_KEY: meta}), directory / docs_name)
    p = segment.postings
    terms = pa.table(
        {
            "term": pa.array(list(p.terms), pa.string()),
            "df": pa.array(p.df, pa.int32()),
            "rows": _list_array(p.offsets, pa.array(p.rows, pa.int32())),
            "weights": _list_array(p.offsets, pa.array(p.weights, pa.float32())),
            "tf": _list_array(p.offsets, pa.array(p.tf, pa.int32())),
        }
    )
    meta = _meta(
        "segment-terms", params, coverage, segment=segment.name, postings=int(p.rows.shape[0])
    )
    _write(terms.replace_schema_metadata({META_KEY: meta}), directory / terms_name, p.offsets)
    return [docs_name, terms_name]


def _write_parts(directory: Path, state: IndexState, rewrite: bool) -> set[str]:
    """Write the model and segment files of ``state`` not on disk yet (all, with
    ``rewrite``); returns the names of all of them."""
    names: set[str] = set()
    if state.model is not None:
        name = write_model(directory, state.model, state.params, rewrite=rewrite)
        names.update((name, pack_of(name)))
    for segment in state.segments:
        written = write_segment(directory, segment, state.params, state.coverage, rewrite=rewrite)
        names.update((*written, pack_of(written[0])))
    return names


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file ``path`` is (inode, modification time), None when there is none: a file
    put in its place by a rename is another."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns


def _write_manifest(directory: Path, state: IndexState) -> None:
    """The manifest of ``state``: its segments, their rows and dead rows, and its stamp."""
    dead_offsets = np.zeros(len(state.dead) + 1, dtype=np.int64)
    dead_rows = [np.flatnonzero(d).astype(np.int32) for d in state.dead]
    np.cumsum([r.shape[0] for r in dead_rows], out=dead_offsets[1:])
    manifest = pa.table(
        {
            "segment": pa.array([s.name for s in state.segments], pa.string()),
            "rows": pa.array([s.n_rows for s in state.segments], pa.int64()),
            "dead": _list_array(
                dead_offsets,
                pa.array(np.concatenate(dead_rows) if dead_rows else np.zeros(0, np.int32)),
            ),
        }
    )
    meta = _encode(manifest_stamp(state))
    _write(manifest.replace_schema_metadata({META_KEY: meta}), directory / MANIFEST)


def write_state(directory: Path, state: IndexState, *, rewrite: bool = False) -> None:
    """Write the files of ``state`` that are not on disk yet, then the manifest, then their
    mirrors, then remove the files no longer referenced. With ``rewrite`` every file is
    written again: one damaged on disk keeps the name of what it should hold (a digest of
    the content), and would otherwise be kept."""
    derived_dir(directory)
    keep: set[str] = {MANIFEST, MANIFEST_PACK}
    before = {path.name for path in directory.glob(f"{PREFIX}*")}
    manifest_was = _identity(directory / MANIFEST)
    try:
        keep.update(_write_parts(directory, state, rewrite))
        _write_manifest(directory, state)
    except BaseException:  # a full disk, Ctrl-C: the files no manifest names go (left, they
        # kept the disk full for the next write to the log) ...
        if _identity(directory / MANIFEST) == manifest_was:  # (... unless the new one is in)
            for path in directory.glob(f"{PREFIX}*"):
                if path.name not in before:
                    with suppress(OSError):  # (a read-only disk): the first error is told
                        path.unlink()
        raise
    write_mirrors(directory, state, force=rewrite)
    for path in directory.glob(f"{PREFIX}*"):
        if path.suffix in (".parquet", ".pack") and path.name not in keep:
            try:
                path.unlink()
            except OSError as exc:  # another process may have removed it first
                log.debug("could not remove %s: %s", path, exc)
    remove_abandoned_temporaries(directory)
