"""Front matter: the ``---`` block of ``key: value`` lines at the top of a Markdown file (or the
``+++`` block of TOML, read in ``tomlfront``).

Only the simple subset of YAML that notes and docs actually use is read: scalars (quoted or not,
numbers, booleans, null), flow lists ``[a, b]`` and mappings ``{a: b}`` (nested too), block lists
of ``- item`` lines, one level of nested ``key: value`` mapping, and ``|``/``>`` block text.
Anything else is kept as a string, so an unusual header never makes a file fail.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterator
from typing import Any

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
        return inner.replace("''", "'") if value[0] == "'" else inner.replace('\\"', '"')
    return value


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
    """The index of the closing fence and the fields of the front matter (``---`` YAML or
    ``+++`` TOML) that opens ``lines``, or None when there is none."""
    if lines and lines[0].rstrip() == "+++":
        return toml_front_matter(lines)
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
    if raw or not content:
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
            tag = value_text(v).strip()
            if tag and tag not in tags:
                tags.append(tag)
    return tags, rest


def _flattened(values: list[Any]) -> list[Any]:
    """A list with the items of nested lists in their place (``[a, [b, c]]``: a, b, c)."""
    flat: list[Any] = []
    for v in values:
        flat.extend(_flattened(v) if isinstance(v, list) else [v])
    return flat
