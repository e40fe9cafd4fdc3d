r"""Front matter: the ``---`` block of ``key: value`` lines at the top of a Markdown file (or the
``+++`` block of TOML, read in ``tomlfront``).

Only the simple subset of YAML that notes and docs actually use is read: scalars (quoted or not,
numbers, booleans, null), flow lists ``[a, b]`` and mappings ``{a: b}`` (nested too), block lists
of ``- item`` lines, one level of nested ``key: value`` mapping, and ``|``/``>`` block text.
A key's scalar may go on over the indented lines after it (or start on the next one): its
lines are folded as YAML folds them, a line break read as a space and an empty line as a line
break. Double quotes decode YAML's escapes (``\t``, ``\"``, ``\\``, ``\u00e9``...; a backslash
before anything else is kept, as is an escape of no character); in single quotes, ``''`` is a
quote. Anything else is kept as a string, so an unusual header never makes a file fail.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterator
from typing import Any

from substrate.ingest.formats.jsonfront import json_front_matter
from substrate.ingest.formats.records import value_text
from substrate.ingest.formats.tomlfront import toml_front_matter
from substrate.limits import FRONT_MATTER_DEPTH, FRONT_MATTER_LINES, STORABLE_INTS

# a key, bare or quoted ("a: b" or "'odd key': b"), and its value. A bare key's spaces are
# taken only before more of it: left to a lazy repeat before "\s*:", a key line of many
# spaces was read again from each of them.
_KEY = re.compile(
    r"""^("[^"]*"|'[^']*'|[A-Za-z0-9_](?:[\w.-]|[ ]++(?=[\w.-]))*+)\s*:(?:\s+(.*))?$"""
)
_TAG_KEYS = ("tags", "tag", "keywords", "categories", "category")


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        inner = value[1:-1]
        return inner.replace("''", "'") if value[0] == "'" else _unescape(inner)
    return value


# YAML's escapes in double quotes; any other backslash is kept as written (YAML refuses it),
# and so is a NUL's, as no text holds one (a file holding one is refused)
_ESCAPES = {
    **{c: c for c in ' "/\\'},
    **dict(zip("abtnvfre", "\a\b\t\n\v\f\r\x1b", strict=True)),
    **{"\t": "\t", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"},
}
# An escape, read from left to right (so that "\\u" is a backslash, then a "u"); a pair of
# surrogates first, as JSON spells a character past U+FFFF
_HEX = "[0-9A-Fa-f]"
_ESCAPE = re.compile(
    rf"\\(?:u([dD][89abAB]{_HEX}{{2}})\\u([dD][c-fC-F]{_HEX}{{2}})"
    rf"|x({_HEX}{{2}})|u({_HEX}{{4}})|U({_HEX}{{8}})|(.))",
    re.DOTALL,
)


def _unescape(text: str) -> str:
    """The text inside double quotes with its escapes decoded."""
    return _ESCAPE.sub(_escaped, text)


def _escaped(m: re.Match[str]) -> str:
    high, low, x, u, big, other = m.groups()
    if other is not None:
        return _ESCAPES.get(other, m.group(0))
    if high is not None:
        return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + (int(low, 16) - 0xDC00))
    point = int(x or u or big, 16)
    # a lone surrogate cannot be stored (it is no UTF-8); past U+10FFFF is no character
    kept = point == 0 or 0xD800 <= point < 0xE000 or point > 0x10FFFF
    return m.group(0) if kept else chr(point)


def _quoted(value: str) -> bool:
    return value[:1] in ("'", '"')


def _strip_comment(value: str) -> str:
    """``value`` without the `` # comment`` after it (a ``#`` inside quotes is kept)."""
    for at, c, quoted in _scan(value):
        if c == "#" and not quoted and at and value[at - 1] in " \t":
            return value[:at].rstrip()
    return value


