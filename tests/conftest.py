"""Every test runs against throw-away shards: no test may touch a real user shard."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def never_the_real_home() -> None:
    """Defence in depth: even a test that undoes its monkeypatching cannot reach a real shard."""
    home = tempfile.mkdtemp(prefix="mixle-test-home-")
    os.environ["HOME"] = home
    os.environ["XDG_DATA_HOME"] = os.path.join(home, ".local", "share")
    os.environ.pop("MIXLE_SHARD", None)


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
