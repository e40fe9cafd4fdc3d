"""A memory-mappable container of named numpy arrays plus a JSON header.

Layout: 8 bytes of magic, the header's length (8 bytes, little-endian), the JSON header, then
each array's raw C-order bytes at a 64-byte aligned offset. Opening one costs a single ``mmap``
and a JSON parse; an array is a view of the mapped file, so the operating system reads only the
pages a query touches, and several processes share them through the page cache.
"""

from __future__ import annotations

import json
import mmap
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

MAGIC = b"MXLPACK1"
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
        table[name] = {"dtype": data.dtype.str, "shape": list(data.shape), "offset": at}
        at = _aligned(at + data.nbytes)
    header = json.dumps({"meta": dict(meta), "arrays": table}, sort_keys=True).encode()
    start = _aligned(len(MAGIC) + 8 + len(header))
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(MAGIC + len(header).to_bytes(8, "little") + header)
            for name, array in arrays.items():
                fh.seek(start + table[name]["offset"])
                fh.write(np.ascontiguousarray(array).tobytes())
            fh.truncate(max(start + at, fh.tell()))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


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

        try:
            spec = self._table[name]
        except KeyError as exc:
            raise PackError(f"no array {name!r} in the pack") from exc
        dtype = np.dtype(spec["dtype"])
        shape = tuple(int(s) for s in spec["shape"])
        count = int(np.prod(shape, dtype=np.int64))
        if count == 0:
            return np.zeros(shape, dtype=dtype)
        offset = self._start + int(spec["offset"])
        if offset + count * dtype.itemsize > len(self.buffer):
            raise PackError(f"array {name!r} runs past the end of the pack")
        return np.frombuffer(self.buffer, dtype=dtype, count=count, offset=offset).reshape(shape)


def _parse_header(raw: bytes, size: int, name: str) -> tuple[dict[str, Any], dict[str, Any], int]:
    if len(raw) < len(MAGIC) + 8 or raw[: len(MAGIC)] != MAGIC:
        raise PackError(f"{name} is not a pack")
    length = int.from_bytes(raw[len(MAGIC) : len(MAGIC) + 8], "little")
    end = len(MAGIC) + 8 + length
    if end > size or end > len(raw):
        raise PackError(f"{name} is truncated")
    try:
        header = json.loads(raw[len(MAGIC) + 8 : end])
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
            head = fh.read(len(MAGIC) + 8)
            length = int.from_bytes(head[len(MAGIC) :], "little") if len(head) == 16 else 0
            raw = head + fh.read(min(length, max(size - len(head), 0)))
    except OSError as exc:
        raise PackError(f"{path.name}: {exc.strerror or exc}") from exc
    return _parse_header(raw, size, path.name)[0]


def open_pack(path: Path) -> Pack:
    """Map the pack at ``path`` (raises PackError if it cannot be used)."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < len(MAGIC) + 8:
                raise PackError(f"{path.name} is too short to be a pack")
            buffer = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise PackError(f"{path.name}: {exc.strerror or exc}") from exc
    length = int.from_bytes(buffer[len(MAGIC) : len(MAGIC) + 8], "little")
    raw = buffer[: min(len(MAGIC) + 8 + length, size)]
    meta, table, end = _parse_header(raw, size, path.name)
    return Pack(meta, buffer, table, _aligned(end))
