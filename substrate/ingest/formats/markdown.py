"""Markdown: one item per section (text under a heading), long sections chunked.

A section keeps its heading path (``Install > Linux``, each heading as its text reads without
inline markup, cut to about 200 characters) in provenance, and the explicit id of its heading
(``{#linux}``), if any, as its ``anchor``. Headings are ATX (``#``; a list item's of level 2
or deeper too, as Logseq writes them: ``- ## Linux``) or setext (a one-line paragraph
underlined with ``===`` or ``---``); lines inside fenced code blocks, or in an HTML comment
opened at the start of a line, are never headings. A note with no heading of level 1 is
titled by its front matter's title or its file's name. Front matter (``---`` YAML or ``+++``
TOML) becomes tags (``tags``/``keywords``/``categories``) and payload fields (everything else)
of every item of the file; tags written in a section's text (``#project/alpha``:
``inlinetags``) are its own. A heading with no text under it gives an item of its own when no
deeper heading follows it (its words are said nowhere else; one over deeper headings is in
their section paths); a document of nothing but headings is one item holding them all, under
the first (its title), and one of nothing but front matter is one item holding its title. A
section's links to other notes are kept in its provenance (``notelinks``).

Only lines that could be headings or fences are looked at one by one (found with one regex over
the whole text); sections are slices of the text, so a long file costs little more than a scan.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from typing import Any

from substrate.ingest.build import VISIBLE
from substrate.ingest.chunk import placed_segments
from substrate.ingest.formats.context import ParseContext
from substrate.ingest.formats.frontmatter import (
    read_front_matter,
    read_page_properties,
    split_tags,
)
from substrate.ingest.formats.headings import ANCHOR, heading_text
from substrate.ingest.formats.inlinetags import inline_tags, may_hold_tags
from substrate.ingest.formats.notelinks import NOTE_LINKS, note_links, without_fenced_code
from substrate.ingest.formats.statuslines import note_status, replacement_fields
from substrate.ingest.segment import Parsed, Segment
from substrate.limits import FRONT_MATTER_LINES
from substrate.notelinks import NOTE_EXTENSIONS, SECTION_SEPARATOR

# A line that could be a heading or a fence, matched where it starts. An ATX heading's title is
# taken whole and its closing #s cut off after (_atx_title): a lazy title tried the rest of the
# pattern after each of its characters. Its groups are read all at once, in this order.
_LINE = re.compile(
    # a list item's heading of level 2 or deeper, however nested, as Logseq's outlines write
    # every heading ("- ## Maintenance", "\t- ### Patching"; a bullet "- # install deps" in a
    # README is a shell's comment as often)
    r"(?:[ \t]*[-*+][ \t]+(?=##)| {0,3})(?:"
    r"(?P<atx>#{1,6})(?:[ \t]+(?P<title>.*))?"  # ATX heading (its closing #s: _atx_title)
    r"|(?P<fence>`{3,}|~{3,})(?P<info>.*)"  # code fence
    r"|(?P<under>=+|-{2,})[ \t]*"  # setext underline
    r"|(?P<comment><!--).*"  # an HTML comment: no heading inside it until it closes
    r")$",
    re.MULTILINE,
)
# Where a line after the first may begin as one of _LINE's, after up to three spaces: one scan
# for the line break before it (a literal the regex engine skips to) looks at no more than the
# first characters of each line, and _LINE is matched at the few lines found. Marks without
# indentation come first: an alternative starting with a literal fails at its first character.
_MARK_START = "[#=]|```|~~~|--|<!--|[-*+][ \t]+##"
_NEXT_MARK = re.compile(f"\n(?:{_MARK_START}| {{1,3}}(?:{_MARK_START})|[ \t]+[-*+][ \t]+##)")
_WORDS = re.compile(r"[^\s#=\-]")  # anything but heading marks and underlines
_NOT_PARAGRAPH = ("-", "*", "+", ">", "|", "<", "#", "```", "~~~")
# An ordered list item's line, or indented code (four spaces or a tab, after a blank line):
# neither is a paragraph a setext underline makes a heading
_NOT_PARAGRAPH_EITHER = re.compile(r"[ \t]{0,3}\d{1,9}[.)](?:[ \t]|$)| {4}|[ ]{0,3}\t")

# Each of a section's chunks repeats its heading path: a heading longer than this is cut in the
# path (the whole heading stays in the section's text), else a heading of a megabyte, repeated
# in each of its own chunks, grows a shard with the square of its length.
MAX_TITLE_CHARS = 200


def section_title(title: str) -> str:
    """A heading as a section path shows it: stripped, and cut after its last whole word within
    ``MAX_TITLE_CHARS`` (never inside a word, which could be part of a secret)."""
    title = title.strip()
    if len(title) <= MAX_TITLE_CHARS:
        return title or "(untitled)"
    head = title[: MAX_TITLE_CHARS + 1]  # a space right after the limit ends a whole word
    end = max((i for i, c in enumerate(head) if c.isspace()), default=0)
    return f"{head[:end].rstrip()} …" if end else "(long title)"


class _Doc:
    """The text, a line counter, and the headings above the current section."""

    __slots__ = ("_line", "_pos", "bodies", "ctx", "first", "parsed", "path", "text", "titled")

    def __init__(self, text: str, ctx: ParseContext, parsed: Parsed) -> None:
        self.text = text
        self.ctx = ctx
        self.parsed = parsed
        # (level, section path down to the heading, its anchor): a section's path is joined
        # once, when its heading is met, not again for each section under it
        self.path: list[tuple[int, str, str | None]] = []
        self._pos = 0
        self._line = 1
        self.bodies = 0  # sections emitted for the text under their heading
        self.first: tuple[int, str, str | None] | None = None  # the first heading with words
        self.titled = False  # a heading of level 1 was met: the note's title

    def line_at(self, pos: int) -> int:
        """1-based line of ``pos`` (positions must be asked for in increasing order)."""
        self._line += self.text.count("\n", self._pos, pos)
        self._pos = pos
        return self._line

    def emit(self, start: int, body: int, end: int, next_level: int | None = None) -> None:
        """Emit ``text[start:end]`` as a section if it has content after ``body``, or if it is
        a heading with words and no section under it (the next heading, of ``next_level``,
        None at the end, is no deeper): "## Step 1: back up with pg_dump" says what no other
        item holds. A heading over deeper ones is in their section paths."""
        text = self.text
        if end <= start:
            return
        if VISIBLE.search(text, body, end) is not None:
            self.bodies += 1
        elif not self.heading_alone(start, body, next_level):
            return
        _, section, anchor = self.path[-1] if self.path else (0, None, None)
        first = self.line_at(start)
        ctx = self.ctx
        body_text = text[start:end]
        placed = placed_segments(
            body_text, first, ctx.chunk_chars, secrets=ctx.redact, section=section
        )
        # a chunk may begin inside a code block or a comment: its links are read in its own
        # slice of the section with those blanked
        prose = without_fenced_code(body_text) if len(placed) > 1 else body_text
        for seg, at in placed:
            links = note_links(prose[at : at + len(seg.text)], ctx)
            if links:
                seg.extra[NOTE_LINKS] = links
            if anchor:
                seg.extra[ANCHOR] = anchor
        self.parsed.segments += [seg for seg, _ in placed]

    def rewind(self) -> None:
        """Count lines from the start again (``line_at`` only counts forward)."""
        self._pos, self._line = 0, 1

    def heading_alone(self, start: int, body: int, next_level: int | None) -> bool:
        """Whether ``text[start:body]`` is a heading with words and no section under it."""
        if not self.path or (next_level is not None and next_level > self.path[-1][0]):
            return False
        return _WORDS.search(self.text, start, body) is not None

    def enter(self, level: int, title: str) -> None:
        path = self.path
        while path and path[-1][0] >= level:
            path.pop()
        text, anchor = heading_text(title)
        name = section_title(text)
        path.append((level, f"{path[-1][1]}{SECTION_SEPARATOR}{name}" if path else name, anchor))
        if self.first is None and _WORDS.search(text):  # (its own name, not its path's)
            self.first = (level, name, anchor)
        self.titled = self.titled or level == 1


def _previous_line(text: str, pos: int) -> tuple[int, str]:
    """Start and content of the line before the one starting at ``pos``."""
    start = text.rfind("\n", 0, max(pos - 1, 0)) + 1
    return start, text[start : max(pos - 1, start)]


def _starts_paragraph(text: str, line_start: int, floor: int) -> bool:
    """Whether the line at ``line_start`` follows a blank line, or ``floor``: the end of the
    section's heading or of a code block."""
    if line_start <= floor:
        return True
    before_start, before = _previous_line(text, line_start)
    return not before.strip() or before_start < floor


