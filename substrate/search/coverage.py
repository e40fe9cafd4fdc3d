"""The point of the log a search index covers: a small value with no numpy behind it, so that
reading an index's status costs no heavy import."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Coverage:
    """The point of the log an index covers (``generation`` "memory" for in-memory shards).

    ``seal`` is the log's seal there (``LogFile.seal``), None when unknown. It is checked when
    a persisted index is loaded, not compared: a shard too small for a catalog has nothing else
    that notices a batch removed by hand and another of the same length appended since.
    """

    generation: str
    offset: int
    seal: int | None = field(default=None, compare=False)

    def as_meta(self) -> list[Any]:
        return [self.generation, self.offset, self.seal]

    def sealed_in(self, substrate: Any) -> bool:
        """Whether ``substrate``'s log still holds, unchanged, what this covers (as far as the
        seal tells: coverage kept without one is trusted). Coverage of another generation
        (after ``compact``) is not an edit: the index is simply rebuilt."""
        if self.seal is None or self.generation != substrate.log_watermark().generation:
            return True
        return bool(substrate.log_seal(self.offset) == self.seal)

    @classmethod
    def from_meta(cls, value: Any) -> Coverage | None:
        """The coverage stored by ``as_meta`` (or by an older version, without a seal)."""
        if not value:
            return None
        seal = value[2] if len(value) > 2 and value[2] is not None else None
        return cls(str(value[0]), int(value[1]), None if seal is None else int(seal))
