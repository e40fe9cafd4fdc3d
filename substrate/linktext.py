"""Text with its links to other notes written as a reader sees them.

A note says "It is owned by the [Platform team](platform-team.md)": a reader sees "It is owned
by the Platform team", and so does an answer quoting it. Judging that answer against the note
must read the note the same way: the link's target is no word of the sentence (a file name
there reads as another service's name).
"""

from __future__ import annotations

import re

_WIKI_LINK = re.compile(r"\[\[([^\[\]|\n]+?)(?:\|([^\[\]\n]+))?\]\]")
_MD_LINK = re.compile(r"(?<!!)\[([^\[\]\n]+)\]\(([^()\s]+)(?:\s+\"[^\"\n]*\")?\)")


def as_shown(text: str) -> str:
    """``text`` with ``[text](a.md)`` as its text, ``[[note|shown]]`` as what is shown, and
    ``[[note#Heading]]`` as ``note > Heading``."""
    if "[" not in text:
        return text
    text = _MD_LINK.sub(r"\1", text)
    return _WIKI_LINK.sub(lambda m: m.group(2) or m.group(1).replace("#", " > "), text)


def link_targets(text: str) -> list[str]:
    """What the links of ``text`` lead to: ``a.md`` of ``[text](a.md)``, ``note`` of
    ``[[note|shown]]``."""
    if "[" not in text:
        return []
    wiki = (m.group(1) for m in _WIKI_LINK.finditer(text))
    return [*(m.group(2) for m in _MD_LINK.finditer(text)), *wiki]
