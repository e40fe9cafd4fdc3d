"""Benchmark: folder ingestion throughput and re-ingest cost, beside plain file-system peers.

Writes the tldr pages of ../shared/eval/scale/tldr-short.jsonl.gz as a folder of Markdown files
(one file per page and language) into a temporary directory, then measures in the same run:

* peers: a bare walk that stats every file, and a walk that reads and sha256-hashes every file;
* ``ingest_path`` into a fresh shard (first ingest), compared with read-and-hash: with the
  default worker processes, and in one process (``jobs=1``);
* re-ingest with nothing changed, compared with the bare stat walk;
* re-ingest after editing 1% of the files, and after only touching (mtime) 1% of them.

Run: ``.venv/bin/python tests/bench/bench_ingest.py [--quick] [--files N]``
"""

from __future__ import annotations

import argparse
import gc
import gzip
import hashlib
import json
import os
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2]))

from substrate.ingest import ingest_path  # noqa: E402
from substrate.store import Substrate  # noqa: E402

DATA = HERE.parents[3] / "shared" / "eval" / "scale" / "tldr-short.jsonl.gz"


def write_pages(target: Path, limit: int | None) -> int:
    """One Markdown file per tldr page: ``<lang>/<platform>/<name>.md``; returns the count."""
    pages: dict[str, list[dict[str, str]]] = defaultdict(list)
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            pages[row["id"].split("#", 1)[0]].append(row)
    names = sorted(pages)
    if limit is not None:
        names = names[:limit]
    for name in names:
        rows = pages[name]
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        parts = [f"# {rows[0]['title']}\n"]
        for row in rows:
            desc, _, cmd = row["text"].partition("\n")
            parts.append(f"- {desc}\n\n`{cmd}`\n")
        path.write_text("\n".join(parts), encoding="utf-8")
    return len(names)


def stat_walk(root: Path) -> int:
    n = 0
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            os.stat(os.path.join(dirpath, f))
            n += 1
    return n


def hash_walk(root: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            with open(os.path.join(dirpath, f), "rb") as fh:
                data = fh.read()
            hashlib.sha256(data).hexdigest()
            total += len(data)
    return total


def timed(fn, *args, repeat: int = 1):  # type: ignore[no-untyped-def]
    """Best of ``repeat`` runs, each started with no garbage left by the runs before (a big
    leftover heap makes the collector's passes slower, which is not what is measured)."""
    best = float("inf")
    result = None
    for _ in range(repeat):
        result = None
        gc.collect()
        start = time.perf_counter()
        result = fn(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.md"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10,000 files instead of all")
    parser.add_argument("--files", type=int, default=None, help="number of files to write")
    parser.add_argument("--repeat", type=int, default=3, help="first ingests: best of N")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"note: {DATA} not found; skipping the ingest benchmark")
        return 0
    limit = args.files or (10_000 if args.quick else None)
    with tempfile.TemporaryDirectory(prefix="mixle-bench-ingest-") as tmp:
        tree = Path(tmp) / "tldr"
        shard = Path(tmp) / "shard"
        n_files = write_pages(tree, limit)
        # files modified in the last 2 s are re-hashed by the next ingest (their mtime may not
        # yet show a later edit); let them settle, as files not being edited are
        time.sleep(2.1)
        size = sum(p.stat().st_size for p in files_under(tree))
        t_stat, _ = timed(stat_walk, tree, repeat=3)
        t_hash, _ = timed(hash_walk, tree, repeat=3)

        fresh = (Path(tmp) / f"first-{i}" for i in range(1000))

        def first_ingest(jobs: int | None) -> object:
            nonlocal shard  # the last fresh shard is the one re-ingested below
            shard = next(fresh)
            return ingest_path(Substrate(shard), tree, jobs=jobs)

        runs = args.repeat
        t_memory, _ = timed(lambda: ingest_path(Substrate(), tree), repeat=runs)
        t_serial, serial = timed(lambda: first_ingest(1), repeat=runs)
        t_first, first = timed(lambda: first_ingest(None), repeat=runs)
        assert first.files_failed == 0, first.issues[:3]
        assert serial.ids == first.ids
        n_files = first.files_scanned  # hidden pages (the "." command) are not ingested
        items_added = first.items_added
        del serial, first  # keep numbers, not reports with an object per file
        t_again, again = timed(lambda: ingest_path(Substrate(shard), tree), repeat=3)
        assert again.files_unchanged == n_files, again.as_dict(files=False)

        paths = [p for p in files_under(tree) if not p.name.startswith(".")]
        rng = random.Random(0)
        picked = rng.sample(paths, max(1, len(paths) // 100))
        for p in picked:
            with p.open("a", encoding="utf-8") as fh:
                fh.write("\n- An added example:\n\n`true`\n")
            old = p.stat().st_mtime - 60  # an edit made a minute ago: settled
            os.utime(p, (old, old))
        t_edit, edit = timed(lambda: ingest_path(Substrate(shard), tree))
        assert edit.files_updated == len(picked), edit.as_dict(files=False)
        earlier = time.time() - 30
        for p in rng.sample(paths, max(1, len(paths) // 100)):
            os.utime(p, (earlier, earlier))
        t_touch, touch = timed(lambda: ingest_path(Substrate(shard), tree))
        assert touch.files_unchanged == n_files, touch.as_dict(files=False)
        t_open, _ = timed(lambda: Substrate(shard), repeat=3)

    per_file_first = t_first / n_files
    expected_edit = t_again + per_file_first * len(picked)
    rows = [
        ("bare stat walk (peer)", t_stat, n_files / t_stat, "1.00x of stat walk"),
        ("read + sha256 every file (peer)", t_hash, n_files / t_hash, "1.00x of read+hash"),
        (
            "first ingest, in-memory shard (no log writes)",
            t_memory,
            n_files / t_memory,
            f"{t_hash / t_memory:.2f}x of read+hash throughput",
        ),
        (
            "first ingest, one process (jobs=1)",
            t_serial,
            n_files / t_serial,
            f"{t_hash / t_serial:.2f}x of read+hash throughput",
        ),
        (
            f"first ingest ({os.cpu_count()} CPUs, default workers)",
            t_first,
            n_files / t_first,
            f"{t_hash / t_first:.2f}x of read+hash throughput (target >= 0.25)",
        ),
        (
            "re-ingest, nothing changed",
            t_again,
            n_files / t_again,
            f"{t_again / t_stat:.2f}x the stat walk time (target <= 2)",
        ),
        (
            f"re-ingest, {len(picked)} files edited (1%)",
            t_edit,
            n_files / t_edit,
            f"{t_edit / expected_edit:.2f}x of (unchanged + 1% of first ingest)",
        ),
        (
            f"re-ingest, {len(picked)} files touched (1%)",
            t_touch,
            n_files / t_touch,
            f"{t_touch / t_again:.2f}x the unchanged re-ingest",
        ),
    ]
    print(
        f"\n{n_files} Markdown files, {size / 1e6:.1f} MB, {items_added} items; "
        f"shard open {t_open * 1000:.1f} ms\n"
    )
    print("| run | seconds | files/s | ratio |")
    print("|---|---:|---:|---|")
    for name, secs, rate, ratio in rows:
        print(f"| {name} | {secs:.3f} | {rate:,.0f} | {ratio} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
