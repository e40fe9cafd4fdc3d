"""Bytes to text: strict UTF-8 (a byte-order mark dropped), or UTF-16 or UTF-32 when a
byte-order mark says so, with normalised line ends."""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import re
import stat

from substrate.compressed import GZIP_MAGIC, READ_BY_INGEST_PATH
from substrate.ingest.report import SHARD_LOG
from substrate.ingest.segment import FileRejected
from substrate.limits import BINARY_PROBE_BYTES
from substrate.log import is_shard_log
from substrate.widetext import WideEncoding, is_binary, wide_encoding

_BOM = b"\xef\xbb\xbf"


def decode_text(data: bytes, *, lines_apart: bool = False) -> str:
    """Decode file content as UTF-8 (or UTF-16 or UTF-32 after their byte-order mark) and
    turn ``\\r\\n`` (and a lone ``\\r`` in a file of no ``\\n``) into ``\\n``. With
    ``lines_apart`` (JSON Lines: each line a document of its own), bytes that are not UTF-8
    are kept as lone surrogates, for the parser to reject their lines alone (``bad_byte``).

    Raises:
        FileRejected: the content is a copy of a shard's log (another shard's items, each in
            its scope, whatever the file is named), is not valid in its encoding, or holds a
            NUL byte (see ``_refuse_nul``); the error names the line (and, for an invalid
            one, the byte offset) of the first bad byte, so the user can find it.
    """
    if is_shard_log(data):
        raise FileRejected(SHARD_LOG)
    wide = wide_encoding(data)
    if wide is not None:
        text = _wide(data, wide)
    else:
        offset = 3 if data.startswith(_BOM) else 0
        try:
            text = data[offset:].decode("utf-8") if offset else data.decode("utf-8")
        except UnicodeDecodeError as exc:
            if not lines_apart:
                raise _invalid_utf8(data, exc.start + offset) from None
            text = data[offset:].decode("utf-8", "surrogateescape")
    text = _normalised(text)
    nul = text.find("\x00")
    if nul >= 0:
        _refuse_nul(text.count("\n", 0, nul) + 1)
    return text


def _conversion(data: bytes) -> str:
    """How to convert ``data``, which is no UTF-8, to UTF-8: from the encoding its first two
    lines declare (``# -*- coding: koi8-r -*-``, ``vim: fileencoding=cp1251``) when Python
    knows it; from one the user names when those bytes are of another script than Latin
    (``_other_script``: Cyrillic, Chinese, Japanese, Korean text); else from Windows' cp1252
    where those bytes include some of 0x80-0x9f (its quotes, dashes and euro sign; in latin1
    control characters no text holds) and none it leaves undefined; else from latin1."""
    declared = _DECLARED.search(b"\n".join(data.split(b"\n", 2)[:2]))
    if declared is not None and _written_in(data, name := declared.group(1).decode("ascii")):
        return f"iconv -f {name} -t utf-8: the encoding it declares"  # (as it spells it)
    probe = data[:_ENCODING_PROBE].decode("utf-8", "surrogateescape")
    if _other_script(probe):
        return f"iconv -f ENCODING -t utf-8, naming its encoding: {_NON_WESTERN}..."
    stray = {ord(ch) - 0xDC00 for ch in probe if "\udc80" <= ch <= "\udcff"}
    windows = any(0x80 <= byte <= 0x9F for byte in stray)
    encoding = "cp1252" if windows and not stray & _CP1252_UNDEFINED else "latin1"
    return f"iconv -f {encoding} -t utf-8, if that is its encoding"


# An encoding declared on one of a file's first lines, as Python (PEP 263), Emacs and Vim read
_DECLARED = re.compile(rb"\b(?:file)?(?:en)?coding[:=][ \t]*([-\w.]+)")
_NON_WESTERN = "cp1251, koi8-r, shift_jis, gbk, big5, euc-kr"
# Three or more bytes that are no UTF-8, escaped (``surrogateescape``), in a row: a word of
# another script's letters (a Western one's accented letters come one or two together)
_STRAY_RUN = re.compile("[\udc80-\udcff]{3,}")


def _written_in(data: bytes, name: str) -> bool:
    """Whether the encoding a file declares as ``name`` is one Python knows as a text
    encoding ("base64" is a codec too; "undefined" refuses all), other than UTF-8 (which it is
    not) or UTF-16 and -32 (a byte-order mark tells them), in which its first bytes read
    (not "ascii" over accented letters)."""
    try:
        known = codecs.lookup(name).name
        data[:_ENCODING_PROBE].decode(known)
    except Exception:  # (a codec may fail in any way: advice must not fail the run)
        return False
    return not known.startswith("utf")


