"""reStructuredText: one item per section (text under an underlined title), chunked.

A title is a line of text underlined (and optionally overlined) by a run of one punctuation
character at least as long as the title. As docutils does, heading levels are given by the order
in which the adornment styles first appear. A line of punctuation between blank lines is a
transition, not a title. A title with nothing under it is an item of its own when no deeper
title follows it (as a Markdown heading is); a document of titles alone is one item.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from substrate.ingest.build import VISIBLE
from substrate.ingest.chunk import text_segments
from substrate.ingest.formats.context import ParseContext
from substrate.ingest.formats.markdown import section_title
from substrate.ingest.segment import Parsed
from substrate.notelinks import SECTION_SEPARATOR

_ADORNMENT = re.compile(r"^([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])\1+\s*$")


def _adornment(line: str) -> str | None:
    m = _ADORNMENT.match(line)
    return m.group(1) if m and len(line.rstrip()) >= 2 else None


def _is_title(text: str, under: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and not text[:1].isspace() and len(under.rstrip()) >= len(stripped)


def _titles(lines: list[str]) -> list[tuple[int, int, str, tuple[str, bool]]]:
    """Every title as ``(first line index, lines used, title, style)``, in order."""
    found = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        over = _adornment(line)
        if over and i + 2 < n and _adornment(lines[i + 2]) == over and lines[i + 1].strip():
            title = lines[i + 1].strip()
            if len(line.rstrip()) >= len(title):
                found.append((i, 3, title, (over, True)))
                i += 3
                continue
        under = _adornment(lines[i + 1]) if i + 1 < n else None
        if under and _is_title(line, lines[i + 1]) and _adornment(line) is None:
            found.append((i, 2, line.strip(), (under, False)))
            i += 2
            continue
        i += 1
    return found


def parse_rst(text: str, ctx: ParseContext) -> Parsed:
    """Split a reStructuredText document into titled sections and chunks."""
    parsed = Parsed("rst", slices=True)
    lines = text.split("\n")
    styles: list[tuple[str, bool]] = []  # adornment styles in order of first appearance
    path: list[tuple[int, str]] = []
    titles = _titles(lines)
    bounds = [(0, 0, None)] + [(t[0], t[1], t) for t in titles]
    bodies = 0
    for k, (start, used, title) in enumerate(bounds):
        if title is not None:
            level = _level(styles, title[3])
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, section_title(title[2])))
        end = bounds[k + 1][0] if k + 1 < len(bounds) else len(lines)
        if any(VISIBLE.search(line) for line in lines[start + used : end]):
            bodies += 1
        elif title is None or _above_deeper(styles, path[-1][0], bounds[k + 1 :]):
            continue  # a title over deeper ones is in their section paths
        section = SECTION_SEPARATOR.join(t for _, t in path) or None
        block = "\n".join(lines[start:end])
        segments = text_segments(
            block, start + 1, ctx.chunk_chars, secrets=ctx.redact, section=section
        )
        parsed.segments += [seg for seg in segments if not _TARGETS_ONLY.fullmatch(seg.text)]
    if not bodies and parsed.segments:  # titles alone are still a document: one item
        parsed.segments = text_segments(text, 1, ctx.chunk_chars, secrets=ctx.redact)
    return parsed


def _level(styles: list[tuple[str, bool]], style: tuple[str, bool]) -> int:
    """The level of a title of ``style``: styles rank in the order they first appear."""
    if style not in styles:
        styles.append(style)
    return styles.index(style)


def _above_deeper(
    styles: list[tuple[str, bool]],
    level: int,
    after: Sequence[tuple[int, int, tuple[int, int, str, tuple[str, bool]] | None]],
) -> bool:
    """Whether the title at ``level`` is followed by a deeper one (a style not seen yet ranks
    below every style seen)."""
    if not after:
        return False
    style = after[0][2][3] if after[0][2] is not None else None
    following = styles.index(style) if style in styles else len(styles)
    return following > level


# A paragraph of hyperlink targets alone (".. _install:" before a title): a name for a link
# to point at, not content
_TARGETS_ONLY = re.compile(r"(?:[ \t]*\.\.[ \t]+_[^\n]*:[ \t]*(?:\n|$))+")
