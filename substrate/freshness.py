"""Freshness: is an item still true to its source, and has anything replaced it?

Signals, in the order they are reported:

* ``missing``: the item no longer exists;
* ``moved``: the file it came from (or refers to) is gone;
* ``changed``: that file's bytes no longer match the hash recorded at ingest;
* ``superseded``: another item declares ``provenance.supersedes = <id>``, or a newer item of the
  same kind links to it and declares ``provenance.replaces = <id>``;
* ``replaced``: its Markdown note's front matter names a successor (``superseded_by``), or
  another note's names it (``supersedes``), as ``substrate.supersession`` reads them (notes
  naming each other in a ring replace neither);
* ``aged``: it is older than the caller's ``max_age_s`` policy (a prompt to review, not proof),
  counted from when its content was last written (``content_time``: the date a note's front
  matter gives, else an ingested file's modification time, else the item's creation).

``freshness_report`` indexes every ``supersedes``/``replaces`` edge in one pass, then checks each
item against that index, so a sweep is linear in the size of the shard. Each file is examined
once however many items came from it, and is hashed only when its size or modification time
differs from what ingest recorded (or always, with ``rehash``).
"""

from __future__ import annotations

import errno
import hashlib
import logging
import math
import os
import stat
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from substrate.cloudfiles import in_the_cloud
from substrate.durations import format_duration
from substrate.errors import require_number
from substrate.item import SubstrateItem
from substrate.limits import DEFAULT_MAX_FILE_SIZE, reads_alike_grown
from substrate.lineage import UNRESOLVED
from substrate.lineprefixes import LinePrefixes
from substrate.linesdigest import PROVENANCE_KEY as LINES_HASH_KEY
from substrate.linesdigest import LinesDigest
from substrate.notedates import declared_time, is_date_field
from substrate.secrets.hits import MASK_LEAD
from substrate.secrets.names import name_bytes
from substrate.secrets.scan import safe_text
from substrate.spaces import visible_item
from substrate.supersession import (
    REPLACES_FIELDS,
    SUCCESSOR_FIELDS,
    Replacements,
    origin_scope,
    replacements,
)

if TYPE_CHECKING:
    from substrate.ingest.sourcekeys import MaskedFiles
    from substrate.store import Substrate

log = logging.getLogger(__name__)

_CHUNK = 1 << 20
# A file modified this close to its ingest may have changed again within the same clock tick,
# so its size and time prove nothing: hash it.
_RACY_WINDOW_S = 2.0


@dataclass
class Freshness:
    """One item's freshness verdict: fresh iff no staleness signal fired.

    ``ref`` is the file the item was checked against and ``ref_type`` says where that reference
    came from (``payload.ref``, ``payload.path``, ``provenance.path`` or ``provenance.source``).
    """

    item_id: str
    fresh: bool
    signals: list[str] = field(default_factory=list)
    age_s: float = 0.0
    ref: str | None = None
    ref_type: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The verdict as plain data; ``age_s`` is rounded to a tenth of a second."""
        return {
            "item_id": self.item_id,
            "fresh": self.fresh,
            "signals": list(self.signals),
            "age_s": round(float(self.age_s), 1),
            "ref": self.ref,
            "ref_type": self.ref_type,
        }


def content_hash(path: str | os.PathLike[str]) -> str | None:
    """The sha256 (first 32 hex) of a file's bytes, or None if it cannot be read."""
    digest = hashlib.sha256()
    try:
        with open(_os_name(os.fspath(path)), "rb") as fh:
            while chunk := fh.read(_CHUNK):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()[:32]


