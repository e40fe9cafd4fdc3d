"""Which shard a command works on: explicit path, environment, nearest ``.mixle/``, or default."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path

from substrate.errors import ShardError
from substrate.locking import planted

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
        return _expanded(Path(explicit))
    if env.get("MIXLE_SHARD"):
        return _expanded(Path(env["MIXLE_SHARD"]))
    if cwd is None:
        try:
            cwd = Path.cwd()
        except FileNotFoundError:  # (a shell left in a folder removed since)
            raise ShardError(
                "the current folder no longer exists, so the shard of the folder around it "
                "cannot be found: cd to a folder, or name the shard with --shard or MIXLE_SHARD"
            ) from None
    found = _nearest_entry(cwd.resolve())
    if found is None:
        return default_shard_path(env)
    _refuse_unusable(found)
    return found


def _expanded(path: Path) -> Path:
    """``path`` with a leading ``~`` or ``~user`` expanded."""
    try:
        return path.expanduser()
    except RuntimeError:  # ~user of no such user
        raise ShardError(
            f"no home folder for {str(path).split('/')[0]}: there is no such user (give the "
            "shard's full path in --shard or MIXLE_SHARD)"
        ) from None


def _nearest_entry(folder: Path) -> Path | None:
    """The nearest ``.mixle`` at or above ``folder``, of whatever type (a link, a file)."""
    for candidate in (folder / SHARD_DIR, *(f / SHARD_DIR for f in folder.parents)):
        if os.path.lexists(candidate):
            return candidate
    return None


def _refuse_unusable(found: Path) -> None:
    """Refuse a ``.mixle`` found above the working folder that is no shard of the user's.

    Passing it over would send the command to a shard further up or to the per-user one,
    without a word: a link to a drive not mounted would have its items stored elsewhere. And
    one another user planted in a folder anyone may write to (``locking.planted``, a link
    too) would have its settings govern this user's commands: its ``[secrets]`` could let a
    commit's secrets pass the hook. Named with ``--shard`` or ``MIXLE_SHARD``, either is the
    user's choice.
    """
    where = f"the nearest .mixle, {found},"
    hint = "name the shard to use with --shard or MIXLE_SHARD"
    try:
        info = found.stat()
    except OSError as exc:
        target = os.readlink(found) if found.is_symlink() else None
        what = f"{where} is a link to {target}, which" if target is not None else where
        raise ShardError(
            f"{what} cannot be opened ({exc.strerror}; a drive not mounted?): mount it, or {hint}"
        ) from None
    if not stat.S_ISDIR(info.st_mode):
        raise ShardError(f"{where} is not a folder: remove it, or {hint}")
    if planted(found):
        raise ShardError(
            f"{where} belongs to another user (uid {os.lstat(found).st_uid}) and lies in a "
            f"folder anyone may write to, so anyone may have put it there, and its settings "
            f"would govern this command: {hint} if you trust it"
        )


def nearest_shard(folder: Path) -> Path | None:
    """The ``.mixle/`` in ``folder`` or the nearest folder above it, if any."""
    for candidate in (folder / SHARD_DIR, *(f / SHARD_DIR for f in folder.parents)):
        if candidate.is_dir():
            return candidate
    return None
