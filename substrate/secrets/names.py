"""File names that are not valid UTF-8.

Python keeps the bytes of such a name as lone surrogates (``bad\\udcff.py``), which JSON cannot
hold and a terminal cannot show. A scan fingerprints the name's real bytes, so two files whose
names differ only in such bytes are two findings, and reports write those bytes as ``\\xNN``
(``bad\\xff.py``), as the command line names an argument that is not UTF-8: valid UTF-8, and
the bytes can be read back from it. (A name that holds ``\\xff`` as four characters reads
alike; its fingerprint still differs.)
"""

from __future__ import annotations

import os


def name_bytes(name: str) -> bytes:
    """The bytes ``name`` stands for: its UTF-8, with the bytes the file system gave that are
    not UTF-8 restored (identical to ``name.encode()`` for a valid name)."""
    try:
        return name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that no file system gave: keep it apart
        return name.encode("utf-8", "surrogatepass")


def escaped_name(name: str) -> str:
    """``name`` as reports show it: bytes that are not UTF-8 written ``\\xNN``."""
    if name.isascii():  # the common case, and nothing to escape
        return name
    return name_bytes(name).decode("utf-8", "backslashreplace")


def slashed(path: str) -> str:
    """``path`` with ``/`` between its folders. A backslash is a separator on Windows only:
    elsewhere a name may hold one, and ``tests\\leak.py`` is a file at the top, not one in
    ``tests/`` that an allow-list of ``tests/*`` would pass."""
    return path.replace("\\", "/") if os.sep == "\\" else path
