"""Texts that write some characters otherwise than their readers see them, scanned as read.

JSON writers may escape every slash (PHP's ``json_encode``, many loggers):
``https:\\/\\/hooks.slack.com\\/services\\/…`` is a webhook to whoever reads the line.
Markdown writers escape underscores (``sk\\_live\\_…``, as Pandoc and many editors save a
token). Text copied from a wiki, a document or a chat holds no-break spaces (``password:``
then U+00A0) and zero-width ones. The rules spell ``/``, ``_`` and a plain space, and match
none of these. A text that holds one is also scanned as read: the escapes undone, a no-break
space a space, a zero-width one gone; what is found there is mapped back onto the text's own
characters (and where both readings find parts of one secret, the engine masks both as one).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from substrate.secrets.hits import shifted_hit
from substrate.secrets.rules import MAX_KEY_BLOCK

if TYPE_CHECKING:
    from substrate.secrets.hits import Hit

_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
_NO_BREAK_SPACES = "\u00a0\u2007\u202f"
# An underscore escaped inside a word, as in a token or a key's name (``sk\_live\_…``,
# ``DB\_PASSWORD``), not one a pattern in code escapes (``[\w\_]``)
_ESCAPED_UNDERSCORE = r"(?<=[A-Za-z0-9])\\(?=_[A-Za-z0-9])"
# What reads otherwise than written: an escaping backslash, a zero-width or no-break space
_OTHERWISE = re.compile(rf"\\/|{_ESCAPED_UNDERSCORE}|[{_ZERO_WIDTH}{_NO_BREAK_SPACES}]")
# What a reader does not see: an escaping backslash, a zero-width space
_UNSEEN = re.compile(rf"\\(?=/)|{_ESCAPED_UNDERSCORE}|[{_ZERO_WIDTH}]")
_WIDE_SPACES = re.compile(f"[{_ZERO_WIDTH}{_NO_BREAK_SPACES}]")
_AS_SPACES = str.maketrans(dict.fromkeys(_NO_BREAK_SPACES, " "))


def reads_otherwise(text: str) -> bool:
    """Whether ``text`` reads otherwise than it is written (False is exact)."""
    # (substring searches first, and a flag: most texts are ASCII and escape nothing)
    if "\\/" in text:
        return True
    if "\\_" in text and _OTHERWISE.search(text) is not None:
        return True
    return not text.isascii() and _WIDE_SPACES.search(text) is not None


def as_read(text: str) -> str:
    """``text`` as its readers read it."""
    return _UNSEEN.sub("", text).translate(_AS_SPACES)


# Lines read on either side of one that reads otherwise: as many as a value may stand below
# its label (with a blank line between) or a sentence run on
AROUND_LINES = 3
# A text up to this long is read whole: its lines are few
_READ_WHOLE = 4096
# What a key block's BEGIN and END lines hold: read otherwise, the block is read as far as
# the longest one reaches
_ARMOR = "-----"


def hits_as_read(text: str, syntax: str, scan: Callable[[str, str], list[Hit]]) -> list[Hit]:
    """The secrets ``scan`` finds in ``text`` as read, placed in ``text``: in the lines around
    those that read otherwise (a long text may hold one such character in a thousand lines)."""
    if not reads_otherwise(text):
        return []
    if len(text) <= _READ_WHOLE:
        return _read_in(text, syntax, scan)
    hits: list[Hit] = []
    for start, end in _around(text):
        hits += [shifted_hit(hit, start) for hit in _read_in(text[start:end], syntax, scan)]
    return hits


def _read_in(text: str, syntax: str, scan: Callable[[str, str], list[Hit]]) -> list[Hit]:
    unseen = []  # where, once read, each character after one unseen lies
    for gone, m in enumerate(_UNSEEN.finditer(text)):
        unseen.append(m.start() - gone)
    return [_placed(hit, unseen) for hit in scan(as_read(text), syntax)]


def _around(text: str) -> list[tuple[int, int]]:
    """The stretches of whole lines, ``AROUND_LINES`` on either side of each line that reads
    otherwise, those that touch joined."""
    spans: list[tuple[int, int]] = []
    found = _OTHERWISE.search(text)
    while found is not None:
        start = end = found.start()
        for _ in range(AROUND_LINES + 1):
            start = text.rfind("\n", 0, max(start - 1, 0)) + 1 if start else 0
        for _ in range(AROUND_LINES + 1):
            end = text.find("\n", end) + 1 or len(text)
        if _ARMOR in text[start:end]:  # a key block's armor line: the whole block, either way
            start = text.rfind("\n", 0, max(start - MAX_KEY_BLOCK, 0)) + 1
            end = text.find("\n", min(end + MAX_KEY_BLOCK, len(text))) + 1 or len(text)
        if spans and start <= spans[-1][1]:
            start = spans.pop()[0]
        spans.append((start, end))  # (an end never falls back: each line ends further on)
        # on from the next line: a long line holding thousands is measured once, not each time
        found = _OTHERWISE.search(text, text.find("\n", found.start()) + 1 or len(text))
    return spans


def _placed(hit: Hit, unseen: list[int]) -> Hit:
    """``hit``, found in the text as read, with its offsets in the text: each character
    unseen before an offset moves it one character on."""

    def start(at: int) -> int:
        return at + bisect.bisect_right(unseen, at)

    def end(at: int) -> int:  # just after the last character: after its place in the text
        return start(at - 1) + 1 if at else 0

    return replace(
        hit,
        start=start(hit.start),
        end=end(hit.end),
        match_start=start(hit.match_start),
        match_end=end(hit.match_end),
    )
