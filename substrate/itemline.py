"""An item as a line of the shard's log, and what stops an item being written as one.

Every reader of the log refuses a line it cannot read, so a line is checked before it is
acknowledged: one bad line would stop every later command.
"""

from __future__ import annotations

import math
import sys
import unicodedata
from dataclasses import fields, is_dataclass
from typing import Any

import orjson

from substrate.errors import InvalidInputError
from substrate.item import SubstrateItem, fact_part, record_problem


def encode(item: SubstrateItem) -> bytes:
    """One log line for ``item``: its fields with the id first."""
    body = _fields_of(item)
    # what readers would refuse must not be acknowledged: one bad line stops every reader
    problem = record_problem(body)
    if problem is None and not (isinstance(item.id, str) and item.id):
        problem = "'id' must be a non-empty string"
    if problem is not None:
        raise InvalidInputError(f"item {item.id!r} cannot be saved: {problem}")
    try:
        line = orjson.dumps(body, option=orjson.OPT_SERIALIZE_NUMPY)
    except orjson.JSONEncodeError as exc:  # a string with lone surrogates, a foreign object
        raise InvalidInputError(f"item {item.id!r} cannot be saved: {exc}") from None
    # orjson writes NaN and infinity as null: the value would come back as None. Only a line
    # holding a null can hold one, so most items are not walked.
    if b"null" in line and holds_non_finite((item.payload, item.provenance)):
        raise InvalidInputError(
            f"item {item.id!r} cannot be saved: its payload or provenance holds a number that "
            "is not finite (NaN or infinity), which JSON cannot carry"
        )
    return line + b"\n"


def _fields_of(item: SubstrateItem) -> dict[str, Any]:
    """``item``'s fields as a record, the id first (spelled out: this is hot)."""
    return {
        "id": item.id,
        "kind": item.kind,
        "text": item.text,
        "payload": item.payload,
        "provenance": item.provenance,
        "scope": item.scope,
        "tags": item.tags,
        "links": item.links,
        "created_at": item.created_at,
    }


def put_problem(item: SubstrateItem) -> str | None:
    """Why an item put into a shard cannot be kept as it is: a field of another type than
    every record has (``record_problem``: ``tags=None`` would stop every later search), its
    names, or its facts. Records written before the last two were checked are read, searched
    and removed as ever."""
    record = _fields_of(item)
    for name in ("tags", "links"):  # a tuple is kept as given in memory, as the seed's store
        if isinstance(record[name], tuple):  # keeps it (``encode`` refuses it on disk)
            record[name] = list(record[name])
    return record_problem(record) or _name_problem(item) or _triples_problem(item)


def _name_problem(item: SubstrateItem) -> str | None:
    """Why the id, the links or the scope of an item cannot name one: blank, or holding a
    control character or a line separator (a line break in a link would forge a line of
    every report that lists it)."""
    if not (isinstance(item.id, str) and item.id.strip()):
        return "'id' must be a non-empty string"
    if _holds_control(item.id):
        return "'id' must hold no control character"
    if not all(isinstance(link, str) and not _holds_control(link) for link in item.links):
        return "'links' must hold no control character"
    if not (isinstance(item.scope, str) and item.scope.strip()) or _holds_control(item.scope):
        return "'scope' must be a non-empty name with no control character"
    return None


# Control characters, and the line and paragraph separators that split a line as well
_BREAKING = frozenset({"Cc", "Zl", "Zp"})


def _holds_control(name: str) -> bool:
    """Whether ``name`` holds a control character or a line separator; joiners and other
    invisible characters that spell words of some scripts are no such character."""
    return not name.isprintable() and any(unicodedata.category(ch) in _BREAKING for ch in name)


def _triples_problem(item: SubstrateItem) -> str | None:
    """Why a graph item's ``triples`` cannot be read as facts: each is a list of a head, a
    relation and a tail, every one a name (a non-empty string) or a number. Read otherwise,
    a triple of two parts was passed over and a missing head written "None"."""
    triples = item.payload.get("triples") if item.kind == "graph" else None
    if triples is None:
        return None
    if not isinstance(triples, list):
        return "'payload.triples' must be a list of [head, relation, tail]"
    for triple in triples:
        if not (isinstance(triple, list | tuple) and len(triple) == 3):
            return f"each triple must be [head, relation, tail], not {_shown_value(triple)}"
        if not all(fact_part(part) for part in triple) or any(
            isinstance(part, str) and _holds_control(part) for part in triple
        ):
            return (
                "a triple's parts must be names (with no control character), numbers or "
                f"true or false: {_shown_value(triple)}"
            )
    return None


def _shown_value(value: object) -> str:
    from substrate.secrets import safe_repr  # a triple may hold a secret (the gate's, after)

    return safe_repr(value)


# Values that are never a number that is not finite, nor hold one (bool is an int)
_FINITE = (str, int, type(None))


def holds_non_finite(value: Any) -> bool:
    """Whether ``value`` holds, at any depth, a float (or a numpy array of them) that is NaN
    or infinite."""
    if isinstance(value, float):
        return not math.isfinite(value)
    # strings, whole numbers and nulls, most of what a line holds, are passed over here
    if isinstance(value, dict):
        return any(holds_non_finite(v) for v in value.values() if not isinstance(v, _FINITE))
    if isinstance(value, list | tuple):
        return any(holds_non_finite(v) for v in value if not isinstance(v, _FINITE))
    if is_dataclass(value) and not isinstance(value, type):  # orjson writes their fields
        return any(holds_non_finite(getattr(value, f.name)) for f in fields(value))
    numpy = sys.modules.get("numpy")  # an array came with it imported
    if numpy is not None and isinstance(value, numpy.ndarray | numpy.floating):
        return value.dtype.kind in "fc" and not bool(numpy.isfinite(value).all())
    return False


def decode(line: bytes) -> SubstrateItem:
    """The item of a log line made by ``encode``."""
    return SubstrateItem.from_json(orjson.loads(line))
