"""The spinner long sweeps show on a terminal, and nothing where stderr is no terminal."""

from __future__ import annotations

import io

import pytest

from mixle_cli import output


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("terminal", [True, False])
def test_a_sweep_shows_what_it_does_on_a_terminal_only(
    monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    stream = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    monkeypatch.setenv("TERM", "xterm")
    with output.working("auditing the shard"):
        pass
    assert ("auditing the shard" in stream.getvalue()) is terminal
