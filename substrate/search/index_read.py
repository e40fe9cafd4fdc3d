"""Reading the search index back from Parquet, in bounded memory.

Files are read one row group at a time into preallocated numpy arrays, and Arrow's memory pool
is asked to give back what it no longer uses: reading a whole file at once made a search
process peak at several times the size of the data.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from substrate.search.bm25 import Postings
from substrate.search.counts import Counts
from substrate.search.coverage import Coverage
from substrate.search.doctable import DocTable
from substrate.search.embedding import EmbeddingModel
from substrate.search.index_files import as_numpy, list_parts, read_meta
from substrate.search.layout import MANIFEST, StaleIndex, segment_files
from substrate.search.params import SearchParams
from substrate.search.segments import Segment
from substrate.search.state import IndexState


def read_manifest_meta(directory: Path, params: SearchParams) -> dict[str, Any]:
    """The manifest's metadata (raises StaleIndex or ShardFormatError)."""
    return read_meta(directory / MANIFEST, params)


def read_state(directory: Path, params: SearchParams) -> IndexState:
    """Load the whole index (raises StaleIndex when it must be rebuilt)."""
    meta = read_manifest_meta(directory, params)
    try:
        manifest = pq.read_table(directory / MANIFEST, page_checksum_verification=True)
        model = None
        if meta.get("model"):
            model = _read_model(directory / meta["model"], params)
        names = manifest.column("segment").to_pylist()
        rows = manifest.column("rows").to_pylist()
        dead_offsets, dead_values = list_parts(manifest.column("dead"))
        dead_flat = as_numpy(dead_values, np.int64)
        segments: list[Segment] = []
        dead: list[np.ndarray] = []
        for i, name in enumerate(names):
            seg = _read_segment(directory, name, params)
            if seg.n_rows != rows[i]:
                raise StaleIndex(f"segment {name} has {seg.n_rows} rows, manifest says {rows[i]}")
            mask = np.zeros(seg.n_rows, dtype=bool)
            mask[dead_flat[dead_offsets[i] : dead_offsets[i + 1]]] = True
            segments.append(seg)
            dead.append(mask)
        coverage = Coverage.from_meta(meta.get("watermark"))
        numbers = float(meta["avgdl"]), int(meta["next_seq"]), int(meta["fitted_docs"])
    except (OSError, pa.ArrowException, KeyError, ValueError, IndexError, TypeError) as exc:
        raise StaleIndex(f"search index unreadable: {exc}") from exc
    return IndexState(params, model, segments, dead, *numbers, coverage)


def _read_model(path: Path, params: SearchParams) -> EmbeddingModel:
    meta = read_meta(path, params)
    reader = _GroupReader(path, ["term", "idf", "component"])
    n = reader.file.metadata.num_rows
    dim = reader.file.schema_arrow.field("component").type.list_size
    terms: list[str] = []
    idf = np.empty(n, dtype=np.float32)
    components = np.empty((n, dim), dtype=np.float32)
    at = 0
    for part in reader.tables():
        rows = part.num_rows
        terms.extend(part.column("term").to_pylist())
        idf[at : at + rows] = part.column("idf").combine_chunks().to_numpy()
        comp = part.column("component").combine_chunks()
        components[at : at + rows] = comp.values.to_numpy().reshape(rows, dim)
        at += rows
    return EmbeddingModel(terms, idf, components, int(meta["fitted_docs"]), str(meta["model_id"]))


_DOC_COLUMNS = [
    "id",
    "kind",
    "scope",
    "source",
    "created_at",
    "seq",
    "tags",
    "doc_len",
    "terms",
    "counts",
]


