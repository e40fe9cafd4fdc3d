"""Links to other notes, as Markdown writes them: found by the parser, and read as a reader
sees them.

A note says "It is owned by the [Platform team](platform-team.md)": a reader sees "It is owned
by the Platform team", and so does an answer quoting it. Judging that answer against the note
must read the note the same way: the link's target is no word of the sentence (a file name
there reads as another service's name). The parser (``ingest.formats.notelinks``) finds the
same links with the same patterns, to follow them.
"""

from __future__ import annotations

import re

# ``[text](target "title")``, ``[text](<a target with spaces.md>)``; not an image or ``\[``
INLINE_LINK = re.compile(
    r"(?<![!\\])\[(?P<text>[^\[\]\n]*)\]\(\s*(?:<(?P<angled>[^<>\n]+)>|(?P<bare>[^\s()<>]+))"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)"
)
# ``[[name#anchor|shown]]``, and ``![[name]]`` (an embed)
WIKI_LINK = re.compile(
    r"(?<!\\)(?P<embed>!?)\[\[(?P<name>[^\s\[\]|#][^\[\]|#\n]*)?(?P<anchor>#[^\[\]|\n]*)?"
    r"(?:\|(?P<shown>[^\[\]\n]*))?\]\]"
)


def as_shown(text: str) -> str:
    """``text`` with ``[text](a.md)`` as its text, ``[[note|shown]]`` as what is shown, and
    ``[[note#Heading]]`` as ``note > Heading``."""
    if "[" not in text:
        return text
    text = INLINE_LINK.sub(lambda m: m.group("text"), text)
    return WIKI_LINK.sub(_wiki_shown, text)


def _wiki_shown(m: re.Match[str]) -> str:
    if m.group("shown"):
        return m.group("shown")
    heading = (m.group("anchor") or "").lstrip("#")
    name = m.group("name") or ""
    return f"{name} > {heading}" if name and heading else name or heading


def link_targets(text: str) -> list[str]:
    """What the links of ``text`` lead to: ``a.md`` of ``[text](a.md)``, ``note#Heading``
    of ``[[note#Heading|shown]]``."""
    if "[" not in text:
        return []
    inline = (m.group("angled") or m.group("bare") for m in INLINE_LINK.finditer(text))
    wiki = ((m.group("name") or "") + (m.group("anchor") or "") for m in WIKI_LINK.finditer(text))
    return [*inline, *wiki]
