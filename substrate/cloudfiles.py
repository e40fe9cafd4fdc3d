"""Files a sync service keeps online only: gone from their folder, not from the user's."""

from __future__ import annotations

import os


def in_the_cloud(path: str) -> bool:
    """Whether the file at ``path``, gone from its folder, is kept in iCloud: iCloud Drive
    evicts a file it keeps online by putting a hidden ``.NAME.icloud`` in its place."""
    folder, name = os.path.split(path)
    return os.path.lexists(os.path.join(folder, f".{name}.icloud"))
