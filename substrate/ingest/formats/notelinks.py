"""Links from one note to another, as a Markdown section writes them.

``[text](other.md)`` and ``[text](../ops/deploys.md#rollback)`` are resolved against the
note's folder (a path starting with ``/`` against the folder ingested) and kept as absolute
paths, with their ``#anchor``; ``[text](#rollback)`` points into the note itself.
``[[other note]]``, ``[[other note#Heading]]`` and ``[[folder/other|shown text]]`` name a note
the way wiki-style editors do, by its file name without extension anywhere in the folder
ingested: they are kept as written (``[[other note#Heading]]``, without the shown text), and
found when a hop follows them (``substrate.notelinks``), so a note added later is found too.

Links with a scheme (``https:``, ``mailto:``), images (``![..](..)``, ``![[a.png]]``; a note
embedded, ``![[other]]``, is a link) and anything inside code (fenced blocks, `` `spans` ``,
where ``[[ -f x ]]`` is shell) or an HTML comment are left out. Reference-style links
(``[text][id]``) and code blocks marked by indentation alone are not told apart.
"""

from __future__ import annotations

import os
import re
from urllib.parse import unquote

from substrate.ingest.formats.context import ParseContext
from substrate.linktext import INLINE_LINK, WIKI_LINK
from substrate.markdowncode import CODE, COMMENT, FENCED, blanked
from substrate.notelinks import NOTE_LINKS, ingest_root

__all__ = ["INLINE_LINK", "MAX_LINKS", "NOTE_LINKS", "WIKI_LINK", "note_links"]

# A section linking to more notes than this keeps the first ones: an index page of a thousand
# links would otherwise copy them into each of its chunks.
MAX_LINKS = 32

_BLOCKS = re.compile(f"{FENCED}|{COMMENT}", re.MULTILINE | re.DOTALL)
# what an embed (``![[a.png]]``) names when it is an image, not a note
_MEDIA = re.compile(r"\.(?:png|jpe?g|gif|svg|webp|bmp|pdf|mp[34]|webm|wav|ogg|mov)$", re.IGNORECASE)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def without_fenced_code(text: str) -> str:
    """``text`` with its fenced code blocks and HTML comments blanked, every character but a
    line break a space: each other character stays where it was. (Code spans are left to
    ``note_links``: they lie within a paragraph, and looking for them through a whole section
    would take time quadratic in a run of backticks.)"""
    if "```" not in text and "~~~" not in text and "<!--" not in text:
        return text
    return blanked(_BLOCKS, text)


def note_links(text: str, ctx: ParseContext) -> list[str]:
    """The notes ``text`` links to, each once, in the order written (at most ``MAX_LINKS``)."""
    if "](" not in text and "[[" not in text:  # most sections: two scans, nothing else
        return []
    prose = CODE.sub(" ", text)
    found: list[str] = []
    for m in INLINE_LINK.finditer(prose):
        target = _resolved(m.group("angled") or m.group("bare"), ctx)
        if target is not None:
            found.append(target)
    for m in WIKI_LINK.finditer(prose):
        name = (m.group("name") or "").strip().rstrip("\\")  # (``\|`` in a table cell)
        anchor = (m.group("anchor") or "").strip().rstrip("\\")
        if m.group("embed") and _MEDIA.search(name):
            continue
        if name:
            found.append(f"[[{name}{anchor if anchor != '#' else ''}]]")
        elif anchor != "#" and ctx.path is not None:  # [[#Heading]]: in this very note
            found.append(f"{ctx.path}{anchor}")
    return list(dict.fromkeys(found))[:MAX_LINKS]


def _resolved(target: str, ctx: ParseContext) -> str | None:
    """The absolute path (and ``#anchor``) a link names, or None (a web link, a stream)."""
    target = target.strip()
    if ctx.path is None or _SCHEME.match(target) or target.startswith("//"):
        return None
    path, _, anchor = target.partition("#")
    path = unquote(path.split("?", 1)[0])
    if not path:
        if not anchor:
            return None
        resolved = ctx.path  # a heading of this very note
    elif path.startswith("/"):
        root = ingest_root(ctx.path, ctx.name)
        if root is None:
            return None
        resolved = os.path.normpath(root + path)
    else:
        resolved = os.path.normpath(os.path.join(os.path.dirname(ctx.path), path))
    return f"{resolved}#{unquote(anchor)}" if anchor else resolved
