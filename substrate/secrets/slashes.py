"""Texts that escape their slashes, scanned as readers read them.

JSON writers may escape every slash (PHP's ``json_encode``, many loggers):
``https:\\/\\/hooks.slack.com\\/services\\/…`` is a webhook to whoever reads the line, but the
rules spell ``/`` and match none of it. A text that escapes a slash is also scanned with its
slashes plain, and what is found there is mapped back onto the text's own characters.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the engine calls this module
    from substrate.secrets.hits import Hit


def escapes_slashes(text: str) -> bool:
    """Whether ``text`` escapes a slash (False is exact)."""
    return "\\/" in text


def plain_slashes(text: str) -> str:
    """``text`` with its escaped slashes as slashes."""
    return text.replace("\\/", "/")


def hits_with_plain_slashes(
    text: str, syntax: str, scan: Callable[[str, str], list[Hit]]
) -> list[Hit]:
    """The secrets ``scan`` finds in ``text`` with its slashes plain, placed in ``text``."""
    if not escapes_slashes(text):
        return []
    pieces = text.split("\\/")
    slashes = []  # where each escaped slash lies once plain
    at = -1
    for piece in pieces[:-1]:
        at += len(piece) + 1
        slashes.append(at)
    return [_placed(hit, slashes) for hit in scan("/".join(pieces), syntax)]


def _placed(hit: Hit, slashes: list[int]) -> Hit:
    """``hit``, found with the slashes plain, with its offsets in the text: each escaped slash
    before an offset stood one character further on, after its backslash."""

    def start(at: int) -> int:
        return at + bisect.bisect_right(slashes, at)

    def end(at: int) -> int:  # just after the last character: after its place in the text
        return start(at - 1) + 1 if at else 0

    return replace(
        hit,
        start=start(hit.start),
        end=end(hit.end),
        match_start=start(hit.match_start),
        match_end=end(hit.match_end),
    )
