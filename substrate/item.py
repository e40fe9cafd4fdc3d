"""The item model: one typed, provenanced, scoped piece of knowledge."""

from __future__ import annotations

import copy
import logging
import math
import time
import uuid
from dataclasses import dataclass, field, fields
from typing import Any

from substrate.errors import InvalidInputError

log = logging.getLogger(__name__)

MODALITIES: tuple[str, ...] = (
    "text",
    "record",
    "image",
    "signal",
    "graph",
    "field",
    "event_stream",
    "artifact",
    "trace",
    "context",
)


def require_kind(kind: object) -> None:
    """Refuse a kind filter naming no kind: it would match nothing, as a slip ("artefact")
    would read as "no such items"."""
    if kind not in MODALITIES:
        raise InvalidInputError(
            f"unknown kind {_safe_repr(kind)}; expected one of {', '.join(MODALITIES)}"
        )


def new_id() -> str:
    """A fresh 16-hex item id (the first half of a uuid4)."""
    return uuid.uuid4().hex[:16]


@dataclass(slots=True)
class SubstrateItem:
    """One typed, provenanced, scoped item in the substrate."""

    kind: str
    text: str = ""
    payload: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    scope: str = "local"
    tags: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    id: str = field(default_factory=new_id)
    created_at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        if self.kind not in MODALITIES:
            raise InvalidInputError(
                f"unknown modality {_safe_repr(self.kind)}; expected one of {', '.join(MODALITIES)}"
            )

    def __repr__(self) -> str:
        """The item in short: what it is, and the start of its text (printed whole, a hit of
        a search was tens of thousands of characters, its payload with it), its secrets
        masked (an item stored with ``--no-redact`` shown in a log or a traceback), before it
        is cut (a secret cut in two would be found in neither part)."""
        from substrate.secrets import safe_text  # (the rules: only for an item printed)

        text = safe_text(self.text)
        text = text if len(text) <= _REPR_TEXT else f"{text[: _REPR_TEXT - 1]}…"
        return (
            f"SubstrateItem(kind={self.kind!r}, id={self.id!r}, scope={self.scope!r}, "
            f"text={text!r})"
        )

    def __reduce__(self) -> tuple[type[SubstrateItem], tuple[Any, ...]]:
        # Items cross process boundaries in bulk (parallel ingestion): rebuilding from the
        # constructor's arguments pickles several times faster than slot-by-slot state.
        return (
            SubstrateItem,
            (
                self.kind,
                self.text,
                self.payload,
                self.provenance,
                self.scope,
                self.tags,
                self.links,
                self.id,
                self.created_at,
            ),
        )

    def to_json(self) -> dict[str, Any]:
        """A deep-copied plain dict whose keys are the constructor's arguments."""
        return {f: copy.deepcopy(getattr(self, f)) for f in FIELD_ORDER}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SubstrateItem:
        """Rebuild an item, ignoring fields written by a newer version of the format."""
        if not isinstance(d, dict):
            raise InvalidInputError(f"an item must be a JSON object, not {type(d).__name__}")
        known = {k: v for k, v in d.items() if k in FIELD_NAMES}
        if len(known) != len(d):
            log.debug("ignoring unknown item fields: %s", sorted(set(d) - FIELD_NAMES))
        if "kind" not in known:
            raise InvalidInputError("item has no 'kind'")
        return cls(**known)


def record_problem(data: dict[str, Any]) -> str | None:
    """Why a stored record cannot be an item (a hand edit, another tool), or None if it can."""
    kind = data.get("kind")
    if "kind" not in data:
        return "'kind' is missing"
    if not isinstance(kind, str) or kind not in MODALITIES:
        # the value is not quoted: the record may be of a scope the reader may not see
        return f"'kind' is none of {', '.join(MODALITIES)}"
    for name, expected in _FIELD_TYPES:
        if name in data and not isinstance(data[name], expected):
            return f"'{name}' must be a {expected.__name__}"
    # a field mixle writes gone where one it does not write is: a key damaged by hand or by
    # the disk ("scoop" for "scope", "payloda"), which read by default would move the item to
    # scope "local", or empty its text or payload (a record written with only some fields is
    # read as it is)
    missing = [name for name in FIELD_ORDER if name not in data]
    if missing and any(key not in FIELD_NAMES for key in data):
        return f"'{missing[0]}' is missing, where a field mixle never writes is (a damaged key?)"
    for name in ("tags", "links"):
        value = data.get(name, _NO_STRINGS)
        # every record is checked as it is written: most lists are empty
        if not isinstance(value, list) or (value and not all(isinstance(v, str) for v in value)):
            return f"'{name}' must be a list of strings"
    created = data.get("created_at", 0.0)
    if isinstance(created, bool) or not isinstance(created, int | float):
        return "'created_at' must be a number"
    if not math.isfinite(created):  # JSON has no NaN or infinity: it would be stored as null
        return "'created_at' must be a finite number"
    return None