def _scan(text: str) -> Iterator[tuple[int, str, bool]]:
    """Each character of a flow text with its place and whether it lies inside quotes. A
    quote opens a quoted item only where an item starts (not the one of "don't"); in double
    quotes a backslash escapes the next character, in single quotes '' is one quote."""
    quote, escaped, prev = "", False, ","
    for at, c in enumerate(text):
        if quote:
            yield at, c, True
            if escaped:
                escaped = False
            elif c == "\\" and quote == '"':
                escaped = True
            elif c == quote == "'" and text[at + 1 : at + 2] == "'":
                escaped = True  # '' is a quote inside single quotes
            elif c == quote:
                quote, prev = "", c
        elif c in "'\"" and prev in "[{,:":
            quote = c
            yield at, c, True
        else:
            yield at, c, False
            if not c.isspace():
                prev = c


def scalar(raw: str, depth: int = 0) -> Any:
    """Interpret one unindented YAML scalar (or flow list or mapping, ``depth`` deep)."""
    value = _strip_comment(raw.strip())
    if value[:1] in ("[", "{") and depth >= FRONT_MATTER_DEPTH:
        return value
    if value.startswith("[") and value.endswith("]"):
        inner = value[1:-1].strip()
        return [scalar(v, depth + 1) for v in _split_flow(inner)] if inner else []
    if value.startswith("{") and value.endswith("}"):
        return _flow_mapping(value[1:-1], depth + 1)
    if _quoted(value):
        return _unquote(value)
    lowered = value.lower()
    if lowered in ("", "~", "null"):
        return None
    if lowered in ("true", "yes"):
        return True
    if lowered in ("false", "no"):
        return False
    # a number JSON cannot store exactly (past 64 bits, or past a float's range) stays text
    if re.fullmatch(r"[-+]?\d{1,20}", value):  # (longer ones: past 64 bits, and int() of
        # thousands of digits raises)
        whole = int(value)
        return whole if whole in STORABLE_INTS else value
    if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?", value):
        number = float(value)
        return number if math.isfinite(number) else value
    return value


def _flow_mapping(inner: str, depth: int) -> dict[str, Any] | str:
    """The ``{a: b, c: [d]}`` mapping inside the braces; a part that is not ``key: value``
    leaves the whole as written."""
    mapping: dict[str, Any] = {}
    for part in _split_flow(inner):
        colon = next((at for at, c, quoted in _scan(part) if c == ":" and not quoted), -1)
        key = part[:colon].strip()
        if colon < 0 or not key:
            return "{" + inner + "}"
        mapping[_unquote(key)] = scalar(part[colon + 1 :], depth)
    return mapping


def _split_flow(inner: str) -> list[str]:
    """The items of a flow collection: split at the commas outside quotes and nested
    brackets or braces."""
    parts: list[str] = []
    start, depth = 0, 0
    for at, c, quoted in _scan(inner):
        if quoted:
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth = max(depth - 1, 0)
        elif c == "," and not depth:
            parts.append(inner[start:at])
            start = at + 1
    parts.append(inner[start:])
    return [p.strip() for p in parts if p.strip()]


def read_front_matter(lines: list[str]) -> tuple[int, dict[str, Any]] | None:
    """The index of the closing fence and the fields of the front matter (``---`` YAML,
    ``+++`` TOML or a ``{`` JSON object) that opens ``lines``, or None when there is none."""
    if lines and lines[0].rstrip() == "+++":
        return toml_front_matter(lines)
    if lines and lines[0].rstrip() == "{":
        return json_front_matter(lines)
    end = front_matter_end(lines)
    return (end, parse_block(lines[1:end])) if end > 0 else None


def front_matter_end(lines: list[str]) -> int:
    """The index of the closing ``---``/``...`` line, or -1 when there is no front matter.

    A file may also open with a ``---`` rule: front matter starts with a key on the very next
    line, and holds at least one ``key:`` line, else the block is the file's text. An empty
    block (``---`` closed at once, as Jekyll writes it to have a page processed) is front
    matter too: two rules in a row would say nothing.
    """
    if len(lines) < 2 or lines[0].rstrip() != "---" or not lines[1].strip():
        return -1
    if lines[1].rstrip() in ("---", "..."):
        return 1
    for i in range(1, min(len(lines), FRONT_MATTER_LINES)):
        if lines[i].rstrip() in ("---", "..."):
            keyed = any(_KEY.match(line.rstrip()) for line in lines[1:i] if line[:1] not in " \t")
            return i if keyed else -1
    return -1


