"""Benchmark: multi-hop answers on two handbooks, beside one retrieval in the same run.

Each handbook in fixtures/handbooks/ (a freight company's engineering notes, a ferry company's
handbook: Markdown and CSV) is ingested into a fresh shard and asked its questions
(fixtures/handbooks/<name>.questions.json) through ``answer_from_substrate`` with the
extractive answerer:

* two-hop: questions that describe what they ask about ("Who leads the team that owns the
  route-planner?"); right when the answer holds every expected word;
* one-hop: questions that name it; right likewise;
* absent: questions about things no note holds; right when it abstains;
* near-miss: questions close to a fact but false in a detail (a relation that does not hold);
  right when it abstains.

mixle is asked with ``hops=2``; the peer is the same answerer on one retrieval (``hops=1``).
"Right" is a check of whole words, not a reading: an answer may hold them and still say more.

Usage: .venv/bin/python tests/bench/bench_hops.py [--quick]  (--quick changes nothing: the run
is short)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from substrate.answer import answer_from_substrate  # noqa: E402
from substrate.extractive import ExtractiveAnswerer  # noqa: E402
from substrate.ingest import ingest_path  # noqa: E402
from substrate.store import Substrate  # noqa: E402

HANDBOOKS = ROOT / "fixtures" / "handbooks"
GROUPS = ("two-hop", "one-hop", "absent", "near-miss")
ABSTAINING = {"absent", "near-miss"}


def right(group: str, expect: list[str], answer: str | None) -> bool:
    """Whether an answer (None: an abstention) is right for a question of ``group``: for a
    question to answer, it holds each expected word whole ("Go", not "Gothenburg")."""
    if group in ABSTAINING:
        return answer is None
    return answer is not None and all(
        re.search(rf"(?<!\w){re.escape(word)}(?!\w)", answer, re.IGNORECASE) for word in expect
    )


def run(name: str, work: Path) -> dict[tuple[str, int], list[bool]]:
    """Each question's verdict, by (group, hops), for the handbook ``name``."""
    shard = Substrate(work / name)
    ingest_path(shard, HANDBOOKS / name)
    questions = json.loads((HANDBOOKS / f"{name}.questions.json").read_text(encoding="utf-8"))
    verdicts: dict[tuple[str, int], list[bool]] = defaultdict(list)
    for row in questions:
        for hops in (2, 1):
            found = answer_from_substrate(shard, row["question"], ExtractiveAnswerer(), hops=hops)
            verdicts[row["group"], hops].append(right(row["group"], row["expect"], found.answer))
    return verdicts


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).add_argument(
        "--quick", action="store_true", help="accepted for nox -s bench -- --quick"
    )
    started = time.perf_counter()
    table = ["| handbook | questions | mixle, 2 hops | peer, 1 retrieval | ratio |"]
    table.append("|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="mixle-bench-hops-") as tmp:
        for name in ("corvid", "northmere"):
            verdicts = run(name, Path(tmp))
            for group in GROUPS:
                two, one = verdicts[group, 2], verdicts[group, 1]
                rate2, rate1 = sum(two) / len(two), sum(one) / len(one)
                ratio = f"{rate2 / rate1:.2f}" if rate1 else "-"
                what = f"{group} ({len(two)}): " + ("abstains" if group in ABSTAINING else "right")
                table.append(f"| {name} | {what} | {rate2:.0%} | {rate1:.0%} | {ratio} |")
    print("\n".join(table))
    print(f"\n{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
