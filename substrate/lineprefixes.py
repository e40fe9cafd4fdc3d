"""The content hashes of a file's first bytes, by which a file appended to (JSON Lines, traces,
a large CSV: ``limits.reads_alike_grown``) is told from one changed: its first bytes, as many
as it had, hash as they did then and end a line."""

from __future__ import annotations

import hashlib

_CHUNK = 1 << 20


class LinePrefixes:
    """The content hashes (as ``content_digest`` gives them) of a file's first bytes, by how
    many, where they end a line (None where they do not, or the file cannot be read): read on
    from the last one asked for, so that the sizes of a log appended to, asked for in the
    order its items were written, cost one reading of it, not one each."""

    def __init__(self, path: str, data: bytes | None = None) -> None:
        self.path = path
        self.data = data  # the file's bytes, when they are held: hashed from memory
        self.known: dict[int, str | None] = {}
        self._digest = hashlib.sha256()
        self._at = 0  # how many bytes ``_digest`` has read
        self._last = b""  # the last of them

    def of(self, size: int) -> str | None:
        if size not in self.known:
            self.known[size] = self._hashed(size)
        return self.known[size]

    def _hashed(self, size: int) -> str | None:
        if self.data is not None:
            if not 0 < size <= len(self.data) or self.data[size - 1 : size] != b"\n":
                return None
            return hashlib.sha256(memoryview(self.data)[:size]).hexdigest()[:32]
        if size < self._at:  # (asked out of order: read again from the start)
            self._digest, self._at, self._last = hashlib.sha256(), 0, b""
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self._at)
                while self._at < size and (chunk := fh.read(min(_CHUNK, size - self._at))):
                    self._digest.update(chunk)
                    self._at += len(chunk)
                    self._last = chunk[-1:]
        except OSError:
            return None
        if self._at != size or self._last != b"\n":
            return None
        return self._digest.copy().hexdigest()[:32]