def _emit_bare(doc: _Doc, start: int, fields: dict[str, Any], tagged: bool) -> None:
    """The item of a document whose sections are all empty: its headings as one text, under
    the first of them (the note's title), else the front matter's title, else, for front
    matter of fields or tags alone (a note a vault's queries read), its file's name."""
    if _WORDS.search(doc.text, start):  # not a template of empty headings ("#", "##")
        doc.path = [doc.first] if doc.first else []
        doc.emit(start, start, len(doc.text))
        return
    title = fields.get("title")
    if isinstance(title, int | float) and not isinstance(title, bool):  # "title: 2024"
        title = str(title)
    if not (isinstance(title, str) and title.strip()) and (fields or tagged):
        title = _untitled_name({}, doc.ctx.name)
    if isinstance(title, str) and title.strip():
        head = doc.text[:start]  # the front matter, its last line without "\n" at the end
        last = head.count("\n") + (0 if head.endswith("\n") else 1)
        doc.parsed.segments.append(Segment("text", title.strip(), None, 1, last, 0))
        doc.parsed.slices = False  # the title is a parsed value, not necessarily a slice


def _marks(text: str, start: int) -> Iterator[re.Match[str]]:
    """The lines from ``start`` (a line start) that could be headings or fences, in order;
    ``m.start()`` is where each begins."""
    first = _LINE.match(text, start)
    if first is not None:
        yield first
    # one search per line found: a finditer costs more to set up than a short note has marks
    candidate = _NEXT_MARK.search(text, start)
    while candidate is not None:
        line = _LINE.match(text, candidate.start() + 1)
        if line is not None:
            yield line
        candidate = _NEXT_MARK.search(text, candidate.end())


