"""How a JSON value or a table row becomes a document or a record (the reference's rules).

* a string, or an object whose keys are all among ``text``, ``tags`` and ``payload`` (``{}``
  included), is a document: a ``text`` item;
* any other object is a record: a ``record`` item whose payload is the object and whose text is
  the space-joined values (or only the ``text_fields``);
* any other value (a number, a list, null) is a document holding its JSON form.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

DOC_KEYS = frozenset({"text", "tags", "payload"})


def stringify(value: Any) -> str:
    """A string as is; anything else as JSON, non-ASCII kept readable (or ``str`` when it is
    not JSON-serializable)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def value_text(value: Any) -> str:
    """How a field's value reads in an item's text or tags: a string as is, null as nothing,
    anything else as JSON (``true``, ``1.5``, ``{"a": "b"}``), not in Python's spelling."""
    return "" if value is None else stringify(value)


def is_document(value: Any) -> bool:
    """Whether a JSON value is a document (see the module docstring) rather than a record."""
    if isinstance(value, dict):
        return set(value) <= DOC_KEYS
    return True


def document_parts(doc: Any) -> tuple[str, list[str], dict[str, Any]]:
    """``(text, tags, payload)`` of a document: a string, a doc object, or any other value."""
    if isinstance(doc, str):
        return doc, [], {}
    if not isinstance(doc, dict):  # null and [] hold nothing: an empty doc, dropped as such
        return ("" if doc is None or doc == [] else stringify(doc)), [], {}
    text = doc.get("text")
    text = "" if text is None else text if isinstance(text, str) else stringify(text)
    tags = doc.get("tags") or []
    # as a field's value reads (null: none, true: "true"), not in Python's spelling ("None")
    tags = (
        [tags]
        if isinstance(tags, str)
        else [value_text(t) for t in tags]
        if isinstance(tags, (list, tuple))
        else [value_text(tags)]
    )
    payload = doc.get("payload") or {}
    payload = dict(payload) if isinstance(payload, Mapping) else {"value": payload}
    return text, tags, payload


def record_text(record: Mapping[str, Any], text_fields: Iterable[str] | None = None) -> str:
    """The text surface of a dict record: the chosen (or all) fields' values, space-joined
    (``value_text``: nulls left out)."""
    fields = list(text_fields) if text_fields else list(record)
    return " ".join(t for f in fields if f in record and (t := value_text(record[f])))


def record_parts(
    record: Any, text_fields: Iterable[str] | None = None
) -> tuple[str, dict[str, Any]]:
    """``(text, payload)`` of any record: a mapping, a list/tuple of values, or one value."""
    if isinstance(record, Mapping):
        return record_text(record, text_fields), dict(record)
    values = list(record) if isinstance(record, (list, tuple)) else [record]
    return " ".join(t for v in values if (t := value_text(v))), {"values": values}
