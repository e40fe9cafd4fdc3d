"""Whole-process speed of `mixle scan-secrets` beside detect-secrets, same files, same run.

1. As a pre-commit hook: `mixle scan-secrets FILES` and `detect-secrets-hook FILES` on ten
   typical (median-sized) and ten large standard-library modules; median wall time of fresh
   processes, interleaved so both see the same machine load.
2. Throughput over a tree: the standard-library sources (all of them, or 400 files with
   --quick) as a git repository; `mixle scan-secrets --all` beside `detect-secrets scan`
   (both read the files git tracks, and both use every core).

Both tools run with a bytecode cache, as after a normal install (PYTHONDONTWRITEBYTECODE is
cleared and PYTHONPYCACHEPREFIX points at a scratch folder). When the hook median is over
150 ms, or with --profile, it also prints where mixle's time goes.

Run: .venv/bin/python tests/bench/bench_secrets_cli.py [--quick] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]
BIN = Path(sys.executable).parent
STDLIB = Path(sysconfig.get_paths()["stdlib"])
BUDGET_S = 0.150
# The `mixle` console script, run through this interpreter (so the bytecode cache settings hold).
BOOT = "import sys; sys.argv[0] = 'mixle'; from mixle_cli.app import main; main()"


def environment(scratch: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    env["MIXLE_SHARD"] = str(scratch / "no-shard")  # no user settings, and none is created
    env["PYTHONPATH"] = str(ROOT)
    return env


def mixle_command(env: dict[str, str]) -> tuple[list[str], str]:
    """`mixle scan-secrets` as installed, or through a bootstrap until the app registers it."""
    exe = BIN / "mixle"
    if exe.exists():
        probe = subprocess.run(
            [str(exe), "scan-secrets", "--help"], env=env, capture_output=True, check=False
        )
        if probe.returncode == 0:
            return [str(exe), "scan-secrets"], "the installed `mixle` script"
    return [sys.executable, "-c", BOOT, "scan-secrets"], (
        "a `python -c` bootstrap (no `mixle` script beside this interpreter)"
    )


def top_level_modules() -> list[Path]:
    return sorted(STDLIB.glob("*.py"), key=lambda p: (p.stat().st_size, p.name))


def file_sets() -> dict[str, list[Path]]:
    mods = top_level_modules()
    mid = len(mods) // 2
    return {"10 typical modules": mods[mid - 5 : mid + 5], "10 large modules": mods[-10:]}


def size_mb(paths: list[Path]) -> float:
    return sum(p.stat().st_size for p in paths) / 1e6


def run(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, int, bytes]:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - start, proc.returncode, proc.stdout


def interleaved(
    commands: dict[str, list[str]], n: int, env: dict[str, str], cwd: Path
) -> dict[str, tuple[float, int]]:
    """Median seconds and the exit code of each command, runs alternating (one warm-up each)."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    codes: dict[str, int] = {}
    for argv in commands.values():
        run(argv, env, cwd)
    for _ in range(n):
        for name, argv in commands.items():
            seconds, codes[name], _ = run(argv, env, cwd)
            times[name].append(seconds)
    return {name: (statistics.median(ts), codes[name]) for name, ts in times.items()}