def _read_vectors(path: Path, n: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Vectors and signatures, copied row group by row group into preallocated arrays.

    Reading the column whole would hold it twice (Arrow, then numpy) at the peak; by row
    group, the extra memory is one group.
    """
    pf = pq.ParquetFile(path, pre_buffer=False, page_checksum_verification=True)
    names = pf.schema_arrow.names
    if "vector" not in names:
        return None, None
    dim = pf.schema_arrow.field("vector").type.list_size
    width = pf.schema_arrow.field("signature").type.byte_width
    vectors = np.empty((n, dim), dtype=np.float32)
    signatures = np.empty((n, width), dtype=np.uint8)
    at = 0
    for group in range(pf.num_row_groups):
        part = pf.read_row_group(group, columns=["vector", "signature"], use_threads=False)
        rows = part.num_rows
        vec = part.column("vector").combine_chunks()
        vectors[at : at + rows] = vec.values.to_numpy().reshape(rows, dim)
        sig = part.column("signature").combine_chunks()
        raw = np.frombuffer(sig.buffers()[1], dtype=np.uint8)
        signatures[at : at + rows] = raw[sig.offset * width : (sig.offset + rows) * width].reshape(
            rows, width
        )
        at += rows
        del part, vec, sig, raw
        pa.default_memory_pool().release_unused()
    if at != n:
        raise StaleIndex(f"{path.name}: {at} vectors for {n} rows")
    return vectors, signatures


class _GroupReader:
    """Reads a Parquet file one row group at a time into growing numpy pieces.

    Reading a whole file at once made the process peak at several times the data's size
    (decompression buffers kept by Arrow's allocator); one row group at a time bounds that.
    """

    def __init__(self, path: Path, columns: list[str]) -> None:
        self.file = pq.ParquetFile(path, pre_buffer=False, page_checksum_verification=True)
        self.columns = columns

    def tables(self) -> Iterator[pa.Table]:
        pool = pa.default_memory_pool()
        for group in range(self.file.num_row_groups):
            yield self.file.read_row_group(group, columns=self.columns, use_threads=False)
            pool.release_unused()  # hand decompression buffers back before the next group


class _Codes:
    """Dictionary-encodes a string column across row groups into one global table."""

    def __init__(self) -> None:
        self.table: dict[str, int] = {}
        self.parts: list[np.ndarray] = []

    def add(self, column: pa.ChunkedArray) -> None:
        arr = column.combine_chunks()
        if not pa.types.is_dictionary(arr.type):
            arr = arr.dictionary_encode()
        names = arr.dictionary.to_pylist()
        remap = np.asarray(
            [self.table.setdefault(str(v), len(self.table)) for v in names], dtype=np.int32
        )
        indices = as_numpy(arr.indices, np.int64)
        self.parts.append(remap[indices] if remap.shape[0] else indices.astype(np.int32))

    def result(self) -> tuple[list[str], np.ndarray]:
        return list(self.table), _cat(self.parts, np.int32)


class _Lists:
    """A list column gathered across row groups into preallocated offsets and values."""

    def __init__(self, dtype: Any, n_rows: int, total: int) -> None:
        self.offsets = np.zeros(n_rows + 1, dtype=np.int64)
        self.values = np.empty(total, dtype=dtype)
        self.row = 0
        self.total = 0

    def add(self, column: pa.ChunkedArray) -> None:
        offsets, values = list_parts(column)
        rows, entries = offsets.shape[0] - 1, int(offsets[-1])
        if self.row + rows >= self.offsets.shape[0] or self.total + entries > self.values.shape[0]:
            raise StaleIndex("list column larger than its recorded size")
        self.offsets[self.row + 1 : self.row + 1 + rows] = offsets[1:] + self.total
        self.values[self.total : self.total + entries] = values.to_numpy(zero_copy_only=False)
        self.row += rows
        self.total += entries

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        if self.row != self.offsets.shape[0] - 1 or self.total != self.values.shape[0]:
            raise StaleIndex("list column smaller than its recorded size")
        return self.offsets, self.values


class _Column:
    """A fixed-width column gathered across row groups into one preallocated array."""

    def __init__(self, dtype: Any, n_rows: int) -> None:
        self.values = np.empty(n_rows, dtype=dtype)
        self.row = 0

    def add(self, column: pa.ChunkedArray) -> None:
        part = column.combine_chunks().to_numpy(zero_copy_only=False)
        self.values[self.row : self.row + part.shape[0]] = part
        self.row += part.shape[0]

    def result(self) -> np.ndarray:
        if self.row != self.values.shape[0]:
            raise StaleIndex("column shorter than the file's row count")
        return self.values


def _cat(parts: list[np.ndarray], dtype: Any) -> np.ndarray:
    if not parts:
        return np.zeros(0, dtype=dtype)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _read_segment(directory: Path, name: str, params: SearchParams) -> Segment:
    docs_name, terms_name = segment_files(name)
    docs_path, terms_path = directory / docs_name, directory / terms_name
    meta = read_meta(docs_path, params)
    terms_meta = read_meta(terms_path, params)
    docs_reader = _GroupReader(docs_path, _DOC_COLUMNS)
    n = docs_reader.file.metadata.num_rows
    ids: list[str] = []
    kinds, scopes, sources, tags = _Codes(), _Codes(), _Codes(), _Codes()
    tag_offsets = [np.zeros(1, dtype=np.int64)]
    tag_total = 0
    terms = _Lists(np.int32, n, int(meta["entries"]))
    counts = _Lists(np.int32, n, int(meta["entries"]))
    created, seq, doc_len = _Column(np.float64, n), _Column(np.int64, n), _Column(np.int32, n)
    for part in docs_reader.tables():
        ids.extend(part.column("id").to_pylist())
        kinds.add(part.column("kind"))
        scopes.add(part.column("scope"))
        sources.add(part.column("source"))
        offsets, tag_values = list_parts(part.column("tags"))
        tags.add(pa.chunked_array([tag_values], pa.string()))
        tag_offsets.append(offsets[1:] + tag_total)
        tag_total += int(offsets[-1])
        terms.add(part.column("terms"))
        counts.add(part.column("counts"))
        created.add(part.column("created_at"))
        seq.add(part.column("seq"))
        doc_len.add(part.column("doc_len"))
    if len(ids) != n:
        raise StaleIndex(f"{docs_path.name}: {len(ids)} ids for {n} rows")
    id_array = np.empty(n, dtype=object)
    id_array[:] = ids
    del ids
    tag_names, tag_codes = tags.result()
    docs = DocTable(
        id_array,
        *kinds.result(),
        *scopes.result(),
        *sources.result(),
        created.result(),
        seq.result(),
        tag_names,
        np.concatenate(tag_offsets),
        tag_codes,
    )
    terms_reader = _GroupReader(terms_path, ["term", "df", "rows", "weights", "tf"])
    n_terms = terms_reader.file.metadata.num_rows
    vocabulary: list[str] = []
    df = _Column(np.int32, n_terms)
    rows = _Lists(np.int32, n_terms, int(terms_meta["postings"]))
    weights = _Lists(np.float32, n_terms, int(terms_meta["postings"]))
    tf = _Lists(np.int32, n_terms, int(terms_meta["postings"]))
    for part in terms_reader.tables():
        vocabulary.extend(part.column("term").to_pylist())
        df.add(part.column("df"))
        rows.add(part.column("rows"))
        weights.add(part.column("weights"))
        tf.add(part.column("tf"))
    indptr, term_ids = terms.result()
    # The forward index's term ids refer to the postings' vocabulary (one list per segment).
    forward = Counts(vocabulary, indptr, term_ids, counts.result()[1], doc_len.result())
    offsets, row_values = rows.result()
    postings = Postings(
        vocabulary, df.result(), offsets, row_values, weights.result()[1], tf.result()[1]
    )
    vectors, signatures = _read_vectors(docs_path, n)
    pa.default_memory_pool().release_unused()
    return Segment(name, docs, forward, postings, vectors, signatures, meta.get("model_id"))