def _atx_title(rest: str) -> str:
    """What follows an ATX heading's marks without its closing sequence: white space, then
    ``#``s, then white space (``## Title ##`` is titled "Title"; ``## C#`` is "C#")."""
    title = rest.rstrip(" \t")
    bare = title.rstrip("#")
    if bare != title and bare.endswith((" ", "\t")):
        return bare.rstrip(" \t")
    return title


def parse_markdown(text: str, ctx: ParseContext) -> Parsed:
    """Split a Markdown document into heading-path sections and chunks."""
    parsed = Parsed("markdown", slices=True)
    start = 0
    tags: list[str] = []
    fields: dict[str, Any] = {}
    if text.startswith(("---", "+++", "{")):
        lines = text.split("\n", FRONT_MATTER_LINES)
        found = read_front_matter(lines)
        if found is not None:
            end, raw_fields = found
            tags, fields = split_tags(raw_fields)
            start = sum(len(line) + 1 for line in lines[: end + 1])
    elif "::" in text[:200] and (properties := read_page_properties(text)) is not None:
        start, raw_fields = properties  # a Logseq page's front matter
        tags, fields = split_tags(raw_fields)
    doc = _Doc(text, ctx, parsed)
    sec_start = body_start = start  # current section: where it starts, where its body starts
    fence = ""
    after_fence = -1  # where the line after the last closing fence starts: a block ended
    comment_end = -1  # where the HTML comment open at this point ends
    for m in _marks(text, start):
        line_start = m.start()
        if line_start < comment_end:
            continue
        atx, title, marker, info, under, comment = m.groups()
        if fence:
            if marker and marker[0] == fence[0] and len(marker) >= len(fence) and not info.strip():
                fence = ""  # a closing fence: the same character, as many, and no info string
                after_fence = m.end() + 1
            continue
        if marker:
            if marker[0] != "`" or "`" not in info:  # (a line of inline code opens no fence)
                fence = marker
            continue
        if comment:
            closed = text.find("-->", m.start("comment") + 2)  # "<!-->" closes at once
            comment_end = len(text) if closed < 0 else closed
            continue
        if atx is not None:
            doc.emit(sec_start, body_start, line_start, len(atx))
            doc.enter(len(atx), _atx_title(title or ""))
            sec_start, body_start = line_start, m.end()
            continue
        # a setext underline: the line above must be a one-line paragraph of this section
        prev_start, prev = _previous_line(text, line_start)
        if (
            line_start == 0
            or prev_start < body_start
            or not prev.strip()
            or prev.lstrip().startswith(_NOT_PARAGRAPH)
            or _NOT_PARAGRAPH_EITHER.match(prev)
            or not _starts_paragraph(text, prev_start, max(body_start, after_fence))
        ):
            continue
        level = 1 if under[0] == "=" else 2
        doc.emit(sec_start, body_start, prev_start, level)
        doc.enter(level, prev)
        sec_start, body_start = prev_start, m.end()
    doc.emit(sec_start, body_start, len(text))
    if not doc.bodies:  # headings alone, or front matter alone, are still a note: one item
        parsed.segments.clear()
        doc.rewind()
        _emit_bare(doc, start, fields, bool(tags))
    # "- Status: Superseded by ADR-009" says what front matter would
    for name, value in replacement_fields(text, start).items():
        fields.setdefault(name, value)
    status = note_status(text, start)  # "- Status: Proposed" too
    if status is not None:
        fields.setdefault("status", status)
    if not doc.titled:
        _under_title(parsed.segments, _untitled_name(fields, ctx.name))
    tagged = may_hold_tags(text)  # (one look at the whole text: most notes write none)
    for seg in parsed.segments:
        written = inline_tags(seg.text) if tagged else []  # "#project/alpha", as vaults do
        if tags or written:
            seg.tags = list(dict.fromkeys([*tags, *written]))
        if fields:
            seg.payload = dict(fields)
    return parsed


def _untitled_name(fields: dict[str, Any], name: str) -> str:
    """The title of a note with no heading of level 1: its front matter's ``title`` (a site's
    page), else its file's name (as note-taking apps title a note), "" for neither."""
    title = fields.get("title")
    if isinstance(title, str) and title.strip():
        return section_title(" ".join(title.split()))
    stem, extension = posixpath.splitext(posixpath.basename(name))
    return section_title(stem) if extension.lower() in NOTE_EXTENSIONS else ""


def _under_title(segments: list[Segment], title: str) -> None:
    """Put each section of a note under its ``title``, as a heading of level 1 would: a note
    titled by its name alone ("Grandma lasagne.md", "2024-03-15.md") is found by it."""
    if not title:
        return
    for seg in segments:
        seg.section = f"{title}{SECTION_SEPARATOR}{seg.section}" if seg.section else title
