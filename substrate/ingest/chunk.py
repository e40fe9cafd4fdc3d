"""Split long text into chunks of bounded size at sentence boundaries.

A chunk is a verbatim slice of the section (whitespace and line breaks kept), so its line
numbers in the file can be computed exactly. Chunks end after a sentence (``.``, ``!``, ``?``,
``…`` followed by white space, or the CJK full stops; not the period of an abbreviation like
``Dr.`` or of an initial) or at a blank line. A sentence longer than the bound is cut inside,
into pieces of even length, each at the white space (a line break preferred) nearest its share
(or, for a run with no white space at all, at the share itself).
A short lead-in is kept with what follows rather than left as a chunk of its own: before such a
sentence, and, when it is the text's first span (a heading), before any sentence it cannot join
whole, which is then cut with it; the last piece of a cut takes what follows it if it fits.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from substrate.abbreviations import ends_in_abbreviation
from substrate.errors import InvalidInputError
from substrate.ingest.cutsecrets import ChunkSecrets, cut_secrets
from substrate.ingest.segment import Segment
from substrate.limits import DEFAULT_CHUNK_CHARS, MIN_CHUNK_CHARS

_CLOSERS = "\"'\u201d\u2019)\\]\u300d\u300f"
_BOUNDARY = re.compile(
    rf"(?<=[.!?\u2026])([{_CLOSERS}]*)(\s+)"  # western: punctuation, closers, white space
    rf"|(?<=[\u3002\uff01\uff1f])([{_CLOSERS}]*)(\s*)"  # CJK full stops need no space after
    r"|(\n[ \t]*\n\s*)"  # a blank line ends a paragraph
)


def check_limit(limit: int) -> int:
    """Validate a chunk size given by a caller."""
    if not isinstance(limit, int) or limit < MIN_CHUNK_CHARS:
        raise InvalidInputError(
            f"chunk size must be an integer >= {MIN_CHUNK_CHARS}, not {limit!r}"
        )
    return limit


# A line opening or closing a fenced code block (Markdown): ``` or ~~~, three or more
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})([^\n]*)$", re.MULTILINE)


def sentence_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The sentences (and paragraphs) of ``text[start:end]`` as ``(start, end)`` spans; in a
    fenced code block, its lines (a ". " in a comment ends no sentence: a cut there would
    split a line of code in two)."""
    spans: list[tuple[int, int]] = []
    pos = start
    for fs, fe in _fenced_blocks(text, start, end):
        spans += _prose_spans(text, *_stripped(text, pos, fs))
        spans += _line_spans(text, fs, fe)
        pos = fe
    return spans + _prose_spans(text, *_stripped(text, pos, end))


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` without the white space at either end of ``text[start:end]``."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _fenced_blocks(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The fenced code blocks in ``text[start:end]``, each from its opening fence line to the
    end of its closing one (or to ``end``, when it is not closed)."""
    blocks = []
    opening: re.Match[str] | None = None
    for m in _FENCE.finditer(text, start, end):
        if opening is None:
            if m.group(1)[0] != "`" or "`" not in m.group(2):  # not ```inline code```
                opening = m
        elif _closes(m, opening):
            blocks.append((opening.start(), m.end()))
            opening = None
    if opening is not None:
        blocks.append((opening.start(), end))
    return blocks


def _closes(fence: re.Match[str], opening: re.Match[str]) -> bool:
    """Whether ``fence`` closes the block ``opening`` began: the same character, at least as
    many of them, and no info string."""
    mark, opened = fence.group(1), opening.group(1)
    return mark[0] == opened[0] and len(mark) >= len(opened) and not fence.group(2).strip()


def _line_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The lines of ``text[start:end]`` that hold more than white space, without their breaks."""
    spans = []
    pos = start
    while pos < end:
        stop = text.find("\n", pos, end)
        stop = end if stop < 0 else stop
        if text[pos:stop].strip():
            spans.append((pos, stop))
        pos = stop + 1
    return spans


def _prose_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The sentences (and paragraphs) of prose ``text[start:end]``."""
    spans: list[tuple[int, int]] = []
    pos = start
    for m in _BOUNDARY.finditer(text, start, end):
        western = m.group(2) is not None and not m.group(1)
        if western and m.group(2).count("\n") < 2 and _not_an_end(text, m.start(), pos):
            continue  # ("Dr. Smith"; a blank line after "U.S." still ends the paragraph)
        if m.group(5) is not None:
            stop = m.start()
        elif m.group(2) is not None:
            stop = m.end(1)
        else:
            stop = m.end(3)
        if stop > pos:
            spans.append((pos, stop))
        pos = m.end()
    if pos < end:
        spans.append((pos, end))
    return spans


# A numbered list item's marker ("10. Restart the service") at the start of its line
_LIST_NUMBER = re.compile(r"[ \t]{0,8}(\d{1,9})\.")
_LIST_ITEM = re.compile(r"[ \t]{0,8}\d{1,9}[.)][ \t]")
_LIST_REACH = 20  # the most characters such a marker spans
_SECOND_ITEM = re.compile(r"\n[ \t]{0,8}2[.)][ \t]")
_NEXT_ITEM_REACH = 500  # how far a list's first item may run before its second


def _not_an_end(text: str, after: int, floor: int) -> bool:
    """Whether the mark before ``after``, in the sentence from ``floor``, ends no sentence:
    an abbreviation's or an initial's period, or a list item's number."""
    return _abbreviation(text, after, floor) or _list_number(text, after, floor)


def _list_number(text: str, after: int, floor: int) -> bool:
    """Whether the period before ``after`` ends the number opening a list item's line. A
    number that prose wraps to the start of a line ("started in\\n2024. Then") still ends its
    sentence: a list item's line opens the sentence, or follows a line ending in ":", another
    item's line or a heading that opens the sentence, or it is a first item whose second
    follows."""
    line = text.rfind("\n", max(floor, after - _LIST_REACH), after) + 1
    if line == 0:  # no line starts within reach, or the sentence opened the text
        line = floor
    number = _LIST_NUMBER.fullmatch(text, line, after)
    if number is None:
        return False
    if line <= floor:
        return True
    # (rare, past the match above: reading the line before costs nothing much)
    before = text.rfind("\n", floor, line - 1) + 1 or floor
    if text[before : line - 1].rstrip().endswith(":") or _LIST_ITEM.match(text, before, line):
        return True
    if before == floor and text.startswith("#", floor):
        return True
    return number.group(1) == "1" and bool(
        _SECOND_ITEM.search(text, after, after + _NEXT_ITEM_REACH)
    )


def _abbreviation(text: str, after: int, floor: int) -> bool:
    """Whether the mark before ``after`` is the period of an abbreviation (``Dr.``, ``e.g.``)
    or of an initial (``J. Smith``) rather than the end of a sentence."""
    # the longest abbreviation is a few characters: a short window keeps this linear
    return ends_in_abbreviation(text[max(floor, after - 16) : after])


def _hard_split(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """Cut one over-long sentence into pieces of about even length within the bound, each at
    the white space nearest its share (a line break preferred), so that no piece is a scrap."""
    pieces = []
    pos = start
    while end - pos > limit:
        left = end - pos
        share = -(-left // -(-left // limit))  # an even share of the pieces still to make
        lo, target, hi = pos + share // 2, pos + share, pos + limit
        cut = _nearest(text, ("\n",), lo, target, hi)
        if cut is None:
            cut = _nearest(text, (" ", "\t"), lo, target, hi)
        if cut is None:  # a run without white space: cut at the share itself
            cut = target
        stop = cut
        while stop > pos and text[stop - 1].isspace():
            stop -= 1
        pieces.append((pos, stop if stop > pos else cut))
        pos = cut
        while pos < end and text[pos].isspace():
            pos += 1
    if pos < end:
        pieces.append((pos, end))
    return pieces


def _nearest(text: str, marks: tuple[str, ...], lo: int, target: int, hi: int) -> int | None:
    """The position of one of ``marks`` in ``text[lo:hi + 1]`` nearest ``target``, if any."""
    found = [
        p for m in marks for p in (text.rfind(m, lo, target + 1), text.find(m, target, hi + 1))
    ]
    return min((p for p in found if p >= lo), key=lambda p: abs(p - target), default=None)


def chunk_spans(text: str, limit: int = DEFAULT_CHUNK_CHARS) -> list[tuple[int, int]]:
    """Spans of ``text`` covering its content, each at most ``limit`` characters long.

    Leading and trailing white space is left out; an empty or blank text gives no span.
    """
    start, end = _stripped(text, 0, len(text))
    if start == end:
        return []
    if end - start <= limit:
        return [(start, end)]
    chunks: list[tuple[int, int]] = []
    cur: tuple[int, int] | None = None
    spans = sentence_spans(text, start, end)
    # a short first span (a heading, or an opening word) that cannot join the next span whole
    # is not left alone: the two are cut into even pieces together
    heading = spans[0] if spans[0][1] - spans[0][0] < limit // 4 else None
    for s, e in spans:
        lead_in = cur is not None and cur == heading
        if e - s > limit or (lead_in and cur is not None and e - cur[0] > limit):
            if cur is not None:
                if lead_in or cur[1] - cur[0] < limit // 4:
                    s = cur[0]  # a short lead-in goes with what follows
                else:
                    chunks.append(cur)
                cur = None
            *whole, cur = _hard_split(text, s, e, limit)  # the last piece may take what follows
            chunks.extend(whole)
        elif cur is None:
            cur = (s, e)
        elif e - cur[0] <= limit:
            cur = (cur[0], e)
        else:
            chunks.append(cur)
            cur = (s, e)
    if cur is not None:
        chunks.append(cur)
    return chunks


class Chunk(NamedTuple):
    """One chunk of a text: its own text, the file lines it spans, the parts of secrets of
    the whole text that lie in it (``cutsecrets``), and where it starts in the text."""

    text: str
    line_start: int
    line_end: int
    secrets: ChunkSecrets | None = None
    start: int = 0


def _one_chunk(text: str, first_line: int, limit: int) -> Chunk | None:
    """``text`` without its margins as a chunk on its own, when it is one (the one span of
    ``chunk_spans``): not blank, and within ``limit``."""
    body = text.strip()  # (what ``_stripped`` leaves: both drop what ``str.isspace`` tells)
    if not 0 < len(body) <= limit:
        return None
    start = len(text) - len(text.lstrip())
    line = first_line + text.count("\n", 0, start)
    return Chunk(body, line, line + body.count("\n"), None, start)


def chunk_lines(
    text: str, first_line: int, limit: int = DEFAULT_CHUNK_CHARS, *, secrets: bool = True
) -> list[Chunk]:
    """Chunks of ``text`` with the 1-based file lines each spans.

    Args:
        text: the section text.
        first_line: the file line on which ``text`` starts.
        limit: the largest chunk, in characters.
        secrets: when there are several chunks, tell each the secrets of the whole text that
            lie in it (``Chunk.secrets``); not needed when nothing is to be redacted.

    Returns:
        The chunks, in order.
    """
    one = _one_chunk(text, first_line, limit)
    if one is not None:  # most texts: the gate sees it whole, no secret of it is cut
        return [one]
    spans = chunk_spans(text, limit)
    found_in = cut_secrets(text, spans) if secrets else [None] * len(spans)
    out = []
    line, pos = first_line, 0
    for (s, e), found in zip(spans, found_in, strict=True):
        line += text.count("\n", pos, s)
        end_line = line + text.count("\n", s, e)
        out.append(Chunk(text[s:e], line, end_line, found, s))
        line, pos = end_line, e
    return out


def text_segments(
    text: str, first_line: int, limit: int, *, secrets: bool, section: str | None = None
) -> list[Segment]:
    """The prose segments of ``text`` (a section, a paragraph): one per chunk."""
    return [
        seg for seg, _ in placed_segments(text, first_line, limit, secrets=secrets, section=section)
    ]


def placed_segments(
    text: str, first_line: int, limit: int, *, secrets: bool, section: str | None = None
) -> list[tuple[Segment, int]]:
    """``text_segments``, each with where its text starts in ``text``."""
    chunks = chunk_lines(text, first_line, limit, secrets=secrets)
    return [
        (Segment("text", c.text, section, c.line_start, c.line_end, i, secrets=c.secrets), c.start)
        for i, c in enumerate(chunks)
    ]
