"""Names of the search index files under ``<shard>/index/`` (importing this loads nothing heavy).

Two kinds of files hold the index:

* Parquet files, the durable and self-describing form, readable by any Arrow tool (written by
  ``index_files``, read back by ``index_read``);
* packs (``.pack``), memory-mappable mirrors of the same data (written and read by ``mirror``).
  A search opens the packs, which costs a few milliseconds however large the index is, and
  never imports pyarrow. Each pack records what identifies the Parquet files it mirrors (a
  digest of the manifest; size and modification time of the immutable segment and model
  files) and is trusted only while they are unchanged; otherwise the Parquet files are read
  and the packs rewritten.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from substrate.search.params import FORMAT_VERSION, SearchParams

if TYPE_CHECKING:
    from substrate.search.coverage import Coverage
    from substrate.search.state import IndexState

META_KEY = b"mixle.search"
PREFIX = "search-"
MANIFEST = "search-manifest.parquet"
MANIFEST_PACK = "search-manifest.pack"
# The attribute of a Substrate that holds its search index (see ``sync``).
CACHE_ATTR = "_search_cache"


def is_index_file(name: str) -> bool:
    """Whether ``name`` is that of a search index file: a Parquet file or a pack."""
    return name.startswith(PREFIX) and name.endswith((".parquet", ".pack"))


class StaleIndex(Exception):
    """The files on disk cannot be used (missing, unreadable or built differently): rebuild."""


def model_file(model_id: str) -> str:
    return f"{PREFIX}model-{model_id}.parquet"


def segment_files(name: str) -> tuple[str, str]:
    """The two Parquet files of segment ``name``: catalog and forward index, then postings."""
    return f"{PREFIX}seg-{name}.docs.parquet", f"{PREFIX}seg-{name}.terms.parquet"


def pack_of(parquet_name: str) -> str:
    """The pack mirroring a Parquet file (a segment's pack mirrors both of its files)."""
    stem = parquet_name.removesuffix(".parquet")
    return stem.removesuffix(".docs").removesuffix(".terms") + ".pack"


def stamp(
    kind: str, params: SearchParams, coverage: Coverage | None, **extra: Any
) -> dict[str, Any]:
    """The metadata every index file carries: format, parameters, watermark, and ``extra``."""
    return {
        "format": FORMAT_VERSION,
        "kind": kind,
        "params": params.as_dict(),
        "build_key": params.build_key(),
        "watermark": None if coverage is None else coverage.as_meta(),
        **extra,
    }


def manifest_stamp(state: IndexState) -> dict[str, Any]:
    """The manifest's metadata: the index-wide state of ``state``."""
    return stamp(
        "manifest",
        state.params,
        state.coverage,
        model=model_file(state.model.model_id) if state.model is not None else None,
        avgdl=state.avgdl,
        next_seq=state.next_seq,
        fitted_docs=state.fitted_docs,
        live=state.n_live,
    )


def identity(path: Path) -> list[int]:
    """What an immutable file's mirror records of it: its size and mtime. Only its size is
    compared (``unchanged``): its name is new for each version (a segment's random, the
    model's its id), and a copy of the shard made by ``git clone``, ``tar`` or ``cp`` without
    ``-p`` has other times (its mirrors were written again by the first search, and a
    read-only copy read Parquet at every search)."""
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns]


def content_identity(path: Path) -> str:
    """A digest of a small file's bytes: for the manifest, which is rewritten in place (by
    rename) and may be rewritten twice within the resolution of a file system's clock."""
    return "blake2b:" + hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()


def unchanged(directory: Path, recorded: Any) -> bool:
    """True if every file named in ``recorded`` (name -> identity) is still that very file."""
    if not isinstance(recorded, dict) or not recorded:
        return False
    try:
        for name, ident in recorded.items():
            path = directory / name
            if isinstance(ident, str):
                if content_identity(path) != ident:
                    return False
            elif identity(path)[0] != list(ident)[0]:  # (by its size: ``identity``)
                return False
    except (OSError, TypeError):
        return False
    return True
