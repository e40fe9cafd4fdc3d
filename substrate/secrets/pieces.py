"""The parts of a path that a path scan reads on their own.

A token may be a whole folder name, or a file name's stem: ``keys/AKIA…/notes.md``,
``password=Tr0ub4dor&3x!.txt``. Read as part of the path, its neighbours hide it (a ``/``
before it looks like the middle of a base64 run, an extension after it makes it a file
name), so ``find_secrets_in_path`` also scans each of these pieces alone, and the screens
that answer for it must look at them too.
"""

from __future__ import annotations

from collections.abc import Iterator

# The longest extension cut off a file name, with its dot: ``.md``, ``.json``, ``.txt``
_EXTENSION = 6


def path_pieces(path: str) -> Iterator[tuple[int, str]]:
    """Each piece of ``path`` scanned alone, with where it starts in ``path``: every name
    between ``/`` (when there is a ``/``), and a name without its extension of up to five
    characters."""
    start = 0
    parted = "/" in path
    for part in path.split("/"):
        if parted:
            yield start, part
        dot = part.rfind(".")
        if dot > 0 and len(part) - dot <= _EXTENSION:
            yield start, part[:dot]
        start += len(part) + 1
