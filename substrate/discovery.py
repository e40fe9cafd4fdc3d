"""Which shard a command works on: explicit path, environment, nearest ``.mixle/``, or default."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

SHARD_DIR = ".mixle"


def default_shard_path(env: Mapping[str, str] | None = None) -> Path:
    """The per-user shard in the platform's data directory (XDG on Linux)."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    if sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    elif sys.platform == "win32":
        base = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
    else:
        # a relative XDG_DATA_HOME is ignored, as the XDG spec asks: the per-user shard must
        # not move with the working directory (a cron job's is not a shell's)
        xdg = env.get("XDG_DATA_HOME") or ""
        base = Path(xdg) if os.path.isabs(xdg) else home / ".local" / "share"
    return base / "mixle" / "default"


def find_shard(
    explicit: str | os.PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Path:
    """Resolve the shard: ``explicit``, else ``MIXLE_SHARD``, else the nearest ``.mixle/`` walking
    up from ``cwd``, else the per-user default shard."""
    env = os.environ if env is None else env
    if explicit:
        return Path(explicit).expanduser()
    if env.get("MIXLE_SHARD"):
        return Path(env["MIXLE_SHARD"]).expanduser()
    return nearest_shard((cwd or Path.cwd()).resolve()) or default_shard_path(env)


def nearest_shard(folder: Path) -> Path | None:
    """The ``.mixle/`` in ``folder`` or the nearest folder above it, if any."""
    for candidate in (folder / SHARD_DIR, *(f / SHARD_DIR for f in folder.parents)):
        if candidate.is_dir():
            return candidate
    return None
