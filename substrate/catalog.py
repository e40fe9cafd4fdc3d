"""A compact id -> (offset, length) catalog of the live items in ``items.jsonl``.

It lets ``mixle get ID`` find one line of a million-line log with a binary search over the file
(positioned reads, not mmap: a file truncated under a mapping would kill the process with SIGBUS)
instead of parsing the log. The file is derived data (``index/offsets.bin``):
it records the log generation and the committed offset it covers, and a missing or stale
catalog is rebuilt from the log. It also records the log's seal at that offset (a checksum of
the bytes just before it, see ``LogFile.seal``): a log edited by hand since the catalog was
written no longer matches it, and the catalog is rebuilt instead of sending reads mid-line.

Layout: a 64-byte header (magic, generation, watermark, record count, next sequence number,
CRC-32 of the records and all header fields, seal) followed by fixed 24-byte records sorted by
key: key (8 bytes, big-endian), offset (u64), length (u32) and seq (u32, the order in which the
id first appeared, so listings keep the insertion order of the reference implementation).

The checksum catches a damaged file whose size still fits (a flipped bit would otherwise hide
an item or send a read elsewhere, without a word). Every full read checks it, and so does
opening a catalog small enough to read whole in a moment (its records are then kept, not read
again); a damaged catalog is rebuilt from the log.
"""

from __future__ import annotations

import hashlib
import logging
import os
import struct
import zlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING

from substrate.derived import derived_dir, failure
from substrate.errors import ShardError
from substrate.limits import VERIFY_ON_OPEN_BYTES
from substrate.replacing import open_temporary, replacing

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

MAGIC = b"MXCAT003"  # 002: the header holds a checksum; 003: and the log's seal
# Catalogs of these formats are still recognised, and replaced by one rebuilt from the log.
_OLDER = (b"MXCAT001", b"MXCAT002")
_HEADER = struct.Struct("<8s16sQQQII8x")
_FIELDS = struct.Struct("<QII")  # offset, length, seq after the 8-byte big-endian key
RECORD_SIZE = 24
# A catalog too large to read on opening answers lookups by a binary search of reads (about
# 20 at 1M items); one asked this many times is read whole instead (24 MB at 1M items), so a
# sweep that looks up many ids (an audit's dangling links) costs no read per step.
WHOLE_AFTER_LOOKUPS = 64
assert _HEADER.size == 64


def _checksum(
    records: bytes, generation: bytes, watermark: int, count: int, next_seq: int, seal: int
) -> int:
    fields = struct.pack("<16sQQQI", generation, watermark, count, next_seq, seal)
    return zlib.crc32(fields, zlib.crc32(records))


def id_key(item_id: str) -> bytes:
    """The 8-byte catalog key of an id: the id itself when it is 16 hex digits, else a hash."""
    if is_hex_id(item_id):
        return bytes.fromhex(item_id)
    return hashlib.blake2b(item_id.encode(), digest_size=8).digest()


def id_keys(item_ids: Collection[str]) -> bytes:
    """``id_key`` of every id, concatenated: one conversion when all are standard hex ids
    (ingestion asks for thousands at a time)."""
    if set(map(len, item_ids)) <= {16}:
        joined = "".join(item_ids)
        if _HEX.issuperset(joined):
            return bytes.fromhex(joined)
    return b"".join(map(id_key, item_ids))


_HEX = frozenset("0123456789abcdef")


def is_hex_id(item_id: str) -> bool:
    """True for the standard 16-lowercase-hex ids, whose key is the id itself (no collisions)."""
    return len(item_id) == 16 and _HEX.issuperset(item_id)


def record_dtype() -> np.dtype:
    import numpy as np

    return np.dtype([("key", ">u8"), ("offset", "<u8"), ("length", "<u4"), ("seq", "<u4")])


def _newer(magic: bytes) -> bool:
    """Whether ``magic`` is that of a later catalog format (``MXCAT`` and a higher number)."""
    number = magic[5:]
    return magic[:5] == MAGIC[:5] and number.isdigit() and int(number) > int(MAGIC[5:])


class StaleCatalogError(ShardError):
    """The catalog file was modified under a reader, or is damaged; rebuild from the log."""


@dataclass(frozen=True, slots=True)
class CatalogHeader:
    generation: str
    watermark: int
    count: int
    next_seq: int
    checksum: int
    raw_generation: bytes
    seal: int  # LogFile.seal(watermark) when the catalog was written

    def matches(self, records: bytes) -> bool:
        """Whether ``records`` (the whole record area) are what the header was written with."""
        found = _checksum(
            records, self.raw_generation, self.watermark, self.count, self.next_seq, self.seal
        )
        return found == self.checksum