_REPR_TEXT = 80  # characters of an item's text its repr shows

_FIELD_TYPES = (("text", str), ("payload", dict), ("provenance", dict), ("scope", str))

# The deepest nesting a stored record may have. mixle writes no value deeper than the gate's
# 64 levels; one a hand or another tool wrote deeper than this could be read, but not written
# again, and each command that keeps or indexes it would fail on it.
RECORD_DEPTH = 200


def nesting_problem(raw: bytes, data: dict[str, Any]) -> str | None:
    """Why a record read from the log line ``raw`` is nested too deep to keep, or None. Only a
    line holding that many brackets can be, so most lines are not walked."""
    if raw.count(b"{") + raw.count(b"[") <= RECORD_DEPTH:
        return None
    level: list[tuple[Any, int]] = [(data, 1)]
    while level:
        value, depth = level.pop()
        if depth > RECORD_DEPTH:
            return f"nested deeper than {RECORD_DEPTH} levels"
        inner = value.values() if isinstance(value, dict) else value
        level.extend((v, depth + 1) for v in inner if isinstance(v, dict | list))
    return None


# What is read back from a record's provenance or payload was written by mixle, or by a hand
# that may have given a field another shape: these readers take what mixle writes and pass
# over anything else, rather than let one edited record break every command that reads it.

_INT_RANGE = 1 << 63  # what JSON tools, and orjson, carry exactly


def whole_number(value: object, default: int = 0) -> int:
    """``value`` as an int, when it is a number within the range JSON carries exactly (a
    float's whole part, or digits in a string), else ``default``; a bool is no number here."""
    if isinstance(value, str) and value.strip().removeprefix("-").isdecimal():
        value = int(value) if len(value) < 40 else default
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    if isinstance(value, float) and not math.isfinite(value):
        return default
    return int(value) if -_INT_RANGE < value < _INT_RANGE else default


def fact_part(value: object) -> bool:
    """Whether ``value`` may be a head, a relation or a tail of a graph item's triple: a name
    (a string with something in it), a finite number, true or false."""
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, int | float) and math.isfinite(value)


# The provenance field of a record read from a JSON map of objects: the key naming it ("svc42")
MAP_KEY = "map_key"


def facts_of(item: SubstrateItem) -> list[tuple[Any, Any, Any]]:
    """A graph item's triples that state a fact, each ``(head, relation, tail)`` of names,
    numbers or true or false; none for another kind of item (one written before triples were
    checked may hold a triple missing a part: it states nothing)."""
    triples = item.payload.get("triples") if item.kind == "graph" else None
    if not isinstance(triples, list):
        return []
    return [
        (t[0], t[1], t[2])
        for t in triples
        if isinstance(t, list | tuple) and len(t) == 3 and all(map(fact_part, t))
    ]


def place_value(value: object) -> int | float | str | None:
    """``value`` when it is a number or a string (a chunk, an index: something to compare
    and to look up), else None."""
    return value if isinstance(value, int | float | str) else None


def dict_entries(value: object) -> list[dict[str, Any]]:
    """The objects of a list of entries (a history, proposal events); [] for anything else."""
    return [entry for entry in value if isinstance(entry, dict)] if isinstance(value, list) else []


_NO_STRINGS: list[str] = []

FIELD_ORDER: tuple[str, ...] = tuple(f.name for f in fields(SubstrateItem))
FIELD_NAMES: frozenset[str] = frozenset(FIELD_ORDER)


def _safe_repr(value: object) -> str:
    from substrate.secrets import safe_repr  # only for error messages: not imported otherwise

    return safe_repr(value)
