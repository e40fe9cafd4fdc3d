"""Plain text: one item per paragraph (blank-line separated), long paragraphs chunked."""

from __future__ import annotations

import re

from substrate.ingest.chunk import chunk_lines
from substrate.ingest.formats.context import ParseContext
from substrate.ingest.segment import Parsed, Segment
from substrate.secrets.rules import MAX_KEY_BLOCK

_BLANK_LINES = re.compile(r"\n(?:[ \t\f\v]*\n)+")
# An armored block (a PGP key, an encrypted PEM key) may hold blank lines; it is one paragraph,
# so that the secret scan sees it whole.
_ARMOR = re.compile(
    rf"-----BEGIN [A-Z0-9 ]{{1,60}}-----[\s\S]{{0,{MAX_KEY_BLOCK}}}?-----END [A-Z0-9 ]{{1,60}}-----"
)


def paragraphs(text: str, first_line: int = 1) -> list[tuple[str, int]]:
    """The paragraphs of ``text`` with the 1-based line each starts on (blank ones left out);
    an armored block (``-----BEGIN …-----`` to ``-----END …-----``) is never split."""
    armors = [m.span() for m in _ARMOR.finditer(text)] if "-----BEGIN " in text else []
    out = []
    pos, line = 0, first_line
    for m in _BLANK_LINES.finditer(text):
        if any(start < m.start() < end for start, end in armors):
            continue
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
