"""Notes that say they were replaced, so that an answer is not taken from them.

Teams mark a decision record or a page that no longer holds in its front matter (read into
each item's payload): ``status: superseded`` (or deprecated, obsolete, outdated, ...), a
``superseded_by:`` naming its successor, or, in the successor, ``supersedes:`` naming it.
An answer quoting the old note states, with full confidence, what the team decided against
("max_retries is 3" when the newer record says 5). ``current_evidence`` passes such items
over when the evidence holds another item; what it passed over is reported, never hidden.

Only the evidence itself is looked at: a ``supersedes`` in a note the question did not bring
up is not searched for (that would read the whole shard on every question), and a note the
reader may not see never decides what the reader is told.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence

from substrate.item import SubstrateItem

# Front-matter ``status`` values that say a note no longer holds (ADR and wiki usage).
RETIRED_STATUSES = frozenset(
    "superseded deprecated obsolete outdated archived replaced retired withdrawn rejected".split()
)
# Front-matter fields naming the note's successor, and in a successor, the notes it replaces.
SUCCESSOR_FIELDS = ("superseded_by", "superseded-by", "replaced_by", "replaced-by")
REPLACES_FIELDS = ("supersedes", "replaces")
_LINK_MARKS = re.compile(r"^\[\[|\]\]$|^\.?/")


def current_evidence(
    items: Sequence[SubstrateItem], scores: Sequence[float]
) -> tuple[list[SubstrateItem], list[float], list[SubstrateItem]]:
    """``items`` and their ``scores`` without the items the evidence says were replaced, and
    those items; all of them are kept when no other item remains (an answer from an old note
    is then better than none, and the caller can say where it came from)."""
    replaced = _names_replaced(items)
    retired = [item for item in items if is_retired(item) or _names(item) & replaced]
    if not retired or len(retired) == len(items):
        return list(items), list(scores), []
    gone = {item.id for item in retired}
    kept = [(i, s) for i, s in zip(items, scores, strict=True) if i.id not in gone]
    return [i for i, _ in kept], [s for _, s in kept], retired


def is_retired(item: SubstrateItem) -> bool:
    """Whether the item's own front matter says it no longer holds."""
    payload = item.payload if isinstance(item.payload, dict) else {}
    status = payload.get("status")
    if isinstance(status, str) and status.strip().lower().split()[:1] in _RETIRED_WORDS:
        return True
    return any(_given(payload.get(name)) for name in SUCCESSOR_FIELDS)


_RETIRED_WORDS = [[word] for word in sorted(RETIRED_STATUSES)]


def _names_replaced(items: Iterable[SubstrateItem]) -> set[str]:
    """The note names the ``supersedes`` fields of ``items`` give (normalised)."""
    names: set[str] = set()
    for item in items:
        payload = item.payload if isinstance(item.payload, dict) else {}
        for field in REPLACES_FIELDS:
            names.update(_normalised(value) for value in _values(payload.get(field)))
    names.discard("")
    return names


def _names(item: SubstrateItem) -> set[str]:
    """How a note may be named: its source path and its file name, with or without the
    extension (``decisions/adr-003.md``, ``adr-003.md``, ``adr-003``)."""
    source = item.provenance.get("source") if isinstance(item.provenance, dict) else None
    if not isinstance(source, str) or not source:
        return set()
    source = source.lower()
    base = posixpath.basename(source)
    return {source, base, posixpath.splitext(source)[0], posixpath.splitext(base)[0]}


def _normalised(name: str) -> str:
    """A name as written in front matter (``[[adr-003]]``, ``./adr-003.md``), lower-cased."""
    return _LINK_MARKS.sub("", name.strip()).strip().lower()


def _values(value: object) -> list[str]:
    if isinstance(value, str):
        return [part for part in re.split(r"\s*,\s*", value) if part]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _given(value: object) -> bool:
    return bool(_values(value))