def _other_script(probe: str) -> bool:
    """Whether the bytes of ``probe`` that are no UTF-8 (escaped) write another script than
    Latin letters: they are a third or more of what is not white space (each Cyrillic letter
    is one, each Chinese or Japanese character two), or half of them stand in words of three
    or more (a few lines of Cyrillic in English text); a Western encoding writes an accent's
    letter here and there ("caf\\xe9", "na\\xe7\\xe3o")."""
    stray = sum(1 for ch in probe if "\udc80" <= ch <= "\udcff")
    written = sum(1 for ch in probe if not ch.isspace())
    in_words = sum(len(run) for run in _STRAY_RUN.findall(probe))
    return stray >= 8 and (3 * stray >= written or 2 * in_words >= stray)


_ENCODING_PROBE = 1 << 16
# Where a file is left out of every walk: the shard's settings serve a folder one may not write
# to (/usr/share/doc), where a cron job's ingest would otherwise fail on the file at every run
LEAVE_OUT = ".mixleignore (or the shard's mixle.toml, [ingest] ignore)"
_CP1252_UNDEFINED = frozenset({0x81, 0x8D, 0x8F, 0x90, 0x9D})  # (iconv refuses them)


def _invalid_utf8(data: bytes, at: int) -> FileRejected:
    """The rejection of content whose byte at ``at`` is no UTF-8."""
    return FileRejected(
        f"invalid UTF-8 (byte 0x{data[at]:02x} at offset {at}); "
        f"convert the file to UTF-8 ({_conversion(data)}), "
        f"or leave it out with a line in {LEAVE_OUT}",
        line=_line_at(data, at),
        byte=at,
    )


# A byte that is no UTF-8, as ``surrogateescape`` keeps it
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


def bad_byte(line: str) -> str | None:
    """What makes a line decoded with ``lines_apart`` invalid: its first byte that is no
    UTF-8, and where in the line; None when it has none."""
    found = _ESCAPED_BYTE.search(line)
    if found is None:
        return None
    offset = len(line[: found.start()].encode("utf-8", "surrogateescape"))
    byte = ord(found.group()) - 0xDC00
    return f"invalid UTF-8 (byte 0x{byte:02x} at offset {offset} of the line)"


def _refuse_nul(line: int) -> None:
    """A NUL byte past the first bytes the binary check reads: no text holds one, but a
    crash or a full disk leaves zeros in a file; its items from before are kept."""
    raise FileRejected(
        "a NUL byte in a text file (a crash or a full disk may have left zeros in it); "
        f"restore the file, or leave it out with a line in {LEAVE_OUT}",
        line=line,
    )


def _line_at(data: bytes, at: int) -> int:
    """The line of byte ``at``, counting line ends as ``decode_text`` makes them: ``\\n``
    (and ``\\r\\n``), or in a file with none, a lone ``\\r``."""
    return data.count(b"\n" if b"\n" in data else b"\r", 0, at) + 1


def _normalised(text: str) -> str:
    """``text`` with ``\\n`` line ends. A lone ``\\r`` ends a line only in a file without
    ``\\n`` (classic Mac OS); elsewhere it lies within one (a progress bar's, as a log keeps
    it), and counted as an end it shifted every later line number: it is a space."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        text = text.replace("\r", " " if "\n" in text else "\n")
    return text


def _wide(data: bytes, wide: WideEncoding) -> str:
    """The text after a UTF-16 or UTF-32 byte-order mark."""
    try:
        return wide.decode(data)
    except UnicodeDecodeError as exc:
        at = exc.start + wide.mark
        before = _normalised(data[wide.mark : at].decode(wide.codec))  # (valid up to there)
        raise FileRejected(
            f"invalid {wide.name} (byte offset {at}); convert the file to UTF-8",
            line=before.count("\n") + 1,
            byte=at,
        ) from None


def content_digest(data: bytes | memoryview) -> str:
    """The content hash recorded at ingest: sha256, first 32 hex digits.

    The same value ``content_hash(path)`` of the freshness checks computes from the file, so a
    changed file is detected by comparing the two.
    """
    return hashlib.sha256(data).hexdigest()[:32]


def not_text(head: bytes) -> str | None:
    """Why content whose first bytes are ``head`` is no text the reference's forms read
    (``ingest_file``, ``ingest_documents``): gzip data, which ``ingest_path`` reads inside, or
    binary content; None for text."""
    if head.startswith(GZIP_MAGIC):
        return READ_BY_INGEST_PATH
    return "binary file, not text" if is_binary(head[:BINARY_PROBE_BYTES]) else None


def starts_binary(path: str) -> bool:
    """Whether a file's first bytes show it is binary (raises OSError)."""
    fd, _ = _open_regular(path)
    try:
        return is_binary(os.read(fd, BINARY_PROBE_BYTES))
    finally:
        os.close(fd)


