"""Snippets: the passage of an item's text that best shows why it matched a query.

Words are matched the way the index matches them (the same analyzer: case folding, stemming,
CJK bigrams), so a query for "archive" marks "archives" and "Archived". The snippet is the
window of the text holding the most distinct query terms, with its whitespace collapsed; the
spans of the matched words are given so a caller can highlight them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from substrate.search.tokenize import Analyzer, word_spans

_SCAN_LIMIT = 200_000  # characters of a long item examined for matches
_RULE_LINE = re.compile(r"^[ \t]{0,3}([=\-~^\"'`#*+_:<>])\1{2,}[ \t]*$", re.MULTILINE)
_SPACE = re.compile(r"\s+")


@dataclass(slots=True)
class Snippet:
    """A passage of text with the query's matches marked.

    Attributes:
        text: the passage, whitespace collapsed; starts or ends with "…" where it was cut.
        spans: ``(start, end)`` of each matched word in ``text``, in order.
        matches: the distinct matched words (ignoring case), as first written in the text.
    """

    text: str
    spans: list[tuple[int, int]] = field(default_factory=list)
    matches: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "spans": [list(s) for s in self.spans], "matches": self.matches}


def make_snippet(
    text: str, query: str, *, width: int = 200, analyzer: Analyzer | None = None
) -> Snippet:
    """The passage of ``text`` (about ``width`` characters) that best matches ``query``.

    Without any match (an item found by meaning alone), the passage is the start of the text.
    """
    analyzer = analyzer or Analyzer()
    width = max(int(width), 20)
    wanted = set(analyzer.terms(query))
    # a title's underline or a thematic break is layout, not words: blanked, offsets kept
    source = _RULE_LINE.sub(lambda rule: " " * len(rule.group()), text[:_SCAN_LIMIT])
    hits: list[tuple[int, int, frozenset[str]]] = []
    if wanted:
        for start, end in word_spans(source):
            found = wanted.intersection(analyzer.terms(source[start:end]))
            if found:
                hits.append((start, end, frozenset(found)))
    lo, hi = _window(source, hits, width)
    return _render(source, lo, hi, [(s, e) for s, e, _ in hits if s >= lo and e <= hi])


def _window(text: str, hits: list[tuple[int, int, frozenset[str]]], width: int) -> tuple[int, int]:
    """Bounds of the window with the most distinct terms (then most hits), on word edges."""
    best = (0, 0, 0)  # distinct terms, hits, -start
    lo = last = 0  # the best window's first hit's start and last hit's end
    for i, (start, _, _) in enumerate(hits):
        terms: set[str] = set()
        count = end = 0
        for _, e, found in hits[i:]:
            if e - start > width:
                break
            terms |= found
            count, end = count + 1, e
        score = (len(terms), count, -start)
        if score > best:
            best, lo, last = score, start, end
    if hits:
        # context before the first hit, as much as leaves room for the last one
        lo = lead_in(text, lo, min(width // 5, width - (last - lo)))
        if len(text) - lo < width:  # the rest is short: the window shows more of the start
            lo = lead_in(text, lo, lo - (len(text) - width))
    hi = min(len(text), lo + width)
    if hi < len(text) and not text[hi].isspace():  # ends on a word edge, after the last hit
        cut = text.rfind(" ", max(lo + width // 2, last), hi)
        # none after the last hit: its word runs on ("boundary-layer"), ended whole if short
        hi = cut if cut != -1 else _word_end(text, hi, width // 5)
    return _whole_character(text, lo, -1), _whole_character(text, hi, +1)


def _word_end(text: str, at: int, reach: int) -> int:
    """The end of the word ``at`` is inside, if it ends within ``reach`` characters, else
    ``at`` (a window is not stretched over a long run without spaces)."""
    end = next((k for k in range(at, min(len(text), at + reach + 1)) if text[k].isspace()), None)
    if end is None and len(text) <= at + reach:
        end = len(text)
    return at if end is None else end


def _whole_character(text: str, at: int, step: int) -> int:
    """``at`` moved (by ``step``) off the inside of a character written as several code
    points: before a combining mark (a decomposed accent, a voiced-sound mark), or either
    side of a zero-width joiner (an emoji family). A snippet cut there began with a lone
    mark, or ended in a dangling joiner."""
    while 0 < at < len(text) and (_joins(text[at]) or text[at - 1] == "\u200d"):
        at += step
    return at


def _joins(char: str) -> bool:
    """Whether ``char`` belongs to the character before it."""
    return char == "\u200d" or unicodedata.combining(char) != 0 or "\ufe00" <= char <= "\ufe0f"


def lead_in(text: str, first: int, lead: int) -> int:
    """Where a window showing ``text[first:]`` starts, with up to ``lead`` characters of
    context: on the first word edge within them, else ``lead`` characters back, mid-word. A
    window snapped back to a distant space (minified JSON has none) would lose the match."""
    start = max(0, first - lead)
    if start == 0 or text[start - 1].isspace():
        return start
    edge = next((k + 1 for k in range(start, first) if text[k].isspace()), None)
    return start if edge is None else edge


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping spans (adjacent CJK bigrams) joined into one."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _render(text: str, lo: int, hi: int, spans: list[tuple[int, int]]) -> Snippet:
    """The window with whitespace collapsed, its spans moved to match, and the matches listed."""
    raw = text[lo:hi]
    pieces: list[str] = []
    where = [0] * (len(raw) + 1)  # offset in ``raw`` -> offset in the collapsed text
    length = pos = 0
    for gap in _SPACE.finditer(raw):
        for j in range(pos, gap.start()):
            where[j] = length + j - pos
        length += gap.start() - pos
        for j in range(gap.start(), gap.end()):
            where[j] = length
        pieces += [raw[pos : gap.start()], " "]
        length += 1
        pos = gap.end()
    for j in range(pos, len(raw) + 1):
        where[j] = length + j - pos
    pieces.append(raw[pos:])
    body = "".join(pieces)
    shift = 1 if body.startswith(" ") else 0
    body = body.strip()
    prefix = "…" if lo > 0 else ""
    suffix = "…" if hi < len(text) else ""
    merged = _merged(spans)
    moved = [
        (where[s - lo] - shift + len(prefix), where[e - lo] - shift + len(prefix))
        for s, e in merged
    ]
    matches: list[str] = []
    seen: set[str] = set()
    for s, e in merged:
        if text[s:e].casefold() not in seen:
            seen.add(text[s:e].casefold())
            matches.append(text[s:e])
    return Snippet(prefix + body + suffix, moved, matches)
