"""Secrets written as several string literals that the language joins into one.

Code splits long strings over lines: ``("ghp_Zq8X…"`` then ``"c1Pd…")`` in Python, ``"AKIA…" +``
then ``"…"`` in JavaScript, a backslash continuation in either; Python and C also join literals
that only blanks part on one line (``"Zq8X" "c1Pd"``). No piece alone looks like the
credential, so each would be stored readable. The pieces of such a run are joined and the
joined value scanned after the left-hand side of its first line; a secret found there is
masked in every piece it covers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the engine calls this module
    from substrate.secrets.hits import Hit

# What may stand between two literals the language joins: a line break (after an optional
# "+" and an optional backslash, before an optional "+"), a "+" on the same line, or blanks
# alone (Python and C join "ab" "cd"). Each run of blanks is matched once by each
# alternative: two patterns for one run in a row would make a long run of spaces cost time
# quadratic in its length.
_GAP = r"[ \t]*(?:\+[ \t]*)?(?:\\[ \t]*)?\r?\n[ \t]*(?:\+[ \t]*)?|[ \t]*\+[ \t]*|[ \t]+"
# A string literal, perhaps with a prefix (f"...", r'...'). Its opening quote is no escaped
# one: tried from each quote of a long run of them ("\"\"\"..."), it would read to the run's
# end every time, and a scan of that line would take time quadratic in its length. Its plain
# characters are taken a run at a time, never given back: one at a time, each kept a state
# of the matcher's (a literal of 2 MB took 268 MB).
_LITERAL = r"""[rRbBuUfF]{0,2}(?<!\\)(?:"(?:[^"\\\n]++|\\.)*+"|'(?:[^'\\\n]++|\\.)*+')"""
_JUNCTION = re.compile(rf"[\"'](?:{_GAP})[rRbBuUfF]{{0,2}}[\"']")
_LITERAL_RE = re.compile(_LITERAL)
_RUN = re.compile(rf"(?:{_LITERAL})(?:(?:{_GAP})(?:{_LITERAL}))+")
# Joined values shorter than this hold no credential worth a second scan
_MIN_JOINED = 8
# A gap of blanks alone
_BLANKS = re.compile(r"[ \t]+")
# The most of a line read before a joined value: its key and operator ("db_password = ")
_LEAD_CHARS = 200


def may_join(text: str) -> bool:
    """Whether ``text`` may hold literals joined across a gap (False is exact)."""
    # a junction opens and closes on quotes: most texts hold none, found by a C search
    return ('"' in text or "'" in text) and _JUNCTION.search(text) is not None


def joined_hits(text: str, syntax: str, scan: Callable[[str, str], list[Hit]]) -> list[Hit]:
    """The secrets of the joined values of ``text``'s runs of literals, one hit per piece they
    cover, found with ``scan`` (a ``find_secrets`` that does not look for joined literals).

    Literals that only blanks part may be values side by side as well (a shell's arguments,
    ``"aws" "AKIA…"``): the parts of a run between such gaps are also read on their own, as
    a run that joins across a line break or a ``+`` alone."""
    found: list[Hit] = []
    for run in _RUN.finditer(text):
        literals = list(_LITERAL_RE.finditer(text, *run.span()))
        found += _hits_from(text, literals, syntax, scan)
        cuts = [
            i
            for i in range(1, len(literals))
            if _BLANKS.fullmatch(text, literals[i - 1].end(), literals[i].start())
        ]
        if cuts:
            for first, last in zip([0, *cuts], [*cuts, len(literals)], strict=True):
                if last - first > 1:
                    found += _hits_from(text, literals[first:last], syntax, scan)
    return found


def _hits_from(
    text: str,
    literals: list[re.Match[str]],
    syntax: str,
    scan: Callable[[str, str], list[Hit]],
) -> list[Hit]:
    """The secrets of the value ``literals`` join, read after what leads to the first of them,
    one hit per piece they cover."""
    pieces = [_body(m) for m in literals]
    joined = "".join(text[a:b] for a, b in pieces)
    if len(joined) < _MIN_JOINED:
        return []
    lead = _lead(text, literals[0].start(), pieces[0][0])
    quote = text[pieces[0][0] - 1]
    found: list[Hit] = []
    for hit in scan(lead + joined + quote, syntax):
        found.extend(_in_pieces(hit, hit.start - len(lead), hit.end - len(lead), pieces))
    return found


def _body(literal: re.Match[str]) -> tuple[int, int]:
    """Where the text of a literal lies: between its quotes, after its prefix."""
    text = literal.group()
    return literal.start() + len(text) - len(text.lstrip("rRbBuUfF")) + 1, literal.end() - 1


def _lead(text: str, literal: int, body: int) -> str:
    """What the joined value, whose first literal starts at ``literal`` and its text at
    ``body``, is read after: its line up to the opening quote, and the line before when the
    line holds no more than a bracket before the literal ("PASSWORD = (" above the pieces)."""
    # looked for in the last _LEAD_CHARS only: a minified line holds thousands of runs
    start = _line_start(text, literal)
    lead = text[start:body]
    if start and text[start - 1] == "\n" and not text[start:literal].strip(" \t([{"):
        lead = text[_line_start(text, start - 1) : start - 1] + " " + lead.lstrip()
    return lead


def _line_start(text: str, at: int) -> int:
    """Where the line holding ``at`` starts, or ``_LEAD_CHARS`` before ``at`` if further."""
    window = max(0, at - _LEAD_CHARS)
    return max(text.rfind("\n", window, at) + 1, window)


def _in_pieces(hit: Hit, start: int, end: int, pieces: list[tuple[int, int]]) -> list[Hit]:
    """The parts of ``hit`` (at ``start``-``end`` of the joined value) in the original text,
    one per piece it covers (the one it may lie within was read in the light of the others:
    ``"the password is " +`` then ``"Xk9mPq2vL7Rt"``)."""
    parts: list[Hit] = []
    at = 0
    for a, b in pieces:
        lo, hi = max(start, at), min(end, at + b - a)
        if lo < hi:
            prefix = min(hit.prefix, hi - lo) if not parts else 0
            begin, finish = a + lo - at, a + hi - at
            parts.append(
                replace(
                    hit, start=begin, end=finish, prefix=prefix, match_start=begin, match_end=finish
                )
            )
        at += b - a
    return parts
