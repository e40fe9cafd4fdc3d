"""Shard write, lookup and scan speed beside SQLite (WAL, one transaction) in the same run.

Usage: python tests/bench/bench_store.py [--quick]   (--quick: 100k items only)
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from substrate import Substrate, SubstrateItem

WORDS = (
    "shard index query token vector budget context answer citation scope team publish "
    "approve lineage freshness secret redact ingest folder markdown record trace artifact "
    "search rank fusion lexical semantic embedding signature catalog offset commit"
).split()


def make_items(n: int, seed: int = 0) -> list[SubstrateItem]:
    rng = random.Random(seed)
    items = []
    for i in range(n):
        words: list[str] = []
        while sum(len(w) + 1 for w in words) < 300:
            words.append(rng.choice(WORDS))
        items.append(
            SubstrateItem("text", " ".join(words), provenance={"source": f"doc{i % 1000}.md"})
        )
    return items


def bench_write(items: list[SubstrateItem], root: Path) -> float:
    start = time.perf_counter()
    shard = Substrate(root)
    for item in items:
        shard.put(item)
    shard.save()
    return time.perf_counter() - start


def bench_sqlite_write(items: list[SubstrateItem], path: Path) -> float:
    start = time.perf_counter()
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE items (id TEXT PRIMARY KEY, body TEXT NOT NULL)")
    with db:
        db.executemany(
            "INSERT INTO items VALUES (?, ?)",
            ((i.id, orjson.dumps(i.to_json()).decode()) for i in items),
        )
    db.close()
    return time.perf_counter() - start


def median_process_ms(argv: list[str], runs: int = 7) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def peak_rss_mb(code: str, *args: str) -> float:
    """Peak resident memory of a fresh process running ``code`` (VmHWM, reset by exec)."""
    probe = code + (
        "\nprint([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0])"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, *args], check=True, capture_output=True, text=True
    ).stdout
    return int(out.split()[-1]) / 1024


def run(n: int, workdir: Path) -> list[str]:
    items = make_items(n)
    root = workdir / f"shard{n}"
    ours = bench_write(items, root)
    theirs = bench_sqlite_write(items, workdir / f"peer{n}.db")
    probe_id = items[n // 2].id
    mixle = str(Path(sys.executable).with_name("mixle"))
    get_ms = median_process_ms([mixle, "--shard", str(root), "get", probe_id, "--json"])
    sqlite_ms = median_process_ms(
        [
            sys.executable,
            "-c",
            "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]);"
            "print(db.execute('select body from items where id=?',(sys.argv[2],)).fetchone()[0])",
            str(workdir / f"peer{n}.db"),
            probe_id,
        ]
    )
    iterate = (
        "import sys\nfrom substrate import Substrate\n"
        "n = sum(1 for _ in Substrate(sys.argv[1]).iter_items())\nassert n > 0"
    )
    rss = peak_rss_mb(iterate, str(root))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", iterate, str(root)], check=True)
    iter_s = time.perf_counter() - start
    return [
        f"| {n:,} | put+save {ours:.2f} s | SQLite insert {theirs:.2f} s | {theirs / ours:.2f}x |",
        f"| {n:,} | `mixle get` {get_ms:.0f} ms | SQLite lookup process {sqlite_ms:.0f} ms | "
        f"{sqlite_ms / get_ms:.2f}x |",
        f"| {n:,} | open + iterate all: {iter_s:.1f} s, peak RSS {rss:.0f} MB | | |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="100k items only")
    args = parser.parse_args()
    sizes = [100_000] if args.quick else [100_000, 1_000_000]
    rows = ["| items | mixle | peer | peer time / mixle time |", "|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            rows.extend(run(n, Path(tmp)))
            print(f"done {n}", file=sys.stderr)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
