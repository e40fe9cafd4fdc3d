"""The spinner long sweeps show on a terminal, and nothing where stderr is no terminal."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator

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


@pytest.mark.parametrize(
    ("command", "told"),
    [
        (("audit",), "auditing lineage"),
        (("freshness",), "checking each item"),
        (("scan-secrets", "--items"), "scanning the shard's items"),
    ],
)
def test_a_sweep_shows_no_spinner_under_json(
    mixle, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...], told: str
) -> None:
    # (the architecture's rule: progress never under --json, --jsonl or --quiet)
    mixle("add", "refunds take 30 days")
    asked: list[bool] = []

    @contextlib.contextmanager
    def working(what: str, *, shown: bool = True) -> Iterator[None]:
        assert told in what
        asked.append(shown)
        yield

    monkeypatch.setattr(output, "working", working)
    mixle(*command)
    for quiet in ("--json", "--jsonl", "--quiet"):
        result = mixle(*command, quiet)
        if result.exit_code == 2:  # (an option the command does not take)
            assert "No such option" in result.stderr
            asked.append(False)
    assert asked == [True, False, False, False]
