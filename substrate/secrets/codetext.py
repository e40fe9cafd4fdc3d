"""Where source code holds text: string literals and comments.

In code, ``password = value`` with an unquoted value is an assignment of an expression (a
variable, a call), not of a secret. Inside a string literal or a comment it is text again:
``"Server=db;User ID=sa;Password=Xk92LmQp7RtVz4Wn;"``, ``["--password=Qm7Zx2Lp9Wv4Rt8K"]``,
``# prod password=Hj3kL9mN2pQ8rS5t``, a docstring line ``password: Pz4Lk8Jh2Gf6Ds1A``.
``in_text`` tells, for a place in code, whether the scanner must read it as text.

The look is a light one, no parser: a literal opened and closed on one line; a comment opened
by ``//``, ``/*`` or ``# `` (a hash then a space, as Python, Ruby, shell and HCL comments are
written; ``#define`` and ``#[derive]`` are no comments); and the blocks that span lines,
triple-quoted strings and ``/* ... */`` comments. A text's blocks are found in one pass over
it, and a line's spans once, when a place on it is first asked about (remembered for the few
texts scanned last): a minified line of a thousand assignments is read once, not once each.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from functools import lru_cache

# What opens a span
_OPEN = re.compile(r'"""|\'\'\'|["\'`]|//|/\*|#')
# The rest of a one-line literal, to its closing quote (an escaped one passed over)
_REST = {q: re.compile(rf"(?:[^{q}\\\n]|\\.)*+{q}", re.DOTALL) for q in "\"'`"}
_REST['"""'] = re.compile(r'.*?"""')
_REST["'''"] = re.compile(r".*?\'\'\'")
_BREAK = re.compile(r"\n")  # (one search over the text finds every line's end)
# What opens a block that may span lines, and what closes it
_BLOCK_MARK = re.compile(r'"""|\'\'\'|/\*')
_BLOCK_END = {'"""': '"""', "'''": "'''", "/*": "*/"}


def in_text(code: str, at: int) -> bool:
    """Whether offset ``at`` of ``code`` lies inside a string literal or a comment."""
    return _Code.of(code).in_text(at)


class _Code:
    """A text's blocks that span lines, and the spans of each line asked about."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.breaks = [m.start() for m in _BREAK.finditer(code)]  # where each line ends
        self.lines: dict[int, tuple[list[int], list[int]]] = {}  # by the line's start
        self.blocks = self._block_spans()

    @staticmethod
    @lru_cache(maxsize=4)
    def of(code: str) -> _Code:
        return _Code(code)

    def in_text(self, at: int) -> bool:
        if _inside(self.blocks, at):
            return True
        start = self.line_start(at)
        return _inside(self.line_spans(start), at - start)

    def line_start(self, at: int) -> int:
        k = bisect_left(self.breaks, at)
        return self.breaks[k - 1] + 1 if k else 0

    def line_spans(self, start: int) -> tuple[list[int], list[int]]:
        spans = self.lines.get(start)
        if spans is None:
            k = bisect_left(self.breaks, start)
            end = self.breaks[k] if k < len(self.breaks) else len(self.code)
            spans = self.lines[start] = _line_spans(self.code[start:end])
        return spans

    def _block_spans(self) -> tuple[list[int], list[int]]:
        """The spans of the triple-quoted strings and block comments that span lines, in
        order; one left open runs to the end. A mark inside a line's literal or comment, or
        one closed on its own line, opens nothing."""
        code = self.code
        starts: list[int] = []
        ends: list[int] = []
        pos = 0
        while (m := _BLOCK_MARK.search(code, pos)) is not None:
            begin = m.start()
            line_start = self.line_start(begin)
            spans = self.line_spans(line_start)
            if _inside(spans, begin - line_start) or _starts(spans, begin - line_start):
                pos = m.end()
                continue
            closer = _BLOCK_END[m.group()]
            end = _find(code, closer, m.end(), missing=len(code) - len(closer)) + len(closer)
            starts.append(begin)
            ends.append(end)
            pos = end
        return starts, ends


def _inside(spans: tuple[list[int], list[int]], at: int) -> bool:
    starts, ends = spans
    k = bisect_right(starts, at) - 1
    return k >= 0 and at < ends[k]


def _starts(spans: tuple[list[int], list[int]], at: int) -> bool:
    starts = spans[0]
    k = bisect_right(starts, at) - 1
    return k >= 0 and starts[k] == at


def _line_spans(line: str) -> tuple[list[int], list[int]]:
    """The starts and ends of the literals and comments of one ``line``, in order: a comment
    runs to the line's end, a literal must close on it (one left open is none: an apostrophe
    in code, a Rust lifetime; the rest of the line is passed over, as it is after a block
    that spans lines)."""
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    while (m := _OPEN.search(line, pos)) is not None:
        mark, begin = m.group(), m.start()
        if mark == "#" and not _hash_comment(line, begin):
            pos = m.end()
            continue
        if mark in ("//", "#"):
            end = len(line)
        elif mark == "/*":
            end = line.find("*/", m.end()) + 2
            if end == 1:  # a block comment that spans lines: ``_block_spans`` has it
                break
        else:
            rest = _REST[mark].match(line, m.end())
            if rest is None:
                break
            end = rest.end()
        starts.append(begin)
        ends.append(end)
        pos = end
    return starts, ends


def _find(text: str, what: str, start: int, *, missing: int) -> int:
    found = text.find(what, start)
    return missing if found == -1 else found


def _hash_comment(code: str, i: int) -> bool:
    """A ``#`` at a line's start or after white space, followed by white space."""
    if i and code[i - 1] not in " \t\n":
        return False
    return i + 1 == len(code) or code[i + 1] in " \t\n"
