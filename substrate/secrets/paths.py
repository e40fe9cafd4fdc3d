"""Secrets in file paths, where a token may be a whole folder name.

In running text, a match between two ``/`` may be the middle of a base64 run (runs of ``///``
are common in encoded binaries), so ``find_secrets`` does not take a token there. In a path
it is a folder's name: ``keys/AKIA…/notes.md``. A path's components are therefore scanned one
by one as well, where each is a whole string of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from substrate.secrets.engine import find_secrets
from substrate.secrets.hits import Hit, shifted_hit
from substrate.secrets.pieces import path_pieces
from substrate.secrets.scan import redact_hits
from substrate.secrets.screen import SHORT_LEN, may_hold_secret

# Fields that hold a file's path: scanned as paths wherever they are (provenance, payloads);
# ``note_links`` holds the paths a note links to (``substrate.notelinks``).
PATH_KEYS = frozenset({"path", "source", "note_links"})


def find_secrets_in_path(path: str) -> list[Hit]:
    """``find_secrets`` of ``path``, with the secrets that make up a whole component, or a
    file name's stem, added (those the whole path already shows are not repeated), sorted by
    start. A stem, as ``password=Tr0ub4dor&3x!`` of ``password=Tr0ub4dor&3x!.txt``: with its
    extension, the value reads as a file name, which no rule takes for a secret."""
    hits = find_secrets(path)
    for start, piece in path_pieces(path):
        for hit in _piece_hits(piece):
            begin, end = hit.start + start, hit.end + start
            if not any(h.start < end and begin < h.end for h in hits):
                hits.append(shifted_hit(hit, start))
    return sorted(hits, key=lambda h: h.start)


def _piece_hits(piece: str) -> Sequence[Hit]:
    """``find_secrets`` of a piece of a path, after its screen. Folder and file names recur
    from path to path (every page of a folder, each language's copy of a page): a short
    one's hits are remembered."""
    if len(piece) <= SHORT_LEN:
        return _short_piece_hits(piece)
    return find_secrets(piece) if may_hold_secret(piece) else ()


@lru_cache(maxsize=4096)
def _short_piece_hits(piece: str) -> tuple[Hit, ...]:
    return tuple(find_secrets(piece)) if may_hold_secret(piece) else ()


def safe_path(path: str) -> str:
    """``path`` with its secrets masked, folder names included: how reports show a path."""
    hits = find_secrets_in_path(path)
    return redact_hits(path, hits) if hits else path
