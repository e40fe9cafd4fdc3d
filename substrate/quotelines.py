"""The lines of its sources an answer quotes.

A citation names an item, whose provenance gives the lines of its whole section: a long
section makes ``notes.md:5-48`` of a sentence on line 31. Each stretch of an answer before a
``[n]`` marker is found again in source n's text, and the lines it spans there are the ones
the citation can point to.

An answer's quotes are not always the source's characters: line breaks become spaces, links
show their text only, a long sentence is cut short with "…", an entry is led by its heading's
name ("Jonas Weber: Based in Milan."), a table row names each cell by its column ("Team:
Growth; Lead: Hannah Kim."). The match is therefore one of words, in order, where
the source may hold a few more between two quoted words (a link's target) and a few quoted
words may be missing from the source (a masked secret). A stretch led by a short name and a
colon is looked for without it first: the name may be a heading lines above; a row, by its
cells alone, as its column names are in the header lines above. A stretch too
unlike any passage of the source (a model's paraphrase) points to no lines, and its citation
keeps the section's range.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence

from substrate.item import SubstrateItem
from substrate.retrieval import lines_of
from substrate.secrets.hits import MASK_LEAD

CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")  # [2], [1, 3]
_WORD = re.compile(r"\w+")
# Source words allowed between two quoted ones (a link's target: ``](ops/deploy.md)``).
MAX_GAP = 8
# Quoted words in a row the source may lack (a mask, ``[REDACTED:github_token]``, is two).
MAX_MISSED = 3
# Share of a stretch's words the source must hold, in order, for the stretch to be its quote.
MIN_SHARE = 0.8
# The most words of an entry's name before its colon.
ENTRY_NAME_WORDS = 10
# What no entry's name holds: a setting's "=", a mask ("[REDACTED:…]")
_SETTING = re.compile(rf"=|{re.escape(MASK_LEAD)}")
# Characters of a source's text looked through (the search tries each place a quote's first
# words occur: an item far longer than a chunk, one added whole, is not read to its end).
SCAN_CHARS = 100_000


def quoted_lines(answer: str, items: Sequence[SubstrateItem]) -> dict[int, list[tuple[int, int]]]:
    """For each source number n (1-based, ``items[n - 1]``) the answer cites, the line ranges
    of that source its stretches quote, merged and in order; a source none of whose
    stretches could be found is left out."""
    found: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for stretch, numbers in _stretches(answer):
        for n in numbers:
            if 1 <= n <= len(items):
                lines = lines_quoted(stretch, items[n - 1])
                if lines is not None:
                    found[n].append(lines)
    return {n: _merged(ranges) for n, ranges in found.items()}


def _stretches(answer: str) -> list[tuple[str, list[int]]]:
    """Each stretch of ``answer`` and the source numbers of the markers right after it.
    Markers in a row (``… [1] [2]``) all cite the stretch before the first of them."""
    out: list[tuple[str, list[int]]] = []
    start = 0
    for match in CITATION.finditer(answer):
        numbers = [int(part) for part in match.group(1).split(",")]
        stretch = answer[start : match.start()]
        if out and not _WORD.search(stretch):
            out[-1][1].extend(numbers)
        else:
            out.append((stretch, numbers))
        start = match.end()
    return out


def lines_quoted(stretch: str, item: SubstrateItem) -> tuple[int, int] | None:
    """The first and last line of ``item``'s source that ``stretch`` quotes, or None: no
    lines known, a text that is not its lines as the file has them (a record built from a
    row, a multi-line secret masked), or no passage like ``stretch``."""
    start, end = lines_of(item)
    text = item.text
    if start is None or end is None or text.count("\n") != end - start:
        return None
    stretch = stretch.strip()
    name, colon, rest = stretch.partition(": ")
    tries = [stretch]
    # (a name leads an entry, not lines of settings: "key = value key = [REDACTED:…] label: …")
    if colon and len(_WORD.findall(name)) <= ENTRY_NAME_WORDS and not _SETTING.search(name):
        tries.insert(0, rest)
    cells = _row_cells(stretch)
    if cells:
        tries.insert(0, cells)
    for tried in tries:
        span = _passage(_words(tried), text)
        if span is not None:
            first, last = span
            return start + text.count("\n", 0, first), start + text.count("\n", 0, last)
    return None


def _row_cells(stretch: str) -> str:
    """The cells of a table row quoted as a sentence ("Team: Growth; Lead: Hannah Kim."), each
    without its column's name; "" for a stretch of fewer than two named cells."""
    parts = stretch.split("; ")
    named = [part.partition(": ") for part in parts]
    if sum(1 for name, colon, _ in named if colon and len(_WORD.findall(name)) <= 4) < 2:
        return ""
    return " ".join(cell if colon else name for name, colon, cell in named)


def _words(stretch: str) -> list[str]:
    words = _WORD.findall(stretch.lower())
    if stretch.endswith("…") and not stretch.endswith(" …") and words:
        words.pop()  # a word cut short
    return words


def _passage(wanted: list[str], text: str) -> tuple[int, int] | None:
    """The offsets of the first and last character of the passage of ``text`` holding most
    of ``wanted``'s words in order (at least ``MIN_SHARE`` of them), the shortest, then the
    earliest, of equals."""
    if not wanted:
        return None
    found = [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text, 0, SCAN_CHARS)]
    where: dict[str, list[int]] = defaultdict(list)
    for i, (word, _, _) in enumerate(found):
        where[word].append(i)
    need = math.ceil(MIN_SHARE * len(wanted))  # whole words: one of one, four of five
    if need > len(found):  # each word matched is another of the text's
        return None
    best: tuple[int, int, int] | None = None  # (words matched, first, last) in ``found``
    # the passage may start a few words in: the stretch's lead (an entry's heading) may not
    # be in the text right before it
    for lead in range(len(wanted) - need + 1):
        if best is not None and len(wanted) - lead < best[0]:
            break  # the words left could not match as many
        for first in where.get(wanted[lead], ()):
            matched, last = _walk(wanted, lead, first, found)
            # the most words, then the tightest passage ("the" may open one lines early)
            if matched >= need and (
                best is None or (matched, first - last) > (best[0], best[1] - best[2])
            ):
                best = (matched, first, last)
    if best is None:
        return None
    return found[best[1]][1], found[best[2]][2] - 1


def _walk(
    wanted: list[str], lead: int, first: int, found: list[tuple[str, int, int]]
) -> tuple[int, int]:
    """How many of ``wanted[lead:]`` follow in order from ``found[first]`` (which is the
    first of them), each within ``MAX_GAP`` words of the one before, and the last one's
    index. A word not found so near is passed over; more than ``MAX_MISSED`` in a row end
    the passage."""
    matched, at, missed = 1, first, 0
    for word in wanted[lead + 1 :]:
        for i in range(at + 1, min(at + 2 + MAX_GAP, len(found))):
            if found[i][0] == word:
                matched, at, missed = matched + 1, i, 0
                break
        else:
            missed += 1
            if missed > MAX_MISSED:
                break
    return matched, at


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``ranges`` sorted, with those that overlap or touch made one."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out