def parse_block(lines: list[str]) -> dict[str, Any]:
    """Parse the lines between the front-matter fences into a dict."""
    fields: dict[str, Any] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#") or line[:1] in " \t":
            continue
        m = _KEY.match(line.rstrip())
        if not m:
            continue
        key, raw = _unquote(m.group(1)), (m.group(2) or "").strip()
        body = []
        while i < len(lines) and (not lines[i].strip() or lines[i][:1] in " \t-"):
            if (
                lines[i].startswith("-")
                and not lines[i].startswith("- ")
                and lines[i].strip() != "-"
            ):
                break
            body.append(lines[i])
            i += 1
        fields[key] = _value(raw, body)
    return fields


def _value(raw: str, body: list[str]) -> Any:
    content = [b for b in body if b.strip()]
    if raw in ("|", ">", "|-", ">-", "|+", ">+"):
        text = textwrap.dedent("\n".join(b.rstrip() for b in body)).strip("\n")
        if raw.startswith("|"):  # literal: as written, deeper lines indented still
            return text
        # folded: the lines of a paragraph joined, paragraphs kept apart
        return "\n".join(" ".join(p.split("\n")) for p in re.split(r"\n\s*\n", text))
    if raw[:1] in "[{" and raw[-1:] not in "]}" and content:  # a flow list over lines
        return scalar(" ".join([raw, *(b.strip() for b in content)]))
    if not raw and content and not _structured(content[0]):  # a scalar begun on the next line
        at = body.index(content[0])
        return _value(content[0].strip(), body[at + 1 :])
    if raw and content:
        return _continued(raw, body)
    if not content:
        return scalar(raw)
    indents = {len(b) - len(b.lstrip()) for b in content}
    if len(indents) > 1:  # deeper than one level: kept as it is written
        return textwrap.dedent("\n".join(b.rstrip() for b in body)).strip("\n")
    if all(b.lstrip().startswith("-") for b in content):
        return [scalar(b.lstrip()[1:]) for b in content]
    nested: dict[str, Any] = {}
    for b in content:
        m = _KEY.match(b.strip())
        if m:
            nested[_unquote(m.group(1))] = scalar(m.group(2) or "")
    return nested


def _structured(line: str) -> bool:
    """Whether an indented line under an empty key is a list item, a ``key:`` or a comment:
    no scalar's first line."""
    item = line.strip()
    return item.startswith(("- ", "#")) or item == "-" or _KEY.match(item) is not None


def _continued(raw: str, body: list[str]) -> Any:
    """The scalar that starts with ``raw`` and may go on over the indented lines after it
    (``body``), as YAML reads one: lines folded (see ``_fold``), a quoted one up to its
    closing quote. A flow collection, a value that a comment ends, or a quote never closed
    ends with its line, as before."""
    lines = [raw]
    for line in body:  # continuation lines are indented (a blank one is a line break)
        if line.strip() and line[:1] not in " \t":
            break
        lines.append(line)
    if _quoted(raw):
        return _quoted_lines(lines)
    if raw[:1] in "[{" or _strip_comment(raw) != raw:
        return scalar(raw)
    plain = [raw]
    for line in lines[1:]:
        kept = _strip_comment(line.strip())
        if kept.startswith("#"):
            break
        plain.append(kept)
        if kept != line.strip():  # a comment ends the scalar
            break
    while not plain[-1]:
        plain.pop()
    return scalar(_fold(plain))


def _quoted_lines(lines: list[str]) -> Any:
    """A quoted scalar that may run over ``lines``, up to its closing quote."""
    text = "\n".join(lines)
    end = _closing_quote(text)
    if end < len(lines[0]):  # closed on its first line (or never: kept as written)
        return scalar(lines[0])
    parts = text[1:end].split("\n")
    if text[0] == "'":
        return _fold(parts).replace("''", "'")
    return _unescape(_fold(_escaped_breaks(parts)))


