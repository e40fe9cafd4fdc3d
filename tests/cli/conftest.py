from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from mixle_cli.app import app


class Result:
    def __init__(self, exit_code: int, stdout: str, stderr: str) -> None:
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr

    def json(self) -> Any:
        return orjson.loads(self.stdout)

    def jsonl(self) -> list[Any]:
        return [orjson.loads(line) for line in self.stdout.splitlines() if line.strip()]


@pytest.fixture
def mixle() -> Callable[..., Result]:
    """Run ``mixle ARGS`` in-process; stdout and stderr are kept apart."""
    runner = CliRunner()

    def run(*args: str, input: str | bytes | None = None) -> Result:
        result = runner.invoke(app, list(args), input=input, catch_exceptions=False)
        return Result(result.exit_code, result.stdout, result.stderr)

    return run


@pytest.fixture
def mixle_bin() -> str:
    """The installed ``mixle`` command, for tests that need a whole process."""
    return str(Path(sys.executable).with_name("mixle"))


@pytest.fixture
def mixle_process(mixle_bin: str) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run ``mixle ARGS`` as a whole process, as a user does: its own handling of stderr,
    exit codes and signals, which an in-process run does not go through."""

    def run(*args: str, **options: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.run([mixle_bin, *args], capture_output=True, text=True, **options)

    return run


@pytest.fixture
def waits_for_a_lock() -> Callable[[int], bool]:
    """Whether a task of a process sleeps on a file lock (Linux's wchan): a test holding a lock
    sees a command wait for it, rather than guessing with a sleep."""

    def waits(pid: int) -> bool:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                if "lock" in (task / "wchan").read_text():
                    return True
        return False

    return waits
