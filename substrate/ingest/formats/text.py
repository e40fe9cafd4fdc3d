"""Plain text: one item per paragraph (blank-line separated), long paragraphs chunked."""

from __future__ import annotations

import re

from substrate.ingest.chunk import chunk_lines
from substrate.ingest.formats.context import ParseContext
from substrate.ingest.segment import Parsed, Segment

_BLANK_LINES = re.compile(r"\n(?:[ \t\f\v]*\n)+")


def paragraphs(text: str, first_line: int = 1) -> list[tuple[str, int]]:
    """The paragraphs of ``text`` with the 1-based line each starts on (blank ones left out)."""
    out = []
    pos, line = 0, first_line
    for m in _BLANK_LINES.finditer(text):
        block = text[pos : m.start()]
        if block.strip():
            out.append((block, line))
        line += text.count("\n", pos, m.end())
        pos = m.end()
    tail = text[pos:]
    if tail.strip():
        out.append((tail, line))
    return out


def parse_text(text: str, ctx: ParseContext) -> Parsed:
    """Split plain text into paragraphs, and long paragraphs into sentence-bounded chunks."""
    parsed = Parsed("text", slices=True)
    for block, line in paragraphs(text):
        for i, (chunk, start, end, secrets) in enumerate(chunk_lines(block, line, ctx.chunk_chars)):
            parsed.segments.append(Segment("text", chunk, None, start, end, i, secrets=secrets))
    return parsed
