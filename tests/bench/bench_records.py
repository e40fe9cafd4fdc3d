"""Benchmark: ingesting a CSV of records, beside Python's own CSV reader on the same file.

Writes three CSV files of the same number of rows into a temporary directory: one of plain
rows (an id, a name, a city, a few words); one whose rows each hold a link, whose ``//`` is one
of the gate's keywords, but selects only a rule that needs an ``@`` too; and one whose rows
each hold a link and an e-mail address, so that no batch of rows can pass its screen whole and
every row goes to the gate. For each, measures in the same process:

* the peer: reading the file and ``csv.reader`` over every row (what any Python ingest pays);
* ``ingest_path`` of the file into a fresh shard in one process (``jobs=1``), CPU seconds.

Each figure is the best of ``--repeat`` runs. Run:
``.venv/bin/python tests/bench/bench_records.py [--quick] [--rows N]``
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2]))

from substrate.ingest import ingest_path  # noqa: E402
from substrate.store import Substrate  # noqa: E402

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()


FILES: dict[str, Callable[[random.Random, int], str]] = {
    "plain rows": lambda pick, i: pick.choice(WORDS),
    "a link in every row": lambda pick, i: f"https://example.com/{pick.choice(WORDS)}/{i}",
    "a link and an address in every row": lambda pick, i: (
        f"https://example.com/{pick.choice(WORDS)}/{i} {pick.choice(WORDS)}{i}@example.com"
    ),
}


def write_rows(path: Path, rows: int, third: Callable[[random.Random, int], str]) -> None:
    pick = random.Random(7)
    with path.open("w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["id", "name", "about", "note"])
        for i in range(rows):
            fields = [i, f"{pick.choice(WORDS)}{i}", third(pick, i)]
            out.writerow([*fields, " ".join(pick.choices(WORDS, k=3))])


def best(repeat: int, run: Callable[[], None]) -> float:
    timings = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        timings.append(time.process_time() - start)
    return min(timings)


def read_rows(path: Path) -> None:
    with path.open(newline="") as fh:
        for _ in csv.reader(fh):
            pass


def ingest(path: Path, work: Path) -> None:
    with tempfile.TemporaryDirectory(dir=work) as shard:
        ingest_path(Substrate(shard), path, jobs=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20,000 rows, best of 2")
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=None)
    args = parser.parse_args()
    rows = args.rows or (20_000 if args.quick else 100_000)
    repeat = args.repeat or (2 if args.quick else 3)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print(f"\n{rows:,} CSV rows per file, CPU seconds, best of {repeat}\n")
        print("| file | csv.reader (peer) | ingest, one process | ratio | rows/s |")
        print("|---|---:|---:|---:|---:|")
        for n, (kind, third) in enumerate(FILES.items()):
            path = work / f"rows-{n}.csv"
            write_rows(path, rows, third)
            peer = best(repeat, lambda p=path: read_rows(p))
            took = best(repeat, lambda p=path: ingest(p, work))
            print(f"| {kind} | {peer:.3f} | {took:.3f} | {took / peer:.0f}x | {rows / took:,.0f} |")


if __name__ == "__main__":
    main()
