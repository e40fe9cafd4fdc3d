"""Files kept compressed with gzip: a rotated log (``app.jsonl.1.gz``), a package's
changelog (``changelog.Debian.gz``, ``NEWS.gz``).

Such a file is read as the file its name names without ``.gz``: its format comes from that
name, and its items from the text inside, whose line numbers they give. Its content hash is
the hash of the compressed bytes on disk (what ``freshness`` hashes again); it is never
taken as a log that only grew, whose lines added alone would be read.
"""

from __future__ import annotations

import zlib

SUFFIX = ".gz"
GZIP_MAGIC = b"\x1f\x8b"
# zlib's window bits for a gzip header and trailer
_GZIP = 16 + zlib.MAX_WBITS
# How much is inflated at a time: a small file holds a few blocks, a bomb is stopped early
_BLOCK = 1 << 20
# What is said of a file named .gz that holds no gzip data (a Git LFS pointer, say)
NOT_GZIP = "not gzip data, though named .gz"
# What the reference's forms (ingest_file, ingest_documents, ingest_traces) say of gzip data
READ_BY_INGEST_PATH = "gzip data, which `mixle ingest` (ingest_path) reads inside"


class CompressedError(Exception):
    """A compressed file that cannot be read: corrupt, cut short, or too large inflated."""


class InflatedTooLarge(CompressedError):
    """A compressed file that holds more than the size limit."""


def compressed_name(name: str) -> bool:
    """Whether ``name`` (a path or a file name) is that of a gzip file with a name inside."""
    # (asked of every file read: the suffix first, which few names end with)
    if name[-len(SUFFIX) :].lower() != SUFFIX:
        return False
    return len(name.rsplit("/", 1)[-1]) > len(SUFFIX)


def inner_name(name: str) -> str:
    """The name of what a compressed file holds: its own without ``.gz``."""
    return name[: -len(SUFFIX)]


def gunzip(data: bytes, limit: int | None) -> bytes:
    """The bytes a gzip file's ``data`` holds, every member of it (``cat a.gz b.gz``), at most
    ``limit`` of them (``inflate``)."""
    return inflate(data, limit)[0]


def inflate(data: bytes, limit: int | None) -> tuple[bytes, bytes]:
    """The bytes a gzip file's ``data`` holds, every member of it, at most ``limit`` of them;
    and the bytes after its last member, which zcat leaves too.

    Raises:
        CompressedError: it is not gzip data, is corrupt or cut short, or holds more than
            ``limit`` bytes (a small file may inflate to gigabytes: it is not inflated past).
    """
    if data and not data.startswith(GZIP_MAGIC):
        raise CompressedError(NOT_GZIP)
    parts: list[bytes] = []
    held = 0
    rest = data  # (an empty file holds nothing: gzip leaves one as it starts to write)
    while rest.startswith(GZIP_MAGIC):  # (what follows the last member is left, as zcat leaves it)
        inflater = zlib.decompressobj(_GZIP)
        try:
            while not inflater.eof:
                room = _BLOCK if limit is None else min(_BLOCK, limit - held + 1)
                part = inflater.decompress(rest, room)
                if not part and not rest:  # nothing more to give it, and nothing it gave
                    raise CompressedError("gzip data cut short (the file ends inside it)")
                parts.append(part)
                held += len(part)
                if limit is not None and held > limit:
                    raise InflatedTooLarge(
                        f"too large once decompressed (over the size limit of {limit} bytes)"
                    )
                rest = inflater.unconsumed_tail
        except zlib.error as exc:
            raise CompressedError(f"corrupt gzip data: {_reason(exc)}") from None
        rest = inflater.unused_data
    return b"".join(parts), rest


def _reason(exc: zlib.error) -> str:
    """zlib's message without its error number: "invalid block type"."""
    text = str(exc)
    return text.rsplit(": ", 1)[-1] if ": " in text else text
