"""Development sessions: tests, lint, typecheck, smoke, bench (bench is not run by default)."""

from __future__ import annotations

import glob

import nox

nox.options.sessions = ["tests", "lint", "typecheck", "smoke"]
nox.options.reuse_existing_virtualenvs = True

BENCH_EXTRAS = ["bm25s", "PyStemmer", "detect-secrets", "psutil"]


@nox.session
def tests(session: nox.Session) -> None:
    """The test suite."""
    session.install("-e", ".[dev]")
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check."""
    session.install("ruff")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict over both packages."""
    session.install("-e", ".[dev]")
    session.run("mypy")


@nox.session
def smoke(session: nox.Session) -> None:
    """Install with runtime dependencies only, then run the command end to end."""
    session.install(".")
    shard = session.create_tmp() + "/smoke-shard"
    session.run("mixle", "--help", silent=True)
    session.run("mixle", "--shard", shard, "init")
    session.run("mixle", "--shard", shard, "ingest", "fixtures/sample-notes")
    session.run("mixle", "--shard", shard, "ask", "How long do refunds for defective items take?")
    session.run("mixle", "--shard", shard, "add", "The smoke test checks that mixle runs.")
    session.run("mixle", "--shard", shard, "ls")
    session.run("mixle", "--shard", shard, "status")


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks against peers measured in the same run (slow; pass --quick for a short run)."""
    session.install("-e", ".[dev]", *BENCH_EXTRAS)
    scripts = session.posargs and [a for a in session.posargs if a.endswith(".py")]
    flags = [a for a in session.posargs if not a.endswith(".py")]
    for script in scripts or sorted(glob.glob("tests/bench/bench_*.py")):
        session.run("python", script, *flags)