def _closing_quote(text: str) -> int:
    """Where the quoted scalar opening ``text`` closes, or -1."""
    quote, at = text[0], 1
    while at < len(text):
        if quote == '"' and text[at] == "\\":
            at += 2
        elif text[at] == quote and quote == "'" and text[at + 1 : at + 2] == "'":
            at += 2  # '' is a quote inside single quotes
        elif text[at] == quote:
            return at
        else:
            at += 1
    return -1


def _escaped_breaks(parts: list[str]) -> list[str]:
    """The lines of a double-quoted scalar, each that ends in an escaped line break (an odd
    run of backslashes) joined to the next one, as YAML does, without a space."""
    joined = [parts[0]]
    for part in parts[1:]:
        previous = joined[-1]
        if (len(previous) - len(previous.rstrip("\\"))) % 2:
            joined[-1] = previous[:-1] + part.lstrip(" \t")
        else:
            joined.append(part)
    return joined


def _fold(parts: list[str]) -> str:
    """The lines of a scalar joined as YAML folds them: the white space around each line break
    dropped, a line break between two lines read as a space, and each empty line between them
    as a line break."""
    text, breaks = parts[0].rstrip(" \t"), 0
    for at, part in enumerate(parts[1:], 1):
        last = at == len(parts) - 1  # its end is the scalar's end, kept
        piece = part.lstrip(" \t") if last else part.strip(" \t")
        if not piece and not last:
            breaks += 1
            continue
        text += "\n" * breaks if breaks else " "
        text, breaks = text + piece, 0
    return text


# A page property as Logseq writes its page's first lines ("title:: Team Handbook")
# (a blank or the line's end after "::": "std::cout << x;" opens code, not properties)
_PAGE_PROPERTY = re.compile(r"([A-Za-z][\w-]*)::(?:[ \t]+(.*?))?[ \t]*\r?")


def read_page_properties(text: str) -> tuple[int, dict[str, Any]] | None:
    """The fields the ``key:: value`` lines opening ``text`` give (Logseq's page properties,
    its front matter: ``title::``, ``tags::``, ``alias::``), with where the text after them
    starts; None when it opens otherwise. A value's page links are read as their names."""
    fields: dict[str, Any] = {}
    pos = 0
    for _ in range(FRONT_MATTER_LINES):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        m = _PAGE_PROPERTY.fullmatch(text, pos, end)
        if m is None:
            break
        fields[m[1]] = (m[2] or "").replace("[[", "").replace("]]", "")
        pos = end + 1
        if pos >= len(text):
            break
    return (min(pos, len(text)), fields) if fields else None


def split_tags(fields: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """Separate the tag-like keys (``tags``, ``keywords``, ...) from the other fields.

    A comma-separated string counts as a list, and so does a flow list left open (``[a, b``,
    which YAML would refuse); tags keep their first-seen order, without duplicates.
    """
    tags: list[str] = []
    rest: dict[str, Any] = {}
    for key, value in fields.items():
        if key.lower() not in _TAG_KEYS:
            rest[key] = value
            continue
        if isinstance(value, list):
            values = _flattened(value)
        elif isinstance(value, str):  # "a, b" is two tags, and so is "[a, b" (left open)
            left_open = value.startswith("[") and not value.endswith("]")
            values = (value[1:] if left_open else value).split(",")
        else:  # a number, true, a mapping: one tag, spelled as JSON; null: none
            values = [] if value is None else [value]
        for v in values:
            tag = value_text(v).strip().removeprefix("#").strip()  # "#urgent", as notes write it
            if tag and tag not in tags:
                tags.append(tag)
    return tags, rest


def _flattened(values: list[Any]) -> list[Any]:
    """A list with the items of nested lists in their place (``[a, [b, c]]``: a, b, c)."""
    flat: list[Any] = []
    for v in values:
        flat.extend(_flattened(v) if isinstance(v, list) else [v])
    return flat
