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
    ``[[note#Heading]]`` as ``note > Heading``; the markup of docs sites' notes, shortcodes,
    footnotes and components left out (``without_docs_markup``)."""
    text = without_docs_markup(text)
    if "[" not in text:
        return text
    text = INLINE_LINK.sub(lambda m: m.group("text"), text)
    return WIKI_LINK.sub(_wiki_shown, text)


# What docs sites write around their text, which a reader of the rendered page never sees:
# an admonition's opening (MkDocs' `!!! note "Title"`, Docusaurus' `:::tip`, GitHub's
# `[!WARNING]`), a template's shortcodes (Hugo's `{{< hint >}}`, Jekyll's and GitBook's
# `{% hint %}`), a footnote's mark (`[^ttl]`) and an MDX component's tags (`<Highlight>`)
_DOCS_MARKUP = re.compile(
    r"(?:^|(?<=\n))[ \t>]*(?::::+[ \t]*(?:\{[\w-]+\}|[\w-]+)?(?:\[[^\]\n]*\])?"
    r"|(?:!!!|\?\?\?\+?)[ \t]*[\w-]+(?:[ \t]+\"[^\"\n]*\")?)"
    # (a shortcode's body is short and holds no brace: bounded, a text of many "{{<" and no
    # closing one is searched in time that grows with its length, not with its square)
    r"|\{\{[<%][^{}\n]{0,200}?[%>]\}\}|\{%[^{}\n]{0,200}?%\}"
    r"|\[![A-Za-z]+\][+-]?"
    r"|\[\^[^\]\s]+\]:?"
    r"|</[A-Z][A-Za-z0-9.]+\s*>"
    r"|(?<![\w.])<[A-Z][A-Za-z0-9.]+(?:\s[^<>\n]*)?/?>"  # (not a type's "List<String>")
)
_DOCS_MARKS = (":::", "!!!", "???", "{{", "{%", "[!", "[^", "<")


def without_docs_markup(text: str) -> str:
    """``text`` without the markup of a docs site (``_DOCS_MARKUP``)."""
    if not any(mark in text for mark in _DOCS_MARKS):
        return text
    shown = _DOCS_MARKUP.sub(" ", text)
    return " ".join(shown.split()) if shown != text else text


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
