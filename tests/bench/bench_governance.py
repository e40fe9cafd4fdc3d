"""Benchmark: `mixle audit` and `mixle freshness` on large shards, as whole processes.

Builds shards of N and 2N items (texts from ../shared/eval/scale) with links (some dangling),
scopes for three teams, and ingest-style provenance pointing at real files (some edited or
deleted after ingest), then times each command as a separate process. Peers measured in the
same run:

* the floor: a process that only parses every line of items.jsonl;
* the reference algorithms (one lineage walk per item, one store scan per freshness check),
  run in-process beside ours on a small shard, since they are quadratic.

Usage: .venv/bin/python tests/bench/bench_governance.py [--quick] [--items N]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from substrate.freshness import check_freshness, freshness_report  # noqa: E402
from substrate.item import SubstrateItem  # noqa: E402
from substrate.lineage import audit_substrate, verify_lineage  # noqa: E402
from substrate.store import Substrate  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval" / "scale" / "tldr-short.jsonl.gz"
TEAMS = ("public", "ops", "dev")
CHUNKS_PER_FILE = 20
MONTH = 30 * 86400


def texts() -> Iterator[str]:
    with gzip.open(EVAL, "rt", encoding="utf-8") as fh:
        for line in fh:
            yield orjson.loads(line)["text"]


def build(base: Path, n: int, corpus: list[str], seed: int = 0) -> Path:
    """A shard of ``n`` items with links, scopes and file provenance; returns its root."""
    rng = random.Random(seed)
    root, docs = base / "shard", base / "docs"
    docs.mkdir(parents=True)
    now = time.time()
    store = Substrate(root)
    ids: list[str] = []
    n_files = (n + CHUNKS_PER_FILE - 1) // CHUNKS_PER_FILE
    files: list[tuple[Path, dict[str, Any]]] = []
    for f in range(n_files):
        path = docs / f"doc{f:06d}.md"
        body = "\n\n".join(corpus[(f * CHUNKS_PER_FILE + j) % len(corpus)] for j in range(20))
        data = body.encode()
        path.write_bytes(data)
        os.utime(path, (now - MONTH, now - MONTH))
        st = path.stat()
        files.append(
            (
                path,
                {
                    "path": str(path),
                    "source": path.name,
                    "content_hash": hashlib.sha256(data).hexdigest()[:32],
                    "size": st.st_size,
                    "mtime": st.st_mtime,
                    "ingested_at": now - MONTH + 60,
                },
            )
        )
    for i in range(n):
        path, prov = files[i // CHUNKS_PER_FILE]
        links: list[str] = []
        if i and rng.random() < 0.8:
            # Mostly derived from recent items (deep chains), sometimes from anything older.
            links = [
                ids[rng.randrange(max(0, i - 50), i) if rng.random() < 0.7 else rng.randrange(i)]
                for _ in range(rng.choice((1, 1, 2)))
            ]
        if rng.random() < 0.005:
            links.append(f"{rng.getrandbits(64):016x}")  # dangling
        provenance = {**prov, "chunk": i % CHUNKS_PER_FILE}
        if i and rng.random() < 0.01:
            provenance["supersedes"] = ids[rng.randrange(i)]
        item = SubstrateItem(
            kind="text",
            text=corpus[i % len(corpus)],
            scope=TEAMS[i % len(TEAMS)],
            links=links,
            provenance=provenance,
            created_at=now - MONTH + i * 0.001,
        )
        ids.append(store.put(item))
    store.save()
    store.close()
    for path, _ in rng.sample(files, max(1, n_files // 500)):
        with path.open("a") as fh:
            fh.write("\nedited after ingest\n")
    for path, _ in rng.sample(files, max(1, n_files // 500)):
        path.unlink(missing_ok=True)
    return root


def mixle_command() -> tuple[list[str], str]:
    """How to run mixle with the audit commands: the installed script, or a registering shim."""
    script = Path(sys.executable).with_name("mixle")
    probe = (
        subprocess.run([str(script), "audit", "--help"], capture_output=True, check=False)
        if script.exists()
        else None
    )
    if probe is not None and probe.returncode == 0:
        return [str(script)], "mixle"
    shim = (
        "from mixle_cli.app import app, main\n"
        "from mixle_cli.commands import audit, governance\n"
        "names = {c.name for c in app.registered_commands}\n"
        "for m in (governance, audit):\n"
        "    if not names & set(m.COMMANDS): m.register(app)\n"
        "main()\n"
    )
    return [sys.executable, "-c", shim], "python -c shim (commands not yet in app.py)"


def timed(cmd: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        elapsed = time.perf_counter() - started
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd[-4:])} failed: {done.stderr.decode()[-500:]}")
        best = min(best, elapsed)
    return best


def floor_command(root: Path) -> list[str]:
    code = (
        "import orjson, sys\n"
        "n = 0\n"
        f"with open({str(root / 'items.jsonl')!r}, 'rb') as fh:\n"
        "    for line in fh:\n"
        "        n += bool(orjson.loads(line))\n"
    )
    return [sys.executable, "-c", code]


def reference_audit(store: Substrate) -> int:
    """The upstream sweep: one depth-first lineage walk per item (no memo)."""
    broken = 0
    for item in store.all():
        seen = {item.id}
        stack = [(item.id, 0)]
        dangling = False
        while stack:
            node, depth = stack.pop()
            current = store.get(node)
            if current is None or depth >= 20:
                continue
            for link in current.links:
                if store.get(link) is None:
                    dangling = True
                elif link not in seen:
                    seen.add(link)
                    stack.append((link, depth + 1))
        broken += dangling
    return broken


def reference_freshness(store: Substrate) -> int:
    """The upstream report: every item's check rescans the whole store for supersession."""
    items = store.all()
    stale = 0
    for item in items:
        signals = []
        path = item.provenance.get("path")
        if path and not os.path.exists(path):
            signals.append("moved")
        elif path and item.provenance.get("content_hash"):
            data = Path(path).read_bytes()
            if hashlib.sha256(data).hexdigest()[:32] != item.provenance["content_hash"]:
                signals.append("changed")
        for other in items:
            if other.id != item.id and other.provenance.get("supersedes") == item.id:
                signals.append("superseded")
        stale += bool(signals)
    return stale


