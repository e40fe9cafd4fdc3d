"""Front matter: the ``---`` block of ``key: value`` lines at the top of a Markdown file.

Only the simple subset of YAML that notes and docs actually use is read: scalars (quoted or not,
numbers, booleans, null), flow lists ``[a, b]`` and mappings ``{a: b}`` (nested too), block lists
of ``- item`` lines, one level of nested ``key: value`` mapping, and ``|``/``>`` block text.
Anything else is kept as a string, so an unusual header never makes a file fail.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

from substrate.ingest.formats.records import value_text

_KEY = re.compile(r"^([A-Za-z0-9_][\w .-]*?)\s*:(?:\s+(.*))?$")
_TAG_KEYS = ("tags", "tag", "keywords", "categories", "category")


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        inner = value[1:-1]
        return inner.replace("''", "'") if value[0] == "'" else inner.replace('\\"', '"')
    return value


def _quoted(value: str) -> bool:
    return value[:1] in ("'", '"')


def _strip_comment(value: str) -> str:
    if _quoted(value):
        return value
    hash_at = value.find(" #")
    return value[:hash_at].rstrip() if hash_at >= 0 else value


def scalar(raw: str) -> Any:
    """Interpret one unindented YAML scalar (or flow list or mapping)."""
    value = _strip_comment(raw.strip())
    if value.startswith("[") and value.endswith("]"):
        inner = value[1:-1].strip()
        return [scalar(v) for v in _split_flow(inner)] if inner else []
    if value.startswith("{") and value.endswith("}"):
        return _flow_mapping(value[1:-1])
    if _quoted(value):
        return _unquote(value)
    lowered = value.lower()
    if lowered in ("", "~", "null"):
        return None
    if lowered in ("true", "yes"):
        return True
    if lowered in ("false", "no"):
        return False
    if re.fullmatch(r"[-+]?\d+", value):
        return int(value)
    if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?", value):
        return float(value)
    return value


def _flow_mapping(inner: str) -> dict[str, Any] | str:
    """The ``{a: b, c: [d]}`` mapping inside the braces; a part that is not ``key: value``
    leaves the whole as written."""
    mapping: dict[str, Any] = {}
    for part in _split_flow(inner):
        key, sep, value = part.partition(":")
        if not sep or not key.strip():
            return "{" + inner + "}"
        mapping[_unquote(key.strip())] = scalar(value)
    return mapping


def _split_flow(inner: str) -> list[str]:
    """The items of a flow collection: split at the commas outside quotes and nested
    brackets or braces."""
    parts: list[str] = []
    buf: list[str] = []
    quote, depth = "", 0
    for c in inner:
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"" and not "".join(buf).strip():  # quotes open an item, not "don't"
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth = max(depth - 1, 0)
        elif c == "," and not depth:
            parts.append("".join(buf))
            buf = []
            continue
        buf.append(c)
    parts.append("".join(buf))
    return [p.strip() for p in parts if p.strip()]


def front_matter_end(lines: list[str]) -> int:
    """The index of the closing ``---``/``...`` line, or -1 when there is no front matter.

    A file may also open with a ``---`` rule: front matter starts with a key on the very next
    line, and holds at least one ``key:`` line, else the block is the file's text.
    """
    if len(lines) < 2 or lines[0].rstrip() != "---" or not lines[1].strip():
        return -1
    for i in range(1, min(len(lines), 1000)):
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
        key, raw = m.group(1), (m.group(2) or "").strip()
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
        text_lines = [b.strip() for b in body]
        joiner = "\n" if raw.startswith("|") else " "
        return joiner.join(text_lines).strip()
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
            nested[m.group(1)] = scalar(m.group(2) or "")
    return nested


def split_tags(fields: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """Separate the tag-like keys (``tags``, ``keywords``, ...) from the other fields.

    A comma-separated string counts as a list; tags keep their first-seen order, without
    duplicates.
    """
    tags: list[str] = []
    rest: dict[str, Any] = {}
    for key, value in fields.items():
        if key.lower() not in _TAG_KEYS:
            rest[key] = value
            continue
        values = value if isinstance(value, list) else str(value).split(",") if value else []
        for v in _flattened(values):
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
