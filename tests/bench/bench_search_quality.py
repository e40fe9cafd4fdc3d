"""Search quality on public IR test collections, beside bm25s measured in the same run.

For each collection under ../shared/eval/ir/ (BEIR layout) this indexes title + text of every
document in an in-memory shard, runs every judged query through ``substrate.search.engine``,
and reports nDCG@10 and recall@100 beside BM25 from the ``bm25s`` package, with its default
tokenization and with a Snowball English stemmer.

Usage: .venv/bin/python tests/bench/bench_search_quality.py [--quick] [--collections a,b]
(--quick skips the largest collection). Needs ``pip install bm25s PyStemmer``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
EVAL = ROOT.parent / "shared" / "eval" / "ir"
QUICK_SKIP = {"scifact_train"}


def load(
    folder: Path,
) -> tuple[list[dict[str, str]], list[dict[str, str]], dict[str, dict[str, int]]]:
    docs = [json.loads(line) for line in (folder / "corpus.jsonl").open(encoding="utf-8")]
    queries = [json.loads(line) for line in (folder / "queries.jsonl").open(encoding="utf-8")]
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in (folder / "qrels.tsv").open(encoding="utf-8"):
        qid, did, rel = line.rstrip("\n").split("\t")
        qrels[qid][did] = int(rel)
    judged = [q for q in queries if any(r > 0 for r in qrels.get(q["id"], {}).values())]
    return docs, judged, qrels


def ndcg_at(ranked: list[str], rels: dict[str, int], k: int = 10) -> float:
    """nDCG with linear gains, as BEIR/pytrec_eval compute it."""
    dcg = sum(rels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], rels: dict[str, int], k: int = 100) -> float:
    relevant = {d for d, r in rels.items() if r > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def doc_text(doc: dict[str, str]) -> str:
    return "\n".join(p for p in (doc.get("title", ""), doc.get("text", "")) if p)


def evaluate(
    runs: list[list[str]], queries: list[dict[str, str]], qrels: Any
) -> tuple[float, float]:
    nd = [ndcg_at(r, qrels[q["id"]]) for r, q in zip(runs, queries, strict=True)]
    rc = [recall_at(r, qrels[q["id"]]) for r, q in zip(runs, queries, strict=True)]
    return sum(nd) / len(nd), sum(rc) / len(rc)


def run_mixle(
    docs: list[dict[str, str]], queries: list[dict[str, str]]
) -> tuple[list[list[str]], float, float]:
    from substrate.item import SubstrateItem
    from substrate.search import engine
    from substrate.store import Substrate

    shard = Substrate()
    for d in docs:
        shard.put(SubstrateItem(kind="text", text=doc_text(d), id=d["id"]))
    t0 = time.perf_counter()
    engine.reindex(shard)
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    runs = [[h.item.id for h in engine.search(shard, q["text"], 100)] for q in queries]
    per_query = (time.perf_counter() - t0) / max(len(queries), 1)
    return runs, build, per_query


def run_bm25s(
    docs: list[dict[str, str]], queries: list[dict[str, str]], stem: bool
) -> list[list[str]]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english") if stem else None
    texts = [doc_text(d) for d in docs]
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(texts, stemmer=stemmer, show_progress=False), show_progress=False
    )
    tokens = bm25s.tokenize([q["text"] for q in queries], stemmer=stemmer, show_progress=False)
    k = min(100, len(docs))
    results, _ = retriever.retrieve(tokens, k=k, show_progress=False)
    return [[docs[j]["id"] for j in row] for row in results]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the largest collection")
    parser.add_argument("--collections", help="comma-separated collection names")
    args = parser.parse_args()
    if not EVAL.is_dir():
        print(f"note: evaluation data not found at {EVAL}; nothing to measure")
        return 0
    try:
        import bm25s  # noqa: F401
        import Stemmer  # noqa: F401
    except ImportError:
        print("note: bm25s and PyStemmer are needed for the peer: pip install bm25s PyStemmer")
        return 0
    names = sorted(p.name for p in EVAL.iterdir() if (p / "corpus.jsonl").exists())
    if args.collections:
        names = [n for n in names if n in set(args.collections.split(","))]
    elif args.quick:
        names = [n for n in names if n not in QUICK_SKIP]
    rows = []
    for name in names:
        docs, queries, qrels = load(EVAL / name)
        runs, build, per_query = run_mixle(docs, queries)
        ours = evaluate(runs, queries, qrels)
        plain = evaluate(run_bm25s(docs, queries, stem=False), queries, qrels)
        stemmed = evaluate(run_bm25s(docs, queries, stem=True), queries, qrels)
        rows.append((name, len(docs), len(queries), ours, plain, stemmed))
        r10 = sum(recall_at(r, qrels[q["id"]], 10) for r, q in zip(runs, queries, strict=True))
        print(f"{name}: mixle recall@10 {r10 / len(queries):.4f}", flush=True)
        print(
            f"{name}: mixle nDCG@10 {ours[0]:.4f} R@100 {ours[1]:.4f} | bm25s {plain[0]:.4f} "
            f"{plain[1]:.4f} | bm25s+stem {stemmed[0]:.4f} {stemmed[1]:.4f} | "
            f"build {build:.1f}s, {per_query * 1000:.1f} ms/query",
            flush=True,
        )
    if not rows:
        print("note: no collections found")
        return 0
    print()
    print(
        "| collection | docs | queries | mixle nDCG@10 | bm25s | bm25s+stem | vs bm25s | "
        "vs stem | mixle R@100 | bm25s | bm25s+stem |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, n_docs, n_q, ours, plain, stemmed in rows:
        print(
            f"| {name} | {n_docs} | {n_q} | {ours[0]:.4f} | {plain[0]:.4f} | {stemmed[0]:.4f} | "
            f"{ours[0] / plain[0]:.3f}x | {ours[0] / stemmed[0]:.3f}x | {ours[1]:.4f} | "
            f"{plain[1]:.4f} | {stemmed[1]:.4f} |"
        )
    mean = [sum(r[i][0] for r in rows) / len(rows) for i in (3, 4, 5)]
    mean_r = [sum(r[i][1] for r in rows) / len(rows) for i in (3, 4, 5)]
    print(
        f"| **mean** | | | {mean[0]:.4f} | {mean[1]:.4f} | {mean[2]:.4f} | "
        f"{mean[0] / mean[1]:.3f}x | {mean[0] / mean[2]:.3f}x | {mean_r[0]:.4f} | "
        f"{mean_r[1]:.4f} | {mean_r[2]:.4f} |"
    )
    worst = min(r[3][0] / r[5][0] for r in rows)
    print(f"\nworst collection vs bm25s+stem: {worst:.3f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
