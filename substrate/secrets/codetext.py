"""Where source code holds text: string literals and comments.

In code, ``password = value`` with an unquoted value is an assignment of an expression (a
variable, a call), not of a secret. Inside a string literal or a comment it is text again:
``"Server=db;User ID=sa;Password=Xk92LmQp7RtVz4Wn;"``, ``["--password=Qm7Zx2Lp9Wv4Rt8K"]``,
``# prod password=Hj3kL9mN2pQ8rS5t``, a docstring line ``password: Pz4Lk8Jh2Gf6Ds1A``.
``in_text`` tells, for a place in code, whether the scanner must read it as text.

The look is a light one, no parser: a literal opened on the line before the place and closed
on it after; a comment opened by ``//``, ``/*`` or ``# `` (a hash then a space, as Python,
Ruby, shell and HCL comments are written; ``#define`` and ``#[derive]`` are no comments); and
the blocks that span lines, triple-quoted strings and ``/* ... */`` comments.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

_QUOTES = "\"'`"
# What opens or closes a block spanning lines
_BLOCK_MARK = re.compile(r'"""|\'\'\'|/\*')
_BLOCK_END = {'"""': '"""', "'''": "'''", "/*": "*/"}


def in_text(code: str, at: int) -> bool:
    """Whether offset ``at`` of ``code`` lies inside a string literal or a comment."""
    start = code.rfind("\n", 0, at) + 1
    end = code.find("\n", at)
    line = code[start : len(code) if end == -1 else end]
    return _in_line_text(line, at - start) or _in_block(code, at)


def _in_line_text(line: str, at: int) -> bool:
    """Whether ``at`` lies in a comment of ``line``, or in a literal opened before it and
    closed after it on the line."""
    state = _state_at(line, at)
    return state == _COMMENT or (state != "" and _closes(line, at, state))


_COMMENT = "comment"


def _state_at(line: str, at: int) -> str:
    """What ``at`` of ``line`` lies in, as far as the line before it tells: a comment
    (``_COMMENT``), a literal (its quote), or neither ("")."""
    quote = ""
    pos = 0
    while (m := _MARKS.search(line, pos, at)) is not None:
        mark, pos = m.group(), m.end()
        if quote:  # an escape, or another mark inside the literal, is passed over
            if mark == quote:
                quote = ""
        elif mark in _QUOTES:
            quote = mark
        elif mark == "//" or (mark == "#" and _hash_comment(line, m.start())):
            return _COMMENT
        elif mark == "/*":
            close = line.find("*/", pos)
            if close == -1 or close >= at:
                return _COMMENT
            pos = close + 2
    return quote


# What changes what a line is in: an escaped character, a quote, a comment's opening
_MARKS = re.compile(r"\\.|[\"'`]|//|/\*|#")


def _hash_comment(line: str, i: int) -> bool:
    """A ``#`` at the line's start or after white space, followed by white space."""
    if line[i] != "#" or (i and line[i - 1] not in " \t"):
        return False
    return i + 1 == len(line) or line[i + 1] in " \t"


def _closes(line: str, at: int, quote: str) -> bool:
    """Whether an unescaped ``quote`` follows ``at`` on ``line``."""
    i = at
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] == quote:
            return True
        i += 1
    return False


def _in_block(code: str, at: int) -> bool:
    spans = _block_spans(code)
    k = bisect_right(spans, (at, len(code) + 1)) - 1
    return k >= 0 and spans[k][0] < at < spans[k][1]


@lru_cache(maxsize=4)
def _block_spans(code: str) -> list[tuple[int, int]]:
    """The spans of ``code``'s triple-quoted strings and block comments, in order; one left
    open runs to the end. (A mark inside a line's literal or comment opens nothing.)"""
    spans: list[tuple[int, int]] = []
    pos = 0
    while (m := _BLOCK_MARK.search(code, pos)) is not None:
        start = m.start()
        line_start = code.rfind("\n", 0, start) + 1
        if _state_at(code[line_start:start], start - line_start):
            pos = m.end()
            continue
        close = code.find(_BLOCK_END[m.group()], m.end())
        end = len(code) if close == -1 else close + len(_BLOCK_END[m.group()])
        spans.append((start, end))
        pos = end
    return spans
