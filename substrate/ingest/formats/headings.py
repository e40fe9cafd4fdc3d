"""A Markdown heading as a reader sees it: its text without inline markup, and its anchor.

``## [Install](https://example.com) guide`` reads "Install guide", and a link to
``setup.md#install-guide`` finds it, as a rendered page's anchor would; ``**Bold** words``
reads "Bold words". An explicit id written after the heading (``## Configuration {#config}``,
as Pandoc, kramdown, MkDocs and Hugo write it) is the section's anchor and no part of its text.
Code spans keep what they hold as it is (``__init__`` is no emphasis).
"""

from __future__ import annotations

import re

from substrate.notelinks import ANCHOR

__all__ = ["ANCHOR", "heading_text"]

# An attribute list ending the heading (looked for in its last _ID_CHARS): "{#id}", "{#id
# .class key=value}", "{.class #id}", kramdown's "{: #id}"; its "#id" is the anchor
_ATTRIBUTE = r"(?:[#.][^\s{}]+|[\w-]+=(?:\"[^\"{}]*\"|[^\s{}]+))"  # "#id", ".class", "k=v"
_ATTRIBUTES = re.compile(
    rf"(?<!\\)\{{:?[ \t]*({_ATTRIBUTE}(?:[ \t]+{_ATTRIBUTE})*)[ \t]*\}}[ \t]*$"
)
_ID = re.compile(r"(?:^|[ \t])#([^\s{}]+)")
# An inline HTML tag of the kinds written in headings ("<a id="x"></a>Install", "<code>x</code>"):
# markup, not words (a type's "<T>" is no such tag)
_HTML_TAG = re.compile(
    r"</?(?:a|span|code|kbd|em|strong|b|i|u|sup|sub|small|mark|img|br|abbr)"
    r"(?:\s+[\w:-]+(?:=(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*\s*/?>",
    re.IGNORECASE,
)
_ID_CHARS = 200
# The most of a heading read for its markup: a section path keeps ~200 characters of it, and
# emphasis is found in time that grows with the square of the text read (a heading may be a
# megabyte of minified text); the rest is kept as written
_READ_CHARS = 1000
# a mark that may make markup: without one, a heading reads as written
_MARKUP = re.compile(r"[\[*_`\\]")
# what is taken as it is: a code span ("`__init__`" is no emphasis) and an escaped mark
_LITERAL = re.compile(r"(`+)(.+?)\1|\\([!-/:-@\[-`{-~])")
# an image or a link, inline ("[text](url)") or by reference ("[text][ref]"): its text
_LINK = re.compile(r"!?\[([^\[\]]*)\](?:\([^()]*\)|\[[^\[\]]*\])")
# emphasis: "*" anywhere, "_" only at word edges (snake_case names stay as they are); a mark
# opens before a character that is no space nor mark, and closes after one ("*args and
# **kwargs", "* and **" are no emphasis)
_STARS = re.compile(r"(?<!\*)(\*{1,3})(?=[^\s*])(.+?)(?<=[^\s*])\1(?!\*)")
_UNDERSCORES = re.compile(r"(?<![\w_])(_{1,3})(?=[^\s_])(.+?)(?<=[^\s_])\1(?![\w_])")


def heading_text(raw: str) -> tuple[str, str | None]:
    """``raw`` (a heading line's title) as plain text, and its explicit id (None when it has
    none)."""
    anchor = None
    if raw.rstrip().endswith("}"):  # (seldom: the list is looked for in the last _ID_CHARS)
        listed = _ATTRIBUTES.search(raw, max(0, len(raw) - _ID_CHARS))
        if listed is not None:
            named = _ID.search(listed.group(1))
            anchor = named.group(1) if named else None
            raw = raw[: listed.start()].rstrip(" \t")
    if "<" in raw:
        raw = " ".join(_HTML_TAG.sub(" ", raw).split())
    if _MARKUP.search(raw) is None:  # nearly every heading: nothing to undo
        return raw, anchor
    head, rest = raw[:_READ_CHARS], raw[_READ_CHARS:]
    parts: list[str] = []
    last = 0
    for literal in _LITERAL.finditer(head):
        parts.append(_plain(head[last : literal.start()]))
        parts.append(literal.group(3) or literal.group(2).strip() or literal.group(2))
        last = literal.end()
    parts.append(_plain(head[last:]))
    return "".join(parts) + rest, anchor


def _plain(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    while True:  # "***both***" and "**_nested_**" take one pass per level
        undone = _UNDERSCORES.sub(r"\2", _STARS.sub(r"\2", text))
        if undone == text:
            return text
        text = undone