def read_regular(path: str, *, follow: bool = False) -> bytes:
    """A whole small file that must still be a regular file, and, unless ``follow``, not a
    link to one (a ``.gitignore``, which git does not follow either): see ``_open_regular``
    (raises OSError, ``ELOOP`` for a link not followed, or a loop of links)."""
    fd, _ = _open_regular(path, follow=follow)
    try:
        parts = []
        while block := os.read(fd, 1 << 16):
            parts.append(block)
        return b"".join(parts)
    finally:
        os.close(fd)


def _open_regular(path: str, *, follow: bool = True) -> tuple[int, os.stat_result]:
    """A descriptor of ``path`` for reading, and what it is, which must still be a regular
    file: opened without waiting, so that a FIFO put in a file's place since the walk cannot
    hold the run.

    Raises:
        OSError: it cannot be opened, or is not a regular file.
    """
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file (any more)")
    return fd, info


def read_unless_binary(
    path: str,
    within: str | None = None,
    limit: int | None = None,
    *,
    compressed: bool = False,
) -> tuple[bytes, bool]:
    """Read a whole file, unless its first 8 KiB show it is binary (gzip data is not, for a
    file read ``compressed``: its text is inside).

    Returns ``(content, False)``, or ``(first bytes, True)`` for a binary file, which is not read
    any further. Plain ``os.read`` calls: no buffered file object for files read once.

    Args:
        path: the file.
        within: a real path (a folder, or the file itself) the file opened must lie in,
            however its path was changed since it was listed: a link put in its place, or in
            the place of a folder on its way (the folder swapped for a link between two
            listings would have the walk list, and read, another user's files).
        limit: the most bytes to hold: a file that grew past it since it was listed (a log
            being written) is not read on.

    Raises:
        OSError: the file cannot be opened or read, lies outside ``within``, or is larger
            than ``limit``.
    """
    fd, info = _open_regular(path)
    try:
        # (asked of every file, not only one replaced since it was listed: a folder swapped for
        # a link before it was listed gives files of the same identity, found where it leads)
        if within is not None and not _opened_within(fd, path, within):
            raise OSError(errno.EXDEV, "it leads out of the folder ingested (changed since listed)")
        head = os.read(fd, BINARY_PROBE_BYTES)
        if is_binary(head) and not (compressed and head.startswith(GZIP_MAGIC)):
            return head, True
        parts = [head]  # a short read is not the end on every file system: read to b""
        held = len(head)
        while block := os.read(fd, 1 << 20):
            parts.append(block)
            held += len(block)
            if limit is not None and held > limit:
                raise OSError(
                    errno.EFBIG, f"it grew past the size limit ({limit} bytes) since listed"
                )
        return b"".join(parts), False
    finally:
        os.close(fd)


def read_head(path: str, within: str | None, size: int) -> bytes:
    """The first ``size`` bytes of the regular file at ``path`` (fewer if it is shorter),
    opened as ``read_unless_binary`` opens one: never a FIFO put in its place, never a file a
    link leads to out of ``within``.

    Raises:
        OSError: as ``read_unless_binary``.
    """
    fd, _ = _open_regular(path)
    try:
        if within is not None and not _opened_within(fd, path, within):
            raise OSError(errno.EXDEV, "it leads out of the folder ingested (changed since listed)")
        parts, held = [], 0
        while held < size and (block := os.read(fd, min(1 << 20, size - held))):
            parts.append(block)
            held += len(block)
        return b"".join(parts)
    finally:
        os.close(fd)


def _opened_within(fd: int, path: str, within: str) -> bool:
    """Whether the file open as ``fd`` is ``within`` or lies under it (by the path the kernel
    gives the open file, else, off Linux, by resolving ``path`` again)."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        real = os.path.realpath(path)
    return real == within or real.startswith(within.rstrip(os.sep) + os.sep)
