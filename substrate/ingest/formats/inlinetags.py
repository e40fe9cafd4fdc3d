"""Tags written in a note's text, as Obsidian, Logseq and Bear read them: ``#project/alpha``.

A tag starts a word (the line's start or a blank before its ``#``), holds letters, digits,
``_``, ``-`` and ``/`` (a nested tag), and is not a number alone (``#12`` is an issue). Code,
fenced or in a span, holds none (``#include`` in it is code), nor does an Obsidian comment
(``%% ... %%``). A heading's ``# `` is followed by a blank, a URL's fragment and ``C#`` by no
blank before it: none is a tag.
"""

from __future__ import annotations

import re

from substrate.ingest.formats.notelinks import without_fenced_code
from substrate.markdowncode import CODE

# An Obsidian comment, hidden when the note is read: "%% #draft, to do %%"
_COMMENT = re.compile(r"%%.*?%%", re.DOTALL)
# (the "#" first, the blank before it looked back at: the search then skips to each "#")
_TAG = re.compile(r"#(?<!\S#)(?![\d/-]*(?![\w/-]))([\w/-]*\w)")


def may_hold_tags(text: str) -> bool:
    """Whether ``text`` may write a tag (one look for its shape, code not told apart)."""
    return "#" in text and _TAG.search(text) is not None  # (most: headings' "# " alone)


def inline_tags(text: str) -> list[str]:
    """The tags ``text`` writes, each once, in the order written, without their ``#``."""
    if not may_hold_tags(text):
        return []
    prose = _COMMENT.sub(" ", CODE.sub(" ", without_fenced_code(text)))
    return list(dict.fromkeys(m.group(1) for m in _TAG.finditer(prose)))
