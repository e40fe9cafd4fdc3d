"""On-disk form of the source cache: two JSON files in ``<shard>/index/``.

A source's key is the scope it was ingested into, a NUL character, then its absolute path (or
``stream:<name>``); below, ``S`` stands for ``<scope>\\u0000`` as JSON writes it. A path that
holds a secret is stored masked, followed by another NUL and a digest (``sourcekeys.cache_origin``).

``sources.json`` holds what the unchanged checks need (size, mtime and stamp, then the content
hash of a file whose mtime moved) and nothing more, grouped by directory so that a large tree's
file is small and quick to parse::

    {"format": 8, "generation": "...", "offset": 1234, "pair": "<hex>",
     "options": ["<naming key>", ...],
     "dirs": {"S/abs/dir": {"name.md": [size, mtime_ns, option index, "<hash>", stamp, *tail]}}}

where ``tail`` is empty, ``[skipped reason]``, ``[skipped reason, problems]`` (how many lines
the parser rejected, reported again while the file stays unchanged), or that and the first
of those lines, ``[[line, reason], ...]``, to say where they are (an older cache has only the
count, and so has one rebuilt from the items).

``source-items.json`` holds the item ids of each source (and the hash again), read only when a
file changed or disappeared::

    {"format": 8, "pair": "<hex>", "sources": {"S/abs/dir/name.md": ["<hash>", ["<id>", ...]]}}

The two belong together only when their ``pair`` marks match. The items file is written first,
so a crash between the two writes leaves mismatched marks, which makes the cache be rebuilt. A
cache of another format is rebuilt from the items once (format 3 keys had no scope; format 4
could hold a secret pasted into a file name; format 5 called the mark "token", and a secret
scan of a committed shard flagged its random hex as one; format 6 recorded a source's options
without the folder naming it, ``sources.naming_key``; format 7 no stamp, the file's change
time, ``walk.file_stamp``: one rebuilt from the items knows none, 0, and learns it on its next
run).

A run that changed few sources appends one line to ``sources.journal`` instead of rewriting
both files, so its cost follows the change, not the tree::

    {"pair": "<hex>", "generation": "...", "offset": 1234,
     "set": {"S/abs/dir/name.md": [size, mtime_ns, "<naming key>", "<hash>", stamp, *tail]},
     "ids": {"S/abs/dir/name.md": ["<id>", ...]}, "drop": ["S/abs/dir/gone.md"]}

Lines count only with the pair mark of the files they extend and are read in order, up to the
first one that does not parse (an interrupted append). A full rewrite starts a new journal.
"""

from __future__ import annotations

import logging
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from substrate.derived import SOURCE_FILES, derived_dir, failure, is_folder
from substrate.log import Watermark
from substrate.replacing import open_derived, open_temporary, replacing

log = logging.getLogger(__name__)

FORMAT = 8
STATS_FILE, ITEMS_FILE, JOURNAL_FILE = SOURCE_FILES

Row = list[Any]  # [size, mtime_ns, option index, content hash, stamp, skipped?, problems?]


@dataclass(slots=True)
class StoredStats:
    """The contents of ``sources.json``, with the keys flattened back to full paths."""

    watermark: Watermark
    pair: str
    options: list[str] = field(default_factory=list)
    rows: dict[str, Row] = field(default_factory=dict)
    seal: int | None = None  # the log's seal at the watermark (None: written without one)


def _prefix(directory: str) -> str:
    if not directory:
        return ""
    return directory if directory.endswith("/") else directory + "/"


def read_stats(index_dir: Path) -> StoredStats | None:
    """Read ``sources.json``; None when it is missing, unreadable or of another format."""
    path = index_dir / STATS_FILE
    try:
        data = orjson.loads(path.read_bytes())
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        stats = StoredStats(
            Watermark(str(data["generation"]), int(data["offset"])),
            str(data["pair"]),
            [str(o) for o in data["options"]],
            seal=seal_of(data),
        )
        rows = stats.rows
        for directory, names in data["dirs"].items():
            prefix = _prefix(directory)
            for name, row in names.items():
                rows[prefix + name] = row
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("ignoring unreadable %s (%s); it will be rebuilt", path, failure(path, exc))
        return None
    return stats


