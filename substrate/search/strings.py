"""Packed strings: many strings as one UTF-8 blob plus offsets, searchable without a dict.

A vocabulary of a hundred thousand terms costs tens of milliseconds to turn into Python strings
and a dict. Packed, it can be memory-mapped and used as it lies on disk. ``find`` looks a string
up in two steps: a binary search (in numpy) over the first eight bytes of every string in byte
order, which leaves the few strings sharing that prefix (usually one), then a comparison of
those. A query's handful of terms touches a few pages of the file and nothing else.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, SupportsIndex, overload

import numpy as np

Buffer = Any  # bytes, or an ``mmap.mmap``: anything whose slices are ``bytes``

_KEY_BYTES = 8
# Strings looked up or decoded are remembered (a long-lived process repeats its common query
# and feedback terms); the memo is emptied when it reaches this size, which bounds its memory.
_MEMO_LIMIT = 65_536


def _key(raw: bytes) -> int:
    # Big-endian and zero-padded, so keys sort as the strings' bytes do (terms hold no NUL).
    return int.from_bytes(raw[:_KEY_BYTES].ljust(_KEY_BYTES, b"\0"), "big")


@dataclass(frozen=True, slots=True)
class StringArrays:
    """The arrays of packed strings, as stored.

    Attributes:
        blob: the UTF-8 bytes of every string, end to end (uint8).
        offsets: start of each string in ``blob``, plus its end (int64, n + 1).
        order: positions of the strings sorted by their bytes (int32), or None.
        keys: first eight bytes of each string in ``order``, as big-endian uint64, or None.
    """

    blob: np.ndarray
    offsets: np.ndarray
    order: np.ndarray | None
    keys: np.ndarray | None


def pack_strings(strings: Iterable[str], *, lookup: bool = True) -> StringArrays:
    """Encode ``strings``; with ``lookup``, add what ``PackedStrings.find`` needs."""
    encoded = [s.encode("utf-8") for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    blob = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    if not lookup:
        return StringArrays(blob, offsets, None, None)
    ranked = sorted(range(len(encoded)), key=encoded.__getitem__)
    order = np.asarray(ranked, dtype=np.int32)
    keys = np.fromiter((_key(encoded[i]) for i in ranked), dtype=np.uint64, count=len(ranked))
    return StringArrays(blob, offsets, order, keys)


class PackedStrings(Sequence[str]):
    """A read-only sequence of strings stored as one UTF-8 blob plus offsets.

    Args:
        buffer: the blob (bytes or a memory map); slicing it must give ``bytes``.
        offsets: start of each string in ``buffer`` (int64, one more than the strings).
        order: positions of the strings in byte order (``find`` and ``index`` need it).
        keys: the sorted eight-byte prefixes that go with ``order``.
        base: where the blob starts in ``buffer`` (the offsets are relative to it).
    """

    __slots__ = ("_base", "_buffer", "_decoded", "_found", "_keys", "_offsets", "_order")

    def __init__(
        self,
        buffer: Buffer,
        offsets: np.ndarray,
        order: np.ndarray | None = None,
        keys: np.ndarray | None = None,
        base: int = 0,
    ) -> None:
        self._buffer = buffer
        self._offsets = offsets
        self._order = order
        self._keys = keys
        self._base = base
        self._found: dict[str, int] = {}
        self._decoded: dict[int, str] = {}

    @classmethod
    def from_strings(cls, strings: Iterable[str]) -> PackedStrings:
        arrays = pack_strings(strings)
        return cls(arrays.blob.tobytes(), arrays.offsets, arrays.order, arrays.keys)

    def __len__(self) -> int:
        return int(self._offsets.shape[0]) - 1

    def _raw(self, i: int) -> bytes:
        base = self._base
        raw: bytes = self._buffer[base + int(self._offsets[i]) : base + int(self._offsets[i + 1])]
        return raw

    @overload
    def __getitem__(self, i: SupportsIndex) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: SupportsIndex | slice) -> str | list[str]:
        n = len(self)
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(n))]
        j = operator.index(i)  # numpy integers index like ints
        if j < 0:
            j += n
        text = self._decoded.get(j)
        if text is None:
            if not 0 <= j < n:
                raise IndexError("string index out of range")
            text = self._raw(j).decode("utf-8")
            if len(self._decoded) >= _MEMO_LIMIT:
                self._decoded.clear()
            self._decoded[j] = text
        return text

    def __iter__(self) -> Iterator[str]:
        if len(self) == 0:
            return
        # One read of the whole blob, then cheap slices: much faster than item by item.
        base = self._base
        data = bytes(self._buffer[base + int(self._offsets[0]) : base + int(self._offsets[-1])])
        bounds = (self._offsets - self._offsets[0]).tolist()
        for lo, hi in zip(bounds, bounds[1:], strict=False):
            yield data[lo:hi].decode("utf-8")

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and self.find(value) >= 0

    def find(self, value: str) -> int:
        """Position of ``value``, or -1 (no index is built)."""
        pos = self._found.get(value)
        if pos is None:
            pos = self._search(value)
            if len(self._found) >= _MEMO_LIMIT:
                self._found.clear()
            self._found[value] = pos
        return pos

    def _search(self, value: str) -> int:
        order, keys = self._order, self._keys
        if order is None or keys is None:
            raise TypeError("these packed strings were stored without a lookup order")
        target = value.encode("utf-8")
        key = np.uint64(_key(target))
        lo = int(np.searchsorted(keys, key, side="left"))
        hi = int(np.searchsorted(keys, key, side="right"))
        while lo < hi:  # the strings sharing the first eight bytes, in byte order
            mid = (lo + hi) // 2
            if self._raw(int(order[mid])) < target:
                lo = mid + 1
            else:
                hi = mid
        if lo < order.shape[0]:
            pos = int(order[lo])
            if self._raw(pos) == target:
                return pos
        return -1

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        pos = self.find(value) if isinstance(value, str) else -1
        if pos < 0 or pos < start or (stop is not None and pos >= stop):
            raise ValueError(f"{value!r} is not in the strings")
        return pos

    def arrays(self) -> StringArrays:
        """The stored arrays (the blob copied out and rebased to start at 0)."""
        start, end = int(self._offsets[0]), int(self._offsets[-1])
        raw = bytes(self._buffer[self._base + start : self._base + end])
        blob = np.frombuffer(raw, dtype=np.uint8)
        return StringArrays(blob, self._offsets - start, self._order, self._keys)
