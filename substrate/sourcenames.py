"""Telling apart files that share a name.

A source is named relative to the folder it was ingested from, so ``teamA/refunds.md`` and
``teamB/refunds.md``, ingested one folder at a time or in one run over both, both read
``refunds.md``. Where such names are shown together, each is lengthened by as many of its
path's last folders as it takes to tell them apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

# a name is lengthened again only when it meets another; each round adds a folder at least
MAX_LENGTHENINGS = 8


def ending_in(path: str | None, name: str | None) -> str | None:
    """``path`` when ``name`` is its end (the name a walk gave its file), else None: a name
    given by hand (``--source``) is no end of a path, and is shown as it is."""
    if not name or not path:
        return None
    return path if path == name or path.endswith("/" + name) else None


def distinct_names(names: Sequence[str | None], paths: Sequence[str | None]) -> list[str | None]:
    """``names`` lengthened where two read the same but name different files.

    Args:
        names: the names as shown (masked, when a secret may be in one).
        paths: for each name, the path it is the end of (``ending_in``), masked as the names
            are; None leaves the name as it is.
    """
    shown = list(names)
    for _ in range(MAX_LENGTHENINGS):  # a longer name may meet another's: again
        by_name: dict[str, set[str]] = {}
        for name, path in zip(shown, paths, strict=True):
            if name and path:
                by_name.setdefault(name, set()).add(path)
        clashes = {name: rivals for name, rivals in by_name.items() if len(rivals) > 1}
        if not clashes:
            break
        tails = {name: _distinct_tails(name, rivals) for name, rivals in clashes.items()}
        shown = [
            tails[name][path] if name in tails and path else name
            for name, path in zip(shown, paths, strict=True)
        ]
    return shown


def _distinct_tails(name: str, paths: set[str]) -> dict[str, str]:
    """For each of ``paths`` (all ending with ``name``), its shortest end of whole folder
    names, longer than ``name``, that no other of them ends with."""
    parts = {path: path.split("/") for path in paths}
    tails: dict[str, str] = {}
    for count in range(name.count("/") + 2, max(map(len, parts.values())) + 1):
        ends = {path: "/".join(split[-count:]) for path, split in parts.items()}
        seen = Counter(ends.values())
        for path, end in ends.items():
            if path not in tails and (seen[end] == 1 or count >= len(parts[path])):
                tails[path] = end
        if len(tails) == len(paths):
            break
    return {path: tails.get(path, path) for path in paths}
