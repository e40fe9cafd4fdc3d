"""Secret-detection quality and speed, side by side with detect-secrets (Yelp), same run.

Quality: precision / recall / F1 per labelled file in ../shared/eval/secrets/. Each case is
scanned as a one-line file named with the case's extension (so both tools may use file-type
conventions, as ``detect-secrets scan`` and ``mixle scan-secrets`` do on real trees); a case
counts as flagged when the tool reports anything.

Speed: MB/s over Python standard-library sources, mixle's ``scan_text`` beside
detect-secrets' ``scan_file`` with its default plugins and filters.

Run: .venv/bin/python tests/bench/bench_secrets.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import string
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2]))

from substrate.secrets.textscan import scan_files, scan_text  # noqa: E402

EVAL = HERE.parents[3] / "shared" / "eval" / "secrets"
FILES = {
    "detect-secrets-cases": ("detect-secrets-cases.jsonl", "is_secret"),
    "gitleaks-rule-cases": ("gitleaks-rule-cases.jsonl", "label"),
    "secretbench-battery": ("secretbench-battery.jsonl", "is_secret"),
}


def load_cases(name: str) -> list[tuple[str, str, bool]]:
    """(text, file name, is_secret) for every case of a labelled file."""
    fname, label = FILES[name]
    out = []
    with open(EVAL / fname, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            positive = row[label] is True or row[label] == "tp"
            ext = row.get("file_extension") or Path(row.get("file") or row.get("path") or "").suffix
            ext = (ext or "txt").lstrip(".")
            out.append((row["text"], f"case.{ext}", positive))
    return out


def mixle_flags(text: str, path: str) -> bool:
    return bool(scan_text(text, path=path).findings)


class DetectSecrets:
    """detect-secrets with its default plugins and filters, one temporary file per case."""

    def __init__(self) -> None:
        from detect_secrets.core.scan import scan_file
        from detect_secrets.settings import default_settings

        self._scan_file = scan_file
        self._settings = default_settings
        self._dir = tempfile.mkdtemp(prefix="bench-secrets-")

    def flags_all(self, cases: list[tuple[str, str, bool]]) -> list[bool]:
        out = []
        with self._settings():
            for i, (text, path, _) in enumerate(cases):
                p = os.path.join(self._dir, f"c{i}{Path(path).suffix}")
                with open(p, "w", encoding="utf-8") as fh:
                    fh.write(text + "\n")
                out.append(any(True for _ in self._scan_file(p)))
                os.unlink(p)
        return out

    def scan_paths(self, paths: list[Path]) -> int:
        n = 0
        with self._settings():
            for p in paths:
                n += sum(1 for _ in self._scan_file(str(p)))
        return n


def prf(flags: list[bool], truth: list[bool]) -> tuple[float, float, float]:
    tp = sum(f and t for f, t in zip(flags, truth, strict=True))
    fp = sum(f and not t for f, t in zip(flags, truth, strict=True))
    fn = sum(t and not f for f, t in zip(flags, truth, strict=True))
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def stdlib_files(quick: bool) -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts)
    return files[:400] if quick else files


def timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def mixle_scan_paths(paths: list[Path]) -> int:
    n = 0
    for p in paths:
        n += len(scan_text(p.read_bytes(), path=str(p)).findings)
    return n


def mixle_scan_parallel(paths: list[Path], workers: int) -> int:
    return sum(len(r.findings) for r in scan_files(paths, workers=workers))


def rows(quick: bool) -> Iterator[str]:
    try:
        ds: DetectSecrets | None = DetectSecrets()
    except ImportError:
        ds = None
        yield "note: detect-secrets is not installed (pip install detect-secrets); mixle only"
    yield "| file | cases | mixle P | mixle R | mixle F1 | detect-secrets P | R | F1 | F1 ratio |"
    yield "|---|---|---|---|---|---|---|---|---|"
    for name in FILES:
        cases = load_cases(name)
        if quick:
            cases = cases[::5]
        truth = [c[2] for c in cases]
        mine = prf([mixle_flags(t, p) for t, p, _ in cases], truth)
        if ds is not None:
            theirs = prf(ds.flags_all(cases), truth)
            ratio = f"{mine[2] / theirs[2]:.2f}x" if theirs[2] else "n/a"
            peer = f"{theirs[0]:.3f} | {theirs[1]:.3f} | {theirs[2]:.3f} | {ratio}"
        else:
            peer = "- | - | - | -"
        yield (
            f"| {name} | {len(cases)} | {mine[0]:.3f} | {mine[1]:.3f} | {mine[2]:.3f} | {peer} |"
        )
    paths = stdlib_files(quick)
    size_mb = sum(p.stat().st_size for p in paths) / 1e6
    mine_s = timed(lambda: mixle_scan_paths(paths))
    workers = os.cpu_count() or 1
    par_s = timed(lambda: mixle_scan_parallel(paths, workers)) if workers > 1 else mine_s
    yield ""
    yield "| throughput | files | MB | mixle MB/s | detect-secrets MB/s | ratio |"
    yield "|---|---|---|---|---|---|"
    if ds is not None:
        theirs_s = timed(lambda: ds.scan_paths(paths))
        yield (
            f"| Python stdlib sources | {len(paths)} | {size_mb:.1f} | {size_mb / mine_s:.1f} "
            f"| {size_mb / theirs_s:.2f} | {theirs_s / mine_s:.1f}x |"
        )
    else:
        yield (
            f"| Python stdlib sources | {len(paths)} | {size_mb:.1f} | {size_mb / mine_s:.1f} "
            "| - | - |"
        )
    yield (
        f"| same, scan_files(workers={workers}) | {len(paths)} | {size_mb:.1f} "
        f"| {size_mb / par_s:.1f} | - | - |"
    )
    yield ""
    yield from long_inputs()
    yield ""
    yield from finding_heavy_file(quick)


# Inputs that once made a scan quadratic (10 to 30 s at 40 KB): a 4x longer input must take
# about 4x as long.
LONG_INPUTS: dict[str, Callable[[int], str]] = {
    "a value of spaces": lambda n: "password = a" + " " * n + "b\n",
    "a long word before a YAML block": lambda n: "a" * n + " password: |\n  Kq7mZ2vL9x\n",
    "a line of YAML keys and comments": lambda n: "password: #" * (n // 11),
    "a table of headers": lambda n: "| password |\n|---|\n" * (n // 20),
    "a line of netrc-like pairs": lambda n: "password Kq7mZ2vL9x " * (n // 20),
    "a line of keys with escaped quotes": lambda n: "password='a'' " * (n // 14),
    "a line of htpasswd words": lambda n: "htpasswd " * (n // 9),
    "a literal, a line break, then spaces": lambda n: 'x = "a"\n' + " " * n + "y",
    "joined literals on one line (minified code)": lambda n: "".join(
        f'var a{i}="foo"+"bar{i}";' for i in range(n // 24)
    ),
    "literals parted by blanks, a password's": lambda n: "password = " + '"Zq8X" ' * (n // 7),
    "escaped quotes after a literal and a blank": lambda n: 'x = "a" ' + '"\\' * (n // 2),
    "a bracket before each literal": lambda n: "password = " + '("ab"' * (n // 5),
    "closing brackets after a value": lambda n: "password = x" + ")" * n,
    "calls opened after keys": lambda n: "token=f(" * (n // 8),
    "escaped single quotes after a setter": lambda n: "setPassword('" + "\\'\\''" * (n // 6),
    "colons before a key stem": lambda n: ":" * n + "pass =\n",
    "a line of settings' names": lambda n: "db.password db.password " * (n // 24),
    "connection fields holding commas": lambda n: ";password=a," * (n // 12),
    "wrapped values opened on every line": lambda n: "password = (\n" * (n // 13),
    "named elements opened": lambda n: '<p name="api_key">' * (n // 18),
    "SET PASSWORD over and over": lambda n: "set password = " * (n // 15),
    "an element named by an attribute, then blanks": lambda n: '<a name="password">' + " " * n,
    "a secret's element, then blanks": lambda n: "<password>" + " " * n,
    "CDATA opened in a secret's element": lambda n: "<password><![CDATA[" * (n // 19),
    "a key stated over and over": lambda n: "the API key is " * (n // 15),
    "tokens between slashes": lambda n: "/AKIAZ7Q4R2XKP9LMW3TB" * (n // 21) + "/",
    "-u with a colon over and over": lambda n: "-u a:bcd " * (n // 9),
    "-u options glued into one word": lambda n: "-u a:x=" * (n // 7),
    "a JWT's first letters over and over": lambda n: "eyJ" * (n // 3),
    "BEGIN lines with no END": lambda n: "-----BEGIN PRIVATE KEY-----\n" * (n // 28),
    "a JWT's first letters in base64, over and over": lambda n: "ZXlK" * (n // 4),
    "blanks after an AWS key's name": lambda n: "AWS secret key" + " " * n,
    "blanks after a named secret's entry": lambda n: 'key="password"' + " " * n,
    "a key's first bytes over and over": lambda n: "MHcCAQEEI" + "\nMHcCAQEEIAb" * (n // 12),
    "a key's first bytes, then one long line": lambda n: "MHcCAQEEI" + "Ab" * (n // 2),
    "many tokens on one line": lambda n: " ".join(_tokens(n // 41)),
    "spaces under a table header": lambda n: "| password |\n" + " " * n + "\n",
    "a header cell of parentheses": lambda n: "| password " + "(" * n + " |\n|---|\n| x |\n",
    "blanks in a Kubernetes Secret": lambda n: "kind: Secret\ndata:\n  x" + " " * n + "y\n",
    "map after map in a Kubernetes Secret": lambda n: "kind: Secret\n" + "data:\n" * (n // 6),
    "kinds at two indents": lambda n: "kind: Secret\n  kind: Secret\n" * (n // 28),
    "open strings in a JSON Secret": lambda n: '"kind": "Secret" ' + '"\\' * (n // 2),
    "a JSON List of Secrets": lambda n: (
        '{"kind": "List", "items": ['
        + '{"kind": "Secret", "data": {"k": "VnE3LXJUMm0hcFh6"}},' * (n // 54)
    ),
    "data maps nested in data maps (JSON)": lambda n: (
        '{"kind": "Secret", ' + '"data": {"a": "VnE3LXJUMm0hcFh6", ' * (n // 36)
    ),
    "backslashes in a JSON Secret's value": lambda n: (
        '{"kind": "Secret", "data": {"a": "' + "\\" * n + '"}}'
    ),
    "backslashes after a JSON key": lambda n: '{"kind' + "\\" * n + '": "Secret"}',
}


def _tokens(count: int) -> list[str]:
    rng = random.Random(7)
    return [
        "ghp_" + "".join(rng.choices(string.ascii_letters + string.digits, k=36))
        for _ in range(count)
    ]


def long_inputs() -> Iterator[str]:
    """Each long input scanned as `scan-secrets` scans a file (findings and their previews)."""

    def find_secrets(text: str) -> object:
        return scan_text(text, path="long.txt")

    yield "| long input | 40 KB (s) | 160 KB (s) | ratio (4 is linear) |"
    yield "|---|---|---|---|"
    for name, make in LONG_INPUTS.items():
        short, long = make(40_000), make(160_000)
        t_short = timed(lambda: find_secrets(short))  # noqa: B023 - called at once
        t_long = timed(lambda: find_secrets(long))  # noqa: B023
        yield f"| {name} | {t_short:.3f} | {t_long:.3f} | {t_long / t_short:.1f}x |"


def finding_heavy_file(quick: bool) -> Iterator[str]:
    """The command line on a file that is nothing but secrets (an .env of tokens): the
    report of each finding, beside ``mixle redact`` masking the same file (same run)."""
    lines = 5_000 if quick else 20_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tokens.env"
        body = [f'TOKEN_{i} = "{t}"  # one of many' for i, t in enumerate(_tokens(lines))]
        path.write_text("\n".join(body) + "\n", encoding="utf-8")
        size_mb = path.stat().st_size / 1e6
        mixle = [str(Path(sys.executable).with_name("mixle"))]

        def run(command: str) -> float:
            t = time.perf_counter()
            done = subprocess.run([*mixle, command, str(path)], capture_output=True, check=False)
            assert done.returncode in (0, 1), done.stderr  # 1: scan-secrets found secrets
            return time.perf_counter() - t

        scan_s, redact_s = run("scan-secrets"), run("redact")
    yield "| file of findings (CLI) | findings | MB | scan-secrets (s) | redact (peer, s) | ratio |"
    yield "|---|---|---|---|---|---|"
    yield (
        f"| tokens.env | {lines} | {size_mb:.2f} | {scan_s:.2f} | {redact_s:.2f} "
        f"| {scan_s / redact_s:.2f}x |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every 5th case, 400 source files")
    args = parser.parse_args()
    if not EVAL.is_dir():
        print(f"note: {EVAL} not found; secrets benchmark skipped")
        return 0
    for line in rows(args.quick):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
