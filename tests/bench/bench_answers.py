"""Benchmark: answer-or-abstain quality, citation quality, and speed of the answer commands.

Quality (library path: ``answer_from_substrate`` with the default extractive answerer), on the
test collections in ../shared/eval/ir/:

* answerable: a collection's judged questions asked of a shard of its own documents;
* unanswerable: the questions of a collection from another domain asked of that shard
  (med and scifact are both biomedical, so those two pairs are reported apart, not counted);
* citations: for answered questions, the share whose cited sources include a judged-relevant
  document;
* near misses: on a shard of the English tldr pages in ../shared/eval/scale/, "How do I <the
  page's first task> with <command>?" for 100 commands the shard has (answer, citing the page)
  and 100 whose page was left out (abstain: the other pages match every word but the command).

The peer is the reference decision rule run on the same retrieval in the same run: confidence
= top score x (0.5 + 0.5 x packet coverage), abstain below 0.1, no relevance floor.

Speed, on an on-disk shard of 100k short documents from ../shared/eval/scale/: ``mixle ask``
(extractive) as a whole process beside a process that opens the shard and runs one search, and
beside the command-line floor (``mixle --version``); warm ``multihop`` (2 hops),
``assemble_context`` and ``answer_from_substrate`` beside one warm ``engine.search`` (k=10).

``--fit`` refits the answerability weights of substrate/answer.py on the quality runs and
reports leave-one-collection-out results.

Usage: .venv/bin/python tests/bench/bench_answers.py [--quick] [--fit] [--no-speed] [--no-quality]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from substrate.answer import answer_from_substrate  # noqa: E402
from substrate.context import ContextBudget, assemble_context  # noqa: E402
from substrate.context.compress import sentences, terms  # noqa: E402
from substrate.extractive import ExtractiveAnswerer  # noqa: E402
from substrate.hops import multihop  # noqa: E402
from substrate.item import SubstrateItem  # noqa: E402
from substrate.retrieval import retrieve  # noqa: E402
from substrate.store import Substrate  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval"
COLLECTIONS = ("cranfield", "cisi", "med", "scifact_train")
SAME_DOMAIN = {frozenset({"med", "scifact_train"})}
SPEED_ITEMS = 100_000

# A process that only opens the shard and runs one search: the floor of any answer command.
_SEARCH_ONLY = r"""
import sys
from substrate.store import Substrate
from substrate.search import engine
engine.search(Substrate(sys.argv[1]), sys.argv[2], 10)
"""

# A child process running the command line exactly as the `mixle` script does.
_CLI = r"""
import sys
from mixle_cli.app import main
sys.argv[0] = "mixle"
main()
"""


# -- data ------------------------------------------------------------------------------------------


def load_collection(name: str) -> tuple[list[dict[str, str]], dict[str, str], dict[str, set[str]]]:
    base = EVAL / "ir" / name
    docs = [json.loads(line) for line in (base / "corpus.jsonl").open(encoding="utf-8")]
    queries = {}
    for line in (base / "queries.jsonl").open(encoding="utf-8"):
        q = json.loads(line)
        queries[q["id"]] = q["text"]
    relevant: dict[str, set[str]] = {}
    for line in (base / "qrels.tsv").open(encoding="utf-8"):
        qid, did, rel = line.rstrip("\n").split("\t")
        if int(rel) >= 1:
            relevant.setdefault(qid, set()).add(did)
    return docs, queries, relevant


def ir_shard(name: str, docs: list[dict[str, str]]) -> Substrate:
    shard = Substrate()
    for d in docs:
        text = f"{d.get('title', '')}\n{d.get('text', '')}".strip()
        shard.put(
            SubstrateItem(
                "text", text, id=f"{name}:{d['id']}", provenance={"source": f"{name}/{d['id']}"}
            )
        )
    shard.reindex()
    return shard


# -- quality ---------------------------------------------------------------------------------------


def reference_decision(shard: Substrate, question: str) -> bool:
    """The reference rule on our retrieval: True when it would answer."""
    budget = ContextBudget()
    found = retrieve(shard, question, k=max(budget.max_items, 6))
    packet = found.to_context(question, budget=budget, compress=True)
    top = found.scores[0] if found.scores else 0.0
    coverage = min(1.0, len(packet) / packet.n_candidates) if packet.n_candidates else 1.0
    confidence = min(max(top, 0.0), 1.0) * (0.5 + 0.5 * coverage)
    return len(found) >= 1 and confidence >= 0.1


def features(shard: Substrate, question: str) -> list[float]:
    """The answerability signals (top score, ln(1 + terms), best sentence share)."""
    found = retrieve(shard, question, k=20)
    top = max(found.scores, default=0.0)
    ranked = [
        i for _, i in sorted(zip(found.scores, found.items, strict=True), key=lambda p: -p[0])
    ]
    wanted = terms(question)
    best = 0.0
    for item in ranked[:3]:
        for s in sentences(item.text):
            if wanted:
                best = max(best, len(wanted & terms(s)) / len(wanted))
    return [top, math.log1p(len(wanted)), best]


def run_quality(per_collection: int, fit: bool) -> dict[str, Any]:
    data = {c: load_collection(c) for c in COLLECTIONS}
    shards = {}
    for c in COLLECTIONS:
        t0 = time.perf_counter()
        shards[c] = ir_shard(c, data[c][0])
        print(
            f"  indexed {c}: {len(data[c][0])} docs in {time.perf_counter() - t0:.1f} s", flush=True
        )
    rng = random.Random(0)
    picked = {}
    for c in COLLECTIONS:
        judged = [q for q in data[c][1] if q in data[c][2]]
        picked[c] = sorted(rng.sample(judged, min(per_collection, len(judged))), key=judged.index)
    answerer = ExtractiveAnswerer()
    rows: list[dict[str, Any]] = []
    for shard_name in COLLECTIONS:
        shard = shards[shard_name]
        for q_name in COLLECTIONS:
            queries, relevant = data[q_name][1], data[q_name][2]
            for qid in picked[q_name]:
                question = queries[qid]
                result = answer_from_substrate(shard, question, answerer)
                cited = [result.context.items[n - 1].id.split(":", 1)[1] for n in result.cited()]
                rows.append(
                    {
                        "shard": shard_name,
                        "queries": q_name,
                        "answerable": shard_name == q_name,
                        "same_domain": frozenset({shard_name, q_name}) in SAME_DOMAIN,
                        "answered": not result.abstained,
                        "reference_answered": reference_decision(shard, question),
                        "cites_relevant": bool(set(cited) & relevant.get(qid, set())),
                        "confidence": result.confidence,
                        "features": features(shard, question) if fit else None,
                    }
                )
    return {"rows": rows}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def share(flags: list[bool]) -> float:
        return sum(flags) / len(flags) if flags else float("nan")

    ans = [r for r in rows if r["answerable"]]
    unans = [r for r in rows if not r["answerable"] and not r["same_domain"]]
    same = [r for r in rows if r["same_domain"]]
    answered = [r for r in ans if r["answered"]]
    pairs: dict[str, list[bool]] = {}
    for r in rows:
        pairs.setdefault(f"{r['shard']} <- {r['queries']}", []).append(r["answered"])
    return {
        "answer_rate": share([r["answered"] for r in ans]),
        "abstain_rate": share([not r["answered"] for r in unans]),
        "same_domain_abstain_rate": share([not r["answered"] for r in same]),
        "citation_hit_rate": share([r["cites_relevant"] for r in answered]),
        "ref_answer_rate": share([r["reference_answered"] for r in ans]),
        "ref_abstain_rate": share([not r["reference_answered"] for r in unans]),
        "n_answerable": len(ans),
        "n_unanswerable": len(unans),
        "per_pair": {k: share(v) for k, v in pairs.items()},
    }


def fit_weights(rows: list[dict[str, Any]]) -> None:
    """Refit the logistic answerability weights (balanced classes) and cross-validate."""
    import numpy as np

    usable = [r for r in rows if not r["same_domain"]]

    def train(sample: list[dict[str, Any]]) -> Any:
        x = np.array([[*r["features"], 1.0] for r in sample])
        y = np.array([1.0 if r["answerable"] else 0.0 for r in sample])
        weight = np.where(y == 1.0, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9))
        w = np.zeros(x.shape[1])
        for _ in range(50):  # Newton's method on the weighted, lightly regularised log-loss
            p = 1 / (1 + np.exp(-x @ w))
            grad = x.T @ (weight * (p - y)) + 0.01 * w
            hess = (x * (weight * p * (1 - p))[:, None]).T @ x + 0.01 * np.eye(x.shape[1])
            w -= np.linalg.solve(hess, grad)
        return w

    def decide(w: Any, r: dict[str, Any]) -> bool:
        return float(np.dot([*r["features"], 1.0], w)) >= 0.0

    w = train(usable)
    print(f"fitted: W_SCORE={w[0]:.2f} W_LENGTH={w[1]:.2f} W_SENTENCE={w[2]:.2f} W_BIAS={w[3]:.2f}")
    for held in COLLECTIONS:
        train_rows = [r for r in usable if held not in (r["shard"], r["queries"])]
        test_rows = [r for r in usable if held in (r["shard"], r["queries"])]
        wh = train(train_rows)
        a = [decide(wh, r) for r in test_rows if r["answerable"]]
        u = [not decide(wh, r) for r in test_rows if not r["answerable"]]
        print(f"  held out {held}: answer {sum(a) / len(a):.1%}  abstain {sum(u) / len(u):.1%}")


def tldr_pages() -> dict[str, list[dict[str, str]]]:
    """The English tldr pages: page path -> its rows (title, task and command)."""
    pages: dict[str, list[dict[str, str]]] = {}
    with gzip.open(EVAL / "scale" / "tldr-short.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            page = row["id"].split("#", 1)[0]
            if row.get("lang") == "en" and page.startswith("pages/"):
                pages.setdefault(page, []).append(row)
    return pages


def run_near_miss(n: int) -> dict[str, float]:
    """Answer ``n`` how-to questions about commands the shard has; abstain on ``n`` about
    commands it lacks (see the module doc). The peer is the reference rule."""
    pages = tldr_pages()
    by_title: dict[str, list[str]] = {}
    for page, rows in pages.items():
        by_title.setdefault(rows[0]["title"], []).append(page)
    # one page per command (a command on two platforms would answer for the other), and a
    # name that is no common word of the other pages' text
    names = sorted(
        t for t, ps in by_title.items() if len(ps) == 1 and re.fullmatch(r"[a-z][a-z0-9]{3,}", t)
    )
    sample = random.Random(5).sample(names, 2 * n)
    left_out = set(sample[n:])
    shard = Substrate()
    for page, rows in sorted(pages.items()):
        if rows[0]["title"] not in left_out:
            text = "\n".join([rows[0]["title"], *(r["text"] for r in rows)])
            shard.put(SubstrateItem("text", text, id=page, provenance={"source": page}))
    shard.reindex()
    answered, cites, abstained, ref_answered, ref_abstained = 0, 0, 0, 0, 0
    for title in sample:
        page = by_title[title][0]
        task = pages[page][0]["text"].split("\n", 1)[0].rstrip(":. ")
        question = f"How do I {task[:1].lower()}{task[1:]} with {title}?"
        result = answer_from_substrate(shard, question, ExtractiveAnswerer())
        reference = reference_decision(shard, question)
        if title in left_out:
            abstained += result.abstained
            ref_abstained += not reference
        else:
            answered += not result.abstained
            cites += page in [result.context.items[i - 1].id for i in result.cited()]
            ref_answered += reference
    return {
        "answer_rate": answered / n,
        "cites_page_rate": cites / max(answered, 1),
        "abstain_rate": abstained / n,
        "ref_answer_rate": ref_answered / n,
        "ref_abstain_rate": ref_abstained / n,
        "n": n,
    }


# -- speed -----------------------------------------------------------------------------------------


def scale_docs() -> Iterator[dict[str, str]]:
    for path in sorted((EVAL / "scale").glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                yield json.loads(line)


def build_scale_shard(path: Path, n: int) -> list[dict[str, str]]:
    docs: list[dict[str, str]] = []
    for d in scale_docs():
        docs.append(d)
        if len(docs) >= n:
            break
    shard = Substrate(path)
    for i in range(n):
        d = docs[i % len(docs)]
        source = d["id"].split("#")[0]
        shard.put(
            SubstrateItem(
                "text",
                f"{d.get('title', '')}\n{d.get('text', '')}",
                id=f"{i:016x}",
                provenance={"source": source, "line_start": 1 + i % 40, "line_end": 3 + i % 40},
                links=[f"{(i * 7919) % n:016x}"] if i % 3 == 0 else [],
            )
        )
        if i % 50_000 == 49_999:
            shard.save()
    shard.save()
    shard.reindex()
    shard.close()
    return docs


def questions(docs: list[dict[str, str]], n: int) -> list[str]:
    rng = random.Random(3)
    out: list[str] = []
    while len(out) < n:
        d = rng.choice(docs)
        words = [w for w in d.get("text", "").split() if w.isalpha() and len(w) > 3]
        if len(words) >= 3:
            out.append("how do I " + " ".join(rng.sample(words, 3)))
    return out


def timed(fn: Callable[[], Any], repeat: int) -> float:
    lat = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        lat.append(time.perf_counter() - t)
    return statistics.median(lat) * 1000


def run_speed(quick: bool) -> dict[str, Any]:
    from substrate.search import engine

    tmp = Path(tempfile.mkdtemp(prefix="mixle-bench-answers-"))
    try:
        path = tmp / "shard"
        t0 = time.perf_counter()
        docs = build_scale_shard(path, SPEED_ITEMS)
        print(f"  built {SPEED_ITEMS:,} items in {time.perf_counter() - t0:.0f} s", flush=True)
        qs = questions(docs, 30 if quick else 100)
        shard = Substrate(path)
        for q in qs:  # warm the index, the analyzer and the page cache for every question
            engine.search(shard, q, 10)
        out: dict[str, Any] = {"items": SPEED_ITEMS}

        def each(fn: Callable[[str], Any]) -> float:
            it = iter(qs)
            return timed(lambda: fn(next(it)), len(qs))

        out["search_ms"] = each(lambda q: engine.search(shard, q, 10))
        out["multihop_ms"] = each(lambda q: multihop(shard, q, max_hops=2))
        out["context_ms"] = each(lambda q: assemble_context(shard, q))
        out["ask_lib_ms"] = each(lambda q: answer_from_substrate(shard, q, ExtractiveAnswerer()))
        env_runs = 3 if quick else 7

        def process(*argv: str) -> float:
            def run() -> None:
                done = subprocess.run(
                    [sys.executable, *argv], capture_output=True, text=True, cwd=ROOT, check=False
                )
                if done.returncode not in (0, 1):
                    raise RuntimeError(f"{' '.join(argv[2:])} failed:\n{done.stderr}")

            run()  # warm the page cache
            return timed(run, env_runs)

        out["ask_process_ms"] = process("-c", _CLI, "--shard", str(path), "ask", qs[0])
        out["search_process_ms"] = process("-c", _SEARCH_ONLY, str(path), qs[0])
        out["floor_process_ms"] = process("-c", _CLI, "--version")
        shard.close()
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# -- main ------------------------------------------------------------------------------------------


def beside_reference(measure: str, rate: float, reference: float) -> str:
    """A table row: a rate, the reference rule's on the same questions, and their ratio."""
    ratio = rate / max(reference, 1e-9)
    return f"| {measure} | {rate:.1%} | {reference:.1%} (reference rule) | {ratio:.2f} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer questions and repetitions")
    parser.add_argument("--fit", action="store_true", help="refit the answerability weights")
    parser.add_argument("--no-speed", action="store_true", help="skip the 100k speed part")
    parser.add_argument("--no-quality", action="store_true", help="skip the quality part")
    args = parser.parse_args()
    if not (EVAL / "ir").is_dir() or not (EVAL / "scale").is_dir():
        print(f"note: evaluation data not found under {EVAL}; nothing to measure")
        return 0
    table = ["| measure | mixle | peer | ratio |", "|---|---|---|---|"]
    if not args.no_quality:
        print("quality: answer or abstain (extractive answerer, library path)", flush=True)
        result = run_quality(40 if args.quick else 120, args.fit)
        s = summarise(result["rows"])
        print(json.dumps({k: v for k, v in s.items() if k != "per_pair"}, indent=2))
        for pair, rate in sorted(s["per_pair"].items()):
            print(f"  answered {rate:6.1%}  {pair}")
        if args.fit:
            fit_weights(result["rows"])
        table += [
            beside_reference(
                f"answers answerable questions ({s['n_answerable']})",
                s["answer_rate"],
                s["ref_answer_rate"],
            ),
            beside_reference(
                f"abstains on other-domain questions ({s['n_unanswerable']})",
                s["abstain_rate"],
                s["ref_abstain_rate"],
            ),
            f"| abstains, same-domain pairs (med/scifact, not counted) | "
            f"{s['same_domain_abstain_rate']:.1%} | - | - |",
            f"| answered: cites a judged-relevant doc | {s['citation_hit_rate']:.1%} | - | - |",
        ]
        print("quality: near misses on tldr pages", flush=True)
        near = run_near_miss(100)
        print(json.dumps(near, indent=2))
        table += [
            beside_reference(
                f"how-to, command in the shard ({near['n']}): answers",
                near["answer_rate"],
                near["ref_answer_rate"],
            ),
            f"| how-to, command in the shard: cites its page | {near['cites_page_rate']:.0%} "
            "| - | - |",
            beside_reference(
                f"how-to, command not in the shard ({near['n']}): abstains",
                near["abstain_rate"],
                near["ref_abstain_rate"],
            ),
        ]
    if not args.no_speed:
        print(f"speed: {SPEED_ITEMS:,} items on disk", flush=True)
        sp = run_speed(args.quick)
        print(json.dumps(sp, indent=2))
        table += [
            f"| `mixle ask` whole process, ms | {sp['ask_process_ms']:.0f} | "
            f"{sp['search_process_ms']:.0f} (a process doing one search) | "
            f"{sp['ask_process_ms'] / sp['search_process_ms']:.2f} |",
            f"| `mixle ask` whole process, ms | {sp['ask_process_ms']:.0f} | "
            f"{sp['floor_process_ms']:.0f} (`mixle --version`) | "
            f"{sp['ask_process_ms'] / sp['floor_process_ms']:.2f} |",
            f"| multihop 2 hops warm, ms | {sp['multihop_ms']:.1f} | "
            f"{sp['search_ms']:.1f} (one search) | {sp['multihop_ms'] / sp['search_ms']:.1f} |",
            f"| assemble_context warm, ms | {sp['context_ms']:.1f} | "
            f"{sp['search_ms']:.1f} (one search) | {sp['context_ms'] / sp['search_ms']:.1f} |",
            f"| answer_from_substrate warm, ms | {sp['ask_lib_ms']:.1f} | "
            f"{sp['search_ms']:.1f} (one search) | {sp['ask_lib_ms'] / sp['search_ms']:.1f} |",
        ]
    print()
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
