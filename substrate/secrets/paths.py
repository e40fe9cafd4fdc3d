"""Secrets in file paths, where a token may be a whole folder name.

In running text, a match between two ``/`` may be the middle of a base64 run (runs of ``///``
are common in encoded binaries), so ``find_secrets`` does not take a token there. In a path
it is a folder's name: ``keys/AKIA…/notes.md``. A path's components are therefore scanned one
by one as well, where each is a whole string of its own.
"""

from __future__ import annotations

from substrate.secrets.engine import Hit, find_secrets, shifted_hit
from substrate.secrets.pieces import path_pieces
from substrate.secrets.scan import redact_hits
from substrate.secrets.screen import may_hold_secret

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
        # folder names recur from path to path: the screen's verdict on each is remembered
        for hit in find_secrets(piece) if may_hold_secret(piece) else ():
            begin, end = hit.start + start, hit.end + start
            if not any(h.start < end and begin < h.end for h in hits):
                hits.append(shifted_hit(hit, start))
    return sorted(hits, key=lambda h: h.start)


def safe_path(path: str) -> str:
    """``path`` with its secrets masked, folder names included: how reports show a path."""
    hits = find_secrets_in_path(path)
    return redact_hits(path, hits) if hits else path
