"""What state the search index is in, told without loading it (and without numpy or pyarrow
unless the index's mirrors are missing)."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

from substrate.errors import ShardFormatError
from substrate.search.coverage import Coverage
from substrate.search.layout import (
    CACHE_ATTR,
    MANIFEST,
    MANIFEST_PACK,
    PREFIX,
    StaleIndex,
    is_index_file,
    pack_of,
    segment_files,
    unchanged,
)
from substrate.search.packs import PackError, open_pack, read_meta
from substrate.search.params import DEFAULT_PARAMS, FORMAT_VERSION


def index_status(substrate: Any) -> dict[str, Any]:
    """Describe the search index without building or loading it.

    Returns:
        ``state`` ("fresh", "behind" (saved changes not folded in yet: the next search folds
        them), "stale" (will be rebuilt), "missing", or "unsupported" (newer format)), plus
        files and sizes, item count, watermark, segments and the embedding's shape.
    """
    root: Path | None = substrate.root
    if root is None:
        return _in_memory(substrate)
    directory = root / "index"
    files = _index_files(directory)
    out: dict[str, Any] = {
        "path": str(directory),
        "format": FORMAT_VERSION,
        "files": files,
        "bytes": sum(f["bytes"] for f in files),
    }
    meta = mirrored = _mirrored_manifest(directory)
    if meta is None:  # no current mirror: ask the Parquet manifest itself
        from substrate.search.index_read import read_manifest_meta

        try:
            meta = read_manifest_meta(directory, DEFAULT_PARAMS)
        except ShardFormatError as exc:
            return {**out, "state": "unsupported", "error": str(exc)}
        except StaleIndex as exc:
            missing = not (directory / MANIFEST).exists()
            return {**out, "state": "missing" if missing else "stale", "reason": str(exc)}
    current = substrate.log_watermark()
    mark = Coverage.from_meta(meta.get("watermark")) or Coverage("", -1)
    if (
        mark.generation != current.generation
        or mark.offset > current.offset
        or not mark.sealed_in(substrate)
    ):
        state = "stale"
    else:
        state = "fresh" if mark.offset == current.offset else "behind"
    # a Parquet file the manifest names, gone: the next search must rebuild the index (a
    # mirror gone is only rewritten from the Parquet files, which `audit` tells of)
    listed = _listed(directory, mirrored, parquet_meta=None if mirrored else meta)
    gone = [name for name in _absent(directory, listed) if name.endswith(".parquet")]
    if gone:
        state = "stale"
        out["reason"] = f"{', '.join(gone)} missing"
    pending = substrate.pending_changes()
    return {
        **out,
        "state": state,
        "items": int(meta.get("live", 0)),
        "segments": len(listed[0]) if listed is not None else 0,
        "watermark": {"generation": mark.generation, "offset": mark.offset},
        "log_watermark": {"generation": current.generation, "offset": current.offset},
        "mode": "lexical+semantic" if meta.get("model") else "lexical",
        "model": {"file": meta.get("model"), "fitted_docs": meta.get("fitted_docs")},
        "pending_changes": bool(pending.upserts or pending.removed),
    }


def confined_state(state: str) -> str:
    """The index state as a reader confined to some scopes is told it: what a search it runs
    will see.

    Any team's writes move the index from "fresh": "behind" when a change is saved and not
    yet folded in, "missing" or "stale" once a compaction that reclaimed something dropped it
    with the old log. The next search folds the change in, or builds the index again, so a
    team is told "fresh" for each: told as they are, they would show it whether another team
    wrote, removed or re-ingested anything.
    """
    return "fresh" if state in _SETTLED_BY_A_SEARCH else state


_SETTLED_BY_A_SEARCH = frozenset({"behind", "missing", "stale"})


def _mirrored_manifest(directory: Path) -> dict[str, Any] | None:
    try:
        meta = read_meta(directory / MANIFEST_PACK)
    except PackError:
        return None
    params = DEFAULT_PARAMS
    if meta.get("format") != FORMAT_VERSION or meta.get("build_key") != params.build_key():
        return None
    return meta if unchanged(directory, meta.get("mirrors")) else None


def _in_memory(substrate: Any) -> dict[str, Any]:
    cache = getattr(substrate, CACHE_ATTR, None)
    view = cache.view if cache is not None else None
    fresh = cache is not None and cache.mutation_count == substrate.mutation_count
    model = None
    if view is not None and view.model is not None:
        m = view.model
        model = {"dim": m.dim, "terms": len(m.terms), "fitted_docs": m.fitted_docs}
    mode = "none" if view is None else "lexical+semantic" if view.semantic else "lexical"
    return {
        "path": None,
        "state": "fresh" if fresh else ("missing" if cache is None else "behind"),
        "format": FORMAT_VERSION,
        "items": view.n_live if view is not None else 0,
        "segments": len(view.segments) if view is not None else 0,
        "files": [],
        "bytes": 0,
        "watermark": None,
        "mode": mode,
        "model": model,
    }


# what ``damaged_index_files`` says of a file the manifest names that is not there
MISSING = "missing"


def damaged_index_files(directory: Path) -> list[tuple[str, str]]:
    """(file name, what is wrong) for each index file that fails its checksums, for each
    index file's name that something else than a file stands at (a folder, a link to one),
    and (``MISSING``) for each file the manifest names that is not there.

    Reads every pack and every Parquet page and footer, so it is for an explicit integrity
    check (``mixle audit``); searches check small packs on opening, and Parquet footers and
    pages as they read them.
    """
    damaged: list[tuple[str, str]] = []
    for path in _named_as_index_files(directory):
        try:
            why = _damage(path)
        except FileNotFoundError:  # removed by a concurrent writer: not damage
            continue
        if why is not None:
            damaged.append((path.name, why))
    damaged.extend((name, MISSING) for name in missing_index_files(directory))
    return damaged


def missing_index_files(directory: Path) -> list[str]:
    """The files the manifest names (each segment's two Parquet files and its mirror, the
    model's file and its mirror) that are not in ``directory``. The manifest alone reads as
    a sound index without them, until a search needs them.

    A writer may replace the manifest and remove the files it no longer names while they are
    looked for: when some are missing, the manifest is read again, and they are looked for
    anew if it names others now.
    """
    missing: list[str] = []
    for _ in range(3):
        listed = _listed(directory)
        missing = _absent(directory, listed)
        if not missing or _listed(directory) == listed:
            break
    return missing


def _absent(directory: Path, listed: tuple[list[str], str | None] | None) -> list[str]:
    """The files the manifest's ``listed`` segments and model stand for (``_listed``) that
    are not in ``directory``."""
    if listed is None:
        return []
    segments, model = listed
    names: list[str] = []
    for segment in segments:
        docs, terms = segment_files(segment)
        names += [docs, terms, pack_of(docs)]
    if model is not None:
        names += [model, pack_of(model)]
    return [name for name in names if not (directory / name).exists()]


def _listed(
    directory: Path,
    mirrored: dict[str, Any] | None = None,
    *,
    parquet_meta: dict[str, Any] | None = None,
) -> tuple[list[str], str | None] | None:
    """The segments and the model file the manifest names: from its mirror while that is
    current (no pyarrow; ``mirrored``, when already read), else from the Parquet manifest
    (whose metadata is ``parquet_meta``, when already read); None when neither can be read
    (no index, or one a search rebuilds anyway)."""
    meta = mirrored
    if meta is None and parquet_meta is None:
        meta = _mirrored_manifest(directory)
    try:
        if meta is not None:
            segments = [str(entry[0]) for entry in meta.get("segments") or []]
        else:
            meta, segments = _parquet_manifest(directory, parquet_meta)
    except (StaleIndex, ShardFormatError, TypeError, IndexError, KeyError):
        return None
    model = meta.get("model")
    return segments, model if isinstance(model, str) else None


def _parquet_manifest(
    directory: Path, meta: dict[str, Any] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """The Parquet manifest's metadata (``meta``, when already read) and the segments it
    names (StaleIndex: unreadable)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from substrate.search.index_read import read_manifest_meta

    if meta is None:
        meta = read_manifest_meta(directory, DEFAULT_PARAMS)
    try:
        table = pq.read_table(directory / MANIFEST, columns=["segment"])
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise StaleIndex(f"{MANIFEST} is unreadable: {exc}") from exc
    return meta, [str(name) for name in table.column("segment").to_pylist()]


def _damage(path: Path) -> str | None:
    """What is wrong with the index file at ``path``, or None.

    Raises:
        FileNotFoundError: nothing stands there any more.
    """
    if stat.S_ISDIR(path.lstat().st_mode):
        return "a folder stands in its place"  # which `reindex` removes
    found = path.stat()
    if not stat.S_ISREG(found.st_mode):  # a link to a folder: `reindex` replaces it
        return "not a regular file"
    try:
        if path.name.endswith(".pack"):
            open_pack(path, verify_up_to=found.st_size)
        else:
            _check_parquet_file(path)
    except FileNotFoundError:  # (an OSError, but no damage)
        raise
    except (PackError, OSError, ValueError) as exc:
        return " ".join(str(exc).split())  # one line: pyarrow ends with \n
    return None


def _check_parquet_file(path: Path) -> None:
    """Check the footer and read every page of a Parquet index file (damage: ValueError)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from substrate.search.index_files import footer_damage

    try:
        parquet = pq.ParquetFile(path, pre_buffer=False, page_checksum_verification=True)
        # the footer, read to open the file, has no checksum of its own: what a search would
        # find amiss in it must be found here too
        damage = footer_damage(parquet.metadata)
        if damage is not None:
            raise ValueError(damage)
        for group in range(parquet.num_row_groups):
            parquet.read_row_group(group, use_threads=False)
    except pa.ArrowException as exc:
        raise ValueError(str(exc)) from exc


def _index_files(directory: Path) -> list[dict[str, Any]]:
    """Name and size of each index file (Parquet files and their mirrors). Only files count:
    a folder at such a name is no segment and holds no part of the index (it is damage, told
    by ``damaged_index_files``)."""
    out = []
    for path in _named_as_index_files(directory):
        try:
            found = path.stat()
        except OSError:  # removed by a concurrent writer between listing and stat
            continue
        if stat.S_ISREG(found.st_mode):
            out.append({"name": path.name, "bytes": found.st_size})
    return out


def _named_as_index_files(directory: Path) -> list[Path]:
    """What stands in ``directory`` at the name of an index file, whatever it is, by name."""
    if not directory.is_dir():
        return []
    return [path for path in sorted(directory.glob(f"{PREFIX}*")) if is_index_file(path.name)]
