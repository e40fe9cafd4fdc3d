"""A memory-mappable container of named numpy arrays plus a JSON header.

Layout: 8 bytes of magic, the JSON header's length and its CRC-32 (4 bytes each, little-endian),
the JSON header, then each array's raw C-order bytes at a 64-byte aligned offset. Opening one
costs a single ``mmap`` and a JSON parse; an array is a view of the mapped file, so the
operating system reads only the pages a query touches, and several processes share them through
the page cache.

The header is always checked against its CRC, and it holds a CRC-32 of each array, so that a
damaged file whose size still fits is not read as data. Checking the arrays means reading every
page, so ``open_pack`` checks them only in packs small enough for that to cost about a
millisecond; ``Pack.verify`` checks any pack on demand.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from substrate.limits import VERIFY_ON_OPEN_BYTES
from substrate.replacing import open_temporary, replacing

if TYPE_CHECKING:
    import numpy as np

MAGIC = b"MXLPACK2"  # 2: the header and the arrays carry checksums
_PREFIX = struct.Struct("<8sII")  # magic, header length, header CRC-32
_ALIGN = 64


class PackError(Exception):
    """The file is not a readable pack (missing, truncated, or not a pack at all)."""


def _aligned(n: int) -> int:
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def write_pack(path: Path, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` and ``meta`` to ``path`` atomically (temporary file, then rename)."""
    import numpy as np

    table: dict[str, Any] = {}
    at = 0
    for name, array in arrays.items():
        data = np.ascontiguousarray(array)
        table[name] = {
            "dtype": data.dtype.str,
            "shape": list(data.shape),
            "offset": at,
            "crc": zlib.crc32(data.data),
        }
        at = _aligned(at + data.nbytes)
    header = json.dumps({"meta": dict(meta), "arrays": table}, sort_keys=True).encode()
    start = _aligned(_PREFIX.size + len(header))
    with replacing(path) as tmp, open_temporary(tmp) as fh:
        fh.write(_PREFIX.pack(MAGIC, len(header), zlib.crc32(header)) + header)
        for name, array in arrays.items():
            fh.seek(start + table[name]["offset"])
            fh.write(np.ascontiguousarray(array).tobytes())
        fh.truncate(max(start + at, fh.tell()))


@dataclass(slots=True)
class Pack:
    """An open pack: its header's ``meta`` and read-only views of its arrays."""

    meta: dict[str, Any]
    buffer: mmap.mmap
    _table: dict[str, Any]
    _start: int

    def __contains__(self, name: str) -> bool:
        return name in self._table

    def offset_of(self, name: str) -> int:
        """Where the named array starts in ``buffer``."""
        try:
            return self._start + int(self._table[name]["offset"])
        except KeyError as exc:
            raise PackError(f"no array {name!r} in the pack") from exc

    def array(self, name: str) -> np.ndarray:
        """The named array, viewing the mapped file (no copy)."""
        import numpy as np  # imported here so that reading a header alone stays light

        dtype, shape, offset, count = self._locate(name)
        if count == 0:
            return np.zeros(shape, dtype=dtype)
        return np.frombuffer(self.buffer, dtype=dtype, count=count, offset=offset).reshape(shape)

    def _locate(self, name: str) -> tuple[np.dtype, tuple[int, ...], int, int]:
        """dtype, shape, offset in the buffer and element count of the named array."""
        import numpy as np

        try:
            spec = self._table[name]
            dtype = np.dtype(spec["dtype"])
            shape = tuple(int(s) for s in spec["shape"])
            offset = self._start + int(spec["offset"])
        except (KeyError, TypeError, ValueError) as exc:
            raise PackError(f"no readable array {name!r} in the pack") from exc
        count = int(np.prod(shape, dtype=np.int64))
        if offset + count * dtype.itemsize > len(self.buffer):
            raise PackError(f"array {name!r} runs past the end of the pack")
        return dtype, shape, offset, count

    def verify(self) -> None:
        """Check every array against its checksum (reads the whole pack; raises PackError)."""
        for name, spec in self._table.items():
            dtype, _, offset, count = self._locate(name)
            with memoryview(self.buffer) as view:
                found = zlib.crc32(view[offset : offset + count * dtype.itemsize])
            if not isinstance(spec, dict) or found != spec.get("crc"):
                raise PackError(f"array {name!r} is damaged (checksum mismatch)")


def _header_length(prefix: bytes) -> int:
    """The JSON header's length, read from the first bytes of a pack (0 if too short)."""
    return _PREFIX.unpack(prefix[: _PREFIX.size])[1] if len(prefix) >= _PREFIX.size else 0


def _parse_header(raw: bytes, size: int, name: str) -> tuple[dict[str, Any], dict[str, Any], int]:
    if len(raw) < _PREFIX.size or raw[: len(MAGIC)] != MAGIC:
        raise PackError(f"{name} is not a pack")
    _, length, crc = _PREFIX.unpack(raw[: _PREFIX.size])
    end = _PREFIX.size + length
    if end > size or end > len(raw):
        raise PackError(f"{name} is truncated")
    if zlib.crc32(raw[_PREFIX.size : end]) != crc:
        raise PackError(f"{name} has a damaged header (checksum mismatch)")
    try:
        header = json.loads(raw[_PREFIX.size : end])
        meta, table = header["meta"], header["arrays"]
    except (ValueError, KeyError, TypeError) as exc:
        raise PackError(f"{name} has an unreadable header") from exc
    if not isinstance(meta, dict) or not isinstance(table, dict):
        raise PackError(f"{name} has an unreadable header")
    return meta, table, end


def read_meta(path: Path) -> dict[str, Any]:
    """The ``meta`` of the pack at ``path``, read without mapping it (raises PackError)."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(_PREFIX.size)
            raw = head + fh.read(min(_header_length(head), max(size - len(head), 0)))
    except OSError as exc:
        raise PackError(f"{path.name}: {exc.strerror or exc}") from exc
    return _parse_header(raw, size, path.name)[0]


def open_pack(path: Path, *, verify_up_to: int = VERIFY_ON_OPEN_BYTES) -> Pack:
    """Map the pack at ``path``, checking it when it is at most ``verify_up_to`` bytes (raises
    PackError if it cannot be used)."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < _PREFIX.size:
                raise PackError(f"{path.name} is too short to be a pack")
            buffer = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise PackError(f"{path.name}: {exc.strerror or exc}") from exc
    raw = buffer[: min(_PREFIX.size + _header_length(buffer[: _PREFIX.size]), size)]
    meta, table, end = _parse_header(raw, size, path.name)
    pack = Pack(meta, buffer, table, _aligned(end))
    if size <= verify_up_to:
        try:
            pack.verify()
        except PackError as exc:
            raise PackError(f"{path.name}: {exc}") from None
    return pack
