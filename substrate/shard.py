"""Creating a shard directory and describing the state of one."""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from substrate.derived import INDEX_DIR, LOG_FILE
from substrate.errors import ShardError
from substrate.locking import refuse_shared_folder
from substrate.replacing import abandoned_temporaries, make_folder, take_folder_group
from substrate.secrets import safe_text
from substrate.settings import SETTINGS_FILE, Settings
from substrate.shardfiles import refuse_undecodable_path
from substrate.store import Substrate


def init_shard(path: str | os.PathLike[str]) -> tuple[Path, bool]:
    """Create a shard at ``path`` (settings and an empty log). Returns (path, created).

    Raises:
        InvalidInputError: the path is not valid UTF-8.
        ShardError: the folder holds other files (``new_shard_problem``), or cannot be made.
    """
    root = Path(path)
    refuse_undecodable_path(root)
    settings_path = root / SETTINGS_FILE
    if settings_path.exists():
        Settings.load(root)  # validates the existing file
        return root, False
    if (root / LOG_FILE).is_file() and Settings.load(root).lost:
        return root, False  # told of as it loads: not written over with defaults
    problem = new_shard_problem(root)
    if problem is not None:
        raise ShardError(problem)
    refuse_shared_folder(root)  # (before a file is made there: a refused shard left its log)
    try:
        make_folder(root)
        log = root / "items.jsonl"
        if not os.path.lexists(log):  # a link to nothing would make its target
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
            take_folder_group(fd, root)
            os.close(fd)
    except OSError as exc:
        raise ShardError(f"cannot create shard at {root}: {exc.strerror}") from exc
    return root, Settings(path=settings_path).create()


# What may lie in a folder a shard is made in: the files mixle writes there, a new disk's
# lost+found, and what file managers leave (hidden files count for nothing: a .git, a
# .gitignore, what a first write cut short left, .lock and .mixle.toml.*.tmp)
_SHARD_ENTRIES = frozenset(
    {SETTINGS_FILE, LOG_FILE, INDEX_DIR, "lost+found", "Thumbs.db", "desktop.ini"}
)


def new_shard_problem(root: Path) -> str | None:
    """Why no shard should be made at ``root``, which holds none: it is a folder of other
    files (a notes or project folder given where its ``.mixle`` was meant; the shard's log and
    index would be written among them). None when it is empty, or not there yet."""
    try:
        with os.scandir(root) as entries:
            other = sorted(
                e.name for e in entries if e.name not in _SHARD_ENTRIES and e.name[:1] != "."
            )
    except OSError:  # not there yet (or no folder: said when it is written)
        return None
    if not other:
        return None
    return (
        f"{safe_text(str(root))} holds other files ({safe_text(other[0])}"
        f"{f' and {len(other) - 1} more' if len(other) > 1 else ''}) and is no shard: a shard "
        f"is made in an empty or new folder only (did you mean {safe_text(str(root / '.mixle'))}?)"
    )


def _dir_size(path: Path) -> int:
    if not path.is_dir():
        return 0
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# What a reader confined to some scopes is told about files that hold every team's items: their
# health, never their sizes, counts, segments, log positions or ranking mode (all of which change
# with other teams' items).
_SCOPED_INDEX_FIELDS = ("state",)


def _only(report: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    return {name: report[name] for name in fields if name in report}


def _index_section(substrate: Substrate, *, scoped: bool) -> dict[str, Any]:
    """The search index's state (see ``substrate.search.status``)."""
    from substrate.search.status import confined_state, index_status

    report = index_status(substrate)
    if not scoped:
        return report
    confined = _only(report, _SCOPED_INDEX_FIELDS)
    confined["state"] = confined_state(str(confined.get("state", "unknown")))
    return confined


def shard_status(substrate: Substrate, *, scopes: Iterable[str] | None = None) -> dict[str, Any]:
    """Counts by kind and scope (of the items in ``scopes`` only), sizes on disk, the health
    of the log, and the state of the search index.

    Reads every live item once, so a corrupt line anywhere is reported here.
    """
    kinds: Counter[str] = Counter()
    by_scope: Counter[str] = Counter()
    for item in substrate.iter_items(scopes=scopes):
        kinds[item.kind] += 1
        by_scope[item.scope] += 1
    root = substrate.root
    health = substrate.log_health()
    scoped = scopes is not None
    if not scoped:  # (what it holds of other teams is not a team's to weigh)
        health["live_bytes"] = substrate.live_bytes()
    report: dict[str, Any] = {
        "shard": os.path.realpath(root) if root else None,  # usable from any folder
        "format": substrate.settings.format,
        "items": sum(kinds.values()),
        "by_kind": dict(sorted(kinds.items())),
        "by_scope": dict(sorted(by_scope.items())),
        # whether a write was left unfinished, not its size (another team's, under way)
        "log": {
            "unfinished_write": health["uncommitted_bytes"] > 0,
            "older_copy": health["older_copy"],
            "header_lost": health["header_lost"],
        }
        if scoped
        else health,
        "index_bytes": None if scoped else _dir_size(root / "index") if root else 0,
        # files a write killed midway left (a compaction's copy of the log): the next removes
        "abandoned_bytes": None if scoped else _abandoned_bytes(root) if root else 0,
        "index": _index_section(substrate, scoped=scoped),
        # nothing unfinished after the last commit, nothing committed missing before it
        "healthy": health["uncommitted_bytes"] == 0
        and not health.get("lost_bytes")
        and not health.get("older_copy")
        and not health.get("header_lost"),
    }
    # the shard's paths hold no item content, but a folder may be named after a secret
    return {key: _masked(value) for key, value in report.items()}


def _abandoned_bytes(root: Path) -> int:
    """The bytes of the temporaries a stopped writer left in the shard and its index."""
    total = 0
    for path in abandoned_temporaries(root) + abandoned_temporaries(root / INDEX_DIR):
        with contextlib.suppress(OSError):  # (removed since it was listed)
            total += path.stat().st_size
    return total


def _masked(value: Any) -> Any:
    """``value`` with the secrets in its strings masked."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {key: _masked(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_masked(inner) for inner in value]
    return value
