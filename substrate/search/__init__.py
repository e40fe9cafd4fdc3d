"""Search: BM25 over analysed text fused with a learned embedding, stored as Parquet and
memory-mapped mirrors of it (see ``layout``).

Nothing heavy is imported here: ``substrate.search.engine`` (numpy) is imported by the store
only when a search or a reindex runs, and pyarrow only when the index is written or its
mirrors are missing.
"""

from __future__ import annotations

__all__: list[str] = []
