"""The ``[ingest]`` table of ``mixle.toml``: defaults for every ingest into the shard.

```toml
[ingest]
chunk_chars = 1500        # the largest prose chunk, in characters (>= 16)
max_file_size = 33554432  # larger files are skipped, in bytes (>= 1)
ignore = ["*.log", "drafts/"]  # more ignore rules, as in .gitignore
```

A value of the wrong type or out of range is an error naming the file (exit 3): a limit of
-5 bytes would skip every file and say nothing else. A key this version does not know is
warned of with the nearest known one, not refused: a newer mixle may have written it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from substrate.errors import ShardError
from substrate.limits import DEFAULT_MAX_FILE_SIZE
from substrate.settings import warn_unknown_keys
from substrate.settingvalues import CHECKS, problem_in

if TYPE_CHECKING:
    from substrate.store import Substrate


_KEYS = frozenset(CHECKS["ingest"])


def setting_int(substrate: Substrate, key: str, default: int) -> int:
    """An integer of the ``[ingest]`` table (``default`` when unset)."""
    value = substrate.settings.get("ingest", key, default)
    _refuse_wrong(substrate, key, value)
    return int(value)


def size_limit(substrate: Substrate) -> int:
    """The largest file (or stream) read, in bytes: ``[ingest] max_file_size``, else 32 MiB."""
    return setting_int(substrate, "max_file_size", DEFAULT_MAX_FILE_SIZE)


def ignore_rules(substrate: Substrate) -> list[str]:
    """The ``[ingest] ignore`` rules (one rule may be given as a string)."""
    return _patterns(substrate, "ignore")


def as_text_rules(substrate: Substrate) -> list[str]:
    """The ``[ingest] as_text`` patterns: files of no known format read as plain text."""
    return _patterns(substrate, "as_text")


def _patterns(substrate: Substrate, key: str) -> list[str]:
    value = substrate.settings.get("ingest", key, [])
    _refuse_wrong(substrate, key, value)
    return [value] if isinstance(value, str) else list(value)


def _refuse_wrong(substrate: Substrate, key: str, value: object) -> None:
    """Refuse a wrong value of ``[ingest] key`` (as ``Settings.load`` does: settings made in
    memory are not read from a file)."""
    problem = problem_in("ingest", {key: value})
    if problem is not None:
        raise ShardError(f"{_where(substrate)}: {problem}")


def warn_unknown_settings(substrate: Substrate) -> None:
    """Warn of each key of the ``[ingest]`` table this version does not know (``Settings.load``
    has refused one that is no table)."""
    warn_unknown_keys("ingest", substrate.settings.data.get("ingest") or (), _KEYS)


def _where(substrate: Substrate) -> str:
    return str(substrate.settings.path or "mixle.toml")
