"""Notes replaced by a newer note, so that an answer is taken from the newer one.

Teams say in a Markdown note's front matter (read into each item's payload) that it was
replaced: ``superseded_by:`` naming its successor, or, in the successor, ``supersedes:`` (or
``replaces:``) naming it. An answer quoting the old note states, with full confidence, what the
team decided against ("max_retries is 3" when the newer record says 5).
``current_evidence`` passes such a note over when its successor is part of the evidence too,
so that the successor answers instead, and a note naming its successor when that one is not
(it is current, wherever it is: another scope, another folder); what it passed over is
reported, never hidden. ``verify`` and ``freshness`` apply the same rule. A note only marked
``status: deprecated``, naming no successor, stays: a question may be about the deprecated
thing itself.

An older copy of a passage is passed over the same way: an item published to another scope
keeps the file's content of the day it was published, and the file's newer version, ingested
since, says it otherwise (``outdated_copies``).

A name is read from the folder of the note that writes it (``adr-003``, ``adr-003.md``,
``../old/adr-003.md``, ``[[adr-003]]``): a note of that name in another folder is another
note. Notes that name each other, in a ring, replace none of them. Only the evidence is looked
at, so only notes the reader may see. Read as a team, a note replaces only notes of its own
scope or of the scope it came from (``may_retire``): a note another team put in a shared scope
cannot silence a team's own notes by naming them.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Hashable, Iterator, Sequence
from typing import NamedTuple

from substrate.identifiers import identifiers
from substrate.item import SubstrateItem, place_value
from substrate.limits import ROW_FORMATS
from substrate.notelinks import NOTE_EXTENSIONS
from substrate.notestatus import never_in_force

# Front-matter fields naming the note's successor, and in a successor, the notes it replaces.
SUCCESSOR_FIELDS = ("superseded_by", "superseded-by", "replaced_by", "replaced-by")
REPLACES_FIELDS = ("supersedes", "replaces")
_WIKI = re.compile(r"^\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?(?:\|[^\[\]]*)?\]\]$")
_FRONT_MATTER_FORMATS = frozenset({"markdown"})


def current_evidence(
    items: Sequence[SubstrateItem],
    scores: Sequence[float],
    *,
    asked_of: Collection[str] = (),
    confined: bool = False,
) -> tuple[list[SubstrateItem], list[float], list[SubstrateItem]]:
    """``items`` and their ``scores`` without the notes a newer note replaced
    (``replaced_notes``) or that are older copies of a passage (``outdated_copies``), and
    those items. A replaced note whose title gives one of the identifiers ``asked_of`` stays:
    "What is the status of ADR-002?" asks of the old record itself. ``confined``: the items
    are read as a team (``may_retire`` holds)."""
    replaced = superseded(items, asked_of=asked_of, confined=confined)
    if not replaced:
        return list(items), list(scores), []
    kept = [(i, s) for i, s in zip(items, scores, strict=True) if i.id not in replaced]
    gone = [item for item in items if item.id in replaced]
    return [i for i, _ in kept], [s for _, s in kept], gone


def superseded(
    items: Sequence[SubstrateItem], *, asked_of: Collection[str] = (), confined: bool = False
) -> dict[str, str]:
    """``replaced_notes`` and ``outdated_copies`` of ``items`` together, but a replaced note
    whose title gives a numbered identifier of ``asked_of`` ("ADR-002") that no current
    note's title gives: the question asks of that record ("payments-api", in the titles of a
    record and its successor alike, asks of neither)."""
    replaced = replaced_notes(items, confined=confined)
    numbered = {_unpadded(name.lower()) for name in asked_of if any(c.isdigit() for c in name)}
    if numbered and replaced:
        titles = {item.id: _title_names(item) for item in items}
        numbered -= set().union(*(t for i, t in titles.items() if i not in replaced))
        replaced = {i: why for i, why in replaced.items() if not numbered & titles[i]}
    return {**outdated_copies(items, confined=confined), **replaced}


def _title_names(item: SubstrateItem) -> set[str]:
    """The identifiers the title of ``item``'s note (its section path's first heading) gives,
    in lower case and with no zeros padding their numbers; and for a record adr-tools names
    by number ("adr/0001-use-mysql.md", titled "1. Use MySQL"), its ADR name ("adr-1")."""
    section = item.provenance.get("section")
    title = section.split(" > ", 1)[0] if isinstance(section, str) else ""
    names = {_unpadded(name.lower()) for name in identifiers(title)}
    folder, _, name = _stem(item).rpartition("/")
    number = _LEADING_NUMBER.match(name)
    if number and _holds_records(folder, "adr"):
        names.add(_unpadded(f"adr-{number.group(1)}"))
    return names


_LEADING_NUMBER = re.compile(r"(\d+)-")


def outdated_copies(items: Sequence[SubstrateItem], *, confined: bool = False) -> dict[str, str]:
    """The ids of the ``items`` that are older copies of a passage of a file another of them
    holds newer content of (same file, section and chunk, another content hash, a later
    modification time), each with what replaced it ("the newer content of deploys.md")."""
    copies: dict[tuple[str, str, object], list[SubstrateItem]] = {}
    for item in items:
        key = _passage_of(item)
        if key is not None:
            copies.setdefault(key, []).append(item)
    outdated: dict[str, str] = {}
    for found in copies.values():
        for item in found:
            # (max: the first of the latest, as they come)
            newest = max((n for n in found if may_retire(n, item, confined)), key=_version)
            if item.provenance.get("content_hash") != newest.provenance.get("content_hash"):
                outdated[item.id] = f"the newer content of {_name_of(newest)}"
    return outdated


def may_retire(newer: SubstrateItem, older: SubstrateItem, confined: bool = True) -> bool:
    """Whether ``newer`` may say that ``older`` is replaced, read as a team (``confined``): it
    is in the scope ``older`` is in or came from, or it came from one of them itself (a note
    its team published). A note another team put in a shared scope says nothing of a team's
    own notes. Read whole (by the shard's owner, or where scopes are labels), any may."""
    if not confined:
        return True
    written = {newer.scope, origin_scope(newer)}
    return older.scope in written or origin_scope(older) in written


def origin_scope(item: SubstrateItem) -> str:
    """The scope ``item`` was ingested into (where it is, for one added or never moved)."""
    prov = item.provenance if isinstance(item.provenance, dict) else {}
    ingested_into = prov.get("ingest_scope")
    return ingested_into if isinstance(ingested_into, str) else item.scope


def _passage_of(item: SubstrateItem) -> tuple[str, str, object] | None:
    """Which passage of which file ``item`` holds, for an item ingested from a file."""
    prov = item.provenance if isinstance(item.provenance, dict) else {}
    where = prov.get("path") or prov.get("source")
    if not isinstance(where, str) or not prov.get("content_hash"):
        return None
    if str(prov.get("format")) in ROW_FORMATS:  # each line (or row) its own passage: a
        # file appended to keeps its old lines' items, which record it as it was (``ingest``)
        return where, f"line {place_value(prov.get('index'))}", None
    return where, str(prov.get("section") or ""), place_value(prov.get("chunk"))


def _version(item: SubstrateItem) -> tuple[float, float]:
    prov = item.provenance
    mtime, ingested = prov.get("mtime_ns"), prov.get("ingested_at")
    return (
        float(mtime) if isinstance(mtime, int | float) else 0.0,
        float(ingested) if isinstance(ingested, int | float) else 0.0,
    )


class Replacements(NamedTuple):
    """What ``replacements`` finds among some items."""

    by: dict[str, str]  # the ids of the notes replaced, each with what replaced it
    # of those, the notes whose front matter names as successors only notes not among the
    # items (``superseded_by: ghost.md``): outside them, or a name mistyped
    unseen: set[str]


def replaced_notes(items: Sequence[SubstrateItem], *, confined: bool = False) -> dict[str, str]:
    """The ids of the ``items`` of notes a newer note replaced, each with the name of what
    replaced it: a successor among the items (unless the two are in a ring), or one its own
    front matter names that is not among them (``superseded_by: adr-005``: current,
    wherever it is); ``confined``: as ``may_retire``."""
    return replacements(items, confined=confined).by


def replacements(items: Sequence[SubstrateItem], *, confined: bool = False) -> Replacements:
    """``replaced_notes``, and which of those notes name successors none of the items is."""
    notes, by_stem, pairs, current = _pairs(items, confined)
    found: dict[str, dict[str, str]] = {}  # old id -> each successor's stem -> its name
    told: set[tuple[object, ...]] = set()
    for newer, older in pairs:
        names = by_stem.names(newer)
        if (names, older.key) in told:
            continue  # (the other passages of a note that named these)
        told.add((names, older.key))
        for old in older.items:
            if old.id in current:
                for stem, name in names:
                    found.setdefault(old.id, {}).setdefault(stem, name)
    older_sides = {older.key: older for _, older in pairs}.values()
    paired = {old.id for older in older_sides for old in older.items}  # rings included
    return _with_named_successors(notes, by_stem, current, paired, found)


def replacing_notes(items: Sequence[SubstrateItem], *, confined: bool = False) -> set[str]:
    """The ids of the ``items`` of notes that replace another of them and that nothing of
    them replaces: where what is in force is said."""
    _, _, pairs, replaced = _pairs(items, confined)
    return {
        item.id
        for newer, older in pairs
        if any(old.id in replaced for old in older.items)
        for item in newer.items
        if item.id not in replaced
    }


def _pairs(
    items: Sequence[SubstrateItem], confined: bool
) -> tuple[list[SubstrateItem], _Stems, list[tuple[_Side, _Side]], set[str]]:
    """The notes of ``items``, their stems, the (newer, older) sides front matter pairs, and
    the ids of the items those pairs replace."""
    notes = [item for item in items if _note_of(item) is not None]
    by_stem = _Stems(notes)
    pairs = list(_replacements(notes, by_stem, confined))
    return notes, by_stem, pairs, _replaced(pairs)


def _with_named_successors(
    notes: list[SubstrateItem],
    by_stem: _Stems,
    current: set[str],
    paired: set[str],
    found: dict[str, dict[str, str]],
) -> Replacements:
    """``found`` (old id -> each successor's stem -> its name, from the pairs among the
    ``notes``), with the successors each note's front matter names that are not among them,
    as each replaced note's names; ``current``: the replaced ids, ``paired``: every older id
    of a pair, rings included."""
    unseen: set[str] = set()
    for note in notes:
        if note.id in paired and note.id not in current:
            continue  # in a ring: neither is replaced
        named_here = seen = False  # (a successor named, one of them among the notes)
        for name in successor_names(note):  # those not among the items too
            stem = _stem_named(note, name)
            if stem == _stem(note):
                continue  # a note naming itself replaces nothing
            present = by_stem.named(stem)
            named_here, seen = True, seen or bool(present)
            if present and all(never_in_force(i) for s in present for i in by_stem.notes[s]):
                continue  # a proposal that would replace it: it is in force still
            named = found.setdefault(note.id, {})
            if not any(s in named for s in (stem, *present)):
                named[stem] = _as_source_name(note, name)
        if named_here and not seen:
            unseen.add(note.id)
    by = {old_id: ", ".join(names.values()) for old_id, names in found.items() if names}
    return Replacements(by, unseen & by.keys())


def _as_source_name(item: SubstrateItem, name: str) -> str:
    """The note ``name`` names, read from the folder of ``item``'s, as a source is named
    ("adr-005.md" in adr/ is "adr/adr-005.md"): the same whether or not the successor is
    among the items at hand."""
    source = item.provenance.get("source") if isinstance(item.provenance, dict) else None
    if not isinstance(source, str) or "://" in name:
        return name
    return posixpath.normpath(posixpath.join(posixpath.dirname(source), name))


def successor_names(item: SubstrateItem) -> list[str]:
    """The successors ``item``'s note names in its front matter (``superseded_by``), as
    written."""
    if _note_of(item) is None:
        return []
    return [name for field in SUCCESSOR_FIELDS for name in _values(item.payload.get(field))]


class _Side(NamedTuple):
    """One side of a replacement: an item alone (``key``: its id), or every item of the notes
    a front-matter field names but those of the naming note (``key``: whose, and which).
    Each passage of a note names the same others: a note of n passages superseding one of n
    is 2n edges through the side's node, not n * n pairs."""

    key: Hashable
    items: tuple[SubstrateItem, ...]


def _replaced(pairs: list[tuple[_Side, _Side]]) -> set[str]:
    """The ids of the items of the older sides of ``pairs`` (newer, older) whose line of
    successors reaches an item that nothing replaces: in a ring, none is the current one.
    Worked back from those current items, so a long chain costs no more than its length."""
    successors: dict[Hashable, set[Hashable]] = {}
    predecessors: dict[Hashable, set[Hashable]] = {}

    def edge(older: Hashable, newer: Hashable) -> None:
        successors.setdefault(older, set()).add(newer)
        predecessors.setdefault(newer, set()).add(older)

    def node(side: _Side, newer: bool) -> Hashable:
        """An item's id, or a group's own node, between it and each of its items."""
        if isinstance(side.key, str):
            return side.key
        if side.key not in predecessors and side.key not in successors:
            for item in side.items:
                if newer:
                    edge(side.key, item.id)
                else:
                    edge(item.id, side.key)
        return side.key

    for newer, older in pairs:
        edge(node(older, newer=False), node(newer, newer=True))
    waiting = [n for n in predecessors if n not in successors]  # current: nothing replaces it
    replaced: set[Hashable] = set()
    while waiting:
        for earlier in predecessors.get(waiting.pop(), ()):
            if earlier not in replaced:
                replaced.add(earlier)
                waiting.append(earlier)
    return {found for found in replaced if isinstance(found, str)}


def _replacements(
    notes: list[SubstrateItem], by_stem: _Stems, confined: bool
) -> Iterator[tuple[_Side, _Side]]:
    """(newer, older) for each pair of sides of ``notes`` (items of different files) that
    front matter says one replaced the other; but for a newer note not in force yet (a
    proposal, a draft, one rejected): what it would replace still is."""
    for item in notes:
        alone = _Side(item.id, (item,))
        if not never_in_force(item):
            for field in REPLACES_FIELDS:
                for older in _named(item, field, by_stem, "older", confined):
                    yield alone, older
        for field in SUCCESSOR_FIELDS:
            for newer in _named(item, field, by_stem, "newer", confined):
                if not all(map(never_in_force, newer.items)):
                    yield newer, alone


def _named(
    item: SubstrateItem, field: str, by_stem: _Stems, role: str, confined: bool
) -> list[_Side]:
    """The items of the notes that ``item``'s front-matter ``field`` names (other files), as
    the ``role`` side ("newer" or "older") of a replacement, one side per note named."""
    own = _note_of(item)
    retiring = item if role == "older" and confined else None
    return [
        side
        for name in _values(item.payload.get(field))
        for stem in by_stem.named(_stem_named(item, name))
        if (side := by_stem.side(stem, own, role, retiring)).items
    ]


# Where a numbered record's number ends in its stem, before its title ("adr-009-session")
_NUMBER_END = re.compile(r"\d-")
# The kind of record before its number in a name ("adr-" of "adr-0007"), which files named by
# number and title ("0007-use-postgres.md") leave out
_RECORD_PREFIX = re.compile(r"([a-z]+)-(\d+)")


class _Stems:
    """The items of notes by their file's stem, and the stems of numbered records by the
    stem their number alone makes ("adr-009" -> "adr-009-session-lifetime"), each worked out
    once: a lookup costs no pass over every note."""

    def __init__(self, notes: Sequence[SubstrateItem]) -> None:
        self.notes: dict[str, list[SubstrateItem]] = {}
        for note in notes:
            self.notes.setdefault(_stem(note), []).append(note)
        self.titled: dict[str, list[str]] = {}
        for stem in self.notes:
            for m in _NUMBER_END.finditer(stem):
                self.titled.setdefault(stem[: m.start() + 1], []).append(stem)
        # a note's own name for itself ("id: ADR-0007"), in its folder as a stem
        for stem, items in self.notes.items():
            for own in {v.lower() for i in items for v in _values(i.payload.get("id"))}:
                named = posixpath.join(posixpath.dirname(stem), own)
                if named not in self.notes:
                    self.titled.setdefault(named, []).append(stem)
        # the same numbers written without their zeros ("ADR-7" of 0007-use-postgres.md)
        self.unpadded: dict[str, list[str]] = {}
        for named, stems in self.titled.items():
            self.unpadded.setdefault(_unpadded(named), []).extend(stems)
        self._sides: dict[Hashable, _Side] = {}
        self._names: dict[Hashable, tuple[tuple[str, str], ...]] = {}

    def side(
        self, stem: str, own: str | None, role: str, retiring: SubstrateItem | None = None
    ) -> _Side:
        """The items of the notes of ``stem`` but those of the note ``own``, as a ``role``
        side, and only those ``retiring`` may retire (``may_retire``) when it is given
        (worked out once: every passage of a note names the same, from the same scopes)."""
        scopes = None if retiring is None else (retiring.scope, origin_scope(retiring))
        key = (role, stem, own, scopes)
        side = self._sides.get(key)
        if side is None:
            notes = tuple(
                n
                for n in self.notes[stem]
                if _note_of(n) != own and (retiring is None or may_retire(retiring, n))
            )
            side = self._sides[key] = _Side(key, notes)
        return side

    def names(self, side: _Side) -> tuple[tuple[str, str], ...]:
        """The stems and names of the notes of ``side``'s items, each once, in order."""
        names = self._names.get(side.key)
        if names is None:
            names = tuple(dict.fromkeys((_stem(n), _name_of(n)) for n in side.items))
            self._names[side.key] = names
        return names

    def named(self, stem: str) -> list[str]:
        """The stems ``stem`` names: itself, or for a numbered record the one file named by
        its number and a title."""
        if stem in self.notes:
            return [stem]
        titled = set(self.titled.get(stem, []))
        unprefixed = _unprefixed(stem)  # "ADR-0007" of adr-tools' 0007-title.md
        if unprefixed != stem and unprefixed not in self.notes:
            titled.update(self.titled.get(unprefixed, []))
        if not titled:
            titled.update(self.unpadded.get(_unpadded(stem), []))
            titled.update(self.unpadded.get(_unpadded(unprefixed), []))
        return list(titled) if len(titled) == 1 else []


def _unpadded(stem: str) -> str:
    """``stem`` with the zeros that pad the numbers of its name dropped ("adr/adr-0007" ->
    "adr/adr-7")."""
    folder, slash, name = stem.rpartition("/")
    return folder + slash + _PADDING.sub("", name)


_PADDING = re.compile(r"(?<!\d)0+(?=\d)")


def _of_decisions(folder: str) -> bool:
    """Whether ``folder`` is named as adr-tools and its kin name a folder of decision records
    (``decisions``, ``architecture-decisions``, ``decision-records``, ``architecture``)."""
    return folder == "architecture" or _DECISIONS.fullmatch(folder) is not None


_DECISIONS = re.compile(r"(?:[a-z0-9]+[-_])*decisions?(?:[-_](?:records?|log))?(?:[-_]v\d+)?")


def _unprefixed(stem: str) -> str:
    """``stem`` without the kind of record before its number, where the folder holds records
    of that kind ("adr/adr-0007" -> "adr/0007"; "adr/rfc-0007" stays): an ADR is not an RFC
    of the same number."""
    folder, _, name = stem.rpartition("/")
    kind = _RECORD_PREFIX.fullmatch(name)
    if kind is None:
        return stem
    if not _holds_records(folder, kind[1]):
        return stem
    return f"{folder}/{kind[2]}" if folder else kind[2]


def _holds_records(folder: str, kind: str) -> bool:
    """Whether ``folder`` is named for records of ``kind`` ("adr/", "rfcs/"; for ADRs, a
    folder of decisions too)."""
    holds = posixpath.basename(folder)
    return holds in (kind, kind + "s") or (kind == "adr" and _of_decisions(holds))


def _stem_named(item: SubstrateItem, name: str) -> str:
    """The stem of the note ``name`` names, read from the folder of ``item``'s note."""
    folder = posixpath.dirname(_note_of(item) or "")
    return _drop_extension(posixpath.normpath(posixpath.join(folder, name)).lower())


def _name_of(item: SubstrateItem) -> str:
    source = item.provenance.get("source") if isinstance(item.provenance, dict) else None
    return source if isinstance(source, str) and source else _note_of(item) or item.id


def _note_of(item: SubstrateItem) -> str | None:
    """Where the file of an item of a Markdown note is (its path, else its source name), or
    None for any other item: front matter is Markdown's alone."""
    prov = item.provenance if isinstance(item.provenance, dict) else {}
    where = prov.get("path") or prov.get("source")
    if place_value(prov.get("format")) not in _FRONT_MATTER_FORMATS or not isinstance(where, str):
        return None
    return where if isinstance(item.payload, dict) else None


def _stem(item: SubstrateItem) -> str:
    return _drop_extension((_note_of(item) or "").lower())


def _drop_extension(path: str) -> str:
    root, ext = posixpath.splitext(path)
    return root if ext in NOTE_EXTENSIONS else path


def _values(value: object) -> list[str]:
    """The names a front-matter value gives: a string (split at commas), a list of them, or
    the nested list unquoted YAML makes of ``[[adr-003]]``; wiki brackets and aliases off."""
    if isinstance(value, list):
        return [name for v in value for name in _values(v)]
    if not isinstance(value, str):
        return []
    names = [part.strip() for part in value.split(",")]
    return [
        (_WIKI.sub(r"\1", name) if _WIKI.match(name) else name).strip() for name in names if name
    ]