def seal_of(data: dict[str, Any]) -> int | None:
    """The seal stored in a stats file or journal line (None when there is none)."""
    seal = data.get("seal")
    return None if seal is None else int(seal)


def read_items(index_dir: Path, pair: str) -> dict[str, list[Any]] | None:
    """Read ``source-items.json`` if it belongs with the stats marked ``pair``, else None."""
    path = index_dir / ITEMS_FILE
    try:
        data = orjson.loads(path.read_bytes())
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        if data.get("pair") != pair:
            return None
        sources = data["sources"]
        if not isinstance(sources, dict):
            return None
        return sources
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("ignoring unreadable %s (%s); it will be rebuilt", path, failure(path, exc))
        return None


def _write(path: Path, data: dict[str, Any]) -> bool:
    try:
        derived_dir(path.parent)
        with replacing(path) as tmp, open_temporary(tmp) as fh:
            fh.write(orjson.dumps(data))
    except OSError as exc:
        log.warning("cannot write %s (%s); it will be rebuilt next time", path, failure(path, exc))
        return False
    return True


def write_items(index_dir: Path, sources: dict[str, list[Any]]) -> str | None:
    """Write the hashes and ids; returns the new pair mark (None when the write failed)."""
    pair = secrets.token_hex(8)
    ok = _write(index_dir / ITEMS_FILE, {"format": FORMAT, "pair": pair, "sources": sources})
    return pair if ok else None


def write_stats(
    index_dir: Path,
    watermark: Watermark,
    seal: int | None,
    pair: str,
    options: list[str],
    rows: dict[str, Row],
) -> bool:
    """Write ``sources.json`` (rows keyed by full path are grouped by directory here);
    ``seal`` is the log's seal at ``watermark``."""
    dirs: dict[str, dict[str, Row]] = {}
    for key, row in rows.items():
        # os.path.split, spelled out: called for every source at the end of each ingest, its
        # own overhead was most of this loop's time
        cut = key.rfind("/") + 1
        directory, name = key[:cut], key[cut:]
        if directory and directory != "/" * len(directory):
            directory = directory.rstrip("/")
        dirs.setdefault(directory, {})[name] = row
    data = {
        "format": FORMAT,
        "generation": watermark.generation,
        "offset": watermark.offset,
        "seal": seal,
        "pair": pair,
        "options": options,
        "dirs": dirs,
    }
    return _write(index_dir / STATS_FILE, data)


def read_journal(index_dir: Path, pair: str) -> list[dict[str, Any]]:
    """The journal lines that extend the files marked ``pair``, in order."""
    path = index_dir / JOURNAL_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        log.warning("ignoring unreadable %s (%s)", path, failure(path, exc))
        return []
    entries = []
    for line in raw.splitlines():
        try:
            entry = orjson.loads(line)
        except ValueError:
            break  # an append cut short: what follows cannot be trusted either
        if isinstance(entry, dict) and entry.get("pair") == pair:
            entries.append(entry)
    return entries


def append_journal(index_dir: Path, entry: dict[str, Any]) -> bool:
    """Append one line to the journal (one write; no fsync: the cache is derived data)."""
    path = index_dir / JOURNAL_FILE
    try:
        fd = open_derived(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            os.write(fd, orjson.dumps(entry) + b"\n")
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning(
            "cannot append to %s (%s); the cache will be rewritten", path, failure(path, exc)
        )
        return False
    return True


def remove_journal(index_dir: Path) -> None:
    _remove(index_dir / JOURNAL_FILE)


def remove(index_dir: Path) -> None:
    """Delete the cache files (the cache will be rebuilt from the items)."""
    for name in (STATS_FILE, ITEMS_FILE, JOURNAL_FILE):
        _remove(index_dir / name)


def _remove(path: Path) -> None:
    """Delete one cache file. A folder standing in its place is left where it is (``reindex``
    removes it): nothing was read from it or written to it, so it holds nothing stale, and
    the ingest that saved its items must not fail over it."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        if not is_folder(path):
            raise
