"""Search: BM25 over analysed text fused with a learned embedding, stored as Parquet.

Nothing heavy is imported here: ``substrate.search.engine`` (numpy, pyarrow) is imported by the
store only when a search or a reindex runs.
"""

from __future__ import annotations

__all__: list[str] = []