def reference_of(item: SubstrateItem) -> tuple[str | None, str | None]:
    """The file an item refers to and where that came from, or ``(None, None)``.

    An item ``mixle ingest`` made (``ingest_path``, ``ingest_text``: it records the
    ``provenance.ingest_options`` it was read with) refers to the file it was read from,
    ``provenance.path``, or to none (a stream): its payload holds the content's own fields (a
    table's column named ``path``, a note's front matter), which name no file of the item's.

    Any other item follows the reference implementation, the explicit ingest adapters' among
    them: ``payload.ref`` and ``payload.path`` name a file outright (a relative one gives way
    to an absolute ``provenance.path``, which holds from any working directory), then
    ``provenance.path``; ``provenance.source`` is only a label in general, so it counts as a
    path only when it is an absolute one (the reference guessed from a slash) and the item was
    not ingested, from a stream it names.
    """
    payload = item.payload if isinstance(item.payload, dict) else {}
    prov = item.provenance if isinstance(item.provenance, dict) else {}
    recorded = prov.get("path")
    if "ingest_options" in prov:  # (a key only mixle ingest writes; "format" is common)
        found = isinstance(recorded, str) and os.path.isabs(recorded)
        return (recorded, "provenance.path") if found else (None, None)
    ingested = "ingested_at" in prov
    for key in ("ref", "path"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            if not os.path.isabs(value) and isinstance(recorded, str) and os.path.isabs(recorded):
                break  # relative to where it was read from: the absolute path finds it
            return value, f"payload.{key}"
    if isinstance(recorded, str) and recorded:
        return recorded, "provenance.path"
    value = prov.get("source")
    if isinstance(value, str) and value and os.path.isabs(value) and not ingested:
        return value, "provenance.source"
    return None, None


def changed_since_ingest(items: Iterable[SubstrateItem]) -> dict[str, str]:
    """The ids of the ``items`` whose file changed or moved since they were ingested, each
    with its signal ("changed" or "moved"): a ``stat`` per file, and a hash where its size or
    time moved (a relative path is looked up from the working directory)."""
    checker = FileChecker()
    found = {}
    for item in items:
        ref, _ = reference_of(item)
        signal = checker.signal(item, ref) if ref is not None else None
        if signal is not None:
            found[item.id] = signal.partition(":")[0]
    return found


@dataclass(slots=True)
class _FileState:
    exists: bool
    size: int = -1
    mtime_ns: int = -1
    digest: str | None = None
    hashed: bool = False
    is_dir: bool = False
    is_file: bool = True  # a regular file (a FIFO would block the hash)
    unreadable: bool = False  # not known to be gone: a folder on its path cannot be entered
    # (text, section) of each part the file reads as now: parsed when a published copy is
    # looked for in it
    parts: set[tuple[str, str | None]] | None = None
    # the hashes of its first bytes, by how many, where they end a line
    prefixes: LinePrefixes | None = None
    # whether its first bytes, but for the lines a digest leaves out, hash as they did: by
    # the digest (``_grew_past_secrets``)
    past_secrets: dict[str, bool] = field(default_factory=dict)


class FileChecker:
    """Looks at each referenced file once: a ``stat``, and a hash only when needed (with
    ``rehash``, always: an edit that kept the size and modification time is then found)."""

    def __init__(self, *, rehash: bool = False) -> None:
        self.rehash = rehash
        self._files: dict[str, _FileState] = {}
        self._unmasked: dict[tuple[str, str], str] = {}
        self._masked_files: MaskedFiles | None = None  # made when a masked path is met

    def signal(self, item: SubstrateItem, ref: str) -> str | None:
        """The ``moved`` or ``changed`` signal for ``item``'s file ``ref``, or None.

        The recorded hash is of ``ref``, or, when ``ref`` is a directory (an artifact), of
        the file named by ``provenance.manifest`` or ``provenance.path``. A file that cannot
        be read, or that became a directory, cannot vouch for the item: it is reported.
        A ``ref`` whose secrets were masked at ingest is looked for on disk
        (``_on_disk``); the signals name it masked.
        """
        path = self._on_disk(item, ref)
        state = self._stat(path)
        if state.unreadable:
            return f"changed: '{ref}' cannot be read to compare it with ingest"
        if not state.exists:
            if in_the_cloud(path):  # evicted by iCloud, as it does: not moved, nor changed
                return None  # that anyone can tell (a cron job's check failed every run)
            return f"moved: referenced path '{ref}' no longer exists"
        prov = item.provenance
        if "ingested_at" in prov and ref != prov.get("path"):
            return None  # what ingest recorded is of what it read, not of the file ref names
        recorded = prov.get("content_hash")
        if not isinstance(recorded, str):
            recorded = ""
        if not recorded and not _stat_recorded(prov):
            return None  # nothing recorded to compare the file with
        hashed, shown = path, ref
        if state.is_dir:
            manifest = _hashed_file(prov, ref)
            if manifest is None:
                return f"moved: referenced path '{ref}' is now a directory"
            hashed = shown = manifest
            if path != ref and manifest.startswith(ref + os.sep):  # in the folder found
                hashed = path + manifest[len(ref) :]
            state = self._stat(hashed)
        if not state.exists:  # (an artifact's manifest deleted from its folder)
            return f"moved: referenced path '{shown}' no longer exists"
        if not state.is_file:
            return f"moved: referenced path '{shown}' is no longer a file"
        if not recorded:  # withheld at ingest (the file held a secret): the stat must tell
            if _same_stat(prov, state) or self._grew_past_secrets(prov, hashed, state):
                return None
            return f"changed: '{shown}' has another size or modification time than at ingest"
        if not self.rehash and self._unchanged_by_stat(prov, state):
            return None
        if not state.hashed:
            state.digest = content_hash(hashed)
            state.hashed = True
        if state.digest is None:
            return f"changed: '{shown}' cannot be read to compare it with ingest"
        if state.digest == recorded[:32] or self._grew_by_lines(prov, hashed, state, recorded):
            return None
        if not self._still_says(item, hashed, state):
            return f"changed: content hash of '{shown}' no longer matches ingest"
        return None

    @staticmethod
    def _grew_by_lines(prov: dict[str, Any], path: str, state: _FileState, recorded: str) -> bool:
        """Whether the file of an item of a format appended to (JSON Lines, traces, a large
        CSV: ``reads_alike_grown``) has only grown by whole lines since the item was read:
        its first bytes, as many as it had then, hash as they did, and end a line. Such an
        item says what it did (``ingest`` leaves it as it is when it reads the lines added)."""
        size = prov.get("size")
        if type(size) is not int or not reads_alike_grown(prov.get("format"), size):
            return False
        if not 0 < size < state.size:
            return False
        if state.prefixes is None:
            state.prefixes = LinePrefixes(_os_name(path))
        return state.prefixes.of(size) == recorded[:32]

    @staticmethod
    def _grew_past_secrets(prov: dict[str, Any], path: str, state: _FileState) -> bool:
        """``_grew_by_lines`` for an item of a document per line that held a secret, whose
        hash was withheld: by the digest of its bytes without the lines that held one
        (``linesdigest``), kept in its stead; a file only touched is found so too."""
        told = prov.get(LINES_HASH_KEY)
        known = LinesDigest.parse(told)
        size = prov.get("size")
        if known is None or type(size) is not int or not 0 < size <= state.size:
            return False  # (of the same size: touched, or a restored copy)
        key = f"{size}:{told}"
        if key not in state.past_secrets:
            try:
                with open(_os_name(path), "rb") as fh:
                    head = fh.read(size)
            except OSError:
                head = b""
            state.past_secrets[key] = known.of(head, size) == known.digest and known.placed(head)
        return state.past_secrets[key]

    def modified(self, item: SubstrateItem, ref: str) -> float:
        """When the file ``ref`` names was last modified, as found by ``signal`` (infinity:
        not a file found)."""
        state = self._stat(self._on_disk(item, ref))
        return state.mtime_ns / 1e9 if state.exists and state.is_file else math.inf

    @staticmethod
    def _still_says(item: SubstrateItem, path: str, state: _FileState) -> bool:
        """Whether ``item``, a copy published or approved out of the scope it was ingested
        into, is still a part of its changed file as ingest would read it now: a Markdown
        section under the same headings, or a paragraph of plain text (whatever the file's
        title, which plain text takes from its first line), with the same text.
        Ingest leaves such a copy as it is (its team's next version is proposed anew), so
        no re-ingest would ever bring its record of the file up to date: its own text tells
        whether it is stale. A chunk of a longer section, a part read otherwise (another
        chunk size, a masked secret), another format or a row is told stale."""
        fmt = item.provenance.get("format")
        if fmt not in ("markdown", "text") or not published_copy(item):
            return False
        markdown = fmt == "markdown"
        if state.parts is None:
            state.parts = _parts(path, state.size, markdown=markdown)
        return (item.text, item.provenance.get("section") if markdown else None) in state.parts

    def _on_disk(self, item: SubstrateItem, ref: str) -> str:
        """The file ``ref`` names: ``ref`` itself, or, when ingestion masked a secret in the
        path (and recorded a digest of the real one), the file on disk it stands for."""
        digest = item.provenance.get(_ORIGIN_DIGEST)
        if MASK_LEAD not in ref or not isinstance(digest, str) or not os.path.isabs(ref):
            return ref
        found = self._unmasked.get((ref, digest))
        if found is None:
            if self._masked_files is None:
                from substrate.ingest.sourcekeys import MaskedFiles

                self._masked_files = MaskedFiles()
            found = self._unmasked[ref, digest] = self._masked_files.find(ref, digest) or ref
        return found

    def _stat(self, ref: str) -> _FileState:
        state = self._files.get(ref)
        if state is None:
            try:
                st = os.stat(_os_name(ref))
            except OSError as exc:  # only a name naming no file is a move: EACCES tells nothing
                gone = exc.errno in _NAMES_NO_FILE
                state = _FileState(exists=False, unreadable=not gone)
            except ValueError:  # a name the file system cannot hold (a NUL in it)
                state = _FileState(exists=False)
            else:
                mode = st.st_mode
                state = _FileState(True, st.st_size, st.st_mtime_ns)
                state.is_dir, state.is_file = stat.S_ISDIR(mode), stat.S_ISREG(mode)
                # a file made unreadable keeps its size and time: ingest would fail it, so it
                # cannot vouch for its items
                state.unreadable = state.is_file and not os.access(_os_name(ref), os.R_OK)
            self._files[ref] = state
        return state

    @staticmethod
    def _unchanged_by_stat(prov: dict[str, Any], state: _FileState) -> bool:
        if not _same_stat(prov, state):
            return False
        ingested = prov.get("ingested_at")
        if isinstance(ingested, int | float):
            return abs(ingested - state.mtime_ns / 1e9) > _RACY_WINDOW_S
        return True


# a missing name, a file where a folder was, a symbolic link loop, a name too long to be one
_NAMES_NO_FILE = (errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG)


def _stat_recorded(prov: dict[str, Any]) -> bool:
    return isinstance(prov.get("size"), int) and _recorded_mtime_ns(prov) is not None


def _same_stat(prov: dict[str, Any], state: _FileState) -> bool:
    """Whether the file has the size and modification time ``prov`` recorded at ingest."""
    recorded = _recorded_mtime_ns(prov)
    if recorded is None:
        return False
    mtime_ns, slack_ns = recorded
    return prov.get("size") == state.size and abs(mtime_ns - state.mtime_ns) <= slack_ns


def _hashed_file(prov: dict[str, Any], directory: str) -> str | None:
    """The file whose hash an item referring to ``directory`` recorded: an artifact's
    manifest (``provenance.manifest``, or the ``provenance.path`` it was ingested from);
    None when no other file is named (the reference was a file, now a directory)."""
    for key in ("manifest", "path"):
        value = prov.get(key)
        if isinstance(value, str) and value and value != directory:
            return value
    return None


def _recorded_mtime_ns(prov: dict[str, Any]) -> tuple[int, int] | None:
    """The modification time recorded at ingest in nanoseconds, and how exact it is."""
    value = prov.get("mtime_ns")
    if isinstance(value, int) and not isinstance(value, bool):
        return value, 0
    value = prov.get("mtime")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value > 1e12:  # no plausible time in seconds is this large: nanoseconds
        return int(value), 0
    if isinstance(value, int):  # whole seconds: the file's time was truncated
        return value * 1_000_000_000, 1_000_000_000
    # Seconds as a float carry about a quarter of a microsecond of precision today.
    return round(value * 1e9), 2_000


class SupersessionIndex:
    """Every ``supersedes`` and ``replaces`` edge among the items seen, in store order."""

    def __init__(self) -> None:
        # target id -> [(kind of edge, other id, other kind, other created_at, links target)]
        self.edges: dict[str, list[tuple[str, str, str, float, bool]]] = {}

    def add(self, item: SubstrateItem) -> None:
        prov = item.provenance if isinstance(item.provenance, dict) else {}
        supersedes = _targets(prov.get("supersedes"))
        for target in supersedes:
            if target != item.id:
                self.edges.setdefault(target, []).append(
                    ("supersedes", item.id, item.kind, item.created_at, True)
                )
        declared, links = set(supersedes), set(item.links)  # (looked up once per target)
        for target in _targets(prov.get("replaces")):
            if target != item.id and target not in declared:
                self.edges.setdefault(target, []).append(
                    ("replaces", item.id, item.kind, item.created_at, target in links)
                )

    def signals(self, item_id: str, kind: str, created_at: float) -> list[str]:
        found: list[str] = []
        for edge, other, other_kind, other_created, linked in self.edges.get(item_id, ()):
            if edge == "supersedes":
                found.append(f"superseded: item '{other}' declares supersedes='{item_id}'")
            elif other_kind == kind and other_created > created_at and linked:
                found.append(f"superseded: newer linked item '{other}' replaces this one")
        return found


def _targets(value: Any) -> tuple[str, ...]:
    if isinstance(value, str) and value:
        return (value,)
    if isinstance(value, list | tuple):
        return tuple(v for v in value if isinstance(v, str) and v)
    return ()


def content_time(item: SubstrateItem) -> float:
    """When the item's content was last written: the date its note's front matter gives
    (``declared_time``: a clone sets every file's modification time to the day it was made),
    else its file's modification time, recorded at ingest, when that is earlier than the item
    itself (a note last edited in 2021 and ingested today is not today's), else when the item
    was made."""
    declared = declared_time(item)
    if declared is not None:
        return declared
    made = float(item.created_at)
    recorded = _recorded_mtime_ns(item.provenance)
    mtime = recorded[0] / 1e9 if recorded is not None else 0.0
    return mtime if 0 < mtime < made else made


def _verdict(
    item: SubstrateItem,
    *,
    files: FileChecker,
    index: SupersessionIndex,
    replaced: Replacements,
    max_age_s: float | None,
    now: float,
    unlinked: str | None = None,
) -> Freshness:
    written = content_time(item)
    signals: list[str] = []
    ref, ref_type = reference_of(item)
    if ref is not None:
        signal = files.signal(item, ref)
        if signal is not None:
            signals.append(signal)
        elif ref == item.provenance.get("path") and declared_time(item) is None:
            # the file says what it said at ingest, but was last modified earlier than then
            # recorded (a restore, rsync -t): its content is as old as the file says
            written = min(written, files.modified(item, ref))
    age = max(0.0, now - written)
    signals.extend(index.signals(item.id, item.kind, float(item.created_at)))
    if item.id in replaced.by:
        # the successor as its note names it: a name may hold a secret, masked as paths are
        said = f"replaced: by {safe_text(replaced.by[item.id])} (a note says so"
        # (one outside the shard, or a name mistyped: it retires the note all the same)
        unseen = item.id in replaced.unseen
        signals.append(f"{said}; no note you can read is named so)" if unseen else f"{said})")
    if unlinked:
        signals.append(unlinked)
    if max_age_s is not None and age > max_age_s:
        signals.append(
            f"aged: {format_duration(age)} old exceeds the {format_duration(max_age_s)} policy "
            "(review, not proof)"
        )
    return Freshness(item.id, not signals, signals, age, ref, ref_type)


def _unlinked_signals(
    items: Iterable[SubstrateItem],
    links: dict[str, list[str]],
    known: set[str],
    *,
    scopes: Collection[str] | None,
    own_scope: str | None,
) -> dict[str, str]:
    """The signal of each of ``items`` whose ``links`` lead to no ``known`` item: what it was
    written from was removed, or replaced by a new version (a section of a re-ingested file
    that changed has a new id). Read with scopes, only the reader's own items are told of,
    and neither which item they link to, nor whether it was removed or is another team's, nor
    how many (as lineage audits tell it)."""
    signals = {}
    for item in items:
        if scopes is not None and (own_scope is None or item.scope != own_scope):
            continue  # a link of a shared item is its writer's to mend
        gone = [target for target in links.get(item.id, ()) if target not in known]
        if not gone:
            continue
        if scopes is not None:
            signals[item.id] = f"unlinked: a link leads to {UNRESOLVED}"
            continue
        more = f" and {len(gone) - 3} more" if len(gone) > 3 else ""
        named = ", ".join(f"'{target}'" for target in gone[:3])
        signals[item.id] = f"unlinked: links to {named}{more}, removed or replaced"
    return signals


def check_freshness(
    substrate: Substrate,
    item_id: str,
    *,
    max_age_s: float | None = None,
    now: float | None = None,
    scopes: Collection[str] | None = None,
    rehash: bool = False,
    own_scope: str | None = None,
) -> Freshness:
    """Check one item for the staleness signals; a missing item is stale (``missing``).

    Args:
        substrate: the shard.
        item_id: the item.
        max_age_s: report items older than this many seconds as ``aged``.
        now: the time to measure age against (default: now).
        scopes: the scopes the reader may see (None: all); a superseding item outside them is
            not reported, and an item outside them counts as missing.
        rehash: hash the item's file even when its size and modification time are those
            recorded at ingest.
        own_scope: the reader's own scope: read with ``scopes``, only its items' links that
            lead to no item the reader sees are told of (``unlinked``).

    Raises:
        InvalidInputError: ``max_age_s`` or ``now`` is not a number of seconds, or
            ``max_age_s`` is negative.
    """
    _check_times(max_age_s, now)
    item = visible_item(substrate, item_id, scopes)
    if item is None:
        return Freshness(item_id, False, ["missing: item no longer exists"], 0.0)
    index = SupersessionIndex()
    notes: list[SubstrateItem] = []
    for other in substrate.iter_items(scopes=scopes):
        index.add(other)
        notes.append(_light(other))
    unlinked = _unlinked_signals(
        [item], {item.id: item.links}, {note.id for note in notes}, scopes=scopes,
        own_scope=own_scope,
    )  # fmt: skip
    replaced = replacements(notes, confined=scopes is not None)
    return _verdict(
        item,
        files=FileChecker(rehash=rehash),
        index=index,
        replaced=replaced,
        max_age_s=max_age_s,
        now=time.time() if now is None else now,
        unlinked=unlinked.get(item.id),
    )


def _check_times(max_age_s: object, now: object) -> None:
    """Refuse an age limit or a clock that is not a number of seconds: text ("30d") would
    fail mid-sweep, and a negative limit would call every item aged."""
    if max_age_s is not None:
        require_number(max_age_s, "max_age_s (in seconds)", minimum=0)
    if now is not None:
        require_number(now, "now")


def freshness_report(
    substrate: Substrate,
    *,
    max_age_s: float | None = None,
    scope: str | None = None,
    now: float | None = None,
    scopes: Collection[str] | None = None,
    rehash: bool = False,
    own_scope: str | None = None,
) -> dict[str, Any]:
    """Sweep a shard for stale knowledge: ``{n_items, n_fresh, n_stale, stale: [...]}``.

    Args:
        substrate: the shard.
        max_age_s: report items older than this many seconds as ``aged``.
        scope: check only the items of this scope.
        now: the time to measure age against (default: now).
        scopes: the scopes the reader may see (None: all).
        rehash: hash every file, even one whose size and modification time are those
            recorded at ingest (each file once, however many items came from it).
        own_scope: the reader's own scope: read with ``scopes``, only its items' links that
            lead to no item the reader sees are told of (``unlinked``).

    Returns:
        Counts, and ``Freshness.as_dict()`` of every stale item in store order.

    Raises:
        InvalidInputError: as ``check_freshness``.
    """
    _check_times(max_age_s, now)
    now = time.time() if now is None else now
    index = SupersessionIndex()
    readable: list[SubstrateItem] = []  # light: a sweep keeps no text
    links: dict[str, list[str]] = {}  # the links light items drop, of the items with any
    for item in substrate.iter_items(scopes=scopes):
        index.add(item)
        readable.append(_light(item))
        if item.links:
            links[item.id] = item.links
    checked = [item for item in readable if scope is None or item.scope == scope]
    replaced = replacements(readable, confined=scopes is not None)
    unlinked = _unlinked_signals(
        checked, links, {item.id for item in readable}, scopes=scopes, own_scope=own_scope
    )
    files = FileChecker(rehash=rehash)
    stale: list[dict[str, Any]] = []
    for item in checked:
        verdict = _verdict(
            item,
            files=files,
            index=index,
            replaced=replaced,
            max_age_s=max_age_s,
            now=now,
            unlinked=unlinked.get(item.id),
        )
        if not verdict.fresh:
            stale.append(verdict.as_dict())
    return {
        "n_items": len(checked),
        "n_fresh": len(checked) - len(stale),
        "n_stale": len(stale),
        "stale": stale,
    }


# where ingestion records a digest of a source's real name when the gate masked a secret in
# it (``substrate.ingest.sourcekeys.DIGEST_KEY``; that package is not imported for every check)
_ORIGIN_DIGEST = "origin_digest"
_PAYLOAD_KEYS = ("ref", "path", "id", *SUCCESSOR_FIELDS, *REPLACES_FIELDS)
_PROVENANCE_KEYS = (
    "format",
    "ingest_options",
    _ORIGIN_DIGEST,
    "path",
    "manifest",
    "source",
    "content_hash",
    LINES_HASH_KEY,
    "size",
    "mtime",
    "mtime_ns",
    "ingested_at",
    "ingest_scope",
)


def _light(item: SubstrateItem) -> SubstrateItem:
    """The item without its links and bulky fields, and without its text and section unless
    it is a copy published out of the scope it was ingested into (``_still_says`` reads
    them): all a verdict needs, kept small."""
    payload = item.payload if isinstance(item.payload, dict) else {}
    prov = item.provenance if isinstance(item.provenance, dict) else {}
    kept = {k: prov[k] for k in _PROVENANCE_KEYS if k in prov}
    published = published_copy(item)
    if published and "section" in prov:
        kept["section"] = prov["section"]
    return SubstrateItem(
        kind=item.kind,
        text=item.text if published else "",
        payload={k: v for k, v in payload.items() if k in _PAYLOAD_KEYS or is_date_field(k)},
        provenance=kept,
        scope=item.scope,
        id=item.id,
        created_at=item.created_at,
    )


def _parts(path: str, size: int, *, markdown: bool) -> set[tuple[str, str | None]]:
    """The (text, section) of each whole part ingest reads the file at ``path`` into, with
    its default options: none of a section or paragraph cut into chunks (the rest of it may
    now say otherwise), and none at all of a file that cannot be read or is larger than
    ingest reads by default."""
    from substrate.ingest.formats.context import ParseContext
    from substrate.ingest.formats.markdown import parse_markdown
    from substrate.ingest.formats.text import parse_text
    from substrate.ingest.segment import FileRejected
    from substrate.ingest.textio import decode_text

    if size > DEFAULT_MAX_FILE_SIZE:
        return set()
    try:
        with open(_os_name(path), "rb") as handle:
            text = decode_text(handle.read())
    except (OSError, FileRejected):
        return set()
    parts = (parse_markdown if markdown else parse_text)(text, ParseContext(path=path)).segments
    return {
        (part.text, part.section if markdown else None)
        for part, following in zip(parts, [*parts[1:], None], strict=True)
        if part.chunk == 0 and (following is None or following.chunk == 0)
    }


def published_copy(item: SubstrateItem) -> bool:
    """Whether ``item`` was published or approved out of the scope it was ingested into:
    ingest leaves such a copy as it is, and gives its team a new item when the file changes."""
    return origin_scope(item) != item.scope


def _os_name(path: str) -> str:
    """``path`` as the file-system calls take it. A name stored as UTF-8 reads it that the
    locale's file-system encoding cannot write (``C`` with ``PYTHONUTF8=0``) is given by its
    UTF-8 bytes, which name the same file."""
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        return os.fsdecode(name_bytes(path))
    return path