def hook_table(mixle: list[str], env: dict[str, str], scratch: Path, n: int) -> list[float]:
    peer = BIN / "detect-secrets-hook"
    print("| files | KB | mixle median ms | mixle exit | detect-secrets-hook median ms | exit "
          "| ratio |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    medians = []
    for label, paths in file_sets().items():
        args = [str(p) for p in paths]
        commands = {"mixle": [*mixle, "-q", *args]}
        if peer.exists():
            commands["peer"] = [str(peer), *args]
        got = interleaved(commands, n, env, scratch)
        mine, mine_code = got["mixle"]
        medians.append(mine)
        if "peer" in got:
            theirs, their_code = got["peer"]
            peer_cells = f"{theirs * 1000:.0f} | {their_code} | {theirs / mine:.1f}x"
        else:
            peer_cells = "- | - | -"
        print(f"| {label} | {size_mb(paths) * 1000:.0f} | {mine * 1000:.0f} | {mine_code} "
              f"| {peer_cells} |")  # fmt: skip
    return medians


def build_tree(scratch: Path, quick: bool, env: dict[str, str]) -> tuple[Path, list[Path]]:
    files = sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts)
    if quick:
        files = files[:400]
    repo = scratch / "tree"
    for src in files:
        dst = repo / src.relative_to(STDLIB)
        dst.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(src, dst)  # same bytes, no copy
        except OSError:
            shutil.copyfile(src, dst)
    subprocess.run(["git", "init", "-q"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    return repo, files


def count_mixle(stdout: bytes) -> str:
    try:
        return str(json.loads(stdout)["n_findings"])
    except (ValueError, KeyError):
        return "?"


def count_peer(stdout: bytes) -> str:
    try:
        return str(sum(len(v) for v in json.loads(stdout)["results"].values()))
    except (ValueError, KeyError, AttributeError):
        return "?"


def tree_table(mixle: list[str], env: dict[str, str], scratch: Path, quick: bool) -> None:
    if shutil.which("git") is None:
        print("note: git is not installed; tree throughput skipped")
        return
    repo, files = build_tree(scratch, quick, env)
    mb = size_mb(files)
    cores = os.cpu_count() or 1
    print("| tree | files | MB | tool | seconds | MB/s | findings | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    run([*mixle, "-q", "--all", "--json"], env, repo)  # warm the bytecode cache
    mine, _, out = run([*mixle, "-q", "--all", "--json"], env, repo)
    one, _, _ = run([*mixle, "-q", "--all", "--json", "-j", "1"], env, repo)
    label = f"stdlib sources{' (400 files)' if quick else ''}"
    rows = [(f"mixle scan-secrets --all (auto: {cores} cores)", mine, count_mixle(out)),
            ("mixle scan-secrets --all -j 1", one, count_mixle(out))]  # fmt: skip
    peer = BIN / "detect-secrets"
    theirs = None
    if peer.exists():
        theirs, _, out = run([str(peer), "scan"], env, repo)
        rows.append(("detect-secrets scan (all cores)", theirs, count_peer(out)))
    for tool, seconds, found in rows:
        ratio = f"{theirs / seconds:.1f}x" if theirs and not tool.startswith("detect") else "-"
        print(f"| {label} | {len(files)} | {mb:.1f} | {tool} | {seconds:.2f} "
              f"| {mb / seconds:.1f} | {found} | {ratio} |")  # fmt: skip


_PHASES = """
import json, sys, time
t0 = time.perf_counter()
from mixle_cli.app import build_app
app = build_app(["secrets"])
import typer.main
build = []
get_command = typer.main.get_command
def timed(a):
    t = time.perf_counter(); cmd = get_command(a); build.append(time.perf_counter() - t)
    return cmd
typer.main.get_command = timed
t1 = time.perf_counter()
prof = None
if sys.argv[1] == 'profile':
    import cProfile
    prof = cProfile.Profile()
    prof.enable()
try:
    app(['scan-secrets', '-q', *sys.argv[2:]], standalone_mode=False)
except SystemExit:
    pass
t2 = time.perf_counter()
table = ''
if prof is not None:
    import io, pstats
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats('tottime').print_stats(12)
    table = out.getvalue()
print(json.dumps({'app_import': t1 - t0, 'build': build[0] if build else 0.0,
                  'command': t2 - t1, 'profile': table}))
"""


def _phases(mode: str, args: list[str], env: dict[str, str], cwd: Path) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", _PHASES, mode, *args], env=env, cwd=cwd,
                          capture_output=True, text=True, check=False)  # fmt: skip
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def profile(paths: list[Path], env: dict[str, str], scratch: Path) -> None:
    """Where a hook run's time goes: start-up, imports, building the commands, the scan."""
    args = [str(p) for p in paths]
    bare = statistics.median(run([sys.executable, "-c", "pass"], env, scratch)[0] for _ in range(5))
    _phases("time", args, env, scratch)  # warm the bytecode cache
    runs = [_phases("time", args, env, scratch) for _ in range(5)]
    phase = {k: statistics.median(r[k] for r in runs) for k in ("app_import", "build", "command")}
    print("")
    print("where the time goes (10 large modules; medians of 5 runs):")
    print(f"- interpreter start-up (`python -c pass`): {bare * 1000:.0f} ms")
    print(f"- import mixle_cli.app (typer, rich, every command module): "
          f"{phase['app_import'] * 1000:.0f} ms")  # fmt: skip
    print(f"- Typer building the click command tree (every registered command): "
          f"{phase['build'] * 1000:.0f} ms")  # fmt: skip
    print(f"- scan-secrets itself (config, scan, output): "
          f"{(phase['command'] - phase['build']) * 1000:.0f} ms")  # fmt: skip
    imports = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import mixle_cli.app"],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    rows = []
    for line in imports.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            name = parts[2].rstrip()
            depth = (len(name) - len(name.lstrip())) // 2
            if depth <= 1:
                rows.append((int(parts[1]), name.strip(), depth))
    rows.sort(reverse=True)
    print("- heaviest imports under `import mixle_cli.app` (-X importtime, cumulative ms):")
    for micros, name, depth in rows[:10]:
        print(f"  - {'  ' * depth}{name}: {micros / 1000:.1f}")
    print("- cProfile of the command, by own time:")
    for line in _phases("profile", args, env, scratch)["profile"].splitlines():
        if "/" in line or "{" in line:
            print(f"      {line.strip()[:150]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs, 400-file tree")
    parser.add_argument("--profile", action="store_true", help="always show where time goes")
    args = parser.parse_args()
    if not (BIN / "detect-secrets-hook").exists():
        print("note: detect-secrets is not installed (.venv/bin/pip install detect-secrets); "
              "mixle figures only")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-secrets-cli-") as tmp:
        scratch = Path(tmp)
        env = environment(scratch)
        mixle, how = mixle_command(env)
        print(f"mixle runs as {how}; {os.cpu_count()} cores; Python {sys.version.split()[0]}")
        print("")
        medians = hook_table(mixle, env, scratch, 5 if args.quick else 11)
        print("")
        tree_table(mixle, env, scratch, args.quick)
        if args.profile or max(medians) > BUDGET_S:
            profile(file_sets()["10 large modules"], env, scratch)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
