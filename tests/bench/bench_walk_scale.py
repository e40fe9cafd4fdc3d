"""Benchmark: how a multi-hop walk's cost grows with the items it may gather.

Writes tldr pages (``bench_ingest.write_pages``) as a folder of Markdown files, ingests them,
and in one process times ``multihop`` with a growing ``max_items`` beside its peer: one search
of the kind a hop makes (for twice the branch). A walk makes about one such search per item it
steps from, so its time over the peer's, per item gathered, should stay flat as the walk
grows. (A walk that asked each search for every item it had seen, and kept every item it read,
grew with the square of its size: 2,000 items took 15.7 s on a 9,000-page shard.)

Run: ``.venv/bin/python tests/bench/bench_walk_scale.py [--quick]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parent))

from bench_ingest import write_pages  # noqa: E402

from substrate.hops import multihop  # noqa: E402
from substrate.ingest import ingest_path  # noqa: E402
from substrate.store import Substrate  # noqa: E402

QUERY = "compress a directory"


def timed(fn, *args, **kw):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = fn(*args, **kw)
    return time.perf_counter() - start, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="3,000 pages, up to 1,000 items")
    args = parser.parse_args()
    pages = 3000 if args.quick else 9000
    sizes = (250, 500, 1000) if args.quick else (500, 1000, 2000, 4000)
    with tempfile.TemporaryDirectory() as tmp:
        tree, shard = Path(tmp) / "pages", Path(tmp) / "shard"
        write_pages(tree, pages)
        ingest_path(Substrate(shard), tree)
        store = Substrate(shard)
        store.search(QUERY)  # the index built once, outside the timings
        print(f"{pages} pages written and ingested; query {QUERY!r}, 3 hops, 50 seeds\n")
        hop = min(timed(store.search, QUERY, 40)[0] for _ in range(5))
        print(f"peer: one hop's search (40 items), best of 5: {hop * 1000:.1f} ms\n")
        print("| max items | walk | items gathered | walk / (items x one hop's search) |")
        print("|---:|---:|---:|---:|")
        for n in sizes:
            walk, chain = timed(
                multihop, store, QUERY, max_hops=3, seeds=50, branch=20, max_items=n
            )
            per_item = walk / (len(chain) * hop)
            print(f"| {n:,} | {walk:.2f} s | {len(chain):,} | {per_item:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