def compare_reference(base: Path, corpus: list[str], n: int) -> list[str]:
    root = build(base, n, corpus, seed=1)
    store = Substrate(root)
    store.all()  # warm the catalog and cache for both sides alike
    rows = []
    sweeps: list[tuple[str, Callable[[Substrate], int], Callable[[Substrate], int]]] = [
        ("audit", reference_audit, lambda s: int(audit_substrate(s)["n_broken"])),
        ("freshness", reference_freshness, lambda s: int(freshness_report(s)["n_stale"])),
    ]
    for label, reference, ours in sweeps:
        started = time.perf_counter()
        ref_result = reference(store)
        ref_s = time.perf_counter() - started
        started = time.perf_counter()
        our_result = ours(store)
        our_s = time.perf_counter() - started
        rows.append(
            f"| {label} | {n:,} | {ref_s:.2f} | {our_s:.2f} | {ref_s / our_s:.0f}x |"
            f" {ref_result} / {our_result} |"
        )
    # Spot-check that single-item answers agree with the sweep.
    first = next(store.iter_items())
    verify_lineage(store, first.id)
    check_freshness(store, first.id)
    store.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20k/40k items instead of 100k/200k")
    parser.add_argument("--items", type=int, default=None, help="the smaller shard size")
    parser.add_argument("--repeat", type=int, default=None, help="runs per measurement (best)")
    args = parser.parse_args()
    if not EVAL.exists():
        print(f"note: {EVAL} not found; the scale data is needed for this benchmark. Skipping.")
        return
    n = args.items or (20_000 if args.quick else 100_000)
    repeat = args.repeat or (1 if args.quick else 2)
    corpus = [t for _, t in zip(range(2 * n), texts(), strict=False)]
    cmd, how = mixle_command()
    print(f"running `{how}`; best of {repeat}; shards of {n:,} and {2 * n:,} items\n")
    results: dict[int, dict[str, float]] = {}
    tmp = Path(tempfile.mkdtemp(prefix="mixle-bench-gov-"))
    try:
        for size in (n, 2 * n):
            started = time.perf_counter()
            root = build(tmp / str(size), size, corpus)
            print(f"built {size:,} items in {time.perf_counter() - started:.1f}s", flush=True)
            base = [*cmd, "--shard", str(root)]
            results[size] = {
                "audit": timed([*base, "audit", "--json"], repeat),
                "freshness": timed([*base, "freshness", "--json"], repeat),
                "audit_team": timed([*base, "--as", "ops", "audit", "--json"], repeat),
                "freshness_team": timed([*base, "--as", "ops", "freshness", "--json"], repeat),
                "floor": timed(floor_command(root), repeat),
            }
            shutil.rmtree(tmp / str(size))
        ref_rows = compare_reference(tmp / "reference", corpus, 2_000 if args.quick else 5_000)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print("\n### Governance sweeps (whole processes, seconds)\n")
    print(
        "| items | audit | freshness | audit --as team | freshness --as team | read floor |"
        " audit / floor | freshness / floor |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for size, r in results.items():
        print(
            f"| {size:,} | {r['audit']:.2f} | {r['freshness']:.2f} | {r['audit_team']:.2f} |"
            f" {r['freshness_team']:.2f} | {r['floor']:.2f} | {r['audit'] / r['floor']:.1f}x |"
            f" {r['freshness'] / r['floor']:.1f}x |"
        )
    small, large = results[n], results[2 * n]
    print(
        "\nDoubling the shard multiplies the time by: "
        + ", ".join(f"{key} {large[key] / small[key]:.2f}x" for key in small)
    )
    print("\n### Against the reference algorithms (in-process, seconds)\n")
    print("| sweep | items | reference | ours | speed-up | findings (ref / ours) |")
    print("|---|---|---|---|---|---|")
    for row in ref_rows:
        print(row)
    budget_ok = all(r[k] < 10 for r in results.values() for k in ("audit", "freshness"))
    print(f"\nunder 10 s at every size: {'yes' if budget_ok else 'NO'}")


if __name__ == "__main__":
    main()