class Catalog:
    """A read-only view of one catalog file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self.header: CatalogHeader | None = None
        self.damaged = False  # it failed its checksum on opening (and is not used)
        self.outdated = False  # written by an older mixle (not used; rebuilt from the log)
        self._records: bytes | None = None  # the record area, when read and checked
        self._lookups = 0
        self._open()

    def _open(self) -> None:
        """Open the file; an unusable one (missing, damaged, a directory) leaves no header,
        and the log is read instead."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return
        try:
            size = os.fstat(fd).st_size
            head = os.pread(fd, _HEADER.size, 0)
        except OSError:  # a directory in its place, an I/O error: derived data, rebuilt
            os.close(fd)
            return
        if len(head) < _HEADER.size:
            self._unusable(fd)
            return
        magic, gen, watermark, count, next_seq, checksum, seal = _HEADER.unpack(head)
        if magic in _OLDER:
            log.info("%s is in an older format; rebuilt from the log", self.path)
            self.outdated = True
            os.close(fd)
            return
        if _newer(magic):  # a newer mixle's: left to it
            log.debug("%s is in a newer format; reading the log instead", self.path)
            os.close(fd)
            return
        if magic != MAGIC or size != _HEADER.size + count * RECORD_SIZE:
            self._unusable(fd)
            return
        try:
            name = gen.rstrip(b"\0").decode()
        except UnicodeDecodeError:
            name = ""  # damaged: matches no log generation, so it is ignored
        header = CatalogHeader(name, watermark, count, next_seq, checksum, gen, seal)
        if size - _HEADER.size <= VERIFY_ON_OPEN_BYTES:
            try:
                whole = os.pread(fd, size - _HEADER.size, _HEADER.size)
            except OSError:
                whole = b""
            if len(whole) != size - _HEADER.size or not header.matches(whole):
                log.warning("%s is damaged (checksum mismatch); rebuilt from the log", self.path)
                self.damaged = True
                os.close(fd)
                return
            self._records = whole  # already read: lookups and full reads use it
        self._fd = fd
        self.header = header

    def _unusable(self, fd: int) -> None:
        """A file that is no catalog (cut short, overwritten): written whole and renamed into
        place, a catalog is never seen half-made, so this is damage, and it is replaced."""
        log.warning("%s is damaged (not a catalog); rebuilt from the log", self.path)
        self.damaged = True
        os.close(fd)

    def _record(self, index: int) -> bytes:
        if self._records is not None:
            return self._records[index * RECORD_SIZE : (index + 1) * RECORD_SIZE]
        assert self._fd is not None
        record = os.pread(self._fd, RECORD_SIZE, _HEADER.size + index * RECORD_SIZE)
        if len(record) != RECORD_SIZE:
            raise StaleCatalogError(f"{self.path} changed while in use")
        return record

    def lookup(self, key: bytes) -> list[tuple[int, int, int]]:
        """(offset, length, seq) of every record with ``key`` (several only on a collision)."""
        if self._fd is None or self.header is None:
            return []
        if self._records is None:
            self._lookups += 1
            if self._lookups == WHOLE_AFTER_LOOKUPS:
                self._records = self._record_area()
        lo, hi = 0, self.header.count
        while lo < hi:
            mid = (lo + hi) // 2
            if self._record(mid)[:8] < key:
                lo = mid + 1
            else:
                hi = mid
        found = []
        while lo < self.header.count:
            record = self._record(lo)
            if record[:8] != key:
                break
            found.append(_FIELDS.unpack_from(record, 8))
            lo += 1
        return found

    def records(self) -> np.ndarray:
        """All records as a numpy structured array (a copy, safe after close)."""
        import numpy as np

        if self._fd is None or self.header is None:
            return np.zeros(0, dtype=record_dtype())
        records = self._records if self._records is not None else self._record_area()
        return np.frombuffer(records, dtype=record_dtype()).copy()

    def _record_area(self) -> bytes:
        """Every record, read in one call and checked against the header."""
        assert self._fd is not None and self.header is not None
        size = self.header.count * RECORD_SIZE
        data = os.pread(self._fd, size, _HEADER.size)
        if len(data) != size:
            raise StaleCatalogError(f"{self.path} changed while in use")
        if not self.header.matches(data):
            raise StaleCatalogError(f"{self.path} is damaged (checksum mismatch)")
        return data

    def close(self) -> None:
        # forgotten before it is closed: a Ctrl-C in between must not leave it to be closed
        # again, when its number may already belong to another file (the log, the lock)
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def sorted_array(records: np.ndarray) -> bytes:
    """The catalog records of a numpy array (``record_dtype``), sorted by key."""
    import numpy as np

    # astype: numpy operations such as concatenate quietly turn the big-endian key native
    ordered = np.sort(records.astype(record_dtype(), copy=False), order="key", kind="stable")
    return ordered.tobytes()


def sorted_records(entries: Sequence[tuple[str, int, int, int]]) -> bytes:
    """The catalog records of ``entries`` (id, offset, length, seq), sorted by key as
    ``sorted_array`` sorts them, without numpy: importing it takes longer than sorting a
    first catalog of some thousand items in Python (an ingest into a new shard needs numpy
    for nothing else)."""
    keys = id_keys([item_id for item_id, *_ in entries])
    pack = _FIELDS.pack
    rows = [
        (keys[8 * n : 8 * n + 8], pack(offset, length, seq))
        for n, (_, offset, length, seq) in enumerate(entries)
    ]
    rows.sort(key=itemgetter(0))  # stable, as numpy's sort is: equal keys keep their order
    return b"".join([key + fields for key, fields in rows])


def write_catalog(
    path: Path, body: bytes, *, generation: str, watermark: int, next_seq: int, seal: int
) -> None:
    """Write a catalog of the records in ``body`` (sorted by key) atomically to ``path``.

    ``seal`` is ``LogFile.seal(watermark)``, as it was when the records were read from the log.
    """
    count = len(body) // RECORD_SIZE
    name = generation.encode()[:16].ljust(16, b"\0")
    checksum = _checksum(body, name, watermark, count, next_seq, seal)
    head = _HEADER.pack(MAGIC, name, watermark, count, next_seq, checksum, seal)
    try:
        derived_dir(path.parent)
        with replacing(path) as tmp, open_temporary(tmp) as fh:
            fh.write(head)
            fh.write(body)
    except OSError as exc:
        raise ShardError(f"cannot write catalog {path}: {failure(path, exc)}") from exc
