"""Texts that spell their characters another way, scanned as readers read them.

JSON writers may escape every slash (PHP's ``json_encode``, many loggers):
``https:\\/\\/hooks.slack.com\\/services\\/…`` is a webhook to whoever reads the line, but the
rules spell ``/`` and match none of it. Full-width forms (``ＡＫＩＡ…``, typed with an East
Asian input method) are the ASCII characters to a reader, and to the search index, which folds
them. A text that holds either is also scanned in its plain spelling, and what is found there
is mapped back onto the text's own characters.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the engine calls this module
    from substrate.secrets.engine import Hit

# The full-width forms of the printable ASCII characters, one to one: ``！`` to ``～``.
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
_ANY_FULL_WIDTH = re.compile("[\uff01-\uff5e]")
_ESCAPED_SLASH = re.compile(r"\\/")


def may_respell(text: str) -> bool:
    """Whether ``text`` spells a character another way (False is exact)."""
    if "\\/" in text:
        return True
    return not text.isascii() and _ANY_FULL_WIDTH.search(text) is not None


def plain_spelling(text: str) -> str:
    """``text`` with full-width forms as ASCII characters and escaped slashes as slashes."""
    return _plain(text)[0]


def respelled_hits(text: str, syntax: str, scan: Callable[[str, str], list[Hit]]) -> list[Hit]:
    """The secrets ``scan`` finds in the plain spelling of ``text``, placed in ``text``."""
    plain, slashes = _plain(text)
    if plain == text:
        return []
    return [_placed(hit, slashes) for hit in scan(plain, syntax)]


def _plain(text: str) -> tuple[str, list[int]]:
    """``plain_spelling`` of ``text``, and where each escaped slash lies in it."""
    plain = text.translate(_FULL_WIDTH)  # one character for one: the offsets stand
    slashes: list[int] = []
    if "\\/" in plain:
        pieces = _ESCAPED_SLASH.split(plain)
        at = -1
        for piece in pieces[:-1]:
            at += len(piece) + 1
            slashes.append(at)
        plain = "/".join(pieces)
    return plain, slashes


def _placed(hit: Hit, slashes: list[int]) -> Hit:
    """``hit``, found in the plain spelling, with its offsets in the text: each escaped slash
    before an offset stood one character further on, after its backslash."""
    if not slashes:
        return hit

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
