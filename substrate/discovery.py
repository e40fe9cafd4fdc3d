"""Which shard a command works on: explicit path, environment, nearest ``.mixle/``, or default."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from substrate.errors import ShardError

SHARD_DIR = ".mixle"


def default_shard_path(env: Mapping[str, str] | None = None) -> Path:
    """The per-user shard in the platform's data directory (XDG on Linux)."""
    env = os.environ if env is None else env
    if sys.platform == "darwin":
        base = _home(env) / "Library" / "Application Support"
    elif sys.platform == "win32":
        base = Path(env.get("LOCALAPPDATA") or _home(env) / "AppData" / "Local")
    else:
        # a relative XDG_DATA_HOME is ignored, as the XDG spec asks: the per-user shard must
        # not move with the working directory (a cron job's is not a shell's)
        xdg = env.get("XDG_DATA_HOME") or ""
        base = Path(xdg) if os.path.isabs(xdg) else _home(env) / ".local" / "share"
    return base / "mixle" / "default"


def _home(env: Mapping[str, str]) -> Path:
    """The user's home folder: ``HOME``, else (unset or empty) the user's entry in the
    password database."""
    if env.get("HOME"):
        return Path(env["HOME"])
    try:
        if sys.platform == "win32":
            return Path.home()
        import pwd

        return Path(pwd.getpwuid(os.getuid()).pw_dir)
    except (KeyError, RuntimeError, OSError):  # a container's user with no entry
        raise ShardError(
            "no home folder for the per-user shard: HOME is not set and the user has no entry "
            "in the password database (set HOME, or choose a shard with --shard or MIXLE_SHARD)"
        ) from None


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
    if cwd is None:
        try:
            cwd = Path.cwd()
        except FileNotFoundError:  # (a shell left in a folder removed since)
            raise ShardError(
                "the current folder no longer exists, so the shard of the folder around it "
                "cannot be found: cd to a folder, or name the shard with --shard or MIXLE_SHARD"
            ) from None
    return nearest_shard(cwd.resolve()) or default_shard_path(env)


def nearest_shard(folder: Path) -> Path | None:
    """The ``.mixle/`` in ``folder`` or the nearest folder above it, if any."""
    for candidate in (folder / SHARD_DIR, *(f / SHARD_DIR for f in folder.parents)):
        if candidate.is_dir():
            return candidate
    return None
