"""Benchmark: folder ingestion throughput and re-ingest cost, beside plain file-system peers.

Writes the tldr pages of ../shared/eval/scale/tldr-short.jsonl.gz as a folder of Markdown files
(one file per page and language) into a temporary directory, then measures in the same run:

* peers: a bare walk that stats every file, and a walk that reads and sha256-hashes every file;
  and, to show what any ingest in Python pays, a bare pipeline: read, hash, decode, one search
  for the gate's keywords, a split at headings and one JSON line per section, written out;
* ``ingest_path`` into a fresh shard (first ingest), compared with read-and-hash: with the
  default worker processes, and in one process (``jobs=1``);
* re-ingest with nothing changed, compared with the bare stat walk;
* re-ingest after editing 1% of the files, and after only touching (mtime) 1% of them;
* re-ingest of the tree moved to another folder (each file replaces its old place's items);
* a trace file given one line, with and without a secret in an earlier row;
* a part of the pages kept compressed (``page.md.gz``): first ingest beside reading,
  inflating and hashing them, and the unchanged re-ingest beside the stat walk.

The first ingests and the re-ingests each run in a fresh interpreter, as every ``mixle ingest``
does, and each measures its peer again in that process.

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
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import orjson

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2]))

from substrate.ingest import ingest_path  # noqa: E402
from substrate.secrets.engine import find_secrets  # noqa: E402
from substrate.secrets.keywords import ANY_CONTEXT_KEYWORD  # noqa: E402
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


HEADING = re.compile(r"^#{1,6} ", re.MULTILINE)


def bare_pipeline(root: Path, out: Path) -> int:
    """The least an ingest of these files does, with none of mixle's bookkeeping: stat, read,
    sha256, decode, a search for the gate's context keywords (a clean file stops there), a
    split at headings, one JSON line per section, one write. Returns the lines written."""
    lines = []
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            path = os.path.join(dirpath, f)
            info = os.stat(path)
            with open(path, "rb") as fh:
                data = fh.read()
            digest = hashlib.sha256(data).hexdigest()
            text = data.decode("utf-8")
            ANY_CONTEXT_KEYWORD.search(text.lower())
            for section in HEADING.split(text):
                if section.strip():
                    row = {"id": digest[:16], "text": section, "source": path}
                    row.update(size=info.st_size, mtime_ns=info.st_mtime_ns)
                    lines.append(orjson.dumps(row))
    out.write_bytes(b"\n".join(lines))
    return len(lines)


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


def first_phase(tree: Path, work: Path, repeat: int) -> dict[str, float]:
    """Peers, then first ingests: in memory, in one process, with the default workers."""
    fresh = (work / f"first-{i}" for i in range(1000))
    last: list[Path] = []

    def first_ingest(jobs: int | None) -> object:
        last.append(next(fresh))
        return ingest_path(Substrate(last[-1]), tree, jobs=jobs)

    t_stat, _ = timed(stat_walk, tree, repeat=3)
    t_hash, _ = timed(hash_walk, tree, repeat=3)
    t_bare, _ = timed(bare_pipeline, tree, work / "bare.jsonl", repeat=3)
    t_memory, _ = timed(lambda: ingest_path(Substrate(), tree), repeat=repeat)
    t_serial, serial = timed(lambda: first_ingest(1), repeat=repeat)
    t_first, first = timed(lambda: first_ingest(None), repeat=repeat)
    assert first.files_failed == 0, first.issues[:3]
    assert serial.ids == first.ids
    os.replace(last[-1], work / "shard")
    return {
        "stat": t_stat,
        "hash": t_hash,
        "bare": t_bare,
        "memory": t_memory,
        "serial": t_serial,
        "first": t_first,
        "files": first.files_scanned,  # hidden pages (the "." command) are not ingested
        "items": first.items_added,
    }


def reingest_phase(tree: Path, shard: Path) -> dict[str, float]:
    """Peer, then re-ingests: nothing changed, 1% of the files edited, 1% only touched."""
    t_stat, _ = timed(stat_walk, tree, repeat=3)
    t_again, again = timed(lambda: ingest_path(Substrate(shard), tree), repeat=3)
    n_files = again.files_scanned
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
    moved_to = tree.with_name(tree.name + "-moved")
    tree.rename(moved_to)
    t_moved, moved = timed(lambda: ingest_path(Substrate(shard), moved_to))
    moved_to.rename(tree)  # as it was, for another run
    # (a file holding a secret, which keeps no content hash, is known moved by its look)
    assert moved.files_moved == n_files, moved.as_dict(files=False)
    return {
        "stat": t_stat,
        "again": t_again,
        "edit": t_edit,
        "touch": t_touch,
        "open": t_open,
        "changed": len(picked),
        "moved": t_moved,
        "files_moved": moved.files_moved,
    }


# A key an agent logged once, in the fourth row of the trace file that holds a secret
LOGGED_KEY = "AKIA" + "IOSFODNN7EXAMPLF"


def write_trace_log(path: Path, rows: int, *, secret: bool) -> None:
    """A trace file of ``rows`` JSON Lines, a tldr example each (its description asked, its
    command the answer), as an agent's run log grows. Examples holding what the gate masks
    are left out; with ``secret``, its fourth row holds a key (such a file keeps the hash of
    its other lines alone, ``substrate.linesdigest``)."""
    written = 0
    with gzip.open(DATA, "rt", encoding="utf-8") as fh, path.open("w", encoding="utf-8") as out:
        for line in fh:
            text = json.loads(line)["text"]
            if find_secrets(text):
                continue
            desc, _, cmd = text.partition("\n")
            if secret and written == 3:
                cmd = f"AWS_ACCESS_KEY_ID={LOGGED_KEY} {cmd}"
            out.write(json.dumps({"input": desc, "answer": cmd, "step": written}) + "\n")
            written += 1
            if written == rows:
                return


def appended_phase(work: Path, rows: int, secret: bool) -> dict[str, float]:
    """A trace file read whole, then given one line: peer, first ingest, and the re-ingest."""
    log = work / ("traces-with-a-secret" if secret else "traces") / "run.jsonl"
    log.parent.mkdir()
    write_trace_log(log, rows, secret=secret)
    settled = time.time() - 60  # (out of the racy window: its last line is trusted)
    os.utime(log, (settled, settled))
    t_hash, _ = timed(hash_walk, log.parent, repeat=3)
    shard = work / ("trace-shard-secret" if secret else "trace-shard")
    t_first, _ = timed(lambda: ingest_path(Substrate(shard), log.parent))
    with log.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"input": "one more step", "answer": "true"}) + "\n")
    os.utime(log, (settled + 1, settled + 1))
    t_added, added = timed(lambda: ingest_path(Substrate(shard), log.parent))
    assert (added.items_added, added.items_rewritten, added.items_removed) == (1, 0, 0)
    return {"rows": rows, "hash": t_hash, "first": t_first, "added": t_added}


def inflate_walk(root: Path) -> int:
    """The peer of a tree of gzip files: read, inflate and sha256-hash every file."""
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            with open(os.path.join(dirpath, f), "rb") as fh:
                data = gzip.decompress(fh.read())
            hashlib.sha256(data).hexdigest()
            total += len(data)
    return total


def compressed_phase(work: Path, count: int) -> dict[str, float]:
    """The first ``count`` pages kept compressed (``page.md.gz``, as a package's docs are):
    peers, first ingest and unchanged re-ingest."""
    tree = work / "tldr-gz"
    write_pages(tree, count)
    settled = time.time() - 60
    for page in files_under(tree):
        packed = page.with_name(page.name + ".gz")
        packed.write_bytes(gzip.compress(page.read_bytes(), mtime=0))
        page.unlink()
        os.utime(packed, (settled, settled))
    t_inflate, _ = timed(inflate_walk, tree, repeat=3)
    shard = work / "gz-shard"
    t_first, first = timed(lambda: ingest_path(Substrate(shard), tree))
    assert first.files_failed == 0 and first.files_added == first.files_scanned
    t_stat, _ = timed(stat_walk, tree, repeat=3)
    t_again, again = timed(lambda: ingest_path(Substrate(shard), tree), repeat=3)
    assert again.files_unchanged == again.files_scanned
    return {
        "files": first.files_scanned,
        "inflate": t_inflate,
        "first": t_first,
        "stat": t_stat,
        "again": t_again,
    }


def in_fresh_process(phase: str, *args: str) -> dict[str, float]:
    """Run a phase in a new interpreter, as every ``mixle ingest`` is: nothing left over from
    the other phase (a large heap, worker pools) is timed."""
    out = subprocess.run(
        [sys.executable, str(HERE), "--phase", phase, *args],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10,000 files instead of all")
    parser.add_argument("--files", type=int, default=None, help="number of files to write")
    parser.add_argument("--repeat", type=int, default=3, help="first ingests: best of N")
    parser.add_argument("--phase", nargs="+", help=argparse.SUPPRESS)  # internal: one phase
    args = parser.parse_args()
    if args.phase:
        phase, *where = args.phase
        if phase == "first":
            print(json.dumps(first_phase(Path(where[0]), Path(where[1]), args.repeat)))
        elif phase == "compressed":
            print(json.dumps(compressed_phase(Path(where[0]), int(where[1]))))
        elif phase == "appended":
            secret = where[2:] == ["secret"]
            print(json.dumps(appended_phase(Path(where[0]), int(where[1]), secret)))
        else:
            print(json.dumps(reingest_phase(Path(where[0]), Path(where[1]))))
        return 0
    if not DATA.exists():
        print(f"note: {DATA} not found; skipping the ingest benchmark")
        return 0
    limit = args.files or (10_000 if args.quick else None)
    with tempfile.TemporaryDirectory(prefix="mixle-bench-ingest-") as tmp:
        tree = Path(tmp) / "tldr"
        write_pages(tree, limit)
        # files modified in the last 2 s are re-hashed by the next ingest (their mtime may not
        # yet show a later edit); let them settle, as files not being edited are
        time.sleep(2.1)
        size = sum(p.stat().st_size for p in files_under(tree))
        first = in_fresh_process("first", str(tree), tmp, "--repeat", str(args.repeat))
        again = in_fresh_process("reingest", str(tree), str(Path(tmp) / "shard"))
        rows = "10000" if args.quick else "30000"
        appended = in_fresh_process("appended", tmp, rows)
        with_secret = in_fresh_process("appended", tmp, rows, "secret")
        compressed = in_fresh_process("compressed", tmp, "2000" if args.quick else "5000")
    print_table(first, again, size)
    print_appended(appended, with_secret)
    print_compressed(compressed)
    return 0


def print_compressed(result: dict[str, float]) -> None:
    """The pages kept compressed: first ingest beside read + inflate + sha256, and the
    unchanged re-ingest beside the stat walk."""
    print(f"\n{result['files']:,.0f} Markdown files kept compressed (page.md.gz)\n")
    print("| run | seconds | ratio |")
    print("|---|---:|---|")
    t_inflate, t_first, t_stat, t_again = (result[k] for k in ("inflate", "first", "stat", "again"))
    print(f"| read + inflate + sha256 every file (peer) | {t_inflate:.3f} | |")
    print(
        f"| first ingest | {t_first:.3f} | {t_inflate / t_first:.2f}x of read+inflate+hash "
        "throughput |"
    )
    print(f"| bare stat walk (peer) | {t_stat:.3f} | |")
    print(f"| re-ingest, nothing changed | {t_again:.3f} | {t_again / t_stat:.2f}x the stat walk |")


def print_appended(plain: dict[str, float], with_secret: dict[str, float]) -> None:
    """The trace file given one line, and one that holds a secret: each re-ingest beside its
    first (target: proportional to the change, so a small part of the first)."""
    print(f"\nA trace file of {plain['rows']:,.0f} rows, given one more\n")
    print("| run | seconds | ratio |")
    print("|---|---:|---|")
    for result, which in ((plain, ""), (with_secret, ", one row holding a key")):
        t_hash, t_first, t_added = (result[k] for k in ("hash", "first", "added"))
        print(f"| read + sha256 of the file (peer){which} | {t_hash:.3f} | |")
        print(f"| first ingest{which} | {t_first:.3f} | {t_first / t_hash:.1f}x read+hash |")
        print(
            f"| re-ingest, one line appended{which} | {t_added:.3f} | {t_added / t_first:.2f}x "
            f"the first ingest, {t_added / t_hash:.1f}x read+hash |"
        )


def print_table(first: dict[str, float], again: dict[str, float], size: int) -> None:
    n_files, t_hash = first["files"], first["hash"]
    expected_edit = again["again"] + first["first"] / n_files * again["changed"]

    def rate(seconds: float) -> float:
        return n_files / seconds

    rows = [
        ("bare stat walk (peer)", first["stat"], "1.00x of stat walk"),
        ("read + sha256 every file (peer)", t_hash, "1.00x of read+hash"),
        (
            "bare pipeline in one process (peer)",
            first["bare"],
            f"{t_hash / first['bare']:.2f}x of read+hash throughput",
        ),
        (
            "first ingest, in-memory shard (no log writes)",
            first["memory"],
            f"{t_hash / first['memory']:.2f}x of read+hash throughput",
        ),
        (
            "first ingest, one process (jobs=1)",
            first["serial"],
            f"{t_hash / first['serial']:.2f}x of read+hash throughput",
        ),
        (
            f"first ingest ({os.cpu_count()} CPUs, default workers)",
            first["first"],
            f"{t_hash / first['first']:.2f}x of read+hash throughput (target >= 0.25)",
        ),
        ("bare stat walk (peer, in the re-ingest process)", again["stat"], ""),
        (
            "re-ingest, nothing changed",
            again["again"],
            f"{again['again'] / again['stat']:.2f}x the stat walk time (target <= 2)",
        ),
        (
            f"re-ingest, {again['changed']:.0f} files edited (1%)",
            again["edit"],
            f"{again['edit'] / expected_edit:.2f}x of (unchanged + 1% of first ingest)",
        ),
        (
            f"re-ingest, {again['changed']:.0f} files touched (1%)",
            again["touch"],
            f"{again['touch'] / again['again']:.2f}x the unchanged re-ingest",
        ),
        (
            f"re-ingest of the tree moved elsewhere ({again['files_moved']:.0f} files moved)",
            again["moved"],
            f"{again['moved'] / first['first']:.2f}x the first ingest",
        ),
    ]
    print(
        f"\n{n_files:.0f} Markdown files, {size / 1e6:.1f} MB, {first['items']:.0f} items; "
        f"shard open {again['open'] * 1000:.1f} ms\n"
    )
    print("| run | seconds | files/s | ratio |")
    print("|---|---:|---:|---|")
    for name, secs, ratio in rows:
        print(f"| {name} | {secs:.3f} | {rate(secs):,.0f} | {ratio} |")


if __name__ == "__main__":
    raise SystemExit(main())
