"""Whole-process times of `mixle search` and `mixle ask` at 100k items, beside bm25s.

What a user waits for when they type a command is the whole process: interpreter start,
imports, opening the index, the query, reading the winning items, printing. This builds an
on-disk shard of 100k short public documents (../shared/eval/scale/, repeated with new ids),
indexes it, and times fresh processes, each with another query:

* `mixle search QUERY --json` and `mixle ask QUESTION` (extractive answerer);
* the peer: a process that loads a bm25s index of the same texts saved to disk (memory-mapped,
  its fastest load) and answers one query with the same stemmer, printing the ids as JSON;
* floors: `python -c pass` and `mixle --version`.

Each is run once to warm the page cache, then timed; min and median are reported.

Usage: .venv/bin/python tests/bench/bench_search_cli.py [--quick] [--items N]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_search_speed import SCALE, corpus, make_queries, source_docs, write_shard  # noqa: E402

# The installed console script when there is one (what users run), else the same entry point.
_SCRIPT = Path(sys.executable).parent / "mixle"
_MIXLE = (
    [str(_SCRIPT)]
    if _SCRIPT.exists()
    else [sys.executable, "-c", "import sys; from mixle_cli.app import main; main()"]
)

_BM25S_QUERY = r"""
import json, sys
import bm25s, Stemmer
retriever = bm25s.BM25.load(sys.argv[1], mmap=True, show_progress=False)
tokens = bm25s.tokenize(
    [sys.argv[2]], stemmer=Stemmer.Stemmer("english"), return_ids=False, show_progress=False
)
docs, scores = retriever.retrieve(tokens, k=10, show_progress=False)
print(json.dumps([int(d) for d in docs[0]]))
"""


def timed_runs(argvs: list[list[str]]) -> dict[str, float]:
    """Run each command line once to warm up, then time each; min and median in ms."""
    subprocess.run(argvs[0], capture_output=True, check=False, cwd=ROOT)
    times = []
    for argv in argvs:
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=ROOT)
        times.append((time.perf_counter() - start) * 1000)
        if done.returncode not in (0, 1):
            raise RuntimeError(f"{' '.join(argv[:4])}... failed:\n{done.stderr}")
    return {"min_ms": min(times), "median_ms": statistics.median(times), "runs": len(times)}


def build(tmp: Path, n: int) -> tuple[Path, Path, float, float]:
    """The shard (indexed) and the bm25s index directory, with their build times."""
    import bm25s
    import Stemmer

    from substrate.search import engine
    from substrate.store import Substrate

    docs = source_docs()
    shard = tmp / "shard"
    write_shard(shard, docs, n)
    start = time.perf_counter()
    engine.reindex(Substrate(shard))
    ours = time.perf_counter() - start
    texts = [text for _, text, _ in corpus(docs, n)]
    start = time.perf_counter()
    retriever = bm25s.BM25()
    tokens = bm25s.tokenize(texts, stemmer=Stemmer.Stemmer("english"), show_progress=False)
    retriever.index(tokens, show_progress=False)
    peer_dir = tmp / "bm25s"
    retriever.save(str(peer_dir), show_progress=False)
    peer = time.perf_counter() - start
    return shard, peer_dir, ours, peer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs per measure")
    parser.add_argument("--items", type=int, default=100_000, help="shard size (100k)")
    args = parser.parse_args()
    if not SCALE.is_dir() or not list(SCALE.glob("*.jsonl.gz")):
        print(f"note: scale data not found at {SCALE}; nothing to measure")
        return 0
    try:
        import bm25s  # noqa: F401
        import Stemmer  # noqa: F401
    except ImportError:
        print("note: the peer needs bm25s and PyStemmer: pip install bm25s PyStemmer")
        return 0
    runs = 5 if args.quick else 15
    queries = make_queries(source_docs(), runs)
    tmp = Path(tempfile.mkdtemp(prefix="mixle-bench-cli-"))
    try:
        shard, peer_dir, build_ours, build_peer = build(tmp, args.items)
        print(f"built {args.items:,} items: mixle {build_ours:.1f} s, bm25s {build_peer:.1f} s")
        at = ["--shard", str(shard)]
        results: dict[str, Any] = {
            "python_pass": timed_runs([[sys.executable, "-c", "pass"]] * runs),
            "mixle_version": timed_runs([[*_MIXLE, "--version"]] * runs),
            "mixle_search": timed_runs([[*_MIXLE, *at, "search", q, "--json"] for q in queries]),
            "mixle_ask": timed_runs([[*_MIXLE, *at, "ask", q] for q in queries]),
            "bm25s_query": timed_runs(
                [[sys.executable, "-c", _BM25S_QUERY, str(peer_dir), q] for q in queries]
            ),
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(results, indent=2))
    peer = results["bm25s_query"]["median_ms"]
    floor = results["mixle_version"]["median_ms"]
    print()
    print(f"Whole processes at {args.items:,} items (median of {runs}, ms; min in brackets):")
    print()
    print("| process | mixle | bm25s: load + one query | ratio | over `mixle --version` |")
    print("|---|---:|---:|---:|---:|")
    for label, key in (("`mixle search --json`", "mixle_search"), ("`mixle ask`", "mixle_ask")):
        r = results[key]
        print(
            f"| {label} | {r['median_ms']:.0f} ({r['min_ms']:.0f}) | {peer:.0f} "
            f"({results['bm25s_query']['min_ms']:.0f}) | {r['median_ms'] / peer:.2f}x | "
            f"+{r['median_ms'] - floor:.0f} |"
        )
    print(
        f"| floors: `python -c pass`, `mixle --version` | "
        f"{results['python_pass']['median_ms']:.0f}, {floor:.0f} | - | - | - |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
