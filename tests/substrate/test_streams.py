"""Reading a stream no further than a limit."""

from __future__ import annotations

import io

import pytest

from substrate.streams import read_within


class _Terminal(io.RawIOBase):
    """A terminal's input: each read gives what was typed until Ctrl-D, and then waits for
    more (its end of input holds for one read only)."""

    def __init__(self, typed: list[bytes]) -> None:
        self.typed = typed

    def isatty(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if not self.typed:
            raise AssertionError("waited for a second Ctrl-D")
        return self.typed.pop(0)


def test_one_ctrl_d_ends_a_terminal_s_input() -> None:
    assert read_within(_Terminal([b"cafe menu\n"]), 1000) == b"cafe menu\n"  # type: ignore[arg-type]


def test_a_pipe_s_short_reads_are_read_on_to_its_end() -> None:
    class Pipe(_Terminal):
        def isatty(self) -> bool:
            return False

    assert read_within(Pipe([b"ab", b"cd", b""]), 1000) == b"abcd"  # type: ignore[arg-type]
    assert read_within(Pipe([b"abcd", b"ef"]), 3) == b"abcd"  # type: ignore[arg-type]
    with pytest.raises(AssertionError):  # (the stand-in's own check: it is read on)
        read_within(Pipe([b"ab"]), 1000)  # type: ignore[arg-type]
