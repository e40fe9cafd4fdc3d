"""Search speed and scale on short public documents, beside bm25s measured in the same run.

Builds an on-disk shard from ../shared/eval/scale/*.jsonl.gz (repeated with new ids to reach
the target size), then measures: full index build, warm library search latency (p50/p95)
beside bm25s retrieval on the same corpus, adding 100 items and searching again (incremental,
no full rebuild), a cold search in a fresh process (and that it never imports scikit-learn),
and the peak RSS of a search process.

Usage: .venv/bin/python tests/bench/bench_search_speed.py [--quick | --full] [--sizes N,...]
--quick: 100k items (default). --full: 100k and 1M items.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
SCALE = ROOT.parent / "shared" / "eval" / "scale"
N_QUERIES = 300

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from substrate.store import Substrate
from substrate.search import engine
shard = Substrate(sys.argv[1])
queries = json.loads(sys.argv[2])
engine.search(shard, queries[0], 10)
cold = time.perf_counter() - t0
lat = []
for q in queries:
    t = time.perf_counter(); engine.search(shard, q, 10); lat.append(time.perf_counter() - t)
lat.sort()
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the (large) parent across exec.
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")]
print(json.dumps({
    "cold_s": cold,
    "p50_ms": lat[len(lat) // 2] * 1000,
    "rss_mb": int(hwm[0].split()[1]) / 1024 if hwm else float("nan"),
    "sklearn": "sklearn" in sys.modules,
}))
"""


def source_docs() -> list[dict[str, str]]:
    docs: list[dict[str, str]] = []
    for path in sorted(SCALE.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            docs.extend(json.loads(line) for line in fh)
    return docs


def corpus(docs: list[dict[str, str]], n: int) -> Iterator[tuple[str, str, str]]:
    """(id, text, source) for n items: the documents repeated with fresh ids."""
    for i in range(n):
        d = docs[i % len(docs)]
        yield f"{i:016x}", f"{d.get('title', '')}\n{d.get('text', '')}", d["id"].split("#")[0]


def make_queries(docs: list[dict[str, str]], n: int) -> list[str]:
    rng = random.Random(7)
    out = []
    while len(out) < n:
        d = rng.choice(docs)
        words = [w for w in d.get("text", "").split() if w.isalpha() and len(w) > 3]
        if len(words) >= 2:
            out.append(" ".join(rng.sample(words, 2)))
    return out


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def write_shard(path: Path, docs: list[dict[str, str]], n: int) -> float:
    from substrate.item import SubstrateItem
    from substrate.store import Substrate

    t0 = time.perf_counter()
    shard = Substrate(path)
    batch = 0
    for item_id, text, source in corpus(docs, n):
        shard.put(SubstrateItem(kind="text", text=text, id=item_id, provenance={"source": source}))
        batch += 1
        if batch == 50_000:
            shard.save()
            batch = 0
    shard.save()
    return time.perf_counter() - t0


def bench_bm25s(docs: list[dict[str, str]], n: int, queries: list[str]) -> dict[str, float]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    texts = [text for _, text, _ in corpus(docs, n)]
    t0 = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(texts, stemmer=stemmer, show_progress=False), show_progress=False
    )
    build = time.perf_counter() - t0
    lat = []
    for q in queries:
        t = time.perf_counter()
        tokens = bm25s.tokenize([q], stemmer=stemmer, show_progress=False)
        retriever.retrieve(tokens, k=10, show_progress=False)
        lat.append(time.perf_counter() - t)
    return {"build_s": build, "p50_ms": pct(lat, 0.5) * 1000, "p95_ms": pct(lat, 0.95) * 1000}


def bench_size(docs: list[dict[str, str]], n: int, queries: list[str]) -> dict[str, Any]:
    from substrate.item import SubstrateItem
    from substrate.search import engine
    from substrate.store import Substrate

    tmp = Path(tempfile.mkdtemp(prefix="mixle-bench-"))
    try:
        path = tmp / "shard"
        out: dict[str, Any] = {"n": n, "write_s": write_shard(path, docs, n)}
        shard = Substrate(path)
        t0 = time.perf_counter()
        stats = engine.reindex(shard)
        out["build_s"] = time.perf_counter() - t0
        out["mode"] = stats.mode
        for q in queries[:20]:  # warm-up
            engine.search(shard, q, 10)
        lat = []
        for q in queries:
            t = time.perf_counter()
            engine.search(shard, q, 10)
            lat.append(time.perf_counter() - t)
        out["p50_ms"] = pct(lat, 0.5) * 1000
        out["p95_ms"] = pct(lat, 0.95) * 1000
        t0 = time.perf_counter()
        for i in range(100):
            shard.put(SubstrateItem(kind="text", text=f"freshly added note {i} about zeppelins"))
        shard.save()
        hits = engine.search(shard, "zeppelins", 10)
        out["add100_s"] = time.perf_counter() - t0
        out["add100_found"] = len(hits)
        out["index_segments"] = engine.index_status(shard)["segments"]
        child = subprocess.run(
            [sys.executable, "-c", _CHILD, str(path), json.dumps(queries[:100])],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        if child.returncode != 0:
            raise RuntimeError(f"search process failed:\n{child.stderr}")
        out["child"] = json.loads(child.stdout.strip().splitlines()[-1])
        out["index_mb"] = engine.index_status(shard)["bytes"] / 1e6
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--quick", action="store_true", help="100k items only (default)")
    group.add_argument("--full", action="store_true", help="100k and 1M items")
    parser.add_argument("--sizes", help="comma-separated item counts (overrides the modes)")
    args = parser.parse_args()
    if not SCALE.is_dir() or not list(SCALE.glob("*.jsonl.gz")):
        print(f"note: scale data not found at {SCALE}; nothing to measure")
        return 0
    sizes = [100_000, 1_000_000] if args.full else [100_000]
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",")]
    docs = source_docs()
    queries = make_queries(docs, N_QUERIES)
    try:
        import bm25s  # noqa: F401
        import Stemmer  # noqa: F401

        have_peer = True
    except ImportError:
        print("note: bm25s/PyStemmer not installed; the peer column is skipped")
        have_peer = False
    rows = []
    for n in sizes:
        ours = bench_size(docs, n, queries)
        peer = bench_bm25s(docs, n, queries) if have_peer else None
        rows.append((ours, peer))
        print(json.dumps({"mixle": ours, "bm25s": peer}), flush=True)
    print()
    print(
        "| items | build s | p50 ms | p95 ms | bm25s p50 ms | p50 ratio | bm25s build s | "
        "add 100 + search s | cold search s | search RSS MB | index MB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for ours, peer in rows:
        pp50 = f"{peer['p50_ms']:.2f}" if peer else "-"
        ratio = f"{ours['p50_ms'] / peer['p50_ms']:.2f}x" if peer else "-"
        pbuild = f"{peer['build_s']:.1f}" if peer else "-"
        print(
            f"| {ours['n']:,} | {ours['build_s']:.1f} | {ours['p50_ms']:.2f} | "
            f"{ours['p95_ms']:.2f} | {pp50} | {ratio} | {pbuild} | {ours['add100_s']:.2f} | "
            f"{ours['child']['cold_s']:.2f} | {ours['child']['rss_mb']:.0f} | "
            f"{ours['index_mb']:.0f} |"
        )
    if any(o["child"]["sklearn"] for o, _ in rows):
        print("\nWARNING: a search process imported scikit-learn")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
