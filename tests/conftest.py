"""Every test runs against throw-away shards (never a real user shard), leaves signal handling
as it found it, and ends the run if it is stuck."""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

import pytest

# A test that runs this long is stuck (the slowest takes seconds): the run ends, with where
# every thread was, instead of waiting for whatever runs the suite to give up on it.
STUCK_TEST_S = 300
_REAL_STDERR = pytest.StashKey[TextIO]()


def pytest_configure(config: pytest.Config) -> None:
    # taken before any test captures the standard error, so that the dump is seen
    config.stash[_REAL_STDERR] = os.fdopen(os.dup(sys.stderr.fileno()), "w")
    # a shell starts a job it puts in the background with Ctrl-C ignored, and every program it
    # runs inherits that: the tests of Ctrl-C, and the programs they start, get the handling
    # a terminal gives them
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def ends_if_stuck(request: pytest.FixtureRequest) -> Iterator[None]:
    faulthandler.dump_traceback_later(
        STUCK_TEST_S, exit=True, file=request.config.stash[_REAL_STDERR]
    )
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(autouse=True)
def signals_left_as_found() -> Iterator[None]:
    """Every test leaves the signal mask and the Ctrl-C and SIGTERM handlers as it found them
    (put back when it does not, so that the harm stays in the test that did it: a Ctrl-C left
    blocked keeps later tests' interrupts from arriving, and their workers from ending)."""
    stops = (signal.SIGINT, signal.SIGTERM)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    handlers = {signum: signal.getsignal(signum) for signum in stops}
    yield
    left = (
        signal.pthread_sigmask(signal.SIG_SETMASK, mask),
        {s: signal.getsignal(s) for s in stops},
    )
    for signum, handler in handlers.items():
        signal.signal(signum, handler)
    assert left == (mask, handlers)


@pytest.fixture(autouse=True, scope="session")
def never_the_real_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Defence in depth: even a test that undoes its monkeypatching cannot reach a real shard.
    The home lies under pytest's own temporary folder, which pytest clears in later runs."""
    home = str(tmp_path_factory.mktemp("home"))
    names = ("HOME", "XDG_DATA_HOME", "MIXLE_SHARD")
    before = {name: os.environ.get(name) for name in names}
    os.environ["HOME"] = home
    os.environ["XDG_DATA_HOME"] = os.path.join(home, ".local", "share")
    os.environ.pop("MIXLE_SHARD", None)
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(autouse=True)
def isolated_shard_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    shard = tmp_path / "shard"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("MIXLE_SHARD", str(shard))
    for name in ("MIXLE_TEAM", "MIXLE_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    return shard


@pytest.fixture
def rewrite_index_meta() -> Callable[..., None]:
    """Change the index metadata of a Parquet file as a writer would (a newer mixle, say),
    checksum included."""
    import json
    import zlib

    import pyarrow.parquet as pq

    from substrate.search.layout import META_KEY

    def rewrite(path: Path, **changes: object) -> None:
        table = pq.read_table(path)
        meta = json.loads(table.schema.metadata[META_KEY])
        meta.pop("crc", None)
        meta.update(changes)
        meta["crc"] = zlib.crc32(json.dumps(meta, sort_keys=True).encode())
        pq.write_table(table.replace_schema_metadata({META_KEY: json.dumps(meta).encode()}), path)

    return rewrite
