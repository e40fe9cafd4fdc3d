"""Plain text: one item per paragraph (blank-line separated), long paragraphs chunked."""

from __future__ import annotations

import bisect
import re

from substrate.ingest.chunk import chunk_lines
from substrate.ingest.cutsecrets import cut_secrets
from substrate.ingest.detect import detect_format
from substrate.ingest.formats.context import ParseContext
from substrate.ingest.formats.markdown import section_title
from substrate.ingest.segment import Parsed, Segment

_BLANK_LINES = re.compile(r"\n(?:[ \t\f\v]*\n)++")  # possessive: no backtracking memory
# An armored block (a PGP key, an encrypted PEM key) may hold blank lines; it is one paragraph,
# so that the secret scan sees it whole.
_ARMOR_BEGIN = re.compile(r"-----BEGIN ([A-Z0-9 ]{1,60})-----")


def armored_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each ``-----BEGIN X-----`` … ``-----END X-----`` block, in order."""
    spans: list[tuple[int, int]] = []
    unended: set[str] = set()  # labels with no END after some point: none after a later one
    pos = 0
    while (m := _ARMOR_BEGIN.search(text, pos)) is not None:
        label, pos = m.group(1), m.end()
        if label in unended:
            continue
        closing = f"-----END {label}-----"
        end = text.find(closing, m.end())
        if end == -1:
            unended.add(label)
            continue
        pos = end + len(closing)
        spans.append((m.start(), pos))
    return spans


def paragraphs(text: str, first_line: int = 1) -> list[tuple[str, int, int]]:
    """The paragraphs of ``text`` with the 1-based line each starts on and its offset in
    ``text`` (blank ones left out); an armored block (``armored_spans``) is never split."""
    armors = armored_spans(text) if "-----BEGIN " in text else []
    starts = [start for start, _ in armors]
    out = []
    pos, line = 0, first_line
    for m in _BLANK_LINES.finditer(text):
        i = bisect.bisect_left(starts, m.start()) - 1
        if i >= 0 and m.start() < armors[i][1]:
            continue  # inside an armored block
        block = text[pos : m.start()]
        if block.strip():
            out.append((block, line, pos))
        line += text.count("\n", pos, m.end())
        pos = m.end()
    tail = text[pos:]
    if tail.strip():
        out.append((tail, line, pos))
    return out


def parse_text(text: str, ctx: ParseContext) -> Parsed:
    """Split plain text into paragraphs, and long paragraphs into sentence-bounded chunks. A
    first paragraph that may be a title ("Your first week at Orbit": one short line ending no
    sentence) is the section of the others, which it names the subject of; it stays an item
    of its own too, as it may be a fact whose full stop was left off. A title underlined
    anywhere ("Release 1.5" over "===========") is the section of the paragraphs after it.
    Source code read as text (``--as-text '*.py'``: a name of no format) has no title: its first
    comment ("# Copyright 2020 ...") names none of its paragraphs.

    When secrets are to be masked, the text is scanned for them whole, as one long section
    is (``cutsecrets``): what makes a value a secret may stand paragraphs away from it (a
    manifest's ``kind: Secret`` above its ``data:``)."""
    parsed = Parsed("text", slices=True)
    blocks = paragraphs(text)
    prose = ctx.path is None or detect_format(ctx.path) is not None
    title = None
    spans = []
    for at, (block, line, start) in enumerate(blocks):
        section = title
        heading = _heading(block) if prose else None
        if heading is not None:  # (a release's notes after another's)
            title, more = heading
            section = title if more else None
        elif at == 0:
            title = _title(block) if len(blocks) > 1 and prose else None
            section = None
        for i, c in enumerate(chunk_lines(block, line, ctx.chunk_chars, secrets=False)):
            parsed.segments.append(Segment("text", c.text, section, c.line_start, c.line_end, i))
            spans.append((start + c.start, start + c.start + len(c.text)))
    if ctx.redact:
        for seg, found in zip(parsed.segments, cut_secrets(text, spans), strict=True):
            seg.secrets = found
    return parsed


MAX_TITLE_CHARS = 100
# A line of more words is a sentence left without its full stop, not a title: as the section of
# every paragraph, its words would make each one (a "Navigation" alone) match them
MAX_TITLE_WORDS = 12
_HEADING_MARKS = re.compile(r"^#{1,6}[ \t]+")  # "## " opening a Markdown heading
_SENTENCE_END = (".", "!", "?", ";", ",")
_VALUE_MARKS = (":", "=")


# A line of one mark repeated, that underlines (or overlines too) a title, as release notes and
# READMEs in plain text write one ("Release Notes" over "=============")
_ADORNMENT = re.compile(r"([=\-~*#^+_])\1{2,}")


def _title(block: str) -> str | None:
    """``block`` as a title, when it is one: a single line starting with a capital, at most
    ``MAX_TITLE_CHARS`` long and of ``MAX_TITLE_WORDS`` words, ending no sentence and setting
    no value ("Password: ...", "host=db1" are content). A Markdown heading's marks are not the
    title's ("# Install" in a README without an extension)."""
    line = _HEADING_MARKS.sub("", block.strip())
    if "\n" in line or len(line) > MAX_TITLE_CHARS or line.endswith(_SENTENCE_END):
        return None
    if len(line.split()) > MAX_TITLE_WORDS:
        return None
    if any(mark in line for mark in _VALUE_MARKS):
        return None
    first = next((ch for ch in line if ch.isalpha()), "")
    return section_title(line) if first.isupper() else None


def _heading(block: str) -> tuple[str | None, bool] | None:
    """The title of the heading underlined (or over- and underlined, ``_ADORNMENT``) that
    opens ``block``, and whether the block holds more than it; None when none opens it. Its
    marks make it a heading whatever its words ("2.5.0 (2024-03-01)", "v2: what changed"); one
    too long to name paragraphs gives no title, and ends the one before it."""
    lines = [line.strip() for line in block.strip().split("\n")]
    if len(lines) >= 3 and _ADORNMENT.fullmatch(lines[0]) and lines[2] == lines[0]:
        head, rest = lines[1], lines[3:]
    elif len(lines) >= 2 and _ADORNMENT.fullmatch(lines[1]) and not _ADORNMENT.fullmatch(lines[0]):
        head, rest = lines[0], lines[2:]
    else:
        return None
    named = len(head) <= MAX_TITLE_CHARS and len(head.split()) <= MAX_TITLE_WORDS
    title = section_title(head) if named and any(ch.isalnum() for ch in head) else None
    return title, bool(rest)
