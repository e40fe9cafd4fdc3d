"""When to suggest `mixle compact`: removed items and old versions fill much of the log."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from substrate import Substrate

# The least a compaction must reclaim to be suggested: a quarter of the log, and a MiB
WORTH_COMPACTING = (0.25, 1 << 20)


def reclaimable(total: int, live: int) -> int:
    """The bytes a compaction of a log of ``total`` bytes, ``live`` of them live items'
    lines, reclaims, when that is worth suggesting; else 0."""
    dead = total - live
    share, least = WORTH_COMPACTING
    return dead if dead >= least and dead >= share * total else 0


def reclaim_note(substrate: Substrate) -> str:
    """What a write that replaced or removed items says when the log is now mostly old
    versions (a note edited is written whole at each ingest), else ""."""
    log = substrate.log_health()
    dead = reclaimable(log.get("committed_bytes", log["bytes"]), substrate.live_bytes())
    if not dead:
        return ""
    return (
        f"note: {dead:,} of the log's {log['bytes']:,} bytes are removed items and old "
        "versions: `mixle compact` reclaims them"
    )
