"""The hash kept of a log that held a secret: of its bytes but for the lines that held one.

A file whose content held a secret keeps no hash of its bytes (``build.withhold_hash``): the
rest of the file is stored, so the hash would confirm a guess of the secret offline. A
document per line appended to all day (an agent's trace file that logged a key once) would
then be read, gated and written whole at every ingest, and its items told stale by freshness
checks as soon as it grew. Such a file keeps this hash instead, of its bytes with the lines
that held a secret left out: what it hashes is stored in clear in the items anyway, so it
confirms no guess, and a file that only grew is still told by its first bytes. The lines left
out are named with it (their number and bytes), and so are the ids of their items, so that
ingest can gate those lines again alone and see that they still give the same items.

Written as ``lines:<32 hex>:<line>@<start>-<end>,...:<id>,...``; the items keep it as
``provenance.lines_hash``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

_KIND = "lines:"
PROVENANCE_KEY = "lines_hash"
# The most lines one leaves out: every item of the file records them (a log that holds more
# secrets is read whole at each change, as a file with no hash is)
MOST_SKIPPED = 16


@dataclass(frozen=True, slots=True)
class LinesDigest:
    """A file's hash without its ``skipped`` lines, each ``(number, start, end)`` (1-based
    line, byte range with its line end), in order; ``ids``: the items of those lines."""

    digest: str
    skipped: tuple[tuple[int, int, int], ...]
    ids: tuple[str, ...]

    def __str__(self) -> str:
        lines = ",".join(f"{n}@{start}-{end}" for n, start, end in self.skipped)
        return f"{_KIND}{self.digest}:{lines}:{','.join(self.ids)}"

    @classmethod
    def parse(cls, text: object) -> LinesDigest | None:
        """The digest written as ``text``; None when it is not one (a plain content hash)."""
        if not isinstance(text, str) or not text.startswith(_KIND):
            return None
        try:
            digest, lines, ids = text[len(_KIND) :].split(":")
            skipped = []
            for entry in lines.split(",") if lines else ():
                number, span = entry.split("@")
                start, end = span.split("-")
                skipped.append((int(number), int(start), int(end)))
        except ValueError:
            return None
        return cls(digest, tuple(skipped), tuple(ids.split(",")) if ids else ())

    def of(self, data: bytes, size: int) -> str | None:
        """The hash of the first ``size`` bytes of ``data`` without the lines skipped (None
        when they end no line, or a line skipped lies past them)."""
        return digest_without(data, size, [(start, end) for _, start, end in self.skipped])

    def placed(self, data: bytes) -> bool:
        """Whether each line left out is still, whole, the line of its number at its bytes in
        ``data``: an edit of as many bytes may have moved the lines' ends."""
        return all(
            data.count(b"\n", 0, start) == number - 1
            and data.count(b"\n", start, end) == 1
            and data[end - 1 : end] == b"\n"
            for number, start, end in self.skipped
        )

    def for_items(self) -> str:
        """The digest as the items record it, for freshness checks: without the ids."""
        return str(LinesDigest(self.digest, self.skipped, ()))

    def lines(self) -> frozenset[int]:
        return frozenset(number for number, _, _ in self.skipped)


def whole_file_hash(digest: str) -> str:
    """``digest`` when it is the hash of a file's bytes, "" when it is a ``LinesDigest``: a
    file that held a secret, whose moves and touches are told as those of one with no hash."""
    return "" if digest.startswith(_KIND) else digest


def digest_without(data: bytes, size: int, skipped: list[tuple[int, int]]) -> str | None:
    """The hash (sha256, 32 hex digits) of the first ``size`` bytes of ``data`` but for the
    byte ranges ``skipped`` (in order, apart); None when the bytes end no line, or a range
    does not lie within them."""
    if not 0 < size <= len(data) or data[size - 1 : size] != b"\n":
        return None
    view = memoryview(data)
    digest = hashlib.sha256()
    at = 0
    for start, end in skipped:
        if not at <= start < end <= size:
            return None
        digest.update(view[at:start])
        at = end
    digest.update(view[at:size])
    return digest.hexdigest()[:32]


def line_spans(data: bytes, numbers: list[int]) -> list[tuple[int, int, int]] | None:
    """The byte range of each of the lines ``numbers`` (1-based, ascending) of ``data``,
    with its line end, as ``(number, start, end)``; None when one has no line end."""
    spans = []
    at, line = 0, 1
    for number in numbers:
        while line < number:  # (a Python step a line up to the last one asked for)
            end = data.find(b"\n", at)
            if end < 0:
                return None
            at, line = end + 1, line + 1
        end = data.find(b"\n", at)
        if end < 0:
            return None
        spans.append((number, at, end + 1))
    return spans


def bytes_without(data: bytes, spans: list[tuple[int, int, int]]) -> bytes:
    """``data`` without the byte ranges of ``spans`` (``line_spans``): what the digest is of."""
    view = memoryview(data)
    pieces, at = [], 0
    for _, start, end in spans:
        pieces.append(view[at:start])
        at = end
    pieces.append(view[at:])
    return b"".join(pieces)
